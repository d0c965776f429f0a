import StrataStorage

// Notifications as AsyncSequences, for Swift concurrency: each element carries a
// frozen snapshot, which any thread or task may read (Spec C10), so the consumer need not run
// on the observed realm's thread. The stream ends its observation when it terminates.

/// Hands a change to a stream's consumer on another thread or task. Sound because every value
/// it carries is frozen (Spec C10: read from anywhere), an error, or a List that reads nothing;
/// the compiler cannot see that.
struct FrozenHandoff<T>: @unchecked Sendable {
    let value: T
}

extension AsyncStream.Continuation {
    func yieldFrozen(_ value: Element) {
        let handoff = FrozenHandoff(value: value)
        yield(handoff.value)
    }
}

extension RealmCollectionChange {
    /// The same change, carrying `collection`'s frozen snapshot.
    func frozen<C>(_ freeze: () throws(Realm.Error) -> C) -> RealmCollectionChange<C> {
        do throws(Realm.Error) {
            let snapshot = try freeze()
            return carrying(snapshot)
        } catch {
            return .error(error)
        }
    }
}

extension Results {
    /// Every change of these Results (as `observe` delivers them, Spec N6 to N13), each with the
    /// Results frozen at the version it describes. Made on the realm's thread or queue; the
    /// stream may be consumed anywhere.
    public var changes: AsyncStream<RealmCollectionChange<Results<Element>>> {
        collectionChanges(
            observe: { block in self.observe(block) }, freeze: { () throws(Realm.Error) in try self._freeze() })
    }
}

extension List {
    /// Every change of this List (Spec N6 to N13), each with the List frozen at the version it
    /// describes; a List whose owner was deleted ends the stream after its last update.
    public var changes: AsyncStream<RealmCollectionChange<List<Element>>> {
        ownedCollectionChanges(
            observe: { block in self.observe(block) }, isInvalidated: { self.isInvalidated },
            freeze: { () throws(Realm.Error) in try self._freeze() }, empty: { List<Element>() })
    }
}

/// The change stream of a collection that is never invalidated by its owner's deletion (Results,
/// LinkingObjects): each change with the collection frozen at its version; an error ends it.
func collectionChanges<C>(
    observe: (@escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken,
    freeze: @escaping () throws(Realm.Error) -> C
) -> AsyncStream<RealmCollectionChange<C>> {
    ownedCollectionChanges(
        observe: observe, isInvalidated: { false }, freeze: freeze,
        empty: { preconditionFailure("the collection is never invalidated") })
}

/// The change stream of a collection an object owns (a List or a MutableSet): each change with
/// the collection frozen at its version; an error, or an owner deleted, ends the stream, the
/// latter after an update carrying an empty unmanaged collection (one that reads nothing).
func ownedCollectionChanges<C>(
    observe: (@escaping (RealmCollectionChange<C>) -> Void) -> NotificationToken,
    isInvalidated: @escaping () -> Bool,
    freeze: @escaping () throws(Realm.Error) -> C,
    empty: @escaping () -> C
) -> AsyncStream<RealmCollectionChange<C>> {
    AsyncStream { continuation in
        let token = observe { change in
            if case .error = change {
                continuation.yieldFrozen(change)
                continuation.finish()
            } else if isInvalidated() {
                continuation.yieldFrozen(change.carrying(empty()))
                continuation.finish()
            } else {
                continuation.yieldFrozen(change.frozen(freeze))
            }
        }
        continuation.onTermination = { _ in token.subscription.invalidate(explicit: false) }
    }
}

extension _ObjectObservable where Self: Object {
    /// Every change of this object (Spec N20 to N22), each `.change` carrying the object frozen
    /// at the version it describes; `.deleted` and `.error` end the stream.
    public func changes(keyPaths: [String]? = nil) -> AsyncStream<ObjectChange<Self>> {
        AsyncStream { continuation in
            let token = observe(keyPaths: keyPaths) { change in
                switch change {
                case .change(let object, let properties):
                    do throws(Realm.Error) {
                        continuation.yieldFrozen(.change(try object._freeze(), properties))
                    } catch {
                        continuation.yieldFrozen(.error(error))
                        continuation.finish()
                    }
                case .deleted, .error:
                    continuation.yieldFrozen(change)
                    continuation.finish()
                }
            }
            continuation.onTermination = { _ in token.subscription.invalidate(explicit: false) }
        }
    }
}

extension LinkingObjects {
    /// Every change of these LinkingObjects (as `observe` delivers them, Spec N6 to N13, N16),
    /// each with them frozen at the version it describes. Made on the realm's thread or queue;
    /// the stream may be consumed anywhere.
    public var changes: AsyncStream<RealmCollectionChange<LinkingObjects<Element>>> {
        collectionChanges(
            observe: { block in self.observe(block) }, freeze: { () throws(Realm.Error) in try self._freeze() })
    }
}
