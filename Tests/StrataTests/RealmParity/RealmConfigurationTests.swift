import Foundation
import Strata
import Testing

// Realm's RealmSwift/Tests/RealmConfigurationTests.swift, in our words.
//
// Realm's TestCase points the default configuration at `default.realm` in each test's own
// directory before every test; these tests do the same and put back what they found. Our suites
// run in parallel: the values set here keep every default other tests may read (the file name
// `default.realm`, schema version 0, not read-only), and this suite is serialized.

extension RealmParityLists {
    @Suite(.serialized) struct RealmConfigurationTests {
        /// Runs `body` with the default configuration set to `default.realm` in a fresh directory,
        /// as Realm's TestCase does, and restores the previous default afterwards.
        private func withTestDefault(_ body: (URL) throws -> Void) rethrows {
            let saved = Realm.Configuration.defaultConfiguration
            defer { Realm.Configuration.defaultConfiguration = saved }
            let directory = temporaryDirectory()
            Realm.Configuration.defaultConfiguration =
                Realm.Configuration(fileURL: directory.appendingPathComponent("default.realm"))
            try body(directory)
        }

        @Test func testDefaultConfiguration() throws {
            try withTestDefault { _ in
                let defaultConfiguration = Realm.Configuration.defaultConfiguration

                let realm = try Realm()
                #expect(defaultConfiguration.fileURL == realm.configuration.fileURL)
                #expect(defaultConfiguration.inMemoryIdentifier == nil)
                #expect(defaultConfiguration.encryptionKey == nil)
                #expect(!defaultConfiguration.readOnly)
                #expect(defaultConfiguration.schemaVersion == 0)
                #expect(defaultConfiguration.migrationBlock == nil)
            }
        }

        @Test func testSetDefaultConfiguration() {
            withTestDefault { directory in
                let fileURL = Realm.Configuration.defaultConfiguration.fileURL
                // Realm sets a configuration of /dev/null; another path of our own keeps the file
                // name other suites may read while this runs.
                let elsewhere = directory.appendingPathComponent("elsewhere", isDirectory: true)
                    .appendingPathComponent("default.realm")
                let configuration = Realm.Configuration(fileURL: elsewhere)
                Realm.Configuration.defaultConfiguration = configuration
                #expect(Realm.Configuration.defaultConfiguration.fileURL == elsewhere)
                Realm.Configuration.defaultConfiguration.fileURL = fileURL
                #expect(Realm.Configuration.defaultConfiguration.fileURL == fileURL)
            }
        }

        @Test func testCannotSetMutuallyExclusiveProperties() {
            withTestDefault { directory in
                // Realm's `Realm.Configuration()` names the app's default file; ours names the
                // test's, so that checking that nothing was created looks at a file of this test.
                var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("default.realm"))
                configuration.readOnly = true
                configuration.deleteRealmIfMigrationNeeded = true
                // Realm(configuration:) throws in Swift: the rejection is a thrown Realm.Error.
                let error = rejection { _ = try Realm(configuration: configuration) }
                expectRejected(error, "Cannot set `deleteRealmIfMigrationNeeded` when `readOnly` is set.")
                #expect(!Realm.fileExists(for: configuration), "nothing was opened")
            }
        }
    }
}
