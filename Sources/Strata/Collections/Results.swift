import StrataStorage

/// What Results and Lists share for `Realm.delete` and references.
protocol RealmCollectionBase {
    /// Spec W11: only the owning realm, in a write, may delete a collection's objects.
    func checkDeletable(by core: RealmCore) throws(Realm.Error)
    /// Whether `delete` takes the collection whole (else element by element).
    var isManagedCollection: Bool { get }
    /// The stored objects the collection holds now.
    func targetKeys() throws(Realm.Error) -> [(TableInfo, ObjectKey)]
}

/// Values bound to a realm's context that `ThreadSafeReference` can carry across threads:
/// `Object`, `Results` and `List`.
public protocol ThreadConfined {
    /// The realm the value belongs to; nil when unmanaged.
    var realm: Realm? { get }
    /// Whether the value is invalidated (deleted, or its realm invalidated).
    var isInvalidated: Bool { get }
    /// Whether the value is frozen.
    var isFrozen: Bool { get }
    /// What a reference to the value records (Spec T1).
    func _threadSafeHandle() throws(Realm.Error) -> _ThreadSafeHandle
    /// The value a handle resolves to in `realm` (Spec T5).
    static func _resolve(_ handle: _ThreadSafeHandle, in realm: Realm) throws(Realm.Error) -> Self?
}

