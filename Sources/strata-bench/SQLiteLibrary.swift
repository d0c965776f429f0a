/// The SQLite functions `--peers` calls, resolved from `libsqlite3.so.0` at run time.
///
/// The function types are declared here from SQLite's documented C API: `sqlite3 *` and
/// `sqlite3_stmt *` are opaque pointers, `int` is `Int32`, `sqlite3_int64` is `Int64`, and a
/// bind destructor of 0 is `SQLITE_STATIC` (the bench keeps the bytes alive until the step).
final class SQLiteLibrary: Sendable {
    typealias Open =
        @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) ->
        Int32
    typealias Prepare =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    /// `sqlite3_step`, `sqlite3_reset`, `sqlite3_finalize`, `sqlite3_close_v2`.
    typealias HandleStatus = @convention(c) (OpaquePointer?) -> Int32
    typealias BindInt64 = @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    /// `sqlite3_bind_text(stmt, index, bytes, byteCount, destructor)`.
    typealias BindText = @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int32, OpaquePointer?) -> Int32
    typealias ColumnInt64 = @convention(c) (OpaquePointer?, Int32) -> Int64
    typealias ColumnText = @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    typealias ColumnBytes = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias LibVersion = @convention(c) () -> UnsafePointer<CChar>?
    typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias ErrorString = @convention(c) (Int32) -> UnsafePointer<CChar>?

    // sqlite3.h constants.
    static let openReadWrite: Int32 = 0x02
    static let openCreate: Int32 = 0x04
    /// `SQLITE_OPEN_NOMUTEX`: one connection per thread, as in the notes' runs.
    static let openNoMutex: Int32 = 0x8000
    static let resultOK: Int32 = 0
    static let resultRow: Int32 = 100
    static let resultDone: Int32 = 101

    let library: PeerLibrary
    let open: Open
    let close: HandleStatus
    let prepare: Prepare
    let step: HandleStatus
    let reset: HandleStatus
    let finalize: HandleStatus
    let bindInt64: BindInt64
    let bindText: BindText
    let columnInt64: ColumnInt64
    let columnText: ColumnText
    let columnBytes: ColumnBytes
    private let errorMessage: ErrorMessage
    private let errorString: ErrorString
    /// `sqlite3_libversion()`, e.g. "3.40.1".
    let version: String

    init(_ library: PeerLibrary) throws(PeerError) {
        self.library = library
        open = try library.function("sqlite3_open_v2", as: Open.self)
        close = try library.function("sqlite3_close_v2", as: HandleStatus.self)
        prepare = try library.function("sqlite3_prepare_v2", as: Prepare.self)
        step = try library.function("sqlite3_step", as: HandleStatus.self)
        reset = try library.function("sqlite3_reset", as: HandleStatus.self)
        finalize = try library.function("sqlite3_finalize", as: HandleStatus.self)
        bindInt64 = try library.function("sqlite3_bind_int64", as: BindInt64.self)
        bindText = try library.function("sqlite3_bind_text", as: BindText.self)
        columnInt64 = try library.function("sqlite3_column_int64", as: ColumnInt64.self)
        columnText = try library.function("sqlite3_column_text", as: ColumnText.self)
        columnBytes = try library.function("sqlite3_column_bytes", as: ColumnBytes.self)
        errorMessage = try library.function("sqlite3_errmsg", as: ErrorMessage.self)
        errorString = try library.function("sqlite3_errstr", as: ErrorString.self)
        let libVersion = try library.function("sqlite3_libversion", as: LibVersion.self)
        version = libVersion().map { String(cString: $0) } ?? "unknown version"
    }

    /// The error of a call that returned `code`: the connection's message when there is one.
    func failure(_ code: Int32, _ function: String, connection: OpaquePointer?) -> PeerError {
        let text = connection.flatMap { errorMessage($0) } ?? errorString(code)
        let message = text.map { String(cString: $0) } ?? "no message"
        return PeerError.call(peer: "SQLite", function: function, code: code, message: message)
    }
}
