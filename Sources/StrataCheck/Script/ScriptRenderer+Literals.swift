import StrataModel
import StrataSimulation
import StrataStorage

// Swift source text for the values a generated test names: observations, readings, crash
// images, injected faults, strings.
extension ScriptRenderer {
    static func literal(_ observation: Observation) -> String {
        switch observation {
        case .done: return ".done"
        case .bool(let flag): return ".bool(\(flag))"
        case .count(let count): return ".count(\(count))"
        case .realm(let realm): return ".realm(\(realm.map { "\($0.rawValue)" } ?? "nil"))"
        case .object(let reading): return ".object(\(reading.map(literal) ?? "nil"))"
        case .elements(let readings): return ".elements([\(readings.map(literal).joined(separator: ", "))])"
        case .handle(let handle): return ".handle(\(handle.map { "\($0.rawValue)" } ?? "nil"))"
        case .aggregate(let answer):
            switch answer {
            case nil: return ".aggregate(nil)"
            case .int(let number)?: return ".aggregate(.int(\(number)))"
            case .double(let number)?: return ".aggregate(.double(\(number)))"
            }
        case .sections(let sections):
            let each = sections.map {
                "SectionReading(key: \($0.key.map(String.init) ?? "nil"), primaryKeys: \($0.primaryKeys))"
            }
            return ".sections([\(each.joined(separator: ", "))])"
        case .failure(let code, let message): return ".failure(code: \(literal(code)), message: \(literal(message)))"
        case .blocked: return ".blocked"
        }
    }

    static func literal(_ key: SectionKey) -> String {
        switch key {
        case .quotient(let divisor): return ".quotient(\(divisor))"
        case .remainder(let modulus): return ".remainder(\(modulus))"
        }
    }

    static func literal(_ reading: Reading) -> String {
        "Reading(type: \(literal(reading.type)), primaryKey: \(reading.primaryKey), value: \(literal(reading.value)), "
            + "listKeys: \(reading.listKeys), isFrozen: \(reading.isFrozen)"
            + (reading.linkKey.map { ", linkKey: \($0)" } ?? "")
            + (reading.setKeys.isEmpty ? "" : ", setKeys: \(reading.setKeys)")
            + (reading.mapEntries.isEmpty
                ? ""
                : ", mapEntries: ["
                    + reading.mapEntries.map {
                        "MapEntryReading(key: \(literal($0.key)), primaryKey: \(literal($0.primaryKey)))"
                    }.joined(separator: ", ") + "]") + ")"
    }

    static func literal(_ value: Int?) -> String { value.map(String.init) ?? "nil" }

    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }

    static func literal(_ point: CapturePoint) -> String {
        switch point {
        case .pageWrite(let index): return ".pageWrite(index: \(index))"
        case .phaseOneSync: return ".phaseOneSync"
        case .slotWrite: return ".slotWrite"
        case .phaseTwoSync: return ".phaseTwoSync"
        case .publish: return ".publish"
        }
    }

    static func literal(_ crash: RecordedCrash) -> String {
        let fates = crash.fates.map { "(offset: \($0.offset), fate: \(literal($0.fate)))" }
        return "RecordedCrash(fates: [\(fates.joined(separator: ", "))], keepsUnsyncedSize: \(crash.keepsUnsyncedSize))"
    }

    static func literal(_ fate: SimStore.WriteFate) -> String {
        switch fate {
        case .lost: return ".lost"
        case .applied: return ".applied"
        case .tornSectors(let mask): return ".tornSectors(newSectorMask: \(mask))"
        case .tornPrefix(let count): return ".tornPrefix(byteCount: \(count))"
        case .garbled(let mask, let seed): return ".garbled(garbageSectorMask: \(mask), seed: \(seed))"
        case .misdirected(let offset): return ".misdirected(toOffset: \(offset))"
        }
    }

    static func literal(_ fault: InjectedCommitFault) -> String {
        let site: String
        switch fault.site {
        case .grow: site = ".grow"
        case .pageWrite(let index): site = ".pageWrite(index: \(index))"
        case .phaseOneSync: site = ".phaseOneSync"
        case .slotWrite: site = ".slotWrite"
        case .phaseTwoSync: site = ".phaseTwoSync"
        }
        return "InjectedCommitFault(site: \(site), fault: \(fault.fault == .eio ? ".eio" : ".enospc"))"
    }
}
