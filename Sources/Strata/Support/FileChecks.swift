import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Spec X4: the errors of a copy destination, checked before anything is written.
enum FileChecks {
    static func checkCopyDestination(_ path: String) throws(Realm.Error) {
        let prefix = Realm.Error.openPrefix(path, realmFile: false)
        if access(path, F_OK) == 0 { throw Realm.Error(.fileExists, "\(prefix): File exists", path: path) }
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        var status = stat()
        guard stat(directory, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw Realm.Error(.fileNotFound, "\(prefix): parent directory does not exist", path: path)
        }
        guard access(directory, W_OK) == 0 else {
            throw Realm.Error(.filePermissionDenied, "\(prefix): Permission denied", path: path)
        }
    }
}
