/// What free threads do, and how often: drawn once per run from the choice stream (swarm
/// testing: some runs leave kinds out, so that others get more room).
public struct FreePlan: Sendable, Hashable, CustomStringConvertible {
    public enum Operation: String, Sendable, CaseIterable {
        case readAll, readObject, write, refresh, freeze, readFrozen, dropFrozen, invalidate, reopen
    }

    /// Relative weights when every kind is in the mix, by `Operation.allCases` order.
    static let baseWeights = [20, 15, 25, 12, 6, 10, 3, 3, 4]
    /// Kinds every run keeps: without them nothing is read or committed.
    static let alwaysKept: Set<Operation> = [.readAll, .write]
    /// The fewest keys per table of a wide plan.
    static let wideKeyCountMin = 64

    /// By `Operation.allCases` order; 0 leaves a kind out.
    public var weights: [Int]
    /// Primary keys are drawn from `0..<keyCount` in each table (few keys: many conflicts).
    public var keyCount: Int
    /// Changes per write transaction, at most.
    public var changesMax: Int
    /// How many write transactions in a hundred are cancelled rather than committed.
    public var cancelPercent: Int

    static func draw(_ stream: inout ChoiceStream) -> FreePlan {
        var weights: [Int] = []
        for (operation, weight) in zip(Operation.allCases, baseWeights) {
            let kept = alwaysKept.contains(operation) || stream.draw(4) != 0
            weights.append(kept ? weight : 0)
        }
        // Mostly a few keys (every write conflicts with reads of the same objects); one plan in
        // four spreads over hundreds, so that tables grow past one page and trees split and merge
        // while other threads read them.
        let keyCount =
            stream.chance(25)
            ? wideKeyCountMin + stream.draw(wideKeyCountMin * 6) : 2 + stream.draw(7)
        return FreePlan(
            weights: weights, keyCount: keyCount, changesMax: 1 + stream.draw(4),
            cancelPercent: [15, 0, 40][stream.draw(3)])
    }

    public var description: String {
        let kinds = zip(Operation.allCases, weights).filter { $0.1 > 0 }.map {
            "\($0.0.rawValue) \($0.1)"
        }
        return kinds.joined(separator: ", ")
            + "; keys \(keyCount), changes ≤ \(changesMax), cancel \(cancelPercent)%"
    }
}
