import StrataCheck
import StrataCommandLine

extension ParsedCommand {
    /// The operation kinds named by option `name` (comma-separated `OperationKind` names);
    /// empty when the option is absent. An unknown name is a usage error listing the kinds.
    func operationKinds(_ name: String) throws(UsageError) -> Set<String> {
        guard let text = value(name) else { return [] }
        let kinds = Set(text.split(separator: ",").map { String($0) })
        let known = Set(OperationKind.allCases.map { "\($0)" })
        if let unknown = kinds.subtracting(known).sorted().first {
            throw usageError(
                "--\(name): unknown operation kind '\(unknown)' (kinds: \(known.sorted().joined(separator: ", ")))")
        }
        return kinds
    }
}
