import Foundation
import Strata
import Testing

/// The README's tour, compiled and run (only the public API: `import Strata` without SPI).
@Suite struct ReadmeTourTests {
    final class TourDog: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age: Int
        @Persisted var tags: List<String>
    }

    // Spec C10, T2, F2: the tour's reference crosses threads, the frozen Results do not change.
    @Test func tourRuns() throws {
        let config = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("dogs.realm"),
            objectTypes: [TourDog.self])
        let realm = try Realm(configuration: config)
        try realm.write {
            let rex = TourDog()
            rex.name = "Rex"
            rex.age = 3
            realm.add(rex)
            realm.create(TourDog.self, value: ["name": "Fido", "age": 1])
        }
        let rex = try #require(realm.object(ofType: TourDog.self, forPrimaryKey: "Rex"))
        let reference = ThreadSafeReference(to: rex)
        let aged = try onOtherThread { () -> Int in
            let mine = try Realm(configuration: config)
            guard let dog = mine.resolve(reference) else { return -1 }
            try mine.write { dog.age += 1 }
            return dog.age
        }
        #expect(aged == 4)
        let puppies = realm.objects(TourDog.self).where { $0.age < 2 }.freeze()
        let box = Frozen(puppies)
        let counted = try onOtherThread { box.value.count }
        #expect(counted == 1)
        #expect(rex.age == 3)  // Spec V1: this realm has not moved yet
        #expect(realm.refresh())
        #expect(rex.age == 4)
        #expect(box.value.count == 1 && box.value.first?.name == "Fido")
    }

    // Spec N8, N13, N21, A1: the tour's observers and async write, on a thread running its loop.
    @Test func tourObservesAndWritesAsync() throws {
        let config = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("dogs.realm"),
            objectTypes: [TourDog.self])
        try onLoopThread {
            let realm = try Realm(configuration: config)
            try realm.write { realm.create(TourDog.self, value: ["name": "Fido", "age": 1]) }
            var counts: [Int] = []
            var insertions: [[Int]] = []
            var durable: Bool?
            let token = realm.objects(TourDog.self).sorted(byKeyPath: "age").observe { change in
                switch change {
                case .initial(let dogs): counts.append(dogs.count)
                case .update(let dogs, _, let inserted, _):
                    counts.append(dogs.count)
                    insertions.append(inserted)
                case .error(let error): Issue.record("\(error)")
                }
            }
            let fido = realm.object(ofType: TourDog.self, forPrimaryKey: "Fido")
            var changed: [String] = []
            let dogToken = fido?.observe(keyPaths: ["age"]) { change in
                if case .change(_, let properties) = change { changed += properties.map(\.name) }
            }
            realm.writeAsync(
                { realm.create(TourDog.self, value: ["name": "Bolt", "age": 2]) },
                onComplete: { error in durable = error == nil })
            #expect(spinRunLoop { durable != nil && counts.count == 2 })
            try realm.write { fido?.age = 5 }
            #expect(spinRunLoop { changed == ["age"] && counts.count == 3 })
            #expect(durable == true)
            #expect(counts == [1, 2, 2])
            // Bolt (2) after Fido (1); then Fido (5) moves last: Fido is kept (modified), Bolt moves.
            #expect(insertions == [[1], [0]])
            token.invalidate()
            dogToken?.invalidate()
        }
    }
    /// The tour's actor (Spec C15, A15): its realm, observer and asyncWrite in its isolation.
    actor Kennel {
        var realm: Realm?
        var token: NotificationToken?
        var counts: [Int] = []

        func open(_ config: Realm.Configuration) async throws {
            let realm = try await Realm(configuration: config, actor: self)
            token = realm.objects(TourDog.self).observe { [unowned self] change in
                switch change {
                case .initial(let dogs), .update(let dogs, _, _, _): self.counts.append(dogs.count)
                case .error(let error): Issue.record("\(error)")
                }
            }
            try await realm.asyncWrite { realm.create(TourDog.self, value: ["name": "Ace", "age": 4]) }
            self.realm = realm
        }

        func dogs() -> Int { realm?.objects(TourDog.self).count ?? -1 }

        /// Waits for the observer, giving the actor up between looks.
        func waitForCounts(_ expected: [Int]) async -> [Int] {
            for _ in 0..<Int(hangGuardSeconds * 100) where counts != expected {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return counts
        }
    }

    // Spec C15, A15, N7: the tour's actor opens its realm, observes and writes asynchronously.
    @Test func tourActor() async throws {
        let config = Realm.Configuration(
            fileURL: temporaryDirectory().appendingPathComponent("kennel.realm"),
            objectTypes: [TourDog.self])
        let kennel = Kennel()
        try await kennel.open(config)
        #expect(await kennel.dogs() == 1)
        // The actor's turns run in the order they were asked for: the observer's initial
        // delivery (N8), then the asyncWrite's turn, whose commit it hears of next (N7).
        #expect(await kennel.waitForCounts([0, 1]) == [0, 1])
    }
}
