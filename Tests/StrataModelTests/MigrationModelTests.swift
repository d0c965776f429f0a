import Testing

@testable import StrataModel

/// The model's schema versions (Spec X19, X20, X24, X26): what an open compares and what a
/// migration or reset leaves. The migration block's own rules (X21 to X23, X25) are checked by
/// the API's parity tests only.
@Suite struct MigrationModelTests {
    static func configuration(
        version: UInt64, columns: Set<String> = Schema.standardColumns,
        reset: Bool = false
    ) -> Configuration {
        var configuration = World.file
        configuration.schemaVersion = version
        configuration.schema.types["Item"] = columns
        configuration.deleteRealmIfMigrationNeeded = reset
        return configuration
    }

    static func newest(_ w: World) -> Snapshot? {
        guard let file = w.state.files[World.file.location] else { return nil }
        return file.versions[file.newest]
    }

    @Test("Spec X19: a new file records the version; a lower one fails, a higher one is recorded")
    func schemaVersions() {
        var w = World()
        w.open(World.main, 1, Self.configuration(version: 3))
        #expect(Self.newest(w)?.schemaVersion == 3)
        w.write(World.main, 1, [item(1)])
        // One schema version per file per process.
        let other = w.fails(World.thread, .open(Self.configuration(version: 4), confinement: .callingContext, as: 9))
        #expect(other == .differentSchemaVersion(path: "\(World.file.location)"))
        #expect(other?.code == .programmerError)
        w.ok(World.main, .close(1))

        let lower = w.fails(World.main, .open(Self.configuration(version: 2), confinement: .callingContext, as: 2))
        #expect(lower == .schemaVersionLower(requested: 2, recorded: 3))
        #expect(lower?.code == .fail)
        #expect(lower?.message == "Provided schema version 2 is less than last set version 3.")
        w.open(World.main, 3, Self.configuration(version: 4))
        #expect(Self.newest(w)?.schemaVersion == 4)
        #expect(w.items(World.main, 3, handle: 100) == [1])
        // Read-only opens compare no versions.
        w.ok(World.main, .close(3))
        var readOnly = Self.configuration(version: 0)
        readOnly.readOnly = true
        w.open(World.main, 4, readOnly)
    }

    @Test("Spec X19, X20: changed columns need a migration; a migration leaves the declared columns and every object")
    func migrationLeavesTheDeclaredColumns() {
        var w = World()
        w.open(World.main, 1, Self.configuration(version: 0))
        w.write(World.main, 1, [item(1), item(2)])
        w.ok(World.main, .close(1))
        let extra = Schema.standardColumns.union(["extra"])
        let same = w.fails(
            World.main,
            .open(
                Self.configuration(version: 0, columns: extra),
                confinement: .callingContext, as: 2))
        #expect(same == .migrationRequired(type: "Item", column: "extra", added: true))
        #expect(same?.code == .schemaMismatch)
        #expect(same?.message.hasPrefix("Migration is required due to the following errors:") == true)

        w.open(World.main, 3, Self.configuration(version: 1, columns: extra))
        #expect(Self.newest(w)?.schema.types["Item"] == extra)
        #expect(w.items(World.main, 3, handle: 100) == [1, 2])
        w.ok(World.main, .close(3))
        // A removed column goes, and a type the file lacks needs no migration.
        var fewer = Self.configuration(version: 2, columns: Schema.standardColumns)
        fewer.schema.types["Added"] = Schema.standardColumns
        w.open(World.main, 4, fewer)
        #expect(Self.newest(w)?.schema.types["Item"] == Schema.standardColumns)
        #expect(Self.newest(w)?.schema.types["Added"] == Schema.standardColumns)
        #expect(w.items(World.main, 4, handle: 101) == [1, 2])
    }

    @Test("Spec X24: a refused open leaves the file as it was")
    func refusedOpenChangesNothing() {
        var w = World()
        w.open(World.main, 1, Self.configuration(version: 5))
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        let before = w.state.files[World.file.location]
        w.fails(
            World.main,
            .open(
                Self.configuration(version: 4, columns: Schema.standardColumns.union(["x"])),
                confinement: .callingContext, as: 2))
        w.fails(
            World.main,
            .open(
                Self.configuration(version: 5, columns: Schema.standardColumns.union(["x"])),
                confinement: .callingContext, as: 3))
        #expect(w.state.files[World.file.location] == before)
    }

    @Test("Spec X26: deleteRealmIfMigrationNeeded resets what would migrate or fail, not what is added")
    func deleteRealmIfMigrationNeeded() {
        var w = World()
        w.open(World.main, 1, Self.configuration(version: 0))
        w.write(World.main, 1, [item(1)])
        w.ok(World.main, .close(1))
        // A type added: no reset.
        var added = Self.configuration(version: 0, reset: true)
        added.schema.types["Added"] = Schema.standardColumns
        w.open(World.main, 2, added)
        #expect(w.items(World.main, 2, handle: 100) == [1])
        w.ok(World.main, .close(2))
        // Other columns at the same version: a reset, not a failure.
        w.open(World.main, 3, Self.configuration(version: 0, columns: Schema.standardColumns.union(["x"]), reset: true))
        #expect(w.items(World.main, 3, handle: 101) == [])
        w.ok(World.main, .close(3))
        w.open(World.main, 4, Self.configuration(version: 7, columns: Schema.standardColumns.union(["x"]), reset: true))
        #expect(Self.newest(w)?.schemaVersion == 7)
        #expect(w.items(World.main, 4, handle: 102) == [])
    }
}
