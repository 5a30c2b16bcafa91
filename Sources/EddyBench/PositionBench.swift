import EddyNavigation
import EddyVocabulary
import Foundation

/// Position filter benchmarks: updates per second of CPU of the horizontal estimators (docs/position.md §8).
enum PositionBenchmarks {

    /// One hour of 10 Hz fixes on a 3 °/s turn at 120 kt with deterministic ±10 m noise and speed/course.
    private static func fixes() -> [LocationSample] {
        var state: UInt64 = 0x5EED_F11E
        func unit() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state >> 11) * 0x1.0p-53
        }
        let speed = 61.7, turnRate = 3.0 * .pi / 180, radius = speed / turnRate
        let metersPerDegreeLat = 111_200.0, metersPerDegreeLon = 111_200.0 * cos(47.0 * .pi / 180)
        return (0..<36_000).map { i in
            let t = Double(i) * 0.1, angle = turnRate * t
            let east = radius * sin(angle) + 10 * (unit() - 0.5), north = radius * (1 - cos(angle)) + 10 * (unit() - 0.5)
            let course = (90 - angle * 180 / .pi).truncatingRemainder(dividingBy: 360)
            return LocationSample(t: t, latitudeDegrees: 47 + north / metersPerDegreeLat,
                                  longitudeDegrees: 8 + east / metersPerDegreeLon, horizontalAccuracyMeters: 8,
                                  speedMetersPerSecond: speed, courseDegrees: course < 0 ? course + 360 : course)
        }
    }

    /// Best-of-5 CPU and wall rates of feeding every fix to a fresh estimator of `method`.
    private static func measure(_ method: PositionFilterMethod, _ fixes: [LocationSample]) -> (cpu: Double, wall: Double) {
        var bestCPU = Double.infinity, bestWall = Double.infinity
        var sink = 0.0
        for _ in 0..<5 {
            var estimator = PositionEstimator(method: method)
            let wall0 = DispatchTime.now().uptimeNanoseconds
            let cpu0 = BenchSupport.threadCPUSeconds()
            for fix in fixes { sink += estimator.update(fix).position?.latitudeDegrees ?? 0 }
            bestCPU = min(bestCPU, BenchSupport.threadCPUSeconds() - cpu0)
            bestWall = min(bestWall, Double(DispatchTime.now().uptimeNanoseconds - wall0) / 1e9)
        }
        if sink.isNaN { print("# unexpected NaN") }
        return (Double(fixes.count) / bestCPU, Double(fixes.count) / bestWall)
    }

    /// Runs the group and prints its figures.
    static func run() {
        let fixes = fixes()
        for (name, method) in [("kalman", PositionFilterMethod.kalman), ("running_average", .runningAverage),
                               ("least_squares", .leastSquares)] {
            let r = measure(method, fixes)
            print("position_\(name)_updates_per_s: \(Int(r.cpu))")
            print("position_\(name)_updates_per_s_wall: \(Int(r.wall))")
        }
        let kalman = measure(.kalman, fixes)
        // CPU share of one core for a 10 Hz fix stream.
        print("position_kalman_cpu_fraction_at_10hz: \(String(format: "%.2e", 10 / kalman.cpu))")
    }
}
