package import EddyDetection
import Foundation

/// Streams the load-factor response (g) of an aircraft to von Kármán vertical gusts at EDR = 1.
///
/// Each block of `blockLength` samples is synthesised in the frequency domain:
/// X_k = (N(0,1) + i N(0,1)) · sqrt(S_w(f_k) Δf / 4) · H(f_k), X_{N−k} = conj(X_k), x = IFFT(X),
/// so var(x) = Σ S_w |H|² Δf (docs/detection.md §Synthesis). Blocks overlap by 1/8 and are
/// cross-faded with cos/sin weights (cos² + sin² = 1 keeps the variance of independent blocks),
/// so a flight of any length is produced with bounded memory. Scale the output by the EDR.
package struct GustSynthesizer: Sendable {
    /// Sample rate, Hz.
    package let sampleRateHz: Double
    /// Samples per synthesised block (power of two).
    package let blockLength: Int
    private let overlap: Int
    private let hop: Int
    private let fft: FFT
    private let amplitude: [Double]      // sqrt(S_w Δf / 4) for k in 0...N/2
    private let responseRe: [Double]
    private let responseIm: [Double]
    private var rng: Xoshiro256StarStar
    private var previous: [Double]
    private var current: [Double]
    private var local: Int
    private var blockNumber: Int
    private var re: [Double]
    private var im: [Double]

    /// Prepares a stream at `sampleRateHz` for an aircraft with `response` flying at `trueAirspeedMetersPerSecond`.
    package init(sampleRateHz: Double, response: PlungeResponse, trueAirspeedMetersPerSecond v: Double, seed: UInt64) {
        self.sampleRateHz = sampleRateHz
        // ≥ 20 minutes per block so the lowest in-band frequencies (0.1 Hz) are resolved finely.
        var n = 1 << 12
        while Double(n) < sampleRateHz * 1_200 && n < (1 << 18) { n <<= 1 }
        blockLength = n
        overlap = n / 8
        hop = n - overlap
        fft = try! FFT(count: n)  // n is a power of two by construction
        let df = sampleRateHz / Double(n)
        let unitVariance = VonKarmanSpectrum.verticalVariance(edr: 1)
        var amp = [Double](repeating: 0, count: n / 2 + 1)
        var hr = [Double](repeating: 0, count: n / 2 + 1)
        var hi = [Double](repeating: 0, count: n / 2 + 1)
        for k in 1..<(n / 2) {
            let f = Double(k) * df
            let s = VonKarmanSpectrum.verticalPSD(frequencyHz: f, trueAirspeedMetersPerSecond: v, variance: unitVariance)
            amp[k] = (s * df / 4).squareRoot()
            let h = response.response(frequencyHz: f)
            hr[k] = h.re; hi[k] = h.im
        }
        amplitude = amp; responseRe = hr; responseIm = hi
        rng = Xoshiro256StarStar(seed: seed)
        previous = []
        current = []
        local = 0
        blockNumber = 0
        re = [Double](repeating: 0, count: n)
        im = [Double](repeating: 0, count: n)
        current = makeBlock()
    }

    private mutating func makeBlock() -> [Double] {
        let n = blockLength
        for k in 0..<n { re[k] = 0; im[k] = 0 }
        for k in 1..<(n / 2) {
            let gr = rng.nextGaussian() * amplitude[k]
            let gi = rng.nextGaussian() * amplitude[k]
            let xr = gr * responseRe[k] - gi * responseIm[k]
            let xi = gr * responseIm[k] + gi * responseRe[k]
            re[k] = xr; im[k] = xi
            re[n - k] = xr; im[n - k] = -xi
        }
        fft.transform(real: &re, imag: &im, inverse: true)
        return re
    }

    /// The next sample of the EDR = 1 load-factor response, g.
    package mutating func next() -> Double {
        if local == hop {
            previous = current
            current = makeBlock()
            local = 0
            blockNumber += 1
        }
        let value: Double
        if blockNumber > 0 && local < overlap {
            let u = (Double(local) + 0.5) / Double(overlap) * (Double.pi / 2)
            value = previous[hop + local] * cos(u) + current[local] * sin(u)
        } else {
            value = current[local]
        }
        local += 1
        return value
    }

    /// The variance the stream has by construction, Σ S_w |H|² Δf (g²), for tests.
    package var expectedVariance: Double {
        var sum = 0.0
        for k in 1..<(blockLength / 2) {
            let h2 = responseRe[k] * responseRe[k] + responseIm[k] * responseIm[k]
            sum += 4 * amplitude[k] * amplitude[k] * h2
        }
        return sum
    }
}
