import Foundation
import Strata
import Testing

/// Object observers (`Object.observe`): property changes, old values, key paths (Spec N19 to
/// N22).
@Suite struct ObjectNotificationTests {
    /// The callbacks one observer got, as text: "intCol 1→2", "deleted".
    final class Log {
        var entries: [String] = []
        var count: Int { entries.count }

        func record<T>(_ change: ObjectChange<T>) {
            switch change {
            case .change(_, let properties):
                entries.append(
                    properties.map { "\($0.name) \(Self.text($0.oldValue))→\(Self.text($0.newValue))" }
                        .joined(separator: ", "))
            case .deleted: entries.append("deleted")
            case .error(let error): entries.append("error \(error)")
            }
        }

        static func text(_ value: Any?) -> String {
            guard let value = AnyOptional.flatten(value) else { return "nil" }
            return "\(value)"
        }
    }

    /// Spins until `log` has `count` entries, then a little longer to catch extra callbacks.
    private func settle(_ log: Log, count: Int) -> Bool {
        let reached = spinRunLoop { log.count >= count }
        _ = spinRunLoop(seconds: 0.15) { false }
        return reached && log.count == count
    }

    private func onAnotherThread(
        _ configuration: Realm.Configuration,
        _ change: @escaping @Sendable (Realm) throws -> Void
    ) throws {
        try onOtherThread {
            let realm = try Realm(configuration: configuration)
            try realm.write { try change(realm) }
        }
    }

    private func first(_ realm: Realm) throws -> SwiftObject {
        try required(realm.objects(SwiftObject.self).first, "the SwiftObject")
    }

    // Spec N19: an unmanaged object cannot be observed, with or without key paths.
    @Test func unmanagedObjectsCannotBeObserved() {
        let object = SwiftObject()
        expectRejected(rejection { _ = try object._observe { _ in } }, "managed")
        expectRejected(rejection { _ = try object._observe(keyPaths: ["intCol"]) { _ in } }, "managed")
    }

