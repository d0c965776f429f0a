// What a step returns: a result (a value or a rejection) and the callbacks that ran during
// the call, in order. The harness compares both with the engine.

/// An object as a read sees it.
public struct ObjectReading: Hashable, Sendable {
    public var id: ObjectID
    public var type: String
    public var primaryKey: Int
    public var value: Int?
    /// The primary keys of the List's elements, in order.
    public var listKeys: [Int]
    public var isFrozen: Bool
    /// The primary key of the Item the to-one link reaches; nil for none (or no link column).
    public var linkKey: Int? = nil
    /// The primary keys of the set's Items, in set order (a Linker's, Spec V24); empty for
    /// types without one.
    public var setKeys: [Int] = []
    /// The entries of a Linker's Map, in key order (Spec V25); empty for types without one.
    public var mapEntries: [MapEntryReading] = []
}

/// One entry of a Map as a read sees it: its key and the primary key of the Item its value
/// reaches (nil for a null value, such as a deleted Item leaves: Spec W13, V25).
public struct MapEntryReading: Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var primaryKey: Int?
    public init(key: String, primaryKey: Int?) {
        self.key = key
        self.primaryKey = primaryKey
    }
    public var description: String { "\(key): \(primaryKey.map(String.init) ?? "nil")" }
}

/// Insertions, deletions and modifications of a collection update (Spec N13).
public struct CollectionChange: Hashable, Sendable {
    /// Indices in the old collection, ascending.
    public var deletions: [Int]
    /// Indices in the new collection, ascending.
    public var insertions: [Int]
    /// Indices in the OLD collection, ascending.
    public var modifications: [Int]

    public var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }
}

/// A property change of an object notification (Spec N20).
public struct PropertyChange: Hashable, Sendable {
    public var name: PropertyName
    /// nil for the observing realm's own commits (Spec N20).
    public var oldValue: String?
    public var newValue: String?
}

/// A callback that ran, or an async step the engine performed.
public enum Event: Hashable, Sendable {
    case didChange(ObserverID)
    case refreshRequired(ObserverID)
    case initial(ObserverID, [ObjectID])
    case update(ObserverID, CollectionChange, [ObjectID])
    case objectChanged(ObserverID, [PropertyChange])
    case objectDeleted(ObserverID)
    /// A realm moved to a newer version (not a callback; lets the harness follow versions).
    case moved(RealmID, to: Version)
    /// A realm observer's `refresh()` action ran and returned this (Spec V5).
    case callbackRefreshed(ObserverID, Bool)
    /// A callback action was rejected (for example a write that would block).
    case callbackFailed(ObserverID, ModelError)
    case asyncBlockStarted(AsyncWriteID)
    case asyncCommitted(AsyncWriteID, Version)
    case asyncCompleted(AsyncWriteID, ModelError?)
}

/// The value an operation returns.
public enum Value: Hashable, Sendable {
    case done
    case bool(Bool)
    case count(Int)
    case realm(RealmID?)
    case object(ObjectReading?)
    case elements([ObjectReading])
    case version(Version)
    /// The accessor a call returned: a new one, an existing one (Spec F5, F1), or none (F9, T5).
    case handle(HandleID?)
    case configuration(Configuration)
    /// An aggregate's answer, nil for none (Spec V21).
    case aggregate(AggregateAnswer?)
    /// The sections of a sectioned read, in order (Spec V27).
    case sections([SectionReading])
}

public enum StepResult: Hashable, Sendable {
    case success(Value)
    case failure(ModelError)
    /// The call waits: another realm holds the write lock (Spec W1). Nothing changed; the caller
    /// repeats the operation after the lock is released.
    case blocked
}

public struct Outcome: Hashable, Sendable, CustomStringConvertible {
    public var result: StepResult
    public var events: [Event]

    public var description: String {
        events.isEmpty ? "\(result)" : "\(result) events: \(events)"
    }
}
