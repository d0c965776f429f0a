import Foundation
import StrataModel
import StrataStorage
import Testing

@testable import StrataCheck

/// The delivery oracle's rules on hand-made change sets (Spec N7, N11, N13).
@Suite struct DeliveryOracleTests {
    /// Items 1...4 at v2, then v3 deletes 2 and sets 3's value (Spec N13's example).
    static func versions() -> (old: Snapshot, new: Snapshot) {
        var old = Snapshot(schema: .standard)
        for key in 1...4 {
            old.objects[ObjectID(key)] = StoredObject(
                type: "Item", primaryKey: key, value: key,
                written: [.value: Version(2)])
        }
        var new = old
        new.objects[ObjectID(2)] = nil
        new.objects[ObjectID(3)]?.value = 30
        new.objects[ObjectID(3)]?.written[.value] = Version(3)
        return (old, new)
    }

    static let old = [ObjectID(1), ObjectID(2), ObjectID(3), ObjectID(4)]
    static let new = [ObjectID(1), ObjectID(3), ObjectID(4)]

    // Spec N13: deleting 2 and changing 3 over [1,2,3,4] gives deletions [1], modifications [2].
    @Test func theSpecsExampleIsAccepted() {
        let change = (deletions: [1], insertions: [Int](), modifications: [2])
        #expect(
            DeliveryOracle.verify(
                change, old: Self.old, new: Self.new, since: Version(2),
                in: Self.versions().new) == nil)
    }

    // Spec N13: modifications are old indices; the new index of 3 is 1.
    @Test func modificationsAtNewIndicesAreRejected() {
        let change = (deletions: [1], insertions: [Int](), modifications: [1])
        let problem = DeliveryOracle.verify(
            change, old: Self.old, new: Self.new, since: Version(2),
            in: Self.versions().new)
        #expect(problem?.contains("modifications") == true, "\(problem ?? "accepted")")
    }

    // Spec N11: a kept element a commit set must be reported, and only such elements.
    @Test func missingAndSpuriousModificationsAreRejected() {
        let snapshot = Self.versions().new
        #expect(
            DeliveryOracle.verify(
                (deletions: [1], insertions: [], modifications: []), old: Self.old,
                new: Self.new, since: Version(2), in: snapshot) != nil)
        #expect(
            DeliveryOracle.verify(
                (deletions: [1], insertions: [], modifications: [0, 2]), old: Self.old,
                new: Self.new, since: Version(2), in: snapshot) != nil)
        #expect(
            DeliveryOracle.verify(
                (deletions: [], insertions: [], modifications: []), old: Self.new,
                new: Self.new, since: Version(3), in: snapshot)?.contains("N11") == true)
    }

    // Spec N7: which of two equally long common subsequences is kept is free ([1,2] to [2,1]
    // keeps 1 or 2); a shorter one, indices that do not rebuild the new contents, or indices
    // out of order are wrong.
    @Test func anyLongestChangeSetThatAppliesIsAcceptedAndNoOther() {
        var snapshot = Snapshot(schema: .standard)
        for key in 1...2 { snapshot.objects[ObjectID(key)] = StoredObject(type: "Item", primaryKey: key, value: key) }
        let old = [ObjectID(1), ObjectID(2)]
        let new = [ObjectID(2), ObjectID(1)]
        for change in [
            (deletions: [1], insertions: [0], modifications: [Int]()),
            (deletions: [0], insertions: [1], modifications: [Int]()),
        ] {
            #expect(DeliveryOracle.verify(change, old: old, new: new, since: Version(5), in: snapshot) == nil)
        }
        #expect(
            DeliveryOracle.verify(
                (deletions: [0, 1], insertions: [0, 1], modifications: []), old: old, new: new,
                since: Version(5), in: snapshot)?.contains("longest") == true)
        #expect(
            DeliveryOracle.verify(
                (deletions: [0], insertions: [0], modifications: []), old: old, new: new,
                since: Version(5), in: snapshot) != nil)
        #expect(
            DeliveryOracle.verify(
                (deletions: [1], insertions: [0], modifications: []), old: old,
                new: [ObjectID(2), ObjectID(1), ObjectID(2)], since: Version(5), in: snapshot) != nil)
        #expect(
            DeliveryOracle.verify(
                (deletions: [1, 0], insertions: [0, 1], modifications: []), old: old,
                new: new, since: Version(5), in: snapshot)?.contains("ascending") == true)
    }

    // Spec N11 (Strata's rule): a change three links away modifies the element; four do not.
    @Test func changesOfLinkedObjectsCountUpToThreeLinks() {
        var snapshot = Snapshot(schema: .standard)
        for key in 1...5 {
            snapshot.objects[ObjectID(key)] = StoredObject(
                type: "Item", primaryKey: key, value: key,
                list: key < 5 ? [ObjectID(key + 1)] : [],
                written: [.value: Version(1)])
        }
        snapshot.objects[ObjectID(5)]?.written[.value] = Version(4)
        #expect(DeliveryOracle.changed(ObjectID(2), since: Version(3), in: snapshot))
        #expect(!DeliveryOracle.changed(ObjectID(1), since: Version(3), in: snapshot))
    }
}

