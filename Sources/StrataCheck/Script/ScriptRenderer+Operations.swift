import StrataModel

// The translation table of a generated test: each model operation as the Realm API calls the
// harness's engine side makes for it (`EngineSide.dispatch`, which this mirrors case by case),
// in a closure its context runs. The throwing `package` entry points are used where
// the engine side uses them, so that a rejection is an observation rather than a trap.
extension ScriptRenderer {
    /// What a handle names, for the typed calls on it.
    enum HandleKind: Hashable {
        case object
        case results(type: String)
        case list

        var referenceType: String {
            switch self {
            case .object: return "Object.self"
            case .results(let type): return "Results<\(type)>.self"
            case .list: return "List<Item>.self"
            }
        }
    }

    /// The closure body for `operation` (its last line returns the observation), or nil when
    /// the engine side cannot perform it either or a handle's kind is not known.
    mutating func body(_ operation: StrataModel.Operation) -> [String]? {
        if case .open(_, .queue(let context), _) = operation { openedOnContexts.insert(context) }
        if let lines = realmBody(operation) { return lines }
        return accessorBody(operation)
    }

    /// Operations on realms.
    private func realmBody(_ operation: StrataModel.Operation) -> [String]? {
        switch operation {
        case .open(_, .callingContext, let id):
            return ["s.hold(try Realm._open(configuration: s.configuration, queue: nil), openedAs: \(id.rawValue))"]
        case .open(_, .queue(let context), let id):
            return [
                "let realm = try Realm._open(configuration: s.configuration, queue: s.queue(of: \(context.rawValue)))",
                "// The harness's step: a queue realm's autorefresh turns run when no schedule orders them.",
                "realm.autorefresh = false",
                "return s.hold(realm, openedAs: \(id.rawValue))",
            ]
        case .release(let id):
            return ["s.release(\(id.rawValue))"]
        case .refresh(let id):
            return [".bool(try s.realm(\(id.rawValue))._refresh())"]
        case .invalidate(let id):
            return done("try s.realm(\(id.rawValue))._invalidate()")
        case .isInWriteTransaction(let id):
            return [".bool(try s.realm(\(id.rawValue)).isInWriteTransaction)"]
        case .beginWrite(let id):
            return done("try s.realm(\(id.rawValue))._beginWrite()")
        case .commitWrite(let id, _, _):
            return done("try s.realm(\(id.rawValue))._commitWrite()")
        case .cancelWrite(let id):
            return done("try s.realm(\(id.rawValue))._cancelWrite()")
        case .freezeRealm(let id, let frozen):
            return [
                "let source = try s.realm(\(id.rawValue))",
                "return s.hold(frozen: try source._freeze(), of: source, sourceID: \(id.rawValue), as: \(frozen.rawValue))",
            ]
        default:
            return nil
        }
    }

