import Foundation
import Strata
import StrataModel
import StrataStorage

// The engine side of generation 5's operations: `releaseReference` (the caller drops the
// reference: its pin ends, Spec T8, L5), `@ThreadSafe` cells (`ThreadSafe<T>` through its
// throwing `_set` and `_get`, Spec T9, T10) and `writeCopy(toFile:)` (X3), whose copy the step
// opens and reads at once, on the same context, for the runner to compare with the model's
// copy (`Runner.checkCopy`).

/// A `@ThreadSafe` property the engine side holds for a model `CellID`. The model's cell takes
/// any kind of value; a `ThreadSafe<T>` holds one type, so an assignment of another kind
/// replaces the wrapper (the old one's reference, and its pin, ends as an assignment's would).
enum EngineCell {
    case object(ThreadSafe<Object>)
    case itemResults(ThreadSafe<Results<Item>>)
    case otherResults(ThreadSafe<Results<Other>>)
    case linkerResults(ThreadSafe<Results<Linker>>)
    case list(ThreadSafe<List<Item>>)
}

extension EngineSide {
    /// Performs a generation 5 operation; nil for any other operation.
    func dispatchGeneration5(_ operation: StrataModel.Operation) throws(Realm.Error) -> Observation? {
        switch operation {
        case .releaseReference(let id):
            let dropped = lock.withLock { _ in accessors.references.removeValue(forKey: id) }
            guard dropped != nil else { return unsupported(operation) }
            withExtendedLifetime(dropped) {}  // dropped here, on the caller's context, outside the lock
            return .done
        case .assignThreadSafe(let cell, let id):
            return try assign(id, to: cell, operation: operation)
        case .readThreadSafe(let cell, let realmID, let id):
            let realm = try required(realmID)
            guard let held = lock.withLock({ _ in cells[cell] }) else { return .handle(nil) }
            let resolved: EngineHandle?
            let resolvedRealm: Realm?
            switch held {
            case .object(let wrapper):
                let value = try wrapper._get()
                (resolved, resolvedRealm) = (value.map { .object($0) }, value?.realm)
            case .itemResults(let wrapper):
                let value = try wrapper._get()
                (resolved, resolvedRealm) = (value.map { .itemResults($0) }, value?.realm)
            case .otherResults(let wrapper):
                let value = try wrapper._get()
                (resolved, resolvedRealm) = (value.map { .otherResults($0) }, value?.realm)
            case .linkerResults(let wrapper):
                let value = try wrapper._get()
                (resolved, resolvedRealm) = (value.map { .linkerResults($0) }, value?.realm)
            case .list(let wrapper):
                let value = try wrapper._get()
                (resolved, resolvedRealm) = (value.map { .list($0) }, value?.realm)
            }
            guard let resolved else { return .handle(nil) }
            // The property resolves in `Realm()` of the calling thread, which the generator
            // makes the context's own realm (a thread context's).
            guard resolvedRealm == realm else {
                return .failure(code: "harness", message: "the @ThreadSafe read resolved outside \(realmID)")
            }
            lock.withLock { _ in accessors.handles[id] = resolved }
            return .handle(id)
        case .writeCopy(let realmID, let path):
            let realm = try required(realmID)
            let destination = copyFile(path)
            try realm._writeCopy(toFile: URL(fileURLWithPath: destination), encryptionKey: nil)
            let contents = Self.contents(ofCopy: destination, objectTypes: configuration.objectTypes)
            lock.withLock { _ in
                copies.append(destination)
                copyContents[path] = contents
            }
            return .done
        default:
            return nil
        }
    }

    private func assign(_ id: HandleID?, to cell: CellID, operation: StrataModel.Operation)
        throws(Realm.Error) -> Observation
    {
        let current = lock.withLock { _ in cells[cell] }
        guard let id else {
            switch current {
            case .object(let wrapper): try wrapper._set(nil)
            case .itemResults(let wrapper): try wrapper._set(nil)
            case .otherResults(let wrapper): try wrapper._set(nil)
            case .linkerResults(let wrapper): try wrapper._set(nil)
            case .list(let wrapper): try wrapper._set(nil)
            case nil: break
            }
            return .done
        }
        guard let handle = handle(id) else { return unsupported(operation) }
        let replacement: EngineCell?
        switch (handle, current) {
        case (.object(let value), .object(let wrapper)?):
            try wrapper._set(value)
            replacement = nil
        case (.object(let value), _):
            let wrapper = ThreadSafe<Object>(wrappedValue: nil)
            try wrapper._set(value)
            replacement = .object(wrapper)
        case (.itemResults(let value), .itemResults(let wrapper)?):
            try wrapper._set(value)
            replacement = nil
        case (.itemResults(let value), _):
            let wrapper = ThreadSafe<Results<Item>>(wrappedValue: nil)
            try wrapper._set(value)
            replacement = .itemResults(wrapper)
        case (.otherResults(let value), .otherResults(let wrapper)?):
            try wrapper._set(value)
            replacement = nil
        case (.otherResults(let value), _):
            let wrapper = ThreadSafe<Results<Other>>(wrappedValue: nil)
            try wrapper._set(value)
            replacement = .otherResults(wrapper)
        case (.linkerResults(let value), .linkerResults(let wrapper)?):
            try wrapper._set(value)
            replacement = nil
        case (.linkerResults(let value), _):
            let wrapper = ThreadSafe<Results<Linker>>(wrappedValue: nil)
            try wrapper._set(value)
            replacement = .linkerResults(wrapper)
        case (.list(let value), .list(let wrapper)?):
            try wrapper._set(value)
            replacement = nil
        case (.list(let value), _):
            let wrapper = ThreadSafe<List<Item>>(wrappedValue: nil)
            try wrapper._set(value)
            replacement = .list(wrapper)
        }
        if let replacement {
            let old = lock.withLock { _ in
                defer { cells[cell] = replacement }
                return cells[cell]
            }
            withExtendedLifetime(old) {}  // the old wrapper's reference ends here, outside the lock
        }
        return .done
    }

    /// Where the model's copy `path` lives: in the run's scratch directory, under the run's name.
    func copyFile(_ path: String) -> String {
        (copyDirectory as NSString).appendingPathComponent("\(copyStem)-\(path)")
    }

    /// What the step read from a copy it made (`Runner.checkCopy`), once.
    func takeCopyContents(_ path: String) -> Observation? {
        lock.withLock { _ in copyContents.removeValue(forKey: path) }
    }

    /// The copy at `path` opened in the calling context (its own realm of that file, with no
    /// hooks: no switch points) and read whole, as `Runner.checkRecoveredContents` reads.
    static func contents(ofCopy path: String, objectTypes: [Object.Type]?) -> Observation {
        var configuration = Realm.Configuration(objectTypes: objectTypes ?? CheckTypes.classes)
        configuration.fileURL = URL(fileURLWithPath: path)
        do throws(Realm.Error) {
            let realm = try Realm._open(configuration: configuration, queue: nil)
            return .elements(try allReadings(in: realm))
        } catch {
            return .failure(code: error.modelCode, message: error.message)
        }
    }
}
