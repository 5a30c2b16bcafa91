/// What one tick's motion samples add up to: the summary every per-tick stage reads.
package struct TickSummary: Sendable {
    /// Mean accelerometer vector of the tick, g (the previous tick's mean when the tick has no sample).
    package var meanAcceleration: SIMD3<Double>
    /// Whether the tick held accelerometer samples.
    package var hasAccelerometer: Bool
    /// |mean accelerometer vector|, g; nil without accelerometer samples.
    package var magnitudeG: Double?
    /// Variance of the accelerometer samples within the tick across the apparent vertical, g² (0 below two samples).
    package var withinTickVariance: Double
    /// Mean gyro vector of the tick, rad/s; nil without gyro samples.
    package var gyroMean: SIMD3<Double>?
    /// Mean |ω|² of the tick's gyro samples, (rad/s)²; nil without gyro samples.
    package var gyroMeanSquare: Double?
    /// Largest |ω|² in the tick, (rad/s)².
    package var gyroPeakSquare: Double
    /// Ticks in a row without accelerometer samples, this one included (0 when it had samples).
    package var emptyTicks: Int
}

/// Per-sample stage (docs/detection.md §1): adds each accelerometer and gyro sample to the open tick's sums (a few
/// additions, nothing else), and closes the tick into one `TickSummary`.
package struct TickAccumulator: Sendable {
    private var accSum = SIMD3<Double>(0, 0, 0)
    private var accSquares = 0.0
    private var alongSum = 0.0
    private var alongSquares = 0.0
    private var accCount = 0
    private var gyroSum = SIMD3<Double>(0, 0, 0)
    private var gyroSquares = 0.0
    private var gyroPeakSquare = 0.0
    private var gyroCount = 0
    private var lastMean = SIMD3<Double>(0, 0, 0)
    private var emptyTicks = 0
    /// The apparent vertical the along-vertical sums use (the calibrator's, as of the last tick).
    package var vertical = SIMD3<Double>(0, 0, 1)
    /// Running mean of accelerometer samples per tick (weight 0.01 per tick with samples; starts at 2).
    package private(set) var samplesPerTick = 2.0

    /// Creates an empty accumulator.
    package init() {}

    /// Adds one accelerometer sample, g.
    @inline(__always) package mutating func addAccelerometer(x: Double, y: Double, z: Double) {
        accSum.x += x; accSum.y += y; accSum.z += z
        accSquares += x * x + y * y + z * z
        let along = x * vertical.x + y * vertical.y + z * vertical.z
        alongSum += along
        alongSquares += along * along
        accCount += 1
    }

    /// Adds one gyroscope sample, rad/s.
    @inline(__always) package mutating func addGyroscope(x: Double, y: Double, z: Double) {
        gyroSum.x += x; gyroSum.y += y; gyroSum.z += z
        let square = x * x + y * y + z * z
        gyroSquares += square
        if square > gyroPeakSquare { gyroPeakSquare = square }
        gyroCount += 1
    }

    /// Closes the open tick: its summary, and empty sums for the next.
    package mutating func close() -> TickSummary {
        let hasAccelerometer = accCount > 0
        var mean = lastMean
        var withinVariance = 0.0
        var magnitude: Double?
        if hasAccelerometer {
            let n = Double(accCount)
            mean = accSum / n
            if accCount > 1 {
                // Within-tick variance across the apparent vertical: vibration and taps, not vertical turbulence.
                let total = accSquares / n - (mean * mean).sum()
                let alongMean = alongSum / n
                withinVariance = max(0, total - (alongSquares / n - alongMean * alongMean))
            }
            lastMean = mean
            emptyTicks = 0
            magnitude = (mean * mean).sum().squareRoot()
            samplesPerTick += (n - samplesPerTick) * 0.01
        } else {
            emptyTicks += 1
        }
        var gyroMean: SIMD3<Double>?
        var gyroMeanSquare: Double?
        if gyroCount > 0 {
            let n = Double(gyroCount)
            gyroMean = gyroSum / n
            gyroMeanSquare = gyroSquares / n
        }
        let summary = TickSummary(
            meanAcceleration: mean, hasAccelerometer: hasAccelerometer, magnitudeG: magnitude, withinTickVariance: withinVariance,
            gyroMean: gyroMean, gyroMeanSquare: gyroMeanSquare, gyroPeakSquare: gyroPeakSquare, emptyTicks: emptyTicks)
        accSum = .zero; accSquares = 0; alongSum = 0; alongSquares = 0; accCount = 0
        gyroSum = .zero; gyroSquares = 0; gyroPeakSquare = 0; gyroCount = 0
        return summary
    }
}
