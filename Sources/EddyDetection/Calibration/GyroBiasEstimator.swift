import Foundation

/// Estimates the gyroscope's zero-rate offset (bias) in the device frame, so the hard-turn gate sees real rates
/// (docs/detection.md §2, "Gyro bias").
///
/// Works on 1-s blocks of tick-mean gyro and accelerometer vectors. A block is used when
/// - the device is **steady on the ground**: the tick-mean gyro varies by less than 0.01 rad/s (0.57 °/s) RMS and the
///   accelerometer by less than 5 mg RMS over the block, with a fresh fix below the ground-speed gate (parked, taxi
///   stops): its mean rate is the bias (Earth's rate, 0.004 °/s, is below anything that matters); time constant 10 s.
///   Only on the ground: in the air a coordinated roll-in in smooth air is a constant rotation with the specific force
///   fixed in the device frame, which a steady test cannot tell from an offset (it took a 10 °/s roll-in for 0.9 °/s
///   of bias and un-gated the roll-in of the next turn);
/// - or the aircraft flies **straight**: the GNSS track rate is below 1 °/s on every tick of the block and the device
///   is in position and not handled. Then the true yaw, pitch and roll rates average ≈ 0 (turbulence makes them
///   oscillate, ±0.2 rad/s at 0.2–1 Hz), so the mean gyro vector is the bias; time constant 60 s.
///
/// A straight block is used only when the flight was straight for 5 s before it and stays straight for 5 s after it:
/// the GNSS track rate comes from 1-Hz fixes and lags a roll-in or roll-out by seconds, so without this margin the
/// seconds of a roll (5 °/s) at either end of a turn would be taken for bias.
///
/// Until enough blocks are used the estimate is the plain running mean of the blocks (weight 1/n), so it converges as
/// fast as the data allows; then it becomes a first-order low-pass with the time constant of the block's kind.
/// It is `ready` after 5 blocks (5 s).
package struct GyroBiasEstimator: Sendable {
    /// Block length, ticks.
    private let blockTicks: Int
    /// Tick-mean gyro variance limit of a steady block, (rad/s)².
    package static let steadyGyroVariance = 0.01 * 0.01
    /// Tick-mean accelerometer variance limit of a steady block, g².
    package static let steadyAccelerationVariance = 0.005 * 0.005
    /// GNSS track rate below which flight is straight, degrees/s.
    package static let straightTrackRateDegreesPerSecond = 1.0
    /// Time constant of steady blocks, seconds.
    package static let steadyTimeConstantSeconds = 10.0
    /// Time constant of straight-flight blocks, seconds.
    package static let straightTimeConstantSeconds = 60.0
    /// Blocks needed before the estimate is used.
    package static let blocksToBeReady = 5

    private var ticks = 0
    private var gyroTicks = 0
    private var gyroSum = SIMD3<Double>(0, 0, 0)
    private var gyroSquares = 0.0
    private var accSum = SIMD3<Double>(0, 0, 0)
    private var accSquares = 0.0
    private var accTicks = 0
    private var allStraight = true
    private var anyTurning = false
    /// Whether every tick of the block was on the ground (a fresh fix below the ground-speed gate).
    private var allOnGround = true
    private var anyOnGround = false
    /// Straight blocks waiting for their 5-s look-ahead (oldest first).
    private var pending: [SIMD3<Double>] = []
    /// Straight blocks still to skip after the last turning tick.
    private var skipBlocks = 0
    /// Look-ahead of straight blocks, blocks (seconds).
    package static let straightLookAheadBlocks = 5

    /// The estimated offset, rad/s per device axis (zero before any block).
    package private(set) var bias = SIMD3<Double>(0, 0, 0)
    /// Blocks used so far.
    package private(set) var blocksUsed = 0

    /// Creates an estimator for the pipeline's tick rate.
    package init(ticksPerSecond: Int) { blockTicks = max(1, ticksPerSecond) }

    /// Whether enough blocks were used for the estimate to replace zero.
    package var ready: Bool { blocksUsed >= Self.blocksToBeReady }

    /// Below this |bias| no correction is applied (it is within the estimate's own scatter, ≈ 0.4 °/s, and a tenth of the
    /// 4 °/s turn gate), so a good gyro's gating stays exactly what it was, rad/s (0.5 °/s).
    package static let smallestCorrectionRadiansPerSecond = 0.5 * Double.pi / 180

    /// The correction to subtract from gyro readings: the estimate once ready and above 0.5 °/s, else zero. Stored
    /// (updated when a block is used), because the pipeline reads it several times a tick.
    package private(set) var correction = SIMD3<Double>(0, 0, 0)

    /// Adds one tick: its mean gyro vector (nil without gyro samples), mean accelerometer vector (nil without samples),
    /// and whether the flight was straight with the device in position and unhandled on that tick.
    package mutating func add(gyroMean: SIMD3<Double>?, accelerationMean: SIMD3<Double>?, straight: Bool, turning: Bool = false,
                              onGround: Bool = false) {
        if onGround { anyOnGround = true } else { allOnGround = false }
        ticks += 1
        if turning { anyTurning = true }
        if let g = gyroMean {
            gyroSum += g
            gyroSquares += (g * g).sum()
            gyroTicks += 1
        }
        if let a = accelerationMean {
            accSum += a
            accSquares += (a * a).sum()
            accTicks += 1
        }
        if !straight { allStraight = false; pending.removeAll(keepingCapacity: true); skipBlocks = Self.straightLookAheadBlocks + 1 }
        guard ticks >= blockTicks else { return }
        defer {
            ticks = 0; gyroTicks = 0; gyroSum = .zero; gyroSquares = 0; accSum = .zero; accSquares = 0; accTicks = 0
            allStraight = true; anyTurning = false; allOnGround = true; anyOnGround = false
        }
        // A block needs gyro data on (nearly) every tick: low-rate gyros are not estimated.
        guard gyroTicks * 10 >= blockTicks * 9 else { return }
        let n = Double(gyroTicks)
        let mean = gyroSum / n
        let gyroVariance = max(0, gyroSquares / n - (mean * mean).sum())
        var steady = false
        if accTicks * 10 >= blockTicks * 9 {
            let m = Double(accTicks)
            let accMean = accSum / m
            let accVariance = max(0, accSquares / m - (accMean * accMean).sum())
            // A constant-rate turn in smooth air looks steady too: not while the GNSS track says the aircraft turns.
            steady = allOnGround && anyOnGround && !anyTurning && gyroVariance < Self.steadyGyroVariance && accVariance < Self.steadyAccelerationVariance
        }
        if steady {
            use(mean, timeConstantSeconds: Self.steadyTimeConstantSeconds)
        } else if allStraight, skipBlocks > 0 {
            skipBlocks -= 1
        } else if allStraight {
            pending.append(mean)
            if pending.count > Self.straightLookAheadBlocks {
                use(pending.removeFirst(), timeConstantSeconds: Self.straightTimeConstantSeconds)
            }
        }
    }

    private mutating func use(_ mean: SIMD3<Double>, timeConstantSeconds tau: Double) {
        let blockSeconds = 1.0
        blocksUsed += 1
        let alpha = max(1 / Double(blocksUsed), blockSeconds / (tau + blockSeconds))
        bias += (mean - bias) * alpha
        let limit = Self.smallestCorrectionRadiansPerSecond
        correction = ready && (bias * bias).sum() > limit * limit ? bias : .zero
    }
}
