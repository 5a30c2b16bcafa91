import EddyNavigation
import EddyTesting
import EddyVocabulary
import Testing

@Suite struct SyntheticRouteTests {
    static let start = 1_800_000_000.0
    static let knot = 1852.0 / 3600.0   // m/s

    /// A whole short flight: parked, taxi, take-off, cruise, turn, descent, landing roll, parked.
    static let flight = SyntheticRoute(
        startLatitude: 47.45, startLongitude: 8.56, startCourseDegrees: 280, fieldElevationFeet: 1_400,
        startEpochSeconds: start)
        .parked(seconds: 60)
        .taxi(speedKnots: 15, courseDegrees: 100, seconds: 240)
        .takeoffClimb(toAltitudeFeet: 35_000, speedKnots: 450, seconds: 1_200, runwayCourseDegrees: 280)
        .cruise(seconds: 1_800)
        .headingChange(byDegrees: 90, seconds: 60)
        .descent(toAltitudeFeet: 1_600, speedKnots: 150, seconds: 1_200)
        .landingRoll(toSpeedKnots: 20, fieldElevationFeet: 1_600, seconds: 40)
        .taxi(speedKnots: 12, seconds: 120)
        .parked(seconds: 600)

    /// The fixes whose time lies in leg `index` (start inclusive, end exclusive).
    static func fixes(inLeg index: Int, of route: SyntheticRoute, _ fixes: [LocationSample]) -> [LocationSample] {
        let leg = route.schedule[index]
        return fixes.filter { $0.t >= leg.startEpochSeconds && $0.t < leg.endEpochSeconds }
    }

