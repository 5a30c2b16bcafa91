import EddyH3
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

extension Loopback {
/// Issue 11, fleet altitude assistance end to end: aircraft A (pressure and GNSS altitude) uploads its offset with its
/// position; aircraft B (GNSS only) fetches its route and finds the offset in its store, near its own position.
@Suite struct FleetAltitudeTests {
    @Test func offsetFromOneAircraftReachesAnotherAircraftsStore() async throws {
        let server = try LoopbackServer()
        let now = Date().timeIntervalSince1970
        let folder = try TemporaryDirectory()
        defer { folder.remove() }

        // A: position plus offset, sent by the scheduler's position upload; reports with the altitude fields.
        let a = try Aircraft(server: server, userId: "pilot-a")
        let position = LiveFlight(flightID: "DAL100", latitude: 40.9, longitude: -73.2, altitudeFeet: 35_000, headingDegrees: 50,
                                  groundSpeedKnots: 450, aircraftType: "B738", time: now)
        let observation = AltitudeOffsetObservation(
            time: now - 5, latitudeDegrees: 40.9, longitudeDegrees: -73.2, pressureAltitudeFeet: 35_010, offsetFeet: 1240,
            uncertaintyFeet: 35)
        a.scheduler.updatePosition(position, altitudeOffset: observation)
        let report = TileReport(
            id: UUID(), tile: TileID(h3: try H3.latLngToCell(latitude: 41.25, longitude: -72.3, resolution: 5).rawValue, layer: 35),
            enterTime: now - 660, exitTime: now - 600, edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium,
            altitudeSource: .external, altitudeU90Feet: 75, layerUncertain: false)
        a.store.enqueue([report])
        a.scheduler.step()
        #expect(a.log.failures.isEmpty)
        #expect(a.store.sentIds == [report.id])

        // A bad offset is refused with a 400 that names the field (and the position is not stored either).
        let bad = AltitudeOffsetObservation(
            time: now, latitudeDegrees: 40.9, longitudeDegrees: -73.2, pressureAltitudeFeet: 35_010, offsetFeet: 9000, uncertaintyFeet: 35)
        #expect {
            try a.client.uploadPosition(position, altitudeOffset: bad)
        } throws: { error in
            guard case SyncError.badRequest(let message) = error else { return false }
            return message.contains("altitudeOffset.offsetFeet")
        }

        // B: an EddyStore-backed scheduler with a route area through A's position.
        let store = try EddyStore.open(path: folder.url.appendingPathComponent("b.sqlite").path)
        let clock = ManualEpochClock(start: now)
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: server.baseURL))
        let client = SyncClient(transport: transport, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "pilot-b"), clock: clock)
        let log = EventLog()
        let b = SyncScheduler(client: client, store: store, clock: clock) { log.append($0) }
        let route = [GeoPoint(lat: 40.64, lng: -73.78), GeoPoint(lat: 41.8, lng: -71.0)]
        try b.setArea(SyncArea(type: .route, polygon: AreaGeometry.corridor(route: route, halfWidthNM: 20)), for: .route)
        b.step()
        #expect(log.failures.isEmpty)

        // B is a few miles away, one layer lower: A's cell is its own or a neighbour, and A's layer is within ±2.
        let found = try store.altitudeOffsets(nearLatitude: 41.0, longitude: -73.0, layer: 34, maxAgeSeconds: 3600, now: now)
        let cell = try H3.latLngToCell(latitude: 40.9, longitude: -73.2, resolution: 3).rawValue
        #expect(found == [AltitudeOffsetCell(h3: cell, layer: 35, offsetFeet: 1240, uncertaintyFeet: 35, observationCount: 1, newestTime: now - 5)])
        // Too far (London) or too stale: nothing.
        #expect(try store.altitudeOffsets(nearLatitude: 51.5, longitude: -0.45, layer: 35, maxAgeSeconds: 3600, now: now).isEmpty)
        #expect(try store.altitudeOffsets(nearLatitude: 41.0, longitude: -73.0, layer: 35, maxAgeSeconds: 3600, now: now + 3600).isEmpty)
        // A's report arrived with its altitude fields.
        let items = try store.turbulence(TurbulenceQuery(area: .everywhere, aggregation: .everyReport, now: now))
        #expect(items.map(\.report) == [report])
    }
}
}
