// swift-tools-version: 6.1
// Eddy: open turbulence detection and aviation data sync engine.
// Targets follow the data flow drawn in docs/architecture.md: EddyH3 → EddyCore (pure) → Eddy (EngineCore and its
// shell) over EddyStore → EddySync ⇄ EddyServerKit; EddySensorLog, EddyReplay and EddySimulation feed the executables.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Eddy",
    // Synchronization.Mutex (engine, sync, testing) needs macOS 15 / iOS 18.
    platforms: [.macOS(.v15), .iOS(.v18)],
    // Library products are what a host app or a researcher imports: `Eddy` (the engine; `import Eddy` re-exports
    // EddyCore, EddyH3, EddyStore and EddySync, whose public types its API uses), `EddyTesting`, `EddyH3`,
    // `EddySensorLog`, `EddySimulation`. The other modules are reached through `import Eddy` or are Eddy's own glue.
    products: [
        .library(name: "EddyH3", targets: ["EddyH3"]),
        .library(name: "EddySensorLog", targets: ["EddySensorLog"]),
        .executable(name: "eddy", targets: ["EddyCLI"]),
        .executable(name: "eddy-bench", targets: ["EddyBench"]),
        .executable(name: "eddy-store-crash-writer", targets: ["EddyStoreCrashWriter"]),
        .executable(name: "eddy-server", targets: ["EddyServer"]),
        .library(name: "Eddy", targets: ["Eddy"]),
        .library(name: "EddyTesting", targets: ["EddyTesting"]),
        .library(name: "EddySimulation", targets: ["EddySimulation"]),
    ],
    // Transports (docs/sync.md, "Transports"). Trait `LibcurlTransport` (default on): `CurlTransport` over the system
    // libcurl, linked on Linux only; Apple platforms never link it. `URLSessionTransport` is always linked on Apple
    // platforms; on Linux only with trait `URLSessionOnLinux` (default off), so that a curl build does not load
    // FoundationNetworking. `swift build --disable-default-traits --traits URLSessionOnLinux` is the URLSession-only
    // Linux build. Tests link both, to run one conformance suite over each.
    traits: [
        .trait(name: "LibcurlTransport", description: "CurlTransport over the system libcurl (Linux only)."),
        .trait(name: "URLSessionOnLinux", description: "URLSessionTransport (FoundationNetworking) in Linux builds too."),
        .default(enabledTraits: ["LibcurlTransport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The server's operational metrics: swift-metrics' API with a per-application Prometheus registry (docs/fleet-server.md).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The server's PostgreSQL backend (--database postgres://…; docs/fleet-server.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // SHA-256 of the server's API keys, stored hashed (docs/fleet-server.md "Keys"); postgres-nio uses it already.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // `swift package generate-documentation --target Eddy` (the DocC catalog Sources/Eddy/Eddy.docc); a command plugin,
        // linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "EddyH3", swiftSettings: strictSettings),
        .target(name: "EddyCore", dependencies: ["EddyH3"], swiftSettings: strictSettings),
        // Pictures: a flight's or the fleet's map as one self-contained HTML page (pure; docs/maps.md).
        .target(name: "EddyMap", dependencies: ["EddyCore", "EddyH3", "EddyJSON"], swiftSettings: strictSettings),
        .testTarget(name: "EddyMapTests", dependencies: ["EddyMap", "EddyCore", "EddyH3"], swiftSettings: strictSettings),
        .target(name: "EddySensorLog", dependencies: ["EddyCore"], swiftSettings: strictSettings),
        // Importers for other apps' sensor exports (docs/import.md); zlib inflates zipped exports.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "EddyImport", dependencies: ["EddySensorLog", "CZlib"], swiftSettings: strictSettings),
        .testTarget(name: "EddyImportTests", dependencies: ["EddyImport", "EddySensorLog", "EddyCore"], swiftSettings: strictSettings),
        .target(name: "EddyReplay", dependencies: ["EddyCore", "EddySensorLog", "EddyJSON", "EddySimulation"], swiftSettings: strictSettings),
        .target(
            name: "EddyStore",
            dependencies: [
                "EddyCore", "EddyH3", "EddyJSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EddyCLI",
            dependencies: [
                "Eddy", "EddyCore", "EddyH3", "EddySensorLog", "EddyReplay", "EddyStore", "EddySync", "EddyJSON", "EddySimulation",
                "EddyGeoid", "EddyTerrain", "EddyImport", "EddyMap", "EddyCLIParsing", "EddyClock",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The command line's text parsers (coordinates, cells, routes, polygons, tiles): a library so fuzz targets link them.
        .target(name: "EddyCLIParsing", dependencies: ["EddyCore", "EddyH3"], swiftSettings: strictSettings),
        .testTarget(name: "EddyCLIParsingTests", dependencies: ["EddyCLIParsing", "EddyCore", "EddyH3"], swiftSettings: strictSettings),
        .executableTarget(
            name: "EddyBench",
            dependencies: ["Eddy", "EddyCore", "EddySensorLog", "EddyReplay", "EddyStore", "EddyProtocol", "EddySync", "EddyClock", "EddySimulation",
                           "EddyTerrain", "EddyImport", "EddyMap", "EddyH3"],
            swiftSettings: strictSettings
        ),
        // Sync: the wire protocol and its HTTP transports (libcurl on Linux, URLSession everywhere; docs/sync.md).
        // libcurl's headers only: CCurlShim loads libcurl.so.4 with dlopen when the first CurlTransport is made, so
        // processes that never sync do not map libcurl and its dependencies (docs/sync.md, "Transports"). The headers
        // are on the compiler's default (multiarch) include path on Debian.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "EddyProtocol", dependencies: ["EddyCore", "EddyJSON"], swiftSettings: strictSettings),
        // The transport interface (HTTPTransport, its configuration and errors, the factory), and URLSession's transport.
        .target(name: "EddyTransport", swiftSettings: strictSettings),
        .target(name: "EddyURLSession", dependencies: ["EddyTransport", "EddyClock"], swiftSettings: strictSettings),
        .target(
            name: "EddySync",
            dependencies: [
                "EddyCore", "EddyH3", "EddyProtocol", "EddyStore", "EddyClock", "EddyTransport",
                .target(name: "CCurlShim", condition: .when(platforms: [.linux], traits: ["LibcurlTransport"])),
                .target(name: "EddyURLSession", condition: .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS])),
                .target(name: "EddyURLSession", condition: .when(platforms: [.linux], traits: ["URLSessionOnLinux"])),
            ],
            swiftSettings: strictSettings
        ),
        // The reference server: the library (routes, middleware, service, database) and the thin `eddy-server` executable.
        .target(
            name: "EddyServerKit",
            dependencies: [
                "EddyCore", "EddyH3", "EddyProtocol", "EddyClock", "EddyJSON", "EddyMap",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EddyServer",
            dependencies: [
                "EddyServerKit", "EddyProtocol", "EddyClock",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddySyncTests",
            dependencies: ["EddySync", "EddyURLSession", "EddyProtocol", "EddyCore", "EddyStore", "EddyTesting", "EddyClock", "EddySimulation"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyServerTests",
            dependencies: [
                "EddyServerKit", "EddyProtocol", "EddyCore", "EddyH3", "EddyClock",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The engine and helpers for host apps' own tests.
        .target(
            name: "Eddy",
            dependencies: [
                "EddyCore", "EddyH3", "EddyProtocol", "EddyStore", "EddySync", "EddyClock", "EddyGeoid", "EddyTerrain",
                // The flight simulator drives the demo mode (EddyEngine.startDemo).
                "EddySimulation",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EddyTesting",
            dependencies: ["Eddy", "EddyCore", "EddyH3", "EddyProtocol", "EddySync", "EddySimulation", "EddyClock"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyTests",
            dependencies: ["Eddy", "EddyURLSession", "EddyTesting", "EddyCore", "EddyProtocol", "EddyStore", "EddySync", "EddyClock", "EddySimulation"],
            swiftSettings: strictSettings
        ),
        // A host app's path through Eddy (issue 13's acceptance walk): imports only `Eddy` and `EddyTesting`.
        .testTarget(name: "EddyHostAppTests", dependencies: ["Eddy", "EddyTesting"], swiftSettings: strictSettings),
        // The DocC getting-started article's code (Sources/Eddy/Eddy.docc), compiled and run.
        .testTarget(name: "EddyDocSnippetTests", dependencies: ["Eddy"], swiftSettings: strictSettings),
        .testTarget(
            name: "EddyTestingTests",
            dependencies: ["EddyTesting", "Eddy", "EddyCore", "EddySync", "EddyClock", "EddySimulation"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "EddyStoreCrashWriter", dependencies: ["EddyCore", "EddyStore"], swiftSettings: strictSettings),
        .testTarget(name: "EddyH3Tests", dependencies: ["EddyH3"], swiftSettings: strictSettings),
        .testTarget(name: "EddyCoreTests", dependencies: ["EddyCore", "EddySimulation"], swiftSettings: strictSettings),
        .testTarget(name: "EddySensorLogTests", dependencies: ["EddySensorLog"], swiftSettings: strictSettings),
        .testTarget(name: "EddyReplayTests", dependencies: ["EddyReplay", "EddySimulation"], swiftSettings: strictSettings),
        .testTarget(name: "EddyStoreTests", dependencies: ["EddyStore", "EddyTesting"], swiftSettings: strictSettings),
        // End-to-end checks of the `eddy` executable (run as a subprocess, next to an `eddy-server`).
        .testTarget(name: "EddyCLITests", dependencies: ["EddyReplay", "EddyTesting"], swiftSettings: strictSettings),
        // The one epoch clock (system, manual, sample-driven) every module that reads time depends on.
        .target(name: "EddyClock", swiftSettings: strictSettings),
        .testTarget(name: "EddyClockTests", dependencies: ["EddyClock"], swiftSettings: strictSettings),
        // One JSON writer (number policy, string escaper) for every hand-written JSON output: docs/json.md.
        .target(name: "EddyJSON", swiftSettings: strictSettings),
        .testTarget(name: "EddyJSONTests", dependencies: ["EddyJSON"], swiftSettings: strictSettings),
        // The flight simulator, out of the pure core that host apps ship (docs/detection.md §7).
        .target(name: "EddySimulation", dependencies: ["EddyCore"], swiftSettings: strictSettings),
        .testTarget(name: "EddySimulationTests", dependencies: ["EddySimulation", "EddyCore", "EddyReplay"], swiftSettings: strictSettings),
        // Earth models: the EGM96 geoid (pure, table compiled in) and SRTM terrain (.hgt tiles read at the edge): docs/terrain-and-geoid.md.
        .target(name: "EddyGeoid", swiftSettings: strictSettings),
        .testTarget(name: "EddyGeoidTests", dependencies: ["EddyGeoid"], swiftSettings: strictSettings),
        .target(name: "EddyTerrain", dependencies: ["EddyClock"], swiftSettings: strictSettings),
        .testTarget(name: "EddyTerrainTests", dependencies: ["EddyTerrain"], swiftSettings: strictSettings),
    ]
)

// libFuzzer targets (docs/reliability.md, "Fuzzing"), only when EDDY_FUZZ=1, so that the normal build and `make test` never
// see them: `EDDY_FUZZ=1 swift build -c release --scratch-path .build-fuzz --product eddy-fuzz -Xswiftc -sanitize=fuzzer,address
// -Xswiftc -parse-as-library` (what `make fuzz` runs). They live in this package, not in a separate one, because the decoders
// they exercise are `package` API, invisible from another package. One executable holds every target (EDDY_FUZZ_TARGET picks
// one): one instrumented link instead of eight on this 2-core machine.
if Context.environment["EDDY_FUZZ"] == "1" {
    package.products.append(.executable(name: "eddy-fuzz", targets: ["EddyFuzz"]))
    package.targets.append(.executableTarget(
        name: "EddyFuzz",
        dependencies: ["EddyCore", "EddyH3", "EddySensorLog", "EddyImport", "EddyProtocol", "EddyTerrain", "EddyCLIParsing"],
        path: "Fuzz/Sources/EddyFuzz",
        swiftSettings: strictSettings
    ))
}
