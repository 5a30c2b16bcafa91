package import EddyNavigation
package import EddyVocabulary

/// What the pipeline tells a recorder: each stage call with its arguments, in order (the stage-cost meter records a
/// flight once, then replays each stage alone over its own calls). `NoStageRecorder` records nothing at no cost: the
/// pipeline asks `isRecording` (a constant of the type) before it builds a `StageInput`.
package protocol StageRecorder {
    /// Whether `record` wants the calls (false: the pipeline skips them, and the specialised code has none).
    static var isRecording: Bool { get }
    /// Takes one stage call.
    mutating func record(_ input: StageInput)
    /// Takes one rare stage call whose arguments hold references (kept apart, so that `StageInput` copies as plain bytes).
    mutating func record(rare input: RareStageInput)
}

/// The recorder of normal runs: records nothing.
package struct NoStageRecorder: StageRecorder {
    /// Never recording.
    package static var isRecording: Bool { false }
    /// Creates the recorder.
    package init() {}
    /// Ignores the call.
    @inline(__always) package func record(_ input: StageInput) {}
    /// Ignores the call.
    @inline(__always) package func record(rare input: RareStageInput) {}
}

/// A recorder that keeps every call (the stage-cost meter).
package struct StageInputRecording: StageRecorder {
    /// Always recording.
    package static var isRecording: Bool { true }
    /// The calls, in order (a rare call as `.rare`, an index into `rareInputs`).
    package private(set) var inputs: [StageInput] = []
    /// The rare calls' arguments.
    package private(set) var rareInputs: [RareStageInput] = []
    /// Creates an empty recording.
    package init() {}
    /// Appends the call.
    package mutating func record(_ input: StageInput) { inputs.append(input) }
    /// Appends the rare call.
    package mutating func record(rare input: RareStageInput) {
        inputs.append(.rare(input.stage, rareInputs.count))
        rareInputs.append(input)
    }
}

/// A rare stage call (per fix or per minute) whose arguments hold references.
package enum RareStageInput: Sendable {
    /// `TileTracker.update`.
    case tileUpdate(TileID?, t: Double, altitude: AltitudeEstimate?)
    /// `ReportHoldBack.hold(_:)` of one report.
    case holdReport(HeldReport)
    /// `ReportHoldBack.hold(_:into:)` of closed tile crossings.
    case holdClosed([DetectionEvent])

    /// The stage the call goes to.
    package var stage: StageName {
        switch self {
        case .tileUpdate: .tiles
        case .holdReport, .holdClosed: .holdBack
        }
    }
}

/// The pipeline's stages, by the name the benchmark prints.
package enum StageName: String, Sendable, CaseIterable {
    /// `TickAccumulator`.
    case tick
    /// `InputDiagnostics`.
    case input
    /// `MountCalibrator`.
    case calibration
    /// `GyroBiasEstimator`.
    case gyroBias = "gyro_bias"
    /// `LocationMotion`.
    case motion
    /// `TurnGate`.
    case turn
    /// `ManoeuvreGate`.
    case manoeuvre
    /// `LoadFactorBands`.
    case bands
    /// `GroundVibration`.
    case vibration
    /// `SettleGates`.
    case settle
    /// `EDRWindow`.
    case edr
    /// `MinuteAggregator`.
    case minutes
    /// `TileTracker`.
    case tiles
    /// `ReportHoldBack`.
    case holdBack = "hold_back"
    /// `MeasurementNotices`.
    case notices
}

