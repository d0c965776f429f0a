import StrataStorage
import Testing

@testable import Strata

/// The change sets of sectioned results (Spec V27) on random commits, against the rule a table
/// view applies them by: a section whose key stays keeps its old rows, less those deleted from
/// it, plus those inserted into it; a new section's rows are all insertions; every index path is
/// in range of its side. The collection under the sections changes as sorted Results do:
/// elements deleted, inserted, and modified (a modified one may change key, and so move).
@Suite struct SectionChangeTests {
    /// An element of the sorted collection: its identity and its key (the sort follows the key,
    /// ties by identity, as a stable sort by the key of a collection in identity order).
    private struct Element: Hashable {
        var id: Int
        var key: Int
    }

    private static func sorted(_ elements: [Element]) -> [Element] {
        elements.sorted { ($0.key, $0.id) < ($1.key, $1.id) }
    }

    private static func layout(_ elements: [Element]) -> SectionLayout<Int> {
        SectionLayout(elementKeys: elements.map(\.key))
    }

    /// Sections' row counts by key.
    private static func counts(_ layout: SectionLayout<Int>) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: zip(layout.keys, layout.positions.map(\.count)))
    }

    @Test("Spec V27: random commits give change sets a table view can apply", arguments: 1...40)
    func changeSetsApply(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        var nextID = 0
        var old: [Element] = (0..<random.below(12)).map { _ in
            defer { nextID += 1 }
            return Element(id: nextID, key: random.below(4))
        }
        old = Self.sorted(old)
        for _ in 0..<8 {
            // A commit: delete, modify (maybe moving to another key), insert.
            var new = old.filter { _ in random.below(5) != 0 }
            var modified = Set<Int>()
            for index in new.indices where random.below(4) == 0 {
                modified.insert(new[index].id)
                if random.below(2) == 0 { new[index].key = random.below(4) }
            }
            for _ in 0..<random.below(4) {
                new.append(Element(id: nextID, key: random.below(4)))
                nextID += 1
            }
            new = Self.sorted(new)
            let diff = CollectionDiff.between(old: old.map(\.id), new: new.map(\.id)) { modified.contains($0) }
            let before = Self.layout(old)
            let after = Self.layout(new)
            let change = SectionChange(
                from: before, to: after, deletions: diff.deletions, insertions: diff.insertions,
                modifications: diff.modifications)
            Self.expectApplies(change, before, after, seed: seed)
            old = new
        }
    }

    private static func expectApplies(
        _ change: SectionChange, _ before: SectionLayout<Int>, _ after: SectionLayout<Int>, seed: Int
    ) {
        let oldCounts = counts(before)
        let newCounts = counts(after)
        for path in change.deletions + change.modifications {
            #expect(
                before.positions.indices.contains(path.section)
                    && before.positions[path.section].indices.contains(path.item),
                "seed \(seed): \(path) out of the old sections")
        }
        for path in change.insertions {
            #expect(
                after.positions.indices.contains(path.section)
                    && after.positions[path.section].indices.contains(path.item),
                "seed \(seed): \(path) out of the new sections")
        }
        #expect(
            Set(change.sectionsToDelete)
                == Set(before.keys.indices.filter { after.section(of: before.keys[$0]) == nil }))
        #expect(
            Set(change.sectionsToInsert) == Set(after.keys.indices.filter { before.section(of: after.keys[$0]) == nil })
        )
        for (newSection, key) in after.keys.enumerated() {
            let inserted = change.insertions.filter { $0.section == newSection }.count
            guard let oldSection = before.section(of: key) else {
                #expect(inserted == newCounts[key], "seed \(seed): a new section's rows are insertions")
                continue
            }
            let deleted = change.deletions.filter { $0.section == oldSection }.count
            #expect(
                (oldCounts[key] ?? 0) - deleted + inserted == newCounts[key],
                "seed \(seed): section \(key) keeps \(oldCounts[key] ?? 0) - \(deleted) + \(inserted) rows")
        }
        for path in change.deletions {
            #expect(!change.sectionsToDelete.contains(path.section), "seed \(seed): a row of a deleted section")
        }
    }
}
