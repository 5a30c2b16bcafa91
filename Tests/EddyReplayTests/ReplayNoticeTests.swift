import EddyDetection
import EddySupport
import EddyVocabulary
import Foundation
import Testing
@testable import EddyReplay

/// Copies a fixture flight, rewriting its CSV files line by line: `transform(file, columns, cells)` returns the new
/// cells of a data row, or nil to drop it. Also rewrites meta.json with `meta` when given.
func transformedFlight(
    _ fixture: String, in temp: TempDirectory, name: String,
    meta: ((inout [String: Any]) -> Void)? = nil,
    _ transform: (String, [String], [String]) -> [String]?
) throws -> String {
    let target = temp.path + "/" + name
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    let source = Fixture.flight(fixture)
    for file in try FileManager.default.contentsOfDirectory(atPath: source) {
        let data = try Data(contentsOf: URL(fileURLWithPath: source + "/" + file))
        if file == "meta.json" {
            var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            meta?(&object)
            try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
                .write(to: URL(fileURLWithPath: target + "/" + file))
            continue
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard let header = lines.first else { continue }
        let columns = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var out = [header]
        for line in lines.dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if let rewritten = transform(file, columns, cells) { out.append(rewritten.joined(separator: ",")) }
        }
        try Data((out.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: target + "/" + file))
    }
    return target
}

/// Multiplies the named columns of a row.
func scaled(_ cells: [String], _ columns: [String], _ names: Set<String>, by factor: Double) -> [String] {
    var cells = cells
    for (i, name) in columns.enumerated() where names.contains(name) && i < cells.count {
        if let value = Double(cells[i]) { cells[i] = String(value * factor) }
    }
    return cells
}

/// The issue's "silent nothing" cases, replayed from files: each gives its notice in the summary (readable and JSON)
/// and the readable "(none: …)" line names it.
@Suite struct ReplayNoticeTests {
    /// A 2 Hz log (every 25th accelerometer and gyro row): rate below the minimum, with the minimum, and no severity.
    @Test func lowRateLog() throws {
        let temp = TempDirectory()
        var row = [String: Int]()
        let flight = try transformedFlight("sim-medium-mixed", in: temp, name: "two-hz") { file, _, cells in
            guard file == "accelerometer.csv" || file == "gyroscope.csv" else { return cells }
            defer { row[file, default: 0] += 1 }
            return row[file, default: 0] % 25 == 0 ? cells : nil
        }
        let (summary, lines) = try replayJSON(flight)
        #expect(summary.minutes.isEmpty)
        #expect(summary.tiles.isEmpty)
        let rate = summary.noticeTotals.first { $0.name == "sample_rate_below_minimum" }
        #expect(rate != nil && rate!.secondsCost > 1_000)
        let text = ReplayReport.text(summary)
        #expect(text.contains("(none: accelerometer at 2.00 Hz, below the minimum 5.0 Hz"), "\(text)")
        #expect(text.contains("Why less was measured"))
        let last = try #require(lines.last)
        #expect(last.contains("\"seconds_not_measured_by_reason\":{\"sample_rate_below_minimum\":"), "\(last)")
        #expect(lines.contains { $0.contains("\"type\":\"notice\"") && $0.contains("\"phase\":\"began\"") })
    }

    /// Accelerometer in m/s² (Android's unit written as if it were g): named, nothing measured.
    @Test func metersPerSecondSquared() throws {
        let temp = TempDirectory()
        let flight = try transformedFlight("sim-medium-mixed", in: temp, name: "ms2") { file, columns, cells in
            file == "accelerometer.csv" ? scaled(cells, columns, ["ax", "ay", "az"], by: 9.80665) : cells
        }
        let (summary, _) = try replayJSON(flight)
        #expect(summary.minutes.isEmpty)
        #expect(summary.noticeTotals.map(\.name).contains("units_acceleration_m_s2"), "\(summary.noticeTotals.map(\.name))")
        #expect(ReplayReport.text(summary).contains("looks like m/s², not g"))
    }

    /// `t` in milliseconds in every file: named, nothing measured.
    @Test func millisecondTime() throws {
        let temp = TempDirectory()
        let flight = try transformedFlight("sim-small-turn", in: temp, name: "ms") { _, columns, cells in
            scaled(cells, columns, ["t"], by: 1000)
        }
        let (summary, _) = try replayJSON(flight)
        #expect(summary.minutes.isEmpty)
        #expect(summary.noticeTotals.map(\.name).contains("units_time_ms"), "\(summary.noticeTotals.map(\.name))")
    }

    /// The flat fixture: refused as a cradle (device flat, with the mount), measured as a fixed mount (meta.json's
    /// device.mount or the option), and meta.json without a mount still reads.
    @Test func flatDeviceAndMounts() throws {
        let cradle = try FlightReplay.run(directory: Fixture.flight("sim-flat"))
        #expect(cradle.mount == .cradle)
        #expect(cradle.minutes.isEmpty)
        #expect(cradle.notices.contains { $0.kind == .deviceFlat(mount: .cradle) })
        #expect(ReplayReport.text(cradle).contains("(none: device lies flat in a cradle mount"))

        let fixed = try FlightReplay.run(directory: Fixture.flight("sim-flat"), options: ReplayOptions(mount: .fixed))
        #expect(fixed.minutes.count >= 2)
        #expect(!fixed.notices.contains { $0.kindName == "device_flat" })

        let temp = TempDirectory()
        let logger = try transformedFlight("sim-flat", in: temp, name: "logger", meta: { meta in
            var device = meta["device"] as? [String: Any] ?? [:]
            device["mount"] = "fixed"
            meta["device"] = device
        }) { _, _, cells in cells }
        let fromMeta = try FlightReplay.run(directory: logger)
        #expect(fromMeta.mount == .fixed)
        #expect(fromMeta.minutes == fixed.minutes)

        let bad = try transformedFlight("sim-flat", in: temp, name: "bad-mount", meta: { meta in
            meta["device"] = ["mount": "dashboard"]
        }) { _, _, cells in cells }
        #expect(throws: (any Error).self) { try FlightReplay(directory: bad) }
    }

    /// A 3 °/s zero-rate offset on every gyro axis: reported (estimated within 0.5 °/s), and the minutes are those of
    /// the clean log.
    @Test func gyroOffset() throws {
        let temp = TempDirectory()
        let offset = 3 * Double.pi / 180
        let flight = try transformedFlight("sim-medium-mixed", in: temp, name: "gyro") { file, columns, cells in
            guard file == "gyroscope.csv" else { return cells }
            var cells = cells
            for (i, name) in columns.enumerated() where ["wx", "wy", "wz"].contains(name) {
                if let value = Double(cells[i]) { cells[i] = String(value + offset) }
            }
            return cells
        }
        let clean = try mediumMixedSummary()
        let (summary, _) = try replayJSON(flight)
        #expect(summary.minutes.count >= clean.minutes.count - 1 && summary.minutes.count <= clean.minutes.count)
        let notice = summary.notices.first { $0.kindName == "gyro_offset" }
        if case .gyroOffset(let b)? = notice?.kind {
            for value in [b.x, b.y, b.z] { #expect(abs(value - 3) < 0.5, "\(b)") }
        } else {
            Issue.record("no gyro offset notice: \(summary.notices)")
        }
    }

    private func mediumMixedSummary() throws -> ReplaySummary { try Shared.mediumMixedSummary() }
}
