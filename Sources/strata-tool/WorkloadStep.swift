import StrataStorage

/// One commit's worth of `WriterWorkload` operations against one write transaction.
struct WorkloadStep {
    let workload: WriterWorkload
    let write: WriteTransaction
    let items: TableInfo
    let blobs: TableInfo

    /// What one operation on `items` does.
    enum ItemOperation {
        case insert
        case update
        case delete
    }

    /// Draws and applies one operation: 10% blobs, 40% item insert, 30% update, 20% delete.
    /// An insert into a full `items` deletes instead; an update or delete of an empty one
    /// inserts instead.
    func applyOne(_ random: inout SplitMix64) throws {
        var operation: ItemOperation
        switch random.below(100) {
        case 0..<10: return try changeBlobs(&random)
        case 10..<50: operation = .insert
        case 50..<80: operation = .update
        default: operation = .delete
        }
        let itemCount = rowCount(items)
        if operation == .insert && itemCount >= workload.itemCountMax { operation = .delete }
        if operation != .insert && itemCount == 0 { operation = .insert }
        switch operation {
        case .insert: try insertItem(&random)
        case .update: try updateItem(&random)
        case .delete: try deleteItem(&random)
        }
    }

    private func rowCount(_ table: TableInfo) -> Int {
        write.table(id: table.id)?.rowCount ?? 0
    }

    /// Inserts a random id, or updates it when it exists.
    private func insertItem(_ random: inout SplitMix64) throws {
        let id = Int64(random.below(workload.itemKeySpace))
        let values = workload.itemValues(id: id, &random)
        if try write.contains(items, key: ObjectKey(id)) {
            try write.update(items.id, key: ObjectKey(id), values: values)
        } else {
            let key = try write.insert(items.id, values: values)
            precondition(key == ObjectKey(id), "an integer primary key is the object key")
        }
    }

    /// Rewrites the item at or after a random id (`items` is not empty).
    private func updateItem(_ random: inout SplitMix64) throws {
        let key = try existingItem(atOrAfter: Int64(random.below(workload.itemKeySpace)))
        try write.update(items.id, key: key, values: workload.itemValues(id: key.rawValue, &random))
    }

    /// Deletes the item at or after a random id (`items` is not empty).
    private func deleteItem(_ random: inout SplitMix64) throws {
        let key = try existingItem(atOrAfter: Int64(random.below(workload.itemKeySpace)))
        try deleteFound(key)
    }

    /// Deletes random items until `items` holds at most `countMax`.
    func trimItems(toCountMax countMax: Int, _ random: inout SplitMix64) throws {
        // Each pass deletes one row, so the row count bounds the loop.
        while rowCount(items) > countMax {
            try deleteItem(&random)
        }
    }

    private func deleteFound(_ key: ObjectKey) throws {
        guard try write.delete(items.id, key: key) else {
            throw StorageError.corruptRecord(
                reason: "item \(key.rawValue) was listed but cannot be deleted")
        }
    }

    /// The first item key at or after `start`, wrapping around to the smallest.
    /// - Throws: `.corruptRecord` when `items` records rows but none can be found.
    private func existingItem(atOrAfter start: Int64) throws -> ObjectKey {
        if let key = try firstKey(items, from: ObjectKey(start)) { return key }
        if let key = try firstKey(items, from: nil) { return key }
        throw StorageError.corruptRecord(
            reason: "items records \(rowCount(items)) rows, none found")
    }

    private func firstKey(_ table: TableInfo, from start: ObjectKey?) throws -> ObjectKey? {
        var found: ObjectKey?
        try write.forEachRow(table, from: start) { key, _ in
            found = key
            return false
        }
        return found
    }

    /// Adds a blob, or deletes a random one (always when `blobs` is full).
    private func changeBlobs(_ random: inout SplitMix64) throws {
        let blobCount = rowCount(blobs)
        let deletes = blobCount >= WriterWorkload.blobCountMax || random.chance(percent: 40)
        guard deletes, blobCount > 0 else {
            try write.insert(
                blobs.id, values: workload.blobValues(version: write.newVersion, &random))
            return
        }
        var skipCount = random.below(blobCount)
        var victim: ObjectKey?
        try write.forEachRow(blobs, from: nil) { key, _ in
            guard skipCount == 0 else {
                skipCount -= 1
                return true
            }
            victim = key
            return false
        }
        guard let victim else {
            throw StorageError.corruptRecord(reason: "blobs records \(blobCount) rows, none found")
        }
        try write.delete(blobs.id, key: victim)
    }
}
