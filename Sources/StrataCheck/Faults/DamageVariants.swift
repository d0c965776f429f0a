import Foundation
import StrataStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The kinds of damage `strata-fuzz damage` makes (Spec D8, X31).
public enum DamageClass: String, CaseIterable, Sendable {
    /// 1 to 8 bits flipped anywhere in the file.
    case bitFlip = "bit-flip"
    /// A run of 1 to 512 bytes overwritten with zeros, ones or noise.
    case byteRun = "byte-run"
    /// The file cut short (at a page boundary or anywhere).
    case truncation
    /// Bytes (zeros or noise) appended.
    case fileExtension = "extension"
    /// Two pages exchanged.
    case swappedPages = "swapped-pages"
    /// One page copied over another.
    case duplicatedPage = "duplicated-page"
    /// A page replaced by its image from an earlier version of the same file (a lost write);
    /// needs the older images a generated original keeps.
    case stalePage = "stale-page"
    /// A commit slot's sector damaged (bits, zeros, a cut).
    case slot
    /// The file header's sector damaged.
    case header
    /// Not a database at all: a FIFO, a directory, a symlink loop, an empty file, a link to
    /// /dev/zero, a file of zeros.
    case special

    /// `--classes` names: the raw values.
    public static func parse(_ text: String) -> [DamageClass]? {
        var classes: [DamageClass] = []
        for name in text.split(separator: ",") {
            guard let kind = DamageClass(rawValue: String(name)) else { return nil }
            classes.append(kind)
        }
        return classes.isEmpty ? nil : classes
    }
}

/// One damaged variant: its class, a one-line description, and how to make it.
public struct DamageVariant: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        case fifo
        case directory
        case symlinkLoop
        case linkToDevZero
    }

    public let index: Int
    public let kind: DamageClass
    public let detail: String
    public let content: Content

    /// Writes the variant at `path` (removing what was there, with its lock and note files).
    public func materialize(at path: String) throws {
        Self.remove(path)
        switch content {
        case .bytes(let bytes):
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw DamageCampaignError("cannot write \(path)")
            }
        case .fifo:
            guard mkfifo(path, 0o644) == 0 else { throw DamageCampaignError("mkfifo \(path): errno \(errno)") }
        case .directory:
            guard mkdir(path, 0o755) == 0 else { throw DamageCampaignError("mkdir \(path): errno \(errno)") }
        case .symlinkLoop:
            let other = path + ".loop"
            unlink(other)
            guard symlink(other, path) == 0, symlink(path, other) == 0 else {
                throw DamageCampaignError("symlink \(path): errno \(errno)")
            }
        case .linkToDevZero:
            guard symlink("/dev/zero", path) == 0 else { throw DamageCampaignError("symlink \(path): errno \(errno)") }
        }
    }

    /// Removes a variant and everything the engine made beside it.
    public static func remove(_ path: String) {
        for name in [path, path + ".lock", path + ".note", path + ".loop"] {
            var info = stat()
            if lstat(name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                rmdir(name)
            } else {
                unlink(name)
            }
        }
    }
}

public struct DamageCampaignError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Makes variant `index` of a campaign from the original's bytes, deterministically from the
/// seed and the index (so a variant is reproduced from `--seed S --first I --variants 1`).
public struct DamageGenerator: Sendable {
    public let original: [UInt8]
    /// Images of the same file after earlier commits (oldest first), for stale pages.
    public let olderImages: [[UInt8]]
    public let pageSizeBytes: Int
    public let seed: UInt64
    public let classes: [DamageClass]
    /// Pages the newest version uses: most damage lands there (the rest of a file is growth
    /// slack, where damage is harmless by construction).
    public let usedPageCount: Int

    /// The file layout's fixed sectors (Docs/file-format.md "Page 0"): the header at 0, the
    /// two commit slots at 512 and 1024, each 512 bytes.
    static let headerRange = 0..<512
    static let slotRanges = [512..<1024, 1024..<1536]

    public init(
        original: [UInt8], olderImages: [[UInt8]], pageSizeBytes: Int, seed: UInt64, classes: [DamageClass],
        usedPageCount: Int = 0
    ) {
        self.original = original
        self.usedPageCount = min(max(usedPageCount, 1), original.count / pageSizeBytes)
        self.olderImages = olderImages
        self.pageSizeBytes = pageSizeBytes
        self.seed = seed
        self.classes = classes.filter { $0 != .stalePage || !olderImages.isEmpty }
    }

    var pageCount: Int { original.count / pageSizeBytes }

    /// A byte offset: in the used pages nine times in ten, else anywhere.
    func offset(_ random: inout DamageRandom) -> Int {
        random.below(10) < 9 ? random.below(usedPageCount * pageSizeBytes) : random.below(original.count)
    }

    /// A page: a used one nine times in ten, else any.
    func page(_ random: inout DamageRandom) -> Int {
        random.below(10) < 9 ? random.below(usedPageCount) : random.below(pageCount)
    }

