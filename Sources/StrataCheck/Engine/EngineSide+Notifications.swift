import Foundation
import Strata
import StrataModel

// The engine side of collection observers: `observe` on Results and Lists through the throwing
// `package` entry points, `invalidate()` on their tokens, commits that skip tokens,
// and a record of every callback for `DeliveryOracle`.
//
// When callbacks run. Only a queue context's realms can observe (a controlled thread runs no
// event loop: Spec C11 rejects `observe` there, in the model and the engine). Strata delivers
// on a queue in blocks it adds to the queue (a delivery turn after `observe` and after each
// commit of the realm, Spec N7, N8), and synchronously inside `refresh()` (N12) and
// `beginWrite` (N17). `perform(_:)` waits, at the end of each operation of a queue context, for
// the blocks the operation left on its queue, so every callback runs inside the step of its own
// context and the run replays. A queue realm does not autorefresh in these runs (`Runner`), so
// the turns another context's commit schedules (Spec V9) call no collection observer.

/// One callback an observer received, as the harness saw it inside the callback.
struct EngineDelivery: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case initial
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        /// An object observer's `.change`, its properties in the order given.
        case objectChange([ObjectPropertyChange])
        case objectDeleted
        case error(String)
    }

    var observer: ObserverID
    var kind: Kind
    /// The collection the callback carried, read inside it; nil when it could not be read.
    var contents: [Reading]?
    /// Why the collection could not be read.
    var readFailure: String?
    /// The engine version the observed realm read during the callback.
    var engineVersion: UInt64?
    /// The number (`QueuePool.numberKey`) of the queue the callback ran on, nil off a queue.
    var queueNumber: Int?
    /// Whether it ran inside the `observe` call that registered it (Spec N8 forbids that).
    var insideObserve: Bool

    var description: String {
        let version = engineVersion.map { "engine v\($0)" } ?? "no version"
        let contents = self.contents.map { Self.brief($0.map(\.primaryKey)) } ?? "unreadable"
        switch kind {
        case .initial: return "\(observer) initial at \(version): \(contents)"
        case .update(let deletions, let insertions, let modifications):
            return "\(observer) update at \(version): deletions \(Self.brief(deletions)), insertions "
                + "\(Self.brief(insertions)), modifications \(Self.brief(modifications)) -> \(contents)"
        case .objectChange(let changes): return "\(observer) change at \(version): \(changes)"
        case .objectDeleted: return "\(observer) deleted at \(version)"
        case .error(let message): return "\(observer) error: \(message)"
        }
    }

    /// A list as text, its middle left out when long (a bulk write's hundreds of rows would
    /// bury the failure).
    static func brief(_ values: [Int]) -> String {
        guard values.count > 12 else { return "\(values)" }
        let shown =
            values.prefix(6).map(String.init) + ["… \(values.count - 10) more …"]
            + values.suffix(4).map(String.init)
        return "[" + shown.joined(separator: ", ") + "]"
    }
}

/// The realm of an observed object, set once `observe` returned; read by its callbacks, which
/// run in the realm's context (confined: `@unchecked`).
final class ObservedRealm: @unchecked Sendable {
    var realm: Realm?
}

/// One property of an object `.change` (Spec N20, N21), its values as text (nil: none).
struct ObjectPropertyChange: Sendable, Hashable, CustomStringConvertible {
    var name: String
    var oldValue: String?
    var newValue: String?

    var description: String { "\(name) \(oldValue ?? "nil") -> \(newValue ?? "nil")" }
}

/// The callbacks of a run, appended by whichever thread runs them (the context's controlled
/// thread inside `refresh()` or `beginWrite`, a dispatch thread running a queue's delivery
/// turn) and taken by the driver after each step.
final class DeliveryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [EngineDelivery] = []
    private var registering = false
    private var active = false

    /// Whether the run has registered an observer (from then on queue steps wait for their
    /// queue's pending blocks).
    var isActive: Bool { lock.withLock { active } }

    /// Marks the span of an `observe` call: a callback inside it breaks Spec N8.
    func registering(_ flag: Bool) {
        lock.withLock {
            registering = flag
            if flag { active = true }
        }
    }

    func append(_ delivery: EngineDelivery) {
        lock.withLock {
            var delivery = delivery
            delivery.insideObserve = registering
            entries.append(delivery)
        }
    }

    /// The callbacks since the last call, in the order they ran.
    func take() -> [EngineDelivery] {
        lock.withLock {
            defer { entries = [] }
            return entries
        }
    }

    func clear() { lock.withLock { entries = [] } }

    /// Records `change` for `observer`: the collection is read here, inside the callback, where
    /// it shows the realm's version of the moment (Spec N6). Reading may reach the engine's
    /// switch points, so it happens before the log's lock is taken.
    func record<C>(
        _ observer: ObserverID, _ change: RealmCollectionChange<C>,
        read: (C) throws(Realm.Error) -> [Reading], version: (C) -> UInt64?
    ) {
        var delivery = EngineDelivery(
            observer: observer, kind: .initial, contents: nil, readFailure: nil,
            engineVersion: nil,
            queueNumber: DispatchQueue.getSpecific(key: QueuePool.numberKey),
            insideObserve: false)
        let collection: C
        switch change {
        case .initial(let value):
            collection = value
        case .update(let value, let deletions, let insertions, let modifications):
            delivery.kind = .update(deletions: deletions, insertions: insertions, modifications: modifications)
            collection = value
        case .error(let error):
            delivery.kind = .error("\(error)")
            append(delivery)
            return
        }
        delivery.engineVersion = version(collection)
        do throws(Realm.Error) {
            delivery.contents = try read(collection)
        } catch {
            delivery.readFailure = error.message
        }
        append(delivery)
    }

    /// Records an object observer's `change`, with the version `realm` (the observed object's)
    /// reads during the callback.
    func record<T>(_ observer: ObserverID, _ change: ObjectChange<T>, realm: Realm?) {
        var delivery = EngineDelivery(
            observer: observer, kind: .objectDeleted, contents: nil, readFailure: nil,
            engineVersion: realm?._readVersion,
            queueNumber: DispatchQueue.getSpecific(key: QueuePool.numberKey),
            insideObserve: false)
        switch change {
        case .change(_, let properties):
            delivery.kind = .objectChange(
                properties.map {
                    ObjectPropertyChange(
                        name: $0.name, oldValue: Self.text($0.oldValue),
                        newValue: Self.text($0.newValue))
                })
        case .deleted:
            delivery.kind = .objectDeleted
        case .error(let error):
            delivery.kind = .error("\(error)")
        }
        append(delivery)
    }

    /// A property value as the model describes it: an Int's digits, nil for none.
    private static func text(_ value: Any?) -> String? {
        guard let value else { return nil }
        if let number = value as? Int { return String(number) }
        return "\(value)"
    }
}