/// One stage call with its arguments (see each stage's method of the same name).
package enum StageInput: Sendable {
    /// `TickAccumulator.addAccelerometer`.
    case tickAccelerometer(SIMD3<Double>)
    /// `TickAccumulator.addGyroscope`.
    case tickGyroscope(SIMD3<Double>)
    /// `TickAccumulator.close`.
    case tickClose
    /// `TickAccumulator.vertical` set.
    case tickVertical(SIMD3<Double>)
    /// `InputDiagnostics.accelerometer(at:)`.
    case inputAccelerometer(Double)
    /// `InputDiagnostics.tick(magnitudeG:)`.
    case inputTick(Double)
    /// `InputDiagnostics.closeSecond`.
    case inputSecond
    /// `MountCalibrator.update`.
    case calibration(CalibrationTick)
    /// `GyroBiasEstimator.add`.
    case gyroBias(gyroMean: SIMD3<Double>?, accelerationMean: SIMD3<Double>?, straight: Bool, turning: Bool, onGround: Bool)
    /// `LocationMotion.fix`.
    case motionFix(t: Double, receivedSpeed: Double?, filteredSpeed: Double?, velocityUncertainty68: Double?, courseDegrees: Double?)
    /// `LocationMotion.tick(at:)`.
    case motionTick(Double)
    /// `TurnGate.tick`.
    case turn(gyroMean: SIMD3<Double>?, offset: SIMD3<Double>, trackRateDegreesPerSecond: Double, fixFresh: Bool)
    /// `ManoeuvreGate.update`.
    case manoeuvre(magnitudeG: Double?, bandOutputG: Double?, acrossG: SIMD3<Double>?, alongDeviationG: Double?)
    /// `LoadFactorBands.process`.
    case bands(Double)
    /// `LoadFactorBands.reset`.
    case bandsReset
    /// `LoadFactorBands.gap`.
    case bandsGap
    /// `GroundVibration.tick`.
    case vibration(bandOutput: Double, speedKnown: Bool, scale: EDRScale)
    /// `GroundVibration.reset`.
    case vibrationReset
    /// `SettleGates.deviceTrouble(atTick:)`.
    case settleDevice(Int)
    /// `SettleGates.gate(atTick:)`.
    case settleGate(Int)
    /// `SettleGates.gap(resumingAtTick:)`.
    case settleGap(Int)
    /// `SettleGates.state(ofTick:)`.
    case settleState(Int)
    /// `EDRWindow.tick`.
    case edrTick(bandOutput: Double, disturbed: Bool, valid: Bool)
    /// `EDRWindow.closeSecond`.
    case edrSecond(Int, unmeasurable: Bool)
    /// `EDRWindow.startSecond`.
    case edrStartSecond(samplesPerTick: Double)
    /// `EDRWindow.gap`.
    case edrGap
    /// `EDRWindow.barometerAltitude`.
    case edrBarometer(Double)
    /// `EDRWindow.fix`.
    case edrFix(altitudeMeters: Double?, groundSpeedMetersPerSecond: Double?)
    /// `MinuteAggregator.start`.
    case minuteStart(Int)
    /// `MinuteAggregator.move`.
    case minuteMove(Int)
    /// `MinuteAggregator.add`.
    case minuteAdd(edr: Double?, disturbed: Bool)
    /// `TileTracker.addSecond`.
    case tileSecond(edr: Double?, disturbed: Bool, t: Double)
    /// `TileTracker.finish`.
    case tileFinish(Double)
    /// `ReportHoldBack.disturbance`.
    case holdDisturbance(Double)
    /// `ReportHoldBack.release`.
    case holdRelease(Double)
    /// `ReportHoldBack.flush`.
    case holdFlush
    /// `MeasurementNotices.manoeuvre`.
    case noticeManoeuvre(Double)
    /// `MeasurementNotices.groundRoll`.
    case noticeGroundRoll
    /// `MeasurementNotices.groundVibration`.
    case noticeGroundVibration(Double?)
    /// `MeasurementNotices.gyroOnlyTurn`.
    case noticeGyroOnlyTurn
    /// `MeasurementNotices.gap`.
    case noticeGap(Double, endingAt: Double)
    /// `MeasurementNotices.second`.
    case noticeSecond(SecondFacts, at: Double)
    /// `MeasurementNotices.finish`.
    case noticeFinish(Double)
    /// A rare call of a stage: its index among the recording's `rareInputs`.
    case rare(StageName, Int)

    /// The stage the call goes to.
    package var stage: StageName {
        switch self {
        case .tickAccelerometer, .tickGyroscope, .tickClose, .tickVertical: .tick
        case .inputAccelerometer, .inputTick, .inputSecond: .input
        case .calibration: .calibration
        case .gyroBias: .gyroBias
        case .motionFix, .motionTick: .motion
        case .turn: .turn
        case .manoeuvre: .manoeuvre
        case .bands, .bandsReset, .bandsGap: .bands
        case .vibration, .vibrationReset: .vibration
        case .settleDevice, .settleGate, .settleGap, .settleState: .settle
        case .edrTick, .edrSecond, .edrStartSecond, .edrGap, .edrBarometer, .edrFix: .edr
        case .minuteStart, .minuteMove, .minuteAdd: .minutes
        case .tileSecond, .tileFinish: .tiles
        case .holdDisturbance, .holdRelease, .holdFlush: .holdBack
        case .rare(let stage, _): stage
        case .noticeManoeuvre, .noticeGroundRoll, .noticeGroundVibration, .noticeGyroOnlyTurn, .noticeGap, .noticeSecond, .noticeFinish:
            .notices
        }
    }
}

