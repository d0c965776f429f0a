import Foundation
import StrataStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One realm file as this process has it open: the engine store every realm of the file
/// shares, the access mode (Spec X11), the frozen realms by version (Spec F5), and the
/// autorefresh watcher (Spec V7).
///
/// Sendable: its mutable state sits behind `state`. Lives while any realm of the file does.
final class RealmFile: Sendable {
    let key: String
    let path: String
    let store: Store
    let readOnly: Bool
    let isInMemory: Bool
    /// An in-memory realm's share of its database among processes (Spec X8, N24).
    private let membership: InMemoryMembership?

    struct State {
        /// Frozen realms by version: freezing twice at one version gives one realm.
        var frozen: [UInt64: RealmCoreLink] = [:]
        /// Schemas of classes checked against this file, by class.
        var checkedClasses: [ObjectIdentifier: ClassInfo] = [:]
        /// The schema version this process opened the file with.
        var schemaVersion: UInt64?
    }

    let state = Lock(State())
    let watcher: CommitWatcher
    /// What this process's commits set, for observers (Spec N11, N20, N22).
    let journal = ChangeJournal()
    /// The seeded bugs of the API layer (`APISeededBugs`), for harness validation: empty in
    /// production. Taken from the opening configuration's `APIHooks` and kept here, where every
    /// access checks it.
    let bugs: APISeededBugs

    private init(
        key: String, path: String, store: Store, readOnly: Bool, isInMemory: Bool,
        membership: InMemoryMembership? = nil, bugs: APISeededBugs
    ) {
        self.key = key
        self.path = path
        self.store = store
        self.readOnly = readOnly
        self.isInMemory = isInMemory
        self.membership = membership
        self.bugs = bugs
        watcher = CommitWatcher(store: store)
    }

    /// Set once a realm of this process committed without a slot (async writes, Spec D10).
    let madeDeferredCommits = Atomic<Bool>(false)
    /// Where async groups are made durable (Spec D10). A queue of its own, not a global one: a
    /// global queue runs at most one block per core, and busy cores would hold a sync back.
    let groupSyncQueue = DispatchQueue(label: "strata.group-sync")

    deinit {
        watcher.stop()
        // The next opener of a file no process has open rebuilds its versions from the slots:
        // async commits whose group sync never ran must get their slot now (Spec D13).
        if madeDeferredCommits.load(ordering: .acquiring) { _ = try? store.makeDeferredCommitsDurable() }
        store.close()
        membership?.leave()  // the last process to close an in-memory realm deletes it (Spec X8)
    }

    // MARK: the process's open files

    private static let open = Lock<[String: WeakFile]>([:])

