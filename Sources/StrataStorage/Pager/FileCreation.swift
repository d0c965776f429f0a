#if canImport(Glibc)
    import Glibc
#endif

/// Creating a new database: page 0 with the file header and slot 0 holding version 1 (no
/// tables, empty free list, one page).
enum FileCreation {
    static let initialVersion = Version(1)

    /// The bytes of a new file's only page.
    static func initialImage(pageSizeBytes: Int, fileIdentity: UInt64) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: pageSizeBytes)
        let header = FileHeader(pageSizeBytes: pageSizeBytes, fileIdentity: fileIdentity)
        page.replaceSubrange(0..<FileHeader.sectorByteCount, with: header.encode())
        let slot = CommitSlot(
            version: initialVersion, catalogRoot: .header, freeListHead: .header, pageCount: 1,
            schemaVersion: 0, fileIdentity: fileIdentity, freeListEntryCount: 0)
        let offset = FileHeader.slotOffsets[0]
        page.replaceSubrange(offset..<(offset + FileHeader.sectorByteCount), with: slot.encode())
        return page
    }

    static func newFileIdentity() -> UInt64 {
        var identity: UInt64 = 0
        while identity == 0 { identity = UInt64.random(in: 1...UInt64.max) }
        return identity
    }

    /// Creates `path` atomically: the page is written and synced under a temporary name, then
    /// linked into place (so a crash never leaves a half-made file at `path`, and of two
    /// processes creating it at once, one wins and the other opens the winner's file).
    static func createFile(path: String, pageSizeBytes: Int) throws(StorageError) {
        guard PageLayout.isSupported(pageSizeBytes: pageSizeBytes) else {
            throw StorageError.unsupportedPageSize(pageSizeBytes)
        }
        removeAbandonedTemporaries(of: path)
        let temporary = "\(temporaryPrefix(of: path))\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = try SystemCalls.open(temporary, flags: O_RDWR | O_CREAT | O_EXCL, mode: 0o644)
        defer { unlink(temporary) }
        do {
            defer { SystemCalls.close(descriptor) }
            let image = initialImage(pageSizeBytes: pageSizeBytes, fileIdentity: newFileIdentity())
            try withBytes(image) { raw throws(StorageError) in
                guard let base = raw.baseAddress else { return }
                try SystemCalls.writeAll(descriptor, base, count: raw.count, offset: 0)
            }
            try SystemCalls.fullSync(descriptor)
        }
        if link(temporary, path) != 0 {
            let code = errno
            if code != EEXIST { throw StorageError.io(operation: "link \(path)", errno: code) }
        }
        try SystemCalls.syncDirectory(containing: path)
    }

    static func temporaryPrefix(of path: String) -> String { "\(path).creating-" }

    /// Deletes temporaries left by creators that died before linking theirs into place (a
    /// process killed mid-creation never runs its cleanup). Only files of dead processes go:
    /// a live creator's temporary is its own business.
    static func removeAbandonedTemporaries(of path: String) {
        let directory = SystemCalls.parentDirectory(of: path)
        let prefix = temporaryPrefix(of: path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path)
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name),
            let stream = opendir(directory)
        else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            // The name is read in place, up to its NUL: a record is only `d_reclen` bytes, so
            // copying the whole 256-byte `d_name` reads past the end of readdir's buffer when
            // the entry is its last one, which faults where a thread's heap ends.
            let name = String(
                cString: UnsafeRawPointer(entry).advanced(by: nameOffset)
                    .assumingMemoryBound(to: CChar.self))
            guard name.hasPrefix(prefix) else { continue }
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory == "/" ? "/\(name)" : "\(directory)/\(name)") }
        }
    }

    /// Writes a new database's first page through a store (memory and simulated stores).
    static func initialise(store: PageStore, pageSizeBytes: Int) throws(StorageError) {
        let image = initialImage(pageSizeBytes: pageSizeBytes, fileIdentity: newFileIdentity())
        try store.setFileByteCount(pageSizeBytes, site: .grow(toBytes: pageSizeBytes))
        try withBytes(image) { raw throws(StorageError) in
            guard let base = raw.baseAddress else { return }
            try store.write([WritePiece(offset: 0, bytes: base, byteCount: raw.count, site: .pageWrite(.header))])
        }
        try store.sync(.full, site: .phaseOneSync)
    }
}
