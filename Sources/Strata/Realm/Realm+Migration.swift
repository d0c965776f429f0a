import CStrataSupport
import Foundation
import StrataStorage

extension Realm {
    /// Opens the realm of `configuration` and closes it again: runs its migration now, if the
    /// file needs one, rather than at the next open (Spec X25).
    ///
    /// Confinement: call it on a thread or serial queue where no realm of the file is open.
    /// - Throws: `Realm.Error` as `Realm(configuration:)` does; `.programmerError` "Cannot
    ///   migrate Realms that are already open." while this process has the file open.
    ///
    /// ```swift
    /// var config = Realm.Configuration(schemaVersion: 3, objectTypes: [Dog.self])
    /// config.migrationBlock = { migration, _ in migration.deleteData(forType: "Cat") }
    /// try Realm.performMigration(for: config)
    /// ```
    public static func performMigration(for configuration: Configuration = .defaultConfiguration) throws {
        try _performMigration(for: configuration)
    }

    /// `performMigration(for:)` with `Realm.Error` as the thrown type.
    package static func _performMigration(for configuration: Configuration) throws(Realm.Error) {
        try configuration.validate()
        guard RealmFile.openFile(key: configuration.fileKey) == nil else {
            throw Realm.Error.misuse("Cannot migrate Realms that are already open.")
        }
        _ = try RealmCore.open(configuration, queue: nil)
    }
}

/// The schema version recorded in the realm file at `fileURL` (Spec X25).
///
/// Reads the file without opening a realm: no migration runs and no schema is checked.
/// Callable from any thread.
/// - Throws: `Realm.Error` code `.invalidDatabase` "Realm at path '<path>' has not been
///   initialized." when there is no file; the open errors of Spec X6 otherwise.
///
/// ```swift
/// let version = try schemaVersionAtURL(Realm.Configuration.defaultConfiguration.fileURL!)
/// ```
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    try _schemaVersionAtURL(fileURL, encryptionKey: encryptionKey)
}

/// `schemaVersionAtURL(_:encryptionKey:)` with `Realm.Error` as the thrown type.
package func _schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws(Realm.Error) -> UInt64 {
    if let encryptionKey {
        guard encryptionKey.count == 64 else { throw Realm.Error.encryptionKeyLength }  // Spec X17
        throw Realm.Error.encryptionUnsupported
    }
    let configuration = Realm.Configuration(fileURL: fileURL)
    let path = configuration.path
    if let open = RealmFile.openFile(key: configuration.fileKey) {
        let read = try engine(path) { try open.store.beginRead(.live) }
        defer { read.end() }
        return read.schemaVersion
    }
    guard Store.fileExists(path: path) else {
        throw Realm.Error(.invalidDatabase, "Realm at path '\(path)' has not been initialized.", path: path)
    }
    let store = try engine(path) { try Store.open(.file(path), options: StoreOptions(create: false, readOnly: true)) }
    defer { store.close() }
    let read = try engine(path) { try store.beginRead(.live) }
    defer { read.end() }
    return read.schemaVersion
}
