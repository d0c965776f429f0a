import Foundation
import Strata
import Testing

// Two versions of one class, for schema tests: both are stored as "Thing".
enum SchemaV1 {
    final class Thing: Object {
        @Persisted var name: String
        @Persisted var count: Int
    }
}

enum SchemaV2 {
    final class Thing: Object {
        @Persisted var name: String
        @Persisted var label: String = "new"
    }
}

@Suite struct FilesConfigurationTests {
    private func configuration(in directory: URL, _ name: String = "files.realm") -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.appendingPathComponent(name), objectTypes: allFixtureTypes)
    }

    private func addInt(_ realm: Realm, _ value: Int) throws {
        try realm.write {
            let object = IntObj()
            object.intCol = value
            realm.add(object)
        }
    }

    // Spec X1
    @Test func fileExistsAndDeleteFiles() throws {
        let configuration = configuration(in: temporaryDirectory())
        #expect(!Realm.fileExists(for: configuration))
        do { _ = try Realm(configuration: configuration) }
        #expect(Realm.fileExists(for: configuration))
        #expect(try Realm.deleteFiles(for: configuration))
        #expect(!Realm.fileExists(for: configuration))
    }

    // Spec X1
    @Test func deleteFilesWhenNothingExists() throws {
        let directory = temporaryDirectory()
        #expect(try Realm.deleteFiles(for: configuration(in: directory)) == false)
        let missing = directory.appendingPathComponent("no-such-directory")
        #expect(try Realm.deleteFiles(for: configuration(in: missing)) == false)
    }

    // core realm.cpp "Realm::delete_files()" > "Deleting files of a closed Realm succeeds." (Spec
    // X1): the data and note files go, the lock file stays.
    @Test("Spec X1: deleteFiles keeps the lock file")
    func deleteFilesKeepsTheLockFile() throws {
        let configuration = configuration(in: temporaryDirectory())
        let path = try #require(configuration.fileURL).path
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self) }
        }
        #expect(try Realm.deleteFiles(for: configuration))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".note"))
        #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        #expect(try Realm(configuration: configuration).objects(IntObj.self).isEmpty, "reopened anew")
    }

    // Spec X1
    @Test func deleteFilesWithOnlyTheMainFile() throws {
        let configuration = configuration(in: temporaryDirectory())
        do { _ = try Realm(configuration: configuration) }
        let lockPath = try #require(configuration.fileURL).path + ".lock"
        try FileManager.default.removeItem(atPath: lockPath)
        #expect(try Realm.deleteFiles(for: configuration))
        #expect(!Realm.fileExists(for: configuration))
    }

    // Spec X2
    @Test func openFilesCannotBeDeleted() throws {
        let configuration = configuration(in: temporaryDirectory())
        let realm = try Realm(configuration: configuration)
        try addInt(realm, 1)
        let error = rejection { try Realm.deleteFiles(for: configuration) }
        #expect(error?.code == .alreadyOpen)
        #expect(error?.message.contains("is still in use") == true)
        #expect(Realm.fileExists(for: configuration))
        #expect(realm.objects(IntObj.self).count == 1)
    }

    // Spec X2: across processes is covered by the session lock the engine holds (Spec X2); the
    // in-process case above takes the same path (a separate descriptor's exclusive flock).

    // Spec X3
    @Test func writeCopyOpensTakesWritesAndFreezes() throws {
        let directory = temporaryDirectory()
        let source = try Realm(configuration: configuration(in: directory))
        try addInt(source, 1)
        let destination = configuration(in: directory, "copy.realm")
        try source.writeCopy(toFile: try #require(destination.fileURL))
        let copy = try Realm(configuration: destination)
        #expect(copy.objects(IntObj.self).count == 1)
        try addInt(copy, 2)
        #expect(copy.objects(IntObj.self).count == 2)
        let frozen = copy.freeze()
        #expect(frozen.isFrozen && frozen.objects(IntObj.self).count == 2)
        #expect(source.objects(IntObj.self).count == 1)
    }

    // RealmTests.testWriteCopyForConfiguration (Spec X3): the same copy, named by a configuration.
    @Test("Spec X3: writeCopy(configuration:) writes the copy to the configuration's file")
    func writeCopyForConfiguration() throws {
        let directory = temporaryDirectory()
        let source = try Realm(configuration: configuration(in: directory))
        try addInt(source, 1)
        let destination = configuration(in: directory, "destination.realm")
        try source.writeCopy(configuration: destination)
        let copy = try Realm(configuration: destination)
        #expect(copy.objects(IntObj.self).count == 1)
        try addInt(copy, 2)
        #expect(copy.objects(IntObj.self).count == 2)
        var memory = destination
        memory.inMemoryIdentifier = "X3-copy"
        #expect(throws: Realm.Error.self) { try source.writeCopy(configuration: memory) }
    }

    // `Realm.writeCopy(toFile:encryptionKey:)`: "if this method is called from within a write
    // transaction, the current data is written" (Spec X3).
    @Test("Spec X3: writeCopy inside a write copies the write's current data")
    func writeCopyInsideAWriteCopiesTheCurrentData() throws {
        let directory = temporaryDirectory()
        let source = try Realm(configuration: configuration(in: directory))
        try addInt(source, 1)
        let destination = configuration(in: directory, "in-write.realm")
        try source._beginWrite()
        source.create(IntObj.self, value: ["intCol": 2])
        try source.writeCopy(toFile: try #require(destination.fileURL))
        try source._cancelWrite()
        #expect(source.objects(IntObj.self).count == 1, "the copy did not commit the write")
        let copy = try Realm(configuration: destination)
        #expect(copy.objects(IntObj.self).map(\.intCol).sorted() == [1, 2])
    }

    // Spec X4
    @Test func writeCopyErrors() throws {
        let directory = temporaryDirectory()
        let realm = try Realm(configuration: configuration(in: directory))
        try addInt(realm, 1)
        let existing = directory.appendingPathComponent("exists.realm")
        _ = FileManager.default.createFile(atPath: existing.path, contents: Data([1]))
        let exists = rejection { try realm._writeCopy(toFile: existing, encryptionKey: nil) }
        #expect(exists?.code == .fileExists)
        #expect(exists?.message.contains("File exists") == true)
        let orphan = directory.appendingPathComponent("missing/copy.realm")
        let missingParent = rejection { try realm._writeCopy(toFile: orphan, encryptionKey: nil) }
        #expect(missingParent?.code == .fileNotFound)
        #expect(missingParent?.message.contains("parent directory does not exist") == true)
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        let keyed = rejection {
            try realm._writeCopy(
                toFile: directory.appendingPathComponent("keyed.realm"), encryptionKey: Data(count: 64))
        }
        #expect(keyed?.code == .fail)
        #expect(keyed?.message.contains("Encryption is not supported") == true)
    }

    // Spec X5
    @Test func seedFileIsCopiedOnce() throws {
        let directory = temporaryDirectory()
        let seedConfiguration = configuration(in: directory, "seed.realm")
        do {
            let seed = try Realm(configuration: seedConfiguration)
            try addInt(seed, 1)
        }
        var configuration = configuration(in: directory, "seeded.realm")
        configuration.seedFilePath = seedConfiguration.fileURL
        do {
            let seeded = try Realm(configuration: configuration)
            #expect(seeded.objects(IntObj.self).count == 1)
            try addInt(seeded, 2)
            #expect(seeded.objects(IntObj.self).count == 2)
        }
        do {
            let seed = try Realm(configuration: seedConfiguration)
            try seed.write { seed.deleteAll() }
        }
        let again = try Realm(configuration: configuration)
        #expect(again.objects(IntObj.self).count == 2)
    }

    // Spec X6
    @Test func openErrors() throws {
        let notADirectory = Realm.Configuration(fileURL: URL(fileURLWithPath: "/dev/null/foo"))
        let under = rejection { _ = try Realm._open(configuration: notADirectory, queue: nil) }
        #expect(under?.code == .fileOperationFailed)
        #expect(under?.message.contains("parent path is not a directory") == true)

        let directory = temporaryDirectory()
        for size in [1, 12] {
            let path = directory.appendingPathComponent("small-\(size).realm")
            _ = FileManager.default.createFile(atPath: path.path, contents: Data(count: size))
            let small = rejection { _ = try Realm._open(configuration: Realm.Configuration(fileURL: path), queue: nil) }
            #expect(small?.code == .invalidDatabase)
            #expect(
                small?.message.contains("file is non-empty but too small (\(size) bytes) to be a valid Realm.") == true)
        }

        let folder = directory.appendingPathComponent("folder.realm")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let isDirectory = rejection {
            _ = try Realm._open(configuration: Realm.Configuration(fileURL: folder), queue: nil)
        }
        #expect(isDirectory?.code == .fileOperationFailed)
        #expect(isDirectory?.message.contains("Is a directory") == true)

        // Each can be caught by code, as in Realm Swift.
        var caught = false
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: folder))
        } catch Realm.Error.fileOperationFailed {
            caught = true
        } catch {}
        #expect(caught)
    }

    // Spec X8, C1, D14: nothing of an in-memory realm survives its last instance.
    @Test func inMemoryDataLivesWhileAnInstanceIsOpen() throws {
        let identifier = "mem01-\(UUID().uuidString)"
        let configuration = Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: allFixtureTypes)
        do {
            let realm = try Realm(configuration: configuration)
            realm.beginWrite()
            realm.create(IntObj.self, value: ["intCol": 1])
            let same = try Realm(configuration: configuration)
            #expect(same == realm)
            same.create(IntObj.self, value: ["intCol": 2])
            #expect(realm.objects(IntObj.self).count == 2)
            try realm.commitWrite()
            try onOtherThread {
                let other = try Realm(configuration: configuration)
                #expect(other.objects(IntObj.self).count == 2)
                try other.write { other.create(IntObj.self, value: ["intCol": 3]) }
            }
            #expect(realm.refresh())
            #expect(realm.objects(IntObj.self).count == 3)
        }
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.objects(IntObj.self).count == 0)
    }

    // Spec X9
    @Test func inMemoryIdentifiersAreIsolated() throws {
        let one = try Realm(
            configuration: Realm.Configuration(
                inMemoryIdentifier: "mem02-a-\(UUID().uuidString)",
                objectTypes: allFixtureTypes))
        let two = try Realm(
            configuration: Realm.Configuration(
                inMemoryIdentifier: "mem02-b-\(UUID().uuidString)",
                objectTypes: allFixtureTypes))
        try addInt(one, 1)
        #expect(one.objects(IntObj.self).count == 1)
        #expect(two.objects(IntObj.self).count == 0)
        #expect(one.configuration.fileURL == nil)
    }

    // Spec X10
    @Test func readOnlyShowsTheData() throws {
        var configuration = configuration(in: temporaryDirectory())
        do { try addInt(try Realm(configuration: configuration), 1) }
        #expect(Realm.Configuration().readOnly == false)
        configuration.readOnly = true
        let readOnly = try Realm(configuration: configuration)
        #expect(readOnly.configuration.readOnly)
        #expect(readOnly.objects(IntObj.self).count == 1)
        let write = rejection { try readOnly._beginWrite() }
        #expect(write?.message.contains("Can't perform transactions on read-only Realms.") == true)
    }

    // Spec W18: a read-only realm takes no writes: `beginWrite()` and `write {}` are rejected
    // with Realm's message, the realm is not left in a write, and the file is unchanged.
    @Test func readOnlyRealmsTakeNoWrites() throws {
        var configuration = configuration(in: temporaryDirectory())
        do { try addInt(try Realm(configuration: configuration), 1) }
        configuration.readOnly = true
        let readOnly = try Realm(configuration: configuration)
        let message = "Can't perform transactions on read-only Realms."
        let begin = rejection { try readOnly._beginWrite() }
        #expect(begin?.message.contains(message) == true, "\(String(describing: begin))")
        #expect(!readOnly.isInWriteTransaction)
        var ran = false
        let write = rejection { try readOnly.write { ran = true } }
        #expect(write?.message.contains(message) == true, "\(String(describing: write))")
        #expect(!ran, "the write block ran")
        #expect(!readOnly.isInWriteTransaction)
        #expect(readOnly.objects(IntObj.self).count == 1)
    }

    /// A file or directory made unwritable for this process, and how to undo it: immutable
    /// (the `chattr +i` flag, which binds root too) when this process may set that flag,
    /// otherwise read-only permission bits (which bind everyone but root).
    final class Unwritable {
        let path: String
        /// The words of the open error a write attempt meets: EPERM for an immutable file,
        /// EACCES for permission bits.
        let refusal: String
        private let undo: () -> Void

        /// nil when neither way makes `path` unwritable here (root without the capability to
        /// set the immutable flag).
        init?(path: String, isDirectory: Bool) {
            self.path = path
            let immutable: Int32 = 0x10  // FS_IMMUTABLE_FL
            let getFlags: UInt = 0x8008_6601  // FS_IOC_GETFLAGS
            let setFlags: UInt = 0x4008_6602  // FS_IOC_SETFLAGS
            func setImmutable(_ on: Bool) -> Bool {
                let descriptor = open(path, O_RDONLY | (isDirectory ? O_DIRECTORY : 0))
                guard descriptor >= 0 else { return false }
                defer { close(descriptor) }
                var flags: Int32 = 0
                guard ioctl(descriptor, getFlags, &flags) == 0 else { return false }
                flags = on ? flags | immutable : flags & ~immutable
                return ioctl(descriptor, setFlags, &flags) == 0
            }
            if setImmutable(true) {
                refusal = "Operation not permitted"
                undo = { _ = setImmutable(false) }
            } else {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                let mode = (attributes?[.posixPermissions] as? NSNumber)?.int16Value ?? 0o644
                guard chmod(path, isDirectory ? 0o555 : 0o444) == 0 else { return nil }
                refusal = "Permission denied"
                undo = { _ = chmod(path, mode_t(mode)) }
            }
            // It binds only if writing now fails.
            let binds: Bool
            if isDirectory {
                let probe = path + "/probe-\(UUID().uuidString)"
                let descriptor = open(probe, O_RDWR | O_CREAT | O_EXCL, 0o600)
                if descriptor >= 0 {
                    close(descriptor)
                    unlink(probe)
                }
                binds = descriptor < 0
            } else {
                let descriptor = open(path, O_RDWR)
                if descriptor >= 0 { close(descriptor) }
                binds = descriptor < 0
            }
            guard binds else {
                undo()
                return nil
            }
        }

        func restore() { undo() }
    }

    // Spec X12: a read-write open of a file this process may not write is refused
    // with filePermissionDenied and Realm's advice; a read-only open reads it, also once the
    // helper files are gone and the directory cannot be written, from this thread, another
    // thread and a queue.
    @Test func readOnlyOpensWorkOnUnwritableFiles() throws {
        let directory = temporaryDirectory()
        let configuration = configuration(in: directory)
        let path = try #require(configuration.fileURL).path
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        }
        let file = try #require(
            Unwritable(path: path, isDirectory: false),
            "cannot make the file unwritable (root without CAP_LINUX_IMMUTABLE?)")
        defer { file.restore() }
        let refused = rejection { _ = try Realm._open(configuration: configuration, queue: nil) }
        #expect(refused?.code == .filePermissionDenied, "\(String(describing: refused))")
        #expect(
            refused?.message.contains(
                "\(file.refusal). Please use a path where your app has read-write permissions.") == true,
            "\(String(describing: refused))")
        let readOnly = {
            var readOnly = configuration
            readOnly.readOnly = true
            return readOnly
        }()
        #expect(try onOtherThread { try Realm(configuration: readOnly).objects(IntObj.self).count } == 1)

        for helper in [path + ".lock", path + ".note"] { unlink(helper) }
        let folder = try #require(
            Unwritable(path: directory.path, isDirectory: true),
            "cannot make the directory unwritable")
        defer { folder.restore() }
        #expect(try Realm(configuration: readOnly).objects(IntObj.self).count == 1)
        #expect(try onOtherThread { try Realm(configuration: readOnly).objects(IntObj.self).count } == 1)
        let queue = DispatchQueue(label: "ror04")
        #expect(try queue.sync { try Realm(configuration: readOnly, queue: queue).objects(IntObj.self).count } == 1)
    }

    // Spec X11
    @Test func oneAccessModePerPath() throws {
        let readWrite = configuration(in: temporaryDirectory())
        var readOnly = readWrite
        readOnly.readOnly = true
        do {
            let realm = try Realm(configuration: readWrite)
            try addInt(realm, 1)
            let sameThread = rejection { _ = try Realm._open(configuration: readOnly, queue: nil) }
            #expect(sameThread?.message.contains("already opened with different read permissions") == true)
            let readOnlyCopy = readOnly
            let otherThread = try onOtherThread {
                rejection { _ = try Realm._open(configuration: readOnlyCopy, queue: nil) }
            }
            #expect(otherThread?.message.contains("already opened with different read permissions") == true)
        }
        let first = try Realm(configuration: readOnly)
        let reverse = rejection { _ = try Realm._open(configuration: readWrite, queue: nil) }
        #expect(reverse?.message.contains("already opened with different read permissions") == true)
        #expect(first.objects(IntObj.self).count == 1)
    }

    // Spec X13, C10
    @Test func readOnlyOnSeveralThreads() throws {
        var configuration = configuration(in: temporaryDirectory())
        do { try addInt(try Realm(configuration: configuration), 1) }
        configuration.readOnly = true
        let readOnly = configuration
        let collected = ResultBox<[Int]>()
        collected.set(.success([]))
        let done = DispatchGroup()
        for _ in 0..<3 {
            done.enter()
            Thread {
                let count = (try? Realm(configuration: readOnly))?.objects(IntObj.self).count ?? -1
                collected.update { $0.append(count) }
                done.leave()
            }.start()
        }
        done.wait()
        let counts = try collected.get()
        #expect(counts == [1, 1, 1])
        let kept = try Realm(configuration: readOnly)
        try onOtherThread {
            let closed = try Realm(configuration: readOnly)
            #expect(closed.objects(IntObj.self).count == 1)
        }
        #expect(kept.objects(IntObj.self).count == 1)
    }

    // Spec X14
    @Test func readOnlyFileWithoutATable() throws {
        let url = temporaryDirectory().appendingPathComponent("tables.realm")
        do {
            let writer = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [IntObj.self]))
            try addInt(writer, 1)
        }
        let readOnly = try Realm(
            configuration: Realm.Configuration(
                fileURL: url, readOnly: true,
                objectTypes: [IntObj.self, PKStr.self]))
        let results = readOnly.objects(PKStr.self)
        #expect(results.count == 0)
        #expect(results.where { $0.intCol > 0 }.count == 0)
        #expect(results.sorted(byKeyPath: "intCol").count == 0)
        #expect(readOnly.object(ofType: PKStr.self, forPrimaryKey: "a") == nil)
        #expect(results.first == nil && results.last == nil)
        #expect(Array(results).isEmpty)
        let outOfBounds = rejection { _ = try results._element(at: 0) }
        #expect(outOfBounds?.message.contains("out of bounds") == true)
        let delete = rejection { try readOnly._delete(results) }
        #expect(delete?.message.contains("Cannot modify Results outside of a write transaction.") == true)
    }

    // Spec X15
    @Test func readOnlyFileMissingColumnsFails() throws {
        let url = temporaryDirectory().appendingPathComponent("columns.realm")
        do { _ = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SchemaV1.Thing.self])) }
        let error = rejection {
            _ = try Realm._open(
                configuration: Realm.Configuration(
                    fileURL: url, readOnly: true,
                    objectTypes: [SchemaV2.Thing.self]), queue: nil)
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("'Thing.label' has been added") == true)
    }

    // CONF-01 (Spec X16)
    @Test func defaultConfiguration() throws {
        let defaults = Realm.Configuration.defaultConfiguration
        #expect(defaults.inMemoryIdentifier == nil)
        #expect(defaults.encryptionKey == nil)
        #expect(defaults.readOnly == false)
        #expect(defaults.schemaVersion == 0)
        #expect(defaults.migrationBlock == nil)
        #expect(defaults.fileURL?.lastPathComponent == "default.realm")
        var copy = defaults
        copy.schemaVersion = 5
        #expect(Realm.Configuration.defaultConfiguration.schemaVersion == 0)
    }

    // CONF-02 (Spec X16)
    @Test func fileURLAndInMemoryIdentifierExcludeEachOther() {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: "/tmp/conf02.realm"))
        configuration.inMemoryIdentifier = "conf02"
        #expect(configuration.fileURL == nil)
        configuration.fileURL = URL(fileURLWithPath: "/tmp/conf02.realm")
        #expect(configuration.inMemoryIdentifier == nil)
        #expect(configuration.fileURL?.path == "/tmp/conf02.realm")
    }

    // CONF-04 (Spec X17)
    @Test func encryptionKeys() throws {
        var configuration = configuration(in: temporaryDirectory())
        configuration.encryptionKey = Data(count: 10)
        let short = rejection { _ = try Realm._open(configuration: configuration, queue: nil) }
        #expect(short?.message.contains("Encryption key must be exactly 64 bytes long") == true)
        configuration.encryptionKey = Data(count: 64)
        let full = rejection { _ = try Realm._open(configuration: configuration, queue: nil) }
        #expect(full?.code == .fail)
        #expect(full?.message.contains("Encryption is not supported") == true)
        configuration.encryptionKey = nil
        #expect(rejection { _ = try Realm._open(configuration: configuration, queue: nil) } == nil)
    }

    // Schema: a changed class with the same schema version is an error; a higher version
    // migrates (added properties get defaults, the block sets values, removed ones go).
    @Test func schemaChangeNeedsAMigration() throws {
        let url = temporaryDirectory().appendingPathComponent("schema.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SchemaV1.Thing.self]))
            try realm.write { realm.create(SchemaV1.Thing.self, value: ["name": "a", "count": 3]) }
        }
        let same = rejection {
            _ = try Realm._open(
                configuration: Realm.Configuration(fileURL: url, objectTypes: [SchemaV2.Thing.self]), queue: nil)
        }
        #expect(same?.code == .schemaMismatch)
        #expect(same?.message.contains("Migration is required") == true)
        #expect(same?.message.contains("'Thing.count' has been removed") == true)

        let migrated = Realm.Configuration(
            fileURL: url, schemaVersion: 1,
            migrationBlock: { migration, oldVersion in
                #expect(oldVersion == 0)
                migration.enumerateObjects(ofType: "Thing") { old, new in
                    let count = old?["count"] as? Int ?? -1
                    new?["label"] = "count \(count)"
                }
            }, objectTypes: [SchemaV2.Thing.self])
        let realm = try Realm(configuration: migrated)
        let thing = try #require(realm.objects(SchemaV2.Thing.self).first)
        #expect(thing.name == "a")
        #expect(thing.label == "count 3")
    }

    @Test func deleteRealmIfMigrationNeededDropsTheOldData() throws {
        let url = temporaryDirectory().appendingPathComponent("drop.realm")
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [SchemaV1.Thing.self]))
            try realm.write { realm.create(SchemaV1.Thing.self, value: ["name": "a", "count": 3]) }
        }
        let realm = try Realm(
            configuration: Realm.Configuration(
                fileURL: url, deleteRealmIfMigrationNeeded: true,
                objectTypes: [SchemaV2.Thing.self]))
        #expect(realm.objects(SchemaV2.Thing.self).count == 0)
        try realm.write { realm.create(SchemaV2.Thing.self, value: ["name": "b"]) }
        #expect(realm.objects(SchemaV2.Thing.self).first?.label == "new")
    }

    @Test func lowerSchemaVersionIsRejected() throws {
        let url = temporaryDirectory().appendingPathComponent("lower.realm")
        do {
            _ = try Realm(
                configuration: Realm.Configuration(fileURL: url, schemaVersion: 2, objectTypes: [IntObj.self]))
        }
        let error = rejection {
            _ = try Realm._open(
                configuration: Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [IntObj.self]),
                queue: nil)
        }
        #expect(error?.message.contains("Provided schema version 1 is less than last set version 2.") == true)
    }

    // The values Realm's configuration refuses, checked before anything is opened (the
    // read-only one is RealmConfigurationTests.testCannotSetMutuallyExclusiveProperties).
    @Test func configurationValuesRealmRefuses() throws {
        let directory = temporaryDirectory()
        let emptyIdentifier = Realm.Configuration(inMemoryIdentifier: "")
        expectRejected(
            rejection { _ = try Realm._open(configuration: emptyIdentifier, queue: nil) },
            "In-memory identifier must not be empty")
        let emptyPath = Realm.Configuration(fileURL: URL(string: "file://"))
        #expect(emptyPath.fileURL?.path.isEmpty == true)
        expectRejected(
            rejection { _ = try Realm._open(configuration: emptyPath, queue: nil) },
            "Realm path must not be empty")
        var unversioned = configuration(in: directory)
        unversioned.schemaVersion = .max
        expectRejected(
            rejection { _ = try Realm._open(configuration: unversioned, queue: nil) },
            "Cannot set schema version to 18446744073709551615 (RLMNotVersioned)")
        #expect(!Realm.fileExists(for: unversioned))
        // An open realm of the file does not let a refused configuration through.
        let open = try Realm(configuration: configuration(in: directory))
        var readOnlyReset = configuration(in: directory)
        readOnlyReset.readOnly = true
        readOnlyReset.deleteRealmIfMigrationNeeded = true
        expectRejected(
            rejection { _ = try Realm._open(configuration: readOnlyReset, queue: nil) },
            "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
        #expect(open.objects(IntObj.self).isEmpty)
    }
}

