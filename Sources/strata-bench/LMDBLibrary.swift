/// The LMDB functions `--peers` calls, resolved from `liblmdb.so.0` at run time.
///
/// The function types are declared here from LMDB's documented C API (lmdb.h of 0.9.x):
/// handles (`MDB_env *`, `MDB_txn *`, `MDB_cursor *`) are opaque pointers, `MDB_dbi` and the
/// flags are `unsigned int`, and an `MDB_val *` ({size_t mv_size; void *mv_data}) is a raw
/// pointer to 16 bytes that `LMDBValue` reads and writes (64-bit platforms only).
final class LMDBLibrary: Sendable {
    typealias EnvCreate = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias EnvSetMapSize = @convention(c) (OpaquePointer?, Int) -> Int32
    typealias EnvOpen = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt32, UInt32) -> Int32
    typealias EnvClose = @convention(c) (OpaquePointer?) -> Void
    typealias TxnBegin =
        @convention(c) (OpaquePointer?, OpaquePointer?, UInt32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    /// `mdb_txn_commit`, `mdb_txn_renew`.
    typealias TxnStatus = @convention(c) (OpaquePointer?) -> Int32
    /// `mdb_txn_abort`, `mdb_txn_reset`, `mdb_cursor_close`.
    typealias HandleEnd = @convention(c) (OpaquePointer?) -> Void
    typealias DBIOpen =
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt32, UnsafeMutablePointer<UInt32>?) -> Int32
    typealias Put =
        @convention(c) (OpaquePointer?, UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UInt32) -> Int32
    typealias Get =
        @convention(c) (OpaquePointer?, UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    typealias CursorOpen = @convention(c) (OpaquePointer?, UInt32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias CursorGet =
        @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UInt32) -> Int32
    /// `mdb_stat(txn, dbi, MDB_stat *)`.
    typealias Stat = @convention(c) (OpaquePointer?, UInt32, UnsafeMutableRawPointer?) -> Int32
    typealias Version =
        @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) ->
        UnsafeMutablePointer<CChar>?
    typealias StrError = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    // lmdb.h constants.
    /// Environment flag: `path` is the data file (`path-lock` beside it), not a directory.
    /// It changes file naming only; no durability flag is set (every commit syncs).
    static let noSubdirectory: UInt32 = 0x4000
    /// Transaction flag `MDB_RDONLY`.
    static let readOnly: UInt32 = 0x2_0000
    /// Database flags `MDB_INTEGERKEY` (native-endian size_t keys, compared as integers)
    /// and `MDB_CREATE`.
    static let integerKey: UInt32 = 0x08
    static let create: UInt32 = 0x4_0000
    /// `MDB_cursor_op` values.
    static let cursorFirst: UInt32 = 0
    static let cursorNext: UInt32 = 8
    /// `MDB_NOTFOUND`.
    static let notFound: Int32 = -30_798

    let library: PeerLibrary
    let envCreate: EnvCreate
    let envSetMapSize: EnvSetMapSize
    let envOpen: EnvOpen
    let envClose: EnvClose
    let txnBegin: TxnBegin
    let txnCommit: TxnStatus
    let txnAbort: HandleEnd
    let txnReset: HandleEnd
    let txnRenew: TxnStatus
    let dbiOpen: DBIOpen
    let put: Put
    let get: Get
    let cursorOpen: CursorOpen
    let cursorGet: CursorGet
    let cursorClose: HandleEnd
    let stat: Stat
    private let strError: StrError
    /// `mdb_version`'s major.minor.patch, e.g. "0.9.24".
    let version: String

    init(_ library: PeerLibrary) throws(PeerError) {
        precondition(MemoryLayout<Int>.size == 8, "LMDBValue assumes a 64-bit size_t")
        self.library = library
        envCreate = try library.function("mdb_env_create", as: EnvCreate.self)
        envSetMapSize = try library.function("mdb_env_set_mapsize", as: EnvSetMapSize.self)
        envOpen = try library.function("mdb_env_open", as: EnvOpen.self)
        envClose = try library.function("mdb_env_close", as: EnvClose.self)
        txnBegin = try library.function("mdb_txn_begin", as: TxnBegin.self)
        txnCommit = try library.function("mdb_txn_commit", as: TxnStatus.self)
        txnAbort = try library.function("mdb_txn_abort", as: HandleEnd.self)
        txnReset = try library.function("mdb_txn_reset", as: HandleEnd.self)
        txnRenew = try library.function("mdb_txn_renew", as: TxnStatus.self)
        dbiOpen = try library.function("mdb_dbi_open", as: DBIOpen.self)
        put = try library.function("mdb_put", as: Put.self)
        get = try library.function("mdb_get", as: Get.self)
        cursorOpen = try library.function("mdb_cursor_open", as: CursorOpen.self)
        cursorGet = try library.function("mdb_cursor_get", as: CursorGet.self)
        cursorClose = try library.function("mdb_cursor_close", as: HandleEnd.self)
        stat = try library.function("mdb_stat", as: Stat.self)
        strError = try library.function("mdb_strerror", as: StrError.self)
        let versionFunction = try library.function("mdb_version", as: Version.self)
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = versionFunction(&major, &minor, &patch)
        version = "\(major).\(minor).\(patch)"
    }

    /// Throws unless `code` is `MDB_SUCCESS` (0).
    @inline(__always)
    func check(_ code: Int32, _ function: StaticString) throws(PeerError) {
        guard code != 0 else { return }
        throw failure(code, function)
    }

    func failure(_ code: Int32, _ function: StaticString) -> PeerError {
        let message = strError(code).map { String(cString: $0) } ?? "no message"
        return PeerError.call(peer: "LMDB", function: "\(function)", code: code, message: message)
    }
}

/// An `MDB_val` in memory the bench owns: `mv_size` at offset 0, `mv_data` at offset 8.
struct LMDBValue {
    static let byteCount = 16
    let pointer: UnsafeMutableRawPointer

    static func allocate() -> LMDBValue {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 8)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        return LMDBValue(pointer: pointer)
    }

    func deallocate() {
        pointer.deallocate()
    }

    @inline(__always)
    func set(size: Int, data: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: size, toByteOffset: 0, as: Int.self)
        pointer.storeBytes(of: data, toByteOffset: 8, as: UnsafeMutableRawPointer.self)
    }

    @inline(__always)
    var size: Int {
        pointer.load(fromByteOffset: 0, as: Int.self)
    }

    @inline(__always)
    var data: UnsafeRawPointer? {
        pointer.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    }
}
