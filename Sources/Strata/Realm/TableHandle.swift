import StrataStorage

/// One table descriptor shared by reference: the objects made from one lookup or one write's
/// `add`s hold the descriptor their realm cached (`RealmCore.tableHandle(for:in:)`,
/// `writableTableHandle`) instead of each copying it (a descriptor is a dozen fields, two of
/// them reference-counted; a copy per object cost more than the rest of making the accessor).
///
/// Immutable, so it may be shared by the accessors of a frozen realm's threads.
final class TableHandle: Sendable {
    let info: TableInfo

    init(_ info: TableInfo) { self.info = info }
}
