import CStrataSupport
import StrataStorage
@_spi(Reflection) import Swift

/// One property of a class as stored: its column is its index in `ObjectSchema.properties`.
struct PropertySchema: Hashable, Sendable, CustomStringConvertible {
    var name: String
    var type: PropertyType
    var objectClassName: String?
    var isOptional: Bool
    var isList: Bool
    var isPrimaryKey: Bool
    var isIndexed: Bool
    /// A `MutableSet` (`isList` is true too: a set is stored as its owner's list of elements,
    /// kept unique and in `SetOrder`, Spec V24).
    var isSet: Bool = false
    /// A `Map` (`isList` is true too: a map is stored as its owner's list of keys and values,
    /// `[key0, value0, key1, value1, …]` in key order, Spec V25).
    var isMap: Bool = false

    var description: String {
        var text = "\(name): "
        if isList { text += isMap ? "Map<String, " : isSet ? "MutableSet<" : "List<" }
        text += objectClassName ?? type.description
        if isList { text += ">" }
        if isOptional { text += "?" }
        if isPrimaryKey { text += " (primary key)" }
        if isIndexed { text += " (indexed)" }
        return text
    }

    /// Whether a secondary index can serve this property (Spec W26): one value of an indexable
    /// kind, not the primary key.
    var canBeIndexed: Bool {
        guard !isList && !isPrimaryKey else { return false }
        switch type {
        case .int, .bool, .string, .data, .date, .uuid: return true
        case .float, .double, .object: return false
        }
    }

    /// Whether a value of this property can name an object (a link or a list of links).
    var isLink: Bool { type == .object }

    /// The type as Realm's messages name it: `int`, `<Target>`, `array<string>`,
    /// `array<Target>` (core's `Property::type_string`; optionality is not part of it).
    var realmTypeName: String {
        let element = type == .object ? (objectClassName ?? "") : type.description
        if isList { return isMap ? "dictionary<string, \(element)>" : isSet ? "set<\(element)>" : "array<\(element)>" }
        return type == .object ? "<\(element)>" : element
    }
}

/// The stored schema of one class: the table's name and its properties in column order.
struct ObjectSchema: Hashable, Sendable {
    var className: String
    var properties: [PropertySchema]

    var primaryKeyIndex: Int? { properties.firstIndex { $0.isPrimaryKey } }

    func index(of name: String) -> Int? { properties.firstIndex { $0.name == name } }

    /// The engine's primary key of the table.
    var enginePrimaryKey: PrimaryKey {
        guard let index = primaryKeyIndex else { return .none }
        // UUIDs are kept unique by the same index as strings (their 16 bytes are its key).
        return properties[index].type == .int ? .int(column: index) : .string(column: index)
    }

    /// The engine's secondary indexes of the table (Spec W26): the indexed properties of the
    /// kinds an equality query finds through an index (String, Int, Bool, Date, UUID, Data),
    /// neither lists nor the primary key (which has its own index), among the first 64 columns.
    var engineIndexedColumns: UInt64 { indexMask { $0.isIndexed } }

    /// The mask of the columns `selected` names among those that can have an index.
    func indexMask(_ selected: (PropertySchema) -> Bool) -> UInt64 {
        var mask: UInt64 = 0
        for (column, property) in properties.enumerated()
        where selected(property) && property.canBeIndexed && column < 64 {
            mask |= 1 << UInt64(column)
        }
        return mask
    }

    static func className(of type: Object.Type) -> String { String(describing: type) }

    // MARK: the stored form

    /// Text, one property per line: `name<TAB>type<TAB>class<TAB>flags`, after a format line.
    /// Property names are Swift identifiers, so they hold no tab or newline.
    func encoded() -> [UInt8] {
        var text = "strata-schema 1\n"
        for property in properties {
            var flags = ""
            if property.isOptional { flags += "o" }
            if property.isList { flags += "l" }
            if property.isSet { flags += "s" }
            if property.isMap { flags += "m" }
            if property.isPrimaryKey { flags += "p" }
            if property.isIndexed { flags += "i" }
            text += "\(property.name)\t\(property.type.rawValue)\t\(property.objectClassName ?? "")\t\(flags)\n"
        }
        return Array(text.utf8)
    }

