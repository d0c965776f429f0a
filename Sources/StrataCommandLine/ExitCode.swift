/// Process exit codes shared by the Strata command-line tools.
///
/// The values are `Int32` so a tool body can return them directly to `exit`.
public enum ExitCode {
    /// The command did what was asked.
    public static let ok: Int32 = 0
    /// The command ran but found a problem (a failed check, a failed benchmark gate).
    public static let failure: Int32 = 1
    /// The arguments were wrong; nothing was done.
    public static let usage: Int32 = 2
    /// A file could not be opened, read or written.
    public static let ioError: Int32 = 3
}