    public func variant(_ index: Int) -> DamageVariant {
        var random = DamageRandom(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15))
        let kind = classes[index % max(1, classes.count)]
        var bytes = original
        var detail = ""
        switch kind {
        case .bitFlip:
            let count = 1 + random.below(8)
            var offsets: [Int] = []
            for _ in 0..<count {
                let offset = self.offset(&random)
                bytes[offset] ^= UInt8(1 << random.below(8))
                offsets.append(offset)
            }
            detail = "bits flipped at " + offsets.map(String.init).joined(separator: ",")
        case .byteRun:
            let length = 1 + random.below(512)
            let start = offset(&random)
            let end = min(bytes.count, start + length)
            let fill = random.below(3)
            for offset in start..<end {
                bytes[offset] = fill == 0 ? 0 : fill == 1 ? 0xFF : UInt8(truncatingIfNeeded: random.next())
            }
            detail = "\(end - start) bytes at \(start) set to \(["zeros", "ones", "noise"][fill])"
        case .truncation:
            let length = random.below(2) == 0 ? random.below(usedPageCount) * pageSizeBytes : offset(&random)
            bytes.removeSubrange(length...)
            detail = "truncated to \(length) bytes"
        case .fileExtension:
            let length = 1 + random.below(3 * pageSizeBytes)
            let noise = random.below(2) == 0
            bytes += (0..<length).map { _ in noise ? UInt8(truncatingIfNeeded: random.next()) : 0 }
            detail = "\(length) \(noise ? "noise" : "zero") bytes appended"
        case .swappedPages:
            let a = page(&random)
            var b = page(&random)
            if a == b { b = (b + 1) % pageCount }
            for offset in 0..<pageSizeBytes {
                bytes.swapAt(a * pageSizeBytes + offset, b * pageSizeBytes + offset)
            }
            detail = "pages \(a) and \(b) swapped"
        case .duplicatedPage:
            let from = page(&random)
            var to = page(&random)
            if from == to { to = (to + 1) % pageCount }
            bytes.replaceSubrange(
                to * pageSizeBytes..<(to + 1) * pageSizeBytes,
                with: original[from * pageSizeBytes..<(from + 1) * pageSizeBytes])
            detail = "page \(from) copied over page \(to)"
        case .stalePage:
            detail = staleDamage(&bytes, random: &random)
        case .slot:
            let slot = random.below(2)
            let range = Self.slotRanges[slot]
            let how = random.below(3)
            switch how {
            case 0:
                for _ in 0..<(1 + random.below(4)) {
                    bytes[range.lowerBound + random.below(range.count)] ^= UInt8(1 << random.below(8))
                }
            case 1:
                for offset in range { bytes[offset] = 0 }
            default:
                let cut = random.below(range.count)
                for offset in (range.lowerBound + cut)..<range.upperBound { bytes[offset] = 0 }
            }
            detail = "slot \(slot) \(["bits flipped", "zeroed", "torn"][how])"
        case .header:
            let range = Self.headerRange
            let how = random.below(2)
            if how == 0 {
                for _ in 0..<(1 + random.below(4)) { bytes[random.below(range.count)] ^= UInt8(1 << random.below(8)) }
            } else {
                let start = random.below(range.count)
                for offset in start..<min(range.upperBound, start + 1 + random.below(64)) { bytes[offset] = 0 }
            }
            detail = "header \(how == 0 ? "bits flipped" : "bytes zeroed")"
        case .special:
            let which = random.below(6)
            let names = ["FIFO", "directory", "symlink loop", "empty file", "link to /dev/zero", "file of zeros"]
            let content: DamageVariant.Content
            switch which {
            case 0: content = .fifo
            case 1: content = .directory
            case 2: content = .symlinkLoop
            case 3: content = .bytes([])
            case 4: content = .linkToDevZero
            default: content = .bytes([UInt8](repeating: 0, count: pageSizeBytes * (1 + random.below(4))))
            }
            return DamageVariant(index: index, kind: kind, detail: names[which], content: content)
        }
        return DamageVariant(index: index, kind: kind, detail: detail, content: .bytes(bytes))
    }

    /// Replaces a page by an older image of itself that differs from the current one.
    private func staleDamage(_ bytes: inout [UInt8], random: inout DamageRandom) -> String {
        for _ in 0..<64 {
            let image = random.below(olderImages.count)
            let older = olderImages[image]
            let page = 1 + random.below(max(1, usedPageCount - 1))
            let range = page * pageSizeBytes..<(page + 1) * pageSizeBytes
            guard range.upperBound <= older.count, older[range] != original[range] else { continue }
            bytes.replaceSubrange(range, with: older[range])
            return "page \(page) reverted to its image after commit \(image + 1) of \(olderImages.count + 1)"
        }
        return "no page differs from an older image (unchanged)"
    }
}

/// The campaign's only source of randomness: the engine's SplitMix64, drawing bounds by modulo
/// (a bound of 0 or 1 draws 0), so variant I of seed S stays the same variant.
struct DamageRandom {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { generator.next() }
    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
}
