import EddyH3
import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyNavigation
@testable import EddySupport
@testable import EddyVocabulary

/// Issue 11's acceptance over seeded simulated flights (the simulator's real atmosphere, cabin schedule, phone GNSS,
/// barometer bias and ADS-B), run through the detection pipeline exactly as `eddy replay` runs them.
///
/// `EDDY_ALTITUDE_SEEDS` sets the seeds per category (default 50, the minimum).
@Suite(.serialized) struct AltitudeAcceptanceTests {
    enum Category: String, CaseIterable {
        case smallBarometer = "small, unpressurised, barometer"
        case mediumADSB = "medium, pressurised, ADS-B"
        case mediumFleet = "medium, pressurised, fleet offset"
        case mediumAlone = "medium, pressurised, no reference"
    }

    static let seeds: Int = ProcessInfo.processInfo.environment["EDDY_ALTITUDE_SEEDS"].flatMap(Int.init) ?? 50

    /// What one category's flights added up to.
    struct Tally {
        var tiles = 0, tilesRightLayer = 0, wrongLayerUnflagged = 0
        var seconds = 0, withinU68 = 0, withinU90 = 0
        var horizontalSeconds = 0, horizontalWithinU68 = 0, horizontalWithinU90 = 0
        var rawSquares = 0.0, filteredSquares = 0.0, horizontalCount = 0
        /// The same over the seconds whose raw fix is within 18 m of the truth (no multipath excursion: 4.2 σ of the
        /// profile's ordinary error), for the record.
        var cleanRawSquares = 0.0, cleanFilteredSquares = 0.0
        var cabinRight = 0, cabinFlights = 0, cabinNeverWrong = true
        var warnings = 0

        var layerFraction: Double { Double(tilesRightLayer) / Double(max(1, tiles)) }
        var u68Fraction: Double { Double(withinU68) / Double(max(1, seconds)) }
        var u90Fraction: Double { Double(withinU90) / Double(max(1, seconds)) }
        var horizontalU68Fraction: Double { Double(horizontalWithinU68) / Double(max(1, horizontalSeconds)) }
        var horizontalU90Fraction: Double { Double(horizontalWithinU90) / Double(max(1, horizontalSeconds)) }
        var rmsReduction: Double { 1 - (filteredSquares / rawSquares).squareRoot() }
        var cleanRMSReduction: Double { 1 - (cleanFilteredSquares / cleanRawSquares).squareRoot() }
    }

