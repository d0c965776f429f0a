import Foundation
import Strata
import Testing

// Realm's exact words for misuse (Spec/misuse.md): each test is named after the Realm test that
// checks the behaviour (and its message, where Realm's test asserts one), and compares the whole
// message, not a fragment. The throwing `package` twins are what the public API traps
// with (or throws, where RealmSwift's signature throws).
@Suite struct MisuseMessageTests {
    /// The rejection is `code` with exactly `message`.
    static func expectMessage(
        _ error: Realm.Error?, _ message: String, code: Realm.Error.Code = .programmerError,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message == message, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    static let wrongThread = "Realm accessed from incorrect thread."
    static let objectOutsideWrite =
        "Attempting to modify object outside of a write transaction - call "
        + "beginWriteTransaction on an RLMRealm instance first."
    static let realmOutsideWrite =
        "Can only add, remove, or create objects in a Realm in a write transaction - call "
        + "beginWriteTransaction on an RLMRealm instance first."
    static let listOutsideWrite = "Cannot modify List outside of a write transaction."
    static let listInvalid =
        "List is no longer valid. Either the parent object was deleted or the containing Realm "
        + "has been invalidated or closed."
    static let deleted = "Object has been deleted or invalidated."

    // MARK: confinement (C)

    // ObjectTests.testCrossThreadAccess: objects, Lists, Results and the realm on another thread.
    @Test("Spec C5, C6, C8") func testCrossThreadAccess() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let boxes = Unchecked((realm, holder, holder.intArray, realm.objects(IntObj.self)))
        let errors = try onOtherThread { () -> [Realm.Error?] in
            let (realm, holder, list, results) = boxes.value
            return [
                rejection { _ = try holder._value(forKey: "intArray") },
                rejection { _ = try list._count() },
                rejection { _ = try results._count() },
                rejection { _ = try realm._refresh() },
                rejection { try realm._beginWrite() },
            ]
        }
        #expect(errors.count == 5)
        for error in errors { Self.expectMessage(error, Self.wrongThread) }
    }

    // MARK: writes (W)