// MARK: - Seed statements: Realm(fileURL:), deleteFiles racing an open

extension FilesConfigurationTests {
    @Test("Spec X27, C1, X6: Realm(fileURL:) is the default configuration's realm at that file")
    func realmFileURL() throws {
        let url = temporaryDirectory().appendingPathComponent("x27.realm")
        let realm = try Realm(fileURL: url)
        #expect(realm.configuration.fileURL == url)
        #expect(!realm.configuration.readOnly && realm.configuration.inMemoryIdentifier == nil)
        var configuration = Realm.Configuration.defaultConfiguration
        configuration.fileURL = url
        #expect(try Realm(configuration: configuration) == realm)  // the context's cached instance
        #expect(try Realm(fileURL: url) == realm)
        #expect(Realm.fileExists(for: configuration))
        // It throws as an open does (X6): a directory is not a realm file.
        let error = rejection { _ = try Realm(fileURL: temporaryDirectory()) }
        #expect(error?.code == .fileOperationFailed)
        #expect(error?.message.contains("Is a directory") == true, "\(String(describing: error))")
    }

    @Test("Spec X28, X2: an open racing deleteFiles waits for it, then creates a new, empty file")
    func anOpenDuringDeleteFilesWaitsForIt() throws {
        let config = configuration(in: temporaryDirectory(), "x28.realm")
        try onOtherThread {
            let realm = try Realm(configuration: config)
            try realm.write { realm.create(IntObj.self, value: ["intCol": 1]) }
        }
        // An open that came first keeps the file: the deletion fails (X2).
        do {
            let open = try Realm(configuration: config)
            #expect(rejection { _ = try Realm.deleteFiles(for: config) }?.code == .alreadyOpen)
            #expect(open.objects(IntObj.self).count == 1)
        }
        // An open that starts while the deletion runs waits for it.
        let inside = DispatchSemaphore(value: 0)
        let count = ResultBox<Int>()
        Realm._whileDeletingFiles(of: config) {
            inside.signal()
            // Give the open time to reach the file (it must wait for this deletion to end).
            let deadline = Date().addingTimeInterval(0.5)
            while !count.isSet && Date() < deadline { usleep(1_000) }
        }
        defer { Realm._whileDeletingFiles(of: config, nil) }
        let opener = Thread {
            inside.wait()
            count.set(Result { try Realm(configuration: config).objects(IntObj.self).count })
        }
        opener.start()
        let deleted = Result { try Realm.deleteFiles(for: config) }
        inside.signal()  // in case the deletion failed before its hook ran
        #expect(try deleted.get())
        let deadline = Date().addingTimeInterval(hangGuardSeconds)  // a hang guard only
        while !count.isSet && Date() < deadline { usleep(1_000) }
        #expect(try count.get() == 0, "the open read the files being deleted")
        #expect(Realm.fileExists(for: config))
    }
}

