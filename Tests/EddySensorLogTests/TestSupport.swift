import EddyVocabulary
import Foundation
@testable import EddySensorLog

/// A fresh temporary flight directory, removed when the value is released.
final class TempFlight {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "eddy-log-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a file inside the flight.
    func write(_ name: String, _ text: String) {
        try! Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    /// Writes a minimal valid meta.json.
    func writeMeta(aircraftClass: String = "medium", extra: String = "") {
        write("meta.json", #"{"format":"eddy-sensor-log","version":1,"time_origin":"2026-11-22T10:00:00Z","aircraft":{"type":"B738","class":"\#(aircraftClass)"}\#(extra)}"#)
    }

    /// Reads the whole flight.
    func read(lenient: Bool = false) throws -> (reader: FlightLogReader, samples: [SensorSample]) {
        let reader = try FlightLogReader(directory: path, options: .init(lenient: lenient))
        var samples: [SensorSample] = []
        try reader.forEach { samples.append($0) }
        return (reader, samples)
    }

    /// The SensorLogError thrown by opening and reading the flight (nil when it reads fine).
    func readError(lenient: Bool = false) -> SensorLogError? {
        do {
            _ = try read(lenient: lenient)
            return nil
        } catch let error as SensorLogError {
            return error
        } catch {
            return SensorLogError(kind: .io, file: "?", message: "unexpected error type \(error)", advice: "")
        }
    }
}
