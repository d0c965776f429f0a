import Dispatch
import Foundation
import Strata
import StrataModel
import StrataStorage

/// One context of a generated test (`ScriptRenderer`): a dedicated thread that runs the
/// closures handed to it one at a time, so that thread confinement is real; for a queue
/// context, each closure runs in a block on the context's serial queue (`DispatchQueue.sync`
/// on that thread), as the harness's controlled thread runs it (`EngineSide.perform`).
///
/// `Sendable`: the thread and the queue are its own; the closures it runs carry no confined
/// value in or out (they name values through the `ScriptWorld`'s tables).
final class ScriptContext: Sendable {
    let context: ContextID
    let queue: DispatchQueue?
    private let worker: ScriptThread
    private let world: ScriptWorld

    init(_ context: ContextID, queue: DispatchQueue?, world: ScriptWorld) {
        self.context = context
        self.queue = queue
        self.world = world
        worker = ScriptThread(name: "strata-script \(context)")
    }

    /// Runs `body` on the context and waits for it: the observation it returns, or the error
    /// it throws as the harness reports one.
    func run(_ body: @escaping @Sendable (ScriptWorld) throws -> Observation) -> Observation {
        start(body).wait()
    }

    /// Hands `body` to the context without waiting (an operation that blocks, such as a
    /// `beginWrite` waiting for the write lock): `wait()` on the result where it returns.
    func start(_ body: @escaping @Sendable (ScriptWorld) throws -> Observation) -> ScriptHandOff {
        let handOff = ScriptHandOff(context)
        let world = self.world
        let queue = self.queue
        worker.submit {
            let perform = { handOff.finish(ScriptContext.observe { try body(world) }) }
            if let queue { queue.sync(execute: perform) } else { perform() }
        }
        return handOff
    }

    /// A thrown `Realm.Error` is an observation, as `EngineSide` reports it; any other error
    /// is the script's own (a value it does not hold).
    private static func observe(_ body: () throws -> Observation) -> Observation {
        do {
            return try body()
        } catch let error as Realm.Error {
            return .failure(code: error.modelCode, message: error.message)
        } catch {
            return .failure(code: "harness", message: "\(error)")
        }
    }

    func stop() { worker.stop() }
}

/// An operation handed to a context: its observation once it returns.
final class ScriptHandOff: Sendable {
    /// An operation that takes longer is taken for hung: the test fails instead of waiting
    /// for ever (the thread is left behind).
    static let waitSecondsMax = 60
    private let context: ContextID
    private let done = DispatchSemaphore(value: 0)
    private let box = ObservationBox()

    init(_ context: ContextID) { self.context = context }

    func finish(_ observation: Observation) {
        box.set(observation)
        done.signal()
    }

    /// Waits for the operation to return (once).
    func wait() -> Observation {
        guard done.wait(timeout: .now() + .seconds(Self.waitSecondsMax)) == .success else {
            return .failure(code: "harness", message: "\(context) did not return within \(Self.waitSecondsMax) s")
        }
        return box.get()
    }
}

/// A thread that runs jobs one at a time, in the order they were submitted.
final class ScriptThread: @unchecked Sendable {
    /// Guards `jobs` and `stopping`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var stopping = false

    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread once the jobs submitted so far are done.
    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
