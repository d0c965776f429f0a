/// Identifies a queued async write block or an async commit's completion (Spec A4).
public typealias AsyncTransactionId = UInt

/// A realm's async writes (Spec A1 to A17), confined to the realm: the blocks queued, the one
/// running, and the completions owed, by group.
///
///     queued ──a turn with no write open (A7)──▶ running ──commitAsyncWrite──▶ committed
///       │                                          │ cancelWrite, invalidate (A3, A13)
///       └──cancelAsyncWrite, invalidate (A4, A13)──┴──────────────▶ gone
///
/// A commit joins the open group; the group ends at a commit without grouping, at its 20th
/// commit, when no block is queued, or at a synchronous write (A9, D13). An ended group's
/// completions run, in commit order, on the next turn and before any later block starts.
struct AsyncWriteQueue {
    /// A block waiting for its turn.
    struct Block {
        let id: AsyncTransactionId
        let body: () -> Void
        /// Set for `writeAsync`: the commit after the block, and its completion.
        let autoCommit: Bool
        let onComplete: ((Swift.Error?) -> Void)?
    }

    /// A commit whose completion is owed (nil once cancelled, Spec A4).
    struct Commit {
        let id: AsyncTransactionId
        var onComplete: ((Swift.Error?) -> Void)?
        /// The commit's error; nil when it is durable (Spec D11, D12).
        var error: Realm.Error?
    }

    static let groupCommitsMax = 20  // Spec A9, L7

    var queued: [Block] = []
    /// The block running now (its id), if any.
    var running: AsyncTransactionId?
    /// The commits of the open group, in commit order.
    var openGroup: [Commit] = []
    /// Commits of ended groups whose completions have not run, in commit order.
    var ended: [Commit] = []
    private var lastID: AsyncTransactionId = 0

    mutating func nextID() -> AsyncTransactionId {
        lastID += 1
        return lastID
    }

    /// Spec A17.
    var isBusy: Bool { !queued.isEmpty || running != nil || !openGroup.isEmpty || !ended.isEmpty }

    /// Ends the open group (its commits are durable: Strata syncs each commit, D10's note).
    mutating func endGroup() {
        ended.append(contentsOf: openGroup)
        openGroup = []
    }

    /// Spec A4: removes a queued block, or drops a commit's completion; true if it found one.
    mutating func cancel(_ id: AsyncTransactionId) -> Bool {
        if let index = queued.firstIndex(where: { $0.id == id }) {
            queued.remove(at: index)
            return true
        }
        if let index = openGroup.firstIndex(where: { $0.id == id }) {
            openGroup[index].onComplete = nil
            return true
        }
        if let index = ended.firstIndex(where: { $0.id == id }) {
            ended[index].onComplete = nil
            return true
        }
        return false
    }
}
