import Testing

@testable import StrataModel

/// Sorting through a to-one link (Spec V20) in the model: Linkers whose `link` reaches an Item,
/// sorted by the Item's value, null links last ascending and first descending.
@Suite struct LinkSortModelTests {
    static let linking = Configuration(location: .path("/data/links.realm"), schema: .linking)

    /// Items 1 (value 5), 2 (nil), 3 (1); Linkers 10 -> 1, 11 -> none, 12 -> 2, 13 -> 3, 14 ->
    /// none, made through realm 1 in the main context. Returns the world.
    static func world() -> World {
        var w = World()
        w.open(World.main, 1, linking)
        w.ok(World.main, .beginWrite(1))
        for (handle, key, value) in [(HandleID(1), 1, Optional(5)), (2, 2, nil), (3, 3, 1)] {
            w.ok(World.main, .create(1, type: "Item", primaryKey: key, value: value, update: .error, as: handle))
        }
        for (handle, key, target) in [
            (HandleID(10), 10, Optional(HandleID(1))), (11, 11, nil), (12, 12, 2),
            (13, 13, 3), (14, 14, nil),
        ] {
            w.ok(World.main, .create(1, type: "Linker", primaryKey: key, value: 0, update: .error, as: handle))
            if let target { w.ok(World.main, .setLink(handle, target: target)) }
        }
        w.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        return w
    }

    static func keys(_ value: Value) -> [Int] {
        guard case .elements(let readings) = value else { return [] }
        return readings.map(\.primaryKey)
    }

    @Test("Spec V20: a null value sorts lowest, a null link last ascending and first descending, ties by source order")
    func sortThroughALink() {
        var w = Self.world()
        w.ok(World.main, .objects(1, Query(source: .table("Linker"), sort: .linkValue(ascending: true)), as: 20))
        #expect(Self.keys(w.ok(World.main, .read(20))) == [12, 13, 10, 11, 14])
        w.ok(World.main, .objects(1, Query(source: .table("Linker"), sort: .linkValue(ascending: false)), as: 21))
        #expect(Self.keys(w.ok(World.main, .read(21))) == [11, 14, 10, 13, 12])
        // What the reading shows of the link: the Item's primary key.
        guard case .elements(let readings) = w.ok(World.main, .read(20)) else { return }
        #expect(readings.map(\.linkKey) == [2, 3, 1, nil, nil])
    }

    @Test("Spec V20, W13: deleting a link's target makes the link null, and the object sorts with the null links")
    func deletingTheTargetNullsTheLink() {
        var w = Self.world()
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .delete(1, 1))
        w.ok(World.main, .setLink(13, target: nil))
        w.ok(World.main, .commitWrite(1, withoutNotifying: [], fate: .success))
        w.ok(World.main, .objects(1, Query(source: .table("Linker"), sort: .linkValue(ascending: true)), as: 20))
        #expect(Self.keys(w.ok(World.main, .read(20))) == [12, 10, 11, 13, 14])
    }

    @Test(
        "Spec V20, W9: a class without the link cannot be sorted through it, and the read objects() began stands; only Linkers have a link to set"
    )
    func refusals() {
        var w = Self.world()
        w.ok(World.main, .invalidate(1))
        #expect(w.readVersion(1) == nil)
        let refused = w.fails(
            World.main, .objects(1, Query(source: .table("Item"), sort: .linkValue(ascending: true)), as: 20))
        #expect(refused?.message == "Cannot sort on key path 'link.value': property 'Item.link' does not exist.")
        #expect(w.readVersion(1) != nil)
        w.ok(World.main, .objectForPrimaryKey(1, type: "Item", primaryKey: 1, as: 21))
        w.ok(World.main, .objectForPrimaryKey(1, type: "Linker", primaryKey: 11, as: 22))
        #expect(
            w.fails(World.main, .setLink(21, target: 21))?.message == "Invalid property name 'link' for class 'Item'.")
        #expect(w.fails(World.main, .setLink(22, target: 21)) == .notInWrite)
    }
}
