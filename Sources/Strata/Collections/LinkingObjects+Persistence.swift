import StrataStorage

/// What `@Persisted(originProperty:)` asks of its value: a LinkingObjects. Not API.
public protocol _LinkingObjectsValue: _Persistable {
    /// The value a declaration makes: the backlinks through `originProperty`, unmanaged.
    static func _declared(originProperty: String) -> Self
    /// The origin class.
    var _originType: Object.Type { get }
    /// The origin class's property whose links these are.
    var _originProperty: String { get }
}

extension LinkingObjects: _LinkingObjectsValue {
    public static func _declared(originProperty: String) -> LinkingObjects<Element> {
        LinkingObjects(fromType: Element.self, property: originProperty)
    }

    public var _originType: Object.Type { Element.self }
    public var _originProperty: String { propertyName }

    // A LinkingObjects property has no column (`ClassInfo` leaves it out of the schema), so
    // nothing stores, loads or converts it: these answer only the protocol.

    public static var _strataKind: _PropertyKind { _PropertyKind(.object, isList: true, objectType: Element.self) }

    public static func _strataDefault() -> LinkingObjects<Element> {
        LinkingObjects(fromType: Element.self, property: "")
    }

    public static func _strataDecode(_ value: StrataStorage.Value, realm: Realm?) throws(Realm.Error)
        -> LinkingObjects<Element>
    {
        throw Realm.Error.computedPropertySet
    }

    public func _strataEncode(realm: Realm?) throws(Realm.Error) -> StrataStorage.Value {
        throw Realm.Error.computedPropertySet
    }

    public static func _strataUnmanaged(_ any: Any?, _ path: _PropertyPath) throws(Realm.Error)
        -> LinkingObjects<Element>
    {
        throw Realm.Error.computedPropertySet
    }

    public static var _strataIsComputed: Bool { true }

    /// The live backlinks of the object `accessor` reads (Spec V26), after the checks of a
    /// property read (Spec C5, V13, W12: a deleted object's property cannot be read).
    public static func _strataComputed(_ accessor: _ObjectAccessor, declared: LinkingObjects<Element>)
        -> LinkingObjects<Element>
    {
        trapping { () throws(Realm.Error) -> LinkingObjects<Element> in
            try managed(of: accessor, through: declared.propertyName)
        }
    }

    /// The LinkingObjects of the object `accessor` reads through `Element`'s `propertyName`.
    static func managed(of accessor: _ObjectAccessor, through propertyName: String) throws(Realm.Error)
        -> LinkingObjects<Element>
    {
        if try accessor.isInvalidated() { throw Realm.Error.objectInvalidated }
        let core = accessor.core
        let origin = try core.classInfo(Element.self)
        let column = try origin.originColumn(
            propertyName, linkingTo: accessor.info.className,
            from: accessor.info.linkingPropertyName(origin: origin.className, property: propertyName))
        let binding = BacklinkBinding(target: accessor, originColumn: column, propertyName: propertyName)
        return LinkingObjects(
            propertyName: propertyName, results: Results(core: core, info: origin, source: .backlinks(binding)))
    }
}

extension Object {
    /// The value of a LinkingObjects property of `target` whose origin is this class's
    /// `property`, as the property's getter gives it (`value(forKey:)`, Spec V26).
    static func linkingObjects(of target: Object, through property: String) throws(Realm.Error) -> Any {
        guard let accessor = target._accessor else {
            return LinkingObjects<Self>(fromType: Self.self, property: property)
        }
        return try LinkingObjects<Self>.managed(of: accessor, through: property)
    }
}

extension ClassInfo {
    /// The column of the origin property `name` of this class (the origin of a LinkingObjects
    /// property `linkingProperty` of `targetClass`), checked as realm-core's
    /// `ObjectSchema::validate` checks it, in its words.
    func originColumn(_ name: String, linkingTo targetClass: String, from linkingProperty: String)
        throws(Realm.Error) -> Int
    {
        let prefix =
            "Property '\(className).\(name)' declared as origin of linking objects property "
            + "'\(targetClass).\(linkingProperty)'"
        guard let column = schema.index(of: name) else {
            throw Realm.Error.schemaValidation(prefix + " does not exist")
        }
        let property = schema.properties[column]
        guard property.isLink else { throw Realm.Error.schemaValidation(prefix + " is not a link") }
        guard property.objectClassName == targetClass else {
            throw Realm.Error.schemaValidation(prefix + " links to type '\(property.objectClassName ?? "")'")
        }
        return column
    }

    /// The name of this class's LinkingObjects property whose origin is `origin`.`property`.
    func linkingPropertyName(origin: String, property: String) -> String {
        linkingObjects.first { ObjectSchema.className(of: $0.originType) == origin && $0.originProperty == property }?
            .name ?? property
    }

    /// Realm's schema validation of every LinkingObjects property of the class, against the
    /// origin classes `classes` names (at open: an origin that does not link here fails it).
    func validateLinkingObjects(_ classes: (Object.Type) -> ClassInfo) throws(Realm.Error) {
        for linking in linkingObjects {
            _ = try classes(linking.originType).originColumn(
                linking.originProperty, linkingTo: className, from: linking.name)
        }
    }
}
