import Foundation
@_spi(StrataCheck) import Strata
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// What the other process of an interprocess test does (`strata-fuzz child-realm`): the child
/// half of Realm's interprocess tests (IPC-01 to IPC-11), through the Realm API on the file the
/// parent names, with the harness's `Item` class.
public enum InterprocessAction: String, CaseIterable, Sendable {
    /// Adds `count` Items in one write, then prints 'count N'.
    case create
    /// Opens the file, reads the number of Items and prints 'count N': nothing else.
    case count
    /// Begins a write, adds an Item, prints 'in-write' and exits at once, without committing,
    /// cancelling or closing (a process that dies inside its write).
    case abandonWrite = "abandon-write"
}

public enum InterprocessChild {
    /// Runs `action` on the file at `path`; `emit` writes one output line.
    public static func run(_ action: InterprocessAction, path: String, count: Int,
                           emit: (String) -> Void) throws(Realm.Error) {
        let realm = try Realm._open(configuration: ProcessChild.configuration(path: path, engineBugs: []), queue: nil)
        switch action {
        case .create:
            try realm._beginWrite()
            let first = try realm._objects(Item.self)._count()
            for key in first..<(first + count) {
                _ = try realm._create(Item.self, value: ["primaryKey": key, "value": key], update: .error)
            }
            try realm._commitWrite()
            emit("count \(try realm._objects(Item.self)._count())")
        case .count:
            emit("count \(try realm._objects(Item.self)._count())")
        case .abandonWrite:
            try realm._beginWrite()
            let key = try realm._objects(Item.self)._count()
            _ = try realm._create(Item.self, value: ["primaryKey": key, "value": key], update: .error)
            emit("in-write")
            _exit(0)  // no rollback, no unlock, no close: the kernel drops the lock
        }
    }
}