/// The live objects of one class matching a query, in a sort order, at the realm's version.
///
/// Lazy and live (Spec V1): evaluated when read, again after the realm moves or changes in a
/// write (Spec W4). Iteration runs over the objects matching when it began (Spec V15).
///
/// Confinement: live Results belong to their realm's context (Spec C6); frozen Results may be
/// read anywhere, concurrently (Spec C10).
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    enum Source {
        case table
        /// The objects of a List, in list order.
        case list(ListBinding)
        /// The objects linking to one object through one property (`LinkingObjects`, Spec
        /// V26), in key order, once per link.
        case backlinks(BacklinkBinding)
    }

    final class Storage: @unchecked Sendable {
        let core: RealmCore
        let info: ClassInfo
        let source: Source
        let predicate: Predicate?
        /// The sorts and distincts, in the order they were asked for (Spec V22).
        let ordering: [OrderingStep]
        let epoch: Int
        /// The evaluation for one view stamp. A lock, since frozen Results are read by many
        /// threads at once (Spec C10); `@unchecked Sendable` names it.
        let cache = Lock<(stamp: ViewStamp, evaluation: Evaluation)?>(nil)

        init(
            core: RealmCore, info: ClassInfo, source: Source, predicate: Predicate?,
            ordering: [OrderingStep], epoch: Int
        ) {
            self.core = core
            self.info = info
            self.source = source
            self.predicate = predicate
            self.ordering = ordering
            self.epoch = epoch
        }
    }

    typealias Evaluation = ResultsEvaluation

    let storage: Storage

    init(
        core: RealmCore, info: ClassInfo, source: Source, predicate: Predicate? = nil,
        ordering: [OrderingStep] = []
    ) {
        storage = Storage(
            core: core, info: info, source: source, predicate: predicate, ordering: ordering, epoch: core.epoch)
    }

    init(storage: Storage) { self.storage = storage }

    // MARK: evaluation

    /// The checks every member makes (Spec C6, V13), then the current keys.
    func evaluate() throws(Realm.Error) -> Evaluation {
        let core = storage.core
        try core.checkAccess()
        guard storage.epoch == core.epoch else { throw Realm.Error.resultsInvalidated }  // Spec V13
        let stamp = core.stamp
        if let cached = storage.cache.withLock({ $0 }), cached.stamp == stamp { return cached.evaluation }
        let view = try core.view()
        // Without its schema: each object made from the evaluation keeps a copy.
        let table = view.table(named: storage.info.className)?.withoutSchema
        var found = MatchList(reusesKeys: table?.reusesKeys ?? false, paths: storage.ordering.flatMap(\.paths))
        if let table {
            switch storage.source {
            case .table:
                // A whole table whose keys are consecutive and never reused: known from its
                // first and last keys, with no object read (`KeyList`).
                if storage.predicate == nil && storage.ordering.isEmpty,
                    let range = try engine(core.path, { try view.consecutiveKeys(table) })
                {
                    found.keys = KeyList(range)
                    break
                }
                fallthrough
            case .list, .backlinks:
                try forEachMatchingRow(in: table, at: view) { key, row in
                    try found.append(key, row, view: view)
                    return true
                }
            }
        }
        var keys = found.keys
        var incarnations = found.incarnations
        if !storage.ordering.isEmpty {
            let order = Self.order(
                keys.count, by: found.sortValues, storage.ordering,
                nullLinksFirst: core.file.bugs.contains(.nullLinksSortFirst),
                distinctKeepsLast: core.file.bugs.contains(.distinctKeepsLast))
            keys = KeyList(order.map { keys[$0] })
            if !incarnations.isEmpty { incarnations = order.map { incarnations[$0] } }
        }
        let evaluation = Evaluation(tableHandle: table.map(TableHandle.init), keys: keys, incarnations: incarnations)
        storage.cache.withLock { $0 = (stamp, evaluation) }
        return evaluation
    }

    /// Walks the rows of the objects these Results hold at `view`, unsorted (a table's in key
    /// order, a List's in list order, repeats included), until `body` returns false.
    func forEachMatchingRow(
        in table: TableInfo, at view: VersionView, _ body: (ObjectKey, RowView) throws -> Bool
    ) throws(Realm.Error) {
        switch storage.source {
        case .table:
            try forEachMatch(in: table, at: view, body)
        case .list(let binding):
            let predicate = storage.predicate
            for key in try binding.linkKeys(orEmptyIfInvalid: true) {
                let goesOn = try engine(storage.core.path) {
                    try view.withRow(table, key: key) { row in
                        if let predicate, try !predicate.matches(row, in: view, object: Link(table: table.id, key: key))
                        {
                            return true
                        }
                        return try body(key, row)
                    }
                }
                if goesOn == false { return }
            }
        case .backlinks(let binding):
            // Spec V26: a target that is gone has no backlinks (Realm's read as empty).
            if try binding.isInvalidated() { return }
            let predicate = storage.predicate
            let onceEach = storage.core.file.bugs.contains(.backlinksOncePerOwner)
            try engine(storage.core.path) {
                try view.forEachRow(table) { key, row in
                    var links = try binding.occurrences(in: row)
                    if onceEach { links = Swift.min(links, 1) }  // the seeded bug (Spec V26 broken)
                    guard links > 0 else { return true }
                    if let predicate, try !predicate.matches(row, in: view, object: Link(table: table.id, key: key)) {
                        return true
                    }
                    for _ in 0..<links where try !body(key, row) { return false }
                    return true
                }
            }
        }
    }

    /// Walks the objects of `table` at `view` that the predicate matches, in key order, until
    /// `body` returns false. Spec W26: an equality (or IN) on an indexed column that every match
    /// must meet reads only the objects its index names, in key order as a scan meets them;
    /// each is still checked against the whole predicate.
    private func forEachMatch(
        in table: TableInfo, at view: VersionView, _ body: (ObjectKey, RowView) throws -> Bool
    ) throws(Realm.Error) {
        let path = storage.core.path
        let predicate = storage.predicate
        if let predicate,
            let (column, values) = predicate.indexedEquality(table.indexedColumns, schema: storage.info.schema),
            let candidates = try engine(
                path,
                { () throws(StorageError) -> [ObjectKey]? in
                    try Self.indexedCandidates(view, table, column: column, values: values)
                })
        {
            for key in candidates {
                let goesOn = try engine(path) {
                    try view.withRow(table, key: key) { row in
                        try !predicate.matches(row, in: view, object: Link(table: table.id, key: key)) || body(key, row)
                    }
                }
                if goesOn == false { return }
            }
            return
        }
        try engine(path) {
            try view.forEachRow(table) { key, row in
                if let predicate, try !predicate.matches(row, in: view, object: Link(table: table.id, key: key)) {
                    return true
                }
                return try body(key, row)
            }
        }
    }

    /// The first matching object's table and identity, without evaluating the Results whole
    /// when they are unsorted Results of a table not yet evaluated at the realm's view: the
    /// walk stops at the first match. After the checks every member makes (Spec C6, V13).
    private func firstIdentity() throws(Realm.Error) -> (table: TableInfo, identity: ObjectIdentity)? {
        let core = storage.core
        try core.checkAccess()
        guard storage.epoch == core.epoch else { throw Realm.Error.resultsInvalidated }  // Spec V13
        let isCached = storage.cache.withLock { $0?.stamp == core.stamp }
        guard storage.ordering.isEmpty, storage.source.isTable, !isCached else {
            let evaluation = try evaluate()
            guard let table = evaluation.table, !evaluation.keys.isEmpty else { return nil }
            return (table, evaluation.identity(at: 0))
        }
        let view = try core.view()  // Spec V10: as `evaluate`, this begins a read
        guard let table = view.table(named: storage.info.className)?.withoutSchema else { return nil }
        var found: ObjectIdentity?
        var skipping = core.file.bugs.contains(.firstSkipsFirstMatch)  // the seeded bug (Spec V1 broken)
        try forEachMatch(in: table, at: view) { key, row in
            if skipping {
                skipping = false
                return true
            }
            found = ObjectIdentity(key: key, incarnation: table.reusesKeys ? row.incarnation : .keyIsIdentity)
            return false
        }
        return found.map { (table, $0) }
    }

    /// The keys the index of `column` names for any of `values`, ascending and once each; nil
    /// when the column has no index.
    private static func indexedCandidates(
        _ view: VersionView, _ table: TableInfo, column: Int, values: [Value]
    ) throws(StorageError) -> [ObjectKey]? {
        var keys: [ObjectKey] = []
        for value in values {
            guard let found = try view.indexedKeys(table, column: column, equalTo: value) else { return nil }
            keys.append(contentsOf: found)
        }
        guard values.count > 1 else { return keys }
        var seen = Set<ObjectKey>()
        return keys.filter { seen.insert($0).inserted }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The positions of the evaluated elements after `ordering`'s steps, in their order (Spec
    /// V22): each sort reorders what the steps before it left, stably; each distinct keeps the
    /// first element of each combination of its key paths' values and drops those a null link
    /// on the way leaves without a value. `values[i]` holds element i's values of every step's
    /// paths, step after step. `nullLinksFirst` and `distinctKeepsLast` are the seeded bugs
    /// `nullLinksSortFirst` (a null link sorts as the lowest value) and `distinctKeepsLast`.
    private static func order(
        _ count: Int, by values: [[Value?]], _ ordering: [OrderingStep],
        nullLinksFirst: Bool = false, distinctKeepsLast: Bool = false
    ) -> [Int] {
        // nil (a null link on the way) sorts after every value, null included: realm-core's
        // sorter puts null links last ascending, first descending (Spec V20).
        func sortsBefore(_ x: Value?, _ y: Value?) -> Bool {
            guard let x else { return nullLinksFirst && y != nil }
            guard let y else { return !nullLinksFirst }
            return StoredOrder.sortsBefore(x, y)
        }
        var order = Array(0..<count)
        var first = 0  // where the step's values begin in each element's
        for step in ordering {
            let paths = step.paths
            switch step {
            case .sort:
                let positions = order.indices.sorted { p, q in
                    for (offset, descriptor) in paths.enumerated() {
                        let x = values[order[p]][first + offset]
                        let y = values[order[q]][first + offset]
                        if sortsBefore(x, y) { return descriptor.ascending }
                        if sortsBefore(y, x) { return !descriptor.ascending }
                    }
                    return p < q  // stable: the order before this sort breaks ties
                }
                order = positions.map { order[$0] }
            case .distinct:
                var seen = Set<[Value]>()
                if distinctKeepsLast { order.reverse() }
                defer { if distinctKeepsLast { order.reverse() } }
                order = order.filter { element in
                    var key: [Value] = []
                    key.reserveCapacity(paths.count)
                    for offset in paths.indices {
                        guard let value = values[element][first + offset] else { return false }
                        key.append(StoredOrder.distinctKey(value))
                    }
                    return seen.insert(key).inserted
                }
            }
            first += paths.count
        }
        return order
    }

    func element(at index: Int) throws(Realm.Error) -> Element {
        let evaluation = try evaluate()
        guard index >= 0 && index < evaluation.keys.count, let table = evaluation.tableHandle else {
            throw Realm.Error.outOfBounds(index: index, count: evaluation.keys.count)
        }
        return try storage.core.makeObject(
            Element.self, info: storage.info, table: table,
            identity: evaluation.identity(at: index))
    }

    // MARK: collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// The number of matching objects. - Complexity: O(n) when the realm changed since the
    /// last evaluation, else O(1).
    public var count: Int { trapping { () throws(Realm.Error) -> Int in try _count() } }

    package func _count() throws(Realm.Error) -> Int { try evaluate().keys.count }

    /// The first object in the Results' order; nil when none matches.
    /// - Complexity: O(1) once evaluated at the realm's version. Otherwise unsorted Results of
    ///   a table read objects only up to the first match (through the index for an indexed
    ///   equality: Spec W26); sorted Results and those of a List evaluate whole, as `count` does.
    public var first: Element? { trapping { () throws(Realm.Error) -> Element? in try _first() } }

    package func _first() throws(Realm.Error) -> Element? {
        guard let (table, identity) = try firstIdentity() else { return nil }
        return try storage.core.makeObject(Element.self, info: storage.info, table: table, identity: identity)
    }

    /// Whether no object matches. - Complexity: as `first`, which it reads without making an object.
    public var isEmpty: Bool { trapping { () throws(Realm.Error) -> Bool in try _isEmpty() } }

    package func _isEmpty() throws(Realm.Error) -> Bool { try firstIdentity() == nil }

    /// The object at `position` in the Results' order; traps with Realm's out-of-bounds message
    /// outside 0..<count.
    /// - Complexity: O(1) once evaluated at the realm's version; the first access after the
    ///   realm changed evaluates the query, as `count` does.
    public subscript(position: Int) -> Element {
        trapping { () throws(Realm.Error) -> Element in try element(at: position) }
    }

    package func _element(at index: Int) throws(Realm.Error) -> Element { try element(at: index) }

    /// Iterates over the objects matching when iteration began (Spec V15); invalidating the
    /// realm during iteration stops it with 'Collection is no longer valid' (Spec V16).
    public func makeIterator() -> ResultsIterator<Element> {
        trapping { () throws(Realm.Error) -> ResultsIterator<Element> in try _makeIterator() }
    }

    package func _makeIterator() throws(Realm.Error) -> ResultsIterator<Element> {
        let evaluation = try evaluate()
        return ResultsIterator(storage: storage, evaluation: evaluation, stamp: storage.core.stamp)
    }

    // MARK: state

    /// The realm of the Results.
    public var realm: Realm? { Realm(core: storage.core) }

    /// Whether the realm was invalidated since the Results were made (Spec V13).
    public var isInvalidated: Bool {
        trapping { () throws(Realm.Error) -> Bool in
            try storage.core.checkThread()
            return storage.epoch != storage.core.epoch || storage.core.isFrozenInvalidated  // Spec V13, F6
        }
    }

    public var isFrozen: Bool { storage.core.isFrozen }

    /// Realm's description: `Results<Dog> <0x…> (` then each object, one a line.
    public var description: String { describe(as: "Results") }

    /// Realm's description of these Results as a collection of `kind` (`LinkingObjects`).
    func describe(as kind: String) -> String {
        // Unreadable Results (another context's, invalidated) describe no element.
        let objects: [Any?] = (try? evaluate()) != nil ? map { $0 } : []
        return ObjectDescription.describeCollection(
            kind, elementType: storage.info.className, identity: storage,
            elements: objects, type: .object)
    }

    // MARK: deriving

    /// The objects that also match `isIncluded` (`$0.age < 2 && $0.name != "Rex"`); lazy, like
    /// every Results.
    /// - Complexity: O(1) to make; evaluating it scans the table, O(n), except that an equality
    ///   or `in` on an indexed property reads only the objects its index names (Spec W26;
    ///   `Docs/limits.md`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in
            try storage.core.checkAccess()
            let added = isIncluded(Query<Element>(.root(storage.info))).predicate
            let predicate = storage.predicate.map { Predicate.and($0, added) } ?? added
            return Results(
                storage: Storage(
                    core: storage.core, info: storage.info, source: storage.source,
                    predicate: predicate, ordering: storage.ordering, epoch: storage.epoch))
        }
    }

    /// The same as `where`.
    public func filter(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> { self.where(isIncluded) }

    /// Sorted by the property named `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by a property.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [
            SortDescriptor(
                keyPath: QueryColumns.keyPathName(of: keyPath, info: storage.info),
                ascending: ascending)
        ])
    }

    /// Sorted by several properties, the first deciding first; ties keep the source order.
    /// - Complexity: O(1) to make; evaluating it sorts, O(n log n).
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        trapping { () throws(Realm.Error) -> Results<Element> in try _sorted(by: descriptors) }
    }

    /// `sorted(by:)`, throwing: a key path Realm refuses to sort on (`ResultsTests.testSortWithKeyPath`
    /// messages: 'Cannot sort on key path ...').
    package func _sorted<S: Sequence>(by descriptors: S) throws(Realm.Error) -> Results<Element>
    where S.Element == SortDescriptor {
        var columns: [SortPath] = []
        for descriptor in descriptors {
            columns.append(
                SortPath(
                    columns: try Self.sortColumns(descriptor.keyPath, info: storage.info),
                    ascending: descriptor.ascending))
        }
        try storage.core.checkAccess()
        return Results(
            storage: Storage(
                core: storage.core, info: storage.info, source: storage.source,
                predicate: storage.predicate, ordering: storage.ordering.sorting(by: columns),
                epoch: storage.epoch))
    }

    /// The columns a sort key path names (links to follow, then the sorted property), checked
    /// as realm-core's `parse_keypath` (of `Results::sort`) checks them, in its order and words:
    /// each step names a property of the class reached so far; a link may not end the path and
    /// only a link may be followed.
    static func sortColumns(_ keyPath: String, info: ClassInfo) throws(Realm.Error) -> [Int] {
        if keyPath.contains("@") {  // RLMSortDescriptorsToKeypathArray, before realm-core's parse
            throw Realm.Error.cannotSort(keyPath: keyPath, "KVC collection operators are not supported")
        }
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keyPath.isEmpty, !names.contains("") else {
            throw Realm.Error.cannotSort(keyPath: keyPath, "missing property name")
        }
        var current = info
        var columns: [Int] = []
        for (step, name) in names.enumerated() {
            let className = current.className
            let isFinal = step == names.count - 1
            guard let column = current.schema.index(of: name) else {
                throw Realm.Error.cannotSort(keyPath: keyPath, "property '\(className).\(name)' does not exist")
            }
            let property = current.schema.properties[column]
            if property.isList || property.type == .data {
                let typeName = property.isList ? "array" : "data"
                throw Realm.Error.cannotSort(
                    keyPath: keyPath,
                    "property '\(className).\(name)' is of unsupported type '\(typeName)'")
            }
            columns.append(column)
            if property.type == .object {
                guard !isFinal else {
                    throw Realm.Error.cannotSort(
                        keyPath: keyPath,
                        "property '\(className).\(name)' of type "
                            + "'object' cannot be the final property in the key path")
                }
                guard let target = current.linkTarget(of: property) else {
                    throw Realm.Error.cannotSort(keyPath: keyPath, "property '\(className).\(name)' does not exist")
                }
                current = target
            } else if !isFinal {
                throw Realm.Error.cannotSort(
                    keyPath: keyPath,
                    "property '\(className).\(name)' of type "
                        + "'\(property.realmTypeName)' may only be the final property in the key path")
            }
        }
        return columns
    }

    /// The index of `object` in the Results, if it is there.
    /// - Complexity: O(n).
    public func index(of object: Element) -> Int? {
        trapping { () throws(Realm.Error) -> Int? in try _index(of: object) }
    }

    package func _index(of object: Element) throws(Realm.Error) -> Int? {
        let evaluation = try evaluate()
        guard let accessor = object._accessor, accessor.core === storage.core else { return nil }
        // Spec W12: the key must hold that very object.
        return evaluation.keys.indices.first { evaluation.identity(at: $0) == accessor.identity }
    }

    // MARK: freeze and thaw (Spec F)

    /// Frozen Results at the realm's current version, with the same query and sort.
    public func freeze() -> Results<Element> {
        trapping { () throws(Realm.Error) -> Results<Element> in try _freeze() }
    }

    package func _freeze() throws(Realm.Error) -> Results<Element> {
        if isFrozen { return self }  // Spec F5
        _ = try evaluate()  // Spec C7, V13
        let frozen = try storage.core.freeze()
        guard let results = try rebound(to: frozen) else { throw Realm.Error.resultsInvalidated }
        return results
    }

    /// The same query on the live realm of the calling thread, at that realm's version
    /// (Spec F8: no refresh). Thawing live Results returns them.
    public func thaw() -> Results<Element>? { trapping { () throws(Realm.Error) -> Results<Element>? in try _thaw() } }

    package func _thaw() throws(Realm.Error) -> Results<Element>? {
        guard isFrozen else {
            try storage.core.checkThread()  // Spec C6: every member of live Results checks
            return self
        }
        let live = try storage.core.liveRealmForCurrentThread()
        _ = try live.view()  // Spec V10: thawing reads the live realm (Realm imports the Results into it)
        return try rebound(to: live)
    }

    /// These Results' definition on another realm of the same file.
    func rebound(to core: RealmCore) throws(Realm.Error) -> Results<Element>? {
        let source: Source
        switch storage.source {
        case .table: source = .table
        case .list(let binding):
            guard let moved = try binding.rebound(to: core) else { return nil }
            source = .list(moved)
        case .backlinks(let binding):
            guard let moved = try binding.rebound(to: core) else { return nil }
            source = .backlinks(moved)
        }
        return Results(
            storage: Storage(
                core: core, info: storage.info, source: source, predicate: storage.predicate,
                ordering: storage.ordering, epoch: core.epoch))
    }
}

