import StrataStorage

/// Iterates over a snapshot of Results' keys (Spec V15).
///
/// Two things make a scan cost little more than the engine's:
/// - While the realm is at the version and state the keys were evaluated at (`ViewStamp`), the
///   iterator decodes the rows of the next elements in one walk over the table, in key order,
///   and hands each live object its row: no tree search per object (`RowReadAhead`). Once the
///   realm moves or changes, objects read their rows themselves, as any object does.
/// - The object of the previous element is reused for the next one when nothing else holds
///   it (the loop body kept no reference, strong, weak or unowned, to it or to anything made
///   from it, such as a List) and its class stores nothing but `@Persisted` properties
///   (`ClassInfo.isRecyclable`): no state of the user's class can be carried along, and no
///   one can tell it from a new object, except that its `deinit` runs once, at the end.
public struct ResultsIterator<Element: Object>: IteratorProtocol {
    /// nil when there is no element (the class has no table at the evaluated version).
    let cursor: ResultsCursor?
    /// `cursor`, unretained, for `_next()`: the iterator holds it for as long as it runs.
    private let unretainedCursor: Unmanaged<ResultsCursor>?
    /// The realm and its epoch when the keys were evaluated, for the checks of a request over
    /// no element (Spec V16: after `invalidate()` it is rejected too).
    private let core: RealmCore
    private let epoch: Int

    init(storage: Results<Element>.Storage, evaluation: ResultsEvaluation, stamp: ViewStamp) {
        core = storage.core
        epoch = storage.epoch
        guard let table = evaluation.tableHandle, !evaluation.keys.isEmpty else {
            cursor = nil
            unretainedCursor = nil
            return
        }
        let cursor = ResultsCursor(
            core: storage.core, info: storage.info, table: table, evaluation: evaluation, stamp: stamp,
            epoch: storage.epoch, keyOrdered: storage.ordering.isEmpty && storage.source.isTable)
        self.cursor = cursor
        unretainedCursor = Unmanaged.passUnretained(cursor)
    }

    // No closure (`trapping`) here: in this generic function it would cost a metadata lookup
    // per element.
    public mutating func next() -> Element? {
        guard let cursor = unretainedCursor else {
            do { try ResultsCursor.check(core, epoch: epoch) } catch { _trap(error) }
            return nil
        }
        // Traps inside the cursor: no error travels back through the closure.
        guard let object = cursor._withUnsafeGuaranteedRef({ $0.nextOrTrap(Element.self) }) else { return nil }
        return unsafeDowncast(object, to: Element.self)
    }

    package mutating func _next() throws(Realm.Error) -> Element? {
        guard let cursor = unretainedCursor else {
            try ResultsCursor.check(core, epoch: epoch)
            return nil
        }
        let next = cursor._withUnsafeGuaranteedRef { cursor -> Result<Object?, Realm.Error> in
            do throws(Realm.Error) { return .success(try cursor.next(Element.self)) } catch { return .failure(error) }
        }
        guard let object = try next.get() else { return nil }
        // The cursor makes objects of `Element.self` only (a reused one was made so too).
        return unsafeDowncast(object, to: Element.self)
    }
}

extension Results.Source {
    var isTable: Bool {
        if case .table = self { return true }
        return false
    }
}

/// The state of one iteration over Results (`ResultsIterator`): the evaluated keys, the
/// position, the rows read ahead. A class, not generic over the element type, so that its
/// work per element reads its fields in place.
final class ResultsCursor {
    let core: RealmCore
    let info: ClassInfo
    /// The evaluation's table, shared by the objects made (`TableHandle`).
    let tableHandle: TableHandle
    let evaluation: ResultsEvaluation
    /// The realm's stamp when the keys were evaluated.
    let stamp: ViewStamp
    let epoch: Int
    /// Whether the Results list a table's objects in key order (unsorted, from the table) of a
    /// live realm: then rows may be read ahead in one walk.
    let keyOrdered: Bool
    /// Whether objects may be reused (`ResultsIterator`): live, of a recyclable class.
    let reusesObjects: Bool
    /// The seeded bug `iteratorReusesHeldObject`: the previous object is reused even when the
    /// caller still holds it strongly.
    let reusesHeldObjects: Bool
    // Read or assigned whole, never passed inout: no dynamic exclusivity check is needed.
    @exclusivity(unchecked) private var position = 0
    /// The number of elements (`evaluation.keys.count`), asked once per element.
    private let keyCount: Int
    /// The realm's `stampToken` when the iteration began, if the rows could be handed over
    /// in place then (key order, at the evaluation's stamp, outside a write); 0 otherwise.
    private let readToken: UInt64
    private let ahead = RowReadAhead()
    /// The write the keys were evaluated in, when it had changed the table: elements it
    /// created (`createdInWrite`) keep its scope whenever they are made, also after it ended
    /// (Spec W5: if it was rolled back, they never existed, even if a later commit gives
    /// another object the same identity, as reused integer keys and counts can).
    private let evaluatedInWrite: WriteScope?
    /// Per element: whether `evaluatedInWrite` created it (empty without that write).
    private let createdInWrite: [Bool]

