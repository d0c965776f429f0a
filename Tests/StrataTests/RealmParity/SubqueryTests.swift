import Foundation
import Strata
import Testing

// Realm's SUBQUERY tests (Realm/Tests/QueryTests.m testSubqueries, testLinkingObjects' r6 and
// r14, and testInvalidSubqueries), in our words (Spec V23): SUBQUERY over a List, set or Map
// of links, after a to-one link, and over LinkingObjects, nested through the variable; Realm's
// refusals.

/// Realm's EmployeeObject, CompanyObject and LinkToCompanyObject.
final class SQEmployee: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var hired = false
}

final class SQCompany: Object {
    @Persisted var name = ""
    @Persisted var employees: List<SQEmployee>
    @Persisted var employeeSet: MutableSet<SQEmployee>
    @Persisted var employeeDict: Map<String, SQEmployee?>
}

final class SQLinkToCompany: Object {
    @Persisted var company: SQCompany?
}

/// Realm's PersonObject: children, and parents through them.
final class SQPerson: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var children: List<SQPerson>
    @Persisted(originProperty: "children") var parents: LinkingObjects<SQPerson>
}

@Suite struct SubqueryTests {
    private static func realm() throws -> Realm {
        try Realm(
            configuration: Realm.Configuration(
                fileURL: temporaryDirectory().appendingPathComponent("subquery.realm"),
                objectTypes: [SQEmployee.self, SQCompany.self, SQLinkToCompany.self, SQPerson.self]))
    }

    /// Realm's two companies: John 30 (not hired), Jill 40, Joe 40; Bill 35, Don 45 (not
    /// hired), Tim 60 (not hired); each in the List, the set and the Map of its company.
    private static func companies() throws -> Realm {
        let realm = try realm()
        try realm.write {
            let staff: [[(String, Int, Bool)]] = [
                [("John", 30, false), ("Jill", 40, true), ("Joe", 40, true)],
                [("Bill", 35, true), ("Don", 45, false), ("Tim", 60, false)],
            ]
            for (index, people) in staff.enumerated() {
                let company = realm.create(SQCompany.self, value: ["name": "company \(index)"])
                for (name, age, hired) in people {
                    let employee = realm.create(SQEmployee.self, value: ["name": name, "age": age, "hired": hired])
                    company.employees.append(employee)
                    company.employeeSet.insert(employee)
                    company.employeeDict[name] = employee
                }
                realm.create(SQLinkToCompany.self, value: ["company": company])
            }
        }
        return realm
    }

