import Testing

@testable import StrataModel

/// A small world for the model's unit tests: one machine, two processes and one context of
/// every kind, and a driver that runs steps and records what they return.
struct World {
    static let main: ContextID = 1
    static let thread: ContextID = 2  // a thread with an event loop
    static let plainThread: ContextID = 3  // a thread without one
    static let queue: ContextID = 4  // a serial queue
    static let concurrent: ContextID = 5
    static let actor: ContextID = 6
    static let otherProcess: ContextID = 7  // a thread with a loop in process 2
    static let secondQueue: ContextID = 8

    static let file = Configuration(location: .path("/data/a.realm"))
    static let otherFile = Configuration(location: .path("/data/b.realm"))

    var state = ModelState()
    /// Every event of every step, in order.
    var events: [Event] = []

    init(readerSlotCount: Int = 64) {
        state = ModelState(readerSlotCount: readerSlotCount)
        let contexts: [(ContextID, ProcessID, ContextKind)] = [
            (Self.main, 1, .mainThread), (Self.thread, 1, .thread(hasEventLoop: true)),
            (Self.plainThread, 1, .thread(hasEventLoop: false)),
            (Self.queue, 1, .serialQueue(label: "q")), (Self.concurrent, 1, .concurrentQueue(label: "cq")),
            (Self.actor, 1, .actor), (Self.otherProcess, 2, .thread(hasEventLoop: true)),
            (Self.secondQueue, 1, .serialQueue(label: "q2")),
        ]
        for (id, process, kind) in contexts {
            _ = state.perform(Step(id, .addContext(id, process: process, kind: kind)))
        }
    }

    /// Runs a step and returns its outcome.
    @discardableResult
    mutating func run(_ context: ContextID, _ operation: Operation) -> Outcome {
        let before = state
        let outcome = state.perform(Step(context, operation))
        events.append(contentsOf: outcome.events)
        let crashed = Explorer.isCrash(operation)
        let violations = state.invariantViolations() + state.transitionViolations(from: before, crashed: crashed)
        #expect(violations.isEmpty, "\(operation): \(violations)")
        return outcome
    }

    /// Runs a step that must succeed and returns its value.
    @discardableResult
    mutating func ok(
        _ context: ContextID, _ operation: Operation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Value {
        let outcome = run(context, operation)
        guard case .success(let value) = outcome.result else {
            Issue.record("\(operation) returned \(outcome.result)", sourceLocation: sourceLocation)
            return .done
        }
        return value
    }

    /// Runs a step that must be rejected and returns the error.
    @discardableResult
    mutating func fails(
        _ context: ContextID, _ operation: Operation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ModelError? {
        let outcome = run(context, operation)
        guard case .failure(let error) = outcome.result else {
            Issue.record("\(operation) should fail, returned \(outcome.result)", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// Opens `configuration` in `context` as `id` and returns the instance the model gave.
    @discardableResult
    mutating func open(
        _ context: ContextID, _ id: RealmID, _ configuration: Configuration = World.file,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> RealmID? {
        guard
            case .realm(let realm) = ok(
                context, .open(configuration, confinement: .callingContext, as: id),
                sourceLocation: sourceLocation)
        else { return nil }
        return realm
    }

    /// Commits a write of `mutations` through `realm`.
    mutating func write(
        _ context: ContextID, _ realm: RealmID, _ mutations: [Mutation],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        ok(
            context, .writeBlock(realm, mutations, ending: .commit, withoutNotifying: [], fate: .success),
            sourceLocation: sourceLocation)
    }

    /// The primary keys and values a Results over every `Item` shows through `realm`.
    mutating func items(_ context: ContextID, _ realm: RealmID, handle: HandleID) -> [Int] {
        ok(context, .objects(realm, .all("Item"), as: handle))
        guard case .elements(let readings) = ok(context, .read(handle)) else { return [] }
        return readings.map(\.primaryKey)
    }

    func readVersion(_ realm: RealmID) -> Version? { state.realms[realm]?.readVersion }
    func newest(_ configuration: Configuration = World.file) -> Version? {
        state.files[configuration.location]?.newest
    }

    /// Events of one observer, in order.
    func events(of observer: ObserverID) -> [Event] {
        events.filter {
            switch $0 {
            case .didChange(let o), .refreshRequired(let o), .initial(let o, _), .update(let o, _, _),
                .objectChanged(let o, _), .objectDeleted(let o), .callbackRefreshed(let o, _),
                .callbackFailed(let o, _):
                return o == observer
            default:
                return false
            }
        }
    }
}

func item(_ key: Int, _ value: Int? = nil) -> Mutation {
    .create(type: "Item", primaryKey: key, value: value ?? key)
}