extension DeliveryOracleTests {
    /// Item 1 (value 1 -> 7 at v3, by realm r2) links to Item 2 (value set at v4, by r1).
    static func objectModel() -> (ModelState, DeliveryOracle.Watched) {
        var model = ModelState()
        let location = FileLocation.path("check.realm")
        var snapshot = Snapshot(schema: .standard)
        snapshot.objects[ObjectID(1)] = StoredObject(
            type: "Item", primaryKey: 1, value: 7, list: [ObjectID(2)],
            written: [.value: Version(3), .list: Version(2)])
        snapshot.objects[ObjectID(2)] = StoredObject(
            type: "Item", primaryKey: 2, value: 2,
            written: [.value: Version(4)])
        var file = FileState(location: location, first: snapshot, readerSlotCount: 8)
        file.versions[Version(4)] = snapshot
        model.files[location] = file
        model.committers[location] = [Version(3): RealmID(2), Version(4): RealmID(1)]
        let watch = DeliveryOracle.Watched(
            realm: RealmID(1), context: ContextID(1),
            target: .object(ObjectID(1), keyPaths: nil), location: location, epoch: 0,
            delivered: (Version(2), []), objectValue: 1)
        return (model, watch)
    }

    // Spec N20: another realm's commit reports the old value; N21: a linked object's change
    // reports the List (nil values) to an observer without key paths, not to one watching
    // `list` alone, and `value` alone hears only the value.
    @Test func objectChangesNameTheWatchedPropertiesWithOldValues() {
        let (model, watch) = Self.objectModel()
        let snapshot = model.files[watch.location]?.versions[Version(4)] ?? Snapshot(schema: .standard)
        func expected(_ keyPaths: Set<PropertyName>?, since: StrataModel.Version = StrataModel.Version(2))
            -> [ObjectPropertyChange]
        {
            DeliveryOracle.expectedChanges(
                watch, object: ObjectID(1), keyPaths: keyPaths, since: since,
                at: Version(4), snapshot: snapshot, model: model)
        }
        #expect(
            expected(nil) == [
                ObjectPropertyChange(name: "value", oldValue: "1", newValue: "7"),
                ObjectPropertyChange(name: "list", oldValue: nil, newValue: nil),
            ])
        #expect(expected([.value]) == [ObjectPropertyChange(name: "value", oldValue: "1", newValue: "7")])
        #expect(expected([.list]).isEmpty)
        // Since v3, only r1's own commit: its linked change, and no value change at all.
        #expect(expected(nil, since: Version(3)) == [ObjectPropertyChange(name: "list", oldValue: nil, newValue: nil)])
    }

    // Spec N20: the observing realm's own commits report no old values.
    @Test func ownCommitsReportNoOldValues() {
        var (model, watch) = Self.objectModel()
        model.committers[watch.location]?[Version(3)] = RealmID(1)
        let snapshot = model.files[watch.location]?.versions[Version(4)] ?? Snapshot(schema: .standard)
        let changes = DeliveryOracle.expectedChanges(
            watch, object: ObjectID(1), keyPaths: [.value],
            since: Version(2), at: Version(4), snapshot: snapshot,
            model: model)
        #expect(changes == [ObjectPropertyChange(name: "value", oldValue: nil, newValue: "7")])
    }
}