    /// The schema stored for `className`; nil when the bytes are not a stored schema.
    static func decode(_ bytes: [UInt8], className: String) -> ObjectSchema? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first == "strata-schema 1" else { return nil }
        lines.removeFirst()
        var properties: [PropertySchema] = []
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, let raw = UInt8(fields[1]), let type = PropertyType(rawValue: raw) else {
                return nil
            }
            let flags = fields[3]
            properties.append(
                PropertySchema(
                    name: String(fields[0]), type: type, objectClassName: fields[2].isEmpty ? nil : String(fields[2]),
                    isOptional: flags.contains("o"), isList: flags.contains("l"), isPrimaryKey: flags.contains("p"),
                    isIndexed: flags.contains("i"), isSet: flags.contains("s"),
                    isMap: flags.contains("m")))
        }
        return ObjectSchema(className: className, properties: properties)
    }

    /// Realm's migration-required lines describing how `self` (the classes) differs from
    /// `stored` (the file): the changes that need a migration (Spec X19), then Strata's own
    /// line for a new property order (columns are positional in Strata; Realm's are not).
    func differences(from stored: ObjectSchema) -> [String] {
        var lines = changes(from: stored).filter(\.needsMigration).map(\.line)
        if lines.isEmpty && properties.map(\.name) != stored.properties.map(\.name) {
            lines.append("- Properties of '\(className)' have been reordered.")
        }
        return lines
    }

    /// Every change from `stored` (the file) to `self` (the classes), in Realm's order: the
    /// stored properties first (removed, changed type, changed optionality, changed index),
    /// then the added ones, then the primary key (core's `Schema::compare`).
    func changes(from stored: ObjectSchema) -> [SchemaChange] {
        var found: [SchemaChange] = []
        for old in stored.properties {
            guard let new = properties.first(where: { $0.name == old.name }) else {
                found.append(.removeProperty(className, old.name))
                continue
            }
            if old.type != new.type || old.objectClassName != new.objectClassName || old.isList != new.isList
                || old.isSet != new.isSet || old.isMap != new.isMap
            {
                found.append(.changeType(className, new.name, from: old.realmTypeName, to: new.realmTypeName))
                continue
            }
            if old.isOptional != new.isOptional {
                found.append(new.isOptional ? .makeOptional(className, new.name) : .makeRequired(className, new.name))
            }
            if old.isIndexed != new.isIndexed {
                found.append(new.isIndexed ? .addIndex(className, new.name) : .removeIndex(className, new.name))
            }
        }
        for new in properties where stored.index(of: new.name) == nil {
            found.append(.addProperty(className, new.name))
        }
        let oldKey = stored.primaryKeyIndex.map { stored.properties[$0].name }
        let newKey = primaryKeyIndex.map { properties[$0].name }
        if oldKey != newKey { found.append(.changePrimaryKey(className, from: oldKey, to: newKey)) }
        return found
    }
}

/// One difference between a class as stored and as declared, with Realm's description
/// (core's `SchemaDifferenceExplainer`).
enum SchemaChange: Hashable, Sendable {
    case addProperty(String, String)
    case removeProperty(String, String)
    case changeType(String, String, from: String, to: String)
    case makeOptional(String, String)
    case makeRequired(String, String)
    case addIndex(String, String)
    case removeIndex(String, String)
    case changePrimaryKey(String, from: String?, to: String?)

    /// Whether only a migration may make the change (Spec X19): index changes need none.
    var needsMigration: Bool {
        switch self {
        case .addIndex, .removeIndex: return false
        default: return true
        }
    }

