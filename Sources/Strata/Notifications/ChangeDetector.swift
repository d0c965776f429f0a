import StrataStorage

/// Which properties an observer watches (Spec N21): every property, following links to
/// `ChangeDetector.maximumDepth`, or the properties its key paths name.
indirect enum WatchedPaths {
    case everything
    /// By column: nil watches the column alone (a List's membership, a link's target
    /// identity); a value watches those properties of the linked objects too.
    case columns([Int: WatchedPaths?])

    /// The paths of `keyPaths` ("name", "employees.hired") over `info`'s class.
    /// - Throws: `Invalid property name: property '<name>' not found in object of type '<type>'`
    ///   (Spec N21; RLMClassInfo's `keyPathFromString`).
    static func parse(_ keyPaths: [String]?, info: ClassInfo, core: RealmCore) throws(Realm.Error) -> WatchedPaths {
        guard let keyPaths else { return .everything }
        var columns: [Int: WatchedPaths?] = [:]
        for path in keyPaths {
            try add(path.split(separator: ".").map(String.init), schema: info.schema, core: core, to: &columns)
        }
        return .columns(columns)
    }

    private static func add(
        _ components: [String], schema: ObjectSchema, core: RealmCore,
        to columns: inout [Int: WatchedPaths?]
    ) throws(Realm.Error) {
        guard let first = components.first else { return }
        guard let column = schema.index(of: first) else {
            throw Realm.Error.misuse(
                "Invalid property name: property '\(first)' not found in object of type "
                    + "'\(schema.className)'")
        }
        let rest = Array(components.dropFirst())
        guard !rest.isEmpty else {
            if columns[column] == nil { columns[column] = .some(nil) }
            return
        }
        let property = schema.properties[column]
        guard property.isLink, let target = property.objectClassName, let targetInfo = core.knownClass(named: target)
        else {
            throw Realm.Error.misuse(
                "Invalid property name: property '\(rest[0])' not found in object of type "
                    + "'\(property.objectClassName ?? schema.className)'")
        }
        var nested: [Int: WatchedPaths?] = [:]
        if case .some(.some(.columns(let existing))) = columns[column] { nested = existing }
        try add(rest, schema: targetInfo.schema, core: core, to: &nested)
        columns[column] = .some(.columns(nested))
    }
}

/// Decides which properties of which objects changed between the version an observer last
/// delivered (`old`, pinned) and the realm's version now (Spec N11, N20 to N22).
///
/// A property changed when a write set it: the journal of this process's commits says so for a
/// range it covers (also a set to the same value, which Realm reports). For a range another
/// process committed in, the journal has nothing, and a property changed when its stored value
/// at the two versions differs. A link or List property also changed when a watched property of
/// an object it links to changed, up to `maximumDepth` links away (Spec N11, N21).
final class ChangeDetector {
    /// How many links deep an observer without key paths hears of changes.
    static let maximumDepth = 4

    private let old: ReadTransaction?
    private let new: VersionView
    private let journal: WriteChanges?
    private let core: RealmCore
    private var schemas: [String: (TableInfo, ObjectSchema)?] = [:]

    init(old: ReadTransaction?, new: VersionView, journal: WriteChanges?, core: RealmCore) {
        self.old = old
        self.new = new
        self.journal = journal
        self.core = core
    }

    /// Whether nothing can have changed (the range is recorded and set nothing).
    var nothingChanged: Bool { journal?.isEmpty ?? false }

    /// The only objects of `table` that `changedColumns` can find changed when `paths` follow no
    /// link of `schema` and the range is recorded: those the journal lists; nil when any
    /// object may have changed (a link is followed, or rows must be compared). An observer of
    /// a large collection then tests a handful of objects instead of every element.
    func candidates(in table: TableInfo, schema: ObjectSchema, watching paths: WatchedPaths) -> [ObjectKey]? {
        guard let journal else { return nil }
        for (column, property) in schema.properties.enumerated() where property.isLink {
            switch paths {
            case .everything: return nil
            case .columns(let watched):
                if case .some(.some) = watched[column] { return nil }
            }
        }
        return journal.keys(table.id)
    }

    /// The watched columns of the object `key` of `table` that changed, ascending.
    func changedColumns(
        _ table: TableInfo, _ key: ObjectKey, schema: ObjectSchema,
        watching paths: WatchedPaths, depth: Int = 0
    ) throws -> [Int] {
        if nothingChanged { return [] }
        let direct = try directColumns(table, key)
        var changed: [Int] = []
        var newRow: [Value]?
        for column in schema.properties.indices {
            let nested: WatchedPaths?
            switch paths {
            case .everything:
                nested = depth + 1 < Self.maximumDepth ? .everything : nil
            case .columns(let watched):
                guard let entry = watched[column] else { continue }
                nested = entry
            }
            if direct.contains(column) {
                changed.append(column)
                continue
            }
            let property = schema.properties[column]
            guard let nested, property.isLink, let targetClass = property.objectClassName,
                let (targetTable, targetSchema) = target(targetClass)
            else { continue }
            if newRow == nil { newRow = try new.row(table, key: key) ?? [] }
            guard let row = newRow, column < row.count else { continue }
            for link in Self.links(in: row[column]) where link.table == targetTable.id {
                if try !changedColumns(
                    targetTable, link.key, schema: targetSchema, watching: nested,
                    depth: depth + 1
                ).isEmpty {
                    changed.append(column)
                    break
                }
            }
        }
        return changed
    }

    /// The columns of the object written between the versions (journal) or differing (rows).
    private func directColumns(_ table: TableInfo, _ key: ObjectKey) throws -> ColumnSet {
        if let journal { return journal.columns(table.id, key) ?? ColumnSet() }
        guard let old, let oldTable = old.table(id: table.id),
            let before = try old.row(oldTable, key: key), let after = try new.row(table, key: key)
        else {
            return ColumnSet()
        }
        var columns = ColumnSet()
        for column in 0..<max(before.count, after.count) {
            let a = column < before.count ? before[column] : .null
            let b = column < after.count ? after[column] : .null
            if a != b { columns.insert(column) }
        }
        return columns
    }

    private func target(_ className: String) -> (TableInfo, ObjectSchema)? {
        if let known = schemas[className] { return known }
        var found: (TableInfo, ObjectSchema)?
        if let table = new.table(named: className),
            let schema = core.knownClass(named: className)?.schema
                ?? ObjectSchema.decode(table.schema, className: className)
        {
            found = (table, schema)
        }
        schemas[className] = .some(found)
        return found
    }

    static func links(in value: Value) -> [Link] {
        switch value {
        case .link(let link): return [link]
        case .list(let elements):
            return elements.compactMap {
                if case .link(let link) = $0 { return link }
                return nil
            }
        default: return []
        }
    }
}
