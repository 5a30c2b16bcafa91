import EddyH3
import EddyProtocol
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 13's defects, each against the real loopback server (`LocalEddyServer`) where the server is involved.
@Suite(.serialized) struct AppDeveloperDefectTests {
    /// An e-mail address (longer than the 21 characters the old flight id allowed) and a 128-scalar id with
    /// combining marks, emoji and CJK: every id `start` accepts.
    static let longUserIds: [String] = [
        "first.last+eddy-tests@example-airline.com",
        String(repeating: "e\u{301}", count: 20) + String(repeating: "✈️", count: 20) + String(repeating: "飛", count: 48),
    ]

    /// Fixes of an aircraft in cruise (230 m/s, 10 km) every second for `seconds`, from `t0`.
    private func cruise(from t0: Double, seconds: Int, latitude: Double = 40.7, longitude: Double = -73.5) -> [LocationSample] {
        (0..<seconds).map { i in
            let p = Geodesy.destination(from: (latitude, longitude), bearingDegrees: 50, distanceNM: Double(i) * 230 / 1852)
            return LocationSample(t: t0 + Double(i), latitudeDegrees: p.latitude, longitudeDegrees: p.longitude, altitudeMeters: 10_000,
                                  speedMetersPerSecond: 230, courseDegrees: 50)
        }
    }