    /// The change as a line of Realm's "Migration is required" message.
    var line: String {
        switch self {
        case .addProperty(let type, let name): return "- Property '\(type).\(name)' has been added."
        case .removeProperty(let type, let name): return "- Property '\(type).\(name)' has been removed."
        case .changeType(let type, let name, let from, let to):
            return "- Property '\(type).\(name)' has been changed from '\(from)' to '\(to)'."
        case .makeOptional(let type, let name): return "- Property '\(type).\(name)' has been made optional."
        case .makeRequired(let type, let name): return "- Property '\(type).\(name)' has been made required."
        case .addIndex(let type, let name): return "- Property '\(type).\(name)' has been made indexed."
        case .removeIndex(let type, let name): return "- Property '\(type).\(name)' has been made unindexed."
        case .changePrimaryKey(let type, let from, let to):
            switch (from, to) {
            case (let from?, let to?): return "- Primary Key for class '\(type)' has changed from '\(from)' to '\(to)'."
            case (nil, _?): return "- Primary Key for class '\(type)' has been added."
            default: return "- Primary Key for class '\(type)' has been removed."
            }
        }
    }
}

/// What Strata knows of an `Object` subclass: its schema, how its `@Persisted` wrappers'
/// ordinals (see `Persisted`) map to columns, and where each wrapper lies in an instance.
final class ClassInfo: @unchecked Sendable {
    /// The class a link or List property of this class reaches; nil for any other property
    /// (and for a target the class's declared links do not name).
    func linkTarget(of property: PropertySchema) -> ClassInfo? {
        guard property.type == .object else { return nil }
        return linkTargets.lazy.map(ClassInfo.of).first { $0.className == property.objectClassName }
    }

    let type: Object.Type
    let schema: ObjectSchema
    /// Whether any property holds links (adding an object then adds its targets).
    let hasLinks: Bool
    /// The classes the links point to.
    let linkTargets: [Object.Type]
    /// Per column, the stored initial value when it is the type's default (nil where the class
    /// gives an expression, which only a fresh instance can evaluate).
    let typeDefaults: [StrataStorage.Value?]
    /// Per column, the wrapper's byte offset in an instance and its type (`Persisted<V>`):
    /// dynamic access (`setValue(_:forKey:)` on an unmanaged object, `init(value:)`) reads and
    /// writes the wrapper in place, as a key path would. Immutable after init (hence Sendable).
    let wrappers: [(offset: Int, type: any PersistedProperty.Type)]
    /// The column of each wrapper, by its ordinal within the object.
    private let columnOfOrdinal: [Int]
    /// Per column, whether it holds links (a to-one link or a List of them), and whether it
    /// holds a List: what `add` asks per column, without copying the property's schema.
    let columnIsLink: [Bool]
    let columnIsList: [Bool]
    /// Whether any column holds links or a List: what `add` does after storing the row.
    let hasLinksOrLists: Bool
    /// Per column, how `add` reads the unmanaged value into the row.
    let unmanagedEncoders: [UnmanagedEncoder]
    /// Whether an instance holds nothing but its `@Persisted` wrappers (and `Object`'s own
    /// fields): then an iteration may move an object nobody else holds to the next element
    /// (`ResultsIterator`), for no state of the user's class is carried along.
    let isRecyclable: Bool
    /// Whether the primary key is an integer property (optional or not): lookups by an `Int`
    /// take a path with no dynamic cast.
    let hasIntPrimaryKey: Bool
    /// The LinkingObjects properties (Spec V26): computed from the origin class's links, with
    /// no column.
    let linkingObjects: [LinkingObjectsProperty]

    /// A LinkingObjects property: its name, and the origin class and property it reads.
    struct LinkingObjectsProperty {
        let name: String
        let originType: Object.Type
        let originProperty: String
    }

