import StrataStorage

/// What a managed `LinkingObjects` reads (Spec V26): the objects of the origin class whose
/// origin property (a link, or a List, set or Map of links) holds the target object.
///
/// Strata keeps no backlink column: the origin table is read, each row's origin column
/// counted (`occurrences(in:)`), so reading LinkingObjects is O(origin objects), not
/// O(backlinks) as in realm-core (`Docs/limits.md`). What it gives is the same: one element
/// per link, so an origin whose List holds the target twice is there twice.
final class BacklinkBinding {
    /// The object the links point to: the owner of the LinkingObjects property.
    let target: _ObjectAccessor
    /// The origin property's column in the origin class.
    let originColumn: Int
    /// The origin property's name (`LinkingObjects.propertyName`).
    let propertyName: String

    init(target: _ObjectAccessor, originColumn: Int, propertyName: String) {
        self.target = target
        self.originColumn = originColumn
        self.propertyName = propertyName
    }

    /// Whether the target is gone (deleted, or its realm invalidated): then the LinkingObjects
    /// read as empty, as Realm's do after the target's deletion (LinkingObjectsTests.testBasics).
    func isInvalidated() throws(Realm.Error) -> Bool { try target.isInvalidated() }

    /// How many links to the target `row` (an object of the origin class) holds in the origin
    /// column.
    func occurrences(in row: RowView) throws(StorageError) -> Int {
        try Self.links(to: Link(table: target.table.id, key: target.identity.key), in: row, column: originColumn)
    }

    /// How many links to `object` `row` holds in `column`: 0 or 1 for a to-one link, the count
    /// of its elements naming the object for a List, set or Map (whose keys, strings, never
    /// match).
    static func links(to object: Link, in row: RowView, column: Int) throws(StorageError) -> Int {
        guard column < row.columnCount else { return 0 }
        switch try row.value(at: column) {
        case .link(let link):
            return link == object ? 1 : 0
        case .list(let elements):
            var count = 0
            for case .link(let link) in elements where link == object { count += 1 }
            return count
        default:
            return 0
        }
    }

    /// The same backlinks in another realm of the file (a freeze, a thaw). A target missing
    /// there (deleted, or its key holding another object: Spec W12) gives backlinks that read
    /// as empty, as Results over a List whose owner is gone do (T5, F8: Results keep their
    /// query); nil only when the realm has no table of the target's class.
    func rebound(to other: RealmCore) throws(Realm.Error) -> BacklinkBinding? {
        var moved = try target.rebound(to: other)
        if moved == nil, !other.isFrozenInvalidated, let table = try other.view().table(named: target.info.className) {
            moved = _ObjectAccessor(
                core: other, info: target.info, table: table, identity: target.identity, scope: nil)
        }
        return moved.map { BacklinkBinding(target: $0, originColumn: originColumn, propertyName: propertyName) }
    }
}
