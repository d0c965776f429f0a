import StrataStorage

// The schema at open: the configuration's classes checked against the file, tables created,
// and migrations run when the schema version rises.
extension RealmCore {
    /// Runs once per file per process; later realms of the file only check the version.
    func prepareSchema() throws(Realm.Error) {
        if let opened = file.state.withLock({ $0.schemaVersion }) {
            guard opened == configuration.schemaVersion else {
                throw Realm.Error.differentSchemaVersion(path: path, open: opened, requested: configuration.schemaVersion)
            }
            return
        }
        let read = try engine(path) { try file.store.beginRead(.live) }
        let storedVersion = read.schemaVersion
        let isNew = read.tables().isEmpty && storedVersion == 0
        let classes = (configuration.objectTypes ?? []).map { ClassInfo.of($0) }
        var changed: [ClassInfo] = []
        var differences: [String] = []
        var missing: [ClassInfo] = []
        for info in classes {
            guard let table = read.table(named: info.className),
                  let stored = ObjectSchema.decode(table.schema, className: info.className) else {
                missing.append(info)
                continue
            }
            let lines = info.schema.differences(from: stored)
            if !lines.isEmpty {
                changed.append(info)
                differences += lines
            }
        }
        read.end()
        if !isNew && configuration.schemaVersion < storedVersion {
            throw Realm.Error(.schemaMismatch,
                              "Provided schema version \(configuration.schemaVersion) is less than last set version \(storedVersion).")
        }
        let migrating = !isNew && configuration.schemaVersion > storedVersion
        if !changed.isEmpty && !migrating && !configuration.deleteRealmIfMigrationNeeded {
            throw Realm.Error(.schemaMismatch, "Migration is required due to the following errors:\n"
                              + differences.joined(separator: "\n"))
        }
        if configuration.readOnly {
            guard changed.isEmpty else {  // ROR-08: a read-only file must hold every column
                throw Realm.Error(.schemaMismatch, "Migration is required due to the following errors:\n"
                                  + differences.joined(separator: "\n"))
            }
        } else if migrating || !changed.isEmpty || !missing.isEmpty || (isNew && configuration.schemaVersion != 0) {
            try writeSchema(changed: changed, missing: missing, migrating: migrating, oldVersion: storedVersion)
        }
        file.state.withLock { state in
            state.schemaVersion = configuration.schemaVersion
            for info in classes { state.checkedClasses[ObjectIdentifier(info.type)] = info }
        }
    }

    /// Creates missing tables, rebuilds changed ones, runs the migration block, and records
    /// the schema version: one write, so a crash leaves the old schema or the new.
    private func writeSchema(changed: [ClassInfo], missing: [ClassInfo], migrating: Bool,
                             oldVersion: UInt64) throws(Realm.Error) {
        let write = try engine(path) { try file.store.beginWrite() }
        do throws(Realm.Error) {
            var migration: Migration?
            if migrating { migration = Migration(write: write, path: path) }
            for info in changed {
                if migrating {
                    try migration?.rebuild(info)
                } else {
                    // deleteRealmIfMigrationNeeded: the old data of the class goes.
                    try engine(path) { try write.dropTable(info.className) }
                    _ = try writableTable(info, write)
                }
            }
            for info in missing { _ = try writableTable(info, write) }
            if let migration, let block = configuration.migrationBlock {
                migration.knownClasses = (configuration.objectTypes ?? []).map { ClassInfo.of($0) }
                block(migration, oldVersion)
                try migration.finish()
            }
            write.storedSchemaVersion = configuration.schemaVersion
            _ = try engine(path) { try write.commit() }
        } catch {
            write.rollback()
            throw error
        }
    }
}
