import EddyImport
import Foundation

/// Import benchmarks (release build), on synthetic 12-hour exports written to a temporary directory at bench time:
/// - `import_sensorlogger_samples_per_s`: Sensor Logger folder (50 Hz TotalAcceleration + Gyroscope, 1 Hz Barometer
///   and Location, epoch-ns stamps) → Eddy flight, samples written per CPU second (read + parse + convert + write).
/// - `import_sensorlog_samples_per_s`: the same flight as one wide SensorLog CSV (25 columns per row).
/// - `import_samples_per_s`: the slower of the two (the heaviest format; target ≥ 2 M).
enum ImportBenchmarks {
    /// Throughput target, samples per second.
    static let target = 2_000_000.0
    static let hours = 12.0

    /// Writes text through a 1 MiB buffer.
    private final class Output {
        let handle: FileHandle
        var buffer: [UInt8] = []
        init(_ path: String) throws {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
            self.handle = handle
            buffer.reserveCapacity(1 << 20 + 4096)
        }
        func line(_ text: String) {
            buffer.append(contentsOf: text.utf8); buffer.append(0x0A)
            if buffer.count >= 1 << 20 { handle.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
        }
        func close() { handle.write(Data(buffer)); try? handle.close() }
    }

    /// A fixed-decimal number without Foundation formatting (fast generation).
    private static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let n = Int64((value * scale).rounded())
        let magnitude = n.magnitude
        let whole = magnitude / UInt64(scale), fraction = magnitude % UInt64(scale)
        var fractionText = String(fraction)
        fractionText = String(repeating: "0", count: decimals - fractionText.count) + fractionText
        return (n < 0 ? "-" : "") + String(whole) + "." + fractionText
    }

    private static func writeSensorLogger(_ directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let start: Int64 = 1_795_600_000_250_000_000
        let count = Int(hours * 3600 * 50)
        var random = BenchSupport.XorShift(state: 0x1234_5678_9ABC_DEF1)
        let accel = try Output(directory + "/TotalAcceleration.csv"), gyro = try Output(directory + "/Gyroscope.csv")
        accel.line("time,seconds_elapsed,z,y,x"); gyro.line("time,seconds_elapsed,z,y,x")
        for k in 0..<count {
            let ns = start + Int64(k) * 20_000_000
            let elapsed = fixed(Double(k) * 0.02, 3)
            accel.line("\(ns),\(elapsed),\(fixed(9.80665 + random.unit() * 0.5 - 0.25, 6)),\(fixed(random.unit() - 0.5, 6)),\(fixed(random.unit() - 0.5, 6))")
            gyro.line("\(ns + 5_000_000),\(elapsed),\(fixed(random.unit() * 0.02 - 0.01, 6)),\(fixed(random.unit() * 0.02 - 0.01, 6)),\(fixed(random.unit() * 0.02 - 0.01, 6))")
        }
        accel.close(); gyro.close()
        let baro = try Output(directory + "/Barometer.csv"), location = try Output(directory + "/Location.csv")
        baro.line("time,seconds_elapsed,relativeAltitude,pressure")
        location.line("time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude")
        let seconds = Int(hours * 3600)
        for s in 0..<seconds {
            let ns = start + Int64(s) * 1_000_000_000
            baro.line("\(ns),\(s),0,\(fixed(1000 - Double(s) * 0.001, 4))")
            location.line("\(ns),\(s),5,0.5,6,4,52.5,51.5,850.0,\(fixed(8.5 + Double(s) * 1e-5, 7)),\(fixed(47.3 + Double(s) * 1e-5, 7))")
        }
        baro.close(); location.close()
        return 2 * count + 2 * seconds
    }

    private static func writeSensorLog(_ path: String) throws -> Int {
        let count = Int(hours * 3600 * 50)
        var random = BenchSupport.XorShift(state: 0x0FED_CBA9_8765_4321)
        let out = try Output(path)
        out.line("loggingTime(txt),loggingSample(N),locationTimestamp_since1970(s),locationLatitude(WGS84),locationLongitude(WGS84),locationAltitude(m),locationSpeed(m/s),locationCourse(°),locationVerticalAccuracy(m),locationHorizontalAccuracy(m),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),gyroRotationZ(rad/s),altimeterTimestamp_sinceReboot(s),altimeterReset(bool),altimeterRelativeAltitude(m),altimeterPressure(kPa),batteryState(N),batteryLevel(R),label(N)")
        var fixes = 0, pressures = 0
        for k in 0..<count {
            let t = Double(k) * 0.02
            let stamp = fixed(1000 + t, 6)
            let second = k / 50
            if k % 50 == 0 { fixes += 1; pressures += 1 }
            out.line("2026-11-25 10:46:40.250 +0100,\(k),\(fixed(1_795_600_000.25 + Double(second), 3)),\(fixed(47.3 + Double(second) * 1e-5, 7)),\(fixed(8.5 + Double(second) * 1e-5, 7)),850.00,52.50,51.5,6.0,4.0,\(stamp),\(fixed(random.unit() * 0.1 - 0.05, 6)),\(fixed(random.unit() * 0.1 - 0.05, 6)),\(fixed(-1 + random.unit() * 0.1 - 0.05, 6)),\(fixed(1000.005 + t, 6)),\(fixed(random.unit() * 0.02 - 0.01, 6)),\(fixed(random.unit() * 0.02 - 0.01, 6)),\(fixed(random.unit() * 0.02 - 0.01, 6)),\(fixed(1000 + Double(second), 6)),0,0.0,\(fixed(100 - Double(second) * 1e-5, 6)),2,0.8,0")
        }
        out.close()
        return 2 * count + fixes + pressures
    }

    private static func measure(_ name: String, source: String, output: String) throws -> Double {
        let cpu0 = BenchSupport.threadCPUSeconds()
        let wall0 = Date()
        let summary = try FlightImport.run(source: source, to: output)
        let cpu = BenchSupport.threadCPUSeconds() - cpu0
        let wall = Date().timeIntervalSince(wall0)
        let rate = Double(summary.totalSamples) / cpu
        print("import_\(name)_samples: \(summary.totalSamples)")
        print("import_\(name)_samples_per_s: \(Int(rate))")
        print("import_\(name)_samples_per_wall_s: \(Int(Double(summary.totalSamples) / wall))")
        return rate
    }

    static func run() throws {
        let directory = NSTemporaryDirectory() + "eddy-bench-import-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try writeSensorLogger(directory + "/sensorlogger")
        let a = try measure("sensorlogger", source: directory + "/sensorlogger", output: directory + "/out1")
        try? FileManager.default.removeItem(atPath: directory + "/sensorlogger")
        try? FileManager.default.removeItem(atPath: directory + "/out1")
        _ = try writeSensorLog(directory + "/sensorlog.csv")
        let b = try measure("sensorlog", source: directory + "/sensorlog.csv", output: directory + "/out2")
        let heaviest = min(a, b)
        print("import_samples_per_s: \(Int(heaviest))")
        print("import_samples_per_s_ratio_to_target: \(String(format: "%.2f", heaviest / target))")
    }
}