extension Results: RealmCollectionBase {
    var isManagedCollection: Bool { true }

    /// Spec W11, W9: `-[RLMRealm deleteObjects:]`, then `-[RLMResults deleteObjectsFromRealm]`.
    func checkDeletable(by core: RealmCore) throws(Realm.Error) {
        try core.checkThread()  // a write: W11, W9 decide, not F6
        guard storage.core === core else { throw Realm.Error.deleteCollectionFromOtherRealm }
        guard core.write != nil else { throw Realm.Error.resultsOutsideWrite }
    }

    func targetKeys() throws(Realm.Error) -> [(TableInfo, ObjectKey)] {
        let evaluation = try evaluate()
        guard let table = evaluation.table else { return [] }
        return evaluation.keys.map { (table, $0) }
    }
}

extension Results: AnyListConvertible {
    func anyElements() throws(Realm.Error) -> [Any?] {
        let evaluation = try evaluate()
        guard let table = evaluation.tableHandle else { return [] }
        var objects: [Any?] = []
        for index in evaluation.keys.indices {
            objects.append(
                try storage.core.makeObject(
                    Element.self, info: storage.info, table: table,
                    identity: evaluation.identity(at: index)))
        }
        return objects
    }
}

/// The objects matching at one view: their keys in order, and, for a table whose keys are
/// reused (integer primary keys), each one's incarnation, so that an element's accessor
/// names that very object (Spec W12). `incarnations` stays empty while every incarnation is
/// 0 (always for other tables, and for tables that never had a deletion): a scan of such a
/// table allocates nothing more than its keys.
/// What `Results.evaluate` gathers from the objects it matches, in the order met: a value the
/// walk's closures change in place (`append`), so that no access to it needs the dynamic
/// exclusivity check that variables captured by a stored closure would.
private struct MatchList {
    var keys = KeyList()
    /// Empty while every incarnation met was 0 (a table that never reused a key).
    var incarnations: [Incarnation] = []
    /// Per match, its values of the ordering's key paths (empty without sorts and distincts).
    var sortValues: [[Value?]] = []
    /// The tables sorting through links reads, read once.
    var tablesByID: [TableID: TableInfo]?
    let reusesKeys: Bool
    /// The key paths of every sort and distinct, step after step.
    let paths: [SortPath]

