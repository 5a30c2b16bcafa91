import EddySupport
import EddyVocabulary
import Foundation
import Testing
@testable import EddySensorLog

@Suite("Flight log reader")
struct ReaderTests {
    @Test("merges files by time, ties in location, barometer, gyroscope, accelerometer order")
    func mergeOrder() throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "t,ax,ay,az\n0.0,0,0,-1\n0.5,0.01,0,-1\n1.0,0,0.02,-1\n")
        flight.write("gyroscope.csv", "t,wx,wy,wz\n0.25,0.1,0,0\n1.0,0,0.1,0\n")
        flight.write("barometer.csv", "t,pressure_hpa\n1.0,1013.25\n")
        flight.write("location.csv", "t,lat,lon\n1.0,47.5,8.5\n")
        let (_, samples) = try flight.read()
        #expect(samples.map(\.t) == [0.0, 0.25, 0.5, 1.0, 1.0, 1.0, 1.0])
        let kinds = samples.map { SensorFileKind($0) }
        #expect(kinds == [.accelerometer, .gyroscope, .accelerometer, .location, .barometer, .gyroscope, .accelerometer])
        #expect(samples[2] == .accelerometer(AccelerometerSample(t: 0.5, x: 0.01, y: 0, z: -1)))
        #expect(samples[4] == .barometer(BarometerSample(t: 1.0, pressureHectopascals: 1013.25)))
    }

    @Test("columns by name in any order, unknown columns ignored, CRLF, BOM, blanks, no final newline")
    func layoutTolerance() throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "\u{FEFF}az, note ,ax,t,ay\r\n-1.0,hello,0.5,10.0,0.25\r\n\r\n -0.98 ,x, 0.1 ,10.02,0\r\n-0.5,,0,10.04,0")
        flight.write("location.csv", "source,lon,lat,t,speed_mps,alt_m,course_deg,h_acc_m,pressure_alt_ft\nadsb,8.5,47.25,10.0,-1,,270,5,35000\n,8.6,47.3,11.0,230.5,10500.5,-1,,\n")
        let (reader, samples) = try flight.read()
        #expect(samples.count == 5)
        #expect(samples[0] == .location(LocationSample(
            t: 10.0, latitudeDegrees: 47.25, longitudeDegrees: 8.5, altitudeMeters: nil, horizontalAccuracyMeters: 5,
            verticalAccuracyMeters: nil, speedMetersPerSecond: nil, courseDegrees: 270, pressureAltitudeFeet: 35000, source: .adsb)))
        #expect(samples[1] == .accelerometer(AccelerometerSample(t: 10.0, x: 0.5, y: 0.25, z: -1.0)))
        #expect(samples[2] == .accelerometer(AccelerometerSample(t: 10.02, x: 0.1, y: 0, z: -0.98)))
        #expect(samples[3] == .accelerometer(AccelerometerSample(t: 10.04, x: 0, y: 0, z: -0.5)))
        #expect(samples[4] == .location(LocationSample(
            t: 11.0, latitudeDegrees: 47.3, longitudeDegrees: 8.6, altitudeMeters: 10500.5, speedMetersPerSecond: 230.5, source: .device)))
        #expect(reader.sampleCounts[.accelerometer] == 3)
        #expect(reader.meta.aircraft.aircraftClass == .medium)
        #expect(reader.meta.timeOriginEpochSeconds == 1_795_341_600)
    }

    @Test("a header-only file gives no samples; files may be absent except accelerometer.csv")
    func headerOnly() throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "t,ax,ay,az\n")
        let (reader, samples) = try flight.read()
        #expect(samples.isEmpty)
        #expect(reader.files == [.accelerometer])
    }

    @Test("reads across many 256 KiB chunk boundaries without losing or splitting a line")
    func chunkBoundaries() throws {
        let flight = TempFlight()
        flight.writeMeta()
        var text = "t,ax,ay,az,padding\n"
        let rows = 60_000
        for i in 0..<rows {
            // varying line lengths so line ends fall everywhere in the chunk
            text += "\(Double(i) * 0.02),\(Double(i % 97) * 0.001),-0.5,-1,\(String(repeating: "x", count: i % 13))\n"
        }
        flight.write("accelerometer.csv", text)
        let (_, samples) = try flight.read()
        #expect(samples.count == rows)
        for (i, sample) in samples.enumerated() where i % 997 == 0 || i == rows - 1 {
            #expect(sample == .accelerometer(AccelerometerSample(t: Double(i) * 0.02, x: Double(i % 97) * 0.001, y: -0.5, z: -1)))
        }
    }
}

@Suite("Flight log reader: bad input")
struct ReaderBadInputTests {
    private func flight(accelerometer: String, location: String? = nil) -> TempFlight {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", accelerometer)
        if let location { flight.write("location.csv", location) }
        return flight
    }