    /// Spec N19: deleting through an instance clears its realm for good, as Realm's delete does:
    /// after the write is cancelled the object exists again, the instance is not invalidated,
    /// but its `realm` stays nil and it cannot be observed; another instance of the same object
    /// can. (Found by the harness: the instance was observed, and its callbacks had no realm.)
    @Test func anInstanceDeletedThroughItselfCannotBeObservedAfterACancel() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 1]) }
            let other = try #require(realm.objects(SwiftObject.self).first)
            realm.beginWrite()
            realm.delete(object)
            realm.cancelWrite()
            #expect(!object.isInvalidated)
            #expect(object.realm == nil)
            #expect(other.realm == realm)
            expectRejected(rejection { _ = try object._observe { _ in } }, "managed")
            expectRejected(rejection { _ = try object._observe(keyPaths: ["intCol"]) { _ in } }, "managed")
            let log = Log()
            let token = try other._observe { log.record($0) }
            try realm.write { other.intCol = 2 }
            #expect(settle(log, count: 1))
            #expect(log.entries == ["intCol nil→2"])
            token.invalidate()
        }
    }

    // Spec N20: a commit by the observing realm itself gives no old value.
    @Test func localWriteGivesNoOldValue() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 1]) }
            let log = Log()
            let token = object.observe { log.record($0) }
            try realm.write { object.intCol = 2 }
            #expect(settle(log, count: 1))
            #expect(log.entries == ["intCol nil→2"])
            token.invalidate()
        }
    }

    // Spec N20, N12: another realm's commits, delivered by refresh() before it
    // returns, carry old and new values, also for optionals.
    @Test func remoteWritesCarryOldValues() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 1, "optIntCol": 1]) }
            let log = Log()
            let token = object.observe { log.record($0) }
            try realm.write {}  // the observer's first delivery (Spec N12, N20)
            try onAnotherThread(configuration) { try first($0).intCol = 2 }
            #expect(realm.refresh())
            #expect(log.entries == ["intCol 1→2"])
            try onAnotherThread(configuration) { try first($0).optIntCol = 2 }
            #expect(realm.refresh())
            try onAnotherThread(configuration) { try first($0).optIntCol = nil }
            #expect(realm.refresh())
            try onAnotherThread(configuration) { try first($0).optIntCol = 3 }
            #expect(realm.refresh())
            #expect(log.entries == ["intCol 1→2", "optIntCol 1→2", "optIntCol 2→nil", "optIntCol nil→3"])
            token.invalidate()
        }
    }

    // Spec N21: key paths select the properties that call back, local or remote.
    @Test func keyPathFilters() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 1]) }
            let intOnly = Log()
            let both = Log()
            let tokens = [
                object.observe(keyPaths: ["intCol"]) { intOnly.record($0) },
                object.observe(keyPaths: ["intCol", "stringCol"]) { both.record($0) },
            ]
            try realm.write { object.stringCol = "a" }
            #expect(settle(both, count: 1))
            #expect(intOnly.count == 0, "a change of an unobserved property called back")
            try onAnotherThread(configuration) { try first($0).stringCol = "b" }
            #expect(settle(both, count: 2))
            #expect(intOnly.count == 0)
            try realm.write { object.intCol = 5 }
            #expect(settle(intOnly, count: 1))
            #expect(both.entries == ["stringCol nil→a", "stringCol a→b", "intCol nil→5"])
            #expect(intOnly.entries == ["intCol nil→5"])
            for token in tokens { token.invalidate() }
            expectRejected(
                rejection { _ = try object._observe(keyPaths: ["notAProperty"]) { _ in } },
                "property 'notAProperty' not found in object of type 'SwiftObject'")
            expectRejected(
                rejection { _ = try object._observe(keyPaths: ["boolCol.alsoNotAProperty"]) { _ in } },
                "property 'alsoNotAProperty' not found in object of type 'BoolObj'")
        }
    }

    // Spec N21: List properties, plain and through key paths.
    @Test func listPropertyNotifications() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let company = Company()
            company.name = "c"
            company.employees.append(Employee())
            try realm.write { realm.add(company) }
            let employee = try required(company.employees.first, "employee")
            let plain = Log()
            let list = Log()
            let hired = Log()
            let tokens = [
                company.observe { plain.record($0) },
                company.observe(keyPaths: ["employees"]) { list.record($0) },
                company.observe(keyPaths: ["employees.hired"]) { hired.record($0) },
            ]
            try realm.write { employee.hired = true }  // plain and hired, not list
            #expect(settle(hired, count: 1))
            try realm.write { employee.age = 30 }  // plain only
            #expect(settle(plain, count: 2))
            try realm.write { company.employees.append(Employee()) }  // all three
            #expect(settle(list, count: 1))
            try realm.write { company.employees[0] = Employee() }  // all three
            #expect(settle(list, count: 2))
            try realm.write { company.name = "d" }  // plain only
            #expect(settle(plain, count: 5))
            #expect(list.entries == ["employees nil→nil", "employees nil→nil"])
            #expect(hired.entries == ["employees nil→nil", "employees nil→nil", "employees nil→nil"])
            #expect(
                plain.entries == [
                    "employees nil→nil", "employees nil→nil", "employees nil→nil", "employees nil→nil",
                    "name nil→d",
                ])
            for token in tokens { token.invalidate() }
        }
    }

    // Spec N22: an upsert with `.modified` reports only the values that changed; one
    // with `.all` reports every property it set.
    @Test func modifiedUpsertsReportOnlyChangedProperties() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(PKPair.self, value: ["id": 1, "a": 1, "b": 1]) }
            let log = Log()
            let token = object.observe { log.record($0) }
            try realm.write { realm.create(PKPair.self, value: ["id": 1, "a": 2, "b": 1], update: .modified) }
            #expect(settle(log, count: 1))
            try realm.write { realm.create(PKPair.self, value: ["id": 1, "a": 2, "b": 3], update: .modified) }
            #expect(settle(log, count: 2))
            try realm.write { realm.create(PKPair.self, value: ["id": 1, "a": 2, "b": 3], update: .all) }
            #expect(settle(log, count: 3))
            #expect(log.entries == ["a nil→2", "b nil→3", "a nil→2, b nil→3"])
            token.invalidate()
        }
    }

    // Spec N20: deleting the observed object calls `.deleted`, then nothing more.
    @Test func deletionEndsTheObservation() throws {
        let configuration = testConfiguration()
        try onLoopThread {
            let realm = try Realm(configuration: configuration)
            let object = try realm.write { realm.create(SwiftObject.self, value: ["intCol": 1]) }
            let log = Log()
            let token = object.observe { log.record($0) }
            try realm.write { realm.delete(object) }
            #expect(settle(log, count: 1))
            try realm.write { realm.create(SwiftObject.self) }
            #expect(settle(log, count: 1))
            #expect(log.entries == ["deleted"])
            token.invalidate()
        }
    }
}

/// Strips nested optionals for printing.
enum AnyOptional {
    static func flatten(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        guard let child = mirror.children.first else { return nil }
        return flatten(child.value)
    }
}
