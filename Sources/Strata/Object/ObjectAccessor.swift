import StrataStorage

/// What makes an `Object` managed: the realm it belongs to and the stored object it reads and
/// writes. Not API (public only because `_Persistable`'s requirements name it).
///
/// Every access checks, in this order: the realm's context (Spec C5), a frozen realm's
/// invalidation (F6), the accessor's epoch (V13), that the write which created the object was
/// not rolled back (W5), then that the object exists at the realm's current version (W12: a
/// deleted object is invalidated at once).
///
/// "The object exists" means its key holds the very object the accessor was made for: the same
/// incarnation (`Incarnation`). Keys of integer primary keys are reused when an object is
/// deleted and another created with the same primary key; that other object is not this one.
public final class _ObjectAccessor {
    let core: RealmCore
    let info: ClassInfo
    /// The object's table, shared with the other objects made from one lookup or write
    /// (`TableHandle`).
    let tableHandle: TableHandle
    var table: TableInfo { tableHandle.info }
    // Which object, as of when: fixed for the accessor's life, except that an iteration may
    // move an accessor nobody else holds to its next element (`retarget`). The fields every
    // property read touches are `@exclusivity(unchecked)`: they are only ever read or
    // assigned whole, never passed inout, so the dynamic check (a runtime call per access)
    // could never fire.
    @exclusivity(unchecked) private(set) var key: ObjectKey
    @exclusivity(unchecked) private(set) var incarnation: Incarnation
    /// The write that created the object, while that matters (`WriteScope`); nil for objects
    /// that existed when the accessor was made outside that write.
    @exclusivity(unchecked) private(set) var scope: WriteScope?
    @exclusivity(unchecked) private(set) var epoch: Int
    /// Deleted through this accessor (`realm.delete(object)`): the object no longer names a
    /// realm (Realm's RLMDeleteObjectFromRealm clears that accessor's realm; other accessors of
    /// the deleted object keep theirs).
    var isDetachedByDelete = false
    /// The view at which a link (a to-one property or a List element) named this object, for
    /// accessors made from one. Spec W13: a link never outlives its target, so at that very
    /// view a missing object is a damaged file (Spec D17), not a deleted object.
    var linkStamp: ViewStamp?

    convenience init(core: RealmCore, info: ClassInfo, table: TableInfo, identity: ObjectIdentity, scope: WriteScope?) {
        self.init(core: core, info: info, table: TableHandle(table), identity: identity, scope: scope)
    }

    init(core: RealmCore, info: ClassInfo, table: TableHandle, identity: ObjectIdentity, scope: WriteScope?) {
        self.core = core
        self.info = info
        tableHandle = table
        self.key = identity.key
        self.incarnation = identity.incarnation
        self.scope = scope
        epoch = core.epoch
    }

    deinit { row.release() }

    /// Makes this accessor, which nobody but its object holds, the accessor of another object
    /// of the same class and table, as if newly made: what `ResultsIterator` does with the
    /// object of the previous element when the loop body kept no reference to it.
    @inline(__always)
    func retarget(_ identity: ObjectIdentity, scope: WriteScope?) {
        key = identity.key
        incarnation = identity.incarnation
        self.scope = scope
        epoch = core.epoch
        isDetachedByDelete = false
        linkStamp = nil
        rowToken = 0
    }

    var identity: ObjectIdentity { ObjectIdentity(key: key, incarnation: incarnation) }

    /// Whether the write that created the object was rolled back (Spec W5): then the object
    /// never existed, whatever a later write creates under its key.
    @inline(__always)
    var isRolledBack: Bool { scope?.isRolledBack ?? false }

    /// The realm of the object; what links decode in (`_RealmValue._strataDecode`).
    @usableFromInline
    var realm: Realm { Realm(core: core) }
    var isFrozen: Bool { core.isFrozen }

    /// The checks every read and write starts with; returns the view to use.
    @inline(__always)
    func checkedView() throws(Realm.Error) -> VersionView {
        try core.checkAccess()
        // Spec V13, and before the view: a rejected call must not begin a read.
        guard epoch == core.epoch, !isRolledBack else { throw Realm.Error.objectInvalidated }
        return try core.view()
    }