    init(
        core: RealmCore, info: ClassInfo, table: TableHandle, evaluation: ResultsEvaluation, stamp: ViewStamp,
        epoch: Int, keyOrdered: Bool
    ) {
        self.core = core
        self.info = info
        tableHandle = table
        self.evaluation = evaluation
        keyCount = evaluation.keys.count
        self.stamp = stamp
        self.epoch = epoch
        self.keyOrdered = keyOrdered && !core.isFrozen
        reusesObjects = info.isRecyclable && !core.isFrozen
        readToken = self.keyOrdered && core.write == nil && core.stamp == stamp ? core.stampToken : 0
        reusesHeldObjects = core.file.bugs.contains(.iteratorReusesHeldObject)
        if let writeScope = core.writeScope, let write = core.write, write.hasChanges(in: table.info) {
            evaluatedInWrite = writeScope
            createdInWrite = (0..<evaluation.keys.count).map {
                core.scope(for: table.info, evaluation.identity(at: $0)) != nil
            }
        } else {
            evaluatedInWrite = nil
            createdInWrite = []
        }
    }

    /// The scope the accessor of element `index` must hold (`RealmCore.scope(for:_:)`), also
    /// once the write the keys were evaluated in has ended (`evaluatedInWrite`).
    @inline(__always)
    private func scope(of index: Int, _ identity: ObjectIdentity) -> WriteScope? {
        // Outside any write (a scan's common case) no scope applies: decided before the table
        // descriptor is copied for `RealmCore.scope(for:_:)`.
        if evaluatedInWrite == nil && core.writeScope == nil { return nil }
        if let evaluatedInWrite, evaluatedInWrite !== core.writeScope, createdInWrite[index] {
            return evaluatedInWrite
        }
        return core.scope(for: tableHandle.info, identity)
    }

    /// The checks every request makes: the realm's access, and that it was not invalidated
    /// since the keys were evaluated (Spec V16: then the iteration ends with an error).
    @inline(__always)
    static func check(_ core: RealmCore, epoch: Int) throws(Realm.Error) {
        try core.checkAccess()
        guard epoch == core.epoch else { throw Realm.Error.iteratorInvalidated }
    }

    /// The object last returned, offered for reuse (`reusesObjects`).
    @exclusivity(unchecked) private var previous: Object?

    /// The object of the next element, an instance of `type`; nil at the end (after the
    /// checks every request makes, the one that finds the end too).
    func next(_ type: Object.Type) throws(Realm.Error) -> Object? {
        try Self.check(core, epoch: epoch)
        let index = position
        guard index < keyCount else {
            previous = nil
            return nil
        }
        position = index &+ 1
        let identity = evaluation.identity(at: index)
        // The seeded bug `iteratorReusesHeldObject` skips the first test (Spec V15 broken).
        // The cursor holds `previous` throughout: it and its accessor are used unretained.
        if previous != nil, reusesHeldObjects || isKnownUniquelyReferenced(&previous),
            let reused = previous.map({ Unmanaged.passUnretained($0) }),
            let accessor = reused._withUnsafeGuaranteedRef({ reusableAccessor(of: $0) })
        {
            accessor._withUnsafeGuaranteedRef { retarget($0, index, identity) }
            return reused.takeUnretainedValue()
        }
        let object = try core.makeObject(
            type, info: info, table: tableHandle, identity: identity, scope: scope(of: index, identity))
        if let accessor = object._accessor { prefill(accessor, identity) }
        previous = reusesObjects ? object : nil
        return object
    }

