import EddyCore
import EddySensorLog
import Foundation

/// Replay benchmarks (work in progress: reader figure only).
enum ReplayBenchmarks {
    /// Runs the group and prints its figures.
    static func run() throws {
        let dir = NSTemporaryDirectory() + "eddy-bench-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hours = Double(ProcessInfo.processInfo.environment["EDDY_BENCH_HOURS"] ?? "1") ?? 1
        let writer = try FlightLogWriter(directory: dir, meta: FlightMeta(aircraft: .init(aircraftClass: .medium)),
                                         files: [.accelerometer, .gyroscope, .location], resolution: .sensor)
        let n = Int(hours * 3600 * 50)
        var x: UInt64 = 1
        var acc: [AccelerometerSample] = [], gyr: [GyroscopeSample] = [], loc: [LocationSample] = []
        let start0 = Date()
        for i in 0..<n {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let u = Double(x >> 11) / Double(1 << 53) - 0.5
            let t = Double(i) * 0.02
            acc.append(AccelerometerSample(t: t, x: 0.01 * u, y: -0.5 + 0.02 * u, z: -0.86 - 0.01 * u))
            gyr.append(GyroscopeSample(t: t, x: 0.002 * u, y: -0.001 * u, z: 0.003 * u))
            if i % 50 == 0 { loc.append(LocationSample(t: t, latitudeDegrees: 47 + Double(i) * 1e-6, longitudeDegrees: 8.123456, altitudeMeters: 10668, horizontalAccuracyMeters: 5, speedMetersPerSecond: 230, courseDegrees: 90)) }
            if acc.count == 500 {
                try writer.append(location: loc); try writer.append(gyroscope: gyr); try writer.append(accelerometer: acc)
                acc.removeAll(keepingCapacity: true); gyr.removeAll(keepingCapacity: true); loc.removeAll(keepingCapacity: true)
            }
        }
        try writer.append(location: loc); try writer.append(gyroscope: gyr); try writer.append(accelerometer: acc)
        try writer.finish()
        print("write_s: \(Date().timeIntervalSince(start0))")
        let start = Date()
        let reader = try FlightLogReader(directory: dir)
        var count = 0
        var sum = 0.0
        try reader.forEach { sum += $0.t; count += 1 }
        let elapsed = Date().timeIntervalSince(start)
        print("reader_samples: \(count) (\(sum > 0))")
        print("reader_samples_per_s: \(Int(Double(count) / elapsed))")
    }
}
