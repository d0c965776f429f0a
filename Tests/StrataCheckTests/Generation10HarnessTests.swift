import Foundation
import Strata
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// Generation 10 in generated runs: half the filters of `objects` queries spelled as predicate
/// formats (Spec V23), in every one of `FilterFormat`'s spellings, checked against the model's
/// answer for the typed query, beside everything the older generations do.
@Suite(.serialized) struct Generation10HarnessTests {
    @Test("Spec V23: generation 10 runs are clean, replay bit for bit, and spell filters every way")
    func generation10RunsAreCleanReplayAndSpellFormats() throws {
        var formats = 0
        var typed = 0
        var throughLinks = 0
        var spellings = Set<String>()
        var checked = 0
        for mode in [CheckMode.controlled, .crash] {
            var settings = CheckSettings(mode: mode, store: .sim, threads: 3, operations: 200)
            settings.generation = 10  // the counts were measured on generation 10's streams
            for seed in 1...20 {
                let result = try Runner(settings: settings, stream: ChoiceStream(seed: UInt64(seed))).run()
                #expect(
                    result.failure == nil,
                    "\(mode) seed \(seed): \(result.failure?.description ?? "") token \(ReplayToken.encode(settings: settings, choices: result.choices))"
                )
                for entry in result.trace {
                    guard case .objects(_, let query, _) = entry.step.operation,
                        query.minimumValue != nil || query.equalValue != nil || query.linkMinimumValue != nil
                    else { continue }
                    if query.linkMinimumValue != nil { throughLinks += 1 }
                    if let format = FilterFormat(query) {
                        formats += 1
                        // The spelling with its numbers taken out: which form was read.
                        spellings.insert(String(format.format.map { $0.isNumber ? "n" : $0 }))
                    } else {
                        typed += 1
                    }
                }
                if seed % 10 == 0 {
                    let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: result.choices)).run()
                    #expect(replayed.digest == result.digest, "\(mode) seed \(seed) replays another trace")
                    checked += 1
                }
            }
        }
        print(
            "generation 10 in 40 runs: \(formats) filters as formats in \(spellings.count) forms (\(throughLinks) through a link), \(typed) typed"
        )
        #expect(formats > 0 && typed > 0 && throughLinks > 0)
        // Each condition's eight spellings appear alone (16 forms) or joined; most are met.
        #expect(spellings.count >= 16, "only \(spellings.count) forms: \(spellings.sorted())")
        #expect(checked == 4)
    }

    /// Every spelling parses and finds what the typed query finds, for each condition alone and
    /// both joined, over values the generator draws, nulls and the edges around them.
    @Test("Spec V23: each FilterFormat spelling finds what the typed query finds")
    func everySpellingIsEquivalent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("g10-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let realm = try Realm(
            configuration: Realm.Configuration(
                fileURL: directory.appendingPathComponent("spellings.realm"),
                objectTypes: [Item.self, Other.self, Linker.self]))
        try realm.write {
            for (key, value) in ([nil, -1] + Array(0...9) + [nil]).enumerated() {
                let item = Item()
                item.primaryKey = key
                item.value = value
                realm.add(item)
            }
        }
        let items = realm.objects(Item.self)
        var compared = 0
        for spelling in 0..<(FilterFormat.count * FilterFormat.count) {
            for minimum in [nil, 0, 3, 7] as [Int?] {
                for equal in [nil, 0, 5, 7] as [Int?] where minimum != nil || equal != nil {
                    let query = Query(
                        source: .table("Item"), minimumValue: minimum, equalValue: equal,
                        formatSpelling: UInt8(spelling))
                    let format = try #require(FilterFormat(query))
                    // The oracle is plain Swift over the values, not a query of the engine's.
                    let expected = items.filter { item in
                        guard let value = item.value else { return false }
                        return minimum.map { value >= $0 } ?? true && equal.map { value == $0 } ?? true
                    }
                    let found = try items._filter(format.format, arguments: format.arguments.map(\.value))
                    #expect(
                        found.map(\.primaryKey) == expected.map(\.primaryKey),
                        "\(format.format) \(format.arguments)")
                    compared += 1
                }
            }
        }
        #expect(compared > 0)
        // Through a Linker's link: its items' values are those above, linked in turn, and one
        // Linker has no link.
        try realm.write {
            for (key, item) in items.enumerated() {
                let linker = Linker()
                linker.primaryKey = key
                linker.link = key == 0 ? nil : item
                realm.add(linker)
            }
        }
        let linkers = realm.objects(Linker.self)
        // Before and after a linked Item is deleted (its Linker's link then reads as null).
        for deleting in [false, true] {
            if deleting { try realm.write { realm.delete(try #require(items.where { $0.value == 5 }.first)) } }
            for spelling in 0..<(FilterFormat.count * FilterFormat.count) {
                for linkMinimum in [0, 4, 9] {
                    let query = Query(
                        source: .table("Linker"), formatSpelling: UInt8(spelling), linkMinimumValue: linkMinimum)
                    let format = try #require(FilterFormat(query))
                    let found = try linkers._filter(format.format, arguments: format.arguments.map(\.value))
                    let expected = linkers.filter { ($0.link?.value).map { $0 >= linkMinimum } ?? false }
                    #expect(found.map(\.primaryKey) == expected.map(\.primaryKey), "\(format.format)")
                    let typed = linkers.where { $0.link.value >= linkMinimum }
                    #expect(typed.map(\.primaryKey) == expected.map(\.primaryKey))
                }
            }
        }
        #expect(FilterFormat(Query(source: .table("Item"), minimumValue: 3)) == nil)
        #expect(FilterFormat(Query(source: .table("Item"), formatSpelling: 1)) == nil)
    }

    /// Runs of generations 1 to 9 never spell a format: a token printed before generation 10
    /// keeps its meaning.
    @Test func olderGenerationsNeverSpellFormats() throws {
        try expectOlderGenerations(1...9) { operation in
            if case .objects(_, let query, _) = operation { return query.formatSpelling != nil }
            return false
        }
    }

    @Test("Spec V23: a parser that keeps a left constant's operator is caught and shrunk")
    func predicateMirrorsWronglyIsCaughtAndShrunk() throws {
        // The catch was measured on generation 10's streams.
        let found = try expectCaughtAndShrunk("predicateMirrorsWrongly", generation: 10)
        // The shrunk run still reads a filter with its constant on the left.
        #expect(
            found.shrunk.trace.contains { entry in
                guard case .objects(_, let query, _) = entry.step.operation, let format = FilterFormat(query) else {
                    return false
                }
                // An ordering with its constant on the left (equality mirrors to itself).
                return ["<= value", "< value", "<= link.value"].contains { format.format.contains($0) }
            })
    }
}
