import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

/// Builds 1 Hz synthetic fixes from segments of (duration s, speed kt, altitude ft at segment end).
private struct TrackBuilder {
    var t = 0.0
    var latitude = 47.0
    var altitudeFeet = 1_400.0
    var fixes: [LocationSample] = []
    var withSpeed = true

    mutating func segment(seconds: Int, knots: Double, toAltitudeFeet: Double? = nil) {
        let startAlt = altitudeFeet
        let endAlt = toAltitudeFeet ?? altitudeFeet
        for i in 1...seconds {
            t += 1
            latitude += knots / 3600 / 60  // northbound: 1 NM = 1/60 degree of latitude
            altitudeFeet = startAlt + (endAlt - startAlt) * Double(i) / Double(seconds)
            fixes.append(LocationSample(
                t: t, latitudeDegrees: latitude, longitudeDegrees: 8.0,
                speedMetersPerSecond: withSpeed ? knots * 1852 / 3600 : nil, courseDegrees: 0,
                pressureAltitudeFeet: altitudeFeet, source: .adsb))
        }
    }
}

private func run(_ fixes: [LocationSample], configuration: FlightPhaseConfiguration = .init())
    -> (changes: [FlightPhaseChange], tracker: FlightPhaseTracker)
{
    var tracker = FlightPhaseTracker(configuration: configuration)
    var all: [FlightPhaseChange] = []
    for f in fixes { all += tracker.update(f) }
    return (all, tracker)
}

@Suite("FlightPhaseTracker")
struct FlightPhaseTests {
    /// Taxi 5 min, take-off roll, climb, cruise, descent, landing roll-out, taxi-in 4 min, parked 10 min.
    private func fullFlight(withSpeed: Bool = true) -> [LocationSample] {
        var b = TrackBuilder()
        b.withSpeed = withSpeed
        b.segment(seconds: 300, knots: 15)  // taxi out, t 1...300
        b.segment(seconds: 30, knots: 120)  // take-off roll: fast from t 301
        b.segment(seconds: 600, knots: 250, toAltitudeFeet: 30_000)
        b.segment(seconds: 1200, knots: 450)
        b.segment(seconds: 900, knots: 250, toAltitudeFeet: 1_400)
        b.segment(seconds: 40, knots: 100)  // landing roll-out
        b.segment(seconds: 240, knots: 15)  // taxi in, slow from t 3071
        b.segment(seconds: 600, knots: 0)  // parked
        return b.fixes
    }

    @Test("Taxi, take-off, cruise, landing, taxi-in: airborne once, landed once, low power once")
    func fullFlightEvents() {
        let (changes, tracker) = run(fullFlight())
        #expect(changes.map(\.event) == [.airborne, .landed, .lowPower(true)])
        // Fast from t = 301: airborne after the 10 s hold.
        #expect(changes[0].t == 311)
        // Slow from t = 3071: landed after the 30 s hold.
        #expect(changes[1].t == 3101)
        // Slow (< 30 kt) from t = 3071: low power 300 s later.
        #expect(changes[2].t == 3371)
        #expect(tracker.phase == .onGround)
        #expect(tracker.isLowPower)
    }

    @Test("Speed computed from positions when fixes carry none gives the same phases")
    func computedSpeed() {
        let (changes, _) = run(fullFlight(withSpeed: false))
        #expect(changes.map(\.event) == [.airborne, .landed, .lowPower(true)])
        #expect(abs(changes[0].t - 311) <= 1)
    }

