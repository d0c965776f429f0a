import Foundation
import StrataTestSupport
import Testing

@testable import StrataStorage

// Incarnations (`Incarnation`): in a table with an integer primary key the key is reused when an
// object is deleted and another created with its primary key; the incarnation stored with the
// row tells them apart, so an object identity is never given out twice (Spec W12).

@Suite struct IncarnationTests {
    private static func table(_ write: WriteTransaction) throws -> TableInfo {
        try write.table(named: "P") ?? write.createTable("P", primaryKey: .int(column: 0))
    }

    @Test("Spec W12: a key reused after a deletion names a new incarnation; updates keep it")
    func reusedKeysGetANewIncarnation() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("inc.strata")))
        let first = try store.write { write in
            try write.insertObject(try Self.table(write).id, values: [.int(1), .string("a")])
        }
        // No deletion yet: nothing to tell apart, and the row carries no incarnation.
        #expect(first.incarnation == .keyIsIdentity)
        let second = try store.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: first.key))
            return try write.insertObject(table.id, values: [.int(1), .string("b")])
        }
        #expect(second.key == first.key)
        #expect(second.incarnation != first.incarnation)
        try store.write { write in
            let table = try Self.table(write)
            try write.update(table.id, key: second.key, values: [.int(1), .string("c")])
            #expect(try write.incarnation(table, key: second.key) == second.incarnation)
        }
        let read = try store.beginRead()
        defer { read.end() }
        let table = try #require(read.table(named: "P"))
        #expect(try read.incarnation(table, key: second.key) == second.incarnation)
        #expect(try read.objectIdentity(table, primaryKey: .int(1)) == second)
        #expect(try read.row(table, key: second.key) == [.int(1), .string("c")])
        #expect(try store.verify().isClean)
    }

    @Test("Spec W12: many deletions raise the count once, so reinserted rows stay small")
    func aBatchOfDeletionsRaisesTheCountOnce() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("batch.strata")))
        try store.write { write in
            let table = try Self.table(write)
            for key in Int64(0)..<100 { try write.insert(table.id, values: [.int(key)]) }
        }
        let identities = try store.write { write -> [ObjectIdentity] in
            let table = try Self.table(write)
            for key in Int64(0)..<100 { #expect(try write.delete(table.id, key: ObjectKey(key))) }
            return try (Int64(0)..<100).map { key in try write.insertObject(table.id, values: [.int(key)]) }
        }
        #expect(Set(identities.map(\.incarnation)) == [Incarnation(1)])
        // Deleting a row of the current incarnation and inserting its key again moves on.
        let again = try store.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: ObjectKey(5)))
            return try write.insertObject(table.id, values: [.int(5)])
        }
        #expect(again.incarnation == Incarnation(2))
        #expect(try store.verify().isClean)
    }

    @Test("Spec W12: a rolled-back write gives its incarnations back; committed ones never are")
    func rollbackRestoresTheCount() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("rollback.strata")))
        try store.write { write in _ = try write.insert(try Self.table(write).id, values: [.int(1)]) }
        let write = try store.beginWrite()
        let table = try Self.table(write)
        #expect(try write.delete(table.id, key: ObjectKey(1)))
        let cancelled = try write.insertObject(table.id, values: [.int(1)])
        write.rollback()
        // The API layer keeps such identities apart by the write's scope (Strata `WriteScope`).
        let committed = try store.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: ObjectKey(1)))
            return try write.insertObject(table.id, values: [.int(1)])
        }
        #expect(committed == cancelled)
        let later = try store.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: ObjectKey(1)))
            return try write.insertObject(table.id, values: [.int(1)])
        }
        #expect(later.incarnation > committed.incarnation)
    }

    @Test("Spec X3: a compacted copy keeps every object's incarnation and verifies")
    func compactionKeepsIncarnations() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("source.strata")))
        try store.write { write in
            let table = try Self.table(write)
            for key in Int64(0)..<10 { try write.insert(table.id, values: [.int(key)]) }
        }
        let identity = try store.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: ObjectKey(3)))
            return try write.insertObject(table.id, values: [.int(3)])
        }
        #expect(identity.incarnation != .keyIsIdentity)
        try store.writeCompactedCopy(toPath: directory.file("copy.strata"))
        let copy = try Store.open(.file(directory.file("copy.strata")))
        let read = try copy.beginRead()
        defer { read.end() }
        let table = try #require(read.table(named: "P"))
        #expect(try read.objectIdentity(table, primaryKey: .int(3)) == identity)
        #expect(try read.incarnation(table, key: ObjectKey(4)) == .keyIsIdentity)
        #expect(try copy.verify().isClean)
        // The copy goes on from the source's count.
        let next = try copy.write { write -> ObjectIdentity in
            let table = try Self.table(write)
            #expect(try write.delete(table.id, key: ObjectKey(3)))
            return try write.insertObject(table.id, values: [.int(3)])
        }
        #expect(next.incarnation > identity.incarnation)
    }

    @Test("Tables without an integer primary key store no incarnation")
    func otherTablesStoreNone() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("plain.strata")))
        let identities = try store.write { write -> [ObjectIdentity] in
            let plain = try write.createTable("N")
            let named = try write.createTable("S", primaryKey: .string(column: 0))
            let first = try write.insertObject(plain.id, values: [.int(1)])
            #expect(try write.delete(plain.id, key: first.key))
            return [
                first, try write.insertObject(plain.id, values: [.int(1)]),
                try write.insertObject(named.id, values: [.string("x")]),
            ]
        }
        #expect(identities.allSatisfy { $0.incarnation == .keyIsIdentity })
        #expect(identities[0].key != identities[1].key)  // keys are the identity there
        #expect(try store.verify().isClean)
    }
}
