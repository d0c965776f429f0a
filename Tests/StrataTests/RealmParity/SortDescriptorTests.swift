import Strata
import Testing

// Realm's RealmSwift/Tests/SortDescriptorTests.swift, in our words: the SortDescriptor value.

extension RealmParityLists {
    @Suite struct SortDescriptorTests {
        private let sortDescriptor = SortDescriptor(keyPath: "property")

        @Test func testAscendingDefaultsToTrue() {
            #expect(sortDescriptor.ascending)
        }

        @Test func testReversedReturnsReversedDescriptor() {
            let reversed = sortDescriptor.reversed()
            #expect(reversed.keyPath == sortDescriptor.keyPath, "reversing keeps the key path")
            #expect(!reversed.ascending)
            #expect(reversed.reversed().ascending)
        }

        @Test func testDescription() {
            #expect(sortDescriptor.description == "SortDescriptor(keyPath: property, direction: ascending)")
            #expect(sortDescriptor.reversed().description == "SortDescriptor(keyPath: property, direction: descending)")
        }

        @Test func testStringLiteralConvertible() {
            let literalSortDescriptor: SortDescriptor = "property"
            #expect(sortDescriptor == literalSortDescriptor, "a string literal is an ascending SortDescriptor")
        }

        @Test func testComparison() {
            let sortDescriptor1 = SortDescriptor(keyPath: "property1", ascending: true)
            let sortDescriptor2 = SortDescriptor(keyPath: "property1", ascending: false)
            let sortDescriptor3 = SortDescriptor(keyPath: "property2", ascending: true)
            let sortDescriptor4 = SortDescriptor(keyPath: "property2", ascending: false)

            // Different key path or direction: not equal.
            #expect(sortDescriptor1 != sortDescriptor2)
            #expect(sortDescriptor1 != sortDescriptor3)
            #expect(sortDescriptor1 != sortDescriptor4)

            #expect(sortDescriptor2 != sortDescriptor3)
            #expect(sortDescriptor2 != sortDescriptor4)

            #expect(sortDescriptor3 != sortDescriptor4)

            let sortDescriptor5 = SortDescriptor(keyPath: "property1", ascending: true)
            let sortDescriptor6 = SortDescriptor(keyPath: "property2", ascending: true)

            // The same key path and direction: equal.
            #expect(sortDescriptor1 == sortDescriptor5)
            #expect(sortDescriptor3 == sortDescriptor6)
        }
    }
}
