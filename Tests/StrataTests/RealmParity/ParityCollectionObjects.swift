import Foundation
import Strata
import Testing

// Fixtures of the Realm parity suite for collections (RealmCollectionTypeTests.swift in this
// folder): our versions of the `CTT*` test objects of RealmSwift's RealmCollectionTypeTests.swift,
// prefixed `PC` (parity collections) to keep clear of the other fixtures of the StrataTests
// target. Left out: the MutableSet properties and classes (`stringSetCol`, `CTTAggregateObjectSet`,
// `CTTStringSet`), which the MutableSet suites cover.

/// The namespace of the suite: test IDs read `StrataTests.RealmParityCollections.RealmCollectionTypeTests/...`,
/// so `swift test --filter RealmParityCollections` selects them.
enum RealmParityCollections {}

/// Numbers, a date, two booleans, a list, and links (Realm declares every integer column `Int`).
final class PCAggregateObject: Object {
    @Persisted var intCol = 0
    @Persisted var int8Col = 0
    @Persisted var int16Col = 0
    @Persisted var int32Col = 0
    @Persisted var int64Col = 0
    @Persisted var floatCol = 0 as Float
    @Persisted var doubleCol = 0.0
    @Persisted var boolCol = false
    @Persisted var dateCol = Date()
    @Persisted var trueCol = true
    @Persisted var stringListCol: List<PCNullableStringObjectWithLink>
    @Persisted var linkCol: PCLinkTarget?
    @Persisted var childIntCol: PCIntegerObject?
}

final class PCIntegerObject: Object {
    @Persisted var intCol = 0
}

final class PCAggregateObjectList: Object {
    @Persisted var list: List<PCAggregateObject>
}

/// The element of the tested collections: an optional string and a link.
final class PCNullableStringObjectWithLink: Object {
    @Persisted var stringCol: String? = ""
    @Persisted var linkCol: PCLinkTarget?
}

final class PCLinkTarget: Object {
    @Persisted var id = 0
    @Persisted(originProperty: "linkCol") var stringObjects: LinkingObjects<PCNullableStringObjectWithLink>
    @Persisted(originProperty: "linkCol") var aggregateObjects: LinkingObjects<PCAggregateObject>
}

/// The owner of the tested Lists.
final class PCStringList: Object {
    @Persisted var array: List<PCNullableStringObjectWithLink>
}

/// Every class of the suite (Realm's `Config.config` lists its classes the same way).
let parityCollectionTypes: [Object.Type] = [
    PCAggregateObject.self, PCIntegerObject.self, PCAggregateObjectList.self,
    PCNullableStringObjectWithLink.self, PCLinkTarget.self, PCStringList.self,
]

/// The subclasses of Realm's `RealmCollectionTests` for the collections Strata has: how the tested
/// collection of two objects ("1" and "2", both linking to one target of id 1) is made.
/// `MutableSet*` are in the MutableSet suites; `AnyRealmCollectionTests`' members are checked in `AnyRealmCollectionTests.swift`.
enum PCVariant: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `ResultsFromTableTests`: every object of the class.
    case resultsFromTable = "ResultsFromTableTests"
    /// `ResultsFromTableViewTests`: a query of the class (`stringCol != ''`).
    case resultsFromTableView = "ResultsFromTableViewTests"
    /// `ResultsFromLinkViewTests`: a List filtered by a predicate every object matches.
    case resultsFromLinkView = "ResultsFromLinkViewTests"
    /// `ListUnmanagedRealmCollectionTests`: the List of an unmanaged owner.
    case listUnmanaged = "ListUnmanagedRealmCollectionTests"
    /// `ListNewlyAddedRealmCollectionTests`: the List of an owner added to the realm.
    case listNewlyAdded = "ListNewlyAddedRealmCollectionTests"
    /// `ListNewlyCreatedRealmCollectionTests`: the List of an owner made by `create`.
    case listNewlyCreated = "ListNewlyCreatedRealmCollectionTests"
    /// `ListRetrievedRealmCollectionTests`: the List of an owner created, then read back.
    case listRetrieved = "ListRetrievedRealmCollectionTests"
    /// `LinkingObjectsCollectionTypeTests`: the backlinks of the target both objects link to.
    case linkingObjects = "LinkingObjectsCollectionTypeTests"

    var testDescription: String { rawValue }

    var isResults: Bool { [.resultsFromTable, .resultsFromTableView, .resultsFromLinkView].contains(self) }
    var isUnmanaged: Bool { self == .listUnmanaged }

    static let results: [PCVariant] = [.resultsFromTable, .resultsFromTableView, .resultsFromLinkView]
    static let managed: [PCVariant] = allCases.filter { !$0.isUnmanaged }
}

