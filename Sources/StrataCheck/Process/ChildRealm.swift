import Foundation
import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// What the other process of an interprocess test does (`strata-fuzz child-realm`): the child
/// half of Realm's interprocess tests (InterprocessTests.m), through the Realm API on the file the
/// parent names, with the harness's `Item` class.
public enum InterprocessAction: String, CaseIterable, Sendable {
    /// Adds `count` Items in one write, then prints 'count N'.
    case create
    /// Opens the file, reads the number of Items and prints 'count N': nothing else.
    case count
    /// Begins a write, adds an Item, prints 'in-write' and exits at once, without committing,
    /// cancelling or closing (a process that dies inside its write).
    case abandonWrite = "abandon-write"
    /// InterprocessTests.testBidirectionalCommunication: opens the in-memory realm whose identifier is the path, and takes turns with the
    /// parent: whenever Item 0's value is even and below `count`, adds 1 (the parent adds 1 to
    /// odd values). Prints 'done N' once the value reaches `count`.
    case alternateInMemory = "alternate-in-memory"
}

public enum ChildRealm {
    /// Runs `action` on the file at `path`; `emit` writes one output line.
    public static func run(
        _ action: InterprocessAction, path: String, count: Int,
        emit: (String) -> Void
    ) throws(Realm.Error) {
        if action == .alternateInMemory {
            emit("done \(try alternate(identifier: path, until: count, parity: 0))")
            return
        }
        let realm = try Realm._open(configuration: ChildWriter.configuration(path: path, engineBugs: []), queue: nil)
        switch action {
        case .create:
            try realm._beginWrite()
            let first = try realm._objects(Item.self)._count()
            for key in first..<(first + count) {
                _ = try realm._create(Item.self, value: ["primaryKey": key, "value": key], update: .error)
            }
            try realm._commitWrite()
            emit("count \(try realm._objects(Item.self)._count())")
        case .count:
            emit("count \(try realm._objects(Item.self)._count())")
        case .abandonWrite:
            try realm._beginWrite()
            let key = try realm._objects(Item.self)._count()
            _ = try realm._create(Item.self, value: ["primaryKey": key, "value": key], update: .error)
            emit("in-write")
            _exit(0)  // no rollback, no unlock, no close: the kernel drops the lock
        case .alternateInMemory:
            break  // handled above: it opens another realm
        }
    }
}

extension ChildRealm {
    /// The configuration of the in-memory realm `identifier` with the harness's classes.
    public static func inMemoryConfiguration(identifier: String) -> Realm.Configuration {
        Realm.Configuration(inMemoryIdentifier: identifier, objectTypes: CheckTypes.classes)
    }

    /// InterprocessTests.testBidirectionalCommunication: on a queue realm of the in-memory realm `identifier`, adds 1 to Item 0's value
    /// whenever it has `parity` and is below `limit`, until it reaches `limit`; returns the
    /// value seen last. Driven by the realm's observer (Spec N24: the other process's commits
    /// wake it), so it never polls.
    public static func alternate(
        identifier: String, until limit: Int, parity: Int,
        seconds: Int = 60
    ) throws(Realm.Error) -> Int {
        let queue = DispatchQueue(label: "strata.ipc08")
        Realm._declareSerial(queue)
        let done = DispatchSemaphore(value: 0)
        let turns = AlternateTurns(limit: limit, parity: parity, done: done)
        let configuration = inMemoryConfiguration(identifier: identifier)
        queue.async {
            do throws(Realm.Error) {
                let realm = try Realm._open(configuration: configuration, queue: queue)
                turns.realm = realm
                turns.token = try realm._observe { _, realm in turns.take(in: realm) }
                turns.take(in: realm)
            } catch {
                turns.finish(.failure(error))
            }
        }
        if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            queue.sync { turns.finish(.failure(Realm.Error.alternationTimedOut)) }
        }
        switch turns.outcome.withLock({ $0 }) {
        case .success(let value): return value
        case .failure(let error): throw error
        case nil: return -1
        }
    }
}

/// The state of one side of testBidirectionalCommunication's alternation: the realm and token are used only on the
/// side's queue (hence `@unchecked`); the outcome is read by the waiting thread after `done`.
private final class AlternateTurns: @unchecked Sendable {
    let limit: Int
    let parity: Int
    let done: DispatchSemaphore
    let outcome = Lock<Result<Int, Realm.Error>?>(nil)
    /// Kept until the end; the observer gets the realm as its argument, so it holds no cycle.
    var realm: Realm?
    var token: NotificationToken?

    init(limit: Int, parity: Int, done: DispatchSemaphore) {
        self.limit = limit
        self.parity = parity
        self.done = done
    }

    /// One look at Item 0: the side's turn adds 1; the limit ends the alternation.
    func take(in realm: Realm) {
        guard outcome.withLock({ $0 == nil }) else { return }
        do throws(Realm.Error) {
            // Its own commit wakes no callback (this one is running, Spec N5): look again after it.
            while let item = try realm._object(ofType: Item.self, forPrimaryKey: 0) {
                let value = item.value ?? 0
                if value >= limit { return finish(.success(value)) }
                guard value % 2 == parity else { return }
                try realm._beginWrite()
                item.value = value + 1
                try realm._commitWrite()
            }
        } catch {
            finish(.failure(error))
        }
    }

    func finish(_ result: Result<Int, Realm.Error>) {
        guard outcome.withLock({ $0 == nil }) else { return }
        outcome.withLock { $0 = result }
        token?.invalidate()
        token = nil
        realm = nil
        done.signal()
    }
}

extension Realm.Error {
    static let alternationTimedOut = Realm.Error(
        .fail, "testBidirectionalCommunication: the other process did not take its turns in time")
}