    /// Spec F11: an object created in the open write (also one re-created under the key of an
    /// object this write deleted) has no committed state to freeze.
    func checkCommitted() throws(Realm.Error) {
        guard core.write != nil else { return }
        guard let base = core.read,
            try engine(core.path, { try base.incarnation(table, key: key) }) == incarnation
        else {
            throw Realm.Error.freezeInCreatingWrite
        }
    }

    /// Whether the object no longer exists for this accessor (Spec W12, V13).
    func isInvalidated() throws(Realm.Error) -> Bool {
        try core.checkThread()
        // Spec V13, W5, F6: asking is no read, so an invalidated frozen realm answers true.
        guard epoch == core.epoch, !isRolledBack, !core.isFrozenInvalidated else { return true }
        let view = try core.view()
        return try !engine(core.path) { try view.contains(table, identity: identity) }
    }

    /// The stored value of `column`.
    ///
    /// A live accessor keeps a copy of its row's bytes for the realm's current view
    /// (`ViewStamp`, `RowBuffer`), so reading several properties of one object costs one tree
    /// search, and each read decodes its own column only; any move, mutation or invalidate
    /// changes the stamp. Frozen accessors, read by many threads at once, keep nothing.
    func value(column: Int) throws(Realm.Error) -> StrataStorage.Value {
        if let kept = try keptRow() {
            // nil: the value lies in overflow pages, read by searching the row below.
            do { if let value = try kept.value(at: column) { return value } } catch {
                throw Realm.Error.from(error, path: core.path)
            }
        }
        let view = try checkedView()
        let incarnation = self.incarnation
        let keeps = !core.isFrozen
        let stamp = core.stamp
        let found = try engine(core.path) { () throws -> StrataStorage.Value?? in
            try view.withRow(table, key: key) { row -> StrataStorage.Value? in
                guard row.incarnation == incarnation else { return nil }  // another object
                if keeps { prefill(row, stamp: stamp) }
                return try row.value(at: column)
            }
        }
        guard let found = found ?? nil else { throw missingObject() }  // Spec W12
        return found
    }

    /// The row kept for the realm's current view, after the checks every read makes; nil when
    /// none is kept (`value(column:)` reads the row, and keeps it for the next reads).
    @inline(__always)
    private func keptRow() throws(Realm.Error) -> InlineRow? {
        let token = rowToken
        guard token != 0 else { return nil }
        // The checks of `checkedView`, in its order; a kept row means the realm is reading
        // (Spec V10 began its read), so no view is needed when the token matches.
        try core.checkAccess()
        // A row is kept only after the checks below passed, at the token of that moment; what
        // would fail them since (an invalidate: the epoch; a rollback: the mutation count)
        // changed the token.
        if token == core.stampToken { return row.row }
        guard epoch == core.epoch, !isRolledBack else { throw Realm.Error.objectInvalidated }  // Spec V13, W5
        return nil
    }

    /// The integer the wrapper with `ordinal` holds in the kept row, decoding nothing else;
    /// nil when no row is kept for the current view, when the common access check does not
    /// pass at once, or when the value is not simply an integer there. The caller then reads
    /// `_storedValue`, which makes every check in order and reports what is wrong: this path
    /// builds no error.
    @usableFromInline
    func _keptInt(ordinal: Int, base: Int) -> Int64? {
        guard let row = keptRowInline() else { return nil }
        return row.intIfWellFormed(at: column(ofOrdinal: ordinal, base: base))
    }

    /// `_keptInt` for an inline string.
    @usableFromInline
    func _keptString(ordinal: Int, base: Int) -> String? {
        guard let row = keptRowInline() else { return nil }
        return row.stringIfWellFormed(at: column(ofOrdinal: ordinal, base: base))
    }

    /// The row kept for the current view when the common access check passes (`keptRow`'s
    /// case that needs no error); the epoch and a rollback are implied by the token.
    @inline(__always)
    private func keptRowInline() -> InlineRow? {
        let token = rowToken
        guard token != 0, core.passesAccessCheckInline, token == core.stampToken else { return nil }
        return row.row
    }

