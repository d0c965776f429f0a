import StrataModel
import StrataSimulation
import StrataStorage

/// Where in a commit the disk was captured for a crash (Docs/architecture.md §2's windows, at the engine's
/// yield points).
enum CapturePoint: Hashable, Sendable, CustomStringConvertible {
    /// Before the `index`-th page write of phase 1 (earlier page writes are pending).
    case pageWrite(index: Int)
    /// Every page written, before the phase-1 sync.
    case phaseOneSync
    /// Phase 1 synced, before the slot write.
    case slotWrite
    /// The slot written, before the phase-2 sync.
    case phaseTwoSync
    /// The slot synced, before the version is published.
    case publish

    /// The window, for `ProbeCoverage.crash`.
    var probeName: String {
        switch self {
        case .pageWrite: return "a page write"
        case .phaseOneSync: return "the phase-1 sync"
        case .slotWrite: return "the slot write"
        case .phaseTwoSync: return "the phase-2 sync"
        case .publish: return "publish"
        }
    }

    static func draw(_ stream: inout ChoiceStream) -> CapturePoint {
        switch stream.draw(5) {
        case 0: return .pageWrite(index: stream.draw(12))
        case 1: return .phaseOneSync
        case 2: return .slotWrite
        case 3: return .phaseTwoSync
        default: return .publish
        }
    }

    func matches(_ point: YieldPoint, pageWritesSoFar: Int) -> Bool {
        switch (self, point) {
        case (.pageWrite(let index), .pageWrite): return index == pageWritesSoFar
        case (.pageWrite, .phaseOneSync): return true  // fewer pages than the index: all written
        case (.phaseOneSync, .phaseOneSync), (.slotWrite, .slotWrite), (.phaseTwoSync, .phaseTwoSync),
            (.publish, .publish):
            return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .pageWrite(let index): return "before page write \(index)"
        case .phaseOneSync: return "before phase-1 sync"
        case .slotWrite: return "before slot write"
        case .phaseTwoSync: return "before phase-2 sync"
        case .publish: return "before publish"
        }
    }
}

/// One crash image: a fate for each pending write and whether an unsynced size survives.
struct CrashImage: Hashable, Sendable, CustomStringConvertible {
    var plan: SimStore.CrashPlan

    var description: String {
        let fates = plan.fates.map { fate -> String in
            switch fate {
            case .lost: return "lost"
            case .applied: return "applied"
            case .tornSectors(let mask): return "torn(sectors \(String(mask, radix: 2)))"
            case .tornPrefix(let count): return "torn(prefix \(count) B)"
            case .garbled(let mask, _): return "garbled(sectors \(String(mask, radix: 2)))"
            case .misdirected(let offset): return "misdirected(to \(offset))"
            }
        }
        return "[\(fates.joined(separator: ", "))]\(plan.keepsUnsyncedSize ? "" : " size lost")"
    }
}

/// Builds crash images from a captured disk and checks every one: recovery must open, verify
/// clean, and hold exactly the old or (only when the slot survived) the new version
/// (Spec D2, D3, D4; Docs/architecture.md §5 "Crash windows").
struct CrashCampaign {
    let state: SimStore.State
    let point: CapturePoint
    let pageSizeBytes: Int
    let hooks: EngineHooks

    /// Every image for ≤ 10 pending writes (each subset, each page torn at every sector
    /// boundary, the slot torn and garbled), a biased sample of 64 beyond.
    func images(stream: inout ChoiceStream) -> [CrashImage] {
        let pending = state.pendingWrites
        let count = pending.count
        var images: [CrashImage] = []
        if count == 0 {
            return [CrashImage(plan: .allLost)]
        }
        let sectors = { (write: SimStore.PendingWrite) in max(1, write.byteCount / SimStore.sectorSizeBytes) }
        if count <= 10 {
            for subset in 0..<(1 << count) {
                let fates = (0..<count).map { subset & (1 << $0) != 0 ? SimStore.WriteFate.applied : .lost }
                images.append(CrashImage(plan: SimStore.CrashPlan(fates: fates)))
            }
            for (index, write) in pending.enumerated() {
                let sectorCount = sectors(write)
                var base = Array(repeating: SimStore.WriteFate.applied, count: count)
                if sectorCount > 1 {
                    for torn in 1..<min(sectorCount, 8) {
                        base[index] = .tornSectors(newSectorMask: (UInt64(1) << UInt64(torn)) - 1)
                        images.append(CrashImage(plan: SimStore.CrashPlan(fates: base)))
                    }
                }
                base[index] = .tornPrefix(byteCount: max(1, write.byteCount / 2 - 3))
                images.append(CrashImage(plan: SimStore.CrashPlan(fates: base)))
                base[index] = .garbled(garbageSectorMask: 1, seed: UInt64(index))
                images.append(CrashImage(plan: SimStore.CrashPlan(fates: base)))
            }
            images.append(
                CrashImage(
                    plan: SimStore.CrashPlan(
                        fates: Array(repeating: .applied, count: count),
                        keepsUnsyncedSize: false)))
        } else {
            for sample in 0..<64 {
                // Biased to almost none and almost all (bugs sit near persistence points).
                let percent = [3, 97, 50, 10, 90][sample % 5]
                let fates = (0..<count).map { _ in stream.draw(100) < percent ? SimStore.WriteFate.applied : .lost }
                images.append(CrashImage(plan: SimStore.CrashPlan(fates: fates, keepsUnsyncedSize: stream.chance(80))))
            }
        }
        return images
    }

