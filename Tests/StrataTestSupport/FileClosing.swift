import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits until no handle in any process has the database at `path` open, that is until its
/// lock file's session lock can be taken exclusively (the lock every open holds shared, Spec
/// X2), or `seconds` pass; true when it is closed.
///
/// A realm dropped on a thread that is exiting ends on the teardown thread, a little later
/// (`TeardownThread`): a test that changes a file's bytes in place, as a disk would, must first
/// wait for the handles of its earlier steps to be gone, or its next open joins the old handle
/// and its view of versions the new bytes no longer hold. The wait ends as soon as the lock is
/// free, so a passing test never waits the hang guard out.
public func waitUntilClosed(_ path: String, seconds: Double = hangGuardSeconds) -> Bool {
    let descriptor = open(path + ".lock", O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else { return errno == ENOENT }
    defer { close(descriptor) }
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return true
        }
        if Date() >= deadline { return false }
        usleep(1_000)
    }
}