    /// One seeded flight of a category: departure, climb, cruise at a flight level (small: a whole or half thousand),
    /// a step, descent; ISA −15…+20 °C, QNH 980…1040 hPa; phone GNSS.
    static func scenario(_ category: Category, seed: UInt64) -> FlightScenario {
        var rng = SplitMix64(seed: seed &* 0x9E37_79B9 &+ UInt64(Category.allCases.firstIndex(of: category)!))
        func uniform() -> Double { Double(rng.next() >> 11) * 0x1.0p-53 }
        let small = category == .smallBarometer
        var s = FlightScenario(
            aircraftClass: small ? .small : .medium, segments: [TurbulenceSegment(edr: 0.12, durationSeconds: small ? 2_700 : 3_000)],
            accelerometerRateHz: 25, includeGyroscope: false, startLongitude: 8 + uniform() * 20, seed: seed)
        s.isaDeviationCelsius = -15 + 35 * uniform()
        s.qnhHectopascals = 980 + 60 * uniform()
        s.gnssProfile = .phone
        s.fieldElevationFeet = (uniform() * 2_000).rounded()
        let field = s.fieldElevationFeet!
        let fieldPressureAltitude = BarometricAltitude.pressureAltitudeFeet(
            pressureHectopascals: BarometricAltitude.pressureHectopascals(qnhAltitudeFeet: field, qnhHectopascals: s.qnhHectopascals))
        if small {
            let cruise = [5_500.0, 6_000, 6_500, 7_000, 7_500, 8_000, 8_500, 9_000][Int(uniform() * 8) % 8]
            let climb = (cruise - fieldPressureAltitude) / 700 * 60
            s.altitudeProfile = [
                .onGround(timeSeconds: 0), .onGround(timeSeconds: 60),
                AltitudeWaypoint(timeSeconds: 60 + max(60, climb), pressureAltitudeFeet: cruise),
                AltitudeWaypoint(timeSeconds: 1_500, pressureAltitudeFeet: cruise),
                AltitudeWaypoint(timeSeconds: 1_620, pressureAltitudeFeet: cruise - 1_000),
                AltitudeWaypoint(timeSeconds: 2_200, pressureAltitudeFeet: cruise - 1_000),
                AltitudeWaypoint(timeSeconds: 2_700, pressureAltitudeFeet: max(fieldPressureAltitude + 500, cruise - 4_000)),
            ]
            // The sensor's bias over its ±1 hPa range, stratified (golden-ratio sequence) so that 50 flights — each
            // with one constant bias — sample the range evenly instead of by chance.
            s.barometerBiasHectopascals = 2 * (Double(seed) * 0.618_033_988_749_895).truncatingRemainder(dividingBy: 1) - 1
        } else {
            let cruise = [31_000.0, 33_000, 35_000, 37_000][Int(uniform() * 4) % 4]
            let climb = (cruise - fieldPressureAltitude) / 2_200 * 60
            s.altitudeProfile = [
                .onGround(timeSeconds: 0), .onGround(timeSeconds: 60),
                AltitudeWaypoint(timeSeconds: 60 + climb, pressureAltitudeFeet: cruise),
                AltitudeWaypoint(timeSeconds: 1_500, pressureAltitudeFeet: cruise),
                AltitudeWaypoint(timeSeconds: 1_620, pressureAltitudeFeet: cruise + 2_000),
                AltitudeWaypoint(timeSeconds: 2_300, pressureAltitudeFeet: cruise + 2_000),
                AltitudeWaypoint(timeSeconds: 3_000, pressureAltitudeFeet: 12_000),
            ]
            s.adsb = category == .mediumADSB
        }
        return s
    }

