import EddyAlerts
import EddyH3
import EddyStore
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 27 deliverable 6: no alerts below the floor (10,000 ft for medium and large aircraft by default, none for
/// small ones; docs/alerts.md "Alert floor").
@Suite struct AlertFloorTests {
    private static let now = 1_790_000_000.0

    /// Flies east at `altitudesFeet` (one fix a second each, ADS-B pressure altitude) towards moderate reports in every
    /// layer ahead; returns the alerts heard.
    private func alerts(designator: String, floor: AlertFloor = .byAircraftClass, altitudesFeet: [Double]) throws -> [EddyAlert] {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        try engine.setAircraft(designator: designator)
        let centre = try H3.cellToLatLng(H3.latLngToCell(latitude: 47.8, longitude: 9.0, resolution: 5))
        let cell = try H3.latLngToCell(latitude: centre.latitude, longitude: centre.longitude, resolution: 5).rawValue
        let reports = (1...40).map { layer in
            ServerObservation(report: TileReport(id: UUID(), tile: TileID(h3: cell, layer: layer), enterTime: Self.now - 200,
                                                 exitTime: Self.now - 100, edrPeak: 0.5, edrMedian: 0.45, reporterClass: .small),
                              reporterID: "other", source: "test")
        }
        try engine.store.upsertObservations(reports)
        var query = AlertQuery()
        query.floor = floor
        try engine.startMonitoringAlerts(with: query)
        let start = Geodesy.destination(from: (centre.latitude, centre.longitude), bearingDegrees: 270, distanceNM: 60)
        for (i, feet) in altitudesFeet.enumerated() {
            let position = Geodesy.destination(from: start, bearingDegrees: 90, distanceNM: Double(i) * 0.1)
            engine.push(.location(LocationSample(
                t: Self.now + Double(i), latitudeDegrees: position.latitude, longitudeDegrees: position.longitude,
                altitudeMeters: feet * 0.3048, speedMetersPerSecond: 100, courseDegrees: 90, pressureAltitudeFeet: feet, source: .adsb)))
        }
        return log.callbacks.compactMap { if case .didReceiveAlert(let alert) = $0 { alert } else { nil } }
    }

    @Test func aMediumJetHearsNoAlertBelow10000FeetAndOneAboveIt() throws {
        let low = try alerts(designator: "B738", altitudesFeet: Array(repeating: 8_500, count: 20))
        #expect(low.isEmpty, "below the floor: \(low.count) alerts")
        let high = try alerts(designator: "B738", altitudesFeet: Array(repeating: 12_500, count: 20))
        #expect(high.count == 1 && high.first?.items.isEmpty == false)
    }

    @Test func descendingThroughTheFloorClearsTheAlertOnceAndClimbingBackAlertsAgain() throws {
        // 12,500 ft, a descent at 3,000 ft/min to 8,500 ft, 30 s there, the climb back.
        let descent = (0..<80).map { 12_500 - 50 * Double($0) }
        let profile = Array(repeating: 12_500.0, count: 10) + descent + Array(repeating: 8_500, count: 30) + descent.reversed()
            + Array(repeating: 12_500, count: 10)
        let heard = try alerts(designator: "A320", altitudesFeet: profile)
        func altitude(_ alert: EddyAlert) -> Double { profile[Int((alert.t - Self.now).rounded())] }
        let withItems = heard.filter { !$0.items.isEmpty }
        #expect(withItems.allSatisfy { altitude($0) >= 10_000 }, "alerts at \(withItems.map(altitude))")
        let cleared = heard.filter(\.items.isEmpty)
        #expect(cleared.count == 1, "cleared once: \(cleared.count)")
        let clearedAt = try #require(cleared.first).t - Self.now
        #expect(altitude(try #require(cleared.first)) < 10_000 && clearedAt < 90, "cleared at the floor, \(clearedAt) s in")
        #expect(withItems.contains { $0.t - Self.now >= 120 }, "alerted again after the climb")
    }

    @Test func smallAircraftHaveNoFloorByDefaultAndTheFloorIsConfigurable() throws {
        let small = try alerts(designator: "C172", altitudesFeet: Array(repeating: 4_500, count: 20))
        #expect(small.count == 1, "a small aircraft is alerted at 4,500 ft")
        let noFloor = try alerts(designator: "B738", floor: .none, altitudesFeet: Array(repeating: 8_500, count: 20))
        #expect(noFloor.count == 1)
        let smallWithFloor = try alerts(designator: "C172", floor: .feet(5_000), altitudesFeet: Array(repeating: 4_500, count: 20))
        #expect(smallWithFloor.isEmpty)
        #expect(AlertQuery().floorFeet == AlertFloor.transportFloorFeet)
        var large = AlertQuery()
        large.viewerClass = .large
        #expect(large.floorFeet == 10_000)
        var small172 = AlertQuery()
        small172.viewerClass = .small
        #expect(small172.floorFeet == nil)
    }

    @Test func aNonFiniteFloorIsRefused() {
        var query = AlertQuery()
        query.floor = .feet(.nan)
        #expect(throws: AlertQueryError.self) { try query.validate() }
    }
}
