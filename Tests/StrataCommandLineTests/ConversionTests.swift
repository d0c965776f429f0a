import Testing

@testable import StrataCommandLine

@Suite("Typed option values")
struct ConversionTests {
    private func verify(_ arguments: [String]) throws -> ParsedCommand {
        try Fixtures.command(["verify", "db"] + arguments)
    }

    @Test(arguments: [
        ("0", 0), ("42", 42), ("100_000", 100_000), ("100k", 100_000), ("100K", 100_000),
        ("3M", 3_000_000), ("2G", 2_000_000_000), ("1.5M", 1_500_000), ("2.50k", 2_500),
        ("1_000k", 1_000_000), ("-7", -7), ("+7", 7), ("-2k", -2_000), ("0x1F", 31),
        ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
    ])
    func intAcceptedSpellings(text: String, expected: Int) throws {
        #expect(try verify(["--commits", text]).int("commits") == expected)
    }

    @Test(arguments: [
        "", "abc", "1.5", "k", "12x", "1__000", "_1", "1_", "1_k", "1.2345k", ".5k", "1.k",
        "--1", "0x", "0xg", "1 000",
    ])
    func intRejectedSpellings(text: String) throws {
        let error = try Fixtures.conversionError(["--commits=\(text)"]) {
            try $0.int("commits")
        }
        #expect(error?.message == "--commits expects an integer (got '\(text)')")
        #expect(error?.commandPath == ["strata-tool", "verify"])
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "10000000000G"])
    func intOutOfRange(text: String) throws {
        let error = try Fixtures.conversionError(["--commits=\(text)"]) {
            try $0.int("commits")
        }
        #expect(error?.message == "--commits is out of range for an integer (got '\(text)')")
    }

    @Test func intAbsentIsNilOrDefault() throws {
        let command = try verify([])
        #expect(try command.int("commits") == nil)
        #expect(try command.int("commits", default: 1_000) == 1_000)
    }

    @Test func intGivenOverridesDefault() throws {
        #expect(try verify(["-c", "5k"]).int("commits", default: 1_000) == 5_000)
    }

    @Test func intRangeLowerBound() throws {
        let error = try Fixtures.conversionError(["--records", "0"]) {
            try $0.int("records", default: 100_000, range: 1...)
        }
        #expect(error?.message == "--records must be at least 1 (got 0)")
        #expect(
            error?.description
                == "strata-tool verify: --records must be at least 1 (got 0)\n"
                + "Run 'strata-tool verify --help' for usage.")
    }

    @Test func intRangeUpperBound() throws {
        let error = try Fixtures.conversionError(["--records", "2k"]) {
            try $0.int("records", default: 1, range: ...1_000)
        }
        #expect(error?.message == "--records must be at most 1000 (got 2000)")
        let optional = try Fixtures.conversionError(["--records", "2k"]) {
            try $0.int("records", range: ...1_000)
        }
        #expect(optional?.message == "--records must be at most 1000 (got 2000)")
    }

    @Test func intClosedRange() throws {
        let error = try Fixtures.conversionError(["--records", "11"]) {
            try $0.int("records", default: 1, range: 1...10)
        }
        #expect(error?.message == "--records must be between 1 and 10 (got 11)")
        let low = try Fixtures.conversionError(["--records", "-1"]) {
            try $0.int("records", range: 1...10)
        }
        #expect(low?.message == "--records must be between 1 and 10 (got -1)")
    }

    @Test func intRangeAccepted() throws {
        let command = try verify(["--records", "10"])
        #expect(try command.int("records", default: 1, range: 1...10) == 10)
        #expect(try command.int("records", default: 1, range: 10...) == 10)
        #expect(try command.int("records", default: 1, range: ...10) == 10)
        #expect(try command.int("records", range: 10...) == 10)
        #expect(try command.int("records", range: ...10) == 10)
        #expect(try command.int("records", range: 10...10) == 10)
        #expect(try command.int("commits", range: 10...) == nil)
        #expect(try command.int("commits", range: ...10) == nil)
    }

    @Test func intRangeAppliesToDefaultToo() throws {
        // A default outside the range is the tool's bug, but it must not slip through silently.
        let error = try Fixtures.conversionError([]) {
            try $0.int("records", default: 0, range: 1...)
        }
        #expect(error?.message == "--records must be at least 1 (got 0)")
    }

    @Test(arguments: [
        ("0", UInt64(0)), ("12345", 12_345), ("0xdead_beef", 0xdead_beef), ("0XFF", 255),
        ("18446744073709551615", UInt64.max), ("0xFFFFFFFFFFFFFFFF", UInt64.max),
        ("4G", 4_000_000_000),
        ("1_000", 1_000),
    ])
    func uint64AcceptedSpellings(text: String, expected: UInt64) throws {
        #expect(try verify(["--seed", text]).uint64("seed") == expected)
    }

    @Test(arguments: ["-1", "+1", "0x", "seed", "0x12G", "1.5"])
    func uint64Rejected(text: String) throws {
        let error = try Fixtures.conversionError(["--seed=\(text)"]) {
            try $0.uint64("seed")
        }
        #expect(
            error?.message
                == "--seed expects a non-negative integer, decimal or 0x-hex (got '\(text)')"
        )
    }

    @Test(arguments: ["18446744073709551616", "0x1_0000_0000_0000_0000"])
    func uint64TooLarge(text: String) throws {
        let error = try Fixtures.conversionError(["--seed=\(text)"]) {
            try $0.uint64("seed")
        }
        #expect(error?.message == "--seed does not fit in 64 bits (got '\(text)')")
    }

    @Test func uint64Default() throws {
        #expect(try verify([]).uint64("seed", default: 7) == 7)
        #expect(try verify(["--seed", "0x10"]).uint64("seed", default: 7) == 16)
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-0.25", -0.25), ("2e-3", 0.002), ("10", 10), ("1_000.5", 1_000.5),
    ])
    func doubleAccepted(text: String, expected: Double) throws {
        #expect(try verify(["--rate", text]).double("rate") == expected)
    }

    @Test(arguments: ["nan", "inf", "-inf", "1e999", "0x1p3", "abc", "", "_1"])
    func doubleRejected(text: String) throws {
        let error = try Fixtures.conversionError(["--rate=\(text)"]) {
            try $0.double("rate")
        }
        #expect(error?.message == "--rate expects a finite number (got '\(text)')")
    }

    @Test func doubleDefault() throws {
        #expect(try verify([]).double("rate", default: 0.5) == 0.5)
        #expect(try verify([]).double("rate") == nil)
    }

    @Test func shardParsed() throws {
        let shard = try verify(["--shard", "2/8"]).shard("shard")
        #expect(shard?.index == 2)
        #expect(shard?.count == 8)
    }

    @Test func shardDefaultsToWhole() throws {
        #expect(try verify([]).shard("shard") == nil)
        #expect(try verify([]).shard("shard", default: .whole) == Shard.whole)
        #expect(Shard.whole.index == 0 && Shard.whole.count == 1)
    }

    @Test(arguments: ["3/3", "0/0", "-1/2", "1", "1/2/3", "a/b", "/2", "1/", "", "1 /2", "+1/2"])
    func shardRejected(text: String) throws {
        let error = try Fixtures.conversionError(["--shard=\(text)"]) {
            try $0.shard("shard")
        }
        #expect(error?.message == "--shard expects I/N with 0 <= I < N (got '\(text)')")
    }
}

@Suite("Shard")
struct ShardTests {
    @Test func validation() {
        #expect(Shard(index: 0, count: 1) != nil)
        #expect(Shard(index: 4, count: 5) != nil)
        #expect(Shard(index: 5, count: 5) == nil)
        #expect(Shard(index: -1, count: 5) == nil)
        #expect(Shard(index: 0, count: 0) == nil)
    }

    @Test func parsingAndDescriptionRoundTrip() {
        let shard = Shard(parsing: "3/16")
        #expect(shard == Shard(index: 3, count: 16))
        #expect(shard?.description == "3/16")
    }

    @Test func everyOrdinalBelongsToExactlyOneShard() throws {
        let shards = (0..<4).compactMap { Shard(index: $0, count: 4) }
        #expect(shards.count == 4)
        for ordinal in -9...9 {
            #expect(shards.filter { $0.includes(ordinal) }.count == 1)
        }
        #expect(shards[1].includes(5))
        #expect(shards[3].includes(-1))
    }
}
