import EddyNavigation
import EddyVocabulary
import Foundation

/// The streaming turbulence detector: mount calibration → load factor → band-pass → per-second EDR →
/// per-minute and per-tile reports, with gating. Pure and deterministic; see docs/detection.md.
///
/// Accelerometer samples (any rate, not necessarily uniform) are averaged into 1/`internalRateHz` s
/// ticks; per sample the work is a handful of additions. Everything else runs once per tick, second,
/// minute or location fix. A partial last minute is not reported by `finish`; the open tile crossing is.
package struct DetectionPipeline: Sendable {
    /// The configuration in force.
    package let configuration: DetectionConfiguration
    private let ticksPerSecond: Int
    private let tickSeconds: Double
    private let groundSpeedGateMetersPerSecond: Double
    private let turnRateGateSquare: Double
    private let turnRateGateDegreesPerSecond: Double
    private let mountSettleTicks: Int
    private let gateSettleTicks: Int
    private let window: Int

    // Tick accumulation (per sample).
    private var started = false
    private var tickIndex = 0
    private var tickEnd = 0.0
    private var accSum = SIMD3<Double>(0, 0, 0)
    private var accSquares = 0.0
    private var alongSum = 0.0
    private var alongSquares = 0.0
    private var accCount = 0
    private var vertical = SIMD3<Double>(0, 0, 1)
    private var gyroSum = SIMD3<Double>(0, 0, 0)
    private var gyroSquares = 0.0
    private var gyroPeakSquare = 0.0
    private var gyroCount = 0
    private var lastMean = SIMD3<Double>(0, 0, 0)
    private var emptyTicks = 0
    private var samplesPerTick = 2.0

    // Say why (docs/detection.md §9): input rate, gaps, units, episodes.
    private let groundSpeedMaxAge: Double
    private let minimumSampleRateHz: Double
    private var lastAccTime = -Double.infinity
    private var meanIntervalSeconds = 0.0
    private var intervalsSeen = 0
    private var millisecondLikeRun = 0
    private var lastLongInterval = 0.0
    private var secondMagnitudeSum = 0.0
    private var secondMagnitudeTicks = 0
    private var secondGyroOnlyTurn = false
    private var gyroBias: GyroBiasEstimator
    private var rateEpisode = NoticeEpisode(onsetSeconds: 3, releaseSeconds: 5)
    private var flatEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 1)
    private var gyroEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private var locationEpisode = NoticeEpisode(onsetSeconds: 10, releaseSeconds: 10)
    private var unitsEpisode = NoticeEpisode(onsetSeconds: 2, releaseSeconds: 5)
    private var timeUnitsEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 5)
    private var gapEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 60)
    private var longestGap = 0.0

    // Manoeuvres and ground rolls (docs/detection.md §5).
    private var manoeuvreGate: ManoeuvreGate
    /// The upper part of the EDR band (5 × its bottom … its top): turbulence's level, which a manoeuvre's slow entry barely
    /// reaches.
    private var upperBandFilter: BandPassFilter
    private var upperBandPrimed = false
    private var lastBandOutput: Double?
    private var secondManoeuvre = false
    private var secondManoeuvrePeak = 1.0
    private var episodeManoeuvrePeak = 1.0
    private var manoeuvreEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    private let rotationSpeedMetersPerSecond: Double
    private var groundRoll = false
    private var secondGroundRoll = false
    private var groundRollSpeed = 0.0
    private var recentSpeeds: [(t: Double, speed: Double)] = []
    private var groundRollEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    // Ground vibration without location (docs/detection.md §5 "Ground rolls without location").
    /// Low-pass at `groundVibrationSplitHz` of the band's output: the part of the band below the split.
    private var vibrationSplitFilter: (Biquad, Biquad)
    /// The split in use, Hz (the configuration's, bounded to 0.01 Hz … 0.45 × the tick rate).
    private let vibrationSplitHz: Double
    private let vibrationAlpha: Double
    private var vibrationBandPower = 0.0
    private var vibrationLowPower = 0.0
    /// The band's power over the last seconds (τ = 2 s): the floor is judged on it, so the cue ends within seconds of the
    /// vibration (a taxi stopping), not after the τ = 10 s estimate has decayed.
    private var vibrationRecentPower = 0.0
    private let vibrationRecentAlpha: Double
    private var vibrationTicks = 0
    /// 1 / `vibrationTicks` has fallen to both smoothing factors (it only falls), so they are used as they are.
    private var vibrationWarm = false
    private var vibrationLowTicks = 0
    private let vibrationHoldTicks: Int
    private var secondGroundVibration = false
    private var secondVibrationShare = 1.0
    private var episodeVibrationShare = 1.0
    private var groundVibrationEpisode = NoticeEpisode(onsetSeconds: 1, releaseSeconds: 30)
    /// The band's share of power below the split (τ = `groundVibrationTimeConstantSeconds`), while it is judged; nil
    /// otherwise (for tests and diagnostics).
    package private(set) var groundVibrationShare: Double?

    // Per tick.
    private var calibrator: MountCalibrator
    private var filter: BandPassFilter
    private var filterPrimed = false
    private var turnRate = SIMD3<Double>(0, 0, 0)
    private var turnAlpha: Double
    private var blockedUntilTick = Int.min
    private var deviceBlockedUntilTick = Int.min

    // Per second.
    private var secondSum = 0.0
    private var secondSquares = 0.0
    private var secondTicks = 0
    private var secondValid = true
    private var secondDisturbed = false
    private var ringSum: [Double]
    private var ringSquares: [Double]
    private var ringTicks: [Int]
    private var validRun = 0

    // Per minute.
    private var minuteIndex = Int.min
    private var minuteValues: [Double] = []
    private var minutePeak = 0.0
    private var minuteDisturbed = false

    // Location, model.
    private var groundSpeed: Double?
    private var groundSpeedTime = -Double.infinity
    private var lastFixTime = -Double.infinity
    private var lastCourse: (t: Double, degrees: Double)?
    private var trackRateDegreesPerSecond = 0.0
    private var altitudeMeters: Double?
    private var baroAltitudeMeters: Double?
    private var model: EDRModel
    private var noiseVariance = 0.0
    private var biasFactor = 1.0
    private var tracker: TileTracker
    private var lastTime = 0.0
    /// Minute and tile reports held back until `handlingLookbackSeconds` after their end (docs/detection.md §Mount):
    /// a gradual pick-up is recognised up to 2 s after it began, and a report that ended in between is dropped.
    private var heldReports: [(start: Double, end: Double, event: DetectionEvent)] = []
    private let lookbackSeconds: Double
    /// The last span [recognised − lookback, recognised] in which handling may have begun: a report closing later
    /// that overlaps it (a minute still open when the device went out of position) is dropped too.
    private var disturbanceSpan = (from: -Double.infinity, to: -Double.infinity)

    /// Creates a pipeline.
    package init(configuration: DetectionConfiguration) {
        self.configuration = configuration
        let rate = max(5, configuration.internalRateHz)
        ticksPerSecond = Int(rate.rounded())
        tickSeconds = 1 / Double(ticksPerSecond)
        groundSpeedGateMetersPerSecond = configuration.groundSpeedGateKnots * 1852 / 3600
        turnRateGateDegreesPerSecond = configuration.turnRateGateDegreesPerSecond
        let gate = configuration.turnRateGateDegreesPerSecond * .pi / 180
        turnRateGateSquare = gate * gate
        mountSettleTicks = Int((configuration.mountSettleSeconds * Double(ticksPerSecond)).rounded())
        gateSettleTicks = Int((configuration.gateSettleSeconds * Double(ticksPerSecond)).rounded())
        window = max(1, configuration.windowSeconds)
        lookbackSeconds = configuration.handlingLookbackSeconds.isFinite ? max(0, configuration.handlingLookbackSeconds) : 3
        groundSpeedMaxAge = configuration.groundSpeedMaxAgeSeconds.isFinite ? max(0, configuration.groundSpeedMaxAgeSeconds) : 3
        minimumSampleRateHz = configuration.minimumSampleRateHz
        gyroBias = GyroBiasEstimator(ticksPerSecond: ticksPerSecond)
        manoeuvreGate = ManoeuvreGate(
            tickSeconds: 1 / Double(ticksPerSecond), thresholdG: configuration.manoeuvreLoadThresholdG,
            turbulenceFactor: configuration.manoeuvreTurbulenceFactor, timeConstantSeconds: configuration.manoeuvreTimeConstantSeconds,
            surgeCorrelation: configuration.manoeuvreSurgeCorrelation)
        rotationSpeedMetersPerSecond = configuration.rotationSpeedKnots * 1852 / 3600
        // A 4th-order Butterworth low-pass at the split.
        let split = configuration.groundVibrationSplitHz.isFinite ? min(0.45 * rate, max(0.01, configuration.groundVibrationSplitHz)) : 1
        vibrationSplitHz = split
        let (qa, qb) = BandPassFilter.butterworthQ
        vibrationSplitFilter = (.lowPass(cutoffHz: split, sampleRateHz: Double(ticksPerSecond), q: qa),
                                .lowPass(cutoffHz: split, sampleRateHz: Double(ticksPerSecond), q: qb))
        let vibrationTau = configuration.groundVibrationTimeConstantSeconds.isFinite ? max(0.1, configuration.groundVibrationTimeConstantSeconds) : 10
        vibrationAlpha = (1 / Double(ticksPerSecond)) / (vibrationTau + 1 / Double(ticksPerSecond))
        vibrationRecentAlpha = (1 / Double(ticksPerSecond)) / (2 + 1 / Double(ticksPerSecond))
        let hold = configuration.groundVibrationHoldSeconds.isFinite ? min(3_600, max(0, configuration.groundVibrationHoldSeconds)) : 5
        vibrationHoldTicks = max(1, Int((hold * Double(ticksPerSecond)).rounded()))
        upperBandFilter = BandPassFilter(
            lowHz: 5 * configuration.response.bandLowHz, highHz: configuration.response.bandHighHz, sampleRateHz: Double(ticksPerSecond))
        calibrator = MountCalibrator(tickSeconds: 1 / Double(ticksPerSecond), configuration: configuration)
        let p = configuration.response
        filter = BandPassFilter(lowHz: p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: Double(ticksPerSecond))
        // Turn rate: tick-mean gyro vector low-passed with τ = 2 s, so turbulence-driven oscillating rates average out
        // (JSBSim 737 / C172 in severe turbulence: ≤ 2.9°/s) while turns and roll-ins (≥ 4°/s) persist.
        turnAlpha = (1 / Double(ticksPerSecond)) / (2 + 1 / Double(ticksPerSecond))
        ringSum = [Double](repeating: 0, count: window)
        ringSquares = [Double](repeating: 0, count: window)
        ringTicks = [Int](repeating: 0, count: window)
        minuteValues.reserveCapacity(64)
        model = EDRModel(
            filter: filter, parameters: p, responseGain: p.responseGain,
            trueAirspeedMetersPerSecond: p.nominalTrueAirspeedMetersPerSecond,
            densityKilogramsPerCubicMeter: StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: p.nominalAltitudeMeters),
            windowSeconds: Double(max(1, configuration.windowSeconds)))
        biasFactor = configuration.correctMedianBias ? model.medianBiasFactor : 1
        tracker = TileTracker(
            reporterClass: configuration.aircraftClass, minimumValidSeconds: configuration.minimumValidSecondsPerTile,
            salt: configuration.reportSalt)
    }

    /// Current mount state (as the last position event said).
    package var inPosition: Bool { calibrator.inPosition }
    /// Current horizontal state.
    package var horizontal: Bool { calibrator.horizontal }
    /// The EDR normalisation in use (variance at EDR 1, g²).
    package var unitVariance: Double { model.unitVariance }
    /// Equivalent degrees of freedom of one window variance under the model.
    package var degreesOfFreedom: Double { model.degreesOfFreedom }
    /// The gyroscope zero-rate offset in use, rad/s per device axis (zero until estimated).
    package var gyroBiasRadiansPerSecond: SIMD3<Double> { gyroBias.correction }

    /// Feed one input (any kind, time-ordered); events are appended (rarely) to `events`.
    @inline(__always)
    package mutating func process(_ input: DetectionInput, into events: inout [DetectionEvent]) {
        switch input {
        case .accelerometer(let a):
            if a.t >= tickEnd || !started { guard advance(to: a.t, into: &events) else { return } }
            guard (a.x + a.y + a.z).isFinite else { return }   // a host pushing NaN / ∞ must not poison the state
            let interval = a.t - lastAccTime
            lastAccTime = a.t
            if interval > 0.5 || intervalsSeen < 8 { longInterval(interval, endingAt: a.t, into: &events) }
            else if interval > 0 { meanIntervalSeconds += (interval - meanIntervalSeconds) * 0.02 }
            accSum.x += a.x; accSum.y += a.y; accSum.z += a.z
            accSquares += a.x * a.x + a.y * a.y + a.z * a.z
            let along = a.x * vertical.x + a.y * vertical.y + a.z * vertical.z
            alongSum += along
            alongSquares += along * along
            accCount += 1
        case .gyroscope(let g):
            if g.t >= tickEnd || !started { guard advance(to: g.t, into: &events) else { return } }
            guard (g.x + g.y + g.z).isFinite else { return }
            gyroSum.x += g.x; gyroSum.y += g.y; gyroSum.z += g.z
            let square = g.x * g.x + g.y * g.y + g.z * g.z
            gyroSquares += square
            if square > gyroPeakSquare { gyroPeakSquare = square }
            gyroCount += 1
        case .location(let navigated):
            if navigated.t >= tickEnd || !started { guard advance(to: navigated.t, into: &events) else { return } }
            handleFix(navigated, into: &events)
        case .barometer(let b, let navigated):
            if b.t >= tickEnd || !started { guard advance(to: b.t, into: &events) else { return } }
            // Navigation took the reading (and refused a bad one at most once per reason a minute); its warning is
            // reported here, in time order with the ticks.
            if let warning = navigated.warning { events.append(.warning(warning)) }
            if navigated.accepted, configuration.aircraftClass == .small {
                baroAltitudeMeters = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: b.pressureHectopascals) * 0.3048
            }
        }
    }

    /// Flush at end of stream: closes the open tile crossing and the open notice episodes; a partial minute is dropped
    /// (it is not a full minute).
    package mutating func finish(into events: inout [DetectionEvent]) {
        var closed: [DetectionEvent] = []
        tracker.finish(at: lastTime, into: &closed)
        hold(closed, into: &events)
        for report in heldReports { events.append(report.event) }
        heldReports.removeAll()
        rateEpisode.close(at: lastTime, into: &events)
        flatEpisode.close(at: lastTime, into: &events)
        gyroEpisode.close(at: lastTime, into: &events)
        locationEpisode.close(at: lastTime, into: &events)
        unitsEpisode.close(at: lastTime, into: &events)
        timeUnitsEpisode.close(at: lastTime, into: &events)
        if gapEpisode.active { gapEpisode.kind = .timeGap(longestSeconds: longestGap) }
        gapEpisode.close(at: lastTime, into: &events)
        manoeuvreEpisode.close(at: lastTime, into: &events)
        groundRollEpisode.close(at: lastTime, into: &events)
        groundVibrationEpisode.close(at: lastTime, into: &events)
    }

    /// The rare path of an accelerometer interval (> 0.5 s, or one of the first few): rate estimate, gaps, `t` in ms.
    private mutating func longInterval(_ interval: Double, endingAt t: Double, into events: inout [DetectionEvent]) {
        guard interval.isFinite, interval > 0 else { return }
        intervalsSeen += 1
        if intervalsSeen == 1 { meanIntervalSeconds = interval }
        // `t` in milliseconds: steps of 2.5–1100 "s" (200 Hz … 1 Hz in ms), ten in a row within ±50 % of each other.
        if interval > 2.5, interval < 1_100, lastLongInterval > 0, abs(interval / lastLongInterval - 1) < 0.5 {
            millisecondLikeRun += 1
        } else if interval > 2.5, interval < 1_100 {
            millisecondLikeRun = 1
        } else {
            millisecondLikeRun = 0
        }
        lastLongInterval = interval
        let gapLimit = max(1.0, 5 * meanIntervalSeconds)
        if interval > gapLimit, millisecondLikeRun < 10 {
            longestGap = gapEpisode.active ? max(longestGap, interval) : interval
            gapEpisode.gap(from: t - interval, to: t, kind: .timeGap(longestSeconds: longestGap), into: &events)
        } else {
            meanIntervalSeconds += (interval - meanIntervalSeconds) * (intervalsSeen <= 8 ? 1 / Double(intervalsSeen) : 0.02)
        }
    }

    // MARK: - Ticks

    /// Moves the tick clock to `t`; false (sample ignored) for a time that is not finite or beyond ±10¹¹ s.
    private mutating func advance(to t: Double, into events: inout [DetectionEvent]) -> Bool {
        guard t.isFinite, abs(t) < 1e11 else { return false }
        lastTime = max(lastTime, t)
        let target = Int((t * Double(ticksPerSecond)).rounded(.down))
        if !started {
            started = true
            tickIndex = target
            tickEnd = Double(target + 1) * tickSeconds
            minuteIndex = Self.floorDiv(Self.floorDiv(target, ticksPerSecond), 60)
            events.append(.position(PositionEvent(t: t, inPosition: false, horizontal: false, inNoise: false)))
            return true
        }
        // Long gap (> 60 s): close the current tick, then jump instead of stepping through empty ticks.
        if target - tickIndex > 60 * ticksPerSecond {
            closeTick(into: &events)
            let jumpTo = target - ticksPerSecond  // keep one second of empty ticks so the gap is gated normally
            while tickIndex % ticksPerSecond != 0 { closeTick(into: &events) }
            if jumpTo > tickIndex {
                let second = Self.floorDiv(jumpTo, ticksPerSecond)
                tickIndex = second * ticksPerSecond
                validRun = 0
                blockedUntilTick = max(blockedUntilTick, tickIndex + gateSettleTicks)
                filter.reset(); filterPrimed = false
                let minute = Self.floorDiv(second, 60)
                if minute != minuteIndex { closeMinute(into: &events); minuteIndex = minute }
            }
        }
        while target > tickIndex { closeTick(into: &events) }
        tickEnd = Double(tickIndex + 1) * tickSeconds
        return true
    }

    @inline(__always) private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private mutating func closeTick(into events: inout [DetectionEvent]) {
        let tick = tickIndex
        let hasAccelerometer = accCount > 0
        var mean = lastMean
        var withinVariance = 0.0
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
            secondMagnitudeSum += (mean * mean).sum().squareRoot()
            secondMagnitudeTicks += 1
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
        let wasInPosition = calibrator.inPosition, wasInNoise = calibrator.inNoise
        let changed = calibrator.update(CalibrationTick(
            meanAcceleration: mean, hasAccelerometer: hasAccelerometer, gyroMeanSquare: gyroMeanSquare,
            gyroPeakSquare: gyroPeakSquare, withinTickVariance: withinVariance,
            gyroMean: gyroMean.map { $0 - gyroBias.correction }))
        if changed {
            events.append(.position(PositionEvent(
                t: Double(tick + 1) * tickSeconds, inPosition: calibrator.inPosition,
                horizontal: calibrator.horizontal, inNoise: calibrator.inNoise)))
            if (wasInPosition && !calibrator.inPosition) || (!wasInNoise && calibrator.inNoise) {
                // The disturbance may have begun up to the lookback before it was recognised.
                let recognised = Double(tick + 1) * tickSeconds
                disturbanceSpan = (recognised - lookbackSeconds, recognised)
                heldReports.removeAll { $0.end > recognised - lookbackSeconds }
            }
        }
        accSum = .zero; accSquares = 0; alongSum = 0; alongSquares = 0; accCount = 0
        vertical = calibrator.verticalDirection
        gyroSum = .zero; gyroSquares = 0; gyroPeakSquare = 0; gyroCount = 0

        // Gates.
        let tickTime = Double(tick + 1) * tickSeconds
        let deviceGate = !calibrator.inPosition || calibrator.horizontal || calibrator.inNoise || emptyTicks > ticksPerSecond / 2
        // A fix's speed and track rate are used only while the fix is fresh (`groundSpeedMaxAgeSeconds`).
        let fixFresh = tickTime - lastFixTime <= groundSpeedMaxAge
        let trackRate = fixFresh ? trackRateDegreesPerSecond : 0
        let speedFresh = tickTime - groundSpeedTime <= groundSpeedMaxAge
        var onGround = groundSpeed.map { $0 < groundSpeedGateMetersPerSecond && speedFresh } ?? false
        // Ground roll: once on the ground, the aircraft stays there until a fresh speed reaches the rotation speed (a
        // take-off roll between 50 kt and V_R is still on the runway); a landing roll is caught by its braking.
        if onGround { groundRoll = true }
        if groundRoll {
            if let speed = groundSpeed, speedFresh, speed < rotationSpeedMetersPerSecond {
                onGround = true
                groundRollSpeed = speed
                if speed >= groundSpeedGateMetersPerSecond { secondGroundRoll = true }
            } else {
                groundRoll = false
            }
        }
        // The manoeuvre gate: the load factor held away from 1 g (ManoeuvreGate).
        var across: SIMD3<Double>?
        var alongDeviation: Double?
        if hasAccelerometer, !deviceGate {
            let v = calibrator.verticalDirection
            let along = (mean * v).sum()
            across = mean - v * along
            alongDeviation = along - manoeuvreGate.referenceG
        }
        let manoeuvre = configuration.manoeuvreGate
            && manoeuvreGate.update(
                magnitudeG: hasAccelerometer ? (mean * mean).sum().squareRoot() : nil, bandOutputG: deviceGate ? nil : lastBandOutput,
                acrossG: across, alongDeviationG: alongDeviation)
        if manoeuvre {
            secondManoeuvre = true
            let n = manoeuvreGate.loadFactorG
            if abs(n - 1) > abs(secondManoeuvrePeak - 1) { secondManoeuvrePeak = n }
        }
        if configuration.estimateGyroBias {
            let straight = fixFresh && lastCourse != nil && trackRate < GyroBiasEstimator.straightTrackRateDegreesPerSecond
                && calibrator.inPosition && !calibrator.handledTick
            let gnssTurning = fixFresh && lastCourse != nil && trackRate >= GyroBiasEstimator.straightTrackRateDegreesPerSecond
            gyroBias.add(gyroMean: gyroMean, accelerationMean: hasAccelerometer ? mean : nil, straight: straight, turning: gnssTurning,
                         onGround: onGround)
        }
        if let gyroMean { turnRate += (gyroMean - gyroBias.correction - turnRate) * turnAlpha }
        let gyroTurning = (turnRate * turnRate).sum() > turnRateGateSquare
        let trackTurning = trackRate > turnRateGateDegreesPerSecond
        let turning = gyroTurning || trackTurning
        if gyroTurning && !trackTurning && fixFresh { secondGyroOnlyTurn = true }
        if deviceGate || calibrator.recalibrated {
            deviceBlockedUntilTick = max(deviceBlockedUntilTick, tick + 1 + mountSettleTicks)
        }
        if turning || onGround || manoeuvre {
            blockedUntilTick = max(blockedUntilTick, tick + 1 + gateSettleTicks)
        }
        var y = 0.0
        if deviceGate {
            if filterPrimed { filter.reset(); filterPrimed = false }
            if upperBandPrimed { upperBandFilter.reset(); upperBandPrimed = false }
            lastBandOutput = nil
            resetGroundVibration()
        } else {
            let n = (mean * calibrator.verticalDirection).sum()
            y = filter.process(n - 1)
            filterPrimed = true
            lastBandOutput = upperBandFilter.process(n - 1)
            upperBandPrimed = true
            if groundVibration(bandOutput: y, speedKnown: speedFresh && groundSpeed != nil) {
                secondGroundVibration = true
                secondVibrationShare = min(secondVibrationShare, groundVibrationShare ?? 1)
                blockedUntilTick = max(blockedUntilTick, tick + 1 + gateSettleTicks)
            }
        }
        let disturbed = tick < deviceBlockedUntilTick
        if disturbed { secondDisturbed = true }
        if disturbed || tick < blockedUntilTick { secondValid = false }
        secondSum += y
        secondSquares += y * y
        secondTicks += 1

        tickIndex += 1
        if tickIndex % ticksPerSecond == 0 { closeSecond(Self.floorDiv(tickIndex, ticksPerSecond) - 1, into: &events) }
    }

    // MARK: - Seconds, minutes

    private mutating func closeSecond(_ second: Int, into events: inout [DetectionEvent]) {
        // Input that cannot be measured (rate below the minimum, values in the wrong unit): nothing is reported as a
        // severity, and minutes / tiles holding such a second are dropped like device trouble.
        let secondStart = Double(second)
        let rateHz = intervalsSeen > 0 && meanIntervalSeconds > 0 ? 1 / meanIntervalSeconds : Double.infinity
        let lowRate = intervalsSeen >= 2 && rateHz < minimumSampleRateHz && millisecondLikeRun < 10
        let magnitude = secondMagnitudeTicks > 0 ? secondMagnitudeSum / Double(secondMagnitudeTicks) : 1
        secondMagnitudeSum = 0; secondMagnitudeTicks = 0
        var unitsProblem: UnitsProblem?
        if magnitude > 6, magnitude < 14 { unitsProblem = .accelerationInMetersPerSecondSquared(magnitude: magnitude) }
        else if magnitude > 600, magnitude < 1_400 { unitsProblem = .accelerationInMilliG(magnitude: magnitude) }
        let millisecondTime = millisecondLikeRun >= 10
        if lowRate || unitsProblem != nil || millisecondTime { secondValid = false; secondDisturbed = true }
        let slot = ((second % window) + window) % window   // seconds before the time origin are negative
        ringSum[slot] = secondSum
        ringSquares[slot] = secondSquares
        ringTicks[slot] = secondTicks
        validRun = secondValid && secondTicks == ticksPerSecond ? validRun + 1 : 0
        var edr: Double?
        if validRun >= window {
            var sum = 0.0, squares = 0.0, count = 0
            for i in 0..<window { sum += ringSum[i]; squares += ringSquares[i]; count += ringTicks[i] }
            let n = Double(count)
            let variance = max(0, squares / n - (sum / n) * (sum / n))
            edr = (max(0, variance - noiseVariance) / model.unitVariance).squareRoot() * biasFactor
        }
        let minute = Self.floorDiv(second, 60)
        if minute != minuteIndex {
            closeMinute(into: &events)
            minuteIndex = minute
        }
        if secondDisturbed { minuteDisturbed = true }
        if let edr {
            minuteValues.append(edr)
            minutePeak = max(minutePeak, edr)
        }
        tracker.addSecond(edr: edr, disturbed: secondDisturbed, at: Double(second + 1))
        let lost = edr == nil
        rateEpisode.second(
            held: lowRate, kind: .sampleRateBelowMinimum(rateHz: rateHz, minimumHz: minimumSampleRateHz),
            at: secondStart, cost: lost, into: &events)
        flatEpisode.second(held: calibrator.horizontal, kind: .deviceFlat(mount: configuration.mount), at: secondStart, cost: lost, into: &events)
        let bias = gyroBias.correction
        let biasDegrees = bias * (180 / Double.pi)
        gyroEpisode.second(
            held: (biasDegrees * biasDegrees).sum() > 1, kind: .gyroOffset(offsetDegreesPerSecond: biasDegrees),
            at: secondStart, cost: lost && secondGyroOnlyTurn, into: &events)
        let located = Double(second + 1) - lastFixTime <= groundSpeedMaxAge
        locationEpisode.second(held: !located, kind: .noLocation, at: secondStart, cost: true, into: &events)
        unitsEpisode.second(held: unitsProblem != nil, kind: unitsProblem.map { MeasurementNotice.Kind.unitsLookWrong($0) }, at: secondStart, cost: lost, into: &events)
        timeUnitsEpisode.second(
            held: millisecondTime, kind: .unitsLookWrong(.timeInMilliseconds(stepSeconds: lastLongInterval)),
            at: secondStart, cost: lost, into: &events)
        if gapEpisode.active, secondStart - gapEpisode.lastHeld >= Double(gapEpisode.releaseSeconds) {
            gapEpisode.kind = .timeGap(longestSeconds: longestGap)
            gapEpisode.close(at: gapEpisode.lastHeld, into: &events)
        }
        // The notice carries the load factor furthest from 1 g in the episode.
        if secondManoeuvre {
            if abs(secondManoeuvrePeak - 1) > abs(episodeManoeuvrePeak - 1) { episodeManoeuvrePeak = secondManoeuvrePeak }
        } else if !manoeuvreEpisode.active {
            episodeManoeuvrePeak = 1
        }
        manoeuvreEpisode.second(
            held: secondManoeuvre, kind: .manoeuvre(loadFactorG: episodeManoeuvrePeak), at: secondStart, cost: lost, into: &events)
        if !manoeuvreEpisode.active && !secondManoeuvre { episodeManoeuvrePeak = 1 }
        groundRollEpisode.second(
            held: secondGroundRoll, kind: .groundRoll(speedKnots: groundRollSpeed * 3600 / 1852, rotationKnots: configuration.rotationSpeedKnots),
            at: secondStart, cost: lost, into: &events)
        if secondGroundVibration {
            episodeVibrationShare = min(episodeVibrationShare, secondVibrationShare)
        } else if !groundVibrationEpisode.active {
            episodeVibrationShare = 1
        }
        groundVibrationEpisode.second(
            held: secondGroundVibration,
            kind: .groundVibration(lowShare: episodeVibrationShare, splitHz: vibrationSplitHz),
            at: secondStart, cost: lost, into: &events)
        if !groundVibrationEpisode.active && !secondGroundVibration { episodeVibrationShare = 1 }
        secondManoeuvre = false; secondManoeuvrePeak = 1; secondGroundRoll = false; secondGroundVibration = false
        secondVibrationShare = 1
        secondGyroOnlyTurn = false
        if !heldReports.isEmpty { releaseHeld(before: Double(second + 1), into: &events) }
        secondSum = 0; secondSquares = 0; secondTicks = 0; secondValid = true; secondDisturbed = false
        // Noise floor: nominal white noise, averaged over the samples of a tick, through the band.
        let sigma = configuration.sensorNoiseRMSg
        noiseVariance = sigma * sigma / max(1, samplesPerTick) * model.noiseBandwidthHz / (Double(ticksPerSecond) / 2)
    }

    private mutating func closeMinute(into events: inout [DetectionEvent]) {
        defer { minuteValues.removeAll(keepingCapacity: true); minutePeak = 0; minuteDisturbed = false }
        guard minuteIndex != Int.min, !minuteDisturbed, minuteValues.count >= configuration.minimumValidSecondsPerMinute else { return }
        let count = minuteValues.count
        let median = Statistics.median(&minuteValues)
        let end = Double(minuteIndex + 1) * 60
        holdReport(start: end - 60, end: end, .minute(MinuteEvent(
            t: end, edrMedian: median, edrPeak: minutePeak,
            severity: SeverityScale.severity(edr: median, viewer: configuration.aircraftClass), validSeconds: count)))
    }

    /// Holds a report back, or drops it when it overlaps the span in which recognised handling may have begun.
    private mutating func holdReport(start: Double, end: Double, _ event: DetectionEvent) {
        if end > disturbanceSpan.from, start < disturbanceSpan.to { return }
        heldReports.append((start, end, event))
    }

    /// Holds the tile reports among `closed` back (see `heldReports`); passes anything else on.
    private mutating func hold(_ closed: [DetectionEvent], into events: inout [DetectionEvent]) {
        for event in closed {
            if case .tile(let report) = event { holdReport(start: report.enterTime, end: report.exitTime, event) } else { events.append(event) }
        }
    }

    /// Releases the held reports that ended at least the lookback before `t`, in order.
    private mutating func releaseHeld(before t: Double, into events: inout [DetectionEvent]) {
        var released = 0
        while released < heldReports.count, heldReports[released].end <= t - lookbackSeconds {
            events.append(heldReports[released].event)
            released += 1
        }
        if released > 0 { heldReports.removeFirst(released) }
    }

    // MARK: - Location

    private mutating func handleFix(_ navigated: NavigatedFix, into events: inout [DetectionEvent]) {
        let placement = navigated.placement
        if let warning = placement.warning { events.append(.warning(warning)) }
        // A fix whose position is not used still gives its altitude and speed, at the filter's prediction.
        let fix = placement.altitudeInput
        lastFixTime = fix.t
        // The fix's own speed, else the position filter's velocity when it is known to ±10 m/s (68 %): a fix without
        // speed must not lift the ground gate, nor may the filter's first guess (0 ± 100 m/s) set it.
        if let speed = placement.received.speedMetersPerSecond, speed.isFinite, speed >= 0 {
            groundSpeed = speed; groundSpeedTime = fix.t
        } else if let speed = fix.speedMetersPerSecond, speed.isFinite, speed >= 0,
                  let uncertainty = placement.velocityUncertainty68MetersPerSecond, uncertainty <= 10 {
            groundSpeed = speed; groundSpeedTime = fix.t
        } else {
            groundSpeed = nil
        }
        noteBraking()
        if let course = fix.courseDegrees, course.isFinite, course >= 0 {
            if let last = lastCourse, fix.t > last.t, fix.t - last.t <= 5 {
                var delta = course - last.degrees
                delta -= 360 * (delta / 360).rounded()
                trackRateDegreesPerSecond = abs(delta) / (fix.t - last.t)
            } else {
                trackRateDegreesPerSecond = 0
            }
            lastCourse = (fix.t, course)
        } else {
            trackRateDegreesPerSecond = 0
            lastCourse = nil
        }
        let estimate = navigated.altitude
        if let estimate {
            altitudeMeters = estimate.pressureAltitudeFeet * 0.3048
            events.append(.altitude(estimate))
        }
        updateModel()
        var tile: TileID?
        if placement.placed != nil, fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite, let estimate,
           let cell = configuration.tileIndexer.cell(fix.latitudeDegrees, fix.longitudeDegrees) {
            tile = TileID(h3: cell, layer: estimate.layer)
        }
        var closed: [DetectionEvent] = []
        tracker.update(tile: tile, at: fix.t, altitude: tile == nil ? nil : estimate, into: &closed)
        hold(closed, into: &events)
    }

    /// Ground vibration without location: true when no fresh speed is known, the band holds at least
    /// `groundVibrationMinimumLightFraction` of the light threshold (as EDR, τ = 2 s), and less than
    /// `groundVibrationLowShare` of its power (τ = `groundVibrationTimeConstantSeconds`, after a running mean over the first
    /// τ) has lain below the split for `groundVibrationHoldSeconds`. On the
    /// ground the gear transmits the runway's profile, whose acceleration grows with frequency up to and beyond the heave
    /// resonance (1.5–2 Hz); in the air the plunge response puts most of the gust load below 1 Hz (docs/detection.md §5).
    private mutating func groundVibration(bandOutput y: Double, speedKnown: Bool) -> Bool {
        let low = vibrationSplitFilter.1.process(vibrationSplitFilter.0.process(y))
        vibrationTicks += 1
        // A running mean (1/n) until it falls to the filter's α, then α: the division is paid only while warming up.
        let alpha = vibrationWarm ? vibrationAlpha : max(vibrationAlpha, 1 / Double(vibrationTicks))
        let recentAlpha = vibrationWarm ? vibrationRecentAlpha : max(vibrationRecentAlpha, 1 / Double(vibrationTicks))
        if !vibrationWarm, 1 / Double(vibrationTicks) <= min(vibrationAlpha, vibrationRecentAlpha) { vibrationWarm = true }
        vibrationBandPower += (y * y - vibrationBandPower) * alpha
        vibrationLowPower += (low * low - vibrationLowPower) * alpha
        vibrationRecentPower += (y * y - vibrationRecentPower) * recentAlpha
        groundVibrationShare = nil
        guard configuration.groundVibrationLowShare > 0, !speedKnown, Double(vibrationTicks) * vibrationAlpha >= 1,
              vibrationBandPower > 0, model.unitVariance > 0 else { vibrationLowTicks = 0; return false }
        let light = SeverityScale.minimumEDR(for: .light, viewer: configuration.aircraftClass)
        let edr = (max(0, vibrationRecentPower - noiseVariance) / model.unitVariance).squareRoot() * biasFactor
        guard edr >= configuration.groundVibrationMinimumLightFraction * light else { vibrationLowTicks = 0; return false }
        let share = vibrationLowPower / vibrationBandPower
        groundVibrationShare = share
        vibrationLowTicks = share < configuration.groundVibrationLowShare ? vibrationLowTicks + 1 : 0
        return vibrationLowTicks >= vibrationHoldTicks
    }

    /// Forgets the ground-vibration estimates (the band restarts after device trouble).
    private mutating func resetGroundVibration() {
        guard vibrationTicks > 0 else { return }
        vibrationSplitFilter.0.reset(); vibrationSplitFilter.1.reset()
        vibrationBandPower = 0; vibrationLowPower = 0; vibrationRecentPower = 0; vibrationTicks = 0; vibrationLowTicks = 0; vibrationWarm = false
        groundVibrationShare = nil
    }

    /// Landing roll: a fresh speed below 1.3 × the rotation speed falling by more than `brakingMetersPerSecondSquared`
    /// over the last 3 s (wheel brakes and reversers give 1.5–3 m/s²; in flight an aircraft slows at ≤ 1 m/s²) puts the
    /// aircraft on the ground until it is back at the rotation speed.
    private mutating func noteBraking() {
        guard let speed = groundSpeed, groundSpeedTime == lastFixTime else { recentSpeeds.removeAll(); return }
        recentSpeeds.append((lastFixTime, speed))
        recentSpeeds.removeAll { lastFixTime - $0.t > 3.5 || $0.t > lastFixTime }
        guard let first = recentSpeeds.first, lastFixTime - first.t >= 2.5 else { return }
        let deceleration = (first.speed - speed) / (lastFixTime - first.t)
        if speed < 1.3 * rotationSpeedMetersPerSecond, deceleration > configuration.brakingMetersPerSecondSquared { groundRoll = true }
    }

    /// Recomputes the ε = 1 variance when speed or density moved by more than 2 % (rare: a few times per flight).
    private mutating func updateModel() {
        let p = configuration.response
        var speed = groundSpeed ?? p.nominalTrueAirspeedMetersPerSecond
        if speed < groundSpeedGateMetersPerSecond { speed = max(speed, groundSpeedGateMetersPerSecond) }
        let altitude = altitudeMeters ?? baroAltitudeMeters ?? p.nominalAltitudeMeters
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: min(20_000, max(-500, altitude)))
        if abs(speed / model.trueAirspeedMetersPerSecond - 1) > 0.02 || abs(rho / model.densityKilogramsPerCubicMeter - 1) > 0.02 {
            model = EDRModel(filter: filter, parameters: p, responseGain: p.responseGain,
                             trueAirspeedMetersPerSecond: speed, densityKilogramsPerCubicMeter: rho,
                             windowSeconds: Double(window))
            biasFactor = configuration.correctMedianBias ? model.medianBiasFactor : 1
        }
    }
}