/// What Realm's generic tests ask of their collection, for the two concrete Strata types that
/// have it. Test-only: it names the members of `Results` and `List` the tests call, so that each
/// test body is written once, as Realm's generic class is; every call reaches the concrete type's
/// own member.
protocol PCCollection: ThreadConfined, SendableMetatype, RandomAccessCollection, CustomStringConvertible
where Element == PCNullableStringObjectWithLink, Index == Int {
    /// Realm's `getCollection(_:)`, in a write of `realm` that added `str1` and `str2`.
    static func pcMake(
        _ variant: PCVariant, realm: Realm, str1: PCNullableStringObjectWithLink,
        str2: PCNullableStringObjectWithLink
    ) throws -> Self
    /// The type's name in its description.
    static var pcTypeName: String { get }

    func pcIndex(of object: Element) -> Int?
    func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element>
    func filter(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element>
    func _element(at index: Int) throws(Realm.Error) -> Element
    func freeze() -> Self
    func _freeze() throws(Realm.Error) -> Self
    func thaw() -> Self?
    func observe(keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<Self>) -> Void) -> NotificationToken
    func _observe(keyPaths: [String]?, _ block: @escaping (RealmCollectionChange<Self>) -> Void)
        throws(Realm.Error) -> NotificationToken
    func observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<Self>) -> Void
    ) -> NotificationToken
    func _observe(
        keyPaths: [String]?, on queue: DispatchQueue,
        _ block: @escaping @Sendable (RealmCollectionChange<Self>) -> Void
    )
        throws(Realm.Error) -> NotificationToken
    /// `observe(keyPaths:on:_:)` with an actor, called from a nonisolated context.
    func pcObserve<A: Actor>(
        keyPaths: [String]?, on actor: A,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Self>) -> Void
    )
        async -> NotificationToken
}

extension Results: PCCollection where Element == PCNullableStringObjectWithLink {
    static func pcMake(
        _ variant: PCVariant, realm: Realm, str1: PCNullableStringObjectWithLink,
        str2: PCNullableStringObjectWithLink
    ) throws -> Results<Element> {
        switch variant {
        case .resultsFromTable:
            return realm.objects(PCNullableStringObjectWithLink.self)
        case .resultsFromTableView:
            return realm.objects(PCNullableStringObjectWithLink.self).where { $0.stringCol != "" }
        case .resultsFromLinkView:
            let array = realm.create(PCStringList.self, value: [[str1, str2]])
            return array.array.where(matchingEverything)
        default:
            throw Absent(description: "\(variant) makes a List")
        }
    }

    static var pcTypeName: String { "Results" }

    func pcIndex(of object: Element) -> Int? { index(of: object) }

    func pcObserve<A: Actor>(
        keyPaths: [String]?, on actor: A,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<Results<Element>>) -> Void
    )
        async -> NotificationToken
    {
        await observe(keyPaths: keyPaths, on: actor, block)
    }
}

extension List: PCCollection where Element == PCNullableStringObjectWithLink {
    static func pcMake(
        _ variant: PCVariant, realm: Realm, str1: PCNullableStringObjectWithLink,
        str2: PCNullableStringObjectWithLink
    ) throws -> List<Element> {
        switch variant {
        case .listUnmanaged:
            return PCStringList(value: [[str1, str2]]).array
        case .listNewlyAdded:
            let array = PCStringList(value: [[str1, str2]])
            realm.add(array)
            return array.array
        case .listNewlyCreated:
            return realm.create(PCStringList.self, value: [[str1, str2]]).array
        case .listRetrieved:
            realm.create(PCStringList.self, value: [[str1, str2]])
            return try required(realm.objects(PCStringList.self).first, "the created PCStringList").array
        default:
            throw Absent(description: "\(variant) makes Results")
        }
    }

    static var pcTypeName: String { "List" }

    func pcIndex(of object: Element) -> Int? { index(of: object) }

