import StrataTestSupport
import Testing

@testable import StrataStorage

/// `TreeWriter`'s append path (ascending inserts go straight into the remembered rightmost
/// leaf) against a plain dictionary: mostly ascending inserts, with inserts in the middle,
/// deletes of the last key, updates, upserts, duplicate inserts, rows with overflow values,
/// splits, rollbacks and a second table in between. After every commit the stored contents
/// must equal the dictionary and `verify()` must be clean; the probes prove the append path
/// and the splits were both taken.
@Suite struct AppendPathTests {
    typealias ProbeCounter = SpaceReuseTests.ProbeCounter

    static func row(key: Int64, random: inout SplitMix64) -> [Value] {
        let length: Int
        switch random.draw(below: 100) {
        case 0..<85: length = random.draw(below: 24)
        case 85..<97: length = 100 + random.draw(below: 500)
        default: length = 1500 + random.draw(below: 6000)  // an overflow value
        }
        return [
            .int(key), .string(String(repeating: "a", count: length) + String(key)),
            .int(Int64(random.draw(below: 100))),
        ]
    }

    /// One step of the mix. `next` is the next key to append.
    static func step(
        _ write: WriteTransaction, table: TableID, model: inout [Int64: [Value]], next: inout Int64,
        random: inout SplitMix64
    ) throws {
        let last = model.keys.max()
        switch random.draw(below: 100) {
        case 0..<70:  // append (the append path, or a split of the rightmost leaf)
            let values = row(key: next, random: &random)
            #expect(try write.insert(table, values: values).rawValue == next)
            model[next] = values
            next += 1 + Int64(random.draw(below: 3))
        case 70..<76:  // insert in the middle (a gap left by the appends, or a duplicate)
            let key = Int64(random.draw(below: Int(max(next, 1))))
            let values = row(key: key, random: &random)
            if model[key] == nil {
                try write.insert(table, values: values)
                model[key] = values
                if key >= next { next = key + 1 }  // only when `next` is 0
            } else {
                #expect(throws: StorageError.self) { try write.insert(table, values: values) }
            }
        case 76..<82:  // delete the last key: the next append may reuse it
            guard let last else { return }
            #expect(try write.delete(table, key: ObjectKey(last)))
            model[last] = nil
            if random.chance(50) { next = last }
        case 82..<86:  // delete anywhere
            let key = Int64(random.draw(below: Int(max(next, 1))))
            #expect(try write.delete(table, key: ObjectKey(key)) == (model[key] != nil))
            model[key] = nil
        case 86..<92:  // update the last key (often to a different size)
            guard let last else { return }
            let values = row(key: last, random: &random)
            try write.update(table, key: ObjectKey(last), values: values)
            model[last] = values
        case 92..<96:  // upsert at or past the end
            let key = random.chance(50) ? (last ?? 0) : next
            let values = row(key: key, random: &random)
            try write.upsert(table, values: values)
            model[key] = values
            if key >= next { next = key + 1 }
        default:  // duplicate insert of the last key: fails, changes nothing
            guard let last else { return }
            let values = row(key: last, random: &random)
            #expect(throws: StorageError.self) { try write.insert(table, values: values) }
        }
    }

    func run(seed: UInt64, pageSizeBytes: Int, transactions: Int) throws {
        let directory = TemporaryDirectory()
        let probes = ProbeCounter()
        let store = try Store.open(
            .file(directory.file("append.strata")),
            options: StoreOptions(pageSizeBytes: pageSizeBytes, hooks: probes.hooks))
        var random = SplitMix64(seed: seed)
        let (table, other) = try store.write { write in
            (
                try write.createTable("T", primaryKey: .int(column: 0)).id,
                try write.createTable("U", primaryKey: .int(column: 0)).id
            )
        }
        var model: [Int64: [Value]] = [:]
        var otherModel: [Int64: [Value]] = [:]
        var next: Int64 = 0
        var otherNext: Int64 = 0
        for _ in 0..<transactions {
            let write = try store.beginWrite()
            var pending = model
            var pendingNext = next
            var otherPending = otherModel
            var otherPendingNext = otherNext
            for _ in 0..<(1 + random.draw(below: random.chance(30) ? 2000 : 100)) {
                if random.chance(5) {
                    try Self.step(write, table: other, model: &otherPending, next: &otherPendingNext, random: &random)
                } else {
                    try Self.step(write, table: table, model: &pending, next: &pendingNext, random: &random)
                }
            }
            if random.chance(15) {
                write.rollback()
            } else {
                try write.commit()
                model = pending
                next = pendingNext
                otherModel = otherPending
                otherNext = otherPendingNext
                try TreeModelTests.assertMatches(store, "T", model)
                try TreeModelTests.assertMatches(store, "U", otherModel)
            }
        }
        #expect(probes.count(.treeAppendPath) > 1000)
        #expect(probes.count(.treeRootSplit) > 0)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func appendMixMatchesDictionary(seed: UInt64) throws {
        try run(seed: seed, pageSizeBytes: 4096, transactions: 40)
    }

    @Test func appendMixLargerPages() throws {
        try run(seed: 11, pageSizeBytes: 16384, transactions: 30)
    }

    /// Pure ascending loads in one transaction, then a drop and a reload in the same
    /// transaction: the hint must not survive the dropped tree.
    @Test func ascendingLoadDropAndReload() throws {
        let directory = TemporaryDirectory()
        let probes = ProbeCounter()
        let store = try Store.open(.file(directory.file("load.strata")), options: StoreOptions(hooks: probes.hooks))
        var model: [Int64: [Value]] = [:]
        try store.write { write in
            let first = try write.createTable("A", primaryKey: .int(column: 0))
            for key in Int64(0)..<5000 { try write.insert(first.id, values: [.int(key), .string("x\(key)")]) }
            try write.dropTable("A")
            let table = try write.createTable("T", primaryKey: .int(column: 0))
            for key in Int64(0)..<20000 {
                let values: [Value] = [.int(key), .string("name-\(key)"), .int(key % 90)]
                try write.insert(table.id, values: values)
                model[key] = values
            }
        }
        try TreeModelTests.assertMatches(store, "T", model)
        #expect(probes.count(.treeAppendPath) > 20000)
    }

    /// A string primary key puts into two trees per insert (the index and the rows): the
    /// append path must stay correct when puts alternate between trees.
    @Test func stringKeysAlternateTrees() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(.file(directory.file("strings.strata")))
        var keys: [String: ObjectKey] = [:]
        let table = try store.write { try $0.createTable("S", primaryKey: .string(column: 0)) }
        try store.write { write in
            for index in 0..<4000 {
                let name = "k" + String(100_000 + index)
                keys[name] = try write.insert(table.id, values: [.string(name), .int(Int64(index))])
                if index % 97 == 0 {
                    let middle = "k" + String(100_000 + index / 2) + "m"
                    keys[middle] = try write.insert(table.id, values: [.string(middle)])
                }
            }
        }
        let read = try store.beginRead()
        defer { read.end() }
        let info = try #require(read.table(named: "S"))
        #expect(info.rowCount == keys.count)
        for (name, key) in keys {
            #expect(try read.objectKey(info, primaryKey: .string(name)) == key)
        }
        #expect(try store.verify().isClean)
    }
}
