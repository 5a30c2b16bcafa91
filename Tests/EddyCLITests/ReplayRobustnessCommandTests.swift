import EddyTesting
import Foundation
import Testing

/// Issue 15's known crashes of `eddy replay` on mutated fixture flights (docs/reliability.md, "Known crashes"), each
/// run strict and with --lenient: a clear error naming the file, line, column and value, or a correct report — never a
/// crash. The mutated flights are built here from Fixtures/flights/sim-small-turn.
@Suite("eddy replay: mutated flights never crash", .serialized)
struct ReplayRobustnessCommandTests {
    /// A copy of a fixture flight whose CSV lines can be edited.
    struct MutableFlight {
        let directory: TemporaryDirectory
        let path: String

        init(_ fixture: String = "sim-small-turn") throws {
            directory = try TemporaryDirectory(prefix: "eddy-mutated")
            path = directory.path(fixture)
            try FileManager.default.copyItem(atPath: Package.flight(fixture), toPath: path)
        }

        func lines(_ file: String) throws -> [String] {
            try String(contentsOfFile: path + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }

        func write(_ file: String, _ lines: [String]) throws {
            try lines.joined(separator: "\n").write(toFile: path + "/" + file, atomically: true, encoding: .utf8)
        }

        /// Replaces the `t` cell of the data line at `index` (1 = first data line; negative counts from the last).
        func setTime(_ file: String, line index: Int, to t: String) throws {
            var all = try lines(file)
            let dataLines = all.indices.filter { $0 > 0 && !all[$0].isEmpty }
            let target = index > 0 ? dataLines[index - 1] : dataLines[dataLines.count + index]
            var cells = all[target].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            cells[0] = t
            all[target] = cells.joined(separator: ",")
            try write(file, all)
        }

        /// Deletes the data line at `index` (as in `setTime`).
        func deleteLine(_ file: String, line index: Int) throws {
            var all = try lines(file)
            let dataLines = all.indices.filter { $0 > 0 && !all[$0].isEmpty }
            all.remove(at: index > 0 ? dataLines[index - 1] : dataLines[dataLines.count + index])
            try write(file, all)
        }

        /// Adds `seconds` to every `t` of `file`.
        func shiftTimes(_ file: String, by seconds: Double) throws {
            let all = try lines(file)
            try write(file, all.enumerated().map { index, line in
                guard index > 0, !line.isEmpty else { return line }
                var cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                cells[0] = String(Double(cells[0])! + seconds)
                return cells.joined(separator: ",")
            })
        }
    }

    /// The report without the lines that name the flight directory or the skipped lines (and their first errors).
    static func body(_ report: String) -> String {
        report.split(separator: "\n").filter {
            !$0.hasPrefix("Flight ") && !$0.hasPrefix("Skipped ") && !$0.drop(while: { $0 == " " }).hasPrefix("first: ")
        }.joined(separator: "\n")
    }

    /// Issue 15: `ReplayReport.swift:101` / the pipeline's time → Int conversions trapped (SIGILL) on a sample at
    /// t = 1e18, with and without --lenient. Now the reader refuses |t| > 1e11 s naming file, line, column and value;
    /// --lenient skips the line, and the report equals the one of the flight with that line deleted.
    @Test func hugeTimeIsRefusedOrSkipped() throws {
        let mutated = try MutableFlight()
        defer { mutated.directory.remove() }
        try mutated.setTime("location.csv", line: -1, to: "1e18")
        try mutated.setTime("accelerometer.csv", line: -1, to: "1e18")

        let strict = try eddy(["replay", mutated.path])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains(".csv:") && strict.stderr.contains("t 1e+18 is beyond ±1e11 s"), "\(strict.stderr)")
        #expect(strict.stderr.contains("--lenient"))

        let reference = try MutableFlight()
        defer { reference.directory.remove() }
        try reference.deleteLine("location.csv", line: -1)
        try reference.deleteLine("accelerometer.csv", line: -1)
        let expected = try eddy(["replay", reference.path])
        #expect(expected.status == 0, "\(expected.stderr)")
        for flags in [["--lenient"], ["--lenient", "--json"], ["--lenient", "--engine"]] {
            let lenient = try eddy(["replay", mutated.path] + flags)
            #expect(lenient.status == 0, "\(flags): \(lenient.stderr)")
            if flags == ["--lenient"] {
                #expect(lenient.stdout.contains("1 bad line in location.csv") && lenient.stdout.contains("1 bad line in accelerometer.csv"))
                #expect(Self.body(lenient.stdout) == Self.body(expected.stdout))
            }
        }
    }

