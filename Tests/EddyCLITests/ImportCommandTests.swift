import EddySensorLog
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

/// `eddy import` and `eddy replay EXPORT` end to end (the built executable as a subprocess).
@Suite struct ImportCommandTests {
    private static func fixture(_ relative: String) -> String { Package.root.appendingPathComponent("Fixtures/import/\(relative)").path }

    @Test func importsAZipAndSaysWhatItRecognised() throws {
        let out = NSTemporaryDirectory() + "eddy-cli-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try eddy(["import", Self.fixture("sensorlogger/sensorlogger.zip"), out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("format: Sensor Logger (sensorlogger)"))
        #expect(run.stdout.contains("accelerometer.csv: 200 rows"))
        #expect(run.stdout.contains("× (+1/9.80665)"))
        let flight = try FlightLogReader.readAll(directory: out)
        #expect(flight.samples.count == 422)
        // Not a terminal: no progress line on stderr.
        #expect(!run.stderr.contains("\r"))
    }

    /// `--mount fixed|cradle` writes device.mount into meta.json (replay then applies it); without it no device block.
    @Test(arguments: ["fixed", "cradle", nil] as [String?])
    func mountGoesIntoMeta(mount: String?) throws {
        let out = NSTemporaryDirectory() + "eddy-cli-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try eddy(["import", Self.fixture("sensorlogger/sensorlogger.zip"), out] + (mount.map { ["--mount", $0] } ?? []))
        #expect(run.status == 0, "\(run.stderr)")
        let meta = try FlightLogReader.readAll(directory: out).meta
        #expect(meta.device?.mount?.rawValue == mount)
        let text = try String(contentsOfFile: out + "/meta.json", encoding: .utf8)
        #expect(text.contains("\"mount\"") == (mount != nil))
    }

    @Test func badMountIsRefused() throws {
        let run = try eddy(["import", Self.fixture("igc/flight.igc"), "/tmp/x", "--mount", "glued"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--mount \"glued\""))
    }

    @Test func unknownCSVExitsOneWithTheFormatList() throws {
        let out = NSTemporaryDirectory() + "eddy-cli-import-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try eddy(["import", Self.fixture("bad/unknown.csv"), out])
        #expect(run.status == 1)
        #expect(run.stderr.contains("unknown.csv: is not an export Eddy recognises"))
        #expect(run.stderr.contains("androsensor (AndroSensor)"))
        #expect(!FileManager.default.fileExists(atPath: out + "/meta.json"))
    }

    @Test func badFormatNameIsRefused() throws {
        let run = try eddy(["import", Self.fixture("igc/flight.igc"), "/tmp/x", "--format", "gpx"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--format gpx"))
    }

    @Test func replayTakesAnExportDirectlyAndKeepsJSONPure() throws {
        let run = try eddy(["replay", Self.fixture("androsensor/androsensor.csv"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("is not an Eddy flight; imported it"))
        #expect(run.stderr.contains("format: AndroSensor"))
        let lines = run.stdout.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(!run.stderr.contains("\r") && !run.stdout.contains("\r"))
    }

    @Test func replayOfAnEddyFlightIsUnchanged() throws {
        let run = try eddy(["replay", Self.fixture("igc/expected"), "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("imported"))
    }
}

/// Progress is drawn on a terminal: `script` runs `eddy import` on a pseudo-terminal (Linux util-linux).
@Suite struct ImportProgressTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressShowsOnATerminalOnly() throws {
        let out = NSTemporaryDirectory() + "eddy-cli-progress-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let binary = try Package.executable("eddy").path
        let source = Package.root.appendingPathComponent("Fixtures/import/androsensor/androsensor.csv").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(binary)' import '\(source)' '\(out)'", "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.contains("\rimport: "), "no progress line on the terminal: \(text.prefix(200))")
        #expect(text.contains("format: AndroSensor"))
    }
}