    init(reusesKeys: Bool, paths: [SortPath]) {
        self.reusesKeys = reusesKeys
        self.paths = paths
    }

    mutating func append(_ key: ObjectKey, _ row: RowView, view: VersionView) throws {
        keys.append(key)
        if reusesKeys, row.incarnation != .keyIsIdentity || !incarnations.isEmpty {
            // The first non-zero incarnation: every earlier element's was 0.
            if incarnations.isEmpty {
                incarnations = Array(repeating: .keyIsIdentity, count: keys.count - 1)
            }
            incarnations.append(row.incarnation)
        }
        if !paths.isEmpty {
            var values: [Value?] = []
            values.reserveCapacity(paths.count)
            for path in paths { values.append(try path.value(of: row, in: view, tables: &tablesByID)) }
            sortValues.append(values)
        }
    }
}

struct ResultsEvaluation {
    /// The table the keys are in, shared by the objects made from them (`TableHandle`).
    var tableHandle: TableHandle?
    var table: TableInfo? { tableHandle?.info }
    var keys: KeyList
    var incarnations: [Incarnation]

    func identity(at index: Int) -> ObjectIdentity {
        ObjectIdentity(key: keys[index], incarnation: incarnations.isEmpty ? .keyIsIdentity : incarnations[index])
    }
}
