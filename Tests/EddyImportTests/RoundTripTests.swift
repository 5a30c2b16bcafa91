import EddySensorLog
import EddyVocabulary
import Foundation
import Testing
@testable import EddyImport

/// Generator → importer → Eddy flight equals the generator's truth (Fixtures/import/<format>/expected), per format.
@Suite struct RoundTripTests {
    @Test func sensorLogWideCSV() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("sensorlog/sensorlog.csv"), expected: ImportFixtures.path("sensorlog/expected"))
        #expect(summary.format == .sensorlog)
        #expect(summary.unitMappings.contains { $0.contains("kPa") })
    }

    @Test func sensorLoggerFolder() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("sensorlogger/folder"), expected: ImportFixtures.path("sensorlogger/expected"))
        #expect(summary.format == .sensorlogger)
    }

    @Test func sensorLoggerZipReadsLikeTheFolder() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("sensorlogger/sensorlogger.zip"), expected: ImportFixtures.path("sensorlogger/expected"))
        #expect(summary.format == .sensorlogger)
    }

    @Test func sensorLoggerAndroidTotalAcceleration() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("sensorlogger/android"), expected: ImportFixtures.path("sensorlogger/expected-android"))
        #expect(summary.notes.contains { $0.contains("ellipsoid") })
    }

    @Test func sensorLoggerAndroidWithGeoidFillsMSL() throws {
        let out = TempDirectory()
        let options = ImportOptions(geoidUndulationMeters: { _, _ in 48.3 })
        _ = try FlightImport.run(source: ImportFixtures.path("sensorlogger/android"), to: out.path, options: options)
        let got = try FlightLogReader.readAll(directory: out.path)
        let want = try FlightLogReader.readAll(directory: ImportFixtures.path("sensorlogger/expected"))
        let a = samples(of: got.samples, .location), b = samples(of: want.samples, .location)
        #expect(a.count == b.count && !a.isEmpty)
        for (x, y) in zip(a, b) {
            guard case .location(let fx) = x, case .location(let fy) = y else { Issue.record("not a fix"); continue }
            #expect(close(fx.altitudeMeters, fy.altitudeMeters, 2 * Resolution.meters))
        }
    }

    @Test func phyphoxFolder() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("phyphox/export"), expected: ImportFixtures.path("phyphox/expected"))
        #expect(summary.format == .phyphox)
    }

    @Test func androSensorSemicolonsAndSepLine() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("androsensor/androsensor.csv"), expected: ImportFixtures.path("androsensor/expected"))
        #expect(summary.format == .androsensor)
        #expect(summary.notes.contains { $0.contains("without a zone") })
    }

    @Test func physicsToolboxClockAcrossMidnight() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("physicstoolbox/physicstoolbox.csv"), expected: ImportFixtures.path("physicstoolbox/expected"))
        #expect(summary.format == .physicstoolbox)
    }

    @Test func igcFixesAcrossMidnight() throws {
        let summary = try expectRoundTrip(ImportFixtures.path("igc/flight.igc"), expected: ImportFixtures.path("igc/expected"))
        #expect(summary.format == .igc)
        #expect(summary.notes.contains { $0.contains("validity V") })
    }

    @Test func detectionPicksEachFormat() throws {
        let cases: [(String, ImportFormat)] = [
            ("sensorlog/sensorlog.csv", .sensorlog), ("sensorlogger/folder", .sensorlogger), ("sensorlogger/sensorlogger.zip", .sensorlogger),
            ("phyphox/export", .phyphox), ("androsensor/androsensor.csv", .androsensor),
            ("physicstoolbox/physicstoolbox.csv", .physicstoolbox), ("igc/flight.igc", .igc),
        ]
        for (path, format) in cases {
            let ranked = FlightImport.detect(try ExportSource(path: ImportFixtures.path(path)))
            #expect(ranked.first?.format == format, "\(path): \(ranked.prefix(2))")
            #expect((ranked.first?.confidence ?? 0) >= 0.5)
            #expect((ranked.dropFirst().first?.confidence ?? 0) < 0.5, "\(path) is ambiguous: \(ranked.prefix(2))")
        }
    }
}

/// Time stamps: sensors starting at different moments, equal stamps across files, samples before the earliest sensor.
@Suite struct TimeBaseTests {
    @Test func equalStampsAcrossFilesAndLateSensorsImport() throws {
        let dir = TempDirectory()
        // Gyroscope starts before the accelerometer; barometer shares the accelerometer's stamps exactly.
        _ = dir.write("export/TotalAcceleration.csv", Array("time,seconds_elapsed,z,y,x\n1000000000000000000,0,9.8,0,0\n1000000000020000000,0.02,9.8,0,0\n".utf8))
        _ = dir.write("export/Gyroscope.csv", Array("time,seconds_elapsed,z,y,x\n999999999990000000,-0.01,0,0,0\n1000000000000000000,0,0.1,0,0\n".utf8))
        _ = dir.write("export/Barometer.csv", Array("time,seconds_elapsed,relativeAltitude,pressure\n1000000000000000000,0,0,1000\n1000000000020000000,0.02,0,999.9\n".utf8))
        let out = TempDirectory()
        let summary = try FlightImport.run(source: dir.file("export"), to: out.path)
        let got = try FlightLogReader.readAll(directory: out.path)
        #expect(got.meta.timeOrigin == "2001-09-09T01:46:39.990000Z")
        #expect(summary.droppedBeforeOrigin == 0)
        #expect(got.samples.map(\.t).min() == 0)
        #expect(samples(of: got.samples, .gyroscope).map(\.t) == [0, 0.01])
        #expect(samples(of: got.samples, .barometer).map(\.t) == samples(of: got.samples, .accelerometer).map(\.t))
        // Android sign: +9.8 m/s² on z at rest reads about −1 g.
        guard case .accelerometer(let a) = samples(of: got.samples, .accelerometer)[0] else { Issue.record("no accel"); return }
        #expect(abs(a.z - (-9.8 / 9.80665)) < 1e-6)
    }

    @Test func isoStringAndDateParsing() {
        #expect(TimeParsing.isoString(epochSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(TimeParsing.isoString(epochSeconds: 1_795_600_000.25) == "2026-11-25T09:46:40.250000Z")
        let parsed = Array("2026-11-25 10:46:40.250 +0100".utf8).withUnsafeBufferPointer { TimeParsing.dateTime($0) }
        #expect(parsed?.epochSeconds == 1_795_600_000.25 && parsed?.hasZone == true)
        let andro = Array("2026-11-25 09-46-40_250".utf8).withUnsafeBufferPointer { TimeParsing.dateTime($0) }
        #expect(andro?.epochSeconds == 1_795_600_000.25 && andro?.hasZone == false)
        #expect(Array("2026-02-30 00:00:00".utf8).withUnsafeBufferPointer { TimeParsing.dateTime($0) } == nil)
        #expect(Array("23:59:59:500".utf8).withUnsafeBufferPointer { TimeParsing.clock($0) } == 86_399.5)
        #expect(Array("1795600000250000000".utf8).withUnsafeBufferPointer { TimeParsing.integer($0) } == 1_795_600_000_250_000_000)
        #expect(Array("99999999999999999999".utf8).withUnsafeBufferPointer { TimeParsing.integer($0) } == nil)
    }
}