    /// A client of its own (another user, maybe another airline) fetching live flights or turbulence near (40.7, −73.5).
    private func observer(_ server: LocalEddyServer, apiKey: String, airline: String, userId: String) throws -> SyncClient {
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: server.baseURL))
        return SyncClient(transport: transport, identity: ClientIdentity(apiKey: apiKey, airline: airline, userId: userId),
                          clock: SystemEpochClock())
    }

    private static let area = SyncArea(type: .viewport, polygon: [
        GeoPoint(lat: 39, lng: -76), GeoPoint(lat: 39, lng: -70), GeoPoint(lat: 43, lng: -70), GeoPoint(lat: 43, lng: -76),
    ])

    @Test(arguments: longUserIds)
    func everyAcceptedUserIdUploadsPositionsAndKeepsTheFetchCadence(userId: String) throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: userId, environment: .local(port: server.port))
        let now = Date().timeIntervalSince1970.rounded(.down)
        // Ten minutes of cruise ending now, at 1 Hz.
        for fix in cruise(from: now - 600, seconds: 600) { engine.push(.location(fix)) }
        engine.syncNow()
        let failures = log.callbacks.filter { if case .didFailToFetchNewData = $0 { true } else { false } }
        #expect(failures.isEmpty, "no request may fail: \(failures)")
        // Fast updates fetch the route every 60 s: 10 minutes of flight → about 10 fetches (back-off would leave 1–2).
        let routeFetches = log.callbacks.filter { $0 == .didUpdateFetchingStatus(.idle, areaType: .route, dataType: .turbulence) }.count
        #expect(routeFetches >= 9, "route fetches in 10 min: \(routeFetches)")
        // Another user of the same airline sees the flight.
        let other = try observer(server, apiKey: server.apiKey, airline: "DAL", userId: "observer")
        let seen = try other.fetch(DeltaFetchRequest(dataType: .liveFlights, area: Self.area)).liveFlights
        #expect(seen.count == 1, "the position uploads were accepted")
    }

    @Test func liveFlightsCarryNoUserIdAndFlightNumbersStayInTheAirline() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let otherAirlineKey = try server.addKey(airline: "UAL")
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let userId = "pilot42"
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: userId, environment: .local(port: server.port))
        let sameAirline = try observer(server, apiKey: server.apiKey, airline: "DAL", userId: "dispatcher")
        let otherAirline = try observer(server, apiKey: otherAirlineKey, airline: "UAL", userId: "ual-pilot")
        let now = Date().timeIntervalSince1970.rounded(.down)
        let tile = TileID(h3: try H3.latLngToCell(latitude: 40.8, longitude: -73.4, resolution: 5).rawValue, layer: 32)

        /// Flies two minutes of one flight with one own report, syncs, and returns what both observers see.
        func fly(_ flight: Flight, from t0: Double) throws -> (same: [LiveFlight], other: [LiveFlight], reporter: String) {
            engine.setFlight(flight)
            for fix in cruise(from: t0, seconds: 120) { engine.push(.location(fix)) }
            engine.syncNow()
            let report = TileReport(id: UUID(), tile: tile, enterTime: t0 + 60, exitTime: t0 + 100, edrPeak: 0.3, edrMedian: 0.2,
                                    reporterClass: .medium)
            _ = try engine.store.insertOwnReports([report])
            engine.syncNow()
            #expect(try engine.store.outboxCounts().pending == 0)
            let same = try sameAirline.fetch(DeltaFetchRequest(dataType: .liveFlights, area: Self.area)).liveFlights
            let other = try otherAirline.fetch(DeltaFetchRequest(dataType: .liveFlights, area: Self.area)).liveFlights
            let observations = try otherAirline.fetch(DeltaFetchRequest(dataType: .turbulence, area: Self.area)).observations
            let reporter = try #require(observations.first { $0.report.id == report.id }).reporterId
            return (same, other, reporter)
        }

        let first = try fly(Flight(flightNumber: "DAL123"), from: now - 400)
        let second = try fly(Flight(flightNumber: "DAL456"), from: now - 200)
        for seen in [first.same, first.other, second.same, second.other] {
            #expect(!seen.isEmpty)
            for flight in seen {
                #expect(!flight.flightID.contains(userId) && !flight.flightID.contains("DAL"), "flight id \(flight.flightID)")
                #expect(flight.flightID.unicodeScalars.count <= 32)
            }
        }
        // The same airline sees the flight number; another airline sees the position without it.
        #expect(first.same.contains { $0.flightNumber == "DAL123" })
        #expect(second.same.contains { $0.flightNumber == "DAL456" })
        #expect((first.other + second.other).allSatisfy { $0.flightNumber == nil })
        #expect(first.other.contains { $0.aircraftType == "B738" })
        // Flight ids and reporter ids are random per flight: the two flights are not linkable to each other or to the pilot.
        let firstIDs = Set(first.other.map(\.flightID)), secondIDs = Set(second.other.map(\.flightID))
        #expect(secondIDs.subtracting(firstIDs).count == 1, "the second flight has a new id")
        #expect(first.reporter != second.reporter)
        for reporter in [first.reporter, second.reporter] { #expect(!reporter.contains(userId)) }
    }

    @Test func startWithANewKeyAfter403KeepsTheCacheWithoutStop() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        let now = Date().timeIntervalSince1970.rounded(.down)
        // Fetched data and an own report not yet sent.
        let tile = TileID(h3: try H3.latLngToCell(latitude: 40.8, longitude: -73.4, resolution: 5).rawValue, layer: 32)
        let fetched = TileReport(id: UUID(), tile: tile, enterTime: now - 300, exitTime: now - 250, edrPeak: 0.2, edrMedian: 0.1,
                                 reporterClass: .medium)
        try engine.store.upsertObservations([ServerObservation(report: fetched, reporterID: "x", source: "test")])
        _ = try server.runCLI(["keys", "revoke", "--db", server.databasePath, "1"])
        for fix in cruise(from: now - 120, seconds: 60) { engine.push(.location(fix)) }
        engine.syncNow()
        #expect(!engine.isRecording, "403: recording stopped")
        let own = TileReport(id: UUID(), tile: tile, enterTime: now - 80, exitTime: now - 60, edrPeak: 0.3, edrMedian: 0.2,
                             reporterClass: .medium)
        _ = try engine.store.insertOwnReports([own])
        // The app gets a new key and starts again, without stop().
        let newKey = try server.addKey(airline: "DAL")
        try engine.startNow(apiKey: newKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        #expect(engine.isStarted && engine.isRecording)
        #expect(log.callbacks.last(where: { $0.name == "didUpdateRecordingStatus" }) == .didUpdateRecordingStatus(true))
        #expect(try engine.store.observationCount() >= 1, "fetched data kept")
        for fix in cruise(from: now - 60, seconds: 60) { engine.push(.location(fix)) }
        engine.syncNow()
        #expect(try engine.store.outboxCounts().pending == 0, "the own report left with the new key")
        #expect(engine.isRecording)
        // Starting again with the same (good) identity after a 403 is not a no-op either: it re-validates.
        _ = try server.runCLI(["keys", "revoke", "--db", server.databasePath, "2"])
        engine.push(.location(cruise(from: now + 1, seconds: 1)[0]))
        let thirdKey = try server.addKey(airline: "DAL")
        try engine.fetchData(refresh: true)
        engine.syncNow()
        #expect(!engine.isRecording)
        #expect(throws: EddyError.self) {
            try engine.startNow(apiKey: newKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        }
        try engine.startNow(apiKey: thirdKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        #expect(engine.isRecording)
    }

    @Test func minimumSeverityAppliesToDataQueries() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        try engine.setAircraft(designator: "B738")
        let now = 1_790_000_000.0
        // One report of each severity for a medium viewer, each in its own tile.
        let edrs: [(Severity, Double)] = Severity.allCases.map { severity in
            (severity, SeverityScale.minimumEDR(for: severity, viewer: .medium) + 0.005)
        }
        var reports: [ServerObservation] = []
        for (index, (severity, edr)) in edrs.enumerated() {
            let cell = try H3.latLngToCell(latitude: 40.5 + Double(index) * 0.2, longitude: -73.5, resolution: 5)
            let report = TileReport(id: UUID(), tile: TileID(h3: cell.rawValue, layer: 32), enterTime: now - 200, exitTime: now - 100,
                                    edrPeak: edr, edrMedian: edr / 2, reporterClass: .medium)
            #expect(report.severity(for: .medium) == severity, "fixture: \(edr) reads \(severity)")
            reports.append(ServerObservation(report: report, reporterID: "r", source: "test"))
        }
        try engine.store.upsertObservations(reports)
        engine.push(.location(LocationSample(t: now, latitudeDegrees: 40.6, longitudeDegrees: -73.5, altitudeMeters: 10_000)))
        for minimum in Severity.allCases {
            var query = DataQuery()
            query.viewport = [LatLng(latitude: 39, longitude: -76), LatLng(latitude: 39, longitude: -70),
                              LatLng(latitude: 43, longitude: -70), LatLng(latitude: 43, longitude: -76)]
            query.minimumSeverity = minimum
            try engine.setDataQuery(query)
            let severities = try engine.turbulence(in: .viewport).map(\.severity).sorted()
            #expect(severities == Severity.allCases.filter { $0 >= minimum }, "minimum \(minimum)")
        }
    }
}