    /// Operations that make, use or drop accessors and references.
    private mutating func accessorBody(_ operation: StrataModel.Operation) -> [String]? {
        switch operation {
        case .objects(let realm, let query, let id):
            guard case .table(let type) = query.source else { return nil }
            kinds[id] = .results(type: type)
            return objects(realm: realm, type: type, query: query, id: id)
        case .objectForPrimaryKey(let realm, let type, let primaryKey, let id):
            kinds[id] = .object
            return [
                "s.keep(try s.realm(\(realm.rawValue))._object(ofType: \(type).self, forPrimaryKey: \(primaryKey)), "
                    + "as: \(id.rawValue))"
            ]
        case .create(let realm, let type, let primaryKey, let value, let policy, let id):
            kinds[id] = .object
            let fields = "[\"primaryKey\": \(primaryKey), \"value\": \(value.map(String.init) ?? "Int?.none as Any")]"
            return [
                "let created = try s.realm(\(realm.rawValue))._create(",
                "    \(type).self, value: \(fields), update: .\(policy))",
                "return s.keep(created, as: \(id.rawValue))",
            ]
        case .read(let id):
            return read(id)
        case .aggregate(let id, let function):
            guard let kind = kinds[id], kind != .object, !elements.contains(id) else { return nil }
            return [".aggregate(try s.aggregate(.\(function), of: \(accessor(id, kind))))"]
        case .sectioned(let id, let key, let ascending):
            guard let kind = kinds[id], kind != .object, !elements.contains(id) else { return nil }
            return [
                ".sections(try s.sections(of: \(accessor(id, kind)), by: \(Self.literal(key)), ascending: \(ascending)))"
            ]
        case .setValue(let id, let value):
            return done("try s.object(\(id.rawValue))._setValue(\(Self.literal(value)), forKey: \"value\")")
        case .setLink(let id, let target):
            // Spec V20: `owner.link = target` by key, as `EngineSide` sets it.
            let value = target.map { "s.object(\($0.rawValue))" } ?? "nil"
            return done("try s.object(\(id.rawValue))._setValue(\(value), forKey: \"link\")")
        case .delete(let realm, let id):
            return done("try s.realm(\(realm.rawValue))._delete(s.object(\(id.rawValue)))")
        case .linkingObjectsOf(let target, let ownerType, let id):
            kinds[id] = .results(type: ownerType)
            let property = ownerType == "Item" ? "listedByItems" : "listedByOthers"
            return [
                "let item = try s.item(\(target.rawValue))",
                "_ = try item._value(forKey: \"primaryKey\")  // the checks (thread, invalidation) that throw",
                "return s.keep(item.\(property)._results, as: \(id.rawValue))",
            ]
        case .listOf(let owner, let id):
            kinds[id] = .list
            return [
                "let owner = try s.object(\(owner.rawValue))",
                "_ = try owner._value(forKey: \"primaryKey\")  // the checks (thread, invalidation) that throw",
                "return s.keep(try s.list(of: owner), as: \(id.rawValue))",
            ]
        case .append(let list, let element):
            return done("try s.list(\(list.rawValue))._append(s.item(\(element.rawValue)))")
        case .removeFromList(let list, let index):
            return done("_ = try s.list(\(list.rawValue))._remove(at: \(index))")
        case .insertIntoSet(let owner, let element), .removeFromSet(let owner, let element):
            // Spec V24: as `EngineSide` writes it, the owner read first.
            let call = if case .insertIntoSet = operation { "_insert" } else { "_remove" }
            return [
                "let owner = try s.linker(\(owner.rawValue))",
                "_ = try owner._value(forKey: \"primaryKey\")",
                "try owner.set.\(call)(s.item(\(element.rawValue)))",
                "return .done",
            ]
        case .setMapValue(let owner, let key, let element):
            // Spec V25: as `EngineSide` writes it, the owner read first.
            return [
                "let owner = try s.linker(\(owner.rawValue))",
                "_ = try owner._value(forKey: \"primaryKey\")",
                element != nil && EngineSide.keyValueCodedMapKeys.contains(key)
                    ? "try owner.map._setValue(\(element.map { "s.item(\($0.rawValue))" } ?? "nil"), forKey: \(Self.literal(key)))"
                    : "try owner.map._updateValue(\(element.map { "s.item(\($0.rawValue))" } ?? "nil"), forKey: \(Self.literal(key)))",
                "return .done",
            ]
        case .removeMapKey(let owner, let key):
            return [
                "let owner = try s.linker(\(owner.rawValue))",
                "_ = try owner._value(forKey: \"primaryKey\")",
                EngineSide.keyValueCodedMapKeys.contains(key)
                    ? "try owner.map._setValue(nil, forKey: \(Self.literal(key)))"
                    : "try owner.map._removeObject(for: \(Self.literal(key)))",
                "return .done",
            ]
        case .freezeHandle(let id, let frozen):
            return freezeOrThaw(id, as: frozen, call: "_freeze", sourceWasTarget: "source.isFrozen")
        case .thawHandle(let id, let thawed):
            return freezeOrThaw(id, as: thawed, call: "_thaw", sourceWasTarget: "!source.isFrozen")
        case .makeReference(let id, let reference):
            guard let kind = kinds[id] else { return nil }
            referenceKinds[reference] = kind
            return ["s.keep(try ThreadSafeReference._make(to: \(accessor(id, kind))), as: \(reference.rawValue))"]
        case .resolve(let reference, let realm, let id):
            guard let kind = referenceKinds[reference] else { return nil }
            kinds[id] = kind
            return [
                "let realm = try s.realm(\(realm.rawValue))",
                "let reference = try s.reference(\(reference.rawValue), to: \(kind.referenceType))",
                "return s.keep(try realm._resolve(reference), as: \(id.rawValue))",
            ]
        case .releaseHandle(let id) where elements.contains(id):
            return ["s.dropElement(\(id.rawValue))"]
        case .releaseHandle(let id):
            return ["s.drop(\(id.rawValue))"]
        case .iterate(let id, let iterator):
            guard case .results? = kinds[id] else { return nil }
            return ["try s.iterate(\(id.rawValue), as: \(iterator.rawValue))"]
        case .iteratorNext(let iterator, let id):
            kinds[id] = .object
            elements.insert(id)
            return ["try s.next(\(iterator.rawValue), as: \(id.rawValue))"]
        case .apply(let realm, let mutations):
            guard let lines = Self.mutationLines(mutations) else { return nil }
            return ["let realm = try s.realm(\(realm.rawValue))"] + lines + ["return .done"]
        default:
            return nil
        }
    }