    /// The fleet's offsets for a flight's atmosphere, as the server would serve them: per res-3 cell along the route
    /// and per layer, the truth (geometric − pressure altitude at the layer's centre) plus the aggregate's own error
    /// (N(0, 20 ft), reported σ 20 ft: a handful of phone-GNSS aircraft averaged), 10 minutes old.
    static func fleet(for scenario: FlightScenario, truth: [TruthTrackPoint], seed: UInt64) -> [AltitudeOffsetCell] {
        var rng = SplitMix64(seed: seed ^ 0xF1EE7)
        func gaussian() -> Double {
            let u1 = max(1e-300, Double(rng.next() >> 11) * 0x1.0p-53), u2 = Double(rng.next() >> 11) * 0x1.0p-53
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        var cells = Set<UInt64>()
        for point in truth where Int(point.t) % 60 == 0 {
            if let cell = try? H3.latLngToCell(latitude: point.latitudeDegrees, longitude: point.longitudeDegrees, resolution: 3),
               let disk = try? H3.gridDisk(cell, k: 1) { for c in disk { cells.insert(c.rawValue) } }
        }
        let atmosphere = scenario.atmosphere
        var out: [AltitudeOffsetCell] = []
        for cell in cells.sorted() {
            for layer in 0...45 {
                let centre = Double(layer) * 1000 + 500
                let offset = atmosphere.mslAltitudeMeters(pressureAltitudeFeet: centre) / 0.3048 - centre
                out.append(AltitudeOffsetCell(h3: cell, layer: layer, offsetFeet: offset + 20 * gaussian(), uncertaintyFeet: 20,
                                              observationCount: 5, newestTime: -600))
            }
        }
        return out
    }

    static func run(_ category: Category, seed: UInt64, into tally: inout Tally) {
        let scenario = scenario(category, seed: seed)
        let flight = FlightSimulator.simulate(scenario)
        let truth = flight.samples.truth
        // ISA −15…+20 °C and QNH 980…1040 hPa whatever the latitude and season: the seasonless prior's world (issue 28's
        // climatology is checked against P.835 and on the JSBSim flight-level oracle instead).
        var navigation = NavigationConfiguration(aircraftClass: scenario.aircraftClass)
        navigation.altitude.climatology = false
        var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: scenario.aircraftClass), navigation: navigation)
        if category == .mediumFleet { pipeline.setFleetOffsets(fleet(for: scenario, truth: truth, seed: seed)) }
        var events: [DetectionEvent] = []
        for sample in flight.samples.mergedSamples() { pipeline.process(sample, into: &events) }
        pipeline.finish(into: &events)
        func truthAt(_ t: Double) -> TruthTrackPoint? {
            let i = Int(t.rounded(.down))
            return i >= 0 && i < truth.count ? truth[i] : nil
        }
        var takeoff: Double?
        for point in truth where !point.onGround { takeoff = point.t; break }
        var cabinDecision: (CabinPressurization, Double)?
        let raw = Dictionary(flight.samples.location.map { ($0.t, $0) }, uniquingKeysWith: { a, _ in a })
        for event in events {
            switch event {
            case .altitude(let a):
                guard let truePoint = truthAt(a.t), !truePoint.onGround else { continue }
                let error = abs(a.pressureAltitudeFeet - truePoint.pressureAltitudeFeet)
                tally.seconds += 1
                if error <= a.pressureAltitudeUncertaintyFeet.u68 { tally.withinU68 += 1 }
                if error <= a.pressureAltitudeUncertaintyFeet.u90 { tally.withinU90 += 1 }
                if cabinDecision == nil, a.cabin != .unknown { cabinDecision = (a.cabin, a.t) }
                let pressurized = scenario.pressurizedCabin
                if a.cabin == (pressurized ? .unpressurized : .pressurized) { tally.cabinNeverWrong = false }
                if let lat = a.latitudeDegrees, let lon = a.longitudeDegrees, let h = a.horizontalUncertaintyMeters, let fix = raw[a.t] {
                    let filtered = Geodesy.distanceNM(from: (lat, lon), to: (truePoint.latitudeDegrees, truePoint.longitudeDegrees)) * 1852
                    let rawError = Geodesy.distanceNM(from: (fix.latitudeDegrees, fix.longitudeDegrees), to: (truePoint.latitudeDegrees, truePoint.longitudeDegrees)) * 1852
                    tally.horizontalSeconds += 1
                    if filtered <= h.u68 { tally.horizontalWithinU68 += 1 }
                    if filtered <= h.u90 { tally.horizontalWithinU90 += 1 }
                    tally.rawSquares += rawError * rawError
                    tally.filteredSquares += filtered * filtered
                    if rawError < 18 {
                        tally.cleanRawSquares += rawError * rawError
                        tally.cleanFilteredSquares += filtered * filtered
                    }
                }
            case .tile(let r):
                // The true layer: the layer the truth held for most of the crossing's seconds.
                var counts: [Int: Int] = [:]
                var t = r.enterTime.rounded(.up)
                while t <= r.exitTime { if let p = truthAt(t) { counts[Self.trueLayer(p), default: 0] += 1 }; t += 1 }
                guard let trueLayer = counts.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) })?.key else { continue }
                tally.tiles += 1
                if r.tile.layer == trueLayer { tally.tilesRightLayer += 1 } else if r.layerUncertain != true { tally.wrongLayerUnflagged += 1 }
            case .warning:
                tally.warnings += 1
            case .position, .minute, .notice:
                break
            }
        }
        if let takeoff {
            tally.cabinFlights += 1
            if let (state, t) = cabinDecision, state == (scenario.pressurizedCabin ? .pressurized : .unpressurized), t - takeoff <= 300 {
                tally.cabinRight += 1
            }
        }
    }

    /// The layer the truth is in, by the rule: an aircraft level at a flight level (within ±150 ft, vertical
    /// speed at most 100 ft/min) is in that level's
    /// layer; otherwise floor(pressure altitude / 1,000). "Level" is the profile's level segments: the autopilot wander
    /// alone moves at most ≈ 95 ft/min, a climb or descent at least 250 ft/min.
    static func trueLayer(_ p: TruthTrackPoint) -> Int {
        let level = (p.pressureAltitudeFeet / 1000).rounded() * 1000
        if abs(p.pressureAltitudeFeet - level) <= 150, abs(p.verticalSpeedFeetPerMinute) <= 100 { return Int(level / 1000) }
        return TileID.layer(altitudeFeet: p.pressureAltitudeFeet)
    }

    static func campaign(_ category: Category) -> Tally {
        var tally = Tally()
        for seed in 1...UInt64(seeds) { run(category, seed: seed, into: &tally) }
        print(String(format: "altitude acceptance [%@] %d flights: tiles %d, right layer %.2f %%, wrong+unflagged %d; PA within u68 %.1f %%, u90 %.1f %%; horizontal within u68 %.1f %%, u90 %.1f %%, RMS %.0f %% below raw (%.0f %% on seconds without multipath); cabin right within 5 min %d/%d; warnings %d",
                     category.rawValue, seeds, tally.tiles, 100 * tally.layerFraction, tally.wrongLayerUnflagged,
                     100 * tally.u68Fraction, 100 * tally.u90Fraction, 100 * tally.horizontalU68Fraction,
                     100 * tally.horizontalU90Fraction, 100 * tally.rmsReduction, 100 * tally.cleanRMSReduction, tally.cabinRight, tally.cabinFlights, tally.warnings))
        return tally
    }

    static func expectHonest(_ t: Tally, _ category: Category) {
        #expect(abs(t.u68Fraction - 0.68) <= 0.05, "\(category.rawValue): pressure altitude within u68 \(t.u68Fraction)")
        #expect(abs(t.u90Fraction - 0.90) <= 0.04, "\(category.rawValue): pressure altitude within u90 \(t.u90Fraction)")
        #expect(t.warnings == 0, "\(category.rawValue): \(t.warnings) warnings in clean flights")
        expectHorizontal(t, category)
    }

    /// Horizontal position on the simulator's `phone` profile (issue 11): RMS error ≥ 40 % below the raw fixes over every
    /// airborne second (a refused fix is replaced by the filter's prediction, so multipath seconds count on both sides),
    /// and the truth within u68 for 68 ± 5 % and within u90 for 90 ± 4 % of those seconds.
    static func expectHorizontal(_ t: Tally, _ category: Category) {
        #expect(t.rmsReduction >= 0.4, "\(category.rawValue): horizontal RMS only \(t.rmsReduction) below raw")
        #expect(abs(t.horizontalU68Fraction - 0.68) <= 0.05, "\(category.rawValue): position within u68 \(t.horizontalU68Fraction)")
        #expect(abs(t.horizontalU90Fraction - 0.90) <= 0.04, "\(category.rawValue): position within u90 \(t.horizontalU90Fraction)")
    }

    @Test func smallUnpressurisedWithBarometer() {
        let t = Self.campaign(.smallBarometer)
        #expect(t.layerFraction >= 0.98)
        #expect(t.cabinNeverWrong, "an unpressurised flight was taken for pressurised")
        Self.expectHonest(t, .smallBarometer)
    }

    @Test func mediumPressurisedWithADSB() {
        let t = Self.campaign(.mediumADSB)
        #expect(t.layerFraction >= 0.98)
        #expect(Double(t.cabinRight) >= 0.99 * Double(t.cabinFlights), "cabin decided right within 5 min on \(t.cabinRight)/\(t.cabinFlights)")
        Self.expectHonest(t, .mediumADSB)
    }

    @Test func mediumPressurisedWithFleetOffset() {
        let t = Self.campaign(.mediumFleet)
        #expect(t.layerFraction >= 0.98)
        #expect(Double(t.cabinRight) >= 0.99 * Double(t.cabinFlights), "cabin decided right within 5 min on \(t.cabinRight)/\(t.cabinFlights)")
        Self.expectHonest(t, .mediumFleet)
    }

    @Test func mediumPressurisedAloneFlagsEveryWrongLayer() {
        let t = Self.campaign(.mediumAlone)
        #expect(t.wrongLayerUnflagged == 0)
        #expect(t.tiles > 0)
    }
}
