import Strata

// The engine-side classes of the model's object schema (StrataModel `Schema.standard`): two
// types with an Int primary key, an optional Int `value` and a List of links. The model's Map
// column has no API yet (README, "Limits"), so the generators never touch it.

/// What both classes have: the model's columns.
protocol CheckObject: Object {
    var primaryKey: Int { get }
    var value: Int? { get }
    var list: List<Item> { get }
}

/// The model's type "Item".
final class Item: Object, CheckObject {
    @Persisted(primaryKey: true) var primaryKey: Int
    @Persisted var value: Int?
    @Persisted var list: List<Item>
}

/// The model's type "Other": a second table, so that queries and deletes meet more than one.
final class Other: Object, CheckObject {
    @Persisted(primaryKey: true) var primaryKey: Int
    @Persisted var value: Int?
    @Persisted var list: List<Item>
}

/// The model's type names and the classes that store them.
enum CheckTypes {
    static let names = ["Item", "Other"]
    static let classes: [Object.Type] = [Item.self, Other.self]
}