extension EngineSide {
    /// The notification operations, or nil for any other.
    func dispatchNotification(_ operation: StrataModel.Operation, in context: ContextID)
        throws(Realm.Error) -> Observation?
    {
        switch operation {
        case .observeCollection(let handleID, _, nil, false, let id):
            guard let handle = handle(handleID) else { return unsupported(operation) }
            let token = try observe(handle, as: id)
            lock.withLock { _ in tokens[id] = token }
            return .done
        case .observeObject(let handleID, let keyPaths, let id):
            guard case .object(let object) = handle(handleID) else { return unsupported(operation) }
            let token = try observe(object, keyPaths: keyPaths, as: id)
            lock.withLock { _ in tokens[id] = token }
            return .done
        case .invalidateToken(let id):
            // Spec C13: from any context. Spec N2: no callback after it returns.
            guard let token = lock.withLock({ _ in tokens[id] }) else { return unsupported(operation) }
            token.invalidate()
            return .bool(true)
        case .turnLoop:
            // The wait for the queue's pending blocks is `perform(_:)`'s (a thread context
            // runs no loop: nothing to do, as the model says, Spec V8).
            return .done
        case .observeCollection, .observeRealm:
            return unsupported(operation)
        default:
            return nil
        }
    }

    /// `observe` on the collection `handle` names; an object cannot be observed as one.
    private func observe(_ handle: EngineHandle, as id: ObserverID) throws(Realm.Error) -> NotificationToken {
        let log = deliveries
        log.registering(true)
        defer { log.registering(false) }
        switch handle {
        case .itemResults(let results):
            return try results._observe(keyPaths: nil) { change in
                log.record(
                    id, change, read: { results throws(Realm.Error) in try EngineSide.readings(results) },
                    version: { $0.realm?._readVersion })
            }
        case .otherResults(let results):
            return try results._observe(keyPaths: nil) { change in
                log.record(
                    id, change, read: { results throws(Realm.Error) in try EngineSide.readings(results) },
                    version: { $0.realm?._readVersion })
            }
        case .linkerResults(let results):
            return try results._observe(keyPaths: nil) { change in
                log.record(
                    id, change, read: { results throws(Realm.Error) in try EngineSide.readings(results) },
                    version: { $0.realm?._readVersion })
            }
        case .list(let list):
            return try list._observe(keyPaths: nil) { change in
                log.record(
                    id, change,
                    read: { list throws(Realm.Error) in
                        // Spec T5: a List whose owner is gone holds nothing.
                        list.isInvalidated ? [] : try EngineSide.readings(list)
                    }, version: { $0.realm?._readVersion })
            }
        case .object:
            throw Realm.Error(.programmerError, "strata-check: an object is no collection")
        }
    }

    /// `observe(keyPaths:)` on `object`; its callbacks read the version through the object's
    /// realm, taken now (a deleted object has none).
    private func observe(_ object: Object, keyPaths: [String]?, as id: ObserverID)
        throws(Realm.Error) -> NotificationToken
    {
        let log = deliveries
        let observed = ObservedRealm()
        log.registering(true)
        let token: NotificationToken
        do {
            token = try object._observe(keyPaths: keyPaths) { (change: ObjectChange<Object>) in
                log.record(id, change, realm: observed.realm)
            }
        } catch {
            log.registering(false)
            throw error
        }
        log.registering(false)
        // Only now: `object.realm` traps where `observe` throws (a wrong thread, Spec C5).
        observed.realm = object.realm
        return token
    }

    /// `commitWrite(withoutNotifying:)` with the tokens of `skipped` (Spec N4).
    func commit(_ realm: Realm, skipping skipped: [ObserverID]) throws(Realm.Error) {
        let skipping = lock.withLock { _ in skipped.compactMap { tokens[$0] } }
        guard !skipping.isEmpty else {
            try realm._commitWrite()
            return
        }
        do {
            try realm.commitWrite(withoutNotifying: skipping)
        } catch let error as Realm.Error {
            throw error
        } catch {
            throw Realm.Error(.fail, "\(error)")
        }
    }
}
