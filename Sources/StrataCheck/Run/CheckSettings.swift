import CStrataSupport
import Foundation
import Strata
import StrataModel
import StrataStorage

/// What a run exercises.
public enum CheckMode: String, Sendable, CaseIterable {
    /// Controlled threads, no crashes.
    case controlled
    /// Controlled threads with crashes inside commits and between them.
    case crash
    /// Real threads left to the OS, checked afterwards from version stamps (`FreeRun`).
    case free
}

/// Where the engine's pages live during a run.
public enum CheckStore: String, Sendable, CaseIterable {
    /// `SimStore`: deterministic, crashable.
    case sim
    /// A real file in a scratch directory (no crashes: the disk cannot be captured).
    case file
}

/// Everything fixed before the choice stream starts deciding.
public struct CheckSettings: Sendable, Hashable {
    public var mode: CheckMode
    public var store: CheckStore
    public var threads: Int
    /// Operations per run (the stream may end a run earlier only by exhausting a replay).
    public var operations: Int
    /// Engine bugs switched on (harness validation).
    public var engineBugs: SeededBugSet
    /// A deliberately wrong model rule (harness validation).
    public var modelMutation: ModelMutation?
    /// Where file stores live.
    public var scratchDirectory: String
    /// Operation kinds this run never generates (by `OperationKind` name), for campaigns that
    /// must steer clear of a known open divergence.
    public var excludedKinds: Set<String> = []
    /// Which generator the choice stream is read by (`ReplayToken`'s `sc<generation>`): a
    /// token keeps meaning what it meant when it was printed. 1: before bulk writes; 2: before
    /// collection and object observers; 3: before async writes; 4: before reference releases,
    /// `@ThreadSafe` cells, `writeCopy`, async blocks left open or on a thread, and realms let
    /// go inside their writes and with async work; 5: before Linkers, their to-one links and
    /// sorts through them (Spec V20); 6: before iteration over Results (V15, V16); 7: before
    /// indexed `value` and equality queries (W26); 8: before aggregates (V21); 9: before
    /// filters spelled as predicate formats and through links (V23); 10: before Linkers' sets
    /// of Items (V24); 11: before Linkers' Maps of Items (V25); 12: before filters through
    /// collections (V23's ANY, NONE and `@max`).
    public var generation = CheckSettings.currentGeneration
    public static let currentGeneration = 15
    public static let generations = 1...currentGeneration

    public init(
        mode: CheckMode = .controlled, store: CheckStore = .sim, threads: Int = 3, operations: Int = 200,
        engineBugs: SeededBugSet = [], modelMutation: ModelMutation? = nil,
        scratchDirectory: String = CheckSettings.defaultScratchDirectory
    ) {
        self.mode = mode
        self.store = store
        self.threads = threads
        self.operations = operations
        self.engineBugs = engineBugs
        self.modelMutation = modelMutation
        self.scratchDirectory = scratchDirectory
    }
}

/// A deliberately wrong rule the harness must catch (its own validation): the model's
/// expectation is altered after the model computed it.
public enum ModelMutation: String, Sendable, Hashable, CaseIterable {
    /// Claims `refresh()` never reports a change (Spec V4 says it returns whether it moved).
    case refreshNeverMoves
    /// Claims a committed `create` makes no object (Spec W4/V1: the write's data is committed).
    case createdObjectsVanish
}

extension CheckSettings {
    /// Where runs keep their files unless told otherwise: a directory of the user's own in the
    /// temporary directory (`strata-check-<uid>`, made on first use). Creating a database lists
    /// its directory for temporaries abandoned by dead creators, so runs in a crowded /tmp
    /// would pay for every entry there; the runs delete their files, so this directory stays
    /// small. It is used only if it is a real directory (not a symbolic link another user may
    /// have planted) owned by this user and closed to others; otherwise a fresh private one
    /// (`mkdtemp`) is made, and failing that the temporary directory itself is used.
    public static let defaultScratchDirectory: String = {
        let base = NSTemporaryDirectory()
        return privateDirectory(in: base) ?? base
    }()

    /// Where a run on the simulated store puts the files its `writeCopy` steps make: the same
    /// kind of private directory in a memory-backed file system (`/dev/shm` when it is a tmpfs
    /// with room to spare), else `defaultScratchDirectory`. Such a run checks a copy by opening
    /// it and reading it whole (Spec X3); a disk's flushes and journal add nothing to that check
    /// and cost a third of a controlled run's time (`Docs/harness.md`). Runs on a real file keep
    /// their copies beside it, on the disk they test.
    public static let defaultCopyDirectory: String = {
        let base = "/dev/shm"
        guard strata_is_tmpfs_with_room(base, 256 << 20) == 1 else { return defaultScratchDirectory }
        return privateDirectory(in: base) ?? defaultScratchDirectory
    }()

    /// `base/strata-check-<uid>` if it is (or can be made) a real directory owned by this user
    /// and closed to others, else a fresh `mkdtemp` directory in `base`, else nil.
    static func privateDirectory(in base: String) -> String? {
        let path = (base as NSString).appendingPathComponent("strata-check-\(getuid())")
        if mkdir(path, 0o700) == 0 || errno == EEXIST {
            var status = stat()
            if lstat(path, &status) == 0, status.st_uid == getuid(), (status.st_mode & S_IFMT) == S_IFDIR,
                status.st_mode & 0o077 == 0
            {
                return path
            }
        }
        var template = Array(((base as NSString).appendingPathComponent("strata-check-XXXXXX")).utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
        }
    }
}
