import EddySimulation
import Foundation
import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

/// The position filter on the simulator's `phone` GNSS (independent of the filter's own test error model): lag in a
/// standard-rate turn at 120 kt (issue 11: ≤ 1 s).
@Suite struct PositionOnSimulatorTests {
    @Test func standardRateTurnAt120KnotsLagsAtMostOneSecond() {
        let speed = 120 * 1852 / 3600.0
        let bank = atan(speed * 3 * Double.pi / 180 / StandardAtmosphere.gravity) * 180 / .pi   // 3 °/s
        var alongSum = 0.0, count = 0, rawSquares = 0.0, filteredSquares = 0.0
        for seed in 1...20 as ClosedRange<UInt64> {
            var s = FlightScenario(
                aircraftClass: .small, segments: [TurbulenceSegment(edr: 0, durationSeconds: 900)], accelerometerRateHz: 1,
                includeGyroscope: false, groundSpeedMetersPerSecond: speed,
                turns: [CoordinatedTurn(start: 300, durationSeconds: 360, bankDegrees: seed % 2 == 0 ? bank : -bank)], seed: seed)
            s.gnssProfile = .phone
            let flight = FlightSimulator.simulate(s)
            var filter = HorizontalPositionFilter()
            for fix in flight.samples.location {
                let p = filter.update(fix).position
                // Inside the turn once established (roll-in takes ≈ 4 s), before the roll-out.
                guard let p, fix.t >= 320, fix.t <= 640 else { continue }
                let truth = flight.samples.truth[Int(fix.t)]
                let north = (p.latitudeDegrees - truth.latitudeDegrees) * 111_132
                let east = (p.longitudeDegrees - truth.longitudeDegrees) * 111_320 * cos(truth.latitudeDegrees * .pi / 180)
                let course = truth.courseDegrees * .pi / 180
                alongSum += north * cos(course) + east * sin(course)
                filteredSquares += north * north + east * east
                let rawNorth = (fix.latitudeDegrees - truth.latitudeDegrees) * 111_132
                let rawEast = (fix.longitudeDegrees - truth.longitudeDegrees) * 111_320 * cos(truth.latitudeDegrees * .pi / 180)
                rawSquares += rawNorth * rawNorth + rawEast * rawEast
                count += 1
            }
        }
        let lagSeconds = -alongSum / Double(count) / speed
        let reduction = 1 - (filteredSquares / rawSquares).squareRoot()
        print(String(format: "position on simulator phone GNSS, standard-rate turn at 120 kt: lag %.2f s, RMS %.0f %% below raw", lagSeconds, 100 * reduction))
        #expect(abs(lagSeconds) <= 1)
        #expect(reduction > 0)
    }
}
