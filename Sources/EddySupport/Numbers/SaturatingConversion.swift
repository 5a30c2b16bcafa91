/// Total Double → Int conversions for values derived from input (docs/reliability.md, "Conversions").
///
/// `Int(someDouble)` traps on NaN, ±infinity and magnitudes beyond ±2⁶³; input files can carry any of them
/// (a cell of 1e308, a time moved by 10¹⁸ s). Every such conversion goes through `Int(saturating:)`, which
/// rounds, clamps to ±2⁵³ (the largest range where every Int is exactly a Double, and far enough from
/// Int.max that adding or multiplying a little afterwards cannot overflow), and maps NaN to a stated value.
extension Int {
    /// The largest magnitude `Int(saturating:)` returns: 2⁵³.
    package static let saturationLimit = 1 << 53

    /// `value` rounded by `rule`, clamped to ±2⁵³; NaN gives `nan` (default 0). Never traps.
    package init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, nan: Int = 0) {
        guard !value.isNaN else { self = nan; return }
        let limit = Double(Int.saturationLimit)
        let rounded = value.rounded(rule)
        if rounded >= limit { self = Int.saturationLimit; return }
        if rounded <= -limit { self = -Int.saturationLimit; return }
        self = Int(rounded)
    }
}
