import EddyH3
import Foundation
import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

@Suite struct CabinDetectionTests {
    @Test func aPressurisedClimbIsDecidedWithinAMinuteOfLeavingTheGround() {
        for seed in 1...40 as ClosedRange<UInt64> {
            var s = AltitudeScenario(pressurized: true, seed: seed)
            s.isaDeviationCelsius = Double(Int(seed % 36)) - 15
            s.qnhHectopascals = 980 + Double(seed % 61)
            s.profile = climbProfile(from: 0, to: 35_000, feetPerMinute: 2_000 + Double(seed % 10) * 100)
            let run = s.run(0..<400, configuration: AltitudeConfiguration(aircraftClass: .medium))
            let decided = run.pairs.first { $0.1.cabin != .unknown }
            #expect(decided?.1.cabin == .pressurized, "seed \(seed)")
            #expect((decided?.1.t ?? .infinity) <= 60 + 90, "seed \(seed): decided at \(decided?.1.t ?? -1)")
            #expect(run.pairs.allSatisfy { $0.1.source != .barometer }, "seed \(seed): a cabin pressure used as altitude")
        }
    }

    @Test func anUnpressurisedFlightIsNeverTakenForPressurised() {
        for seed in 1...60 as ClosedRange<UInt64> {
            var s = AltitudeScenario(pressurized: false, cruiseFeet: 9_500, seed: seed)
            s.isaDeviationCelsius = Double(Int(seed % 36)) - 15
            s.qnhHectopascals = 980 + Double(seed % 61)
            s.barometerBiasHectopascals = Double(Int(seed % 5)) * 0.25 - 0.5
            s.profile = climbProfile(from: 1_000, to: 9_500, feetPerMinute: 500 + Double(seed % 7) * 100)
            let run = s.run(0..<1_500, configuration: AltitudeConfiguration(aircraftClass: .small))
            #expect(run.pairs.allSatisfy { $0.1.cabin != .pressurized }, "seed \(seed)")
            #expect(run.pairs.last?.1.cabin == .unpressurized, "seed \(seed)")
        }
    }

    @Test func levelCruiseInAPressurisedCabinIsDecidedWithoutAClimb() {
        let s = AltitudeScenario(pressurized: true)
        let run = s.run(0..<60, configuration: AltitudeConfiguration(aircraftClass: .medium))
        #expect(run.pairs.last?.1.cabin == .pressurized)
    }
}

@Suite struct AltitudeSourceTests {
    @Test func adsbPressureAltitudeIsUsedWithItsQuantisation() {
        var s = AltitudeScenario(pressurized: true, adsb: true)
        s.isaDeviationCelsius = 15
        s.profile = { _ in 35_010 }
        let run = s.run(0..<120, configuration: AltitudeConfiguration(aircraftClass: .medium))
        let last = try! #require(run.pairs.last)
        #expect(last.1.source == .external)
        #expect(abs(last.1.pressureAltitudeFeet - 35_000) < 1)
        #expect(last.1.pressureAltitudeUncertaintyFeet.u90 <= 12.5)
        #expect(last.1.layer == 35)
        #expect(last.1.heldFlightLevelFeet == 35_000)
        #expect(!last.1.layerUncertain)
        // MSL from pressure altitude + the learned offset: close to the true geometric altitude.
        let msl = try! #require(last.1.mslMeters)
        #expect(abs(msl / 0.3048 - last.0.trueMSLFeet) < 3 * (last.1.mslUncertaintyMeters!.u68 / 0.3048))
    }

    @Test func anUnpressurisedBarometerGivesTheLayerAndFlightLevelsHold() {
        var s = AltitudeScenario(pressurized: false, cruiseFeet: 8_000)
        s.isaDeviationCelsius = 18
        s.qnhHectopascals = 1_035
        s.profile = { t in t < 200 ? 7_960 : 8_070 }   // a few tens of feet either side of FL080
        let run = s.run(0..<400, configuration: AltitudeConfiguration(aircraftClass: .small))
        let late = run.pairs.filter { $0.0.t > 60 }
        #expect(late.allSatisfy { $0.1.source == .barometer })
        #expect(late.allSatisfy { $0.1.layer == 8 }, "held at FL080 although some readings are below 8,000 ft")
        // The GNSS altitude is ~700 ft higher on this warm high-pressure day: not used for the layer.
        #expect(late.allSatisfy { abs($0.1.pressureAltitudeFeet - $0.0.truePressureFeet) < 60 })
    }

