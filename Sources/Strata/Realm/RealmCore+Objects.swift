import CStrataSupport
import StrataStorage

extension Realm {
    /// What `add` and `create` do when an object with the same primary key exists.
    public enum UpdatePolicy: Sendable {
        /// Fail: an existing primary key is an error (the default).
        case error
        /// Update the existing object with the properties that differ.
        case modified
        /// Update the existing object with every property.
        case all
    }
}

// Objects: classes, accessors, add, create and delete (Spec W9 to W14).
extension RealmCore {
    // MARK: classes

    /// The class's info, its stored schema checked against this file on first use.
    /// - Throws: `.schemaMismatch` when the file stores the class differently.
    func classInfo(_ type: Object.Type) throws(Realm.Error) -> ClassInfo {
        if let last = lastClassInfo, ObjectIdentifier(last.type) == ObjectIdentifier(type) { return last }
        let id = ObjectIdentifier(type)
        if let known = file.state.withLock({ $0.checkedClasses[id] }) {
            if !isFrozen { lastClassInfo = known }
            return known
        }
        guard type != Object.self else { throw Realm.Error.typeNotManaged(Object.className()) }
        let info = ClassInfo.of(type)
        let view = try self.view()
        if let table = view.table(named: info.className),
            let stored = ObjectSchema.decode(table.schema, className: info.className)
        {
            let differences = info.schema.differences(from: stored)
            guard differences.isEmpty else {
                throw Realm.Error(
                    .schemaMismatch,
                    "Migration is required due to the following errors:\n"
                        + differences.joined(separator: "\n"))
            }
        }
        file.state.withLock { $0.checkedClasses[id] = info }
        for target in info.linkTargets where target != type { _ = try classInfo(target) }
        return info
    }

    /// A class this realm has used, or that its configuration lists, by stored name.
    func knownClass(named name: String) -> ClassInfo? {
        if let found = file.state.withLock({ $0.checkedClasses.values.first { $0.className == name } }) {
            return found
        }
        guard let type = configuration.objectTypes?.first(where: { ObjectSchema.className(of: $0) == name }) else {
            return nil
        }
        return try? classInfo(type)
    }

    // MARK: accessors

    /// A managed accessor object of `type` for the object `identity`.
    func makeObject<T: Object>(
        _ type: T.Type, info: ClassInfo, table: TableInfo,
        identity: ObjectIdentity
    ) throws(Realm.Error) -> T {
        try makeObject(
            type, info: info, table: TableHandle(table), identity: identity, scope: scope(for: table, identity))
    }

    /// `makeObject` with the table shared by the objects of one evaluation (`TableHandle`).
    func makeObject<T: Object>(
        _ type: T.Type, info: ClassInfo, table: TableHandle, identity: ObjectIdentity
    ) throws(Realm.Error) -> T {
        try makeObject(type, info: info, table: table, identity: identity, scope: scope(for: table.info, identity))
    }

    /// `makeObject` with the accessor's scope already known (an object just inserted).
    func makeObject<T: Object>(
        _ type: T.Type, info: ClassInfo, table: TableHandle, identity: ObjectIdentity,
        scope: WriteScope?
    ) throws(Realm.Error) -> T {
        makeObject(
            type, info: info,
            accessor: _ObjectAccessor(core: self, info: info, table: table, identity: identity, scope: scope))
    }

    /// A managed object of `type` with `accessor`, made by `makeAccessor` (which runs no user
    /// code: it may be made while a row is borrowed from the engine, the object after).
    func makeObject<T: Object>(_ type: T.Type, info: ClassInfo, accessor: _ObjectAccessor) -> T {
        strata_persisted_expect(UInt(bitPattern: ObjectIdentifier(type)), Int64(info.schema.properties.count))
        let object = type.init()
        object._manage(with: accessor)
        return object
    }

    /// The accessor of the object `identity`, for `makeObject(_:info:accessor:)`.
    func makeAccessor(info: ClassInfo, table: TableHandle, identity: ObjectIdentity) -> _ObjectAccessor {
        _ObjectAccessor(
            core: self, info: info, table: table, identity: identity, scope: scope(for: table.info, identity))
    }

