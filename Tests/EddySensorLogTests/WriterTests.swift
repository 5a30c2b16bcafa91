import EddySupport
import EddyVocabulary
import Foundation
import Testing
@testable import EddySensorLog

@Suite("Flight log writer")
struct WriterTests {
    private func sampleMeta() -> FlightMeta {
        FlightMeta(
            timeOrigin: "2026-11-22T10:00:00Z",
            aircraft: .init(type: "C172", aircraftClass: .small),
            device: .init(model: "iPad", pressurizedCabin: false),
            truth: .init(turbulence: [.init(start: 600, end: 900, edr: 0.3)], handling: [.init(start: 1200, end: 1215)]))
    }

    /// Random samples with awkward values (full-precision doubles, ties across files, nil fields).
    private func randomFlight(seed: UInt64) -> [SensorSample] {
        var rng = SplitMix64(seed: seed)
        var samples: [SensorSample] = []
        var t = 1_795_341_600.0
        for i in 0..<30_000 {
            t += [0.02, 0.0, 0.013, 1e-7][Int(rng.next() % 4)]
            func r() -> Double { Double(Int64(bitPattern: rng.next())) / Double(Int64.max) * [1, 1e-4, 3, 1e5][Int(rng.next() % 4)] }
            switch i % 10 {
            case 0: samples.append(.location(LocationSample(
                t: t, latitudeDegrees: r().truncatingRemainder(dividingBy: 90), longitudeDegrees: r().truncatingRemainder(dividingBy: 180),
                altitudeMeters: i % 20 == 0 ? nil : r(), horizontalAccuracyMeters: abs(r()), verticalAccuracyMeters: nil,
                speedMetersPerSecond: i % 30 == 0 ? nil : abs(r()), courseDegrees: abs(r()).truncatingRemainder(dividingBy: 360),
                pressureAltitudeFeet: i % 40 == 0 ? r() : nil, source: [.device, .external, .adsb][i % 3])))
            case 1: samples.append(.barometer(BarometerSample(t: t, pressureHectopascals: 200 + abs(r()).truncatingRemainder(dividingBy: 800))))
            case 2, 5, 8: samples.append(.gyroscope(GyroscopeSample(t: t, x: r(), y: r(), z: r())))
            default: samples.append(.accelerometer(AccelerometerSample(t: t, x: r(), y: r(), z: r())))
            }
        }
        // the reader's order: by t, ties by file kind (stable within a file)
        return samples.enumerated().sorted { a, b in
            (a.element.t, SensorFileKind(a.element).rawValue, a.offset) < (b.element.t, SensorFileKind(b.element).rawValue, b.offset)
        }.map(\.element)
    }

    @Test("reader(writer(x)) == x, bit for bit, across all four files")
    func roundTrip() throws {
        let flight = TempFlight()
        let samples = randomFlight(seed: 42)
        let writer = try FlightLogWriter(directory: flight.path, meta: sampleMeta(), files: Set(SensorFileKind.allCases))
        // append in chunks, per file, as the streaming simulator does
        for chunk in stride(from: 0, to: samples.count, by: 4096).map({ samples[$0..<min($0 + 4096, samples.count)] }) {
            try writer.append(accelerometer: chunk.compactMap { if case .accelerometer(let s) = $0 { s } else { nil } })
            try writer.append(gyroscope: chunk.compactMap { if case .gyroscope(let s) = $0 { s } else { nil } })
            try writer.append(barometer: chunk.compactMap { if case .barometer(let s) = $0 { s } else { nil } })
            try writer.append(location: chunk.compactMap { if case .location(let s) = $0 { s } else { nil } })
        }
        try writer.finish()
        let (reader, read) = try flight.read()
        #expect(reader.meta == sampleMeta())
        #expect(read.count == samples.count)
        #expect(read == samples)
    }

    @Test("output is byte-identical run after run")
    func deterministic() throws {
        let samples = randomFlight(seed: 7).prefix(2000)
        var outputs: [[Data]] = []
        for _ in 0..<2 {
            let flight = TempFlight()
            let writer = try FlightLogWriter(directory: flight.path, meta: sampleMeta(), files: Set(SensorFileKind.allCases))
            for sample in samples { try writer.append(sample) }
            try writer.finish()
            outputs.append(try ["meta.json", "accelerometer.csv", "gyroscope.csv", "barometer.csv", "location.csv"].map {
                try Data(contentsOf: URL(fileURLWithPath: flight.path + "/" + $0))
            })
        }
        #expect(outputs[0] == outputs[1])
        #expect(String(decoding: outputs[0][1].prefix(11), as: UTF8.self) == "t,ax,ay,az\n")
    }

    @Test("writes empty cells for nil location fields and removes stale files")
    func locationCellsAndStaleFiles() throws {
        let flight = TempFlight()
        flight.write("gyroscope.csv", "t,wx,wy,wz\n0,1,2,3\n")
        let writer = try FlightLogWriter(directory: flight.path, meta: sampleMeta(), files: [.accelerometer, .location])
        try writer.append(.location(LocationSample(t: 1, latitudeDegrees: 47.5, longitudeDegrees: 8.25, speedMetersPerSecond: 120)))
        try writer.append(.accelerometer(AccelerometerSample(t: 1, x: 0, y: -0.5, z: -1)))
        try writer.finish()
        let text = try String(contentsOfFile: flight.path + "/location.csv", encoding: .utf8)
        #expect(text == "t,lat,lon,alt_m,h_acc_m,v_acc_m,speed_mps,course_deg,pressure_alt_ft,source\n1.0,47.5,8.25,,,,120.0,,,device\n")
        #expect(!FileManager.default.fileExists(atPath: flight.path + "/gyroscope.csv"))
    }