/// `Realm.asyncOpen` (Spec X7): the callback runs on its queue with a realm
/// confined there, or with the open's error; cancel stops a callback that has not run.
@Suite struct AsyncOpenTests {
    /// The callback's outcome, handed to the test's thread.
    final class Outcome: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var error: Swift.Error?
        var onQueue = false
        var count: Int?
        var sameInstance = false
    }

    private static let queueKey = DispatchSpecificKey<String>()

    @Test("Spec X7") func readOnlyMissingFileFailsAndCreatesNothing() throws {
        let url = temporaryDirectory().appendingPathComponent("missing.realm")
        var configuration = Realm.Configuration(fileURL: url, objectTypes: allFixtureTypes)
        configuration.readOnly = true
        let queue = DispatchQueue(label: "async-open-readonly")
        let outcome = Outcome()
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            if case .failure(let error) = result { outcome.error = error }
            outcome.done.signal()
        }
        #expect(outcome.done.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect((outcome.error as? Realm.Error)?.code == .fileNotFound, "\(String(describing: outcome.error))")
        #expect(!FileManager.default.fileExists(atPath: url.path), "a failed read-only open created the file")
    }

    @Test("Spec X7") func opensOnTheCallbackQueue() throws {
        let url = temporaryDirectory().appendingPathComponent("opened.realm")
        let configuration = Realm.Configuration(fileURL: url, objectTypes: allFixtureTypes)
        let queue = DispatchQueue(label: "async-open")
        queue.setSpecific(key: Self.queueKey, value: "async-open")
        let outcome = Outcome()
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            outcome.onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == "async-open"
            switch result {
            case .success(let realm):
                // Confined to the queue: usable here, and the queue's cached instance.
                outcome.count = realm.objects(IntObj.self).count
                outcome.sameInstance = (try? Realm(configuration: configuration, queue: queue)) == realm
            case .failure(let error):
                outcome.error = error
            }
            outcome.done.signal()
        }
        #expect(outcome.done.wait(timeout: .now() + hangGuardSeconds) == .success)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.onQueue && outcome.count == 0 && outcome.sameInstance)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func cancelBeforeTheCallbackRunsMeansNoCallback() throws {
        let url = temporaryDirectory().appendingPathComponent("cancelled.realm")
        let configuration = Realm.Configuration(fileURL: url, objectTypes: allFixtureTypes)
        let queue = DispatchQueue(label: "async-open-cancelled")
        let outcome = Outcome()
        // The queue is busy until the task is cancelled, so the callback cannot have started.
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        let task = Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { _ in outcome.done.signal() }
        task.cancel()
        release.signal()
        // A callback that was going to come comes well within this (the open takes
        // milliseconds); none may.
        #expect(outcome.done.wait(timeout: .now() + 2) == .timedOut, "a cancelled open called back")
        // The same open, not cancelled, does call back on that queue.
        let control = Outcome()
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { _ in control.done.signal() }
        #expect(control.done.wait(timeout: .now() + hangGuardSeconds) == .success)
    }
}