    func pcObserve<A: Actor>(
        keyPaths: [String]?, on actor: A,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<List<Element>>) -> Void
    )
        async -> NotificationToken
    {
        await observe(keyPaths: keyPaths, on: actor, block)
    }
}

extension LinkingObjects: PCCollection where Element == PCNullableStringObjectWithLink {
    /// `LinkingObjectsCollectionTypeTests.getCollection`: the target both objects link to, its
    /// LinkingObjects through `linkCol`.
    static func pcMake(
        _ variant: PCVariant, realm: Realm, str1: PCNullableStringObjectWithLink,
        str2: PCNullableStringObjectWithLink
    ) throws -> LinkingObjects<Element> {
        guard variant == .linkingObjects else { throw Absent(description: "\(variant) makes no LinkingObjects") }
        return try required(str1.linkCol, "str1's link target").stringObjects
    }

    static var pcTypeName: String { "LinkingObjects" }

    func pcIndex(of object: Element) -> Int? { index(of: object) }

    func pcObserve<A: Actor>(
        keyPaths: [String]?, on actor: A,
        _ block: @escaping @Sendable (isolated A, RealmCollectionChange<LinkingObjects<Element>>) -> Void
    )
        async -> NotificationToken
    {
        await observe(keyPaths: keyPaths, on: actor, block)
    }
}

/// A realm of a new file holding one `PCAggregateObjectList` whose List holds four objects,
/// intCol 3, 1, 2, 1 and doubleCol half of it, in that order.
func aggregateList(_ name: String) throws -> (Realm, PCAggregateObjectList) {
    let realm = try Realm(
        configuration: Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent(name), objectTypes: parityCollectionTypes))
    let owner = PCAggregateObjectList()
    try realm.write {
        for value in [3, 1, 2, 1] {
            let object = PCAggregateObject()
            object.intCol = value
            object.doubleCol = Double(value) / 2
            owner.list.append(object)
        }
        realm.add(owner)
    }
    return (realm, owner)
}

/// A predicate every element matches: Realm's `NSPredicate(value: true)` of `ResultsFromLinkViewTests`.
func matchingEverything(_ object: Query<PCNullableStringObjectWithLink>) -> Query<Bool> {
    object.stringCol == nil || object.stringCol != nil
}

/// The same for `PCAggregateObject`.
func matchingEveryAggregate(_ object: Query<PCAggregateObject>) -> Query<Bool> {
    object.intCol == 0 || object.intCol != 0
}

/// The state of one Realm `RealmCollectionTests` test after its `setUp`: a realm of a new file
/// holding `str1` ("1") and `str2` ("2"), both linking to one `PCLinkTarget` of id 1, and the
/// tested collection, all made on the calling thread.
final class PCCase<C: PCCollection> {
    let variant: PCVariant
    let configuration: Realm.Configuration
    let realm: Realm
    let str1: PCNullableStringObjectWithLink
    let str2: PCNullableStringObjectWithLink
    let collection: C