    @Test("refuses samples the reader would reject")
    func refusesBadSamples() throws {
        let flight = TempFlight()
        let writer = try FlightLogWriter(directory: flight.path, meta: sampleMeta())
        try writer.append(.accelerometer(AccelerometerSample(t: 2, x: 0, y: 0, z: -1)))
        #expect(throws: SensorLogError.self) { try writer.append(.accelerometer(AccelerometerSample(t: 1, x: 0, y: 0, z: -1))) }
        #expect(throws: SensorLogError.self) { try writer.append(.accelerometer(AccelerometerSample(t: 3, x: .nan, y: 0, z: -1))) }
        #expect(throws: SensorLogError.self) { try writer.append(.gyroscope(GyroscopeSample(t: 3, x: 0, y: 0, z: 0))) }
        try writer.finish()
        #expect(throws: SensorLogError.self) { try writer.append(.accelerometer(AccelerometerSample(t: 4, x: 0, y: 0, z: -1))) }
        let (_, samples) = try flight.read()
        #expect(samples == [.accelerometer(AccelerometerSample(t: 2, x: 0, y: 0, z: -1))])
    }
}


@Suite("Flight log writer: sensor resolution")
struct WriterResolutionTests {
    @Test("rounded output reads back as the nearest double to the rounded decimal")
    func rounded() throws {
        let flight = TempFlight()
        let meta = FlightMeta(aircraft: .init(aircraftClass: .medium))
        let writer = try FlightLogWriter(directory: flight.path, meta: meta, files: [.accelerometer, .location, .barometer], resolution: .sensor)
        var rng = SplitMix64(seed: 3)
        var expected: [SensorSample] = []
        func q(_ x: Double, _ k: Int) -> Double { (x * pow(10, Double(k))).rounded() / pow(10, Double(k)) }
        var t = 1_795_341_600.0
        for i in 0..<5000 {
            t += 0.02
            let u = Double(rng.next() % 2_000_001) / 1_000_000 - 1   // -1…1
            let a = AccelerometerSample(t: t, x: u * 1e-3, y: u * 3, z: -u)
            try writer.append(.accelerometer(a))
            expected.append(.accelerometer(AccelerometerSample(t: q(t, 4), x: q(a.x, 4), y: q(a.y, 4), z: q(a.z, 4))))
            if i % 50 == 0 {
                let l = LocationSample(t: t, latitudeDegrees: 47 + u, longitudeDegrees: -122.123456789 * u, altitudeMeters: 10_668.123,
                                       speedMetersPerSecond: 230.456, courseDegrees: 0.001)
                try writer.append(.location(l))
                try writer.append(.barometer(BarometerSample(t: t, pressureHectopascals: 238.45678)))
                expected.insert(contentsOf: [
                    .location(LocationSample(t: q(t, 4), latitudeDegrees: q(l.latitudeDegrees, 7), longitudeDegrees: q(l.longitudeDegrees, 7),
                                             altitudeMeters: 10_668.12, speedMetersPerSecond: 230.46, courseDegrees: 0)),
                    .barometer(BarometerSample(t: q(t, 4), pressureHectopascals: 238.457)),
                ], at: expected.count - 1)
            }
        }
        try writer.finish()
        let (_, samples) = try flight.read()
        #expect(samples == expected)
        let text = try String(contentsOfFile: flight.path + "/accelerometer.csv", encoding: .utf8)
        #expect(text.split(separator: "\n")[1].hasPrefix("1795341600.02,"))
        #expect(!text.contains("e-"))
    }

    /// The writer refuses what the reader refuses (times beyond ±1e11 s, pressures outside 0–2000 hPa, courses above
    /// 360°), so no importer can write a flight that does not read back (fuzz findings, docs/reliability.md §7).
    @Test func refusesWhatTheReaderRefuses() throws {
        let meta = FlightMeta(aircraft: .init(aircraftClass: .medium))
        let all = Set(SensorFileKind.allCases)
        let time = try FlightLogWriter(memory: InMemoryFlight(), meta: meta, files: all)
        #expect(throws: SensorLogError.self) { try time.append(accelerometer: [AccelerometerSample(t: 6.7e80, x: 0, y: 0, z: -1)]); try time.finish() }
        let pressure = try FlightLogWriter(memory: InMemoryFlight(), meta: meta, files: all)
        #expect(throws: SensorLogError.self) { try pressure.append(barometer: [BarometerSample(t: 1, pressureHectopascals: 10092.115)]); try pressure.finish() }
        let course = try FlightLogWriter(memory: InMemoryFlight(), meta: meta, files: all)
        let fix = LocationSample(t: 1, latitudeDegrees: 47, longitudeDegrees: 8, courseDegrees: 400)
        #expect(throws: SensorLogError.self) { try course.append(location: [fix]); try course.finish() }
        // At the bounds: written, and read back.
        let memory = InMemoryFlight()
        let edge = try FlightLogWriter(memory: memory, meta: meta, files: all)
        try edge.append(accelerometer: [AccelerometerSample(t: 1e11, x: 0, y: 0, z: -1)])
        try edge.append(barometer: [BarometerSample(t: 1, pressureHectopascals: 1999.9)])
        try edge.append(location: [LocationSample(t: 1, latitudeDegrees: 47, longitudeDegrees: 8, courseDegrees: 360)])
        try edge.finish()
        let reader = try FlightLogReader(meta: try FlightMeta.decode(try #require(memory.metaJSON)), files: memory.files)
        var read = 0
        while try reader.next() != nil { read += 1 }
        #expect(read == 3)
    }
}
