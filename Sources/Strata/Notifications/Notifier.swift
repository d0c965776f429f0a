import StrataStorage

/// One collection or object observer of a live realm (Spec N6 to N22), confined to the realm.
///
/// It remembers what it last delivered: the version, pinned so that a later delivery can
/// compare rows and report old values (`ChangeDetector`), and what the callback saw then. A
/// delivery compares that with the realm's version now and calls back only if something it
/// watches changed (N11); then the new version becomes its baseline.
class Notifier {
    let subscription: Subscription
    /// Set while its callback runs: a delivery pass skips it then (Spec N5, N17).
    var running = false
    /// The version last delivered, pinned; nil before the first delivery (or after the realm
    /// was invalidated: then nothing is pinned and the next delivery compares contents only).
    private(set) var baseline: ReadTransaction?
    private(set) var baselineVersion: Version?

    init(subscription: Subscription) { self.subscription = subscription }

    deinit { baseline?.end() }

    /// Moves the baseline to what `core` reads now.
    func rebase(to core: RealmCore) {
        guard let read = core.read else { return }
        if baselineVersion == read.version, baseline != nil { return }
        baseline?.end()
        baseline = try? read.duplicate(kind: .frozen)
        baselineVersion = read.version
    }

    func dropPin() {
        baseline?.end()
        baseline = nil
    }

    /// Delivers what changed since the baseline (or the first callback), if anything.
    func deliver(in core: RealmCore) {}

    /// Takes the current contents as the baseline without calling back (Spec N4).
    func skip(in core: RealmCore) { rebase(to: core) }

    /// The detector of the changes from the baseline to `core`'s version now.
    func detector(in core: RealmCore, view: VersionView) -> (ChangeDetector, committer: ObjectIdentifier?) {
        let now = core.read?.version ?? view.version
        let recorded = baselineVersion.flatMap { core.file.journal.changes(after: $0, through: now) }
        return (ChangeDetector(old: baseline, new: view, journal: recorded?.changes, core: core), recorded?.committer)
    }
}

/// What a collection observer's callback receives (Spec N8, N13).
public enum RealmCollectionChange<Collection> {
    /// The first callback: the collection as it is then, without change information.
    case initial(Collection)
    /// A change: deletions at old indices, insertions at new indices, modifications at old
    /// indices (Spec N13), each ascending.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The observation failed; no callback follows.
    case error(Error)
}

/// One element of an observed collection, as a change set compares them: an object by
/// identity (Spec W12), a value of a List of values by value.
enum CollectionElement: Hashable {
    case object(ObjectIdentity)
    case value(StrataStorage.Value)
}

/// What a collection holds at one version: its elements in order, and the table of its objects.
struct CollectionContents {
    var table: TableInfo?
    var elements: [CollectionElement]
}

/// An observer of Results or a List: the elements in order.
final class CollectionNotifier: Notifier {
    /// The observed collection now.
    let contents: () throws(Realm.Error) -> CollectionContents
    /// The schema of the objects (nil for a List of values: its elements are never modified).
    let schema: ObjectSchema?
    let paths: WatchedPaths
    let send: (RealmCollectionChange<Void>) -> Void
    /// Told when a commit skips the observer (Spec N4): its next change is from the contents
    /// after that commit, which an observer keeping state of its own (sectioned results) takes.
    let skipped: (() -> Void)?
    private var delivered: [CollectionElement]?

    init(
        subscription: Subscription, schema: ObjectSchema?, paths: WatchedPaths,
        contents: @escaping () throws(Realm.Error) -> CollectionContents,
        send: @escaping (RealmCollectionChange<Void>) -> Void, skipped: (() -> Void)? = nil
    ) {
        self.contents = contents
        self.schema = schema
        self.paths = paths
        self.send = send
        self.skipped = skipped
        super.init(subscription: subscription)
    }

