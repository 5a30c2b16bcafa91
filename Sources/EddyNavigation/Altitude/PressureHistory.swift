/// The last few barometer readings (fixed size, no allocation per sample).
struct PressureHistory: Sendable {
    private var times = (Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan)
    private var pressures = (Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan)
    private var next = 0

    /// Adds a reading (the oldest of eight is dropped).
    mutating func append(t: Double, pressure: Double) {
        withUnsafeMutableBytes(of: &times) { $0.storeBytes(of: t, toByteOffset: next * 8, as: Double.self) }
        withUnsafeMutableBytes(of: &pressures) { $0.storeBytes(of: pressure, toByteOffset: next * 8, as: Double.self) }
        next = (next + 1) % 8
    }

    /// The newest (or oldest) reading whose age before `t` lies in `ageFrom…to` seconds.
    func reading(before t: Double, ageFrom: Double, to: Double, newest: Bool) -> (Double, Double)? {
        var best: (Double, Double)?
        withUnsafeBytes(of: times) { ts in
            withUnsafeBytes(of: pressures) { ps in
                for i in 0..<8 {
                    let ti = ts.load(fromByteOffset: i * 8, as: Double.self)
                    guard ti.isFinite, t - ti >= ageFrom, t - ti <= to else { continue }
                    if best == nil || (newest ? ti > best!.0 : ti < best!.0) { best = (ti, ps.load(fromByteOffset: i * 8, as: Double.self)) }
                }
            }
        }
        return best
    }
}
