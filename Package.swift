// swift-tools-version: 6.1
// Eddy: open turbulence detection and aviation data sync engine.
// The target list follows the data flow in docs/architecture.md:
// EddyH3 → EddyCore (samples, log I/O, calibration, detection, tiles) → EddyStore → CLI / bench.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Eddy",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "EddyH3", targets: ["EddyH3"]),
        .library(name: "EddyCore", targets: ["EddyCore"]),
        .library(name: "EddySensorLog", targets: ["EddySensorLog"]),
        .library(name: "EddyReplay", targets: ["EddyReplay"]),
        .library(name: "EddyStore", targets: ["EddyStore"]),
        .executable(name: "eddy", targets: ["EddyCLI"]),
        .executable(name: "eddy-bench", targets: ["EddyBench"]),
        .executable(name: "eddy-store-crash-writer", targets: ["EddyStoreCrashWriter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .target(name: "EddyH3", swiftSettings: strictSettings),
        .target(name: "EddyCore", dependencies: ["EddyH3"], swiftSettings: strictSettings),
        .target(name: "EddySensorLog", dependencies: ["EddyCore"], swiftSettings: strictSettings),
        .target(name: "EddyReplay", dependencies: ["EddyCore", "EddySensorLog"], swiftSettings: strictSettings),
        .target(
            name: "EddyStore",
            dependencies: [
                "EddyCore", "EddyH3", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EddyCLI",
            dependencies: [
                "EddyCore", "EddyH3", "EddySensorLog", "EddyReplay", "EddyStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EddyBench",
            dependencies: ["EddyCore", "EddyH3", "EddySensorLog", "EddyReplay", "EddyStore"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "EddyStoreCrashWriter", dependencies: ["EddyCore", "EddyStore"], swiftSettings: strictSettings),
        .testTarget(name: "EddyH3Tests", dependencies: ["EddyH3"], swiftSettings: strictSettings),
        .testTarget(name: "EddyCoreTests", dependencies: ["EddyCore"], swiftSettings: strictSettings),
        .testTarget(name: "EddySensorLogTests", dependencies: ["EddySensorLog"], swiftSettings: strictSettings),
        .testTarget(name: "EddyReplayTests", dependencies: ["EddyReplay"], swiftSettings: strictSettings),
        .testTarget(name: "EddyStoreTests", dependencies: ["EddyStore"], swiftSettings: strictSettings),
    ]
)
