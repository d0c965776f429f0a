#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shared library opened at run time with `dlopen`, for `--peers`: strata-bench has no
/// link-time or package dependency on the peers, only their sonames (`liblmdb.so.0`,
/// `libsqlite3.so.0`) and the few function types it declares itself (`LMDBLibrary`,
/// `SQLiteLibrary`).
///
/// The handle is never closed: the functions resolved from it are used until the process exits.
struct PeerLibrary: @unchecked Sendable {
    /// The name or path given to `dlopen`.
    let name: String
    /// The `dlopen` handle (an opaque address, shared read-only between threads).
    private let handle: UnsafeMutableRawPointer

    /// Opens `name` (a soname searched as the dynamic loader searches, or a path).
    /// - Throws: `PeerError.libraryMissing` with `dlerror`'s reason.
    init(opening name: String) throws(PeerError) {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            throw PeerError.libraryMissing(name: name, reason: Self.lastError())
        }
        self.name = name
        self.handle = handle
    }

    /// The function `symbol` as the C function type `type` (which the caller declares to
    /// match the library's header).
    /// - Throws: `PeerError.symbolMissing` when the library does not export it.
    func function<Function>(_ symbol: String, as type: Function.Type) throws(PeerError) -> Function {
        precondition(
            MemoryLayout<Function>.size == MemoryLayout<UnsafeMutableRawPointer>.size,
            "\(symbol): not a C function pointer type")
        _ = dlerror()  // clear a stale error
        guard let address = dlsym(handle, symbol) else {
            throw PeerError.symbolMissing(library: name, symbol: symbol, reason: Self.lastError())
        }
        return unsafeBitCast(address, to: type)
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "no reason given"
    }
}

/// Why `--peers` could not measure a peer.
enum PeerError: Error, Sendable, CustomStringConvertible {
    /// `dlopen` failed.
    case libraryMissing(name: String, reason: String)
    /// The library has no such function (too old, or not the library it is named after).
    case symbolMissing(library: String, symbol: String, reason: String)
    /// One or more peers could not be loaded: the run measures both or neither.
    case unavailable([PeerError])
    /// A peer's call returned an error code.
    case call(peer: String, function: String, code: Int32, message: String)

    /// What to run to install both peers (Debian and Ubuntu package names).
    static let installHint = "apt-get install liblmdb0 libsqlite3-0"

    var description: String {
        switch self {
        case .libraryMissing(let name, let reason):
            return "cannot load \(name): \(reason)"
        case .symbolMissing(let library, let symbol, let reason):
            return "\(library) has no function \(symbol): \(reason)"
        case .unavailable(let errors):
            return "--peers needs LMDB and SQLite, loaded at run time: "
                + errors.map(\.description).joined(separator: "; ")
                + ". Install them with `\(Self.installHint)` (as root), or point"
                + " --lmdb-library / --sqlite-library at a build of your own."
        case .call(let peer, let function, let code, let message):
            return "\(peer): \(function) failed: \(message) (\(code))"
        }
    }
}

/// The peers of one `--peers` run, both loaded before any workload starts.
final class PeerLibraries: Sendable {
    let lmdb: LMDBLibrary
    let sqlite: SQLiteLibrary

    static let lmdbDefaultName = "liblmdb.so.0"
    static let sqliteDefaultName = "libsqlite3.so.0"

    private init(lmdb: LMDBLibrary, sqlite: SQLiteLibrary) {
        self.lmdb = lmdb
        self.sqlite = sqlite
    }

    /// Loads both peers; a missing one fails the run, naming every library that is missing
    /// and the packages to install, so that a run never reports one peer in silence.
    static func load(lmdbName: String, sqliteName: String) throws(PeerError) -> PeerLibraries {
        var lmdb: LMDBLibrary?
        var sqlite: SQLiteLibrary?
        var errors: [PeerError] = []
        do throws(PeerError) {
            lmdb = try LMDBLibrary(try PeerLibrary(opening: lmdbName))
        } catch {
            errors.append(error)
        }
        do throws(PeerError) {
            sqlite = try SQLiteLibrary(try PeerLibrary(opening: sqliteName))
        } catch {
            errors.append(error)
        }
        guard let lmdb, let sqlite else {
            throw PeerError.unavailable(errors)
        }
        return PeerLibraries(lmdb: lmdb, sqlite: sqlite)
    }

    /// "LMDB 0.9.24 (liblmdb.so.0), SQLite 3.40.1 (libsqlite3.so.0)".
    var versionSummary: String {
        "LMDB \(lmdb.version) (\(lmdb.library.name)), SQLite \(sqlite.version)"
            + " (\(sqlite.library.name))"
    }
}

/// Opening and filling a peer's fresh database, for `LayerLoader`.
enum PeerLoader {
    static func load(
        _ peer: BenchLayer, path: String, configuration: BenchConfiguration
    ) throws -> (database: any LayerDatabase, timing: LoadTiming) {
        guard let libraries = configuration.peerLibraries else {
            preconditionFailure("--peers runs load the peer libraries before the workloads")
        }
        switch peer {
        case .lmdb:
            let (database, timing) = try LMDBPeer.load(
                path: path, recordCount: configuration.recordCount,
                capacityRecords: configuration.recordCount + configuration.commitCount, lmdb: libraries.lmdb)
            return (database, timing)
        case .sqlite:
            let (database, timing) = try SQLitePeer.load(
                path: path, recordCount: configuration.recordCount, sqlite: libraries.sqlite)
            return (database, timing)
        case .engine, .object:
            preconditionFailure("\(peer.name) is not a peer")
        }
    }
}
