import EddyNavigation
import EddyVocabulary

/// Every stage of the detection pipeline, each owning its state (docs/detection.md, "Stages"); `DetectionPipeline` wires
/// them, and the stage-cost meter replays them one at a time.
package struct DetectionStages: Sendable {
    /// Ticks per second (the configuration's internal rate, at least 5).
    package let ticksPerSecond: Int
    /// Per sample: tick sums → one tick summary.
    package var ticks: TickAccumulator
    /// Per sample and second: sample rate, gaps, millisecond time stamps, units.
    package var input: InputDiagnostics
    /// Per tick: gravity estimate, in position, horizontal, in noise.
    package var calibrator: MountCalibrator
    /// Per tick: the gyroscope's zero-rate offset.
    package var gyroBias: GyroBiasEstimator
    /// Per fix and tick: ground speed, track rate, ground roll and braking.
    package var motion: LocationMotion
    /// Per tick: the hard-turn gate.
    package var turn: TurnGate
    /// Per tick: the load-factor (manoeuvre) gate.
    package var manoeuvre: ManoeuvreGate
    /// Per tick: the detection band and its upper part.
    package var bands: LoadFactorBands
    /// Per tick: ground vibration without location.
    package var vibration: GroundVibration
    /// Per tick: the gates' settle times.
    package var settle: SettleGates
    /// Per tick and second: the EDR window, model and noise floor.
    package var edr: EDRWindow
    /// Per second: minutes.
    package var minutes: MinuteAggregator
    /// Per fix and second: tile crossings.
    package var tiles: TileTracker
    /// Per second: minute and tile reports held back.
    package var holdBack: ReportHoldBack
    /// Per tick and second: the measurement notices.
    package var notices: MeasurementNotices

    /// The stages of `configuration`.
    package init(configuration: DetectionConfiguration) {
        let rate = max(5, configuration.internalRateHz)
        ticksPerSecond = Int(rate.rounded())
        let tickSeconds = 1 / Double(ticksPerSecond)
        ticks = TickAccumulator()
        input = InputDiagnostics(minimumSampleRateHz: configuration.minimumSampleRateHz)
        calibrator = MountCalibrator(tickSeconds: tickSeconds, configuration: configuration)
        gyroBias = GyroBiasEstimator(ticksPerSecond: ticksPerSecond)
        motion = LocationMotion(configuration: configuration)
        turn = TurnGate(gateDegreesPerSecond: configuration.turnRateGateDegreesPerSecond, ticksPerSecond: ticksPerSecond)
        manoeuvre = ManoeuvreGate(
            tickSeconds: tickSeconds, thresholdG: configuration.manoeuvreLoadThresholdG,
            turbulenceFactor: configuration.manoeuvreTurbulenceFactor, timeConstantSeconds: configuration.manoeuvreTimeConstantSeconds,
            surgeCorrelation: configuration.manoeuvreSurgeCorrelation)
        bands = LoadFactorBands(configuration: configuration, ticksPerSecond: ticksPerSecond)
        vibration = GroundVibration(configuration: configuration, ticksPerSecond: ticksPerSecond)
        settle = SettleGates(configuration: configuration, ticksPerSecond: ticksPerSecond)
        edr = EDRWindow(configuration: configuration, band: bands.detectionDesign, ticksPerSecond: ticksPerSecond)
        minutes = MinuteAggregator(configuration: configuration)
        tiles = TileTracker(
            reporterClass: configuration.aircraftClass, minimumValidSeconds: configuration.minimumValidSecondsPerTile,
            salt: configuration.reportSalt)
        holdBack = ReportHoldBack(configuration: configuration)
        notices = MeasurementNotices(configuration: configuration, vibrationSplitHz: vibration.splitHz)
    }
}