    @Test func fixesAreOneHertzStrictlyIncreasingAndShifted() {
        let fixes = Self.flight.locations()
        #expect(Self.flight.durationSeconds == 60 + 240 + 30 + 1_200 + 1_800 + 60 + 1_200 + 40 + 120 + 600)
        #expect(fixes.count == 5_351)
        #expect(fixes.count == Self.flight.fixCount)
        #expect(fixes.first?.t == Self.start)
        #expect(fixes.last?.t == Self.start + 5_350)
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $1.t - $0.t == 1 })
        #expect(fixes.allSatisfy { $0.source == .device && $0.pressureAltitudeFeet == nil })
        let slow = SyntheticRoute(startLatitude: 0, startLongitude: 0, startEpochSeconds: Self.start, intervalSeconds: 5)
            .cruise(altitudeFeet: 10_000, speedKnots: 200, seconds: 60)
        #expect(slow.locations().map(\.t) == (0...12).map { Self.start + Double($0) * 5 })
    }

    @Test func cruiseHoldsSpeedAltitudeCourseAndFliesSpeedTimesTime() {
        let route = SyntheticRoute(startLatitude: 47, startLongitude: 8, startCourseDegrees: 90, startEpochSeconds: Self.start)
            .cruise(altitudeFeet: 37_000, speedKnots: 450, seconds: 1_800)
        let fixes = route.locations()
        #expect(fixes.allSatisfy { abs($0.speedMetersPerSecond! - 450 * Self.knot) < 1e-9 })
        #expect(fixes.allSatisfy { abs($0.altitudeMeters! - 37_000 * 0.3048) < 1e-9 })
        #expect(fixes.allSatisfy { $0.courseDegrees == 90 })
        // Distance flown along the fixes: 450 kt × 0.5 h = 225 NM, within 0.5 %.
        let flown = zip(fixes, fixes.dropFirst()).reduce(0) { $0 + distanceNM($1.0, $1.1) }
        #expect(abs(flown - 225) / 225 < 0.005)
        // Straight over the ground too: the end point lies 225 NM from the start (rhumb ≈ great circle here).
        #expect(abs(distanceNM(fixes.first!, fixes.last!) - 225) / 225 < 0.005)
        // Each step's bearing is the reported course.
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { a, b in
            Geodesy.angleDifferenceDegrees(Geodesy.initialBearingDegrees(from: point(a), to: point(b)), b.courseDegrees!) < 0.01
        })
    }

    @Test func everyLegFliesItsSpeedTimesTime() {
        let fixes = Self.flight.locations()
        for (index, leg) in Self.flight.schedule.enumerated() {
            let inLeg = fixes.filter { $0.t >= leg.startEpochSeconds && $0.t <= leg.endEpochSeconds }
            let flown = zip(inLeg, inLeg.dropFirst()).reduce(0) { $0 + distanceNM($1.0, $1.1) }
            let expected = (leg.startSpeedKnots + leg.endSpeedKnots) / 2 * (leg.endEpochSeconds - leg.startEpochSeconds) / 3600
            if expected == 0 {
                #expect(flown < 1e-9, "leg \(index) \(leg.kind) moved while parked")
            } else {
                #expect(abs(flown - expected) / expected < 0.005, "leg \(index) \(leg.kind): \(flown) NM, expected \(expected)")
            }
        }
    }

    @Test func taxiStaysSlowAndOnTheGround() {
        let fixes = Self.flight.locations()
        let schedule = Self.flight.schedule
        #expect(schedule.map(\.kind) == [.parked, .taxi, .takeoffRoll, .climb, .cruise, .headingChange, .descent,
                                          .landingRoll, .taxi, .parked])
        for index in schedule.indices where schedule[index].kind == .taxi {
            let taxi = Self.fixes(inLeg: index, of: Self.flight, fixes)
            #expect(!taxi.isEmpty)
            #expect(taxi.allSatisfy { $0.speedMetersPerSecond! < 30 * Self.knot })
            // The positions agree: no jump faster than 30 kt between consecutive taxi fixes.
            #expect(zip(taxi, taxi.dropFirst()).allSatisfy { distanceNM($0, $1) * 3600 < 30 })
            #expect(Set(taxi.map(\.altitudeMeters)).count == 1)
        }
        let firstTaxi = Self.fixes(inLeg: 1, of: Self.flight, fixes)
        #expect(firstTaxi.allSatisfy { $0.courseDegrees == 100 && abs($0.altitudeMeters! - 1_400 * 0.3048) < 1e-9 })
        let parked = Self.fixes(inLeg: 0, of: Self.flight, fixes)
        #expect(parked.allSatisfy { $0.speedMetersPerSecond == 0 && $0.latitudeDegrees == 47.45 && $0.longitudeDegrees == 8.56 })
    }

    @Test func climbDescentAndRollsInterpolateLinearly() {
        let fixes = Self.flight.locations()
        let schedule = Self.flight.schedule
        let roll = Self.fixes(inLeg: 2, of: Self.flight, fixes)
        #expect(roll.first?.speedMetersPerSecond == 0)
        #expect(roll.allSatisfy { $0.courseDegrees == 280 && abs($0.altitudeMeters! - 1_400 * 0.3048) < 1e-9 })
        #expect(abs(roll[15].speedMetersPerSecond! - 70 * Self.knot) < 1e-9)       // half of 140 kt after 15 of 30 s
        let climb = Self.fixes(inLeg: 3, of: Self.flight, fixes)
        #expect(climb.count == 1_200)
        #expect(abs(climb[600].altitudeMeters! / 0.3048 - (1_400 + 35_000) / 2) < 1e-6)
        #expect(abs(climb[600].speedMetersPerSecond! / Self.knot - (140 + 450) / 2) < 1e-9)
        #expect(zip(climb, climb.dropFirst()).allSatisfy { $1.altitudeMeters! > $0.altitudeMeters! })
        let descent = Self.fixes(inLeg: 6, of: Self.flight, fixes)
        #expect(zip(descent, descent.dropFirst()).allSatisfy { $1.altitudeMeters! < $0.altitudeMeters! })
        #expect(schedule[6].startAltitudeFeet == 35_000 && schedule[6].endAltitudeFeet == 1_600)
        let landing = Self.fixes(inLeg: 7, of: Self.flight, fixes)
        #expect(abs(landing.first!.speedMetersPerSecond! - 150 * Self.knot) < 1e-9)
        #expect(zip(landing, landing.dropFirst()).allSatisfy { $1.speedMetersPerSecond! < $0.speedMetersPerSecond! })
        #expect(fixes.last?.speedMetersPerSecond == 0)
        #expect(abs(fixes.last!.altitudeMeters! - 1_600 * 0.3048) < 1e-9)
    }

    @Test func headingChangesTurnAtAConstantRateTheShorterWay() {
        let fixes = Self.flight.locations()
        let turn = Self.fixes(inLeg: 5, of: Self.flight, fixes)
        #expect(turn.count == 60)
        #expect(turn.first?.courseDegrees == 280)
        for (i, fix) in turn.enumerated() {
            #expect(Geodesy.angleDifferenceDegrees(fix.courseDegrees!, 280 + 1.5 * Double(i)) < 1e-9)
        }
        #expect(Self.fixes(inLeg: 6, of: Self.flight, fixes).first?.courseDegrees == 10)   // 280 + 90, normalised
        let left = SyntheticRoute(startLatitude: 10, startLongitude: 20, startCourseDegrees: 10, startEpochSeconds: Self.start)
            .cruise(altitudeFeet: 5_000, speedKnots: 120, seconds: 10)
            .headingChange(toCourseDegrees: 330, seconds: 40)
        #expect(left.schedule.last?.endCourseDegrees == 330)
        let courses = left.locations().dropFirst(10).map(\.courseDegrees!)
        #expect(courses.first == 10)
        #expect(abs(courses[20] - 350) < 1e-9)   // turning left through north, 1 °/s
        #expect(courses.last == 330)
    }

    @Test func adsbFixesCarryPressureAltitude() {
        let route = SyntheticRoute(startLatitude: 47, startLongitude: 8, startEpochSeconds: Self.start, source: .adsb,
                                   pressureAltitudeOffsetFeet: -250)
            .cruise(altitudeFeet: 24_000, speedKnots: 300, seconds: 5)
        let fixes = route.locations()
        #expect(fixes.count == 6)
        #expect(fixes.allSatisfy { $0.source == .adsb && $0.pressureAltitudeFeet == 23_750 })
        #expect(fixes.allSatisfy { $0.layerAltitudeFeet == 23_750 })   // the engine's layer comes from pressure altitude
        let device = SyntheticRoute(startLatitude: 47, startLongitude: 8, startEpochSeconds: Self.start,
                                    reportsPressureAltitude: true)
            .cruise(altitudeFeet: 24_000, speedKnots: 300, seconds: 5)
        #expect(device.locations().allSatisfy { $0.source == .device && $0.pressureAltitudeFeet == 24_000 })
    }

    @Test func drivesTheFlightPhaseTrackerThroughAWholeFlight() {
        var tracker = FlightPhaseTracker()
        var events: [FlightPhaseEvent] = []
        for fix in Self.flight { events += tracker.update(fix).map(\.event) }
        #expect(events == [.airborne, .landed, .lowPower(true)])
    }

    @Test func positionAtAnyTimeAgreesWithTheFixes() throws {
        let fixes = Self.flight.locations()
        #expect(Self.flight.fix(atEpochSeconds: Self.start + 1_000) == fixes[1_000])
        #expect(Self.flight.endFix == fixes.last)
        #expect(Self.flight.fix(atEpochSeconds: Self.start - 1) == nil)
        #expect(Self.flight.fix(atEpochSeconds: Self.flight.endEpochSeconds + 1) == nil)
        // Half a second into the cruise: half a step along, between the neighbouring fixes.
        let cruiseStart = Self.flight.schedule[4].startEpochSeconds
        let middle = try #require(Self.flight.fix(atEpochSeconds: cruiseStart + 100.5))
        let a = fixes[Int(cruiseStart - Self.start) + 100], b = fixes[Int(cruiseStart - Self.start) + 101]
        #expect(middle.t == cruiseStart + 100.5)
        #expect(abs(distanceNM(a, middle) - 450 * 0.5 / 3600) < 1e-9)
        #expect(abs(distanceNM(middle, b) - 450 * 0.5 / 3600) < 1e-9)
    }

    @Test func deviceAndADSBStreamsMergeByTime() {
        let device = SyntheticRoute(startLatitude: 47, startLongitude: 8, startCourseDegrees: 45, startEpochSeconds: Self.start)
            .cruise(altitudeFeet: 33_000, speedKnots: 440, seconds: 10)
        let adsb = device.reported(by: .adsb, lagSeconds: 0.5, pressureAltitudeOffsetFeet: 300)
        let merged = SyntheticRoute.merged([device, adsb])
        #expect(merged.count == 22)
        #expect(merged.map(\.source) == Array(repeating: [LocationSource.device, .adsb], count: 11).flatMap { $0 })
        #expect(zip(merged, merged.dropFirst()).allSatisfy { $1.t - $0.t == 0.5 })
        let deviceFixes = merged.filter { $0.source == .device }, adsbFixes = merged.filter { $0.source == .adsb }
        #expect(deviceFixes.allSatisfy { $0.pressureAltitudeFeet == nil })
        #expect(adsbFixes.allSatisfy { $0.pressureAltitudeFeet == 33_300 })
        // The same path, reported half a second late.
        #expect(zip(deviceFixes, adsbFixes).allSatisfy {
            $0.latitudeDegrees == $1.latitudeDegrees && $0.longitudeDegrees == $1.longitudeDegrees && $1.t == $0.t + 0.5
        })
        #expect(SyntheticRoute.merged([device, device]).count == 22)   // ties keep both, in order
    }

    @Test func emptyRouteHasNoFixes() {
        let route = SyntheticRoute(startLatitude: 0, startLongitude: 0, startEpochSeconds: Self.start)
        #expect(route.locations().isEmpty)
        #expect(route.durationSeconds == 0)
        #expect(route.endFix == nil)
    }
}

func point(_ fix: LocationSample) -> Geodesy.Point { (fix.latitudeDegrees, fix.longitudeDegrees) }

func distanceNM(_ a: LocationSample, _ b: LocationSample) -> Double { Geodesy.distanceNM(from: point(a), to: point(b)) }
