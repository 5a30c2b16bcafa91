import Foundation

/// One second-order IIR section (transposed direct form II), coefficients normalised so a0 = 1.
package struct Biquad: Sendable, Equatable {
    /// Feed-forward coefficients.
    package var b0: Double, b1: Double, b2: Double
    /// Feedback coefficients (a0 = 1).
    package var a1: Double, a2: Double
    private var s1 = 0.0
    private var s2 = 0.0

    /// Creates a section from normalised coefficients.
    package init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    /// Second-order Butterworth-family low-pass (bilinear transform, pre-warped at `cutoffHz`; RBJ cookbook form).
    package static func lowPass(cutoffHz: Double, sampleRateHz: Double, q: Double) -> Biquad {
        let w0 = 2 * Double.pi * cutoffHz / sampleRateHz
        let alpha = sin(w0) / (2 * q), c = cos(w0), a0 = 1 + alpha
        return Biquad(b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }

    /// Second-order Butterworth-family high-pass (bilinear transform, pre-warped at `cutoffHz`; RBJ cookbook form).
    package static func highPass(cutoffHz: Double, sampleRateHz: Double, q: Double) -> Biquad {
        let w0 = 2 * Double.pi * cutoffHz / sampleRateHz
        let alpha = sin(w0) / (2 * q), c = cos(w0), a0 = 1 + alpha
        return Biquad(b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }

    /// Filters one sample.
    @inline(__always) package mutating func process(_ x: Double) -> Double {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    /// Clears the state (as if the input had been zero forever).
    package mutating func reset() { s1 = 0; s2 = 0 }

    /// |H(e^{j2πf/fs})|² at `frequencyHz`.
    package func magnitudeSquared(frequencyHz f: Double, sampleRateHz fs: Double) -> Double {
        magnitudeSquared(Self.unitCircle(frequencyHz: f, sampleRateHz: fs))
    }

    /// cos w, sin w, cos 2w, sin 2w for w = 2πf/fs: what `magnitudeSquared` needs of the frequency (the same for every
    /// section of a cascade, so a cascade computes it once).
    package static func unitCircle(frequencyHz f: Double, sampleRateHz fs: Double) -> SIMD4<Double> {
        let w = 2 * Double.pi * f / fs
        return SIMD4(cos(w), sin(w), cos(2 * w), sin(2 * w))
    }

    /// |H|² at the frequency whose `unitCircle` values are given.
    package func magnitudeSquared(_ circle: SIMD4<Double>) -> Double {
        let c1 = circle[0], s1v = circle[1], c2 = circle[2], s2v = circle[3]
        let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1v + b2 * s2v)
        let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1v + a2 * s2v)
        return (nr * nr + ni * ni) / (dr * dr + di * di)
    }
}

/// The detection band-pass: 4th-order Butterworth high-pass at the band's low edge followed by a
/// 4th-order Butterworth low-pass at its high edge (four biquads, Q = 0.5412 and 1.3066).
package struct BandPassFilter: Sendable, Equatable {
    /// Butterworth 4th-order section Q values: 1 / (2 sin(π(2k−1)/8)), k = 1, 2.
    package static let butterworthQ: (Double, Double) = (1 / (2 * sin(3 * Double.pi / 8)), 1 / (2 * sin(Double.pi / 8)))
    private var h1: Biquad
    private var h2: Biquad
    private var l1: Biquad
    private var l2: Biquad
    /// Sample rate the filter was designed for, Hz.
    package let sampleRateHz: Double

    /// Designs the band [lowHz, highHz] at `sampleRateHz`.
    package init(lowHz: Double, highHz: Double, sampleRateHz: Double) {
        let (qa, qb) = Self.butterworthQ
        h1 = .highPass(cutoffHz: lowHz, sampleRateHz: sampleRateHz, q: qa)
        h2 = .highPass(cutoffHz: lowHz, sampleRateHz: sampleRateHz, q: qb)
        l1 = .lowPass(cutoffHz: highHz, sampleRateHz: sampleRateHz, q: qa)
        l2 = .lowPass(cutoffHz: highHz, sampleRateHz: sampleRateHz, q: qb)
        self.sampleRateHz = sampleRateHz
    }

    /// Filters one sample.
    @inline(__always) package mutating func process(_ x: Double) -> Double {
        l2.process(l1.process(h2.process(h1.process(x))))
    }

    /// Clears the state.
    package mutating func reset() { h1.reset(); h2.reset(); l1.reset(); l2.reset() }

    /// |B(f)|² of the whole cascade.
    package func magnitudeSquared(frequencyHz f: Double) -> Double {
        let circle = Biquad.unitCircle(frequencyHz: f, sampleRateHz: sampleRateHz)
        return h1.magnitudeSquared(circle) * h2.magnitudeSquared(circle) * l1.magnitudeSquared(circle) * l2.magnitudeSquared(circle)
    }
}
