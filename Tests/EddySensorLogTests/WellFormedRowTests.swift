import EddyVocabulary
import Foundation
import Testing
@testable import EddySensorLog

/// The reader's one-pass path for well-formed rows (`CSVReadState.nextWellFormedRow`) gives what the general path gives:
/// the same values, and for every line it declines the general path's samples, errors and line numbers.
@Suite struct WellFormedRowTests {
    private static let meta = try! FlightMeta.decode(Data(#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"medium"}}"#.utf8))

    private func read(_ accelerometer: String, lenient: Bool = false) throws -> (samples: [SensorSample], reader: FlightLogReader) {
        let reader = try FlightLogReader(meta: Self.meta, files: [.accelerometer: Array(accelerometer.utf8)], options: .init(lenient: lenient))
        var samples: [SensorSample] = []
        try reader.forEach { samples.append($0) }
        return (samples, reader)
    }

    private func error(_ accelerometer: String) -> SensorLogError? {
        do {
            _ = try read(accelerometer)
            return nil
        } catch let error as SensorLogError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// The value the general cell parser gives for a cell's text.
    private func general(_ text: String) throws -> Double {
        guard case .value(let value) = NumberParser.parse(text) else {
            throw SensorLogError(kind: .notANumber, file: "test", message: "\(text) is not a number", advice: "")
        }
        return value
    }

    /// Rows of every shape the one-pass path takes or declines (LF and CRLF ends, a blank line, an exponent, blanks
    /// around a number, 16 digits, a missing last newline), over more than two 256 KiB chunks so that rows straddle a
    /// refill: each sample is the general parser's reading of its cells.
    @Test func sameValuesAsTheGeneralParser() throws {
        var text = "t,ax,ay,az\n"
        var expected: [[String]] = []
        var line = 0
        var t = 0.0
        while text.utf8.count < 600_000 {
            line += 1
            t += 0.02
            let time = String(format: "%.4f", t)
            var cells = [time, String(format: "%.4f", Double(line % 997) * 0.0013 - 0.5), "-0.0", String(format: "%.1f", -1.0 - Double(line % 13) * 0.1)]
            switch line % 9 {
            case 1: cells[1] = "1.5e-3"
            case 2: cells[2] = " 0.25 "
            case 3: cells[3] = "-1.000000000000001"
            case 4: cells[1] = ".5"
            case 5: cells[2] = "7."
            default: break
            }
            expected.append(cells)
            text += cells.joined(separator: ",") + (line % 4 == 0 ? "\r\n" : "\n")
            if line % 50 == 0 { text += "\n" }
        }
        text += "\(String(format: "%.4f", t + 0.02)),0.1,0.2,-0.9"
        expected.append([String(format: "%.4f", t + 0.02), "0.1", "0.2", "-0.9"])
        let samples = try read(text).samples
        #expect(samples.count == expected.count)
        for (sample, cells) in zip(samples, expected) {
            let values = try cells.map(general)
            #expect(sample == .accelerometer(AccelerometerSample(t: values[0], x: values[1], y: values[2], z: values[3])))
        }
    }

    /// A bad line after well-formed ones: the general path's error, with the line's number.
    @Test func badLinesKeepTheirErrorsAndLineNumbers() throws {
        let good = "t,ax,ay,az\n0.00,0.1,0.2,-1\n0.02,0.1,0.2,-1\r\n0.04,0.1,0.2,-1\n"
        let cases: [(line: String, kind: SensorLogError.Kind, lineNumber: Int)] = [
            ("0.06,0.1,0.2,-1,5\n", .wrongFieldCount, 5),
            ("0.06,0.1,0.2\n", .wrongFieldCount, 5),
            ("\n0.03,0.1,0.2,-1\n", .timeWentBackwards, 6),
            ("0.06,0.1,0.2,-1\r0.08,0,0,-1\n", .notANumber, 5),
            ("200000000000,0.1,0.2,-1\n", .outOfRange, 5),
        ]
        for bad in cases {
            let refused = try #require(error(good + bad.line))
            #expect(refused.kind == bad.kind)
            #expect(refused.line == bad.lineNumber)
        }
        let lenient = try read(good + "0.06,0.1,0.2,-1,5\n0.08,0.1,0.2,-1\n", lenient: true)
        #expect(lenient.samples.count == 4)
        #expect(lenient.reader.skippedLines.first?.count == 1)
        #expect(lenient.reader.skippedLines.first?.first?.line == 5)
    }

    /// A barometer row out of range is the general path's error (the one-pass path declines it).
    @Test func barometerRangeKeepsItsError() throws {
        let files: [SensorFileKind: [UInt8]] = [
            .accelerometer: Array("t,ax,ay,az\n0,0,0,-1\n".utf8),
            .barometer: Array("t,pressure_hpa\n0,1013.2\n1,2500\n".utf8),
        ]
        do {
            let reader = try FlightLogReader(meta: Self.meta, files: files)
            try reader.forEach { _ in }
            Issue.record("a pressure of 2500 hPa was accepted")
        } catch let error as SensorLogError {
            #expect(error.kind == .outOfRange)
            #expect(error.file == "barometer.csv")
            #expect(error.line == 3)
        }
    }
}