    override func deliver(in core: RealmCore) {
        do throws(Realm.Error) {
            let now = try contents()
            guard let old = delivered else {
                delivered = now.elements
                rebase(to: core)
                subscription.runCallback { send(.initial(())) }  // Spec N8
                return
            }
            guard let version = core.read?.version, version != baselineVersion else { return }
            let view = try core.view()
            let (detector, _) = detector(in: core, view: view)
            var failure: Realm.Error?
            // The objects that may have changed, when the journal can tell: a few are searched
            // linearly (no hashing of every element of a large collection), many by a set.
            let candidates = now.table.flatMap { table in
                schema.flatMap { detector.candidates(in: table, schema: $0, watching: paths) }
            }.map(KeyFilter.init)
            let diff = CollectionDiff.between(old: old, new: now.elements) { element in
                guard failure == nil, case .object(let identity) = element, let table = now.table,
                    let schema, !detector.nothingChanged
                else { return false }
                if let candidates, !candidates.contains(identity.key) { return false }
                do throws(Realm.Error) {
                    return try engine(core.path) {
                        try !detector.changedColumns(table, identity.key, schema: schema, watching: paths).isEmpty
                    }
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
            var modifications = diff.modifications
            if core.file.bugs.contains(.modificationsAtNewIndices) {
                // Seeded bug: each kept element's new index (Spec N13 says its old one).
                let moved = Dictionary(uniqueKeysWithValues: CollectionDiff.keptPairs(old: old, new: now.elements))
                modifications = modifications.compactMap { moved[$0] }
            }
            delivered = now.elements
            rebase(to: core)
            if !diff.isEmpty {  // Spec N11
                subscription.runCallback {
                    send(
                        .update(
                            (), deletions: diff.deletions, insertions: diff.insertions,
                            modifications: modifications))
                }
            }
        } catch {
            subscription.runCallback(endsObservation: true) { send(.error(error)) }
        }
    }

    override func skip(in core: RealmCore) {
        guard delivered != nil, let now = try? contents() else { return }
        delivered = now.elements
        rebase(to: core)
        skipped?()
    }
}

/// A property of an observed object that changed (Spec N20, N21).
public struct PropertyChange {
    /// The property's name.
    public let name: String
    /// Its value before the change: nil for a commit by the observing realm itself (N20) and
    /// for List properties (N21).
    public let oldValue: Any?
    /// Its value after the change; nil for List properties (N21).
    public let newValue: Any?
}

/// What an object observer's callback receives.
public enum ObjectChange<T> {
    /// Properties of the object changed (those watched, Spec N21).
    case change(T, [PropertyChange])
    /// The object was deleted; no callback follows.
    case deleted
    /// The observation failed; no callback follows.
    case error(Error)
}

/// An observer of one object.
final class ObjectNotifier: Notifier {
    let info: ClassInfo
    let table: TableInfo
    let identity: ObjectIdentity
    let paths: WatchedPaths
    let send: (ObjectChange<Void>, [PropertyChange]) -> Void

    init(
        subscription: Subscription, info: ClassInfo, table: TableInfo, identity: ObjectIdentity, paths: WatchedPaths,
        send: @escaping (ObjectChange<Void>, [PropertyChange]) -> Void
    ) {
        self.info = info
        self.table = table
        self.identity = identity
        self.paths = paths
        self.send = send
        super.init(subscription: subscription)
    }

    override func deliver(in core: RealmCore) {
        do throws(Realm.Error) {
            guard let version = core.read?.version, version != baselineVersion else { return }
            let view = try core.view()
            guard let table = view.table(named: info.className),
                try engine(core.path, { try view.contains(table, identity: identity) })
            else {
                dropPin()
                subscription.runCallback(endsObservation: true) { send(.deleted, []) }
                return
            }
            let (detector, committer) = detector(in: core, view: view)
            let columns = try engine(core.path) {
                try detector.changedColumns(table, identity.key, schema: info.schema, watching: paths)
            }
            let local = committer == ObjectIdentifier(core)  // Spec N20: no old values
            var changes: [PropertyChange] = []
            if !columns.isEmpty {
                let newRow = try engine(core.path) { try view.row(table, key: identity.key) } ?? []
                let oldRow: [StrataStorage.Value]
                if !local, let baseline, let oldTable = baseline.table(id: table.id) {
                    oldRow = try engine(core.path) { try baseline.row(oldTable, key: identity.key) } ?? []
                } else {
                    oldRow = []
                }
                for column in columns {
                    let property = info.schema.properties[column]
                    let set = !detector.nothingChanged && column < newRow.count
                    let isValue = !property.isList
                    let newValue =
                        set && isValue ? try AnyValue.decode(newRow[column], property: property, core: core) : nil
                    let oldValue =
                        column < oldRow.count && isValue
                        ? try AnyValue.decode(oldRow[column], property: property, core: core) : nil
                    changes.append(PropertyChange(name: property.name, oldValue: oldValue, newValue: newValue))
                }
            }
            rebase(to: core)
            if !changes.isEmpty { subscription.runCallback { send(.change((), changes), changes) } }
        } catch {
            dropPin()
            subscription.runCallback(endsObservation: true) { send(.error(error), []) }
        }
    }
}

/// Membership of object keys: a short array searched linearly while few, else a set.
struct KeyFilter {
    private let few: [ObjectKey]
    private let many: Set<ObjectKey>?

    init(_ keys: [ObjectKey]) {
        if keys.count <= 16 {
            few = keys
            many = nil
        } else {
            few = []
            many = Set(keys)
        }
    }

    func contains(_ key: ObjectKey) -> Bool { many?.contains(key) ?? few.contains(key) }
}
