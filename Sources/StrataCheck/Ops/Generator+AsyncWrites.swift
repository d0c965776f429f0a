import StrataModel

// Async writes in generated runs (generation 4): only on a queue context's own realm (a
// controlled thread runs no loop), and only when they can run at once. The engine takes the
// write lock for a block on the queue's own thread, where no schedule orders it, so a block is
// queued only when no other realm of the file holds the lock or has async work of its own
// (`Runner.asyncSubstitute` also keeps other contexts' writes out while blocks wait).
extension Generator {
    /// Keys of async blocks' creates: far above every other operation's, one run of four per
    /// block, so a block never fails (a failing block's error has no engine counterpart here).
    static let asyncKeyBase = 100_000

    mutating func asyncWrite(
        _ kind: OperationKind, own: RealmID, model: ModelState,
        stream: inout ChoiceStream
    ) -> StrataModel.Operation {
        let status = StrataModel.Operation.isPerformingAsynchronousWriteOperations(own)
        guard let realm = model.realms[own] else { return status }
        switch kind {
        case .writeAsync, .beginAsyncWrite:
            // On a thread (generation 5) it is refused whatever else is under way (Spec A12).
            let onThread =
                swarm.generation >= 5 && realm.owner.flatMap({ model.contexts[$0] })?.kind.hasScheduler != true
            guard onThread || Self.mayQueueAsync(own, in: model) else { return status }
            let id = allocateAsyncWrite()
            let mutations = asyncMutations(id, stream: &stream)
            if kind == .writeAsync { return .writeAsync(own, mutations, as: id) }
            // Spec A3, A9: mostly commits, grouped or not; one in six cancels its write.
            var ending: AsyncBlockEnding =
                stream.draw(6) == 5
                ? .cancel
                : .commit(allowGrouping: stream.chance(50))
            // Generation 5: one block in five leaves its write open (Spec A19: rolled back when
            // it returns, no completion, the next block runs).
            if swarm.generation >= 5, stream.draw(5) == 4 { ending = .leaveOpen }
            return .beginAsyncWrite(own, mutations, ending: ending, as: id)
        case .commitAsyncWrite:
            // Spec A5, A6: the synchronous write of the realm committed without a sync. Outside a
            // write now and then, which must be refused.
            guard realm.write != nil || stream.draw(8) == 7 else { return status }
            // Its group's sync shares the file's sync queue with any other realm's.
            guard realm.write == nil || Self.mayQueueAsync(own, in: model) else { return status }
            return .commitAsyncWrite(own, allowGrouping: stream.chance(50), as: allocateAsyncWrite())
        case .cancelAsyncWrite:
            // Spec A4: a queued block, a commit whose completion is owed, or (one in four) any
            // id handed out so far (one that ran or completed: nothing happens).
            var live = realm.asyncQueue.map(\.id)
            for group in realm.asyncGroups { live += group.commits.map(\.id) }
            live += realm.completionsOwed.map(\.id)
            if live.isEmpty || stream.draw(4) == 3 {
                guard nextAsyncWrite > 1 else { return status }
                return .cancelAsyncWrite(own, AsyncWriteID(1 + stream.draw(nextAsyncWrite - 1)))
            }
            return .cancelAsyncWrite(own, live[stream.draw(live.count)])
        case .syncAsyncGroup:
            // The background sync of the realm's ended group (Spec D10): only then, and only
            // when it can take the write lock at once.
            guard realm.asyncGroups.first?.isEnded == true, Self.lockIsFree(for: own, in: model) else {
                return status
            }
            return .syncAsyncGroup(own, fails: false)
        default:
            return status
        }
    }

    /// One to three creates of keys no other operation uses, now and then followed by a set of
    /// one of them (the block sees its own writes, Spec A11).
    private func asyncMutations(_ id: AsyncWriteID, stream: inout ChoiceStream) -> [Mutation] {
        let count = 1 + stream.draw(3)
        var mutations: [Mutation] = []
        for index in 0..<count {
            let type = stream.draw(4) == 3 ? "Other" : "Item"
            mutations.append(
                .create(
                    type: type, primaryKey: Self.asyncKeyBase + 4 * id.rawValue + index,
                    value: stream.draw(3) == 0 ? nil : stream.draw(100)))
        }
        if stream.draw(4) == 3, case .create(let type, let key, _) = mutations[0] {
            mutations.append(.setValue(type: type, primaryKey: key, value: stream.draw(100)))
        }
        return mutations
    }

    private mutating func allocateAsyncWrite() -> AsyncWriteID {
        defer { nextAsyncWrite += 1 }
        return AsyncWriteID(nextAsyncWrite)
    }

    /// No realm but `realm` holds its file's write lock.
    static func lockIsFree(for realm: RealmID, in model: ModelState) -> Bool {
        guard let location = model.realms[realm]?.configuration.location,
            let writer = model.files[location]?.writer
        else { return true }
        return writer == realm
    }

    /// Whether a block queued on `realm` now runs when the queue turns: no other realm holds
    /// the lock or has async work (its blocks would contend for the lock on their own queue).
    static func mayQueueAsync(_ realm: RealmID, in model: ModelState) -> Bool {
        guard lockIsFree(for: realm, in: model) else { return false }
        return !model.realms.contains { id, other in id != realm && other.hasAsyncWork }
    }
}

extension RealmState {
    /// Blocks queued, commits not yet durable or completions owed (Spec A17).
    var hasAsyncWork: Bool {
        !asyncQueue.isEmpty || !asyncGroups.isEmpty || !completionsOwed.isEmpty || write?.asyncBlock != nil
    }
}