    init(
        type: Object.Type, schema: ObjectSchema, linkTargets: [Object.Type], typeDefaults: [StrataStorage.Value?],
        wrappers: [(offset: Int, type: any PersistedProperty.Type)], columnOfOrdinal: [Int],
        linkingObjects: [LinkingObjectsProperty] = []
    ) {
        self.type = type
        self.linkingObjects = linkingObjects
        self.schema = schema
        self.linkTargets = linkTargets
        self.typeDefaults = typeDefaults
        self.wrappers = wrappers
        self.columnOfOrdinal = columnOfOrdinal
        hasLinks = schema.properties.contains { $0.isLink }
        hasIntPrimaryKey =
            schema.primaryKeyIndex.map { schema.properties[$0].type == .int && !schema.properties[$0].isList } ?? false
        // LinkingObjects wrappers count among the wrappers: they hold only their declaration,
        // the same in every instance of the class.
        isRecyclable =
            Self.storedFieldCount(of: type) - Self.storedFieldCount(of: Object.self)
            == wrappers.count + linkingObjects.count
        columnIsLink = schema.properties.map(\.isLink)
        columnIsList = schema.properties.map(\.isList)
        hasLinksOrLists = hasLinks || schema.properties.contains { $0.isList }
        unmanagedEncoders = zip(wrappers, schema.properties).map { wrapper, property in
            UnmanagedEncoder(
                offset: wrapper.offset, type: wrapper.type, isLink: property.isLink, isList: property.isList)
        }
    }

    /// Runs `body` with the address of `object`'s storage (an instance of `type`), where
    /// `wrappers` gives each wrapper's offset.
    func withStorage<R>(of object: Object, _ body: (UnsafeMutableRawPointer) throws(Realm.Error) -> R)
        throws(Realm.Error) -> R
    {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return try withExtendedLifetime(object) { () throws(Realm.Error) -> R in try body(base) }
    }

    var className: String { schema.className }

    /// The column of the wrapper with `ordinal` in an object whose first wrapper has ordinal
    /// `base` (0 unless the object was created inside another object's initializer).
    @inline(__always)
    func column(ofOrdinal ordinal: Int, base: Int) -> Int {
        let index = ordinal - base
        precondition(
            index >= 0 && index < columnOfOrdinal.count,
            "'\(className)': a @Persisted wrapper outside the class's schema")
        return columnOfOrdinal[index]
    }

    /// Runs `body` with the wrapper of `column` in `object` (an instance of `type`).
    func withWrapper<R>(
        of object: Object, column: Int,
        _ body: (any PersistedProperty.Type, UnsafeMutableRawPointer) throws(Realm.Error) -> R
    )
        throws(Realm.Error) -> R
    {
        let (offset, wrapperType) = wrappers[column]
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        return try withExtendedLifetime(object) { () throws(Realm.Error) -> R in
            try body(wrapperType, base.advanced(by: offset))
        }
    }

    private static let known = Lock<[ObjectIdentifier: ClassInfo]>([:])

    /// The class's info, discovered on first use (Mirror over a fresh instance).
    static func of(_ type: Object.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        if let info = known.withLock({ $0[id] }) { return info }
        let info = discover(type)
        return known.withLock { known in
            if let existing = known[id] { return existing }
            known[id] = info
            return info
        }
    }

