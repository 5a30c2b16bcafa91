import Foundation
@testable import EddyReplay

/// Paths of committed fixtures, found from this file's location (no bundle resources needed).
enum Fixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func flight(_ name: String) -> String { root.appendingPathComponent("Fixtures/flights/\(name)").path }
}

/// A temporary directory removed on release.
final class TempDirectory {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "eddy-replay-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A copy of a fixture flight inside this directory.
    func copy(fixture name: String) throws -> String {
        let target = path + "/" + name
        try FileManager.default.copyItem(atPath: Fixture.flight(name), toPath: target)
        return target
    }
}

/// Replays a flight and returns the summary plus its JSON Lines.
func replayJSON(_ directory: String, options: ReplayOptions = ReplayOptions()) throws -> (ReplaySummary, [String]) {
    let replay = try FlightReplay(directory: directory, options: options)
    var lines: [String] = []
    let summary = try replay.run { if let line = ReplayJSON.line(for: $0, viewer: replay.aircraftClass) { lines.append(line) } }
    lines.append(ReplayJSON.summaryLine(summary))
    return (summary, lines)
}

/// Replays shared by several tests (each fixture is replayed once per test run).
enum Shared {
    /// sim-medium-mixed: summary and JSON Lines.
    static let mediumMixed: Result<(ReplaySummary, [String]), any Error> = Result { try replayJSON(Fixture.flight("sim-medium-mixed")) }

    /// The shared sim-medium-mixed summary.
    static func mediumMixedSummary() throws -> ReplaySummary { try mediumMixed.get().0 }
}
