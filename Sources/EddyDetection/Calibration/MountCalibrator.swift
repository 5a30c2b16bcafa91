import EddyVocabulary
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
    /// Mean gyro vector of the tick less the estimated zero-rate offset, rad/s; nil without gyro samples.
    package var gyroMean: SIMD3<Double>?
    /// Creates a tick summary.
    package init(meanAcceleration: SIMD3<Double>, hasAccelerometer: Bool, gyroMeanSquare: Double?, gyroPeakSquare: Double, withinTickVariance: Double,
                 gyroMean: SIMD3<Double>? = nil) {
        self.meanAcceleration = meanAcceleration; self.hasAccelerometer = hasAccelerometer
        self.gyroMeanSquare = gyroMeanSquare; self.gyroPeakSquare = gyroPeakSquare; self.withinTickVariance = withinTickVariance
        self.gyroMean = gyroMean
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
    // Gradual handling (docs/detection.md §Mount, "tilt" and "turned with the gyro").
    private let quickAlpha: Double
    private let tickSeconds: Double
    private let tiltCosine: Double
    private let tiltDegrees: Double
    private let tiltLimitDegreeSeconds: Double
    private let rotationSine: Double
    private let trendDegrees: Double
    private let trendDrawdownDegrees: Double
    /// Below this cosine the tilt may reach `trendDegrees` (a margin of 1e-12 so that rounding never skips a tick whose
    /// angle is exactly at the trend; the angle itself decides).
    private let trendCosine: Double
    /// Cosine of the quick vertical's tilt from the tilt reference over the last `handlingTiltTrendSeconds` (a ring).
    private var tiltRing: [Double]
    /// The quick vertical's direction over the same window (same index), for the gyro's confirmation of a trend.
    private var trendDirectionRing: [SIMD3<Double>]
    /// The gyro's predicted turn of a fixed force (−ω × f dt) over the same window (zero on ticks without gyro samples).
    private var trendPredictedRing: [SIMD3<Double>]
    private var tiltRingIndex = 0
    /// Reference for the tilt tests: the tick-mean force low-passed with τ = `handlingTiltReferenceSeconds` while in
    /// position, set to the steady vector at each calibration.
    private var tiltReference = SIMD3<Double>(0, 0, 1)
    private let tiltReferenceAlpha: Double
    private var tiltRingFilled = 0
    private let rotationTicksNeeded: Int
    private var quick = SIMD3<Double>(0, 0, 0)
    private let briskAlpha: Double
    private var brisk = SIMD3<Double>(0, 0, 0)
    private var tiltExcessDegreeSeconds = 0.0
    private var directionRing: [SIMD3<Double>]
    private var predictedRing: [SIMD3<Double>]
    /// Sum of `predictedRing` (kept as values enter and leave; summed afresh each time the ring wraps, so rounding does
    /// not drift).
    private var predictedRingSum = SIMD3<Double>(0, 0, 0)
    private var ringIndex = 0
    private var ringFilled = 0
    private var rotatingTicks = 0

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
        // Release at 77 % of the onset RMS: a rattling cradle (≤ 50 mg peak, ≤ 35 mg RMS) must not hold the state
        // after handling set it (the historical 50 % kept it on for good).
        noiseOffSquare = 0.6 * noiseOnSquare
        fixedMount = c.mount == .fixed
        quickAlpha = dt / (0.25 + dt)
        tiltReferenceAlpha = dt / (max(dt, c.handlingTiltReferenceSeconds.isFinite ? c.handlingTiltReferenceSeconds : 10) + dt)
        briskAlpha = dt / (0.08 + dt)
        tickSeconds = dt
        tiltDegrees = c.handlingTiltDegrees
        tiltCosine = cos(c.handlingTiltDegrees * .pi / 180)
        tiltLimitDegreeSeconds = c.handlingTiltDegreeSeconds
        rotationSine = sin(c.handlingRotationDegrees * .pi / 180)
        trendDegrees = c.handlingTiltTrendDegrees
        trendDrawdownDegrees = max(0, c.handlingTiltTrendDrawdownDegrees)
        trendCosine = c.handlingTiltTrendDegrees.isNaN ? 1 : cos(min(180, max(0, c.handlingTiltTrendDegrees)) * .pi / 180) + 1e-12
        // Ticks spanning the window (both ends included), bounded so that no configuration can ask for a huge ring.
        let trendTicks = c.handlingTiltTrendSeconds.isFinite ? min(10_000, max(1, (c.handlingTiltTrendSeconds / dt).rounded())) : 1
        tiltRing = Array(repeating: 1, count: Int(trendTicks) + 1)
        trendDirectionRing = Array(repeating: .zero, count: tiltRing.count)
        trendPredictedRing = Array(repeating: .zero, count: tiltRing.count)
        rotationTicksNeeded = max(1, Int((c.handlingRotationHoldSeconds / dt).rounded()))
        let window = max(2, Int((c.handlingRotationWindowSeconds / dt).rounded()))
        directionRing = Array(repeating: .zero, count: window)
        predictedRing = Array(repeating: .zero, count: window)
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
            fast = f; slow = f; steady = f; quick = f; brisk = f; started = true
        } else if tick.hasAccelerometer {
            fast += (f - fast) * fastAlpha
            steady += (f - steady) * steadyAlpha
            slow += (f - slow) * slowAlpha
            quick += (f - quick) * quickAlpha
            brisk += (f - brisk) * briskAlpha
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
        if tick.hasAccelerometer, inPosition { tiltReference += (f - tiltReference) * tiltReferenceAlpha }
        if tick.hasAccelerometer, gradualHandling(tick) { handled = true }
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
                tiltReference = steady
                inPosition = true
                horizontal = !fixedMount && abs(steadyDirection.z) > horizontalCosine
                recalibrated = true
                offAxisTicks = 0
            }
        }
        return before != (inPosition, horizontal, inNoise)
    }

    /// Gradual handling (a slow pick-up, a slide): the device turns against the specific force, which neither
    /// turbulence (loads along the airframe, swinging back within a second) nor a coordinated manoeuvre (the force
    /// stays fixed in the airframe) does. Two tests, judged only while |f| is 0.5–1.5 g:
    /// - tilt (without gyro too): ∫ (angle of the τ = 0.25 s vector to the tilt reference (τ = 10 s) − `handlingTiltDegrees`) dt
    ///   over one continuous excursion above that angle reaches `handlingTiltDegreeSeconds`;
    /// - turned with the gyro: over the last `handlingRotationWindowSeconds` the direction of the τ = 0.08 s vector
    ///   moved by more than `handlingRotationDegrees` and by what the (offset-corrected) gyro predicts for a rotation
    ///   of the device against a fixed force (−ω × f), within a factor of 1.5 and within 18° in direction (cos 0.95), for
    ///   `handlingRotationHoldSeconds`. An aircraft rolling or pitching turns the device with it but not the force.
    private mutating func gradualHandling(_ tick: CalibrationTick) -> Bool {
        let length = (quick * quick).sum().squareRoot()
        guard length > 0.5, length < 1.5 else {
            tiltExcessDegreeSeconds = 0; rotatingTicks = 0; ringFilled = 0; tiltRingFilled = 0
            return false
        }
        let direction = quick / length
        var handled = false
        let referenceLength = (tiltReference * tiltReference).sum().squareRoot()
        if inPosition, referenceLength > 0 {
            let cosine = (direction * tiltReference).sum() / referenceLength
            if cosine < tiltCosine {
                tiltExcessDegreeSeconds += (Self.degrees(ofCosine: cosine) - tiltDegrees) * tickSeconds
                if tiltExcessDegreeSeconds >= tiltLimitDegreeSeconds { handled = true }
            } else {
                tiltExcessDegreeSeconds = 0
            }
            // With gyro, a trend counts when the gyro turned the device by as much (a sideslip or a roll does not).
            let increment = tick.gyroMean.map { omega in
                SIMD3(omega.y * direction.z - omega.z * direction.y, omega.z * direction.x - omega.x * direction.z,
                      omega.x * direction.y - omega.y * direction.x) * (-tickSeconds)
            }
            if tiltTrend(cosine: cosine, direction: direction, increment: increment) { handled = true }
        } else {
            tiltExcessDegreeSeconds = 0
            tiltRingFilled = 0
        }
        let briskLength = (brisk * brisk).sum().squareRoot()
        guard let omega = tick.gyroMean, briskLength > 0.5, briskLength < 1.5 else { rotatingTicks = 0; ringFilled = 0; return handled }
        let turning = brisk / briskLength
        // A fixed force seen from a device turning at ω changes as ḟ = −ω × f.
        let increment = SIMD3(
            omega.y * turning.z - omega.z * turning.y,
            omega.z * turning.x - omega.x * turning.z,
            omega.x * turning.y - omega.y * turning.x) * (-tickSeconds)
        let count = directionRing.count
        let oldest = directionRing[ringIndex]
        directionRing[ringIndex] = turning
        predictedRingSum += increment - predictedRing[ringIndex]
        predictedRing[ringIndex] = increment
        ringIndex += 1   // wraps with a comparison, not an integer division per tick
        if ringIndex == count {
            ringIndex = 0
            predictedRingSum = .zero
            for value in predictedRing { predictedRingSum += value }
        }
        ringFilled = min(count, ringFilled + 1)
        guard ringFilled == count else { rotatingTicks = 0; return handled }
        let predicted = predictedRingSum
        // `oldest` is the direction `count` ticks ago; the ring's `count` increments lead from it to now.
        let moved = turning - oldest
        let movedSquare = (moved * moved).sum(), predictedSquare = (predicted * predicted).sum()
        let limit = rotationSine * rotationSine
        var rotating = false
        if movedSquare > limit, predictedSquare > limit, movedSquare < 2.25 * predictedSquare, predictedSquare < 2.25 * movedSquare {
            let dot = (moved * predicted).sum()
            rotating = dot > 0.95 * (movedSquare * predictedSquare).squareRoot()
        }
        rotatingTicks = rotating ? rotatingTicks + 1 : 0
        if rotatingTicks >= rotationTicksNeeded { handled = true }
        return handled
    }

    /// Tilt trend (docs/detection.md §2): the quick vertical is at least `handlingTiltTrendDegrees` from the tilt
    /// reference, got there by moving away by at least as much within the last `handlingTiltTrendSeconds`, and never fell back
    /// by more than `handlingTiltTrendDrawdownDegrees` on the way. A device sliding in its cradle tilts steadily;
    /// turbulence's lateral loads swing the vertical back and forth within a second. On a tick with gyro samples
    /// (`increment`: this tick's predicted turn of a fixed force) the gyro must confirm it: over the window the vertical
    /// moved as the summed predictions say, within a factor of 1.5 and 25° (cos 0.9) — a device turned by a hand, not
    /// a force turned by a sideslip or an aircraft rolling with the device (issue 28: a gentle pick-up's first second
    /// is too slow for the 0.5-s rotation test).
    /// The ring holds cosines, so a tick pays for no `acos` (≈ 10 % of the pipeline's time per tick at 50 Hz); angles are
    /// taken only when the newest tilt is beyond the trend's angle, oldest first, so a swing that has not risen stops there.
    private mutating func tiltTrend(cosine: Double, direction: SIMD3<Double>, increment: SIMD3<Double>?) -> Bool {
        let count = tiltRing.count
        tiltRing[tiltRingIndex] = cosine
        trendDirectionRing[tiltRingIndex] = direction
        trendPredictedRing[tiltRingIndex] = increment ?? .zero
        tiltRingIndex += 1
        if tiltRingIndex == count { tiltRingIndex = 0 }
        if tiltRingFilled < count { tiltRingFilled += 1 }
        guard tiltRingFilled == count, cosine <= trendCosine else { return false }
        let angle = Self.degrees(ofCosine: cosine)
        guard angle >= trendDegrees else { return false }
        // The ring from oldest (at tiltRingIndex) to newest.
        let oldest = Self.degrees(ofCosine: tiltRing[tiltRingIndex])
        guard angle - oldest >= trendDegrees else { return false }
        var highest = oldest
        var index = tiltRingIndex
        for _ in 0..<count {
            let value = Self.degrees(ofCosine: tiltRing[index])
            if highest - value > trendDrawdownDegrees { return false }
            highest = max(highest, value)
            index += 1
            if index == count { index = 0 }
        }
        guard increment != nil else { return true }
        // The oldest entry is where the window starts; the predictions after it lead to now.
        let moved = direction - trendDirectionRing[tiltRingIndex]
        var predicted = SIMD3<Double>(0, 0, 0)
        index = tiltRingIndex + 1
        for _ in 1..<count {
            if index == count { index = 0 }
            predicted += trendPredictedRing[index]
            index += 1
        }
        let movedSquare = (moved * moved).sum(), predictedSquare = (predicted * predicted).sum()
        guard movedSquare < 2.25 * predictedSquare, predictedSquare < 2.25 * movedSquare else { return false }
        return (moved * predicted).sum() > 0.9 * (movedSquare * predictedSquare).squareRoot()
    }

    /// The angle whose cosine is `cosine` (clamped to −1…1), degrees.
    private static func degrees(ofCosine cosine: Double) -> Double {
        acos(max(-1, min(1, cosine))) * 180 / .pi
    }
}