    /// A bulk write (`EngineSide.apply`) as loops over literal keys: creates and deletes of one
    /// type at a time, as the generator makes them, and value changes one per line (nil for
    /// mutations the engine side does not apply either).
    static func mutationLines(_ mutations: [Mutation]) -> [String]? {
        var lines: [String] = []
        var rest = mutations[...]
        while let first = rest.first {
            switch first {
            case .create(let type, _, _):
                let run = rest.prefix { if case .create(type, _, _) = $0 { true } else { false } }
                let rows = run.map { mutation -> String in
                    guard case .create(_, let key, let value) = mutation else { return "" }
                    return "(\(key), \(literal(value)))"
                }
                lines += [
                    "let rows: [(Int, Int?)] = [\(rows.joined(separator: ", "))]",
                    "for (key, value) in rows {",
                    "    _ = try realm._create(\(type).self, value: [\"primaryKey\": key, \"value\": value as Any], update: .error)",
                    "}",
                ]
                rest = rest.dropFirst(run.count)
            case .delete(let type, _):
                let run = rest.prefix { if case .delete(type, _) = $0 { true } else { false } }
                let keys = run.map { mutation -> String in
                    guard case .delete(_, let key) = mutation else { return "" }
                    return "\(key)"
                }
                lines += [
                    "for key in [\(keys.joined(separator: ", "))] {",
                    "    try realm._delete(EngineSide.existing(\(type).self, key, in: realm))",
                    "}",
                ]
                rest = rest.dropFirst(run.count)
            case .setValue(let type, let key, let value):
                lines.append(
                    "try EngineSide.existing(\(type).self, \(key), in: realm)._setValue(\(literal(value)), forKey: \"value\")"
                )
                rest = rest.dropFirst()
            case .append, .setMapValue:
                return nil
            }
        }
        return lines
    }

    private func done(_ call: String) -> [String] { [call, "return .done"] }

    /// The typed accessor expression for handle `id`.
    private func accessor(_ id: HandleID, _ kind: HandleKind) -> String {
        switch kind {
        case .object: return "s.object(\(id.rawValue))"
        case .results(let type): return "s.results(\(id.rawValue), of: \(type).self)"
        case .list: return "s.list(\(id.rawValue))"
        }
    }

    /// The model's query on engine Results (`EngineSide.shape`): `value >= minimum`, then value
    /// order with ties by primary key, or the table's primary-key order.
    private func objects(realm: RealmID, type: String, query: StrataModel.Query, id: HandleID) -> [String] {
        let table = "try s.realm(\(realm.rawValue))._objects(\(type).self)"
        if query.minimumValue == nil && query.equalValue == nil && query.linkMinimumValue == nil
            && query.collectionMinimum == nil
            && query.sort == .sourceOrder && query.distinct == nil
        {
            return ["s.keep(\(table), as: \(id.rawValue))"]
        }
        var lines = ["var results = \(table)"]
        if let format = FilterFormat(query) {
            // The formats hold no quote or backslash: they go into a Swift literal as they are.
            let arguments = format.arguments.map(\.literal).joined(separator: ", ")
            lines.append("results = try results._filter(\"\(format.format)\", arguments: [\(arguments)])")
        } else {
            if let minimum = query.minimumValue {
                lines.append("results = results.where { $0.value >= \(minimum) }")
            }
            if let equal = query.equalValue {
                lines.append("results = results.where { $0.value == \(equal) }")
            }
            if let linkMinimum = query.linkMinimumValue {
                lines.append("results = results.where { $0.link.value >= \(linkMinimum) }")
            }
        }
        switch query.sort {
        case .sourceOrder: break
        case .value:
            lines.append("results = results.sorted(by: [SortDescriptor(keyPath: \"value\", ascending: true),")
            lines.append("                             SortDescriptor(keyPath: \"primaryKey\", ascending: true)])")
        case .linkValue(let ascending):
            // Spec V20: through the link, the throwing entry point (another type has no link).
            lines.append(
                "results = try results._sorted(by: [SortDescriptor(keyPath: \"link.value\", ascending: \(ascending)),")
            lines.append(
                "                                   SortDescriptor(keyPath: \"primaryKey\", ascending: true)])")
        }
        switch query.distinct {
        case nil: break
        case .value?: lines.append("results = try results._distinct(by: [\"value\"])")
        case .linkValue?: lines.append("results = try results._distinct(by: [\"link.value\"])")
        }
        return lines + ["return s.keep(results, as: \(id.rawValue))"]
    }

    private func read(_ id: HandleID) -> [String]? {
        guard let kind = kinds[id] else { return nil }
        if elements.contains(id) { return ["try s.readElement(\(id.rawValue))"] }
        switch kind {
        case .object: return [".object(try s.reading(s.object(\(id.rawValue))))"]
        case .results, .list: return [".elements(try s.readings(\(accessor(id, kind))))"]
        }
    }

    /// A freeze or thaw: an object keeps its identity rule, a collection its own (Spec F5);
    /// `sourceWasTarget` is the condition under which the collection returns itself.
    private mutating func freezeOrThaw(
        _ id: HandleID, as target: HandleID, call: String,
        sourceWasTarget: String
    ) -> [String]? {
        guard let kind = kinds[id] else { return nil }
        kinds[target] = kind
        if kind == .object {
            return ["s.identify(try s.object(\(id.rawValue)).\(call)(), as: \(target.rawValue))"]
        }
        return [
            "let source = try \(accessor(id, kind))",
            "return s.keep(try source.\(call)(), from: \(id.rawValue), sourceWasTarget: \(sourceWasTarget), "
                + "as: \(target.rawValue))",
        ]
    }
}
