import Strata

// The engine-side classes of the model's object schema (StrataModel `Schema.standard`): two
// types with an Int primary key, an optional Int `value` and a List of links, and in generation
// 6's linking runs a third with a to-one link too (`Schema.linking`) and, from generation 11, a
// set of Items and, from generation 12, a Map of Items. The model gives every type a Map column;
// only Linkers' are written, so only Linker declares one.

/// What both classes have: the model's columns.
protocol CheckObject: Object {
    var primaryKey: Int { get }
    var value: Int? { get }
    var list: List<Item> { get }
}

/// The model's type "Item".
final class Item: Object, CheckObject {
    @Persisted(primaryKey: true) var primaryKey: Int
    /// Indexed in generation 8's runs (`indexedProperties`, Spec W26): every write keeps its
    /// entries, which crash images verify, and equality queries read through them.
    @Persisted var value: Int?
    @Persisted var list: List<Item>
    /// Generation 14 (Spec V26): the Items and the Others whose List holds this Item, once per
    /// link. Computed, no column: the stored schema (and so every older run's file) is the same.
    @Persisted(originProperty: "list") var listedByItems: LinkingObjects<Item>
    @Persisted(originProperty: "list") var listedByOthers: LinkingObjects<Other>
}

/// The model's type "Other": a second table, so that queries and deletes meet more than one.
final class Other: Object, CheckObject {
    @Persisted(primaryKey: true) var primaryKey: Int
    @Persisted var value: Int?
    @Persisted var list: List<Item>
}

/// The model's type "Linker" (generation 6, `Schema.linking`): the columns of the others and a
/// to-one `link` to an Item, which Results of Linkers sort through (Spec V20), and a set of
/// Items (generation 11, Spec V24).
final class Linker: Object, CheckObject {
    @Persisted(primaryKey: true) var primaryKey: Int
    @Persisted var value: Int?
    @Persisted var list: List<Item>
    @Persisted var link: Item?
    /// Generation 11 (Spec V24): Items held once each, in key order. Empty in older runs, whose
    /// streams never touch it.
    @Persisted var set: MutableSet<Item>
    /// Generation 12 (Spec V25): Items (or nulls) under string keys, kept in key order. Empty in
    /// older runs, whose streams never touch it.
    @Persisted var map: Map<String, Item?>
}

/// The model's type names and the classes that store them.
enum CheckTypes {
    static let names = ["Item", "Other"]
    static let classes: [Object.Type] = [Item.self, Other.self]
    /// Generation 6's runs that link (`Swarm.links`): the schema with "Linker" (the model's
    /// `Schema.linking`). Older runs keep the two classes, and so their files.
    static let linkingNames = ["Item", "Other", "Linker"]
    static let linkingClasses: [Object.Type] = [Item.self, Other.self, Linker.self]
    /// Generation 8's indexes (Spec W26): Item's and Linker's `value`, queried by equality
    /// through the index; Other's stays unindexed, queried by a scan.
    static let indexedProperties: [String: Set<String>] = ["Item": ["value"], "Linker": ["value"]]

    /// The class that stores the model's type `name`.
    static func type(named name: String) -> Object.Type {
        switch name {
        case "Item": return Item.self
        case "Linker": return Linker.self
        default: return Other.self
        }
    }

    /// The model's name of `object`'s type.
    static func name(of object: Object) -> String {
        if object is Item { return "Item" }
        if object is Linker { return "Linker" }
        return "Other"
    }
}
