import Foundation

/// What one 40 ms tick tells the calibrator.
package struct CalibrationTick: Sendable {
    /// Mean accelerometer vector of the tick, g (any sign convention).
    package var meanAcceleration: SIMD3<Double>
    /// Whether the tick held accelerometer samples.
    package var hasAccelerometer: Bool
    /// Mean |ω|² of the gyro samples in the tick, (rad/s)²; nil without gyro samples.
    package var gyroMeanSquare: Double?
    /// Largest |ω|² in the tick, (rad/s)².
    package var gyroPeakSquare: Double
    /// Variance of the accelerometer samples within the tick across the apparent vertical, g² (vibration, taps).
    package var withinTickVariance: Double
    /// Creates a tick summary.
    package init(meanAcceleration: SIMD3<Double>, hasAccelerometer: Bool, gyroMeanSquare: Double?, gyroPeakSquare: Double, withinTickVariance: Double) {
        self.meanAcceleration = meanAcceleration; self.hasAccelerometer = hasAccelerometer
        self.gyroMeanSquare = gyroMeanSquare; self.gyroPeakSquare = gyroPeakSquare; self.withinTickVariance = withinTickVariance
    }
}

/// Mount calibration: gravity estimate, steadiness, re-calibration and the in-position / horizontal / noise states.
///
/// Runs at the pipeline's tick rate. Three first-order low-passes of the tick-mean accelerometer vector:
/// a fast one (τ = 0.5 s) for the transverse-acceleration handling test, a steady one (τ = 2 s) for moves and
/// whose direction must hold within 5° for a calibration, and a slow one (τ = `gravityTimeConstantSeconds`) whose direction û is the
/// apparent vertical used for n = f·û. A tick is "handled" when the gyro peak or RMS
/// is large or when the acceleration across the fast vertical is large. While calibrated, handling or a
/// departure of the steady vertical from the calibrated direction by more than `moveAngleDegrees` held for
/// `moveHoldSeconds` drops the calibration; after `steadySecondsToCalibrate` without handling, if the
/// steady direction moved less than 5° over the second half of that time, it becomes the new calibrated one. See docs/detection.md §Mount.
package struct MountCalibrator: Sendable {
    private let fastAlpha: Double
    private let steadyAlpha: Double
    private let slowAlpha: Double
    private let noiseAlpha: Double
    private let gyroPeakSquareLimit: Double
    private let gyroMeanSquareLimit: Double
    private let transverseSquareLimit: Double
    private let moveCosine: Double
    private let stableCosine: Double
    private let moveHoldTicks: Int
    private let steadyTicksNeeded: Int
    private let horizontalCosine: Double
    private let noiseOnSquare: Double
    private let noiseOffSquare: Double
    private let fixedMount: Bool

    private var fast = SIMD3<Double>(0, 0, 0)
    private var slow = SIMD3<Double>(0, 0, 0)
    private var steady = SIMD3<Double>(0, 0, 0)
    private var started = false
    private var calibratedDirection = SIMD3<Double>(0, 0, 1)
    private var steadyReference = SIMD3<Double>(0, 0, 1)
    private var steadyTicks = 0
    private var offAxisTicks = 0
    private var noiseLevel = 0.0

    /// The device is calibrated and steady in its mount.
    package private(set) var inPosition = false
    /// The calibrated direction is within `horizontalAngleDegrees` of the device z axis (device lies flat).
    package private(set) var horizontal = false
    /// Vibration / taps make the accelerometer too noisy to measure.
    package private(set) var inNoise = false
    /// The tick was handled (gyro or transverse acceleration), for diagnostics.
    package private(set) var handledTick = false
    /// Set on the tick where a new calibration was taken (mount change), cleared on the next tick.
    package private(set) var recalibrated = false

    /// Creates a calibrator for a tick interval (seconds) and the configuration's thresholds.
    package init(tickSeconds dt: Double, configuration c: DetectionConfiguration) {
        fastAlpha = dt / (0.5 + dt)
        steadyAlpha = dt / (2 + dt)
        slowAlpha = dt / (max(dt, c.gravityTimeConstantSeconds) + dt)
        noiseAlpha = dt / (1 + dt)
        gyroPeakSquareLimit = c.handlingGyroPeakRadiansPerSecond * c.handlingGyroPeakRadiansPerSecond
        gyroMeanSquareLimit = c.handlingGyroRMSRadiansPerSecond * c.handlingGyroRMSRadiansPerSecond
        transverseSquareLimit = c.handlingTransverseG * c.handlingTransverseG
        moveCosine = cos(c.moveAngleDegrees * .pi / 180)
        stableCosine = cos(5 * Double.pi / 180)
        moveHoldTicks = max(1, Int((c.moveHoldSeconds / dt).rounded()))
        steadyTicksNeeded = max(1, Int((c.steadySecondsToCalibrate / dt).rounded()))
        horizontalCosine = cos(c.horizontalAngleDegrees * .pi / 180)
        noiseOnSquare = c.noiseThresholdG * c.noiseThresholdG
        noiseOffSquare = 0.25 * noiseOnSquare
        fixedMount = c.mount == .fixed
    }

    /// Unit apparent vertical (slow gravity estimate) in the device frame.
    @inline(__always) package var verticalDirection: SIMD3<Double> {
        let length = (slow * slow).sum().squareRoot()
        return length > 0 ? slow / length : SIMD3(0, 0, 1)
    }

    /// The calibrated mount direction (valid while `inPosition`).
    package var mountDirection: SIMD3<Double> { calibratedDirection }

    /// Processes one tick; returns true when `inPosition`, `horizontal` or `inNoise` changed.
    package mutating func update(_ tick: CalibrationTick) -> Bool {
        let before = (inPosition, horizontal, inNoise)
        recalibrated = false
        let f = tick.meanAcceleration
        if !started {
            guard tick.hasAccelerometer else { return false }
            fast = f; slow = f; steady = f; started = true
        } else if tick.hasAccelerometer {
            fast += (f - fast) * fastAlpha
            steady += (f - steady) * steadyAlpha
            slow += (f - slow) * slowAlpha
        }
        let fastLength = (fast * fast).sum().squareRoot()
        let fastDirection = fastLength > 0 ? fast / fastLength : SIMD3<Double>(0, 0, 1)
        let steadyLength = (steady * steady).sum().squareRoot()
        let steadyDirection = steadyLength > 0 ? steady / steadyLength : SIMD3<Double>(0, 0, 1)

        // Handling: gyro peak / RMS, or acceleration across the fast vertical.
        var handled = false
        if let meanSquare = tick.gyroMeanSquare {
            handled = tick.gyroPeakSquare > gyroPeakSquareLimit || meanSquare > gyroMeanSquareLimit
        }
        if tick.hasAccelerometer {
            let along = (f * fastDirection).sum()
            let across = f - fastDirection * along
            if (across * across).sum() > transverseSquareLimit { handled = true }
            noiseLevel += (tick.withinTickVariance - noiseLevel) * noiseAlpha
        }
        // A fixed mount is never handled: attitude changes and accelerations are the aircraft's (docs/detection.md §2).
        if fixedMount { handled = false }
        handledTick = handled
        if inNoise { if noiseLevel < noiseOffSquare { inNoise = false } } else if noiseLevel > noiseOnSquare { inNoise = true }

        if inPosition, fixedMount {
            // Fixed mount: calibrated once, never out of position; only the pipeline's sensor-health gates apply.
        } else if inPosition {
            // Moves are judged on the τ = 2 s direction: turbulence swings the fast one by several degrees.
            let cosine = (steadyDirection * calibratedDirection).sum()
            offAxisTicks = cosine < moveCosine ? offAxisTicks + 1 : 0
            if handled || offAxisTicks >= moveHoldTicks {
                inPosition = false
                steadyTicks = 0
                offAxisTicks = 0
            }
        } else {
            // Steady time counts unhandled ticks (empty ticks at low input rates count too). Halfway, the steady
            // direction is noted; at the end it must not have moved more than 5° since, else wait another half.
            steadyTicks = handled ? 0 : steadyTicks + 1
            if steadyTicks == steadyTicksNeeded / 2 { steadyReference = steadyDirection }
            if steadyTicks >= steadyTicksNeeded, (steadyDirection * steadyReference).sum() < stableCosine {
                steadyTicks = steadyTicksNeeded / 2
                steadyReference = steadyDirection
            }
            if steadyTicks >= steadyTicksNeeded {
                calibratedDirection = steadyDirection
                slow = steady
                inPosition = true
                horizontal = !fixedMount && abs(steadyDirection.z) > horizontalCosine
                recalibrated = true
                offAxisTicks = 0
            }
        }
        return before != (inPosition, horizontal, inNoise)
    }
}