    /// `value(column:)` of the wrapper with `ordinal`, for `Persisted`'s inlined getter;
    /// traps with Realm's message when the read is refused.
    @usableFromInline
    func _storedValue(ordinal: Int, base: Int) -> StrataStorage.Value {
        do { return try value(column: column(ofOrdinal: ordinal, base: base)) } catch { _trap(error) }
    }

    /// Gives a live accessor the row its maker has just read at the realm's current view (a
    /// scan reads rows in key order: `ResultsIterator`; a lookup reads the row it finds), so
    /// its first property read does not search the tree again. A row with a value in overflow
    /// pages is not kept (those rows are searched again by each read: rare, and large anyway).
    func prefill(_ row: RowView, stamp: ViewStamp) {
        if let pinned = row.pinned {
            prefill(pinned: pinned.inline, stamp: stamp)
            return
        }
        guard (try? row.hasOverflowValues()) == false else {
            rowToken = 0
            return
        }
        prefill(bytes: row.inlineRowBytes, stamp: stamp)
    }

    /// `prefill` with a row's inline bytes, copied out of a row view earlier at `stamp`.
    func prefill(bytes: UnsafeRawBufferPointer, stamp: ViewStamp) {
        rowToken = self.row.assign(bytes) && stamp == core.stamp ? core.stampToken : 0
    }

    /// `prefill` with a row read at `stamp` by the realm's read transaction, kept in place: it
    /// is read only while the realm's stamp is `stamp`, so while that read is open.
    func prefill(pinned row: InlineRow, stamp: ViewStamp) {
        // Checked, not assumed: a row of a read that has ended must never be kept (its pages
        // may be reused).
        guard stamp == core.stamp && core.write == nil else { return }
        self.row.keep(pinned: row)
        rowToken = core.stampToken
    }

    /// Why the object is not at the realm's view: deleted (Spec W12), or, for an accessor a
    /// link made at this very view, a damaged file (Spec W13, D17).
    private func missingObject() -> Realm.Error {
        guard let linkStamp, linkStamp == core.stamp else { return Realm.Error.objectInvalidated }
        return Realm.Error.linkToMissingObject(path: core.path, className: info.className, key: key)
    }

    /// The object's stored values at `view`; nil when its key holds no object or another one
    /// (same key, other incarnation: Spec W12).
    private func currentRow(_ view: VersionView) throws(Realm.Error) -> [StrataStorage.Value]? {
        let incarnation = self.incarnation
        let found = try engine(core.path) { () throws -> [StrataStorage.Value]?? in
            try view.withRow(table, key: key) { row -> [StrataStorage.Value]? in
                row.incarnation == incarnation ? try row.values() : nil
            }
        }
        return found ?? nil
    }

    /// The kept row of a live accessor, valid while the realm's `stampToken` is `rowToken`
    /// (see `value(column:)`); 0 when none is kept.
    @exclusivity(unchecked) private var rowToken: UInt64 = 0
    @exclusivity(unchecked) private var row = RowBuffer()

    /// Every stored value of the object.
    func values() throws(Realm.Error) -> [StrataStorage.Value] {
        let view = try checkedView()
        guard let row = try currentRow(view) else { throw missingObject() }
        return row
    }

    /// The checks of a write, made before a new value is encoded (encoding a link to an
    /// unmanaged object adds it, which must not happen for a write that is refused).
    @discardableResult
    func checkWritable() throws(Realm.Error) -> WriteTransaction {
        try core.checkThread()  // Spec F12 before F6: a write to a frozen object reads nothing
        if core.isFrozen {
            // Spec F12, F6: Realm's RLMVerifyInWriteTransaction asks whether the object is still
            // attached before whether it is frozen; an invalidated frozen realm's are not.
            if core.isFrozenInvalidated { throw Realm.Error.objectInvalidated }
            throw Realm.Error.frozenModify
        }
        // Spec W9, V13: an invalid accessor is reported as such before a missing write, as
        // Realm's RLMVerifyInWriteTransaction does (it verifies the object is attached first).
        guard epoch == core.epoch, !isRolledBack else { throw Realm.Error.objectInvalidated }
        guard let write = core.write else {
            if try isInvalidated() { throw Realm.Error.objectInvalidated }  // deleted
            throw Realm.Error.objectSetOutsideWrite
        }
        return write
    }

