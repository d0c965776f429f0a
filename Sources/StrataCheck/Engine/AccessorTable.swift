import Strata
import StrataModel

/// An accessor the engine side holds for a model `HandleID`.
enum EngineHandle {
    case object(Object)
    case itemResults(Results<Item>)
    case otherResults(Results<Other>)
    /// Generation 6: Results of Linkers, which sort through the link (Spec V20).
    case linkerResults(Results<Linker>)
    case list(List<Item>)
}

/// A thread-safe reference the engine side holds for a model `ReferenceID`.
enum EngineReference {
    case object(ThreadSafeReference<Object>)
    case itemResults(ThreadSafeReference<Results<Item>>)
    case otherResults(ThreadSafeReference<Results<Other>>)
    case linkerResults(ThreadSafeReference<Results<Linker>>)
    case list(ThreadSafeReference<List<Item>>)
}

/// The accessors and references a caller holds, named by the model's identifiers, with the
/// two identity rules of Spec F5 that decide which identifier a freeze or thaw returns.
///
/// Confined values inside: the owner (`EngineSide`, `ScriptWorld`) guards it with its lock.
struct AccessorTable {
    var handles: [HandleID: EngineHandle] = [:]
    var references: [ReferenceID: EngineReference] = [:]
    /// Generation 7: the iterations over Results in progress (`EngineSide+Iteration`).
    var iterators: [IteratorID: EngineIterator] = [:]
    /// The iterator each held element came from.
    var yielded: [HandleID: IteratorID] = [:]

    /// Holds `handle` as `id`, unless it is an object the caller holds already (Spec F5:
    /// freezing a frozen object returns it); returns the identifier the caller knows it by.
    mutating func identify(_ handle: EngineHandle, as id: HandleID) -> HandleID {
        if case .object(let object) = handle,
            let existing = handles.first(where: { entry in
                if case .object(let held) = entry.value { return held === object }
                return false
            })?.key
        {
            return existing
        }
        handles[id] = handle
        return id
    }

    /// Collections are values, so their identity cannot be asked: a freeze of a frozen (or thaw
    /// of a live) collection is the source itself (Spec F5), anything else a new accessor.
    mutating func collection(
        _ handle: EngineHandle, from source: HandleID, sourceWasTarget: Bool,
        as id: HandleID
    ) -> HandleID {
        if sourceWasTarget { return source }
        handles[id] = handle
        return id
    }
}