    @Test func pressurisedWithoutAnyReferenceEveryWrongLayerIsFlagged() {
        for seed in 1...20 as ClosedRange<UInt64> {
            var s = AltitudeScenario(pressurized: true, seed: seed)
            s.isaDeviationCelsius = Double(Int(seed % 36)) - 15
            s.qnhHectopascals = 980 + Double(seed * 3 % 61)
            s.profile = climbProfile(from: 0, to: 35_000, feetPerMinute: 2_500)
            // This world draws ISA −15…+20 °C and QNH 980…1040 hPa whatever the latitude and season: the seasonless
            // prior's world, so that prior is the one under test (the climatology's: ReferenceAtmosphereTests and the
            // JSBSim flight-level oracle, scripts/flight_level_oracle.py).
            var configuration = AltitudeConfiguration(aircraftClass: .medium)
            configuration.climatology = false
            let run = s.run(0..<1_200, configuration: configuration)
            for (truth, e) in run.pairs where e.layer != TileID.layer(altitudeFeet: truth.truePressureFeet) {
                #expect(e.layerUncertain, "seed \(seed) t \(truth.t): layer \(e.layer) vs true \(truth.truePressureFeet) ft, u90 \(e.pressureAltitudeUncertaintyFeet.u90)")
            }
            #expect(run.pairs.last?.1.source == .gnssStandardAtmosphere)
        }
    }

    @Test func aFleetOffsetConvertsGNSSAltitude() throws {
        var s = AltitudeScenario(pressurized: true)
        s.isaDeviationCelsius = 12
        s.qnhHectopascals = 1_002
        s.profile = { _ in 35_000 }
        let here = try H3.latLngToCell(latitude: 47, longitude: 8.03, resolution: AltitudeOffsetCell.h3Resolution).rawValue
        let offset34 = s.geometricFeet(pressureAltitudeFeet: 34_500) - 34_500
        let offset35 = s.geometricFeet(pressureAltitudeFeet: 35_500) - 35_500
        let fleet = [
            AltitudeOffsetCell(h3: here, layer: 34, offsetFeet: offset34, uncertaintyFeet: 20, observationCount: 5, newestTime: 100),
            AltitudeOffsetCell(h3: here, layer: 35, offsetFeet: offset35, uncertaintyFeet: 20, observationCount: 5, newestTime: 100),
        ]
        let run = s.run(0..<120, configuration: AltitudeConfiguration(aircraftClass: .medium), fleet: fleet)
        let last = try #require(run.pairs.last)
        #expect(last.1.source == .gnssFleetOffset)
        #expect(abs(last.1.pressureAltitudeFeet - 35_000) < 3 * last.1.pressureAltitudeUncertaintyFeet.u68)
        #expect(last.1.pressureAltitudeUncertaintyFeet.u90 < 150)
        #expect(last.1.layer == 35)
    }
}