    /// The scope an accessor of `identity` made now must hold (`WriteScope`): the open write's
    /// when that write created the object, else none. Outside a write, or for a table the
    /// write has not touched: none, with no lookup; otherwise the object was created by the
    /// write exactly when the version the write began at does not hold it.
    @inline(__always)
    func scope(for table: TableInfo, _ identity: ObjectIdentity) -> WriteScope? {
        guard let writeScope, let write, write.hasChanges(in: table) else { return nil }
        // Spec V11: inside a write, `read` pins the write's base version.
        guard let read, let base = read.table(id: table.id), base.name == table.name else { return writeScope }
        // A failed lookup attaches the scope: it only matters if the write is rolled back.
        let existed = (try? read.incarnation(base, key: identity.key)) == identity.incarnation
        return existed ? nil : writeScope
    }

    /// The identity of the object a link names at `view`; nil when there is none. A link names
    /// whatever object holds its key now: deleting an object removes the links to it (Spec
    /// W13), so a link never outlives its target. Only keys of integer primary keys are
    /// reused, so only their incarnation needs a lookup.
    func linkedIdentity(_ table: TableInfo, key: ObjectKey, view: VersionView) throws(Realm.Error) -> ObjectIdentity? {
        guard case .int = table.primaryKey else { return ObjectIdentity(key: key, incarnation: .keyIsIdentity) }
        guard let incarnation = try engine(path, { try view.incarnation(table, key: key) }) else { return nil }
        return ObjectIdentity(key: key, incarnation: incarnation)
    }

    /// The object a link names, as its class's accessor; nil if the class is unknown here.
    /// - Throws: `.invalidDatabase` when the link names no object (Spec W13, D17).
    func object(at link: Link) throws(Realm.Error) -> Object? {
        let view = try self.view()
        guard let table = view.tables().first(where: { $0.id == link.table }),
            let info = knownClass(named: table.name)
        else { return nil }
        guard let incarnation = try engine(path, { try view.incarnation(table, key: link.key) }) else {
            // Spec W13 removes links to deleted objects: a link to none is damage (Spec D17).
            throw Realm.Error.linkToMissingObject(path: path, className: info.className, key: link.key)
        }
        return try makeObject(
            info.type, info: info, table: table,
            identity: ObjectIdentity(key: link.key, incarnation: incarnation))
    }

    /// The table of `info`'s class at `view`, nil when the version has none. A live realm's
    /// reads keep the last answer for their version (a version's tables never change).
    func table(for info: ClassInfo, in view: VersionView) -> TableInfo? {
        guard !isFrozen, case .read = view else { return view.table(named: info.className) }
        return tableHandle(for: info, in: view)?.info
    }

    /// `table(for:in:)` as a shared handle: objects made from it hold the handle rather than
    /// each a copy of the descriptor (a frozen realm or a write, which cache nothing here,
    /// make a new one).
    func tableHandle(for info: ClassInfo, in view: VersionView) -> TableHandle? {
        guard !isFrozen, case .read(let read) = view else {
            return view.table(named: info.className).map(TableHandle.init)
        }
        if let last = lastReadTable, last.version == read.version, last.info == ObjectIdentifier(info) {
            return last.table
        }
        // Without its schema: each object made from it keeps a copy.
        let table = read.table(named: info.className).map { TableHandle($0.withoutSchema) }
        lastReadTable = (read.version, ObjectIdentifier(info), table)
        return table
    }

    /// The table of `info` in the write, created if the file has none yet.
    func writableTable(_ info: ClassInfo, _ write: WriteTransaction) throws(Realm.Error) -> TableInfo {
        try writableTableHandle(info, write).info
    }

    /// `writableTable` as the shared handle the objects an `add` makes hold.
    func writableTableHandle(_ info: ClassInfo, _ write: WriteTransaction) throws(Realm.Error) -> TableHandle {
        if let cached = writableTableCache, cached.write == ObjectIdentifier(write),
            cached.generation == write.tableSetGeneration, cached.info == ObjectIdentifier(info)
        {
            return cached.table
        }
        let table: TableInfo
        if let found = write.table(named: info.className) {
            table = found
        } else {
            table = try engine(path) {
                try write.createTable(
                    info.className, primaryKey: info.schema.enginePrimaryKey, schema: info.schema.encoded(),
                    indexedColumns: configuration.engineIndexedColumns(info.schema))
            }
        }
        let lean = TableHandle(table.withoutSchema)
        writableTableCache = (ObjectIdentifier(write), write.tableSetGeneration, ObjectIdentifier(info), lean)
        return lean
    }