/// Collection and object observers in lockstep runs (generation 3): generated, performed through the
/// Realm API, their callbacks checked, and runs with them replay bit for bit.
@Suite(.serialized) struct NotificationHarnessTests {
    @Test func observersAreGeneratedCheckedAndReplay() throws {
        let settings = CheckSettings(mode: .controlled, operations: 200)
        var total = CheckStatistics()
        var observing: RunResult?
        for seed in UInt64(1)...40 {
            let result = try Runner(settings: settings, stream: ChoiceStream(seed: seed)).run()
            #expect(
                result.failure == nil,
                "seed \(seed): \(result.failure?.description ?? "")\n\(Artifact.timeline(result, threads: settings.threads))"
            )
            total.add(result.statistics)
            if observing == nil && result.statistics.checkedCallbacks > 3 { observing = result }
        }
        print(
            "observers in 40 runs: \(total.observers) registered, \(total.checkedCallbacks) callbacks checked (\(total.checkedObjectCallbacks) of objects), \(total.checkedDeliveryPoints) caught-up checks"
        )
        #expect(total.observers > 0)
        // Object callbacks are rarer (an observed object must change): the time-boxed campaign
        // requires them (`HarnessTests`).
        #expect(total.checkedCallbacks > total.checkedObjectCallbacks, "no collection callback checked")
        #expect(total.checkedDeliveryPoints > 0)
        let run = try #require(observing, "no run in 40 seeds checked more than 3 callbacks")
        let skips = run.trace.contains { entry in
            if case .commitWrite(_, let skipped, _) = entry.step.operation { return !skipped.isEmpty }
            return false
        }
        print("an observing run: \(run.statistics.checkedCallbacks) callbacks, commits skipping a token: \(skips)")
        let replayed = try Runner(settings: settings, stream: ChoiceStream(replaying: run.choices)).run()
        #expect(replayed.digest == run.digest)
        #expect(replayed.statistics.checkedCallbacks == run.statistics.checkedCallbacks)
    }

    /// The seeded bugs of collection notifications: each is caught by the delivery oracle and
    /// shrunk to a handful of operations (harness steps included).
    @Test(arguments: ["modificationsAtNewIndices", "skippedTokenStillNotified", "refreshSkipsCallbacks"])
    func aNotificationBugIsCaughtAndShrunk(_ name: String) throws {
        let bug = try #require(SeededBugCatalog.named(name))
        var campaign = Campaign(
            mix: .controlled, operationsPerRun: 200, seconds: nil, runs: 400, seed: 1,
            engineBugs: bug.bug, shrinkSeconds: nil, shrinkAttempts: 1500)
        // Measured on generation 4's streams (generation 5's runs with observers shrink
        // `refreshSkipsCallbacks` to a few more steps within the same budget).
        campaign.generation = 4
        let report = campaign.run()
        let found = try #require(report.failures.first, "\(name) was not caught in \(report.runs) runs")
        #expect(
            found.shrunk.failure?.signature.hasPrefix("divergence: callback") == true,
            "\(found.shrunk.failure?.description ?? "")")
        print(
            "\(name): caught after \(report.runs) runs, \(String(format: "%.1f", found.foundAfterSeconds)) s; shrunk \(found.original.trace.count) -> \(found.shrunk.trace.count) steps in \(found.shrinkRuns) runs: \(found.shrunk.failure?.description ?? ""); replay token: \(found.token)"
        )
        #expect(found.shrunk.trace.count <= 20, "shrunk to \(found.shrunk.trace.count) steps")
        #expect(try StrataCheck.replay(token: found.token)?.signature == found.shrunk.failure?.signature)
    }
}