@Suite struct AltitudeWarningTests {
    @Test func aPressureStepWarnsAndCleanFlightDoesNot() {
        var s = AltitudeScenario(pressurized: false, cruiseFeet: 9_000)
        s.profile = climbProfile(from: 500, to: 9_000, feetPerMinute: 700)
        let clean = s.run(0..<43_200, configuration: AltitudeConfiguration(aircraftClass: .small))   // 12 h
        #expect(clean.warnings.isEmpty)
        var estimator = AltitudeEstimator(configuration: AltitudeConfiguration(aircraftClass: .small))
        var warnings: [ConsistencyWarning] = []
        for i in 0..<100 {
            let p = i < 50 ? 900.0 : 905.0   // +5 hPa in one second: ≈ 9,000 ft/min at that height
            if case .accepted(let w?) = estimator.addBarometer(BarometerSample(t: Double(i), pressureHectopascals: p)) { warnings.append(w) }
            _ = estimator.addFix(LocationSample(t: Double(i) + 0.5, latitudeDegrees: 47, longitudeDegrees: 8, altitudeMeters: 1_000, speedMetersPerSecond: 5))
        }
        #expect(warnings.count == 1)
        if case .pressureJump(let hpa, _, _)? = warnings.first?.kind { #expect(hpa > 4) } else { Issue.record("no pressure jump") }
        #expect(warnings.first.map { $0.t >= 50 && $0.t <= 52 } == true)
    }

    @Test func anImplausibleFleetOffsetIsIgnoredNotAFault() throws {
        let s = AltitudeScenario(pressurized: true)
        let here = try H3.latLngToCell(latitude: 47, longitude: 8.03, resolution: AltitudeOffsetCell.h3Resolution).rawValue
        let hostile = [1e300, -1e300, 5_001].map {
            AltitudeOffsetCell(h3: here, layer: 35, offsetFeet: $0, uncertaintyFeet: 20, observationCount: 1, newestTime: 100)
        } + [AltitudeOffsetCell(h3: here, layer: 35, offsetFeet: 100, uncertaintyFeet: 1e300, observationCount: 1, newestTime: 100)]
        // The scenario's atmosphere is ISA: the seasonless prior's, so the layer is known without the fleet.
        var configuration = AltitudeConfiguration(aircraftClass: .medium)
        configuration.climatology = false
        let run = s.run(0..<60, configuration: configuration, fleet: hostile)
        let last = try #require(run.pairs.last)
        #expect(last.1.source == .gnssStandardAtmosphere)
        #expect(last.1.pressureAltitudeFeet.isFinite && last.1.layer == 35)
    }

    @Test func badPressuresAreRefusedWithAReason() {
        var estimator = AltitudeEstimator(configuration: AltitudeConfiguration(aircraftClass: .small))
        for p in [Double.nan, 0, -1, 101.3, 1e308, -Double.infinity] {
            guard case .refused(let reason, _) = estimator.addBarometer(BarometerSample(t: 1, pressureHectopascals: p)) else {
                Issue.record("\(p) accepted"); continue
            }
            #expect(!reason.isEmpty)
        }
        #expect(estimator.lastBarometerTime == -.infinity)
    }

    @Test func fixesAtThePolesAndAcrossTheAntimeridianNeverCrashOrGiveNaN() {
        var estimator = AltitudeEstimator(configuration: AltitudeConfiguration(aircraftClass: .medium))
        let here = try! H3.latLngToCell(latitude: 89.9, longitude: 179.9, resolution: 3).rawValue
        estimator.fleetOffsets = [AltitudeOffsetCell(h3: here, layer: 30, offsetFeet: 400, uncertaintyFeet: 30, observationCount: 3, newestTime: 0)]
        for (i, (lat, lon)) in [(90.0, 0.0), (-90.0, 180.0), (89.9, 179.9), (89.9, -179.9), (0, 180), (0, -180), (45, 179.99999)].enumerated() {
            let e = estimator.addFix(LocationSample(t: Double(i), latitudeDegrees: lat, longitudeDegrees: lon, altitudeMeters: 9_000))
            #expect(e.map { $0.pressureAltitudeFeet.isFinite && $0.pressureAltitudeUncertaintyFeet.u90.isFinite } == true)
        }
    }
}

@Suite struct BarometerCalibrationTests {
    @Test func manualCalibrationFindsTheBiasAndRefusesBadConditions() {
        var estimator = AltitudeEstimator(configuration: AltitudeConfiguration(aircraftClass: .small))
        // Field 1,411 ft, QNH 1021: the true static pressure; the sensor reads 0.8 hPa high.
        let truth = BarometricAltitude.pressureHectopascals(qnhAltitudeFeet: 1_411, qnhHectopascals: 1_021)
        for i in 0..<20 { _ = estimator.addBarometer(BarometerSample(t: Double(i), pressureHectopascals: truth + 0.8)) }
        let moving = estimator.calibrate(fieldElevationFeet: 1_411, qnhHectopascals: 1_021, at: 19, groundSpeedMetersPerSecond: 10)
        #expect(moving == .failure(.moving(groundSpeedMetersPerSecond: 10)))
        #expect(estimator.calibrate(fieldElevationFeet: 1_411, qnhHectopascals: 2_000, at: 19, groundSpeedMetersPerSecond: 0).isFailure)
        #expect(estimator.calibrate(fieldElevationFeet: 1_411, qnhHectopascals: 1_021, at: 60, groundSpeedMetersPerSecond: 0) == .failure(.noPressure))
        let done = estimator.calibrate(fieldElevationFeet: 1_411, qnhHectopascals: 1_021, at: 19, groundSpeedMetersPerSecond: 0)
        guard case .success(let c) = done else { Issue.record("\(done)"); return }
        #expect(abs(c.biasHectopascals - 0.8) < 1e-6)
        var rising = AltitudeEstimator(configuration: AltitudeConfiguration(aircraftClass: .small))
        for i in 0..<10 { _ = rising.addBarometer(BarometerSample(t: Double(i), pressureHectopascals: 1_000 - Double(i) * 0.2)) }
        guard case .failure(.pressureChangingTooFast) = rising.calibrate(fieldElevationFeet: 300, qnhHectopascals: 1_013, at: 9, groundSpeedMetersPerSecond: 0) else {
            Issue.record("a pressure falling 0.2 hPa/s was calibrated"); return
        }
    }

    @Test func backgroundCalibrationAgainstADSBRecoversTheBias() {
        var s = AltitudeScenario(pressurized: false, cruiseFeet: 7_000, adsb: true)
        s.barometerBiasHectopascals = 1.1
        s.profile = climbProfile(from: 1_000, to: 7_000, feetPerMinute: 600, start: 10)
        var estimator = s.run(0..<900, configuration: AltitudeConfiguration(aircraftClass: .small)).estimator
        let taken = estimator.takeBackgroundCalibration()
        let c = try! #require(taken)
        #expect(c.method == .background)
        #expect(abs(c.biasHectopascals - 1.1) < 3 * c.uncertaintyHectopascals + 0.03)
    }
}

private extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