    /// `checkWritable` before setting `value`: an object value (a link) is checked only after
    /// the owner, a deleted owner included, as Realm's RLMVerifyInWriteTransaction verifies the
    /// object is attached before the setter looks at the value (Spec W12, V20).
    func checkSettable(_ value: Any?) throws(Realm.Error) {
        let write = try checkWritable()
        guard let value, value is Object else { return }
        guard try currentRow(.write(write)) != nil else { throw Realm.Error.objectInvalidated }
    }

    /// Every value of the row kept at the current stamp; nil when none is kept or a value
    /// lies in overflow pages.
    private func keptValues() throws(Realm.Error) -> [StrataStorage.Value]? {
        guard rowToken != 0, rowToken == core.stampToken, let kept = row.row else { return nil }
        do { return try kept.values() } catch { throw Realm.Error.from(error, path: core.path) }
    }

    /// Sets `column` (Spec W9: only inside a write; F12: never on a frozen object).
    func setValue(_ value: StrataStorage.Value, column: Int) throws(Realm.Error) {
        let write = try checkWritable()
        if column == info.schema.primaryKeyIndex {
            let current = try self.value(column: column)
            guard current == value else { throw Realm.Error.primaryKeyChange }
            return
        }
        // The row kept at the current stamp is the stored row (it was read or written at it),
        // unless a value lies in overflow pages; otherwise read it, which also finds a deleted
        // object (Spec W12).
        var row: [StrataStorage.Value]
        if let kept = try keptValues() {
            row = kept
        } else {
            guard let current = try currentRow(.write(write)) else { throw Realm.Error.objectInvalidated }
            row = current
        }
        while row.count < info.schema.properties.count { row.append(.null) }
        row[column] = value
        try engine(core.path) { try write.update(table.id, key: key, values: row) }
        core.writeChanges.set(table.id, key, column: column)  // Spec N22: also to the same value
        core.mutationCount &+= 1
        // The stored row changed (and with it the stamp): the next read searches it again.
        rowToken = 0
    }

    /// Column of the wrapper with `ordinal` in an object whose first wrapper has `base`.
    @inline(__always)
    func column(ofOrdinal ordinal: Int, base: Int) -> Int { info.column(ofOrdinal: ordinal, base: base) }
}

/// Collects the properties a key path reads: the key path is applied to an unmanaged object
/// holding a recorder, whose `@Persisted` getters report here. A to-one link's getter answers
/// with a fresh object of the target class holding the same recorder, so that `\.dog?.name`
/// records both steps (as RealmSwift's key path names do).
final class KeyPathRecorder {
    /// Each property read, in order: the reading object's class, and the wrapper's ordinal and
    /// the object's first ordinal (`Object._ordinalBase`).
    var steps: [(type: Object.Type, ordinal: Int, base: Int)] = []
    /// The LinkingObjects property read, when the key path ends at one (Spec V26): its origin
    /// class and property. A LinkingObjects property has no column, so it is no step.
    var linkingObjects: (origin: Object.Type, property: String)?

    /// The recorder of `keyPath` applied to a fresh unmanaged `Root`.
    static func recording<Root: Object>(_ keyPath: PartialKeyPath<Root>) -> KeyPathRecorder {
        let recorder = KeyPathRecorder()
        let sample = Root()
        sample._recorder = recorder
        _ = sample[keyPath: keyPath]
        return recorder
    }

    /// The columns of the steps, each in its own class; nil when a step names no column.
    func columns() -> [(info: ClassInfo, column: Int)]? {
        var columns: [(info: ClassInfo, column: Int)] = []
        for step in steps {
            let info = ClassInfo.of(step.type)
            guard step.ordinal - step.base >= 0, step.ordinal - step.base < info.schema.properties.count else {
                return nil
            }
            columns.append((info, info.column(ofOrdinal: step.ordinal, base: step.base)))
        }
        return columns
    }

    /// The dotted property names of the steps: `"dog.name"`.
    func keyPathName() -> String? {
        guard let columns = columns(), !columns.isEmpty else { return nil }
        return columns.map { $0.info.schema.properties[$0.column].name }.joined(separator: ".")
    }
}