    /// How many `@Persisted` wrappers an instance of `object`'s class has: from the class's
    /// info when known, else counted on `object` (the first instance of the class).
    static func wrapperCount(of object: Object) -> Int {
        let id = ObjectIdentifier(Swift.type(of: object))
        if let info = known.withLock({ $0[id] }) { return info.schema.properties.count }
        var count = 0
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            // LinkingObjects wrappers take no ordinal: they are not counted.
            count += current.children.count {
                guard let persisted = $0.value as? any PersistedProperty else { return false }
                return persisted.linkingOrigin == nil
            }
            mirror = current.superclassMirror
        }
        return count
    }

    /// Lists every `@Persisted` property of `type` (superclasses included) with its ordinal.
    /// Traps when the class cannot be stored: a programmer error Realm Swift reports the same
    /// way, at first use of the class.
    private static func discover(_ type: Object.Type) -> ClassInfo {
        let sample = type.init()
        var found: [(level: Int, ordinal: Int, property: PropertySchema, typeDefault: StrataStorage.Value?)] = []
        var linkTargets: [Object.Type] = []
        var linkingObjects: [LinkingObjectsProperty] = []
        var mirror: Mirror? = Mirror(reflecting: sample)
        var level = 0
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, let persisted = child.value as? any PersistedProperty else { continue }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                if let origin = persisted.linkingOrigin {
                    precondition(
                        persisted.ordinal < 0 && !origin.property.isEmpty,
                        "'\(ObjectSchema.className(of: type)).\(name)': a LinkingObjects property is declared "
                            + "@Persisted(originProperty:)")
                    linkingObjects.append(
                        LinkingObjectsProperty(name: name, originType: origin.type, originProperty: origin.property))
                    continue
                }
                let typeDefault = persisted.hasTypeDefault ? try? persisted.encodeUnmanaged(realm: nil) : nil
                found.append((level, persisted.ordinal, persisted.schema(named: name), typeDefault))
                if let target = persisted.linkTargetType { linkTargets.append(target) }
            }
            mirror = current.superclassMirror
            level += 1
        }
        let className = ObjectSchema.className(of: type)
        let base = sample._ordinalBase
        precondition(
            found.map(\.ordinal).sorted() == Array(base..<(base + found.count)),
            "'\(className)': @Persisted wrappers must be initialized once each, in order")
        // Columns as Realm orders properties: the base class's first, each class's in
        // declaration order (initialization order, in which Swift initializes the most derived
        // class's properties first).
        found.sort { $0.level != $1.level ? $0.level > $1.level : $0.ordinal < $1.ordinal }
        var columnOfOrdinal = [Int](repeating: 0, count: found.count)
        for (column, entry) in found.enumerated() { columnOfOrdinal[entry.ordinal - base] = column }
        let properties = found.map(\.property)
        let primaryKeys = properties.filter(\.isPrimaryKey)
        precondition(primaryKeys.count <= 1, "'\(className)' declares more than one primary key")
        if let key = primaryKeys.first {
            precondition(
                !key.isList && [.int, .string, .uuid].contains(key.type),
                "'\(className).\(key.name)': a primary key must be an integer, a String or a UUID")
        }
        let schema = ObjectSchema(className: className, properties: properties)
        return ClassInfo(
            type: type, schema: schema, linkTargets: linkTargets, typeDefaults: found.map(\.typeDefault),
            wrappers: wrapperLayout(of: type, schema: schema), columnOfOrdinal: columnOfOrdinal,
            linkingObjects: linkingObjects)
    }

    /// The stored fields of an instance of `type`, its superclasses' included.
    private static func storedFieldCount(of type: AnyClass) -> Int {
        var count = 0
        // `_EachFieldOptions.classType` (rawValue 1): the fields of a class instance.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { _, _, _, _ in
            count += 1
            return true
        }
        return count
    }

    /// Each column's wrapper offset and type, from the runtime's field records (the storage of
    /// a property wrapper `name` is the field `_name`; superclasses' fields are included).
    private static func wrapperLayout(
        of type: Object.Type,
        schema: ObjectSchema
    ) -> [(offset: Int, type: any PersistedProperty.Type)] {
        var layout = [(offset: Int, type: any PersistedProperty.Type)?](repeating: nil, count: schema.properties.count)
        // `_EachFieldOptions.classType` (rawValue 1): the fields of a class instance.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            let label = String(cString: name)
            guard label.hasPrefix("_"), let wrapperType = fieldType as? any PersistedProperty.Type,
                let column = schema.index(of: String(label.dropFirst()))
            else { return true }
            layout[column] = (offset, wrapperType)
            return true
        }
        return layout.enumerated().map { column, entry in
            guard let entry else {
                preconditionFailure("'\(schema.className).\(schema.properties[column].name)': no stored wrapper found")
            }
            return entry
        }
    }
}