extension DetectionStages {
    /// Makes one recorded call on its stage (`rare`: the recording's rare calls); returns a number taken from its result
    /// (so that timing cannot skip it).
    @inline(__always)
    package mutating func replay(_ call: StageInput, rare: [RareStageInput], into events: inout [DetectionEvent]) -> Double {
        switch call {
        case .tickAccelerometer(let a): ticks.addAccelerometer(x: a.x, y: a.y, z: a.z)
        case .tickGyroscope(let g): ticks.addGyroscope(x: g.x, y: g.y, z: g.z)
        case .tickClose: return ticks.close().withinTickVariance
        case .tickVertical(let v): ticks.vertical = v
        case .inputAccelerometer(let t): return self.input.accelerometer(at: t) ?? 0
        case .inputTick(let m): self.input.tick(magnitudeG: m)
        case .inputSecond: return self.input.closeSecond().rateHz
        case .calibration(let tick): return calibrator.update(tick) ? 1 : 0
        case .gyroBias(let gyroMean, let accelerationMean, let straight, let turning, let onGround):
            gyroBias.add(gyroMean: gyroMean, accelerationMean: accelerationMean, straight: straight, turning: turning, onGround: onGround)
            return gyroBias.correction.x
        case .motionFix(let t, let received, let filtered, let uncertainty, let course):
            motion.fix(at: t, receivedSpeed: received, filteredSpeed: filtered, velocityUncertainty68: uncertainty, courseDegrees: course)
        case .motionTick(let t): return motion.tick(at: t).onGround ? 1 : 0
        case .turn(let gyroMean, let offset, let trackRate, let fixFresh):
            return turn.tick(gyroMean: gyroMean, offset: offset, trackRateDegreesPerSecond: trackRate, fixFresh: fixFresh).turning ? 1 : 0
        case .manoeuvre(let magnitude, let band, let across, let along):
            return manoeuvre.update(magnitudeG: magnitude, bandOutputG: band, acrossG: across, alongDeviationG: along) ? 1 : 0
        case .bands(let deviation): return bands.process(deviation)
        case .bandsReset: bands.reset()
        case .bandsGap: bands.gap()
        case .vibration(let y, let speedKnown, let scale): return vibration.tick(bandOutput: y, speedKnown: speedKnown, scale: scale) ? 1 : 0
        case .vibrationReset: vibration.reset()
        case .settleDevice(let tick): settle.deviceTrouble(atTick: tick)
        case .settleGate(let tick): settle.gate(atTick: tick)
        case .settleGap(let tick): settle.gap(resumingAtTick: tick)
        case .settleState(let tick): return settle.state(ofTick: tick).valid ? 1 : 0
        case .edrTick(let y, let disturbed, let valid): edr.tick(bandOutput: y, disturbed: disturbed, valid: valid)
        case .edrSecond(let second, let unmeasurable): return edr.closeSecond(second, unmeasurable: unmeasurable) ?? 0
        case .edrStartSecond(let samplesPerTick): edr.startSecond(samplesPerTick: samplesPerTick)
        case .edrGap: edr.gap()
        case .edrBarometer(let meters): edr.barometerAltitude(meters: meters)
        case .edrFix(let altitude, let speed): edr.fix(altitudeMeters: altitude, groundSpeedMetersPerSecond: speed)
        case .minuteStart(let minute): minutes.start(at: minute)
        case .minuteMove(let minute): return minutes.move(to: minute)?.end ?? 0
        case .minuteAdd(let value, let disturbed): minutes.add(edr: value, disturbed: disturbed)
        case .tileSecond(let value, let disturbed, let t): tiles.addSecond(edr: value, disturbed: disturbed, at: t)
        case .tileFinish(let t): tiles.finish(at: t, into: &events)
        case .holdDisturbance(let t): holdBack.disturbance(recognisedAt: t)
        case .holdRelease(let t): holdBack.release(before: t, into: &events)
        case .holdFlush: holdBack.flush(into: &events)
        case .noticeManoeuvre(let n): notices.manoeuvre(loadFactorG: n)
        case .noticeGroundRoll: notices.groundRoll()
        case .noticeGroundVibration(let share): notices.groundVibration(share: share)
        case .noticeGyroOnlyTurn: notices.gyroOnlyTurn()
        case .noticeGap(let interval, let t): notices.gap(interval, endingAt: t, into: &events)
        case .noticeSecond(let facts, let t): notices.second(facts, at: t, into: &events)
        case .noticeFinish(let t): notices.finish(at: t, into: &events)
        case .rare(_, let index):
            switch rare[index] {
            case .tileUpdate(let tile, let t, let altitude): tiles.update(tile: tile, at: t, altitude: altitude, into: &events)
            case .holdReport(let report): holdBack.hold(report)
            case .holdClosed(let closed): holdBack.hold(closed, into: &events)
            }
        }
        return 0
    }
}
