import StrataStorage

/// The stored type of a property (its schema type, kept in the file).
public enum PropertyType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Integers of every width (`Int`, `Int8` ... `Int64`), stored as 64 bits.
    case int = 0
    /// `Bool`.
    case bool = 1
    /// `Float`.
    case float = 2
    /// `Double`.
    case double = 3
    /// `String`.
    case string = 4
    /// `Data`.
    case data = 5
    /// `Date`.
    case date = 6
    /// `UUID`.
    case uuid = 7
    /// A link to another object (a to-one property, or the elements of a `List` of objects).
    case object = 8

    public var description: String {
        switch self {
        case .int: return "int"
        case .bool: return "bool"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .uuid: return "uuid"
        case .object: return "object"
        }
    }
}

/// What a Swift type stores as: its schema type, optionality, list-ness and link target.
/// Not API: the `_`-prefixed protocols below name it.
public struct _PropertyKind: Sendable {
    var type: PropertyType
    var isOptional: Bool
    var isList: Bool
    /// A `MutableSet` (then `isList` too).
    var isSet = false
    /// A `Map` (then `isList` too).
    var isMap = false
    /// The target class of a link or list of links.
    var objectType: Object.Type?

    init(_ type: PropertyType, isOptional: Bool = false, isList: Bool = false, objectType: Object.Type? = nil) {
        self.type = type
        self.isOptional = isOptional
        self.isList = isList
        self.objectType = objectType
    }

    var objectClassName: String? { objectType.map { ObjectSchema.className(of: $0) } }
}
