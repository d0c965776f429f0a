import Dispatch
import Foundation
import Strata
import StrataModel
import StrataSimulation
import StrataStorage

/// The world of a generated test (`ScriptRenderer`): the file (on a `SimStore` or a real
/// file), its contexts, and the values the run names (realms rN, accessors hN, references),
/// which the test body names but only the contexts that may use them touch.
///
/// The tables follow the rules the harness's engine side follows (`RealmTable`,
/// `AccessorTable`), so an identifier means in the test what it meant in the run.
/// Internal, like the harness's `Item` and `Other` it stores: generated tests
/// `@testable import StrataCheck`.
/// `@unchecked Sendable`: `lock` guards every table; the confined values in them are used only
/// by the closures a context runs, on that context, as the run used them.
final class ScriptWorld: @unchecked Sendable {
    private let lock = Lock<Void>(())
    private var realms = RealmTable()
    private var accessors = AccessorTable()
    private var currentConfiguration: Realm.Configuration
    private var contexts: [ContextID: ScriptContext] = [:]
    /// The simulated disk of the current boot (nil on a real file).
    var disk: SimStore?
    let name: String
    var boot = 0
    /// Crash capture and injected faults, as the run armed them (`RunHooks`).
    let hooks = RunHooks()
    let engineHooks: EngineHooks
    private let filePath: String?

    private static let worldCounter = Lock(0)

    /// A new file with the harness's schema (with Linkers for a generation 6 run that links),
    /// on the store kind of the run, with the engine bugs of the run switched on.
    init(
        store: CheckStore, bugs: SeededBugSet, activeVersionLimit: UInt? = nil, linking: Bool = false,
        indexed: Bool = false
    ) throws {
        let number = Self.worldCounter.withLock { count -> Int in
            count += 1
            return count
        }
        name = "script-\(getpid())-\(number)"
        let hooks = self.hooks
        engineHooks = EngineHooks(yield: { hooks.yield($0) }, fault: { hooks.fault($0) }, bugs: bugs.engine)
        var configuration = Realm.Configuration(objectTypes: linking ? CheckTypes.linkingClasses : CheckTypes.classes)
        configuration._api = bugs.apiHooks
        configuration.maximumNumberOfActiveVersions = activeVersionLimit
        switch store {
        case .sim:
            let disk = try SimStore(name: "\(name)-boot0", reservationBytes: 256 << 20)
            self.disk = disk
            filePath = nil
            configuration.fileURL = URL(fileURLWithPath: "/strata-check/\(name).realm")
            configuration._engine = .init(
                simulatedStore: disk, hooks: engineHooks,
                indexedProperties: indexed ? CheckTypes.indexedProperties : [:])
        case .file:
            let path = (CheckSettings.defaultScratchDirectory as NSString).appendingPathComponent("\(name).realm")
            _ = try? Store.deleteFiles(path: path)
            filePath = path
            configuration.fileURL = URL(fileURLWithPath: path)
            configuration._engine = .init(
                hooks: engineHooks, indexedProperties: indexed ? CheckTypes.indexedProperties : [:])
        }
        currentConfiguration = configuration
        // As the runner does: the schema is written before the run, outside its operations.
        _ = try Realm._open(configuration: configuration, queue: nil)
    }

    /// Drops every value and ends the contexts' threads; the test calls it in a `defer`.
    func finish() {
        reset()
        for context in lock.withLock({ _ in Array(contexts.values) }) { context.stop() }
        if let filePath { _ = try? Store.deleteFiles(path: filePath) }
    }

    /// Drops every value the run named (a crash ends every instance of the old boot).
    func reset() {
        let dropped = lock.withLock { _ in
            defer {
                realms = RealmTable()
                accessors = AccessorTable()
            }
            return (realms, accessors)
        }
        _ = dropped  // released here, outside the lock: a release may unpin
    }

    /// The configuration every `open` of the run means (the current boot's disk).
    var configuration: Realm.Configuration { lock.withLock { _ in currentConfiguration } }

    /// Runs `body` on the tables under the lock.
    func withTables<R>(_ body: (inout RealmTable, inout AccessorTable) -> R) -> R {
        lock.withLock { _ in body(&realms, &accessors) }
    }

    func moveTo(_ configuration: Realm.Configuration) {
        lock.withLock { _ in currentConfiguration = configuration }
    }

    // MARK: contexts

    /// A thread context.
    func thread(_ context: ContextID) -> ScriptContext { add(context, queue: nil) }

    /// A serial queue context: its closures run in blocks on its own queue.
    func queue(_ context: ContextID) -> ScriptContext {
        add(context, queue: DispatchQueue(label: "strata-script.\(name).\(context)"))
    }

    private func add(_ context: ContextID, queue: DispatchQueue?) -> ScriptContext {
        let added = ScriptContext(context, queue: queue, world: self)
        lock.withLock { _ in contexts[context] = added }
        return added
    }

    /// The serial queue of a queue context (`Realm(configuration:queue:)`).
    func queue(of context: ContextID) throws -> DispatchQueue {
        guard let queue = lock.withLock({ _ in contexts[context]?.queue }) else {
            throw CheckUsageError("\(context) is not a queue context")
        }
        return queue
    }
}
