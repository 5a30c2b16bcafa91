import Foundation

/// In-place iterative radix-2 complex FFT (Cooley–Tukey, decimation in time), written for the gust synthesiser.
package struct FFT: Sendable {
    /// Transform length (a power of two).
    package let count: Int
    private let cosTable: [Double]
    private let sinTable: [Double]
    private let bitReversed: [Int]

    /// Errors of FFT set-up.
    package enum SetupError: Error, Equatable {
        /// The length is not a power of two ≥ 2.
        case lengthNotPowerOfTwo(Int)
    }

    /// Prepares twiddle factors and the bit-reversal permutation for `count` points.
    package init(count: Int) throws(SetupError) {
        guard count >= 2, count & (count - 1) == 0 else { throw .lengthNotPowerOfTwo(count) }
        self.count = count
        var cosines = [Double](repeating: 0, count: count / 2)
        var sines = [Double](repeating: 0, count: count / 2)
        for k in 0..<(count / 2) {
            let angle = 2 * Double.pi * Double(k) / Double(count)
            cosines[k] = cos(angle)
            sines[k] = sin(angle)
        }
        cosTable = cosines
        sinTable = sines
        var bits = 0
        while (1 << bits) < count { bits += 1 }
        var reversed = [Int](repeating: 0, count: count)
        for i in 0..<count {
            var r = 0
            var x = i
            for _ in 0..<bits { r = (r << 1) | (x & 1); x >>= 1 }
            reversed[i] = r
        }
        bitReversed = reversed
    }

    /// Transforms `real`/`imag` in place. `inverse == false`: X_k = Σ x_n e^{-2πikn/N};
    /// `inverse == true`: x_n = Σ X_k e^{+2πikn/N} (no 1/N scaling).
    package func transform(real: inout [Double], imag: inout [Double], inverse: Bool) {
        precondition(real.count == count && imag.count == count, "FFT buffers must hold \(count) points")
        for i in 0..<count {
            let j = bitReversed[i]
            if j > i { real.swapAt(i, j); imag.swapAt(i, j) }
        }
        let sign: Double = inverse ? 1 : -1
        var size = 2
        while size <= count {
            let half = size / 2
            let step = count / size
            var start = 0
            while start < count {
                var k = 0
                for j in start..<(start + half) {
                    let wr = cosTable[k]
                    let wi = sign * sinTable[k]
                    let l = j + half
                    let tr = wr * real[l] - wi * imag[l]
                    let ti = wr * imag[l] + wi * real[l]
                    real[l] = real[j] - tr
                    imag[l] = imag[j] - ti
                    real[j] += tr
                    imag[j] += ti
                    k += step
                }
                start += size
            }
            size <<= 1
        }
    }
}
