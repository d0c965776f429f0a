// swift-tools-version: 6.2
//
// Strata: Realm's threading model rebuilt in Swift, with a reference model and a harness that
// proves the engine against it. No package dependencies: the Swift toolchain only.
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode (strict concurrency), warnings are errors,
/// and `STRATA_CHECKS` (invariant checks, see Docs/style.md rule 8) in debug builds.
let strictSettings: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
    .define("STRATA_CHECKS", .when(configuration: .debug)),
]

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
        .library(name: "StrataModel", targets: ["StrataModel"]),
        .library(name: "StrataCheck", targets: ["StrataCheck"]),
        .executable(name: "strata-tool", targets: ["strata-tool"]),
        .executable(name: "strata-bench", targets: ["strata-bench"]),
        .executable(name: "strata-fuzz", targets: ["strata-fuzz"]),
    ],
    targets: [
        // Atomics on mapped memory, hardware CRC32C, OFD lock constants.
        .target(name: "CStrataSupport"),
        // The engine: pages, B+tree, versions, two-phase commit, free space, the PageStore seam.
        .target(
            name: "StrataStorage",
            dependencies: ["CStrataSupport"],
            swiftSettings: strictSettings
        ),
        // The simulated disk (SimStore: crash plans, write fates, durable-image damage) that the
        // harness and the tests open the engine on. Test-only: no product, and no production
        // target depends on it (LayeringTests checks they name none of its types).
        .target(
            name: "StrataSimulation",
            dependencies: ["StrataStorage"],
            swiftSettings: strictSettings
        ),
        // The Realm Swift API on the engine: Realm, Object / @Persisted, Results, List,
        // freeze / thaw, thread-safe references, confinement checks.
        .target(
            name: "Strata",
            dependencies: ["StrataStorage", "CStrataSupport"],
            swiftSettings: strictSettings
        ),
        // The reference model: a pure, deterministic state machine of versions, pins,
        // confinement, commits, notifications and async writes. Imports nothing of the engine.
        .target(name: "StrataModel", swiftSettings: strictSettings),
        // The harness: the model and the engine (through the Realm API) side by side under one
        // choice stream, with controlled threads, crash images, shrinking and reports.
        .target(
            name: "StrataCheck",
            dependencies: ["Strata", "StrataStorage", "StrataSimulation", "StrataModel", "CStrataSupport"],
            swiftSettings: strictSettings
        ),
        // Argument parsing and output helpers shared by the command-line tools.
        .target(name: "StrataCommandLine", swiftSettings: strictSettings),
        .executableTarget(
            name: "strata-tool",
            dependencies: ["StrataStorage", "StrataCommandLine"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "strata-bench",
            dependencies: ["StrataStorage", "StrataCommandLine", "CStrataSupport", "Strata"],
            swiftSettings: strictSettings
        ),
        // The harness's long-run driver: campaigns, replay, shrink (fuzz/, README's main job).
        .executableTarget(
            name: "strata-fuzz",
            dependencies: ["StrataCheck", "StrataCommandLine", "StrataStorage", "StrataSimulation"],
            path: "fuzz/strata-fuzz",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataStorageTests",
            // strata-tool is a dependency so that `swift test` builds it: the process tests
            // spawn it as the child writer.
            dependencies: ["StrataStorage", "StrataSimulation", "CStrataSupport", "StrataTestSupport", "strata-tool"],
            swiftSettings: strictSettings
        ),
        // What several test targets share: threads, run loops and results handed between them
        // for the multi-threaded tests, temporary directories, another user, the hang guard.
        .target(
            name: "StrataTestSupport", dependencies: ["CStrataSupport"], path: "Tests/StrataTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "StrataToolTests",
            // Runs the built strata-tool, strata-bench and strata-fuzz binaries as child processes.
            dependencies: ["StrataStorage", "StrataCheck", "StrataTestSupport", "strata-tool", "strata-bench",
                           "strata-fuzz"],
            swiftSettings: strictSettings
        ),
        // The format of the numbered rules in Spec/ (the traceability checks parse them).
        .testTarget(name: "SpecTests", swiftSettings: strictSettings),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataStorage", "StrataSimulation", "StrataModel", "StrataTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCheckTests",
            // Strata: the generated tests under Generated/ call the Realm API.
            dependencies: ["StrataCheck", "Strata", "StrataStorage", "StrataSimulation", "StrataModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataModelTests",
            // StrataStorage for its SplitMix64 only: the model itself imports nothing of the engine.
            dependencies: ["StrataModel", "StrataStorage"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrataCommandLineTests",
            dependencies: ["StrataCommandLine"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