    /// Whether the commit's slot reached the disk in `image` intact (so the new version is
    /// the one recovery must find).
    func slotSurvives(_ image: CrashImage) -> Bool {
        switch point {
        case .publish: return true
        case .pageWrite, .phaseOneSync, .slotWrite: return false
        case .phaseTwoSync:
            guard
                let index = state.pendingWrites.firstIndex(where: {
                    if case .slotWrite = $0.site { return true }
                    return false
                })
            else { return false }
            let fate = index < image.plan.fates.count ? image.plan.fates[index] : .lost
            switch fate {
            case .applied: return true
            case .tornSectors(let mask):
                return mask & 1 == 1 && state.pendingWrites[index].byteCount <= SimStore.sectorSizeBytes
            case .lost, .tornPrefix, .garbled, .misdirected: return false
            }
        }
    }

    /// The model's window for a crash at this point with `image`'s fates.
    func window(for image: CrashImage) -> CommitWindow {
        switch point {
        case .pageWrite, .phaseOneSync: return .duringPageWrites
        case .slotWrite: return .afterPhaseOneSync
        case .phaseTwoSync: return slotSurvives(image) ? .duringSlotWriteSlotWritten : .duringSlotWriteSlotLost
        case .publish: return .afterSlotSync
        }
    }

    /// The disk after the crash `image`.
    func disk(for image: CrashImage, name: String) throws(StorageError) -> SimStore {
        try SimStore(crashing: state, plan: image.plan, name: name, reservationBytes: 64 << 20)
    }

    /// Damage at rest on a recovered disk (Docs/architecture.md §5's sixth fault class): one flipped bit,
    /// one sector's bytes written at another sector, or (Spec D19) a lost write, where a
    /// region's older durable copy comes back, or an older copy of a page written at another
    /// page's address (`olderCopyOffsets`: the regions the disk has older copies of).
    static func drawDamage(_ stream: inout ChoiceStream, fileBytes: Int, olderCopyOffsets: [Int] = [])
        -> SimStore.DurableCorruption
    {
        let sectors = max(1, fileBytes / SimStore.sectorSizeBytes)
        if !olderCopyOffsets.isEmpty && stream.chance(40) {
            let source = olderCopyOffsets[stream.draw(olderCopyOffsets.count)]
            if stream.chance(75) { return .revertToOlderCopy(offset: source) }
            return .olderCopyMisdirected(
                sourceOffset: source, targetOffset: olderCopyOffsets[stream.draw(olderCopyOffsets.count)])
        }
        if stream.chance(60) {
            return .flipBit(byteOffset: stream.draw(max(1, fileBytes)), bit: stream.draw(8))
        }
        return .misdirectedWrite(
            intendedOffset: stream.draw(sectors) * SimStore.sectorSizeBytes,
            actualOffset: stream.draw(sectors) * SimStore.sectorSizeBytes,
            byteCount: SimStore.sectorSizeBytes)
    }

    /// Recovers `image` after `damage` to what reached the disk: the checks must catch it (the
    /// open or a read fails, and then `verify()` reports it too; or recovery falls back to an
    /// older slot when the damage hit the newest) or it hit nothing that matters (the contents
    /// are a version the crash could leave); damaged bytes must never come back as data from a
    /// read, whatever `verify()` would say (Spec D8, D19).
    func checkDamaged(
        _ image: CrashImage, damage: SimStore.DurableCorruption, name: String,
        oldVersion: StrataStorage.Version, oldDigest: UInt64, newDigest: UInt64
    ) -> String? {
        let disk: SimStore
        do {
            disk = try self.disk(for: image, name: name)
            disk.corruptDurableImage(damage)
            try disk.reboot()
        } catch {
            return "crash \(point) \(image): cannot build the damaged image: \(error)"
        }
        do {
            let store = try Store.open(
                .simulated(disk),
                options: StoreOptions(
                    create: false, pageSizeBytes: pageSizeBytes,
                    hooks: hooks))
            defer { store.close() }
            let version: StrataStorage.Version
            let digest: UInt64
            do {
                let read = try store.beginRead()
                defer { read.end() }
                version = read.version
                digest = try read.contentDigest()
            } catch {
                // Found by a read: `verify()` must find it as well.
                if (try? store.verify().problems.isEmpty) == true {
                    return "crash \(point) \(image) then \(damage): a read failed (\(error)) but verify() is clean"
                }
                return nil
            }
            // Two slots hold the two newest versions; damage to the newer one leaves the other.
            if version < oldVersion { return nil }
            if digest != oldDigest && digest != newDigest {
                return
                    "crash \(point) \(image) then \(damage): reads return contents that are neither version (damage returned as data)"
            }
            return nil
        } catch {
            return nil  // detected: the open or a read refused the damaged file
        }
    }

    /// Recovers `image` and checks it; nil when it holds, else what is wrong.
    func check(_ image: CrashImage, name: String, oldDigest: UInt64, newDigest: UInt64) -> String? {
        do {
            let disk = try disk(for: image, name: name)
            let store = try Store.open(
                .simulated(disk),
                options: StoreOptions(
                    create: false, pageSizeBytes: pageSizeBytes,
                    hooks: hooks))
            defer { store.close() }
            let report = try store.verify()
            if !report.problems.isEmpty {
                return
                    "verify after crash \(point) \(image): \(report.problems.map(\.description).joined(separator: "; "))"
            }
            let digest = try store.beginRead().contentDigest()
            let expected = slotSurvives(image) ? newDigest : oldDigest
            if digest != expected {
                let found =
                    digest == oldDigest
                    ? "the old version" : digest == newDigest ? "the new version" : "neither version"
                return
                    "crash \(point) \(image): recovered \(found), expected the \(expected == newDigest ? "new" : "old") one"
            }
            return nil
        } catch {
            return "crash \(point) \(image): recovery failed: \(error)"
        }
    }
}