    @Test("A short burst above 50 kt (under 10 s) is not a take-off")
    func shortBurst() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 10)
        b.segment(seconds: 9, knots: 60)
        b.segment(seconds: 60, knots: 10)
        let (changes, tracker) = run(b.fixes)
        #expect(changes.isEmpty)
        #expect(tracker.phase == .onGround)
    }

    @Test("Slow flight below 50 kt while descending is not a landing")
    func slowButDescending() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 100, toAltitudeFeet: 3_000)
        b.segment(seconds: 120, knots: 45, toAltitudeFeet: 1_500)  // 750 ft/min descent
        let (changes, tracker) = run(b.fixes)
        #expect(changes.map(\.event) == [.airborne])
        #expect(tracker.phase == .airborne)
    }

    @Test("Climbing 500 ft above the ground altitude counts as airborne even when slow")
    func climbWhileSlow() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 0)
        b.segment(seconds: 60, knots: 40, toAltitudeFeet: 2_400)  // +1000 ft in 60 s
        let (changes, _) = run(b.fixes)
        #expect(changes.map(\.event) == [.airborne])
        // 500 ft above ground after 30 s of climb (t = 90), then a 10 s hold.
        #expect(changes[0].t == 100)
    }

    @Test("Low power is left when the aircraft speeds up, and entered again only after the next landing")
    func lowPowerLeftAtTakeOff() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 120)
        b.segment(seconds: 400, knots: 5)  // landed at 90, low power at 60 + 1 + 300 = 361
        b.segment(seconds: 5, knots: 35)  // faster than 30 kt: low power off at once
        b.segment(seconds: 20, knots: 120)  // take-off
        b.segment(seconds: 400, knots: 300)
        let (changes, tracker) = run(b.fixes)
        #expect(changes.map(\.event) == [.airborne, .landed, .lowPower(true), .lowPower(false), .airborne])
        #expect(changes[2].t == 361)
        #expect(changes[3].t == 461)
        #expect(!tracker.isLowPower)
    }

    @Test("Speeding up in low power then stopping again re-enters low power after the full wait")
    func reEnterAfterTaxiBurst() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 120)
        b.segment(seconds: 310, knots: 5)  // low power at 361
        b.segment(seconds: 3, knots: 35)  // off at 371
        b.segment(seconds: 400, knots: 5)  // slow again from 374: on at 674
        let (changes, _) = run(b.fixes)
        #expect(changes.map(\.event) == [.airborne, .landed, .lowPower(true), .lowPower(false), .lowPower(true)])
        #expect(changes[4].t == 674)
    }

    @Test("leaveLowPower turns it off once and blocks re-entry until the next landing")
    func leaveLowPowerForNewFlight() {
        var b = TrackBuilder()
        b.segment(seconds: 60, knots: 120)
        b.segment(seconds: 310, knots: 5)
        var (changes, tracker) = run(b.fixes)
        #expect(changes.last?.event == .lowPower(true))
        #expect(tracker.leaveLowPower(at: 400) == FlightPhaseChange(t: 400, event: .lowPower(false)))
        #expect(tracker.leaveLowPower(at: 401) == nil)
        var more = TrackBuilder(t: b.t, latitude: b.latitude, altitudeFeet: b.altitudeFeet)
        more.segment(seconds: 600, knots: 5)
        changes = []
        for f in more.fixes { changes += tracker.update(f) }
        #expect(changes.isEmpty)
    }

    @Test("Starting on the ground and never flying gives no events and no low power")
    func neverFlies() {
        var b = TrackBuilder()
        b.segment(seconds: 900, knots: 5)
        let (changes, tracker) = run(b.fixes)
        #expect(changes.isEmpty)
        #expect(tracker.phase == .onGround)
        #expect(!tracker.isLowPower)
    }

    @Test("Out-of-order and non-finite fixes are ignored")
    func badFixes() {
        var tracker = FlightPhaseTracker()
        _ = tracker.update(LocationSample(t: 100, latitudeDegrees: 47, longitudeDegrees: 8, speedMetersPerSecond: 100))
        #expect(tracker.update(LocationSample(t: 50, latitudeDegrees: 47, longitudeDegrees: 8, speedMetersPerSecond: 100)).isEmpty)
        #expect(tracker.update(LocationSample(t: .nan, latitudeDegrees: 47, longitudeDegrees: 8, speedMetersPerSecond: 100)).isEmpty)
        let c = tracker.update(LocationSample(t: 110, latitudeDegrees: 47, longitudeDegrees: 8, speedMetersPerSecond: 100))
        #expect(c.map(\.event) == [.airborne])
    }
}

@Suite struct LocationFusionTests {
    private func fix(_ t: Double, _ source: LocationSource, pressureAltitudeFeet: Double? = nil, altitudeMeters: Double? = 3000)
        -> LocationSample {
        LocationSample(t: t, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: altitudeMeters,
                       pressureAltitudeFeet: pressureAltitudeFeet, source: source)
    }

    @Test func adsbPressureAltitudeSetsTheLayerOfDeviceFixesWhileFresh() {
        var fusion = LocationFusion()
        guard case .use(let adsb) = fusion.process(fix(100, .adsb, pressureAltitudeFeet: 37_000)) else {
            Issue.record("ADS-B fix not used"); return
        }
        #expect(adsb.layerAltitudeFeet == 37_000)
        // A device fix 6 s later (external position no longer fresh) keeps the ADS-B pressure altitude,
        // not its own GPS altitude (3000 m ≈ 9843 ft).
        guard case .use(let device) = fusion.process(fix(106, .device)) else { Issue.record("device fix not used"); return }
        #expect(device.layerAltitudeFeet == 37_000)
        // 11 s after the ADS-B altitude, the device fix stands on its own.
        guard case .use(let later) = fusion.process(fix(111, .device)) else { Issue.record("device fix not used"); return }
        #expect(abs((later.layerAltitudeFeet ?? 0) - 3000 / 0.3048) < 1e-9)
    }

    @Test func externalFixesSupersedeDeviceFixesForFiveSeconds() {
        var fusion = LocationFusion()
        _ = fusion.process(fix(10, .external))
        #expect(fusion.process(fix(12, .device)) == .superseded)
        #expect(fusion.process(fix(15, .device)) == .superseded)
        if case .use = fusion.process(fix(15.5, .device)) {} else { Issue.record("stale external source still in charge") }
    }

    @Test func invalidPositionsAreRejectedWithAReason() {
        var fusion = LocationFusion()
        let bad = LocationSample(t: 1, latitudeDegrees: 91, longitudeDegrees: 0)
        guard case .rejected(let reason) = fusion.process(bad) else { Issue.record("accepted latitude 91"); return }
        #expect(reason.contains("±90°"))
        let nan = LocationSample(t: 2, latitudeDegrees: .nan, longitudeDegrees: 0)
        if case .rejected = fusion.process(nan) {} else { Issue.record("accepted NaN") }
    }
}
