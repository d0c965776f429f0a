import StrataCommandLine
import StrataStorage

/// How the subcommands open a database.
enum StoreAccess {
    /// Opens `path` for inspection: read-only (so inspecting never needs write permission on
    /// the data file), and normally if read-only opening fails with an OS error (for example
    /// a lock file the engine cannot share read-only). Never creates the file.
    ///
    /// - Throws: `.fileNotFound` when `path` does not exist; a corruption error when it is not
    ///   a readable Strata file; the error of the normal open when both attempts fail.
    ///
    /// A read-only open that cannot write the lock file (another user's database) is refused
    /// unless the file system is read-only or `assumeImmutable` (Spec X30).
    static func openForReading(_ path: String, assumeImmutable: Bool = false) throws(StorageError) -> Store {
        do {
            return try Store.open(
                .file(path), options: StoreOptions(create: false, readOnly: true, assumeImmutable: assumeImmutable))
        } catch {
            guard case .io = error else { throw error }
            return try Store.open(
                .file(path), options: StoreOptions(create: false, readOnly: false))
        }
    }

    /// `--assume-immutable`, for the commands that only read (Spec X30).
    static let assumeImmutableOption = OptionSpec.flag(
        "assume-immutable",
        help: "Read FILE even when its lock file cannot be written, asserting that no process "
            + "writes FILE meanwhile (else such a read is refused).")

    /// Opens `path` for writing, creating it when it does not exist.
    static func openForWriting(_ path: String) throws(StorageError) -> Store {
        try Store.open(.file(path), options: StoreOptions(create: true, readOnly: false))
    }
}
