import StrataModel

/// Short, stable text for the operations a run makes: the trace, the timeline and the
/// generated test use it (the model's own descriptions spell out whole configurations).
enum StepText {
    static func describe(_ step: Step) -> String { "\(step.context) \(describe(step.operation))" }

    static func describe(_ operation: StrataModel.Operation) -> String {
        switch operation {
        case .addContext(let context, let process, _): return "addContext(\(context), \(process))"
        case .open(_, .callingContext, let id): return "open -> \(id)"
        case .open(_, .queue(let queue), let id): return "open(queue: \(queue)) -> \(id)"
        case .release(let id): return "release(\(id))"
        case .setAutorefresh(let id, let value): return "setAutorefresh(\(id), \(value))"
        case .refresh(let id): return "refresh(\(id))"
        case .invalidate(let id): return "invalidate(\(id))"
        case .isInWriteTransaction(let id): return "isInWriteTransaction(\(id))"
        case .beginWrite(let id): return "beginWrite(\(id))"
        case .commitWrite(let id, let skipped, let fate):
            let skipping = skipped.isEmpty ? "" : ", withoutNotifying: \(skipped)"
            return "commitWrite(\(id)\(skipping)\(describe(fate)))"
        case .observeCollection(let handle, _, _, _, let observer): return "observe(\(handle)) -> \(observer)"
        case .observeObject(let handle, let keyPaths, let observer):
            return "observe(\(handle)\(keyPaths.map { ", keyPaths: \($0)" } ?? "")) -> \(observer)"
        case .invalidateToken(let observer): return "invalidate(\(observer))"
        case .turnLoop: return "turnLoop"
        case .cancelWrite(let id): return "cancelWrite(\(id))"
        case .freezeRealm(let id, let frozen): return "freeze(\(id)) -> \(frozen)"
        case .objects(let id, let query, let handle):
            var text = "objects(\(id), \(describe(query.source))"
            if let format = FilterFormat(query) {
                text += " filter(\"\(format.format)\"\(format.arguments.map { ", " + $0.literal }.joined()))"
            } else {
                if let minimum = query.minimumValue { text += " where value >= \(minimum)" }
                if let equal = query.equalValue { text += " where value == \(equal)" }
                if let linkMinimum = query.linkMinimumValue { text += " where link.value >= \(linkMinimum)" }
            }
            switch query.sort {
            case .sourceOrder: break
            case .value: text += " sorted by value"
            case .linkValue(let ascending): text += " sorted by link.value\(ascending ? "" : " descending")"
            }
            switch query.distinct {
            case nil: break
            case .value?: text += " distinct by value"
            case .linkValue?: text += " distinct by link.value"
            }
            return text + ") -> \(handle)"
        case .objectForPrimaryKey(let id, let type, let key, let handle):
            return "object(\(id), \(type) \(key)) -> \(handle)"
        case .create(let id, let type, let key, let value, let policy, let handle):
            return "create(\(id), \(type) \(key) = \(value.map(String.init) ?? "nil"), update \(policy)) -> \(handle)"
        case .read(let handle): return "read(\(handle))"
        case .aggregate(let handle, let function): return "\(function)(\(handle).value)"
        case .sectioned(let handle, let key, let ascending):
            return "\(handle).sectioned(by: \(key), \(ascending ? "ascending" : "descending"))"
        case .setValue(let handle, let value): return "set(\(handle).value = \(value.map(String.init) ?? "nil"))"
        case .setLink(let handle, let target): return "set(\(handle).link = \(target.map { "\($0)" } ?? "nil"))"
        case .delete(let id, let handle): return "delete(\(id), \(handle))"
        case .listOf(let handle, let list): return "list(\(handle)) -> \(list)"
        case .linkingObjectsOf(let handle, let type, let results):
            return "linkingObjects(\(handle), \(type).list) -> \(results)"
        case .append(let list, let element): return "append(\(list), \(element))"
        case .removeFromList(let list, let index): return "remove(\(list), at: \(index))"
        case .insertIntoSet(let owner, let element): return "\(owner).set.insert(\(element))"
        case .removeFromSet(let owner, let element): return "\(owner).set.remove(\(element))"
        case .setMapValue(let owner, let key, let element):
            return "\(owner).map[\"\(key)\"] = \(element.map { "\($0)" } ?? "nil (updateValue)")"
        case .removeMapKey(let owner, let key): return "\(owner).map.removeObject(for: \"\(key)\")"
        case .freezeHandle(let handle, let frozen): return "freeze(\(handle)) -> \(frozen)"
        case .thawHandle(let handle, let thawed): return "thaw(\(handle)) -> \(thawed)"
        case .makeReference(let handle, let reference): return "reference(\(handle)) -> \(reference)"
        case .resolve(let reference, let id, let handle): return "resolve(\(reference), in: \(id)) -> \(handle)"
        case .releaseHandle(let handle): return "release(\(handle))"
        case .releaseReference(let reference): return "release(\(reference))"
        case .assignThreadSafe(let cell, let handle): return "\(cell) = \(handle.map { "\($0)" } ?? "nil")"
        case .readThreadSafe(let cell, let id, let handle): return "read(\(cell), in: \(id)) -> \(handle)"
        case .writeCopy(let id, let path): return "writeCopy(\(id), toPath: \(path))"
        case .crashMachine(let keep): return "crashMachine(keepUnsyncedSlots: \(keep))"
        case .apply(let id, let mutations):
            let shown = mutations.prefix(3).map(describe).joined(separator: ", ")
            return "apply(\(id), \(mutations.count) mutations: \(shown)\(mutations.count > 3 ? ", …" : ""))"
        case .writeAsync(let id, let mutations, let write):
            return "writeAsync(\(id), \(mutations.map(describe).joined(separator: ", "))) -> \(write)"
        case .beginAsyncWrite(let id, let mutations, let ending, let write):
            return
                "beginAsyncWrite(\(id), \(mutations.map(describe).joined(separator: ", ")), then \(ending)) -> \(write)"
        case .commitAsyncWrite(let id, let grouping, let write):
            return "commitAsyncWrite(\(id), allowGrouping: \(grouping)) -> \(write)"
        case .cancelAsyncWrite(let id, let write): return "cancelAsyncWrite(\(id), \(write))"
        case .isPerformingAsynchronousWriteOperations(let id): return "isPerformingAsynchronousWriteOperations(\(id))"
        case .syncAsyncGroup(let id, let fails): return "syncAsyncGroup(\(id)\(fails ? ", fails" : ""))"
        default: return "\(operation)"
        }
    }

    static func describe(_ mutation: Mutation) -> String {
        switch mutation {
        case .create(let type, let key, let value): return "create \(type) \(key) = \(value.map(String.init) ?? "nil")"
        case .setValue(let type, let key, let value): return "set \(type) \(key) = \(value.map(String.init) ?? "nil")"
        case .delete(let type, let key): return "delete \(type) \(key)"
        default: return "\(mutation)"
        }
    }

    static func describe(_ fate: CommitFate) -> String {
        switch fate {
        case .success: return ""
        case .failure(let failure): return ", fails \(failure)"
        case .machineCrash(let window): return ", crash \(window)"
        case .processKilled(let window): return ", killed \(window)"
        }
    }

    static func describe(_ source: QuerySource) -> String {
        switch source {
        case .table(let type): return type
        case .list(let owner): return "list of \(owner)"
        case .mapValues(let owner): return "map of \(owner)"
        case .linkingObjects(let target, let type): return "\(type) linking \(target)"
        }
    }
}