    /// The write transaction, for an operation that needs one (Spec W9, W18).
    func requireWrite() throws(Realm.Error) -> WriteTransaction {
        try checkThread()  // a frozen realm, invalidated or not, has no write (Spec W9)
        guard let write else { throw Realm.Error.realmChangeOutsideWrite }
        return write
    }

    // MARK: links

    /// The link to `object` for a property of this realm: adds an unmanaged object (with the
    /// add in progress's policy), refuses an object of another realm or a deleted one.
    func link(to object: Object) throws(Realm.Error) -> Link {
        if let accessor = object._accessor {
            guard accessor.core === self else { throw Realm.Error.addToOtherRealm }
            guard try !accessor.isInvalidated() else { throw Realm.Error.addInvalidated }
            return Link(table: accessor.table.id, key: accessor.key)
        }
        // An update policy applies to linked objects with a primary key; others are inserted.
        let info = try classInfo(type(of: object))
        let policy = info.schema.primaryKeyIndex == nil ? .error : addPolicy ?? .error
        let (table, identity) = try addUnmanaged(object, policy: policy)
        return Link(table: table, key: identity.key)
    }

    /// `create`'s link: an object of this realm is linked; any other object, dictionary or
    /// array is copied in (Spec W14: deep copies across realms).
    func linkForCreate(_ any: Any, info: ClassInfo, policy: Realm.UpdatePolicy) throws(Realm.Error) -> Link {
        if let object = any as? Object, let accessor = object._accessor, accessor.core === self {
            guard try !accessor.isInvalidated() else { throw Realm.Error.objectInvalidated }
            return Link(table: accessor.table.id, key: accessor.key)
        }
        let nestedPolicy = info.schema.primaryKeyIndex == nil ? .error : policy  // as in `link(to:)`
        let (table, identity, _) = try createObject(info, value: any, policy: nestedPolicy)
        return Link(table: table.id, key: identity.key)
    }

    // MARK: add (Spec W10)

    /// Spec W9, W10, W12, W14, in the order of Realm's RLMAddObjectToRealm: the write first,
    /// then an invalid object, then one managed by another realm instance.
    func add(_ object: Object, policy: Realm.UpdatePolicy) throws(Realm.Error) {
        try checkThread()  // a write: W9, W18 refuse a frozen realm, invalidated (F6) or not
        _ = try requireWrite()
        if let accessor = object._accessor {
            if accessor.core === self {
                guard try !accessor.isInvalidated() else { throw Realm.Error.addInvalidated }
                return  // Spec W10: adding a managed object again is a no-op
            }
            // Another instance's object: its validity is read only where that is allowed (a
            // frozen one anywhere, a live one in its own context).
            let invalid: Bool
            if accessor.isFrozen {
                invalid = accessor.core.isFrozenInvalidated
            } else if accessor.core.confinement.isCurrent {
                invalid = (try? accessor.isInvalidated()) ?? true
            } else {
                invalid = false
            }
            throw invalid ? Realm.Error.addInvalidated : Realm.Error.addToOtherRealm
        }
        let outer = addPolicy
        addPolicy = policy
        defer { addPolicy = outer }
        _ = try addUnmanaged(object, policy: policy)
    }

    /// Stores an unmanaged object and makes it managed; returns its table and identity. Links
    /// are stored in a second step, once the object has its key, so that cycles of unmanaged
    /// objects terminate.
    func addUnmanaged(_ object: Object, policy: Realm.UpdatePolicy) throws(Realm.Error) -> (TableID, ObjectIdentity) {
        let write = try requireWrite()
        let info = try classInfo(type(of: object))
        let handle = try writableTableHandle(info, write)
        let encoders = info.unmanagedEncoders
        // The row array of the previous add, reused: values are assigned in place while it
        // has this class's column count (an add inside this one, for a linked object, finds
        // none and makes its own). Emptied of values, not of columns, when the add ends.
        var row: [StrataStorage.Value] = []
        swap(&row, &addRowScratch)
        defer {
            for column in row.indices { row[column] = .null }
            swap(&row, &addRowScratch)
        }
        try info.withStorage(of: object) { storage throws(Realm.Error) in
            if row.count == encoders.count {
                for column in encoders.indices { row[column] = try encoders[column].encode(storage) }
            } else {
                row.removeAll(keepingCapacity: true)
                for encoder in encoders { row.append(try encoder.encode(storage)) }
            }
        }
        let (identity, inserted, replaced) = try store(row, info: info, table: handle, policy: policy, write: write)
        let accessor = _ObjectAccessor(
            core: self, info: info, table: handle, identity: identity,
            scope: inserted ? writeScope : scope(for: handle.info, identity))
        object._manage(with: accessor)
        if info.hasLinksOrLists {
            try storeLinksAndLists(of: object, row: &row, info: info, accessor: accessor, write: write)
        }
        if let replaced {
            recordReplacement(handle.info, identity.key, old: replaced, new: row, info: info, policy: policy)
        }
        mutationCount &+= 1
        return (handle.info.id, identity)
    }