    private func expectLineError(
        _ flight: TempFlight, kind: SensorLogError.Kind, file: String, line: Int, mentions: String,
        lenientSamples: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let error = try #require(flight.readError(), sourceLocation: sourceLocation)
        #expect(error.kind == kind, sourceLocation: sourceLocation)
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(error.line == line, sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("\(file):\(line): "), sourceLocation: sourceLocation)
        #expect(error.description.contains(mentions), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.contains("--lenient"), sourceLocation: sourceLocation)
        // lenient: skipped and counted, everything else kept
        let (reader, samples) = try flight.read(lenient: true)
        #expect(samples.count == lenientSamples, sourceLocation: sourceLocation)
        #expect(reader.skippedLines == [SkippedLines(file: file, count: 1, first: error)], sourceLocation: sourceLocation)
    }

    @Test("NaN cell")
    func nan() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,NaN,0,-1\n0.04,0,0,-1\n"),
                            kind: .nonFinite, file: "accelerometer.csv", line: 3, mentions: "ax is \"NaN\"", lenientSamples: 2)
    }

    @Test("infinite cell")
    func infinite() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,0,-inf,-1\n"),
                            kind: .nonFinite, file: "accelerometer.csv", line: 3, mentions: "ay is", lenientSamples: 1)
    }

    @Test("time going backwards")
    func backwards() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.04,0,0,-1\n0.02,0,0,-1\n0.06,0,0,-1\n"),
                            kind: .timeWentBackwards, file: "accelerometer.csv", line: 4, mentions: "t 0.02 is before the previous line's t 0.04", lenientSamples: 3)
    }

    @Test("truncated last line")
    func truncatedLastLine() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,0,0,-1\n0.04,0.0"),
                            kind: .wrongFieldCount, file: "accelerometer.csv", line: 4, mentions: "has 2 fields, the header has 4", lenientSamples: 2)
    }

    @Test("last line cut on a field boundary leaves a required cell empty")
    func truncatedAtComma() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,0,0,"),
                            kind: .emptyRequiredCell, file: "accelerometer.csv", line: 3, mentions: "az is empty", lenientSamples: 1)
    }

    @Test("too many fields")
    func tooManyFields() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1,5\n0.02,0,0,-1\n"),
                            kind: .wrongFieldCount, file: "accelerometer.csv", line: 2, mentions: "more fields", lenientSamples: 1)
    }

    @Test("non-numeric cell")
    func nonNumeric() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,0,zero,-1\n"),
                            kind: .notANumber, file: "accelerometer.csv", line: 3, mentions: "ay \"zero\" is not a number", lenientSamples: 1)
    }

    @Test("latitude out of range")
    func latitude() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n", location: "t,lat,lon\n0,47,8\n1,123.4,8\n2,47,8\n"),
                            kind: .outOfRange, file: "location.csv", line: 3, mentions: "lat 123.4 out of range (must be -90…90)", lenientSamples: 3)
    }

    @Test("longitude out of range")
    func longitude() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n", location: "t,lat,lon\n0,47,-180.5\n"),
                            kind: .outOfRange, file: "location.csv", line: 2, mentions: "lon -180.5 out of range", lenientSamples: 1)
    }

    @Test("unknown location source")
    func unknownSource() throws {
        try expectLineError(flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n", location: "t,lat,lon,source\n0,47,8,gps\n"),
                            kind: .unknownValue, file: "location.csv", line: 2, mentions: "source \"gps\"", lenientSamples: 1)
    }

    @Test("missing required column (not skippable, even lenient)")
    func missingColumn() throws {
        let f = flight(accelerometer: "t,ax,az\n0,0,-1\n")
        for lenient in [false, true] {
            let error = try #require(f.readError(lenient: lenient))
            #expect(error.kind == .badHeader)
            #expect(error.description.hasPrefix("accelerometer.csv:1: missing required column ay"))
        }
    }

    @Test("duplicate column")
    func duplicateColumn() throws {
        let error = try #require(flight(accelerometer: "t,ax,ay,az,ax\n0,0,0,-1,0\n").readError())
        #expect(error.kind == .badHeader)
        #expect(error.description.contains("\"ax\" appears twice"))
    }

    @Test("empty file (not skippable, even lenient)")
    func emptyFile() throws {
        let f = flight(accelerometer: "")
        for lenient in [false, true] {
            let error = try #require(f.readError(lenient: lenient))
            #expect(error.kind == .emptyFile)
            #expect(error.description.hasPrefix("accelerometer.csv:1: file is empty"))
        }
    }

    @Test("missing meta.json")
    func missingMeta() throws {
        let f = TempFlight()
        f.write("accelerometer.csv", "t,ax,ay,az\n0,0,0,-1\n")
        let error = try #require(f.readError(lenient: true))
        #expect(error.kind == .missingMeta)
        #expect(error.description.hasPrefix("meta.json: missing"))
    }

    @Test("missing accelerometer.csv and missing directory")
    func missingFiles() throws {
        let f = TempFlight()
        f.writeMeta()
        #expect(f.readError()?.kind == .missingFile)
        #expect(throws: SensorLogError.self) { try FlightLogReader(directory: f.path + "/nope") }
    }

    @Test("unknown aircraft class")
    func unknownClass() throws {
        let f = TempFlight()
        f.writeMeta(aircraftClass: "jumbo")
        f.write("accelerometer.csv", "t,ax,ay,az\n")
        let error = try #require(f.readError())
        #expect(error.kind == .unknownAircraftClass)
        #expect(error.description.contains("aircraft.class \"jumbo\" is not one of small, medium, large"))
    }

    @Test("meta.json problems name the field", arguments: [
        (#"{"format":"eddy-sensor-log","version":1}"#, "\"aircraft\" is missing"),
        (#"{"format":"eddy-sensor-log","version":1,"aircraft":{}}"#, "\"aircraft.class\" is missing"),
        (#"{"format":"eddy-sensor-log","version":"one","aircraft":{"class":"small"}}"#, "\"version\" has the wrong type"),
        (#"{"format":"other","version":1,"aircraft":{"class":"small"}}"#, "format is \"other\""),
        (#"{"format":"eddy-sensor-log","version":2,"aircraft":{"class":"small"}}"#, "version 2 is not supported"),
        (#"{"format":"eddy-sensor-log","version":1,"time_origin":"yesterday","aircraft":{"class":"small"}}"#, "time_origin \"yesterday\""),
        (#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"small"},"truth":{"turbulence":[{"start":5,"end":1,"edr":0.2}]}}"#, "truth.turbulence[0] has start"),
        (#"{"format":"eddy-sensor-log","#, "not valid JSON"),
    ])
    func metaProblems(json: String, mentions: String) throws {
        let f = TempFlight()
        f.write("meta.json", json)
        f.write("accelerometer.csv", "t,ax,ay,az\n")
        let error = try #require(f.readError())
        #expect(error.kind == .invalidMeta)
        #expect(error.file == "meta.json")
        #expect(error.description.contains(mentions), "\(error)")
    }

    @Test("a line longer than 1 MiB is refused (not a sensor log), even lenient")
    func hugeLine() throws {
        let f = flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n" + String(repeating: "9", count: 1_100_000) + "\n")
        for lenient in [false, true] {
            let error = try #require(f.readError(lenient: lenient))
            #expect(error.kind == .lineTooLong)
            #expect(error.line == 3)
        }
    }

    @Test("lenient mode counts several bad lines per file and keeps the good ones")
    func lenientCounts() throws {
        let f = flight(accelerometer: "t,ax,ay,az\n0,0,0,-1\n0.02,nan,0,-1\nbad\n0.06,0,0,-1\n0.04,0,0,-1\n0.08,0,0,-1\n",
                       location: "t,lat,lon\n0,95,8\n1,47,8\n")
        let (reader, samples) = try f.read(lenient: true)
        #expect(samples.map(\.t) == [0, 0.06, 0.08, 1])
        let skipped = reader.skippedLines
        #expect(skipped.map(\.file) == ["location.csv", "accelerometer.csv"])
        #expect(skipped.map(\.count) == [1, 3])
        #expect(skipped[1].first?.line == 3)
    }
}

/// `FlightMeta.parseISO8601` (ICU-free) against Foundation's `ISO8601DateFormatter` as the oracle.
@Suite struct ISO8601ParsingTests {
    private func foundation(_ text: String) -> Double? {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date.timeIntervalSince1970 }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)?.timeIntervalSince1970
    }

    @Test func agreesWithFoundationOnRandomInstantsAndEdgeCases() {
        var rng = SplitMix64(seed: 20261122)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        for _ in 0..<5000 {
            let t = Double(Int64(rng.next() % 7_000_000_000) - 2_000_000_000)
            let text = formatter.string(from: Date(timeIntervalSince1970: t))
            #expect(FlightMeta.parseISO8601(text) == t, "\(text)")
        }
        for text in ["2026-11-22T10:00:00Z", "1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2024-03-01T00:00:00+02:00",
                     "2024-03-01T00:00:00-05:30", "2026-11-22T10:00:00.250Z", "2026-11-22T10:00:00.5+01:00", "1969-12-31T23:59:59Z",
                     "1600-03-01T00:00:00Z"] {
            let ours = FlightMeta.parseISO8601(text), theirs = foundation(text)
            #expect(ours != nil && theirs != nil && abs(ours! - theirs!) < 1e-6, "\(text)")
        }
        for bad in ["2026-13-01T00:00:00Z", "2026-11-22 10:00:00Z", "2026-11-22T10:00:00", "2026-11-22T25:00:00Z", "garbage",
                    "2026-11-22T10:00:00.Z", "2026-04-31T00:00:00Z", "2100-02-29T00:00:00Z"] {
            #expect(FlightMeta.parseISO8601(bad) == nil, "\(bad)")
        }
    }
}