    /// The open file of `configuration`, opening it if no realm of this process has it open.
    /// - Throws: X11's error when it is open with the other access mode; X5 to X12's open errors.
    static func open(_ configuration: Realm.Configuration) throws(Realm.Error) -> RealmFile {
        TeardownThread.shared.start()  // before any realm can be released on an exiting thread
        let key = configuration.fileKey
        let result: Result<RealmFile, Realm.Error> = Self.open.withLock { files in
            // Spec X32: one path is either a file or an in-memory realm in this process.
            if let otherKey = configuration.otherInMemorySettingFileKey, files[otherKey]?.file != nil {
                return .failure(.differentInMemorySettings(path: configuration.path, period: true))
            }
            if let file = files[key]?.file {
                guard file.readOnly == configuration.readOnly else {
                    return .failure(.differentReadPermissions(path: configuration.path, period: true))  // Spec X11
                }
                return .success(file)
            }
            do throws(Realm.Error) {
                let file = try make(configuration)
                files[key] = WeakFile(file: file)
                return .success(file)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The file of `key` if a realm of this process has it open (Spec X25).
    static func openFile(key: String) -> RealmFile? {
        Self.open.withLock { $0[key]?.file }
    }

    private static func make(_ configuration: Realm.Configuration) throws(Realm.Error) -> RealmFile {
        if let key = configuration.encryptionKey {
            guard key.count == 64 else { throw Realm.Error.encryptionKeyLength }  // Spec X17
            throw Realm.Error.encryptionUnsupported
        }
        let path = configuration.path
        let hooks = configuration._engine?.hooks ?? .none
        if let sim = configuration._engine?.simulatedStore {
            let store = try engine(path, opening: true) {
                try Store.open(.processLocal(sim), options: StoreOptions(hooks: hooks))
            }
            return RealmFile(
                key: configuration.fileKey, path: path, store: store, readOnly: false, isInMemory: false,
                bugs: configuration._api.bugs)
        }
        if let identifier = configuration.inMemoryIdentifier {
            // Spec X8, N24: shared with every process that has the identifier open.
            let membership = try InMemoryMembership.join(identifier: identifier)
            do throws(Realm.Error) {
                let store = try engine(path, opening: true) {
                    try Store.open(.file(membership.path), options: StoreOptions(create: true, hooks: hooks))
                }
                return RealmFile(
                    key: configuration.fileKey, path: path, store: store, readOnly: false, isInMemory: true,
                    membership: membership, bugs: configuration._api.bugs)
            } catch {
                membership.leave()
                throw error
            }
        }
        try checkOpenable(path: path, readOnly: configuration.readOnly)
        if let seed = configuration.seedFilePath, !Store.fileExists(path: path) {
            try copySeed(from: seed.path, to: path)  // Spec X5
        }
        let options = StoreOptions(
            create: !configuration.readOnly, readOnly: configuration.readOnly,
            assumeImmutable: configuration.assumeImmutable, hooks: hooks)  // Spec X30
        let store = try engine(path, opening: true) { try Store.open(.file(path), options: options) }
        return RealmFile(
            key: configuration.fileKey, path: path, store: store, readOnly: configuration.readOnly,
            isInMemory: false, bugs: configuration._api.bugs)
    }

    /// Spec X6: the errors of paths the engine would report less precisely.
    private static func checkOpenable(path: String, readOnly: Bool) throws(Realm.Error) {
        var status = stat()
        if stat(path, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR {
                throw Realm.Error.fromErrno(EISDIR, path: path, operation: "open")
            }
            if status.st_size > 0 && status.st_size < 4096 {
                throw Realm.Error(
                    .invalidDatabase,
                    "\(Realm.Error.openPrefix(path)): file is non-empty but too small "
                        + "(\(status.st_size) bytes) to be a valid Realm.", path: path)
            }
            let mode = readOnly ? R_OK : (R_OK | W_OK)
            if access(path, mode) != 0 {
                if readOnly {
                    throw Realm.Error(
                        .filePermissionDenied,
                        "\(Realm.Error.openPrefix(path)): Permission denied. "
                            + "Please use a path where your app has read permissions.", path: path)
                }
                throw Realm.Error.fromErrno(errno, path: path, operation: "open")
            }
            return
        }
        let code = errno
        if code == ENOTDIR { throw Realm.Error.fromErrno(ENOTDIR, path: path, operation: "open") }
        // Spec X31: a symlink loop (ELOOP) or a forbidden directory is not a missing file.
        if code != ENOENT { throw Realm.Error.fromErrno(code, path: path, operation: "open") }
        if readOnly { throw Realm.Error.fromErrno(ENOENT, path: path, operation: "open") }
        let parent = (path as NSString).deletingLastPathComponent
        if stat(parent.isEmpty ? "." : parent, &status) != 0 {
            let parentCode = errno
            if parentCode == ENOTDIR { throw Realm.Error.fromErrno(ENOTDIR, path: path, operation: "open") }
            throw Realm.Error(
                .fileNotFound, "\(Realm.Error.openPrefix(path, realmFile: false)): parent directory does not exist",
                path: path)
        }
        if (status.st_mode & S_IFMT) != S_IFDIR { throw Realm.Error.fromErrno(ENOTDIR, path: path, operation: "open") }
    }

    private static func copySeed(from seed: String, to path: String) throws(Realm.Error) {
        do {
            try FileManager.default.copyItem(atPath: seed, toPath: path)
        } catch {
            throw Realm.Error(.fileAccess, "Failed to copy the seed file '\(seed)' to '\(path)': \(error)")
        }
    }

    // MARK: frozen realms

    /// The frozen realm of `version`, made by `make` if there is none alive (Spec F5).
    func frozenRealm(version: Version, make: () throws(Realm.Error) -> RealmCore) throws(Realm.Error) -> RealmCore {
        if let existing = state.withLock({ $0.frozen[version.rawValue]?.core }) { return existing }
        let made = try make()
        return state.withLock { state in
            if let existing = state.frozen[version.rawValue]?.core { return existing }
            state.frozen = state.frozen.filter { $0.value.isLive }
            state.frozen[version.rawValue] = made.link
            return made
        }
    }

    // MARK: deleting files

    /// Spec X1, X2: removes a closed realm's files; throws `.alreadyOpen` while any process
    /// has it open (every opener holds the lock file's session lock shared).
    ///
    /// Spec X28: the deletion runs under the lock of the process's open files, which every open
    /// takes to find or open its file: an open of the path on another thread waits until the
    /// files are gone and then creates a new file, instead of opening the files being deleted.
    /// (Other processes wait on the lock file's lock instead, and the engine reopens a data
    /// file deleted while they waited.)
    static func deleteFiles(path: String) throws(Realm.Error) -> Bool {
        try Self.open.withLock { (_) throws(Realm.Error) -> Bool in try deleteFilesWhileLocked(path: path) }
    }

    /// What runs while `deleteFiles` holds the lock of the open files, after the lock file's
    /// check and before anything is deleted, for one path: a test's way to open the path then.
    static let whileDeleting = Lock<[String: @Sendable () -> Void]>([:])

    private static func deleteFilesWhileLocked(path: String) throws(Realm.Error) -> Bool {
        let lockPath = path + ".lock"
        let descriptor = Glibc.open(lockPath, O_RDWR | O_CLOEXEC)
        // Held until the files are gone (closing the descriptor releases the lock): an opener in
        // another process that reaches the session lock meanwhile waits for the deletion, then
        // opens the new file (the engine reopens a data file deleted while it waited, Spec X28).
        defer { if descriptor >= 0 { close(descriptor) } }
        if descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) != 0 { throw Realm.Error.alreadyOpen(path: path) }
        if let hook = whileDeleting.withLock({ $0[path] }) { hook() }
        // Spec X1, X2: the lock file stays (realm-core's delete_files keeps it too): its lock is
        // what keeps an open out while the files go, and a new one made by a racing open would
        // not exclude anything.
        let existed = try engine(path) { try Store.deleteFiles(path: path, keepingLockFile: true) }
        return existed
    }
}

struct WeakFile: Sendable {
    weak var file: RealmFile?
}