    /// The second step of `addUnmanaged`, for an object just stored under `accessor`'s key:
    /// its links (adding their unmanaged targets) and its Lists.
    private func storeLinksAndLists(
        of object: Object, row: inout [StrataStorage.Value], info: ClassInfo, accessor: _ObjectAccessor,
        write: WriteTransaction
    ) throws(Realm.Error) {
        let columnCount = info.wrappers.count
        let table = accessor.table
        let key = accessor.key
        try info.withStorage(of: object) { storage throws(Realm.Error) in
            if info.hasLinks {
                let realm = Realm(core: self)
                for column in 0..<columnCount where info.columnIsLink[column] {
                    let (offset, wrapper) = info.wrappers[column]
                    row[column] = try wrapper.encodeUnmanaged(at: storage + offset, realm: realm)
                }
                try engine(path) { try write.update(table.id, key: key, values: row) }
                // The targets are stored: the wrappers let go of them (cycles of objects added
                // together must not keep each other alive).
                for column in 0..<columnCount where info.columnIsLink[column] && !info.columnIsList[column] {
                    let (offset, wrapper) = info.wrappers[column]
                    wrapper.dropUnmanagedLink(at: storage + offset)
                }
            }
            // The object's List instances become its managed Lists (Spec T1: a List taken
            // before the add follows the object).
            for column in 0..<columnCount where info.columnIsList[column] {
                let (offset, wrapper) = info.wrappers[column]
                wrapper.adoptCollection(at: storage + offset, parent: accessor, column: column)
            }
        }
    }

    /// Inserts `row`, or with a primary key and an update policy replaces the existing object
    /// (which keeps its identity). Returns the stored object's identity, whether it was
    /// inserted (then this write created it), and the row it replaced.
    private func store(
        _ row: [StrataStorage.Value], info: ClassInfo, table handle: TableHandle, policy: Realm.UpdatePolicy,
        write: WriteTransaction
    )
        throws(Realm.Error) -> (ObjectIdentity, inserted: Bool, replaced: [StrataStorage.Value]?)
    {
        guard let pkColumn = info.schema.primaryKeyIndex else {
            if policy != .error { throw Realm.Error.noPrimaryKey(type: info.className) }
            return (try engine(path) { try write.insertObject(handle.info.id, values: row) }, true, nil)
        }
        if policy == .error {
            // Insert at once: the engine refuses a primary key that exists (leaving nothing
            // behind), so a bulk add searches once per object, not twice. Any other refusal
            // of an object whose key exists is reported as that key existing, as the check
            // before the insert would have.
            do {
                return (try write.insertObject(handle.info.id, values: row), true, nil)
            } catch {
                if case .duplicateKey = error {
                    throw Realm.Error.primaryKeyExists(type: info.className, value: Self.describe(row[pkColumn]))
                }
                if (try? write.objectIdentity(handle.info, primaryKey: row[pkColumn])) ?? nil != nil {
                    throw Realm.Error.primaryKeyExists(type: info.className, value: Self.describe(row[pkColumn]))
                }
                throw Realm.Error.from(error, path: path)
            }
        }
        let existing = try engine(path) { try write.objectIdentity(handle.info, primaryKey: row[pkColumn]) }
        if let existing {
            let replaced = try engine(path) { try write.row(handle.info, key: existing.key) } ?? []
            try engine(path) { try write.update(handle.info.id, key: existing.key, values: row) }
            return (existing, false, replaced)
        }
        return (try engine(path) { try write.insertObject(handle.info.id, values: row) }, true, nil)
    }

