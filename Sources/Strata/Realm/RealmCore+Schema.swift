import StrataStorage

// The schema at open: the configuration's classes checked against the file, tables created,
// migrations run when the schema version rises (Spec X19 to X26).
extension RealmCore {
    /// Runs once per file per process; later realms of the file only check the version.
    func prepareSchema() throws(Realm.Error) {
        if let opened = file.state.withLock({ $0.schemaVersion }) {
            guard opened == configuration.schemaVersion else {
                throw Realm.Error.differentSchemaVersion(
                    path: path, open: opened, requested: configuration.schemaVersion)
            }
            return
        }
        let declared = Self.declaredClasses(configuration)
        for info in declared { try info.validateLinkingObjects(ClassInfo.of) }
        let read = try engine(path) { try file.store.beginRead(.live) }
        let plan = SchemaPlan(
            tables: read.tables(), storedVersion: read.schemaVersion, declared: declared,
            configuration: configuration)
        read.end()
        try plan.check()
        if plan.action != .none { try writeSchema(declared) }
        file.state.withLock { state in
            state.schemaVersion = configuration.schemaVersion
            for info in declared { state.checkedClasses[ObjectIdentifier(info.type)] = info }
        }
    }

    /// The configuration's classes and, transitively, the classes their links name.
    static func declaredClasses(_ configuration: Realm.Configuration) -> [ClassInfo] {
        var found: [ClassInfo] = []
        var seen = Set<ObjectIdentifier>()
        var pending = configuration.objectTypes ?? []
        while let type = pending.first {
            pending.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let info = ClassInfo.of(type)
            found.append(info)
            pending += info.linkTargets + info.linkingObjects.map(\.originType)
        }
        return found
    }

    /// Applies the plan in one write: tables created, the file reset (Spec X26) or migrated
    /// (Spec X20 to X23), and the schema version recorded; a crash or failure leaves the old
    /// schema (Spec X24). The plan is made again under the write lock: another process or
    /// thread may have changed the file since it was read.
    private func writeSchema(_ declared: [ClassInfo]) throws(Realm.Error) {
        let write = try engine(path) { try file.store.beginWrite() }
        do throws(Realm.Error) {
            // The version the write starts from: the old realm of a migration (Spec X21).
            let old = try engine(path) { try file.store.beginRead(.live) }
            defer { old.end() }
            guard old.version == write.baseVersion else {
                throw Realm.Error(.fail, "the newest version moved while the write lock was held")
            }
            let plan = SchemaPlan(
                tables: write.tables(), storedVersion: write.storedSchemaVersion, declared: declared,
                configuration: configuration)
            try plan.check()
            switch plan.action {
            case .none:
                write.rollback()
                return
            case .create:
                try createOrAdjust(declared, write)
            case .reset:
                for table in write.tables() { try engine(path) { try write.dropTable(table.name) } }
                try createOrAdjust(declared, write)
            case .migrate:
                let migration = Migration(
                    write: write, old: old, path: path, declared: declared,
                    keepsStored: configuration.objectTypes == nil)
                try migration.applyLayout()
                configuration.migrationBlock?(migration, plan.storedVersion)
                try migration.finish()
            }
            write.storedSchemaVersion = configuration.schemaVersion
            _ = try engine(path) { try write.commit() }
        } catch {
            write.rollback()
            throw error
        }
    }

    /// Creates the tables of declared classes the file lacks; a class whose index flags
    /// alone changed gets its new schema in place (no migration, Spec X19).
    private func createOrAdjust(_ declared: [ClassInfo], _ write: WriteTransaction) throws(Realm.Error) {
        for info in declared {
            guard let table = write.table(named: info.className) else {
                _ = try writableTable(info, write)
                continue
            }
            if let stored = ObjectSchema.decode(table.schema, className: info.className), stored != info.schema {
                try engine(path) { try write.setSchema(info.schema.encoded(), forTable: info.className) }
            }
            // Index flags changed, or a file written before secondary indexes (Spec W26).
            let indexed = configuration.engineIndexedColumns(info.schema)
            if table.indexedColumns != indexed {
                try engine(path) { try write.setIndexedColumns(indexed, forTable: info.className) }
            }
        }
    }
}

/// What opening a file with a configuration does to its schema: decided from the file's
/// tables and recorded schema version (Spec X19).
struct SchemaPlan {
    enum Action: Equatable {
        /// Nothing to write.
        case none
        /// Create missing tables, adjust index flags, record the version (no migration).
        case create
        /// `deleteRealmIfMigrationNeeded`: every object goes, the declared tables are made.
        case reset
        /// The schema version rises: the migration runs.
        case migrate
    }

    let storedVersion: UInt64
    let requested: UInt64
    let readOnly: Bool
    /// The lines of Realm's "Migration is required" message, one per change that needs one.
    let migrationLines: [String]
    let action: Action
    /// Set when the open must fail.
    private let failure: Realm.Error?

    init(tables: [TableInfo], storedVersion: UInt64, declared: [ClassInfo], configuration: Realm.Configuration) {
        self.storedVersion = storedVersion
        requested = configuration.schemaVersion
        readOnly = configuration.readOnly
        let isNew = tables.isEmpty && storedVersion == 0
        var lines: [String] = []
        var adjust = false
        for info in declared {
            guard let table = tables.first(where: { $0.name == info.className }),
                let stored = ObjectSchema.decode(table.schema, className: info.className)
            else {
                adjust = true  // a class the file lacks (Spec X19: no migration needed)
                continue
            }
            let found = info.schema.differences(from: stored)
            lines += found
            if found.isEmpty && stored != info.schema { adjust = true }  // index flags only
            // Spec W26: the engine's indexes differ from the declared ones (a file written
            // before secondary indexes, or by a harness run that adds its own).
            if found.isEmpty && table.indexedColumns != configuration.engineIndexedColumns(info.schema) {
                adjust = true
            }
        }
        migrationLines = lines
        let mismatch = Realm.Error(
            .schemaMismatch,
            "Migration is required due to the following errors:\n"
                + lines.joined(separator: "\n"))
        if configuration.readOnly {
            // Spec X15: a read-only file must hold every declared column as declared.
            failure = lines.isEmpty ? nil : mismatch
            action = .none
        } else if isNew {
            failure = nil
            action = declared.isEmpty && requested == 0 ? .none : .create
        } else if configuration.deleteRealmIfMigrationNeeded && (requested != storedVersion || !lines.isEmpty) {
            failure = nil  // Spec X26
            action = .reset
        } else if requested < storedVersion {
            failure = Realm.Error(
                .fail, "Provided schema version \(requested) is less than last set version \(storedVersion).")
            action = .none
        } else if requested > storedVersion {
            failure = nil
            action = .migrate
        } else if !lines.isEmpty {
            failure = mismatch
            action = .none
        } else {
            failure = nil
            action = adjust ? .create : .none
        }
    }

    /// Throws the open's failure, if any (Spec X15, X19).
    func check() throws(Realm.Error) {
        if let failure { throw failure }
    }
}
