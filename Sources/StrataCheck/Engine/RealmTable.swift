import Strata
import StrataModel

/// A realm instance the harness no longer holds, to recognise it if the cache returns it.
final class WeakInstance {
    weak var instance: AnyObject?
    init(_ instance: AnyObject) { self.instance = instance }
}

/// The realms a caller holds, named by the model's identifiers and counted as Spec C1 counts
/// them: `Realm()` on a context with the same configuration returns the instance it already
/// has, so the model's identifier for an `open` is an earlier one whenever the engine returned
/// an instance the caller holds (or held, while accessors kept it alive).
///
/// Confined values inside: the owner (`EngineSide`, `ScriptWorld`) guards it with its lock.
struct RealmTable {
    private(set) var realms: [RealmID: Realm] = [:]
    /// How many `open` calls returned each realm and were not released yet (Spec C1).
    private var holders: [RealmID: Int] = [:]
    /// Realms the caller dropped (Spec C1: the cache may still hold them while accessors do).
    private var released: [RealmID: WeakInstance] = [:]

    subscript(id: RealmID) -> Realm? { realms[id] }

    /// The realm `id` names, also one the caller let go of while something else (an accessor,
    /// its context's hold for unfinished work, Spec C1, A21) keeps the instance alive.
    func instance(_ id: RealmID) -> Realm? {
        if let realm = realms[id] { return realm }
        return released[id]?.instance.flatMap { Realm(_instance: $0) }
    }

    /// Holds `opened`, which an `open` the model names `id` returned; returns the identifier
    /// the caller knows it by.
    mutating func hold(_ opened: Realm, openedAs id: RealmID) -> RealmID {
        if let existing = realms.first(where: { $0.value == opened && !$0.value.isFrozen })?.key {
            holders[existing, default: 0] += 1
            return existing
        }
        if let earlier = released.first(where: { $0.value.instance === opened._instance })?.key {
            released[earlier] = nil
            realms[earlier] = opened
            holders[earlier] = 1
            return earlier
        }
        realms[id] = opened
        holders[id] = 1
        return id
    }

    /// Holds a frozen realm, which no `open` returns and no `release` drops.
    mutating func hold(frozen: Realm, as id: RealmID) {
        realms[id] = frozen
    }

    /// One `open` of `id` fewer; the last drops the instance (the cache may keep it).
    mutating func release(_ id: RealmID) {
        holders[id, default: 1] -= 1
        if holders[id] == 0, let realm = realms.removeValue(forKey: id) {
            holders[id] = nil
            released[id] = WeakInstance(realm._instance)
        }
    }
}