    /// Records the columns an upsert set (Spec N22): with `.modified` only those whose value
    /// changed, else every column `provided` names (all, for an object added whole).
    private func recordReplacement(
        _ table: TableInfo, _ key: ObjectKey, old: [StrataStorage.Value],
        new: [StrataStorage.Value], info: ClassInfo, policy: Realm.UpdatePolicy,
        provided: [Bool]? = nil
    ) {
        var columns = ColumnSet()
        for column in new.indices where column != info.schema.primaryKeyIndex {
            if let provided, column < provided.count, !provided[column] { continue }
            if policy == .modified, column < old.count, old[column] == new[column] { continue }
            columns.insert(column)
        }
        writeChanges.set(table.id, key, columns: columns)
    }

    static func describe(_ value: StrataStorage.Value) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .null: return "null"
        default: return value.description
        }
    }

    // MARK: create (Spec W14)

    /// Creates an object of `info` from a dictionary, an array (properties in order) or another
    /// object (copied, links deeply).
    func createObject(
        _ info: ClassInfo, value: Any,
        policy: Realm.UpdatePolicy
    ) throws(Realm.Error) -> (TableInfo, ObjectIdentity, inserted: Bool) {
        let write = try requireWrite()
        let handle = try writableTableHandle(info, write)
        let table = handle.info
        let properties = info.schema.properties
        var provided = [Any??](repeating: nil, count: properties.count)  // nil: not provided
        if let dictionary = value as? [String: Any?] {
            for (index, property) in properties.enumerated() where dictionary.keys.contains(property.name) {
                provided[index] = .some(dictionary[property.name] ?? nil)
            }
        } else if let array = value as? [Any?] {
            guard array.count <= properties.count else {
                throw Realm.Error.misuse(
                    "Invalid array input: more values (\(array.count)) than properties "
                        + "(\(properties.count)).")
            }
            for (index, element) in array.enumerated() { provided[index] = .some(element) }
        } else {
            if let object = value as? Object, let accessor = object._accessor, try accessor.isInvalidated() {
                throw Realm.Error.objectInvalidated
            }
            // Any other value is read as an object with the class's properties (Realm reads it
            // by key-value coding): a missing one is an error.
            for (index, property) in properties.enumerated() {
                provided[index] = .some(try Object.keyValue(of: value, key: property.name, className: info.className))
            }
        }
        // Existing object with this primary key: update only what was provided.
        var base: [StrataStorage.Value]?
        if let pk = info.schema.primaryKeyIndex, let pkValue = provided[pk] {
            let encoded = try AnyValue.encode(
                pkValue, property: properties[pk], className: info.className, core: self,
                policy: policy)
            if let key = try engine(path, { try write.objectKey(table, primaryKey: encoded) }) {
                guard policy != .error else {
                    throw Realm.Error.primaryKeyExists(type: info.className, value: Self.describe(encoded))
                }
                base = try engine(path) { try write.row(table, key: key) }
            }
        }
        // A fresh instance only when a missing property's initial value is the class's own
        // expression: making one (and reflecting over it) is most of a small create's cost.
        let needsInstance = properties.indices.contains { index in
            provided[index] == nil && index >= (base?.count ?? 0) && info.typeDefaults[index] == nil
        }
        let defaults = needsInstance ? defaultValues(info) : []
        var row = [StrataStorage.Value]()
        row.reserveCapacity(properties.count)
        for (index, property) in properties.enumerated() {
            if let given = provided[index] {
                row.append(
                    try AnyValue.encode(
                        given, property: property, className: info.className, core: self,
                        policy: policy))
            } else if let base, index < base.count {
                row.append(base[index])
            } else if !needsInstance, let typeDefault = info.typeDefaults[index] {
                row.append(typeDefault)
            } else {
                row.append(
                    try AnyValue.encode(
                        defaults[index], property: property, className: info.className,
                        core: self, policy: policy))
            }
        }
        let (identity, inserted, replaced) = try store(
            row, info: info, table: handle,
            policy: policy == .error && base != nil ? .all : policy,
            write: write)
        if let replaced {
            recordReplacement(
                table, identity.key, old: replaced, new: row, info: info, policy: policy,
                provided: provided.map { $0 != nil })
        }
        mutationCount &+= 1
        return (table, identity, inserted)
    }

    /// The values a new object of the class has when nothing is given.
    private func defaultValues(_ info: ClassInfo) -> [Any?] {
        strata_persisted_expect(UInt(bitPattern: ObjectIdentifier(info.type)), Int64(info.schema.properties.count))
        return info.type.init().unmanagedValues(info)
    }

    // MARK: delete (Spec W11 to W13)

    /// The key of a managed object of this realm, after W11's checks.
    func keyForDelete(_ object: Object) throws(Realm.Error) -> (TableInfo, ObjectKey) {
        try checkThread()
        guard let accessor = object._accessor else { throw Realm.Error.deleteUnmanaged }
        guard accessor.core === self else { throw Realm.Error.deleteFromOtherRealm }
        _ = try requireWrite()
        guard try !accessor.isInvalidated() else { throw Realm.Error.objectInvalidated }
        return (accessor.table, accessor.key)
    }

    /// Deletes objects, then removes links to them: list entries go, links become nil
    /// (Spec W13). There is no backlink index: every table that can link to a deleted
    /// object's class is scanned once per call.
    func deleteObjects(_ targets: [(TableInfo, ObjectKey)]) throws(Realm.Error) {
        let write = try requireWrite()
        guard !targets.isEmpty else { return }
        var deleted: Set<Link> = []
        for (table, key) in targets where !deleted.contains(Link(table: table.id, key: key)) {
            if try engine(path, { try write.delete(table.id, key: key) }) {
                deleted.insert(Link(table: table.id, key: key))
            }
        }
        let deletedTables = Set(targets.map { $0.0.name })
        for table in write.tables() {
            guard let schema = ObjectSchema.decode(table.schema, className: table.name) else { continue }
            let keepsInSets = file.bugs.contains(.setKeepsDeletedObject)
            let keepsInMaps = file.bugs.contains(.mapKeepsDeletedObject)
            let linkColumns = schema.properties.indices.filter {
                schema.properties[$0].isLink && deletedTables.contains(schema.properties[$0].objectClassName ?? "")
                    && !(keepsInSets && schema.properties[$0].isSet) && !(keepsInMaps && schema.properties[$0].isMap)
            }
            guard !linkColumns.isEmpty else { continue }
            let mapColumns = Dictionary(
                uniqueKeysWithValues: linkColumns.filter { schema.properties[$0].isMap }.map {
                    ($0, schema.properties[$0].isOptional)
                })
            try removeLinks(to: deleted, in: table, columns: linkColumns, mapColumns: mapColumns, write: write)
        }
        mutationCount &+= 1
    }

    private func removeLinks(
        to deleted: Set<Link>, in table: TableInfo, columns: [Int], mapColumns: [Int: Bool],
        write: WriteTransaction
    ) throws(Realm.Error) {
        var updates: [(ObjectKey, [StrataStorage.Value])] = []
        try engine(path) {
            try write.forEachRow(table) { key, row in
                var values = try row.values()
                var changed = ColumnSet()
                for column in columns where column < values.count {
                    switch values[column] {
                    case .link(let link) where deleted.contains(link):
                        values[column] = .null
                        changed.insert(column)
                    case .list(let elements):
                        if let kept = DeletedLinks.removing(
                            from: elements, isMap: mapColumns[column] != nil, nullable: mapColumns[column] ?? true,
                            where: deleted.contains)
                        {
                            values[column] = .list(kept)
                            changed.insert(column)
                        }
                    default:
                        break
                    }
                }
                if !changed.isEmpty {
                    updates.append((key, values))
                    writeChanges.set(table.id, key, columns: changed)
                }
                return true
            }
        }
        for (key, values) in updates {
            try engine(path) { try write.update(table.id, key: key, values: values) }
        }
    }

    /// Spec W12: every object of every class goes.
    func deleteAll() throws(Realm.Error) {
        let write = try requireWrite()
        for table in write.tables() {
            _ = try engine(path) { try write.deleteAll(table.id) }
        }
        mutationCount &+= 1
    }

    // MARK: freeze (Spec F1)

    /// The frozen realm of the current version; inside a write, of the version the write began
    /// at (Spec F11: uncommitted changes are not frozen).
    func freeze() throws(Realm.Error) -> RealmCore {
        if isFrozen { return self }  // Spec F5
        try checkAccess()
        _ = try view()
        guard let read else { throw Realm.Error(.fail, "a realm that is reading has a read transaction") }
        return try frozenCore(of: read)
    }
}
