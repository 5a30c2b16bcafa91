// swift-tools-version: 6.1
// Eddy: open turbulence detection and aviation data sync engine.
// Targets follow the data flow drawn in docs/architecture.md: EddyVocabulary → EddyNavigation → EddyDetection,
// EddyAlerts → Eddy (EngineCore and its shell) over EddyStore → EddySync ⇄ EddyServerKit; EddySupport and EddyH3 are
// leaves; EddySensorLog, EddyImport, EddyReplay and EddySimulation feed the executables.
import PackageDescription

// Swift 6 with the upcoming features that make access and dependencies explicit: `any` for every existential, imports
// internal unless a file says `package import` / `public import`, and members visible only from modules a file imports.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Eddy",
    // Synchronization.Mutex (engine, sync, testing) needs macOS 15 / iOS 18.
    platforms: [.macOS(.v15), .iOS(.v18)],
    // Library products are what a host app or a researcher imports: `Eddy` (the engine; `import Eddy` re-exports the
    // modules whose public types its API uses: EddyVocabulary, EddyNavigation, EddyDetection, EddyAlerts, EddyH3,
    // EddyStore, EddySync with EddyTransport, EddyTerrain — Sources/Eddy/API/Exports.swift), `EddyTesting`, `EddyH3`,
    // `EddySensorLog`, `EddySimulation`. The other modules are Eddy's own glue (`package` access).
    products: [
        .library(name: "EddyH3", targets: ["EddyH3"]),
        .library(name: "EddySensorLog", targets: ["EddySensorLog"]),
        .executable(name: "eddy", targets: ["EddyCLI"]),
        .executable(name: "eddy-bench", targets: ["EddyBench"]),
        .executable(name: "eddy-store-crash-writer", targets: ["EddyStoreCrashWriter"]),
        .executable(name: "eddy-server", targets: ["EddyServer"]),
        .library(name: "Eddy", targets: ["Eddy"]),
        .library(name: "EddyAppleSensors", targets: ["EddyAppleSensors"]),
        .library(name: "EddyTesting", targets: ["EddyTesting"]),
        .library(name: "EddySimulation", targets: ["EddySimulation"]),
    ],
    // Transports (docs/sync.md, "Transports"). Trait `LibcurlTransport` (default on): `CurlTransport` over the system
    // libcurl, linked on Linux only; Apple platforms never link it. `URLSessionTransport` is always linked on Apple
    // platforms; on Linux only with trait `URLSessionOnLinux` (default off), so that a curl build does not load
    // FoundationNetworking. `swift build --disable-default-traits --traits URLSessionOnLinux` is the URLSession-only
    // Linux build. Tests link both, to run one conformance suite over each.
    // Trait `Tools` (default off; `make` turns it on with SWIFT_BUILD_FLAGS): the dependencies only the command line and
    // the server use are conditional on it, and SwiftPM then leaves them out of a host app's resolution (measured:
    // docs/engine.md "What a host app resolves"). The sources of those targets compile only with it (`#if Tools`).
    traits: [
        .trait(name: "LibcurlTransport", description: "CurlTransport over the system libcurl (Linux only)."),
        .trait(name: "URLSessionOnLinux", description: "URLSessionTransport (FoundationNetworking) in Linux builds too."),
        .trait(name: "Tools", description: """
            The command line (eddy), the reference server (eddy-server) and their dependencies (Hummingbird, \
            PostgresNIO, swift-crypto, Prometheus, ArgumentParser…). Off by default, so that an app depending on the \
            engine resolves only GRDB and swift-log; the Makefile turns it on.
            """),
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
        // Shared leaves: H3, and the package-only support module (clock, lock, JSON writer, numbers, text).
        .target(name: "EddyH3", swiftSettings: strictSettings),
        .testTarget(name: "EddyH3Tests", dependencies: ["EddyH3"], swiftSettings: strictSettings),
        // The one epoch clock (system, manual, sample-driven), the TSan-visible lock, the one JSON writer
        // (docs/json.md), FNV-1a, SplitMix64, saturating conversions, input excerpts: package-only plumbing.
        .target(name: "EddySupport", swiftSettings: strictSettings),
        .testTarget(name: "EddySupportTests", dependencies: ["EddySupport", "EddyVocabulary"], swiftSettings: strictSettings),

        // The vocabulary every other module speaks: samples, tiles and reports, severity, aircraft types, server data
        // kinds, units and Earth geometry. The server, the protocol and sync depend on it alone.
        .target(name: "EddyVocabulary", dependencies: ["EddyH3", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(name: "EddyVocabularyTests", dependencies: ["EddyVocabulary"], swiftSettings: strictSettings),

        // Navigation: where the aircraft is and at which pressure altitude — one position filter and one altitude
        // estimator (barometric and GNSS altitude, cabin, calibration, fleet offsets), location fusion, flight phase.
        .target(name: "EddyNavigation", dependencies: ["EddyVocabulary", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "EddyNavigationTests",
            dependencies: ["EddyNavigation", "EddyVocabulary", "EddyDetection", "EddySimulation", "EddySupport"],
            swiftSettings: strictSettings
        ),

        // Detection: mount calibration → load factor → band-pass → EDR per second and minute → tile reports, with the
        // aircraft's gust response and the stage gates (docs/detection.md).
        .target(name: "EddyDetection", dependencies: ["EddyVocabulary", "EddyNavigation", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "EddyDetectionTests",
            dependencies: ["EddyDetection", "EddyNavigation", "EddyVocabulary", "EddySimulation", "EddySupport"],
            swiftSettings: strictSettings
        ),

        // Alerts: alert geometry (beam, corridor, polygon), notify-on-change monitor, clusterer, along-track geometry.
        .target(name: "EddyAlerts", dependencies: ["EddyVocabulary", "EddyH3"], swiftSettings: strictSettings),
        .testTarget(name: "EddyAlertsTests", dependencies: ["EddyAlerts", "EddyVocabulary", "EddyH3"], swiftSettings: strictSettings),

        // Apple sensor glue's logic, cross-platform and tested here: CoreMotion's boot clock → Unix seconds, CLLocation's
        // "invalid" markers → unknown, kPa → hPa, the rates to ask for (docs/apple-sensors.md).
        // Its Glue/ (CoreMotion, CMAltimeter, CoreLocation, and the Keychain's `KeychainCredentialStore`) compiles only
        // where those frameworks exist; on Linux the
        // test-only EddyAppleSensorsOnStubs links the same folder (a symlink) against AppleSensorStubs, stand-ins for
        // exactly the Apple API the glue uses, and the tests drive them.
        .target(name: "EddyAppleSensors", dependencies: ["Eddy", "EddyVocabulary", "EddySupport"], swiftSettings: strictSettings),
        .target(name: "AppleSensorStubs", path: "Tests/AppleSensorStubs", swiftSettings: strictSettings),
        .target(
            name: "EddyAppleSensorsOnStubs",
            dependencies: ["AppleSensorStubs", "EddyAppleSensors", "Eddy", "EddyVocabulary", "EddySupport"],
            path: "Tests/EddyAppleSensorsOnStubs",
            swiftSettings: strictSettings + [.define("EDDY_APPLE_SENSOR_STUBS")]
        ),
        .testTarget(
            name: "EddyAppleSensorsTests",
            dependencies: ["EddyAppleSensors", "EddyAppleSensorsOnStubs", "AppleSensorStubs", "EddyVocabulary", "Eddy", "EddyTesting"],
            swiftSettings: strictSettings
        ),

        // Pictures: a flight's or the fleet's map as one self-contained HTML page (pure; docs/maps.md).
        .target(name: "EddyMap", dependencies: ["EddyVocabulary", "EddyH3", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(name: "EddyMapTests", dependencies: ["EddyMap", "EddyVocabulary", "EddyH3"], swiftSettings: strictSettings),
        .target(name: "EddySensorLog", dependencies: ["EddyVocabulary", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(name: "EddySensorLogTests", dependencies: ["EddySensorLog", "EddyVocabulary"], swiftSettings: strictSettings),
        // Importers for other apps' sensor exports (docs/import.md); zlib inflates zipped exports.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "EddyImport", dependencies: ["EddySensorLog", "EddyVocabulary", "EddySupport", "CZlib"], swiftSettings: strictSettings),
        .testTarget(name: "EddyImportTests", dependencies: ["EddyImport", "EddySensorLog", "EddyVocabulary"], swiftSettings: strictSettings),
        // The flight simulator, out of the pure modules that host apps ship (docs/detection.md §7).
        .target(name: "EddySimulation", dependencies: ["EddyVocabulary", "EddyDetection", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "EddySimulationTests",
            dependencies: ["EddySimulation", "EddyVocabulary", "EddyDetection", "EddyNavigation", "EddyReplay"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "EddyReplay",
            dependencies: ["EddyDetection", "EddyNavigation", "EddyVocabulary", "EddySensorLog", "EddySupport", "EddySimulation"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyReplayTests",
            dependencies: ["EddyReplay", "EddyDetection", "EddyNavigation", "EddyVocabulary", "EddySimulation"],
            swiftSettings: strictSettings
        ),
        // Earth models: the EGM96 geoid (pure, table compiled in) and SRTM terrain (.hgt tiles read at the edge): docs/terrain-and-geoid.md.
        .target(name: "EddyGeoid", swiftSettings: strictSettings),
        .testTarget(name: "EddyGeoidTests", dependencies: ["EddyGeoid"], swiftSettings: strictSettings),
        .target(name: "EddyTerrain", dependencies: ["EddySupport"], swiftSettings: strictSettings),
        .testTarget(name: "EddyTerrainTests", dependencies: ["EddyTerrain"], swiftSettings: strictSettings),

        // The engine's offline-first cache: SQLite via GRDB (docs/store.md).
        .target(
            name: "EddyStore",
            dependencies: [
                "EddyVocabulary", "EddyH3", "EddySupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "EddyStoreTests", dependencies: ["EddyStore", "EddyVocabulary", "EddyH3", "EddyTesting"], swiftSettings: strictSettings),
        .executableTarget(name: "EddyStoreCrashWriter", dependencies: ["EddyVocabulary", "EddyStore"], swiftSettings: strictSettings),

        // Sync: the wire protocol and its HTTP transports (libcurl on Linux, URLSession everywhere; docs/sync.md).
        // libcurl's headers only: CCurlShim loads libcurl.so.4 with dlopen when the first CurlTransport is made, so
        // processes that never sync do not map libcurl and its dependencies (docs/sync.md, "Transports"). The headers
        // are on the compiler's default (multiarch) include path on Debian.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "EddyProtocol", dependencies: ["EddyVocabulary", "EddySupport"], swiftSettings: strictSettings),
        // The transport interface (HTTPTransport, its configuration and errors, the factory), and URLSession's transport.
        .target(name: "EddyTransport", dependencies: ["EddyVocabulary"], swiftSettings: strictSettings),
        .target(name: "EddyURLSession", dependencies: ["EddyTransport", "EddySupport"], swiftSettings: strictSettings),
        .target(
            name: "EddySync",
            dependencies: [
                "EddyVocabulary", "EddyH3", "EddyProtocol", "EddyStore", "EddySupport", "EddyTransport",
                .target(name: "CCurlShim", condition: .when(platforms: [.linux], traits: ["LibcurlTransport"])),
                .target(name: "EddyURLSession", condition: .when(platforms: [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS])),
                .target(name: "EddyURLSession", condition: .when(platforms: [.linux], traits: ["URLSessionOnLinux"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddySyncTests",
            dependencies: [
                "EddySync", "EddyURLSession", "EddyTransport", "EddyProtocol", "EddyVocabulary", "EddyH3", "EddyStore",
                "EddyTesting", "EddySupport", "EddySimulation",
            ],
            swiftSettings: strictSettings
        ),

        // ecCodes (ECMWF's GRIB library; Debian libeccodes-dev) reads the GRIB2 turbulence forecasts eddy-server ingests
        // (GTG, WAFS; docs/nowcast.md "Forecast grids"). Only EddyServerKit depends on it, and only with trait Tools: a host
        // app, `make run` and a build without the trait neither link nor need it. No pkgConfig: Debian's eccodes.pc adds an
        // `-Wl,-rpath` that SwiftPM refuses with a warning on every build, and the header and library are on the default
        // paths (as for CCurl).
        .systemLibrary(name: "CEcCodes", path: "Sources/CEcCodes", providers: [.apt(["libeccodes-dev"])]),
        // The reference server: the library (routes, middleware, service, database) and the thin `eddy-server` executable.
        .target(
            name: "EddyServerKit",
            dependencies: [
                "EddyVocabulary", "EddyH3", "EddyProtocol", "EddySupport", "EddyMap",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio", condition: .when(traits: ["Tools"])),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Tools"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Tools"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Tools"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Tools"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Tools"])),
                .target(name: "CEcCodes", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EddyServer",
            dependencies: [
                "EddyServerKit", "EddyProtocol", "EddySupport",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyServerTests",
            dependencies: [
                "EddyServerKit", "EddyProtocol", "EddyVocabulary", "EddyH3", "EddySupport", "EddyTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // The engine (docs/engine.md): a pure core (Core/), its shell (Shell/: effects, sync loop, callbacks, logs) and
        // the public API (API/) that host apps import.
        .target(
            name: "Eddy",
            dependencies: [
                "EddyVocabulary", "EddyNavigation", "EddyDetection", "EddyAlerts", "EddyH3", "EddyProtocol", "EddyStore",
                "EddySync", "EddySupport", "EddyGeoid", "EddyTerrain",
                // The flight simulator drives the demo mode (EddyEngine.startDemo).
                "EddySimulation",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyTests",
            dependencies: [
                "Eddy", "EddyURLSession", "EddyTesting", "EddyVocabulary", "EddyNavigation", "EddyDetection", "EddyAlerts",
                "EddyH3", "EddyProtocol", "EddyStore", "EddySync", "EddyTransport", "EddySupport", "EddySimulation",
            ],
            swiftSettings: strictSettings
        ),
        // A host app's path through Eddy (issue 13's acceptance walk): imports only `Eddy` and `EddyTesting`.
        .testTarget(
            name: "EddyHostAppTests",
            dependencies: ["Eddy", "EddyTesting", "EddyAppleSensors", "EddyAppleSensorsOnStubs", "AppleSensorStubs", "EddySensorLog"],
            swiftSettings: strictSettings
        ),
        // A Swift 6 app's model (issue 27 deliverable 3): a @MainActor @Observable class adopts EddyMainActorDelegate
        // without @preconcurrency, and a model that reads the engine's AsyncSequence of events.
        .testTarget(name: "EddyAppModelTests", dependencies: ["Eddy", "EddyTesting"], swiftSettings: strictSettings),
        // The DocC getting-started article's code (Sources/Eddy/Eddy.docc), compiled and run.
        .testTarget(name: "EddyDocSnippetTests", dependencies: ["Eddy"], swiftSettings: strictSettings),
        // Helpers for host apps' own tests: LocalEddyServer, SyntheticFlight, SyntheticRoute, CallbackRecorder.
        .target(
            name: "EddyTesting",
            dependencies: ["Eddy", "EddyVocabulary", "EddyNavigation", "EddyH3", "EddyProtocol", "EddySync", "EddySimulation", "EddySupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EddyTestingTests",
            dependencies: ["EddyTesting", "Eddy", "EddyVocabulary", "EddySync", "EddySupport", "EddySimulation"],
            swiftSettings: strictSettings
        ),

        // Tools: the command line, its text parsers, the benchmarks.
        .executableTarget(
            name: "EddyCLI",
            dependencies: [
                "Eddy", "EddyVocabulary", "EddyNavigation", "EddyDetection", "EddyAlerts", "EddyH3", "EddySensorLog",
                "EddyReplay", "EddyStore", "EddySync", "EddySupport", "EddySimulation", "EddyGeoid", "EddyTerrain",
                "EddyImport", "EddyMap", "EddyCLIParsing",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "EddyCLITests", dependencies: ["EddyReplay", "EddyTesting", "EddySupport"], swiftSettings: strictSettings),
        // The command line's text parsers (coordinates, cells, routes, polygons, tiles): a library so fuzz targets link them.
        .target(name: "EddyCLIParsing", dependencies: ["EddyVocabulary", "EddyH3", "EddySupport"], swiftSettings: strictSettings),
        .testTarget(name: "EddyCLIParsingTests", dependencies: ["EddyCLIParsing", "EddyVocabulary", "EddyH3"], swiftSettings: strictSettings),
        .executableTarget(
            name: "EddyBench",
            dependencies: [
                "Eddy", "EddyVocabulary", "EddyNavigation", "EddyDetection", "EddySensorLog", "EddyReplay", "EddyStore",
                "EddyProtocol", "EddySync", "EddySupport", "EddySimulation", "EddyTerrain", "EddyImport", "EddyMap", "EddyH3",
            ],
            swiftSettings: strictSettings
        ),
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
        dependencies: [
            "EddyVocabulary", "EddyH3", "EddySensorLog", "EddyImport", "EddyProtocol", "EddyTerrain", "EddyCLIParsing", "EddySupport",
        ],
        path: "Fuzz/Sources/EddyFuzz",
        swiftSettings: strictSettings
    ))
}
