/// Band-pass stage (docs/detection.md §3): the load-factor deviation n − 1 through the detection band (the EDR's
/// input) and through its upper part, 5 × its bottom … its top (turbulence's level, the manoeuvre gate's input). Both
/// restart after device trouble.
package struct LoadFactorBands: Sendable {
    private var detection: BandPassFilter
    private var detectionPrimed = false
    private var upper: BandPassFilter
    private var upperPrimed = false
    /// The upper band's output of the last tick measured (nil while the device gate holds).
    package private(set) var lastUpperOutput: Double?

    /// The bands of the configuration's response at `ticksPerSecond`.
    package init(configuration: DetectionConfiguration, ticksPerSecond: Int) {
        let p = configuration.response
        detection = BandPassFilter(lowHz: p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: Double(ticksPerSecond))
        upper = BandPassFilter(lowHz: 5 * p.bandLowHz, highHz: p.bandHighHz, sampleRateHz: Double(ticksPerSecond))
    }

    /// The detection band-pass as designed (its response defines the EDR model).
    package var detectionDesign: BandPassFilter { detection }

    /// One measured tick's load-factor deviation n − 1, g: the detection band's output.
    @inline(__always) package mutating func process(_ deviation: Double) -> Double {
        let y = detection.process(deviation)
        detectionPrimed = true
        lastUpperOutput = upper.process(deviation)
        upperPrimed = true
        return y
    }

    /// Device trouble: both bands forget their state.
    @inline(__always) package mutating func reset() {
        if detectionPrimed { detection.reset(); detectionPrimed = false }
        if upperPrimed { upper.reset(); upperPrimed = false }
        lastUpperOutput = nil
    }

    /// A data gap: the detection band forgets its state.
    package mutating func gap() { detection.reset(); detectionPrimed = false }
}
