import EddyVocabulary

/// The conversion of a band-passed load-factor variance into EDR in force (model, noise floor, median-bias factor).
package struct EDRScale: Sendable {
    /// The sensor noise's variance through the tick averaging and the band, g².
    package var noiseVariance: Double
    /// The band-passed variance at EDR 1, g².
    package var unitVariance: Double
    /// The median-bias correction factor (1 when off).
    package var biasFactor: Double

    /// EDR of a band-passed variance, g²: sqrt(max(var − noise, 0) / I) × bias factor.
    @inline(__always) package func edr(variance: Double) -> Double {
        (max(0, variance - noiseVariance) / unitVariance).squareRoot() * biasFactor
    }
}

/// Per-second EDR stage (docs/detection.md §4): sums the band's output over each second, keeps the last
/// `windowSeconds` seconds in a ring and the run of valid seconds, and gives a second its EDR when the whole window is
/// valid. Owns the EDR model (refreshed when speed or air density moved by more than 2 %) and the noise floor.
package struct EDRWindow: Sendable {
    private let configuration: DetectionConfiguration
    private let ticksPerSecond: Int
    private let window: Int
    private let groundSpeedGateMetersPerSecond: Double
    private let band: BandPassFilter
    private var secondSum = 0.0
    private var secondSquares = 0.0
    private var secondTicks = 0
    private var secondValid = true
    /// Whether a tick of the open second was disturbed (device trouble or its settle).
    package private(set) var secondDisturbed = false
    private var ringSum: [Double]
    private var ringSquares: [Double]
    private var ringTicks: [Int]
    private var validRun = 0
    /// The EDR model in use.
    package private(set) var model: EDRModel
    /// The conversion into EDR in force.
    package private(set) var scale: EDRScale
    private var altitudeMeters: Double?
    private var baroAltitudeMeters: Double?

    /// A window for the configuration, over the detection band `band` at `ticksPerSecond`.
    package init(configuration: DetectionConfiguration, band: BandPassFilter, ticksPerSecond: Int) {
        self.configuration = configuration
        self.ticksPerSecond = ticksPerSecond
        self.band = band
        window = max(1, configuration.windowSeconds)
        groundSpeedGateMetersPerSecond = configuration.groundSpeedGateKnots * 1852 / 3600
        ringSum = [Double](repeating: 0, count: window)
        ringSquares = [Double](repeating: 0, count: window)
        ringTicks = [Int](repeating: 0, count: window)
        let p = configuration.response
        model = EDRModel(
            filter: band, parameters: p, responseGain: p.responseGain,
            trueAirspeedMetersPerSecond: p.nominalTrueAirspeedMetersPerSecond,
            densityKilogramsPerCubicMeter: StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: p.nominalAltitudeMeters),
            windowSeconds: Double(max(1, configuration.windowSeconds)))
        scale = EDRScale(noiseVariance: 0, unitVariance: model.unitVariance,
                         biasFactor: configuration.correctMedianBias ? model.medianBiasFactor : 1)
    }

    /// One tick's band output, and whether the tick is disturbed and valid.
    @inline(__always) package mutating func tick(bandOutput y: Double, disturbed: Bool, valid: Bool) {
        if disturbed { secondDisturbed = true }
        if !valid { secondValid = false }
        secondSum += y
        secondSquares += y * y
        secondTicks += 1
    }

    /// Closes `second` (`unmeasurable`: the input cannot be measured, gated like device trouble): its EDR when the last
    /// `windowSeconds` seconds were all valid and full, else nil.
    package mutating func closeSecond(_ second: Int, unmeasurable: Bool) -> Double? {
        if unmeasurable { secondValid = false; secondDisturbed = true }
        let slot = ((second % window) + window) % window   // seconds before the time origin are negative
        ringSum[slot] = secondSum
        ringSquares[slot] = secondSquares
        ringTicks[slot] = secondTicks
        validRun = secondValid && secondTicks == ticksPerSecond ? validRun + 1 : 0
        guard validRun >= window else { return nil }
        var sum = 0.0, squares = 0.0, count = 0
        for i in 0..<window { sum += ringSum[i]; squares += ringSquares[i]; count += ringTicks[i] }
        let n = Double(count)
        return scale.edr(variance: max(0, squares / n - (sum / n) * (sum / n)))
    }

    /// Starts the next second, with the noise floor for the input's samples per tick: nominal white noise, averaged over
    /// the samples of a tick, through the band.
    package mutating func startSecond(samplesPerTick: Double) {
        secondSum = 0; secondSquares = 0; secondTicks = 0; secondValid = true; secondDisturbed = false
        let sigma = configuration.sensorNoiseRMSg
        scale.noiseVariance = sigma * sigma / max(1, samplesPerTick) * model.noiseBandwidthHz / (Double(ticksPerSecond) / 2)
    }

    /// A data gap: the valid run starts again.
    package mutating func gap() { validRun = 0 }

    /// A barometric altitude (small aircraft: the static pressure), metres: the density's altitude until a fix gives one.
    package mutating func barometerAltitude(meters: Double) { baroAltitudeMeters = meters }

    /// A fix: the air density's altitude (metres, nil if unknown) and the ground speed (m/s, nil if unknown). Recomputes the
    /// ε = 1 variance when speed or density moved by more than 2 % (rare: a few times per flight).
    package mutating func fix(altitudeMeters altitude: Double?, groundSpeedMetersPerSecond: Double?) {
        if let altitude { altitudeMeters = altitude }
        let p = configuration.response
        var speed = groundSpeedMetersPerSecond ?? p.nominalTrueAirspeedMetersPerSecond
        if speed < groundSpeedGateMetersPerSecond { speed = max(speed, groundSpeedGateMetersPerSecond) }
        let densityAltitude = altitudeMeters ?? baroAltitudeMeters ?? p.nominalAltitudeMeters
        let rho = StandardAtmosphere.densityKilogramsPerCubicMeter(altitudeMeters: min(20_000, max(-500, densityAltitude)))
        if abs(speed / model.trueAirspeedMetersPerSecond - 1) > 0.02 || abs(rho / model.densityKilogramsPerCubicMeter - 1) > 0.02 {
            model = EDRModel(filter: band, parameters: p, responseGain: p.responseGain,
                             trueAirspeedMetersPerSecond: speed, densityKilogramsPerCubicMeter: rho,
                             windowSeconds: Double(window))
            scale.unitVariance = model.unitVariance
            scale.biasFactor = configuration.correctMedianBias ? model.medianBiasFactor : 1
        }
    }
}