    /// `next` for `ResultsIterator.next()`, which traps on every error (Realm's iteration
    /// throws an exception there).
    func nextOrTrap(_ type: Object.Type) -> Object? {
        do { return try next(type) } catch { _trap(error) }
    }

    /// `object`'s accessor, when the object (which the caller alone holds) may be reused: no
    /// weak or unowned reference names it, and nothing but the object holds its accessor (a
    /// List, an observer or a reference made from the object would).
    @inline(__always)
    func reusableAccessor(of object: Object) -> Unmanaged<_ObjectAccessor>? {
        guard reusesObjects else { return nil }
        // The runtime counts the object itself once in each of these counts.
        guard _getUnownedRetainCount(object) == 1, _getWeakRetainCount(object) == 1,
            object._accessor != nil, isKnownUniquelyReferenced(&object._accessor),
            let accessor = object._unretainedAccessor,
            accessor._withUnsafeGuaranteedRef({ $0.core === core })
        else { return nil }
        return accessor
    }

    /// Moves `accessor` to element `index`, as if newly made.
    @inline(__always)
    private func retarget(_ accessor: _ObjectAccessor, _ index: Int, _ identity: ObjectIdentity) {
        accessor.retarget(identity, scope: scope(of: index, identity))
        prefill(accessor, identity)
    }

    /// Gives the accessor of the current element its row while the realm is where the keys
    /// were evaluated: in place from the read's pinned pages (`pinnedRows`), or inside a write
    /// a copy read ahead (`RowReadAhead`).
    @inline(__always)
    private func prefill(_ accessor: _ObjectAccessor, _ identity: ObjectIdentity) {
        // While nothing changed since the iteration began (one comparison), the checks below
        // would pass as they did then.
        if readToken == 0 || core.stampToken != readToken {
            guard keyOrdered, core.stamp == stamp else {
                pinnedRows = nil  // its read may have ended: never used again
                return
            }
            guard core.write == nil else {
                ahead.moveRow(
                    position - 1, of: evaluation, table: tableHandle.info, core: core, into: accessor, stamp: stamp)
                return
            }
        }
        if pinnedRows == nil {
            guard !pinnedRowsFailed, let read = core.read,
                let made = try? read.pinnedRowCursor(tableHandle.info, from: identity.key)
            else {
                pinnedRowsFailed = true
                return
            }
            pinnedRows = (made, Unmanaged.passUnretained(made))
        }
        guard let rows = pinnedRows?.unretained else { return }
        // A row that cannot be read here (damage, Spec D17) is left to its object, whose
        // property read reports what is wrong, as it would without the cursor.
        let read = rows._withUnsafeGuaranteedRef { rows -> Result<InlineRow?, StorageError> in
            do throws(StorageError) { return .success(try rows.row(at: identity.key)) } catch { return .failure(error) }
        }
        guard case .success(let found) = read else {
            pinnedRows = nil
            pinnedRowsFailed = true
            return
        }
        if let row = found, row.incarnation == identity.incarnation {
            accessor.prefill(pinned: row, stamp: stamp)
        }
    }

    /// The rows of a live read's iteration, found as the elements are reached (keys ascend);
    /// used only while the realm's stamp is the evaluation's, so while that read is open, and
    /// dropped once it is not. `pinnedRowsFailed`: the cursor could not be made or read a
    /// damaged page; objects then read their rows themselves. The cursor is called through its
    /// unretained reference, which the strong one keeps valid: no reference counting per row.
    @exclusivity(unchecked) private var pinnedRows: (cursor: PinnedRowCursor, unretained: Unmanaged<PinnedRowCursor>)?
    @exclusivity(unchecked) private var pinnedRowsFailed = false
}