    /// A hugely negative first time (before any time origin): refused strict, skipped lenient.
    @Test func hugelyNegativeTimeIsRefusedOrSkipped() throws {
        let mutated = try MutableFlight()
        defer { mutated.directory.remove() }
        try mutated.setTime("accelerometer.csv", line: 1, to: "-1e18")
        try mutated.setTime("location.csv", line: 1, to: "-9223372036854775807")

        let strict = try eddy(["replay", mutated.path, "--json"])
        #expect(strict.status == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains(":2: t -") && strict.stderr.contains("is beyond ±1e11 s"), "\(strict.stderr)")

        let reference = try MutableFlight()
        defer { reference.directory.remove() }
        try reference.deleteLine("accelerometer.csv", line: 1)
        try reference.deleteLine("location.csv", line: 1)
        let lenient = try eddy(["replay", mutated.path, "--lenient"])
        let expected = try eddy(["replay", reference.path])
        #expect(lenient.status == 0 && expected.status == 0, "\(lenient.stderr) \(expected.stderr)")
        #expect(Self.body(lenient.stdout) == Self.body(expected.stdout))
    }

    /// Issue 15: `DetectionPipeline.swift:144` / `:330`: huge times that the reader accepts (up to 1e11 s) are turned
    /// into tick and second indices without trapping: a sample 3,000 years later is a long gap, not a crash.
    @Test func largeAcceptedTimesAreAGapNotACrash() throws {
        let mutated = try MutableFlight()
        defer { mutated.directory.remove() }
        try mutated.setTime("accelerometer.csv", line: -1, to: "99999999999.5")
        try mutated.setTime("location.csv", line: -1, to: "99999999999")
        for flags in [[], ["--lenient"], ["--json"], ["--engine"], ["--engine", "--json"]] {
            let run = try eddy(["replay", mutated.path] + flags)
            #expect(run.status == 0, "\(flags): status \(run.status) \(run.stderr.suffix(600))")
            #expect(!run.stdout.isEmpty)
        }
    }

    /// Issue 15: `DetectionPipeline.swift:268`: samples before `time_origin` (every t negative) gave a negative
    /// ring-buffer index, strict and lenient. Shifting a flight by a whole number of minutes into the past must
    /// measure the same minutes and tiles.
    @Test func samplesBeforeTheTimeOriginMeasureTheSame() throws {
        let mutated = try MutableFlight()
        defer { mutated.directory.remove() }
        for file in ["accelerometer.csv", "location.csv"] { try mutated.shiftTimes(file, by: -3600) }
        let plain = try eddy(["replay", Package.flight("sim-small-turn")])
        func events(_ report: String) -> String? { report.split(separator: "\n").first { $0.hasPrefix("Events") }.map(String.init) }
        for flags in [[], ["--lenient"], ["--engine"]] {
            let run = try eddy(["replay", mutated.path] + flags)
            #expect(run.status == 0, "\(flags): status \(run.status) \(run.stderr.suffix(600))")
            if flags.isEmpty || flags == ["--lenient"] {
                #expect(events(run.stdout) != nil && events(run.stdout) == events(plain.stdout), "\(run.stdout.prefix(600))")
            }
        }
    }

    /// A binary file given as a CSV: the error quotes a short escaped excerpt, not the raw bytes.
    @Test func binaryFileGivenAsCSVIsQuotedEscaped() throws {
        let mutated = try MutableFlight()
        defer { mutated.directory.remove() }
        var bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x1B, 0x5B, 0x32, 0x4A, 0x2C, 0xFF, 0xFE]
        var generator = SystemRandomNumberGenerator()
        bytes += (0..<4000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: mutated.path + "/accelerometer.csv"))
        for flags in [[], ["--lenient"]] {
            let run = try eddy(["replay", mutated.path] + flags)
            #expect(run.status == 1, "\(run.stderr)")
            let message = run.stderr.trimmingCharacters(in: .newlines)
            #expect(message.contains("accelerometer.csv:1"), "\(message)")
            #expect(message.contains("\\x7f") && message.contains("\\x1b"), "\(message)")
            #expect(!message.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "raw control bytes in \(message.debugDescription)")
            #expect(message.count < 600, "\(message.count) characters")
        }
    }
}
