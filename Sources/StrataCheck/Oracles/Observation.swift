import Strata
import StrataModel

/// An object as either side reports it, without the model's internal identity.
public struct Reading: Hashable, Sendable, CustomStringConvertible {
    public var type: String
    public var primaryKey: Int
    public var value: Int?
    public var listKeys: [Int]
    public var isFrozen: Bool
    /// The primary key of the Item the to-one link reaches (a Linker's, Spec V20); nil for a
    /// null link and for types without one.
    public var linkKey: Int?
    /// The primary keys of a Linker's set of Items, in set order (Spec V24); empty otherwise.
    public var setKeys: [Int]
    /// A Linker's Map entries, in key order (Spec V25); empty otherwise.
    public var mapEntries: [MapEntryReading]

    init(
        type: String, primaryKey: Int, value: Int?, listKeys: [Int], isFrozen: Bool, linkKey: Int? = nil,
        setKeys: [Int] = [], mapEntries: [MapEntryReading] = []
    ) {
        self.setKeys = setKeys
        self.mapEntries = mapEntries
        self.type = type
        self.primaryKey = primaryKey
        self.value = value
        self.listKeys = listKeys
        self.isFrozen = isFrozen
        self.linkKey = linkKey
    }

    init(_ model: ObjectReading) {
        self.init(
            type: model.type, primaryKey: model.primaryKey, value: model.value,
            listKeys: model.listKeys, isFrozen: model.isFrozen, linkKey: model.linkKey, setKeys: model.setKeys,
            mapEntries: model.mapEntries)
    }

    public var description: String {
        let value = self.value.map(String.init) ?? "nil"
        let list = listKeys.isEmpty ? "" : " list \(listKeys)"
        let link = linkKey.map { " link Item(\($0))" } ?? ""
        let set = setKeys.isEmpty ? "" : " set \(setKeys)"
        let map = mapEntries.isEmpty ? "" : " map [\(mapEntries.map(\.description).joined(separator: ", "))]"
        return "\(type)(\(primaryKey)) = \(value)\(list)\(link)\(set)\(map)\(isFrozen ? " frozen" : "")"
    }
}

/// What an operation returned, in terms both the model and the engine can state: the unit of
/// the lockstep comparison.
public enum Observation: Hashable, Sendable, CustomStringConvertible {
    case done
    case bool(Bool)
    case count(Int)
    case realm(RealmID?)
    case object(Reading?)
    case elements([Reading])
    case handle(HandleID?)
    /// An aggregate's answer, nil for none (Spec V21).
    case aggregate(AggregateAnswer?)
    /// The sections of a sectioned read (Spec V27).
    case sections([SectionReading])
    /// A rejection: the error's code and message. The model's message is the fragment the
    /// engine's must contain (Spec preamble: rules quote the part that matters).
    case failure(code: String, message: String)
    /// The operation waits for the write lock.
    case blocked

    /// The model's answer for `outcome`.
    init(model outcome: Outcome) {
        switch outcome.result {
        case .blocked: self = .blocked
        case .failure(let error): self = .failure(code: error.code.rawValue, message: error.message)
        case .success(let value):
            switch value {
            case .done: self = .done
            case .bool(let flag): self = .bool(flag)
            case .count(let count): self = .count(count)
            case .realm(let realm): self = .realm(realm)
            case .object(let reading): self = .object(reading.map(Reading.init))
            case .elements(let readings): self = .elements(readings.map(Reading.init))
            case .version: self = .done
            case .handle(let handle): self = .handle(handle)
            case .configuration: self = .done
            case .aggregate(let answer): self = .aggregate(answer)
            case .sections(let sections): self = .sections(sections)
            }
        }
    }

    /// Whether the engine's observation `engine` agrees with this, the model's.
    func accepts(_ engine: Observation) -> Bool {
        switch (self, engine) {
        case (.failure(let code, let message), .failure(let engineCode, let engineMessage)):
            return code == engineCode
                && (message.isEmpty || engineMessage == message || engineMessage.contains(message))
        default:
            return self == engine
        }
    }

    /// "model X, engine Y"; two long element lists as their first difference (a bulk write's
    /// hundreds of rows would bury it).
    static func difference(model: Observation, engine: Observation) -> String {
        guard case .elements(let expected) = model, case .elements(let observed) = engine,
            max(expected.count, observed.count) > 8
        else { return "model \(model), engine \(engine)" }
        let index =
            (0..<min(expected.count, observed.count)).first { expected[$0] != observed[$0] }
            ?? min(expected.count, observed.count)
        func at(_ readings: [Reading]) -> String {
            index < readings.count ? readings[index].description : "nothing"
        }
        return "model \(expected.count) elements, engine \(observed.count); first difference at \(index): "
            + "model \(at(expected)), engine \(at(observed))"
    }

    public var description: String {
        switch self {
        case .done: return "done"
        case .bool(let flag): return "\(flag)"
        case .count(let count): return "count \(count)"
        case .realm(let realm): return "realm \(realm.map(\.description) ?? "nil")"
        case .object(let reading): return reading.map(\.description) ?? "nil object"
        case .elements(let readings): return "[\(readings.map(\.description).joined(separator: ", "))]"
        case .handle(let handle): return "handle \(handle.map(\.description) ?? "nil")"
        case .aggregate(let answer): return "aggregate \(answer.map(\.description) ?? "nil")"
        case .sections(let sections): return "sections [\(sections.map(\.description).joined(separator: "; "))]"
        case .failure(let code, let message): return "error \(code): \(message)"
        case .blocked: return "blocked"
        }
    }
}

extension Realm.Error {
    /// The model's name of this error's code.
    var modelCode: String {
        switch code {
        case .programmerError: return ModelErrorCode.programmerError.rawValue
        case .fail: return ModelErrorCode.fail.rawValue
        case .fileExists: return ModelErrorCode.fileExists.rawValue
        case .fileNotFound: return ModelErrorCode.fileNotFound.rawValue
        case .filePermissionDenied: return ModelErrorCode.filePermissionDenied.rawValue
        case .fileOperationFailed: return ModelErrorCode.fileOperationFailed.rawValue
        case .invalidDatabase: return ModelErrorCode.invalidDatabase.rawValue
        case .schemaMismatch: return ModelErrorCode.schemaMismatch.rawValue
        case .alreadyOpen: return ModelErrorCode.alreadyOpen.rawValue
        default: return "\(code)"
        }
    }
}
