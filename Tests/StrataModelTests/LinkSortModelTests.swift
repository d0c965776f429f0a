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

/// Sectioned reads (Spec V27) in the model: Items sorted by value, a section per key in the order
/// of its first element.
@Suite struct SectionedModelTests {
    static func sections(_ value: Value) -> [String] {
        guard case .sections(let sections) = value else { return [] }
        return sections.map(\.description)
    }

    @Test("Spec V27: a section per key in order of first appearance; a returning key joins its first section")
    func sectionsOfItems() {
        var w = LinkSortModelTests.world()
        w.ok(World.main, .objects(1, Query(source: .table("Item")), as: 20))
        // Items 1 (5), 2 (nil), 3 (1): ascending nil, 1, 5; descending 5, 1, nil.
        #expect(
            Self.sections(w.ok(World.main, .sectioned(20, by: .quotient(2), ascending: true)))
                == ["nil: [2]", "0: [3]", "2: [1]"])
        #expect(
            Self.sections(w.ok(World.main, .sectioned(20, by: .remainder(2), ascending: false)))
                == ["1: [1, 3]", "nil: [2]"])
        w.ok(World.main, .beginWrite(1))
        w.ok(World.main, .create(1, type: "Item", primaryKey: 4, value: 2, update: .error, as: 21))
        // Ascending nil, 1, 2, 5 by remainder 2: nil, 1, 0, 1 -> the 1s share a section.
        #expect(
            Self.sections(w.ok(World.main, .sectioned(20, by: .remainder(2), ascending: true)))
                == ["nil: [2]", "1: [3, 1]", "0: [4]"])
    }

    @Test("Spec V27, V13: a sectioned read makes the checks of a read of its collection")
    func sectionedReadsAreChecked() {
        var w = LinkSortModelTests.world()
        w.ok(World.main, .objects(1, Query(source: .table("Item")), as: 20))
        w.ok(World.main, .invalidate(1))
        #expect(w.fails(World.main, .sectioned(20, by: .quotient(1), ascending: true)) != nil)
    }
}
