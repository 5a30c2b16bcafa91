import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

/// `FixPlacement`: multipath-sized outliers are dropped quietly; a jump no aircraft can fly warns (once per 30 s);
/// a non-positive accuracy is a typed input warning; a fix without speed gets the filtered velocity.
@Suite struct FixPlacementTests {
    static func fix(_ t: Double, eastMeters: Double, speed: Double? = 100, accuracy: Double? = 6) -> LocationSample {
        LocationSample(t: t, latitudeDegrees: 47, longitudeDegrees: 8 + eastMeters / (111_320 * 0.682), horizontalAccuracyMeters: accuracy,
                       speedMetersPerSecond: speed, courseDegrees: speed == nil ? nil : 90)
    }

    @Test func aJumpWarnsAndMultipathDoesNot() {
        var placement = FixPlacement()
        var warnings: [ConsistencyWarning] = []
        for i in 0..<120 {
            let t = Double(i)
            var east = t * 100
            if i >= 40 && i < 45 { east += 60 }        // a 60-m multipath excursion for 5 s
            if i == 90 { east += 50_000 }               // a 50-km jump: no aircraft flies that in a second
            let placed = placement.place(Self.fix(t, eastMeters: east))
            if let w = placed.warning { warnings.append(w) }
        }
        #expect(warnings.count == 1)
        guard case .positionJump(let meters, let seconds)? = warnings.first?.kind else { Issue.record("no jump warning"); return }
        #expect(warnings.first?.t == 90)
        #expect(meters > 40_000 && seconds <= 2)
    }

    @Test func badAccuracyIsATypedWarningAndMissingSpeedIsFilledIn() {
        var placement = FixPlacement()
        var last: FixPlacement.Placed?
        for i in 0..<30 { last = placement.place(Self.fix(Double(i), eastMeters: Double(i) * 100, speed: nil)) }
        let speed = last?.fix?.speedMetersPerSecond ?? 0
        #expect(abs(speed - 100) < 10, "filtered ground speed \(speed) m/s for a 100 m/s track")
        let bad = placement.place(Self.fix(30, eastMeters: 3_000, accuracy: 0))
        #expect(bad.fix == nil)
        guard case .invalidInput(let reason)? = bad.warning?.kind else { Issue.record("no input warning"); return }
        #expect(reason.contains("not a positive number"))
    }
}