    @Test("Spec V23: QueryTests.testSubqueries: SUBQUERY over a List, set and Map, also after a link")
    func testSubqueries() throws {
        let realm = try Self.companies()
        let companies = realm.objects(SQCompany.self)
        let links = realm.objects(SQLinkToCompany.self)
        for collection in ["employees", "employeeSet", "employeeDict"] {
            let olderNotHired = "SUBQUERY(\(collection), $employee, $employee.age > 30 AND $employee.hired = FALSE)"
            let youngHired = "SUBQUERY(\(collection), $employee, $employee.age < 30 AND $employee.hired = TRUE)"
            #expect(companies.filter(olderNotHired + ".@count > 0").map(\.name) == ["company 1"], "\(collection)")
            #expect(companies.filter(youngHired + ".@count == 0").count == 2, "\(collection)")
            #expect(
                links.filter(
                    olderNotHired.replacingOccurrences(of: "(\(collection)", with: "(company.\(collection)")
                        + ".@count > 0"
                ).count == 1, "\(collection)")
            #expect(
                links.filter(
                    youngHired.replacingOccurrences(of: "(\(collection)", with: "(company.\(collection)")
                        + ".@count == 0"
                ).count == 2, "\(collection)")
        }
        // RealmSwift's typed form: the count of a comparison of one collection's objects.
        #expect(companies.where { ($0.employees.age > 30 && $0.employees.hired == false).count > 0 }.count == 1)
        #expect(companies.where { ($0.employeeSet.age < 30 && $0.employeeSet.hired == true).count == 0 }.count == 2)
        #expect(companies.where { ($0.employeeDict.age > 30 && $0.employeeDict.hired == false).count > 0 }.count == 1)
        #expect(
            links.where { ($0.company.employees.age > 30 && $0.company.employees.hired == false).count > 0 }.count == 1)
        #expect(companies.where { $0.name == "company 0" && ($0.employees.name == "Bar").count == 0 }.count == 1)
        #expect(companies.where { (!($0.employees.hired == true)).count == 2 }.map(\.name) == ["company 1"])
        // RLMQueryUtil reads the count's number as an integer: 2.9 is 2, TRUE is 1.
        #expect(companies.filter("SUBQUERY(employees, $e, $e.hired == TRUE).@count < 2.9").map(\.name) == ["company 1"])
        #expect(
            companies.filter("SUBQUERY(employees, $e, $e.hired == TRUE).@count == TRUE").map(\.name) == ["company 1"])
        // The count is compared as any number: each operator, an argument, a double.
        #expect(companies.filter("SUBQUERY(employees, $e, $e.hired == TRUE).@count == 2").map(\.name) == ["company 0"])
        #expect(companies.filter("SUBQUERY(employees, $e, $e.age >= 45).@count >= %@", 2).map(\.name) == ["company 1"])
        #expect(
            companies.filter("SUBQUERY(employees, $e, $e.age >= 40).@count != 2.0").isEmpty, "two of 40 or more in each"
        )
        #expect(
            companies.filter("SUBQUERY(employees, $e, $e.name BEGINSWITH 'J').@count < 1").map(\.name) == ["company 1"])
        // Live: a changed employee changes what the query finds.
        let anyNotHired = companies.filter("SUBQUERY(employees, $e, $e.hired == FALSE).@count > 0")
        #expect(anyNotHired.count == 2)
        try realm.write {
            for employee in realm.objects(SQEmployee.self).filter("name == 'John'") { employee.hired = true }
        }
        #expect(anyNotHired.map(\.name) == ["company 1"])
        // An owner without the link has empty collections: a count of zero.
        try realm.write { realm.create(SQLinkToCompany.self) }
        #expect(links.filter("SUBQUERY(company.employees, $e, $e.age > 0).@count == 0").count == 1)
    }

    @Test("Spec V23, V26: QueryTests.testLinkingObjects r6 and r14: SUBQUERY over LinkingObjects, nested")
    func testLinkingObjectsSubqueries() throws {
        let realm = try Self.realm()
        try realm.write {
            func person(_ name: String, _ age: Int, _ children: [SQPerson] = []) -> SQPerson {
                let person = realm.create(SQPerson.self, value: ["name": name, "age": age])
                person.children.append(objectsIn: children)
                return person
            }
            let hannah = person("Hannah", 0)
            let elijah = person("Elijah", 3)
            let mark = person("Mark", 30, [hannah])
            let jason = person("Jason", 31, [elijah])
            let diane = person("Diane", 29, [hannah])
            let carol = person("Carol", 31)
            _ = person("Michael", 57, [jason, mark])
            _ = person("Raewynne", 57, [jason, mark])
            _ = person("Don", 64, [carol, diane])
            _ = person("Diane", 60, [carol, diane])
        }
        let people = realm.objects(SQPerson.self)
        // People that have at least one sibling.
        #expect(
            people.filter("SUBQUERY(parents, $parent, $parent.children.@count > 1).@count > 0").map(\.name)
                == ["Mark", "Jason", "Diane", "Carol"])
        // A parent under 31 who has a parent over 35 named Michael.
        #expect(
            people.filter(
                "SUBQUERY(parents, $p1, $p1.age < 31 AND SUBQUERY($p1.parents, $p2, $p2.age > 35 AND $p2.name == 'Michael').@count > 0).@count > 0"
            ).map(\.name) == ["Hannah"])
        #expect(people.where { ($0.parents.age < 31).count == 2 }.map(\.name) == ["Hannah"], "the typed form")
        // Hannah's two parents both count.
        #expect(people.filter("SUBQUERY(parents, $p, $p.age < 31).@count == 2").map(\.name) == ["Hannah"])
        // Counted once per link, as realm-core counts backlinks: Carol listed twice by Don.
        try realm.write {
            let don = try #require(people.filter("name == 'Don'").first)
            don.children.append(try #require(people.filter("name == 'Carol'").first))
        }
        #expect(people.filter("SUBQUERY(parents, $p, $p.age > 60).@count == 2").map(\.name) == ["Carol"])
    }

    @Test("Spec V23: QueryTests.testInvalidSubqueries: Realm's refusals, and what Strata's queries cannot state")
    func testInvalidSubqueries() throws {
        let realm = try Self.companies()
        func refusal(_ format: String) -> String? {
            do {
                _ = try realm.objects(SQCompany.self)._filter(format, arguments: [])
                return nil
            } catch { return error.message }
        }
        #expect(
            refusal("SUBQUERY(employees, $e, $e.age = 5).@count == employees.@count")
                == "Invalid predicate expression: SUBQUERY(…).@count is only supported when compared with a constant number."
        )
        #expect(
            refusal("SUBQUERY(employees, $e, $e.age = 5) == 0")
                == "Invalid predicate: SUBQUERY is only supported when immediately followed by .@count that is compared with a constant number."
        )
        #expect(
            refusal("SUBQUERY(employees, $e, $e.age = 5).@count == 'a'")?.contains("compared with a constant number")
                == true)
        #expect(
            refusal("SUBQUERY(name, $e, $e.age = 5).@count == 0")?.contains("SUBQUERY needs a collection of objects")
                == true)
        #expect(refusal("SUBQUERY(employees, $e, $e.nope = 5).@count == 0")?.contains("'nope' not found") == true)
        #expect(refusal("SUBQUERY(employees, $e, $e.age BEGINSWITH 'a').@count == 0") != nil)
        #expect(refusal("SUBQUERY(employees, e, e.age = 5).@count == 0")?.hasPrefix("Unable to parse") == true)
        // Realm reads a property of the object inside a subquery; Strata's queries do not yet.
        #expect(
            refusal("SUBQUERY(employees, $e, $e.name == name).@count == 0")?.hasPrefix("Unsupported predicate:") == true
        )
    }
}
