import EddyNavigation
import EddyVocabulary

/// The streaming turbulence detector: mount calibration → load factor → band-pass → per-second EDR →
/// per-minute and per-tile reports, with gating. Pure and deterministic; see docs/detection.md.
///
/// The pipeline is wiring: its stages (`DetectionStages`, each owning its state; docs/detection.md "Stages") are fed
/// per sample (tick sums, input diagnostics), per 40 ms tick, per second and per location fix, in a fixed order. Per
/// sample the work is a handful of additions. A partial last minute is not reported by `finish`; the open tile crossing is.
package struct DetectionPipeline: Sendable {
    /// The configuration in force.
    package let configuration: DetectionConfiguration
    private var stages: DetectionStages
    private let ticksPerSecond: Int
    private let tickSeconds: Double
    private var started = false
    private var tickIndex = 0
    private var tickEnd = 0.0
    private var lastTime = 0.0

    /// Creates a pipeline.
    package init(configuration: DetectionConfiguration) {
        self.configuration = configuration
        stages = DetectionStages(configuration: configuration)
        ticksPerSecond = stages.ticksPerSecond
        tickSeconds = 1 / Double(ticksPerSecond)
    }

    /// Current mount state (as the last position event said).
    package var inPosition: Bool { stages.calibrator.inPosition }
    /// Current horizontal state.
    package var horizontal: Bool { stages.calibrator.horizontal }
    /// The EDR normalisation in use (variance at EDR 1, g²).
    package var unitVariance: Double { stages.edr.model.unitVariance }
    /// Equivalent degrees of freedom of one window variance under the model.
    package var degreesOfFreedom: Double { stages.edr.model.degreesOfFreedom }
    /// The gyroscope zero-rate offset in use, rad/s per device axis (zero until estimated).
    package var gyroBiasRadiansPerSecond: SIMD3<Double> { stages.gyroBias.correction }
    /// The ground-vibration cue's share of band power below its split, while it is judged (`GroundVibration.share`).
    package var groundVibrationShare: Double? { stages.vibration.share }

    /// Feed one input (any kind, time-ordered); events are appended (rarely) to `events`.
    @inline(__always)
    package mutating func process(_ input: DetectionInput, into events: inout [DetectionEvent]) {
        var recorder = NoStageRecorder()
        process(input, into: &events, recorder: &recorder)
    }

    /// `process(_:into:)`, telling `recorder` every stage call (the stage-cost meter).
    @inline(__always)
    package mutating func process<R: StageRecorder>(_ input: DetectionInput, into events: inout [DetectionEvent], recorder: inout R) {
        switch input {
        case .accelerometer(let a):
            if a.t >= tickEnd || !started { guard advance(to: a.t, into: &events, recorder: &recorder) else { return } }
            guard (a.x + a.y + a.z).isFinite else { return }   // a host pushing NaN / ∞ must not poison the state
            if R.isRecording { recorder.record(.inputAccelerometer(a.t)) }
            if let gap = stages.input.accelerometer(at: a.t) {
                if R.isRecording { recorder.record(.noticeGap(gap, endingAt: a.t)) }
                stages.notices.gap(gap, endingAt: a.t, into: &events)
            }
            if R.isRecording { recorder.record(.tickAccelerometer(SIMD3(a.x, a.y, a.z))) }
            stages.ticks.addAccelerometer(x: a.x, y: a.y, z: a.z)
        case .gyroscope(let g):
            if g.t >= tickEnd || !started { guard advance(to: g.t, into: &events, recorder: &recorder) else { return } }
            guard (g.x + g.y + g.z).isFinite else { return }
            if R.isRecording { recorder.record(.tickGyroscope(SIMD3(g.x, g.y, g.z))) }
            stages.ticks.addGyroscope(x: g.x, y: g.y, z: g.z)
        case .location(let navigated):
            if navigated.t >= tickEnd || !started { guard advance(to: navigated.t, into: &events, recorder: &recorder) else { return } }
            handleFix(navigated, into: &events, recorder: &recorder)
        case .barometer(let b, let navigated):
            if b.t >= tickEnd || !started { guard advance(to: b.t, into: &events, recorder: &recorder) else { return } }
            // Navigation took the reading (and refused a bad one at most once per reason a minute); its warning is
            // reported here, in time order with the ticks.
            if let warning = navigated.warning { events.append(.warning(warning)) }
            if navigated.accepted, configuration.aircraftClass == .small {
                let meters = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: b.pressureHectopascals) * 0.3048
                if R.isRecording { recorder.record(.edrBarometer(meters)) }
                stages.edr.barometerAltitude(meters: meters)
            }
        }
    }

    /// Flush at end of stream: closes the open tile crossing and the open notice episodes; a partial minute is dropped
    /// (it is not a full minute).
    package mutating func finish(into events: inout [DetectionEvent]) {
        var recorder = NoStageRecorder()
        finish(into: &events, recorder: &recorder)
    }

    /// `finish(into:)`, telling `recorder` every stage call.
    package mutating func finish<R: StageRecorder>(into events: inout [DetectionEvent], recorder: inout R) {
        var closed: [DetectionEvent] = []
        if R.isRecording { recorder.record(.tileFinish(lastTime)) }
        stages.tiles.finish(at: lastTime, into: &closed)
        if R.isRecording { recorder.record(rare: .holdClosed(closed)); recorder.record(.holdFlush); recorder.record(.noticeFinish(lastTime)) }
        stages.holdBack.hold(closed, into: &events)
        stages.holdBack.flush(into: &events)
        stages.notices.finish(at: lastTime, into: &events)
    }

    // MARK: - Ticks

    /// Moves the tick clock to `t`; false (sample ignored) for a time that is not finite or beyond ±10¹¹ s.
    private mutating func advance<R: StageRecorder>(to t: Double, into events: inout [DetectionEvent], recorder: inout R) -> Bool {
        guard t.isFinite, abs(t) < 1e11 else { return false }
        lastTime = max(lastTime, t)
        let target = Int((t * Double(ticksPerSecond)).rounded(.down))
        if !started {
            started = true
            tickIndex = target
            tickEnd = Double(target + 1) * tickSeconds
            let minute = Self.floorDiv(Self.floorDiv(target, ticksPerSecond), 60)
            if R.isRecording { recorder.record(.minuteStart(minute)) }
            stages.minutes.start(at: minute)
            events.append(.position(PositionEvent(t: t, inPosition: false, horizontal: false, inNoise: false)))
            return true
        }
        // Long gap (> 60 s): close the current tick, then jump instead of stepping through empty ticks.
        if target - tickIndex > 60 * ticksPerSecond {
            closeTick(into: &events, recorder: &recorder)
            let jumpTo = target - ticksPerSecond  // keep one second of empty ticks so the gap is gated normally
            while tickIndex % ticksPerSecond != 0 { closeTick(into: &events, recorder: &recorder) }
            if jumpTo > tickIndex {
                let second = Self.floorDiv(jumpTo, ticksPerSecond)
                tickIndex = second * ticksPerSecond
                if R.isRecording {
                    recorder.record(.edrGap); recorder.record(.settleGap(tickIndex)); recorder.record(.bandsGap)
                    recorder.record(.minuteMove(Self.floorDiv(second, 60)))
                }
                stages.edr.gap()
                stages.settle.gap(resumingAtTick: tickIndex)
                stages.bands.gap()
                if let report = stages.minutes.move(to: Self.floorDiv(second, 60)) { hold(report, recorder: &recorder) }
            }
        }
        while target > tickIndex { closeTick(into: &events, recorder: &recorder) }
        tickEnd = Double(tickIndex + 1) * tickSeconds
        return true
    }

    @inline(__always) private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Holds a finished minute back.
    private mutating func hold<R: StageRecorder>(_ report: HeldReport, recorder: inout R) {
        if R.isRecording { recorder.record(rare: .holdReport(report)) }
        stages.holdBack.hold(report)
    }

    private mutating func closeTick<R: StageRecorder>(into events: inout [DetectionEvent], recorder: inout R) {
        let tick = tickIndex
        let tickTime = Double(tick + 1) * tickSeconds
        if R.isRecording { recorder.record(.tickClose) }
        let summary = stages.ticks.close()
        if let magnitude = summary.magnitudeG {
            if R.isRecording { recorder.record(.inputTick(magnitude)) }
            stages.input.tick(magnitudeG: magnitude)
        }
        let mean = summary.meanAcceleration
        calibrate(summary, at: tickTime, into: &events, recorder: &recorder)
        let vertical = stages.calibrator.verticalDirection
        if R.isRecording { recorder.record(.tickVertical(vertical)) }
        stages.ticks.vertical = vertical
        let inPosition = stages.calibrator.inPosition, handled = stages.calibrator.handledTick
        let recalibrated = stages.calibrator.recalibrated

        // Gates.
        let deviceGate = !inPosition || stages.calibrator.horizontal || stages.calibrator.inNoise || summary.emptyTicks > ticksPerSecond / 2
        if R.isRecording { recorder.record(.motionTick(tickTime)) }
        let motion = stages.motion.tick(at: tickTime)
        if motion.rollingAboveGate {
            if R.isRecording { recorder.record(.noticeGroundRoll) }
            stages.notices.groundRoll()
        }
        let manoeuvre = configuration.manoeuvreGate && manoeuvreTick(summary, deviceGate: deviceGate, vertical: vertical, recorder: &recorder)
        if configuration.estimateGyroBias {
            let straightTrack = motion.fixFresh && motion.hasCourse
                && motion.trackRateDegreesPerSecond < GyroBiasEstimator.straightTrackRateDegreesPerSecond
            let straight = straightTrack && inPosition && !handled
            let gnssTurning = motion.fixFresh && motion.hasCourse
                && motion.trackRateDegreesPerSecond >= GyroBiasEstimator.straightTrackRateDegreesPerSecond
            let accelerationMean = summary.hasAccelerometer ? mean : nil
            if R.isRecording {
                recorder.record(.gyroBias(gyroMean: summary.gyroMean, accelerationMean: accelerationMean, straight: straight,
                                          turning: gnssTurning, onGround: motion.onGround))
            }
            stages.gyroBias.add(gyroMean: summary.gyroMean, accelerationMean: accelerationMean, straight: straight, turning: gnssTurning,
                                onGround: motion.onGround)
        }
        let offset = stages.gyroBias.correction
        if R.isRecording {
            recorder.record(.turn(gyroMean: summary.gyroMean, offset: offset, trackRateDegreesPerSecond: motion.trackRateDegreesPerSecond,
                                  fixFresh: motion.fixFresh))
        }
        let turn = stages.turn.tick(gyroMean: summary.gyroMean, offset: offset, trackRateDegreesPerSecond: motion.trackRateDegreesPerSecond,
                                    fixFresh: motion.fixFresh)
        if turn.gyroOnly {
            if R.isRecording { recorder.record(.noticeGyroOnlyTurn) }
            stages.notices.gyroOnlyTurn()
        }
        if deviceGate || recalibrated {
            if R.isRecording { recorder.record(.settleDevice(tick)) }
            stages.settle.deviceTrouble(atTick: tick)
        }
        if turn.turning || motion.onGround || manoeuvre {
            if R.isRecording { recorder.record(.settleGate(tick)) }
            stages.settle.gate(atTick: tick)
        }
        var y = 0.0
        if deviceGate {
            if R.isRecording { recorder.record(.bandsReset); recorder.record(.vibrationReset) }
            stages.bands.reset()
            stages.vibration.reset()
        } else {
            let deviation = (mean * vertical).sum() - 1
            if R.isRecording { recorder.record(.bands(deviation)) }
            y = stages.bands.process(deviation)
            let scale = stages.edr.scale
            if R.isRecording { recorder.record(.vibration(bandOutput: y, speedKnown: motion.speedKnown, scale: scale)) }
            if stages.vibration.tick(bandOutput: y, speedKnown: motion.speedKnown, scale: scale) {
                let share = stages.vibration.share
                if R.isRecording { recorder.record(.noticeGroundVibration(share)); recorder.record(.settleGate(tick)) }
                stages.notices.groundVibration(share: share)
                stages.settle.gate(atTick: tick)
            }
        }
        if R.isRecording { recorder.record(.settleState(tick)) }
        let state = stages.settle.state(ofTick: tick)
        if R.isRecording { recorder.record(.edrTick(bandOutput: y, disturbed: state.disturbed, valid: state.valid)) }
        stages.edr.tick(bandOutput: y, disturbed: state.disturbed, valid: state.valid)

        tickIndex += 1
        if tickIndex % ticksPerSecond == 0 { closeSecond(Self.floorDiv(tickIndex, ticksPerSecond) - 1, into: &events, recorder: &recorder) }
    }

    /// The tick through the mount calibrator (with the gyro's offset removed); a position event when its state changed,
    /// and the hold-back told when the device went out of position or into noise.
    @inline(__always)
    private mutating func calibrate<R: StageRecorder>(_ summary: TickSummary, at tickTime: Double, into events: inout [DetectionEvent],
                                                      recorder: inout R) {
        let tick = CalibrationTick(
            meanAcceleration: summary.meanAcceleration, hasAccelerometer: summary.hasAccelerometer, gyroMeanSquare: summary.gyroMeanSquare,
            gyroPeakSquare: summary.gyroPeakSquare, withinTickVariance: summary.withinTickVariance,
            gyroMean: summary.gyroMean.map { $0 - stages.gyroBias.correction })
        let wasInPosition = stages.calibrator.inPosition, wasInNoise = stages.calibrator.inNoise
        if R.isRecording { recorder.record(.calibration(tick)) }
        guard stages.calibrator.update(tick) else { return }
        let inPosition = stages.calibrator.inPosition, inNoise = stages.calibrator.inNoise
        events.append(.position(PositionEvent(t: tickTime, inPosition: inPosition, horizontal: stages.calibrator.horizontal, inNoise: inNoise)))
        if (wasInPosition && !inPosition) || (!wasInNoise && inNoise) {
            // The disturbance may have begun up to the lookback before it was recognised.
            if R.isRecording { recorder.record(.holdDisturbance(tickTime)) }
            stages.holdBack.disturbance(recognisedAt: tickTime)
        }
    }

    /// The manoeuvre gate's tick: |f̄|, the previous tick's upper-band output, and f̄ across and along the vertical.
    @inline(__always)
    private mutating func manoeuvreTick<R: StageRecorder>(_ summary: TickSummary, deviceGate: Bool, vertical: SIMD3<Double>,
                                                          recorder: inout R) -> Bool {
        var across: SIMD3<Double>?
        var alongDeviation: Double?
        if summary.hasAccelerometer, !deviceGate {
            let along = (summary.meanAcceleration * vertical).sum()
            across = summary.meanAcceleration - vertical * along
            alongDeviation = along - stages.manoeuvre.referenceG
        }
        let band = deviceGate ? nil : stages.bands.lastUpperOutput
        if R.isRecording { recorder.record(.manoeuvre(magnitudeG: summary.magnitudeG, bandOutputG: band, acrossG: across, alongDeviationG: alongDeviation)) }
        guard stages.manoeuvre.update(magnitudeG: summary.magnitudeG, bandOutputG: band, acrossG: across, alongDeviationG: alongDeviation)
        else { return false }
        let n = stages.manoeuvre.loadFactorG
        if R.isRecording { recorder.record(.noticeManoeuvre(n)) }
        stages.notices.manoeuvre(loadFactorG: n)
        return true
    }

    // MARK: - Seconds

    private mutating func closeSecond<R: StageRecorder>(_ second: Int, into events: inout [DetectionEvent], recorder: inout R) {
        // Input that cannot be measured (rate below the minimum, values in the wrong unit): nothing is reported as a
        // severity, and minutes / tiles holding such a second are dropped like device trouble.
        let secondStart = Double(second)
        let secondEnd = Double(second + 1)
        if R.isRecording { recorder.record(.inputSecond) }
        let verdict = stages.input.closeSecond()
        if R.isRecording { recorder.record(.edrSecond(second, unmeasurable: verdict.unmeasurable)) }
        let edr = stages.edr.closeSecond(second, unmeasurable: verdict.unmeasurable)
        let disturbed = stages.edr.secondDisturbed
        let minute = Self.floorDiv(second, 60)
        if R.isRecording { recorder.record(.minuteMove(minute)); recorder.record(.minuteAdd(edr: edr, disturbed: disturbed)) }
        if let report = stages.minutes.move(to: minute) { hold(report, recorder: &recorder) }
        stages.minutes.add(edr: edr, disturbed: disturbed)
        if R.isRecording { recorder.record(.tileSecond(edr: edr, disturbed: disturbed, t: secondEnd)) }
        stages.tiles.addSecond(edr: edr, disturbed: disturbed, at: secondEnd)
        let facts = SecondFacts(
            input: verdict, horizontal: stages.calibrator.horizontal, gyroOffset: stages.gyroBias.correction,
            located: stages.motion.isLocated(at: secondEnd), groundRollSpeedMetersPerSecond: stages.motion.groundRollSpeedMetersPerSecond,
            lost: edr == nil)
        if R.isRecording { recorder.record(.noticeSecond(facts, at: secondStart)) }
        stages.notices.second(facts, at: secondStart, into: &events)
        if !stages.holdBack.isEmpty {
            if R.isRecording { recorder.record(.holdRelease(secondEnd)) }
            stages.holdBack.release(before: secondEnd, into: &events)
        }
        let samplesPerTick = stages.ticks.samplesPerTick
        if R.isRecording { recorder.record(.edrStartSecond(samplesPerTick: samplesPerTick)) }
        stages.edr.startSecond(samplesPerTick: samplesPerTick)
    }

    // MARK: - Location

    private mutating func handleFix<R: StageRecorder>(_ navigated: NavigatedFix, into events: inout [DetectionEvent], recorder: inout R) {
        let placement = navigated.placement
        if let warning = placement.warning { events.append(.warning(warning)) }
        // A fix whose position is not used still gives its altitude and speed, at the filter's prediction.
        let fix = placement.altitudeInput
        if R.isRecording {
            recorder.record(.motionFix(t: fix.t, receivedSpeed: placement.received.speedMetersPerSecond, filteredSpeed: fix.speedMetersPerSecond,
                                       velocityUncertainty68: placement.velocityUncertainty68MetersPerSecond, courseDegrees: fix.courseDegrees))
        }
        stages.motion.fix(at: fix.t, receivedSpeed: placement.received.speedMetersPerSecond, filteredSpeed: fix.speedMetersPerSecond,
                          velocityUncertainty68: placement.velocityUncertainty68MetersPerSecond, courseDegrees: fix.courseDegrees)
        let estimate = navigated.altitude
        if let estimate { events.append(.altitude(estimate)) }
        // The air density's altitude: the geometric (MSL) one when known — in a uniform ISA ± 10 °C atmosphere at 35,000
        // ft it is within ≈ 330 ft of the density altitude, where the pressure altitude is ≈ 1,200 ft off — else the
        // pressure altitude (docs/detection.md "Air density").
        let altitudeMeters = estimate.map { $0.mslMeters ?? $0.pressureAltitudeFeet * 0.3048 }
        let groundSpeed = stages.motion.groundSpeedMetersPerSecond
        if R.isRecording { recorder.record(.edrFix(altitudeMeters: altitudeMeters, groundSpeedMetersPerSecond: groundSpeed)) }
        stages.edr.fix(altitudeMeters: altitudeMeters, groundSpeedMetersPerSecond: groundSpeed)
        var tile: TileID?
        if placement.placed != nil, fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite, let estimate,
           let cell = configuration.tileIndexer.cell(fix.latitudeDegrees, fix.longitudeDegrees) {
            tile = TileID(h3: cell, layer: estimate.layer)
        }
        var closed: [DetectionEvent] = []
        let altitude = tile == nil ? nil : estimate
        if R.isRecording { recorder.record(rare: .tileUpdate(tile, t: fix.t, altitude: altitude)) }
        stages.tiles.update(tile: tile, at: fix.t, altitude: altitude, into: &closed)
        if R.isRecording { recorder.record(rare: .holdClosed(closed)) }
        stages.holdBack.hold(closed, into: &events)
    }
}
