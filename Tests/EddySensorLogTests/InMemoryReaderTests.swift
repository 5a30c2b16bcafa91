import EddyVocabulary
import Foundation
import Testing
@testable import EddySensorLog

/// The in-memory entry points the `csv` and `import` fuzz targets use (docs/reliability.md §7) read and write what the
/// file-based reader and writer do.
@Suite struct InMemoryReaderTests {
    private static let accelerometer = "t,ax,ay,az\n0,0,0,-1\n0.01,0.1,0,-1\n0.02,0.2,0,-1\n"
    private static let location = "t,lat,lon,alt_m\n0,47,8,1000\n0.015,47.001,8.001,1001\n"

    private func fromMemory(_ files: [SensorFileKind: String], meta: FlightMeta, lenient: Bool = false) throws -> [SensorSample] {
        let reader = try FlightLogReader(meta: meta, files: files.mapValues { Array($0.utf8) }, options: .init(lenient: lenient))
        var samples: [SensorSample] = []
        try reader.forEach { samples.append($0) }
        return samples
    }

    /// The same samples, in the same merged order, from a directory and from memory.
    @Test func sameSamplesAsFromFiles() throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", Self.accelerometer)
        flight.write("location.csv", Self.location)
        let (reader, onDisk) = try flight.read()
        let inMemory = try fromMemory([.accelerometer: Self.accelerometer, .location: Self.location], meta: reader.meta)
        #expect(inMemory == onDisk)
        #expect(onDisk.count == 5)
    }

    /// The same error (kind, file, line, text) for a bad row, strict; the same skip count, lenient.
    @Test func sameErrorsAsFromFiles() throws {
        let bad = Self.accelerometer + "0.03,x\u{1}y,0,-1\n0.01,0,0,-1\n0.04,0,0,-1\n"
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", bad)
        let diskError = try #require(flight.readError())
        let meta = try flight.read(lenient: true).reader.meta
        do {
            _ = try fromMemory([.accelerometer: bad], meta: meta)
            Issue.record("a bad row was accepted")
        } catch let error as SensorLogError {
            #expect(error.description == diskError.description)
            #expect(error.line == 5)
        }
        let lenientDisk = try flight.read(lenient: true)
        let reader = try FlightLogReader(meta: meta, files: [.accelerometer: Array(bad.utf8)], options: .init(lenient: true))
        var count = 0
        try reader.forEach { _ in count += 1 }
        #expect(count == lenientDisk.samples.count)
        #expect(reader.skippedLines == lenientDisk.reader.skippedLines)
    }

    /// A missing accelerometer file is the same typed error from memory.
    @Test func missingAccelerometer() throws {
        let meta = try FlightMeta.decode(Data(#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"small"}}"#.utf8))
        #expect(throws: SensorLogError.self) { try fromMemory([.location: Self.location], meta: meta) }
    }

    /// The writer into memory produces the bytes the writer into a directory writes.
    @Test func writerSameBytesAsFiles() throws {
        let flight = TempFlight()
        let meta = try FlightMeta.decode(Data(#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"small"}}"#.utf8))
        let samples: [AccelerometerSample] = (0..<5).map { AccelerometerSample(t: Double($0) * 0.01, x: 0.1 * Double($0), y: -0.5, z: -1) }
        let disk = try FlightLogWriter(directory: flight.path, meta: meta, files: [.accelerometer], resolution: .sensor)
        try disk.append(accelerometer: samples)
        try disk.finish()
        let memory = InMemoryFlight()
        let writer = try FlightLogWriter(memory: memory, meta: meta, files: [.accelerometer], resolution: .sensor)
        try writer.append(accelerometer: samples)
        try writer.finish()
        #expect(memory.files[.accelerometer] == Array(try Data(contentsOf: URL(fileURLWithPath: flight.path + "/accelerometer.csv"))))
        #expect(memory.metaJSON == (try Data(contentsOf: URL(fileURLWithPath: flight.path + "/meta.json"))))
        #expect(memory.files[.location] == nil)
    }
}