    init(_ variant: PCVariant) throws {
        self.variant = variant
        configuration = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("collection.realm"),
            objectTypes: parityCollectionTypes)
        let realm = try Realm(configuration: configuration)
        let target1 = PCLinkTarget()
        target1.id = 1
        let str1 = PCNullableStringObjectWithLink()
        str1.stringCol = "1"
        str1.linkCol = target1
        let str2 = PCNullableStringObjectWithLink()
        str2.stringCol = "2"
        str2.linkCol = target1
        collection = try realm.write { () throws -> C in
            realm.add(str1)
            realm.add(str2)
            realm.add(target1)
            return try C.pcMake(variant, realm: realm, str1: str1, str2: str2)
        }
        self.realm = realm
        self.str1 = str1
        self.str2 = str2
    }

    /// Realm's `getCollection(_:)` again, in a write the caller opened.
    func makeCollection() throws -> C {
        try C.pcMake(variant, realm: realm, str1: str1, str2: str2)
    }

    /// Realm's `makeAggregateableObjectsInWriteTransaction()`: three objects (1, 2, 3) added.
    @discardableResult
    func makeAggregateableObjectsInWriteTransaction() -> [PCAggregateObject] {
        let values: [(Int, Float, Double, TimeInterval)] = [(1, 1.1, 1.11, 1), (2, 2.2, 2.22, 2), (3, 2.2, 2.22, 2)]
        let objects = values.map { int, float, double, seconds in
            let object = PCAggregateObject()
            object.intCol = int
            object.int8Col = int
            object.int16Col = int
            object.int32Col = int
            object.int64Col = int
            object.floatCol = float
            object.doubleCol = double
            object.dateCol = Date(timeIntervalSince1970: seconds)
            object.boolCol = false
            return object
        }
        realm.add(objects)
        return objects
    }

    /// Realm's `getAggregateableCollection()` of the Results variants, in its own write.
    func aggregateableResults() throws -> Results<PCAggregateObject> {
        try realm.write { () throws -> Results<PCAggregateObject> in
            switch variant {
            case .resultsFromTable:
                makeAggregateableObjectsInWriteTransaction()
                return realm.objects(PCAggregateObject.self)
            case .resultsFromTableView:
                makeAggregateableObjectsInWriteTransaction()
                return realm.objects(PCAggregateObject.self).where { $0.trueCol == true }
            case .resultsFromLinkView:
                let list = PCAggregateObjectList()
                realm.add(list)
                list.list.append(objectsIn: makeAggregateableObjectsInWriteTransaction())
                return list.list.where(matchingEveryAggregate)
            default:
                throw Absent(description: "\(variant) has no aggregateable Results")
            }
        }
    }

    /// `ResultsTests.addObjectToResults()`: one more object in the collection, committed.
    func addObjectToResults() throws {
        try realm.write {
            let created = realm.create(PCNullableStringObjectWithLink.self, value: ["a"])
            if variant == .resultsFromLinkView {
                try required(realm.objects(PCStringList.self).last, "the PCStringList").array.append(created)
            }
        }
    }
}

extension PCVariant {
    /// Runs one test body on a case of this variant made on the calling thread: `results` for a
    /// Results variant, `list` for a List variant.
    func run<R>(
        _ results: (PCCase<Results<PCNullableStringObjectWithLink>>) throws -> R,
        _ list: (PCCase<List<PCNullableStringObjectWithLink>>) throws -> R,
        _ linking: (PCCase<LinkingObjects<PCNullableStringObjectWithLink>>) throws -> R
    ) throws -> R {
        if isResults { return try results(PCCase(self)) }
        if self == .linkingObjects { return try linking(PCCase(self)) }
        return try list(PCCase(self))
    }

    /// The same for an async body. The case is made before the body's first suspension, on the
    /// thread that calls this.
    func runAsync<R>(
        _ results: (PCCase<Results<PCNullableStringObjectWithLink>>) async throws -> R,
        _ list: (PCCase<List<PCNullableStringObjectWithLink>>) async throws -> R,
        _ linking: (PCCase<LinkingObjects<PCNullableStringObjectWithLink>>) async throws -> R
    ) async throws -> R {
        if isResults { return try await results(PCCase(self)) }
        if self == .linkingObjects { return try await linking(PCCase(self)) }
        return try await list(PCCase(self))
    }

    /// Runs a body that only Results variants have.
    func runResults<R>(_ body: (PCCase<Results<PCNullableStringObjectWithLink>>) throws -> R) throws -> R {
        try body(PCCase(self))
    }
}

/// What one collection observer received, as text: "initial 2", "update 0 d[0, 1] i[] m[]".
final class PCChangeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    var entries: [String] { lock.withLock { stored } }

    func record<T: Collection>(_ change: RealmCollectionChange<T>, note: (T) -> String = { _ in "" }) {
        let text: String
        switch change {
        case .initial(let collection):
            text = "initial \(collection.count)" + note(collection)
        case .update(let collection, let deletions, let insertions, let modifications):
            text = "update \(collection.count) d\(deletions) i\(insertions) m\(modifications)" + note(collection)
        case .error(let error):
            text = "error \(error)"
        }
        lock.withLock { stored.append(text) }
    }
}

/// Three values of each primitive type that needs a table, ascending, as the primitive
/// collection suites (PrimitiveMutableSetTests, PrimitiveMapTests) use them.
enum ParityPrimitiveValues {
    static let uuids = [
        "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002",
        "00000000-0000-0000-0000-000000000003",
    ].compactMap(UUID.init(uuidString:))
    static let dates = [1, 2, 3].map { Date(timeIntervalSince1970: TimeInterval($0)) }
    static let datas = ["a", "b", "c"].map { Data($0.utf8) }
}
