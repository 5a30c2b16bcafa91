import Foundation
import Testing
@testable import EddySensorLog

/// Issue 15: times the detector cannot use are refused at the reader with the line, and bad bytes are quoted escaped.
@Suite("Sensor-log reader: absurd times and binary input")
struct ReaderRobustnessTests {
    @Test(arguments: ["1e18", "-1e18", "100000000000.5", "9223372036854775807", "1.7976931348623157e308"])
    func absurdTimeIsAnOutOfRangeLine(_ t: String) throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "t,ax,ay,az\n0,0,0,1\n\(t),0,0,1\n")
        let error = try #require(flight.readError())
        #expect(error.kind == .outOfRange && error.line == 3 && error.file == "accelerometer.csv", "\(error)")
        #expect(error.message.hasPrefix("t ") && error.message.contains("beyond ±1e11 s"), "\(error.message)")
        #expect(error.isSkippableLine)
        let lenient = try flight.read(lenient: true)
        #expect(lenient.samples.count == 1)
        #expect(lenient.reader.skippedLines.first?.count == 1)
    }

    @Test func timeAtTheBoundIsAccepted() throws {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "t,ax,ay,az\n-100000000000,0,0,1\n100000000000,0,0,1\n")
        #expect(try flight.read().samples.count == 2)
    }

    @Test func binaryCellsAndHeadersAreEscaped() throws {
        let flight = TempFlight()
        flight.writeMeta()
        let binary: [UInt8] = [0x74, 0x2C, 0x1B, 0x5B, 0x32, 0x4A, 0x00, 0xFF] + Array(repeating: 0x41, count: 300)
        try Data(binary + [0x0A]).write(to: URL(fileURLWithPath: flight.path + "/accelerometer.csv"))
        let header = try #require(flight.readError())
        #expect(header.kind == .badHeader)
        #expect(header.message.contains("\\x1b[2J\\x00\\xff"), "\(header.message)")
        #expect(!header.message.utf8.contains { $0 < 0x20 }, "\(header.message.debugDescription)")
        #expect(header.message.count < 200, "\(header.message.count)")

        flight.write("accelerometer.csv", "t,ax,ay,az\n0,\u{1B}[31mred,0,1\n")
        let cell = try #require(flight.readError())
        #expect(cell.kind == .notANumber && cell.message.contains("\\x1b[31mred"), "\(cell.message)")
    }
}
