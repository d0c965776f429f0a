// File operations: fileExists, deleteFiles, writeCopy (X1 to X4).

extension ModelState {
    mutating func dispatchFileOperation(_ operation: Operation, in context: ContextID)
        throws(Interruption) -> Value
    {
        switch operation {
        case .fileExists(let configuration):
            return .bool(files[configuration.location] != nil)  // Spec X1
        case .deleteFiles(let configuration):
            // Spec X28: the deletion is one step: an open of the path comes wholly before it
            // (then X2 refuses the deletion) or after it (then it creates a new, empty file).
            let location = configuration.location
            // Spec X2: a file open anywhere is not deleted.
            if realms.values.contains(where: {
                $0.configuration.location == location && !$0.isClosed
                    && (!$0.isFrozen || $0.readVersion != nil)
            }) {
                throw .rejected(.alreadyOpen(path: "\(location)"))
            }
            // Spec X1: true when the main file existed, false (no error) otherwise.
            let existed = files.removeValue(forKey: location) != nil
            committers[location] = nil
            return .bool(existed)
        case .writeCopy(let realmID, let path):
            _ = try usableRealm(realmID, in: context)
            let snapshot = try readableView(of: realmID)
            let conditions = pathConditions[path] ?? []
            // Spec X4: each failure leaves no destination.
            if files[.path(path)] != nil { throw .rejected(.fileExists(path: path)) }
            if conditions.contains(.parentMissing) {
                throw .rejected(.parentDirectoryMissing(path: path))
            }
            if conditions.contains(.notWritable) {
                throw .rejected(.copyPermissionDenied(path: path))
            }
            if conditions.contains(.noFileDescriptors) {
                throw .rejected(.tooManyOpenFiles(path: path))
            }
            // Spec X3: a compacted copy of the read version, or of the open write's data.
            files[.path(path)] = FileState(
                location: .path(path), first: snapshot,
                readerSlotCount: readerSlotCount)
            return .done
        default:
            throw .rejected(.invalidStep("not a file operation"))
        }
    }
}