/// The rows of the next elements of an evaluation in key order read inside a write, found in
/// one walk of the table (`ResultsCursor`) and handed to their accessors, which decode only
/// the columns they read. A write's rows lie in pages it may change and free, so they are
/// copied into one flat byte buffer reused from pass to pass, and each accessor that takes
/// one copies its bytes (`RowBuffer`). (A read's rows are handed over in place, one at a
/// time: `PinnedRowCursor`.)
///
/// Manually managed memory rather than arrays: handing a row over costs no reference counting
/// and no uniqueness check. Owned by one cursor, used on its realm's thread only, freed by
/// `deinit`. Its fields are `@exclusivity(unchecked)`: only its own methods touch them, one
/// at a time (the walk's closure works on local copies, stored back once it returns).
final class RowReadAhead {
    /// What the walk found for one element.
    private enum Entry {
        /// Its key did not hold that very object, or its row could not be kept.
        case none
        /// A copy of its row in `bytes`.
        case copied(start: Int, count: Int)
    }

    /// The copied rows, back to back.
    @exclusivity(unchecked) private var bytes = ByteArena()
    /// Per element from `start` (`entryCount` of them).
    private let entries = UnsafeMutablePointer<Entry>.allocate(capacity: RowReadAhead.passCount)
    @exclusivity(unchecked) private var entryCount = 0
    @exclusivity(unchecked) private var start = 0

    /// How many rows one pass reads.
    private static var passCount: Int { 64 }

    deinit {
        entries.deinitialize(count: entryCount)
        entries.deallocate()
        bytes.release()
    }

    /// Gives `accessor` the row of element `index` (keys ascending), reading ahead when it was
    /// not read yet; leaves the accessor as it is when the row could not be read ahead.
    func moveRow(
        _ index: Int, of evaluation: ResultsEvaluation, table: TableInfo, core: RealmCore,
        into accessor: _ObjectAccessor, stamp: ViewStamp
    ) {
        if index < start || index >= start + entryCount {
            guard let view = try? core.view() else { return }
            read(from: index, of: evaluation, table: table, view: view)
        }
        switch entries[index - start] {
        case .none: return
        case .copied(let offset, let count):
            guard let row = bytes.slice(offset, count) else { return }
            accessor.prefill(bytes: row, stamp: stamp)
        }
    }

    /// Reads the rows of elements `first...` (up to `passCount`) in one walk from the first
    /// one's key. Rows between them (objects the query does not match) are stepped over, up to
    /// a few passes' worth before the rest is left to the objects.
    ///
    /// Reading ahead never fails: a row that cannot be read here (damage, Spec D17), or that
    /// holds a value in overflow pages (read only if its property is), is left to its object,
    /// whose property read reports what is wrong, as it would without the read-ahead.
    private func read(from first: Int, of evaluation: ResultsEvaluation, table: TableInfo, view: VersionView) {
        let end = min(evaluation.keys.count, first + Self.passCount)
        var bytes = self.bytes
        let entries = self.entries
        bytes.removeAll()
        entries.deinitialize(count: entryCount)
        entries.initialize(repeating: .none, count: end - first)
        entryCount = 0
        var next = first
        var visited = 0
        try? view.forEachRow(table, from: evaluation.keys[first]) { key, row in
            visited += 1
            while next < end && evaluation.keys[next] < key { next += 1 }  // not in this version
            guard next < end else { return false }
            if evaluation.keys[next] == key, row.incarnation == evaluation.identity(at: next).incarnation {
                if (try? row.hasOverflowValues()) == false {
                    let raw = row.inlineRowBytes
                    entries[next - first] = .copied(start: bytes.count, count: raw.count)
                    bytes.append(raw)
                }
            }
            if evaluation.keys[next] == key { next += 1 }
            return next < end && visited < 4 * Self.passCount
        }
        self.bytes = bytes
        entryCount = end - first
        start = first
    }
}

/// A growable run of bytes in manually managed memory (`RowReadAhead`): a value whose copies
/// share the memory, so exactly one copy may be used and freed (`release`).
struct ByteArena {
    private var base: UnsafeMutableRawPointer?
    private var capacity = 0
    private(set) var count = 0

    mutating func removeAll() { count = 0 }

    /// Appends `bytes`, growing the memory (to twice its size) when they do not fit.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity {
            let size = max(2 * capacity, count + bytes.count, 4096)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            if let base {
                grown.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = grown
            capacity = size
        }
        guard let base else { return }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The `length` bytes at `offset`; nil when they are not all there.
    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard let base, offset >= 0, length >= 0, offset <= count - length else { return nil }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    mutating func release() {
        base?.deallocate()
        base = nil
        capacity = 0
        count = 0
    }
}
