import Foundation
import Testing

@testable import StrataCommandLine

@Suite("JSONLine")
struct JSONLineTests {
    /// Parses `text` with Foundation, proving it is valid JSON.
    private func parsed(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let dictionary = object as? [String: Any] else {
            Issue.record("not an object: \(text)")
            return [:]
        }
        return dictionary
    }

    @Test func scalarsRenderExactly() {
        var line = JSONLine()
        line.add("op", "commit")
        line.add("n", 42)
        line.add("seed", UInt64.max)
        line.add("ms", 1.5)
        line.add("ok", true)
        line.add("bad", false)
        line.add("none", JSONValue.null)
        #expect(
            line.render()
                == #"{"op":"commit","n":42,"seed":18446744073709551615,"ms":1.5,"ok":true,"#
                + #""bad":false,"none":null}"#)
    }

    @Test func keysKeepInsertionOrder() {
        let keys = ["zeta", "alpha", "mu", "beta", "omega", "a"]
        var line = JSONLine()
        for (index, key) in keys.enumerated() { line.add(key, index) }
        #expect(line.render() == #"{"zeta":0,"alpha":1,"mu":2,"beta":3,"omega":4,"a":5}"#)
        #expect(line.fields.map(\.key) == keys)
    }

    @Test func repeatedKeyReplacesValueInPlace() {
        var line = JSONLine()
        line.add("a", 1)
        line.add("b", 2)
        line.add("a", 3)
        #expect(line.render() == #"{"a":3,"b":2}"#)
    }

    @Test func literalPairsAndChaining() {
        let line = JSONLine(["event": "start", "threads": 8]).adding("dry", false)
        #expect(line.description == #"{"event":"start","threads":8,"dry":false}"#)
    }

    @Test func emptyObject() throws {
        #expect(JSONLine().render() == "{}")
        #expect(try parsed("{}").isEmpty)
    }

    @Test func nonFiniteDoublesBecomeNull() throws {
        var line = JSONLine()
        line.add("nan", Double.nan)
        line.add("inf", Double.infinity)
        line.add("ninf", -Double.infinity)
        line.add("arr", [1.0, .nan])
        #expect(line.render() == #"{"nan":null,"inf":null,"ninf":null,"arr":[1.0,null]}"#)
        let object = try parsed(line.render())
        #expect(object["nan"] is NSNull)
    }

    @Test func doublesRoundTrip() throws {
        let values: [Double] = [0, -0.0, 0.1, 1e-5, 1e20, 123_456.789, -2.5e-300, .pi]
        var line = JSONLine()
        for (index, value) in values.enumerated() { line.add("v\(index)", value) }
        let object = try parsed(line.render())
        for (index, value) in values.enumerated() {
            #expect((object["v\(index)"] as? NSNumber)?.doubleValue == value)
        }
    }

    @Test func nestedArrays() throws {
        var line = JSONLine()
        line.add("ints", [1, 2, 3])
        line.add("strings", ["a", "b\"c"])
        line.add("mixed", [1, "two", 3.5, true, nil, [.uint64(9), []]] as JSONValue)
        line.add("empty", [Int]())
        let text = line.render()
        #expect(
            text == #"{"ints":[1,2,3],"strings":["a","b\"c"],"mixed":[1,"two",3.5,true,null,"#
                + #"[9,[]]],"empty":[]}"#)
        let object = try parsed(text)
        #expect(object["ints"] as? [Int] == [1, 2, 3])
        #expect(object["strings"] as? [String] == ["a", "b\"c"])
        let mixed = object["mixed"] as? [Any]
        #expect(mixed?.count == 6)
        #expect((mixed?[5] as? [Any])?.count == 2)
    }

    @Test func optionalsBecomeNullWhenAbsent() {
        var line = JSONLine()
        let missing: Int? = nil
        let present: String? = "x"
        line.add("missing", missing)
        line.add("present", present)
        #expect(line.render() == #"{"missing":null,"present":"x"}"#)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() throws {
        let nasty =
            "quote\" backslash\\ slash/ newline\n tab\t cr\r nul\u{0} bell\u{7} esc\u{1B}"
            + " unit\u{1F} del\u{7F}"
        var line = JSONLine()
        line.add("s", nasty)
        line.add("key\"with\nnewline", 1)
        let text = line.render()
        #expect(
            text == #"{"s":"quote\" backslash\\ slash/ newline\u000a tab\u0009 cr\u000d nul\u0000"#
                + #" bell\u0007 esc\u001b unit\u001f del\u007f","key\"with\u000anewline":1}"#)
        #expect(!text.contains("\n"))
        let object = try parsed(text)
        #expect(object["s"] as? String == nasty)
        #expect(object["key\"with\nnewline"] as? Int == 1)
    }

    @Test func everyControlCharacterRoundTrips() throws {
        let all = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        var line = JSONLine()
        line.add("c", all)
        let object = try parsed(line.render())
        #expect(object["c"] as? String == all)
        #expect(all.unicodeScalars.count == 32)
    }

    @Test func nonASCIIPassesThroughAsUTF8() throws {
        let text = "naïve café — 日本語 🦀 \u{2028}sep"
        var line = JSONLine()
        line.add("t", text)
        line.add("ключ", "значение")
        let rendered = line.render()
        #expect(rendered.contains("naïve café — 日本語 🦀 "))
        #expect(rendered.contains(#"\u2028sep"#))
        #expect(rendered.contains(#""ключ":"значение""#))
        let object = try parsed(rendered)
        #expect(object["t"] as? String == text)
        #expect(object["ключ"] as? String == "значение")
    }

    @Test func renderSingleValue() {
        #expect(JSONLine.render(.array([.string("a\\b"), .int(-1)])) == #"["a\\b",-1]"#)
    }
}