    // objc TransactionTests.testRealmModifyObjectsOutsideOfWriteTransaction: each mutation in
    // Realm's words for what it changes.
    @Test("Spec W9") func testRealmModifyObjectsOutsideOfWriteTransaction() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        Self.expectMessage(rejection { try object._setValue(2, forKey: "intCol") }, Self.objectOutsideWrite)
        Self.expectMessage(rejection { try realm._add(IntObj()) }, Self.realmOutsideWrite)
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: ["intCol": 3], update: .error) },
            Self.realmOutsideWrite)
        Self.expectMessage(rejection { try realm._delete(object) }, Self.realmOutsideWrite)
        Self.expectMessage(rejection { try realm._deleteAll() }, Self.realmOutsideWrite)
        Self.expectMessage(
            rejection { try realm._delete(realm.objects(IntObj.self)) },
            "Cannot modify Results outside of a write transaction.")
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // objc ArrayPropertyTests.testMutatingMethodsCheckForWriteTransaction: a List outside a
    // write, a frozen List (never in a write), and `delete(list)`.
    @Test("Spec W9, F12") func testMutatingMethodsCheckForWriteTransaction() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let element = try required(holder.intArray.first, "the element")
        Self.expectMessage(rejection { try holder.intArray._append(element) }, Self.listOutsideWrite)
        Self.expectMessage(rejection { try holder.intArray._remove(at: 0) }, Self.listOutsideWrite)
        Self.expectMessage(rejection { try holder.intArray._removeAll() }, Self.listOutsideWrite)
        Self.expectMessage(rejection { try realm._delete(holder.intArray) }, Self.listOutsideWrite)
        let frozen = try holder.intArray._freeze()
        try realm._beginWrite()
        Self.expectMessage(rejection { try frozen._append(element) }, Self.listOutsideWrite)
        try realm._cancelWrite()
        #expect(holder.intArray.count == 1)
    }

    // ListTests.testInvalidated: a List whose owner was deleted, or whose realm was invalidated.
    @Test("Spec V13, W12") func testInvalidated() throws {
        let realm = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: realm)
        let list = holder.intArray
        try realm.write { realm.delete(holder) }
        Self.expectMessage(rejection { _ = try list._count() }, Self.listInvalid)
        try realm._beginWrite()
        Self.expectMessage(rejection { try list._append(IntObj()) }, Self.listInvalid)
        try realm._cancelWrite()
        let other = try addHolderWithOneInt(to: realm)
        let results = realm.objects(IntObj.self)
        try realm._invalidate()
        Self.expectMessage(rejection { _ = try other.intArray._count() }, Self.listInvalid)
        Self.expectMessage(rejection { _ = try results._count() }, "Access to invalidated Results objects")
        Self.expectMessage(rejection { _ = try other._value(forKey: "intArray") }, Self.deleted)
    }

    // objc RealmTests.testDeleteObjects: Results and Lists of another realm in Realm's plural
    // words; an unmanaged List is deleted element by element.
    @Test("Spec W11") func testDeleteObjects() throws {
        let a = try Realm(configuration: testConfiguration())
        let b = try Realm(configuration: testConfiguration())
        let holder = try addHolderWithOneInt(to: a)
        try b._beginWrite()
        let plural = "Can only delete objects from the Realm they belong to."
        Self.expectMessage(rejection { try b._delete(a.objects(IntObj.self)) }, plural)
        Self.expectMessage(rejection { try b._delete(holder.intArray) }, plural)
        Self.expectMessage(
            rejection { try b._delete(Array(a.objects(IntObj.self))) },
            "Can only delete an object from the Realm it belongs to.")
        let unmanaged = List<IntObj>()
        unmanaged.append(IntObj())
        Self.expectMessage(
            rejection { try b._delete(unmanaged) }, "Can only delete an object from the Realm it belongs to.")
        try b._cancelWrite()
        // An unmanaged List holding a's object: a deletes that object.
        let managedElements = List<IntObj>()
        managedElements.append(try required(holder.intArray.first, "the element"))
        try a.write { try a._delete(managedElements) }
        #expect(a.objects(IntObj.self).count == 0)
        #expect(holder.intArray.count == 0)
        try a.write { try a._delete(List<IntObj>()) }  // nothing to delete, nothing checked
    }

    // ObjectCreationTests.testAddToDifferentRealmThrows.
    @Test("Spec W14") func testAddToDifferentRealmThrows() throws {
        let a = try Realm(configuration: testConfiguration())
        let b = try Realm(configuration: testConfiguration())
        let object = try a.write { a.create(IntObj.self, value: ["intCol": 1]) }
        try b._beginWrite()
        Self.expectMessage(
            rejection { try b._add(object) },
            "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        try b._cancelWrite()
    }

    // ObjectCreationTests.testAddInvalidated, objc ObjectCreationTests.testCreateWithInvalidatedObject:
    // `add` says 'Adding ...', `create` (a copy) says the object is invalid.
    @Test("Spec W12") func testAddInvalidated() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        try realm.write { realm.delete(object) }
        try realm._beginWrite()
        Self.expectMessage(
            rejection { try realm._add(object) },
            "Adding a deleted or invalidated object to a Realm is not permitted")
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: object, update: .error) }, Self.deleted)
        try realm._cancelWrite()
    }

    // ObjectCreationTests.testAddOrUpdateWithoutPKThrows, testCreateOrUpdateWithoutPKThrows:
    // checked first, so also outside a write.
    @Test("Spec W9") func testAddOrUpdateWithoutPKThrows() throws {
        let realm = try Realm(configuration: testConfiguration())
        let message = "'IntObj' does not have a primary key and can not be updated"
        Self.expectMessage(rejection { try realm._add(IntObj(), update: .all) }, message)
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: ["intCol": 1], update: .modified) },
            message)
        try realm._beginWrite()
        Self.expectMessage(rejection { try realm._add(IntObj(), update: .modified) }, message)
        try realm._cancelWrite()
    }

    // objc ObjectCreationTests.testAddDuplicatePrimaryKey: realm-core's ObjectAlreadyExists ends
    // without a period.
    @Test("Spec W10") func testAddDuplicatePrimaryKey() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm._beginWrite()
        _ = try realm._create(PKInt.self, value: ["id": 3, "name": "a"], update: .error)
        let message = "Attempting to create an object of type 'PKInt' with an existing primary key value '3'"
        Self.expectMessage(rejection { _ = try realm._create(PKInt.self, value: ["id": 3], update: .error) }, message)
        Self.expectMessage(rejection { try realm._add(PKInt(value: ["id": 3])) }, message)
        try realm._cancelWrite()
    }

    // ObjectTests.testCannotUpdatePrimaryKey.
    @Test("Spec W9") func testCannotUpdatePrimaryKey() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(PKInt.self, value: ["id": 1]) }
        try realm._beginWrite()
        Self.expectMessage(
            rejection { try object._setValue(2, forKey: "id") },
            "Primary key can't be changed after an object is inserted.")
        try realm._cancelWrite()
    }

    // ObjectTests.testObjectForKey: a class without a primary key (realm-core's
    // MissingPrimaryKeyException).
    @Test func testObjectForKey() throws {
        let realm = try Realm(configuration: testConfiguration())
        Self.expectMessage(
            rejection { _ = try realm._object(ofType: IntObj.self, forPrimaryKey: 1) },
            "'IntObj' does not have a primary key defined")
    }

    // ObjectTests.testManagedObjectUnknownKey: dynamic access by a name the class lacks.
    @Test func testManagedObjectUnknownKey() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        let message = "Invalid property name 'noSuchProperty' for class 'IntObj'."
        Self.expectMessage(rejection { _ = try object._value(forKey: "noSuchProperty") }, message)
        try realm._beginWrite()
        Self.expectMessage(rejection { try object._setValue(1, forKey: "noSuchProperty") }, message)
        try realm._cancelWrite()
        Self.expectMessage(rejection { _ = try IntObj()._value(forKey: "noSuchProperty") }, message)
    }

    // objc ObjectCreationTests.testCreateWithInvalidArray, testInitWithInvalidThings,
    // testCreateWithInvalidObject, testCreateWithNonEnumerableValueForArrayProperty: values
    // `create` and `init(value:)` refuse (Swift's type names where Realm prints Objective-C's).
    @Test func testCreateWithInvalidArray() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm._beginWrite()
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: [1, 2], update: .error) },
            "Invalid array input: more values (2) than properties (1).")
        Self.expectMessage(
            rejection { _ = try IntObj._make(value: [1, 2]) },
            "Invalid array input: more values (2) than properties (1).")
        Self.expectMessage(rejection { _ = try IntObj._make(value: NSNull()) }, "Must provide a non-nil value.")
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: StrObj(), update: .error) },
            "Invalid value '\(StrObj())' to initialize object of type 'IntObj': missing key 'intCol'")
        Self.expectMessage(
            rejection { _ = try realm._create(IntObj.self, value: ["intCol": "one"], update: .error) },
            "Invalid value 'one' of type 'String' for 'int' property 'IntObj.intCol'.")
        Self.expectMessage(
            rejection { _ = try realm._create(Holder.self, value: ["intArray": 5], update: .error) },
            "Invalid value (5) for 'IntObj' array property 'Holder.intArray': value is not enumerable.")
        try realm._cancelWrite()
    }

    // objc ObjectTests.testObjectForKey: a primary key of the wrong type is refused naming the
    // class and the property (RLMValidateValueForProperty), never the type where the class goes.
    @Test func testObjectForKeyOfTheWrongType() throws {
        let realm = try Realm(configuration: testConfiguration())
        Self.expectMessage(
            rejection { _ = try realm._object(ofType: PKInt.self, forPrimaryKey: "") },
            "Invalid value '' of type 'String' for 'int' property 'PKInt.id'.")
        Self.expectMessage(
            rejection { _ = try realm._object(ofType: PKStr.self, forPrimaryKey: 0) },
            "Invalid value '0' of type 'Int' for 'string' property 'PKStr.stringCol'.")
        Self.expectMessage(
            rejection { _ = try realm._object(ofType: PKInt.self, forPrimaryKey: Optional<Int>.none) },
            "Invalid value '(null)' of type '(null)' for 'int' property 'PKInt.id'.")
        #expect(try realm._object(ofType: PKInt.self, forPrimaryKey: 1) == nil)
        #expect(try realm._object(ofType: PKStr.self, forPrimaryKey: "a") == nil)
    }

    // RealmCollectionTypeTests.testSortWithProperty, QueryTests.testSortByUnspportedKeyPath:
    // realm-core's key path checks of a sort, in its words.
    @Test func testSortByUnspportedKeyPath() throws {
        let realm = try Realm(configuration: testConfiguration())
        func sortError<T: Object>(_ type: T.Type, _ keyPath: String) -> Realm.Error? {
            rejection { _ = try realm.objects(type)._sorted(by: [SortDescriptor(keyPath: keyPath)]) }
        }
        Self.expectMessage(
            sortError(IntObj.self, "noSuchCol"),
            "Cannot sort on key path 'noSuchCol': property 'IntObj.noSuchCol' does not exist.")
        Self.expectMessage(sortError(IntObj.self, ""), "Cannot sort on key path '': missing property name.")
        Self.expectMessage(
            sortError(Holder.self, "intArray"),
            "Cannot sort on key path 'intArray': property 'Holder.intArray' is of unsupported type 'array'.")
        Self.expectMessage(
            sortError(AllTypes.self, "data"),
            "Cannot sort on key path 'data': property 'AllTypes.data' is of unsupported type 'data'.")
        Self.expectMessage(
            sortError(Owner.self, "dog"),
            "Cannot sort on key path 'dog': property 'Owner.dog' of type "
                + "'object' cannot be the final property in the key path.")
        Self.expectMessage(
            sortError(IntObj.self, "intCol.x"),
            "Cannot sort on key path 'intCol.x': property "
                + "'IntObj.intCol' of type 'int' may only be the final property in the key path.")
        Self.expectMessage(
            sortError(IntObj.self, "@count"),
            "Cannot sort on key path '@count': KVC collection operators are not supported.")
        #expect(sortError(IntObj.self, "intCol") == nil)
        // Through a link, each step is checked in the class it reaches.
        Self.expectMessage(
            sortError(Owner.self, "dog.noSuchCol"),
            "Cannot sort on key path 'dog.noSuchCol': property 'Dog.noSuchCol' does not exist.")
        Self.expectMessage(sortError(Owner.self, "dog."), "Cannot sort on key path 'dog.': missing property name.")
        Self.expectMessage(
            sortError(Owner.self, "name.dog"),
            "Cannot sort on key path 'name.dog': property "
                + "'Owner.name' of type 'string' may only be the final property in the key path.")
        #expect(sortError(Owner.self, "dog.age") == nil)
    }

    // objc QueryTests (add_link_constraint): an unmanaged object in a query is no error; it
    // equals no stored object.
    @Test func testQueryWithUnmanagedObject() throws {
        let realm = try Realm(configuration: testConfiguration())
        try realm.write {
            realm.create(Owner.self, value: ["name": "a", "dog": ["dogName": "Rex", "age": 1]])
            realm.create(Owner.self, value: ["name": "b"])
        }
        let stranger = Dog()
        #expect(realm.objects(Owner.self).where { $0.dog == stranger }.count == 0)
        #expect(realm.objects(Owner.self).where { $0.dog != stranger }.count == 2)
    }

    // ListTests (RLMArray's methods for managed arrays only).
    @Test func testUnmanagedListMethods() throws {
        let message = "This method may only be called on RLMArray instances retrieved from an RLMRealm"
        let list = List<IntObj>()
        Self.expectMessage(rejection { _ = try list._freeze() }, message)
        Self.expectMessage(rejection { _ = try list._thaw() }, message)
    }

    // MARK: freeze (F) and read-only realms (X)

    // objc RealmTests.testForbiddenMethodsOnFrozenRealm.
    @Test("Spec F2, F3, F4") func testForbiddenMethodsOnFrozenRealm() throws {
        let realm = try Realm(configuration: testConfiguration()).freeze()
        Self.expectMessage(
            rejection { try realm._setAutorefresh(true) },
            "Auto-refresh cannot be enabled for frozen Realms.")
        #expect(rejection { try realm._setAutorefresh(false) } == nil)
        #expect(!realm.autorefresh)
        Self.expectMessage(rejection { try realm._beginWrite() }, "Can't perform transactions on a frozen Realm")
        let frozenRealms = "Frozen Realms do not change and do not have change notifications."
        Self.expectMessage(rejection { _ = try realm._observe { _, _ in } }, frozenRealms)
        Self.expectMessage(rejection { _ = try realm.objects(IntObj.self)._observe { _ in } }, frozenRealms)
        // From another thread too: the setting checks no context.
        let box = Unchecked(realm)
        let elsewhere = try onOtherThread { rejection { try box.value._setAutorefresh(true) } }
        Self.expectMessage(elsewhere, "Auto-refresh cannot be enabled for frozen Realms.")
    }

    // ObjectTests.testModifyFrozenObject; objc RealmTests.testReadAfterInvalidateFrozen: an
    // invalidated frozen realm's object is refused as invalid before as frozen.
    @Test("Spec F12, F6") func testModifyFrozenObject() throws {
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        let frozen = try object._freeze()
        Self.expectMessage(
            rejection { try frozen._setValue(2, forKey: "intCol") },
            "Attempting to modify a frozen object - call thaw on the Object instance first.")
        try frozen.realm?._invalidate()
        Self.expectMessage(rejection { try frozen._setValue(2, forKey: "intCol") }, Self.deleted)
        Self.expectMessage(
            rejection { _ = try frozen._value(forKey: "intCol") },
            "Cannot read from a frozen Realm which has been invalidated.")
    }

    // RealmTests.testReadOnly; core realm.cpp "refreshing an immutable Realm throws".
    @Test("Spec X10, W18, N19") func testReadOnly() throws {
        var configuration = testConfiguration()
        do {
            let writer = try Realm(configuration: configuration)
            try writer.write { writer.create(IntObj.self, value: ["intCol": 1]) }
        }
        configuration.readOnly = true
        let realm = try Realm(configuration: configuration)
        Self.expectMessage(rejection { try realm._beginWrite() }, "Can't perform transactions on read-only Realms.")
        Self.expectMessage(
            rejection { _ = try realm._refresh() },
            "Read-only Realms do not change and cannot be refreshed.")
        Self.expectMessage(
            rejection { _ = try realm._freeze()._refresh() },
            "Read-only Realms do not change and cannot be refreshed.")
        let readOnly = "Read-only Realms do not change and do not have change notifications."
        Self.expectMessage(rejection { _ = try realm._observe { _, _ in } }, readOnly)
        Self.expectMessage(rejection { _ = try realm.objects(IntObj.self)._observe { _ in } }, readOnly)
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // MARK: references (T)

    // ThreadSafeReferenceTests.testInvalidThreadSafeReferenceConstruction, ...Usage.
    @Test("Spec T1, T2") func testInvalidThreadSafeReferenceConstruction() throws {
        Self.expectMessage(
            rejection { _ = try ThreadSafeReference<IntObj>._make(to: IntObj()) },
            "Cannot construct reference to unmanaged object, which can be passed across threads directly")
        Self.expectMessage(
            rejection { _ = try ThreadSafeReference<List<IntObj>>._make(to: List<IntObj>()) },
            "Cannot construct reference to unmanaged object, which can be passed across threads directly")
        let realm = try Realm(configuration: testConfiguration())
        let object = try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        let reference = try ThreadSafeReference<IntObj>._make(to: object)
        _ = try realm._resolve(reference)
        Self.expectMessage(
            rejection { _ = try realm._resolve(reference) }, "Can only resolve a thread safe reference once.")
        try realm.write { realm.delete(object) }
        Self.expectMessage(
            rejection { _ = try ThreadSafeReference<IntObj>._make(to: object) },
            "Cannot construct reference to invalidated object")
    }

    // MARK: notifications (N)

    // ObjectTests.testObserveUnmanagedObject, testObserveInvalidKeyPath; objc
    // LinkingObjectsTests.testLinkingObjectsOnUnmanagedObject (collections).
    @Test("Spec N18, N19, N21") func testObserveInvalidKeyPath() throws {
        Self.expectMessage(
            rejection { _ = try IntObj()._observe { _ in } },
            "Only objects which are managed by a Realm support change notifications")
        Self.expectMessage(
            rejection { _ = try List<IntObj>()._observe { _ in } },
            "Change notifications are only supported on managed collections.")
        let realm = try Realm(configuration: testConfiguration())
        let owner = try realm.write { realm.create(Owner.self, value: ["name": "a"]) }
        Self.expectMessage(
            rejection { _ = try owner._observe(keyPaths: ["notAProperty"]) { _ in } },
            "Invalid property name: property 'notAProperty' not found in object of type 'Owner'")
        Self.expectMessage(
            rejection { _ = try owner._observe(keyPaths: ["dog.alsoNotAProperty"]) { _ in } },
            "Invalid property name: property 'alsoNotAProperty' not found in object of type 'Dog'")
        Self.expectMessage(
            rejection { _ = try owner._observe(keyPaths: ["name.x"]) { _ in } },
            "Invalid property name: property 'x' not found in object of type 'Owner'")
    }

    // RealmCollectionTests.testObserveOnActor (RealmSwift's `with(_:on:_:)` of an unmanaged
    // value): RealmSwift's own words, for Lists and objects alike.
    @Test("Spec N18") func testObserveOnActor() async throws {
        let actor = MisuseActor()
        let message = "Change notifications are only supported for managed objects"
        var errors: [Realm.Error] = []
        do { _ = try await List<IntObj>()._observe(on: actor) { _, _ in } } catch { errors.append(error) }
        do { _ = try await IntObj()._observe(on: actor) { _, _ in } } catch { errors.append(error) }
        #expect(errors.count == 2)
        for error in errors { Self.expectMessage(error, message) }
    }

    // MARK: files and configuration (X)

    // RealmConfigurationTests.testEncryptionKeyValidation: the key is checked with the other
    // settings, in RealmSwift's order, also when the context has the realm open.
    @Test("Spec X17") func testEncryptionKeyValidation() throws {
        let message = "Encryption key must be exactly 64 bytes long"
        var configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        configuration.encryptionKey = Data(count: 10)
        Self.expectMessage(rejection { _ = try Realm._open(configuration: configuration, queue: nil) }, message)
        configuration.schemaVersion = UInt64.max
        Self.expectMessage(rejection { _ = try Realm._open(configuration: configuration, queue: nil) }, message)
        Self.expectMessage(
            rejection {
                try realm._writeCopy(
                    toFile: temporaryDirectory().appendingPathComponent("copy.realm"),
                    encryptionKey: Data(count: 10))
            }, message)
    }

    // objc RealmTests.testCannotHaveReadOnlyAndReadWriteRealmsAtSamePathAtSameTime: the
    // context's own instance (RLMRealm's cache) and another context's (realm-core's
    // coordinator, whose sentence ends with a period).
    @Test("Spec X11") func testCannotHaveReadOnlyAndReadWriteRealmsAtSamePathAtSameTime() throws {
        var configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let path = realm.configuration.fileURL?.path ?? ""
        configuration.readOnly = true
        let readOnly = configuration
        Self.expectMessage(
            rejection { _ = try Realm._open(configuration: readOnly, queue: nil) },
            "Realm at path '\(path)' already opened with different read permissions")
        let elsewhere = try onOtherThread { rejection { _ = try Realm._open(configuration: readOnly, queue: nil) } }
        Self.expectMessage(elsewhere, "Realm at path '\(path)' already opened with different read permissions.")
    }

    // objc RealmTests.testPathCannotBeBothInMemoryAndRegularDurability: a file at the path an
    // open in-memory realm reports (Spec X9: the temporary directory and its identifier) is
    // refused, from its context (RLMRealm's cache) and from another (realm-core's coordinator,
    // with a period), creating nothing; and the reverse, until the file's realm is closed.
    @Test("Spec X32") func testPathCannotBeBothInMemoryAndRegularDurability() throws {
        let identifier = "x32-\(UUID().uuidString)"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(identifier).path
        let inMemory = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: identifier))
        let onDisk = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        Self.expectMessage(
            rejection { _ = try Realm._open(configuration: onDisk, queue: nil) },
            "Realm at path '\(path)' already opened with different inMemory settings")
        let elsewhere = try onOtherThread { rejection { _ = try Realm._open(configuration: onDisk, queue: nil) } }
        Self.expectMessage(elsewhere, "Realm at path '\(path)' already opened with different inMemory settings.")
        #expect(!FileManager.default.fileExists(atPath: path), "the refused open created \(path)")
        #expect(inMemory.isEmpty)

        // The reverse: an in-memory identifier whose path is an open file's.
        let fileIdentifier = "x32-file-\(UUID().uuidString)"
        let filePath = FileManager.default.temporaryDirectory.appendingPathComponent(fileIdentifier).path
        let fileConfiguration = Realm.Configuration(fileURL: URL(fileURLWithPath: filePath))
        let sameName = Realm.Configuration(inMemoryIdentifier: fileIdentifier)
        defer { _ = try? Realm.deleteFiles(for: fileConfiguration) }
        try onOtherThread {
            let file = try Realm(configuration: fileConfiguration)
            Self.expectMessage(
                rejection { _ = try Realm._open(configuration: sameName, queue: nil) },
                "Realm at path '\(filePath)' already opened with different inMemory settings")
            _ = file
        }
        #expect(waitUntilClosed(filePath))
        #expect(try Realm(configuration: sameName).isEmpty, "the path did not open once the file was closed")
    }

    // objc MigrationTests (realm-core's RealmCoordinator::get_realm): no versions in the words.
    @Test("Spec X19") func testDifferentSchemaVersion() throws {
        var configuration = testConfiguration()
        let realm = try Realm(configuration: configuration)
        let path = realm.configuration.fileURL?.path ?? ""
        configuration.schemaVersion = 2
        let other = configuration
        let elsewhere = try onOtherThread { rejection { _ = try Realm._open(configuration: other, queue: nil) } }
        Self.expectMessage(elsewhere, "Realm at path '\(path)' already opened with different schema version.")
    }

    // objc MigrationTests.testRearrangeProperties (RLMDynamicValidatedSet's checks of a
    // migration's new objects): Realm's words for a value of another type, a nil for a required
    // property (realm-core's NotNullable) and a value that is not a list; and deleting an old
    // object (RLMDeleteObjectFromRealm: it belongs to the old realm).
    @Test("Spec X21") func testMigrationValueErrors() throws {
        let url = temporaryDirectory().appendingPathComponent("migrated.realm")
        let types: [Object.Type] = [IntObj.self, Holder.self]
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: types))
            try realm.write {
                realm.create(IntObj.self, value: ["intCol": 1])
                realm.create(Holder.self)
            }
        }
        let found = MisuseErrors()
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: types)
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "IntObj") { old, new in
                found.errors.append(rejection { try new?._setValue("one", forKey: "intCol") })
                found.errors.append(rejection { try new?._setValue(nil, forKey: "intCol") })
                found.errors.append(rejection { if let old { try migration._delete(old) } })
            }
            migration.enumerateObjects(ofType: "Holder") { _, new in
                found.errors.append(rejection { try new?._setValue(5, forKey: "intArray") })
            }
        }
        _ = try Realm(configuration: configuration)
        #expect(found.errors.count == 4)
        guard found.errors.count == 4 else { return }
        Self.expectMessage(found.errors[0], "Invalid value 'one' of type 'String' for 'int' property 'IntObj.intCol'.")
        Self.expectMessage(found.errors[1], "Invalid null value for non-nullable property 'IntObj.intCol'.")
        Self.expectMessage(found.errors[2], "Can only delete an object from the Realm it belongs to.")
        Self.expectMessage(
            found.errors[3],
            "Invalid value (5) for 'IntObj' array property 'Holder.intArray': value is not enumerable.")
    }

    // objc RealmTests.testReadOnlyRealmWithMissingTables: out of bounds in RLMResults' words.
    @Test("Spec X14") func testReadOnlyRealmWithMissingTables() throws {
        let realm = try Realm(configuration: testConfiguration())
        Self.expectMessage(
            rejection { _ = try realm.objects(StrObj.self)._element(at: 0) },
            "Index 0 is out of bounds (must be less than 0).")
    }
}

/// An actor for `observe(on: actor)`.
actor MisuseActor {}

/// The rejections a migration block saw (the block runs inside the open, on the test's thread).
final class MisuseErrors: @unchecked Sendable {
    var errors: [Realm.Error?] = []
}
