// A host app's whole path through Eddy, written as an app developer would: this target imports only `Eddy` (the
// engine, which re-exports the types its API uses) and `EddyTesting` (a loopback `eddy-server`, simulated flights,
// a callback recorder). Issue 13's acceptance: start → aircraft and flight → a simulated flight → reports and alerts →
// logs → 403 → start again with a new key, cache kept → stop.
import Eddy
import EddyAlerts
import EddyTesting
import EddyVocabulary
import Foundation
import Testing

@Suite(.serialized) struct HostAppWalkthroughTests {
    /// A medium-class flight eastwards from (47, 8) at the class's cruise: 4 min smooth, 3 min at EDR 0.35
    /// (moderate–severe for a B738), 4 min smooth.
    private static func flight(startingAt t0: Double, seed: UInt64) -> SyntheticFlight {
        SyntheticFlight(segments: [TurbulenceSegment(edr: 0, durationSeconds: 240), TurbulenceSegment(edr: 0.35, durationSeconds: 180),
                                   TurbulenceSegment(edr: 0, durationSeconds: 240)],
                        aircraftClass: .medium, startEpochSeconds: t0, startLatitude: 47, startLongitude: 8, courseDegrees: 90, seed: seed)
    }

    @Test func startFlyReceiveReportsAndAlertsExportLogsSurviveA403AndStop() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try TemporaryDirectory(prefix: "eddy-host-app")
        defer { folder.remove() }
        let now = Date().timeIntervalSince1970.rounded(.down)

        // Another pilot of the airline flew the route 25 minutes ago and reported its turbulence.
        let earlier = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("other.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        try earlier.startNow(apiKey: server.apiKey, airline: "DAL", userId: "other.pilot@example.com", environment: .local(port: server.port))
        try earlier.setAircraft(designator: "B738")
        earlier.push(contentsOf: Self.flight(startingAt: now - 1_500, seed: 3).samples())
        earlier.finishDetection()
        earlier.syncNow()
        #expect(try earlier.store.outboxCounts().pending == 0, "the earlier flight's reports reached the server")

        // 1. The app starts its engine, sets the aircraft and the flight, and monitors alerts.
        var configuration = EddyConfiguration(storePath: folder.path("app.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.logging.level = .info
        let engine = try EddyEngine(configuration: configuration)
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot.42@example.com", environment: .local(port: server.port))
        #expect(engine.isStarted && engine.isRecording)
        try engine.setAircraft(designator: "B738")
        engine.setFlight(Flight(flightNumber: "DAL123", departure: "LSZH", destination: "LOWW"))
        try engine.startMonitoringAlerts(with: AlertQuery())

        // 2. A simulated flight along the same route, 11 minutes ending now.
        engine.push(contentsOf: Self.flight(startingAt: now - 700, seed: 4).samples())
        engine.finishDetection()
        engine.syncNow()

        // 3. Its own reports (stored, then uploaded) and alerts for the earlier pilot's turbulence ahead.
        let detected = log.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        #expect(detected.contains { $0.severity >= .moderate }, "own reports: \(detected.map(\.severity))")
        #expect(detected.allSatisfy { !$0.isSimulated }, "a host's own samples are real")
        #expect(try engine.store.outboxCounts().pending == 0, "own reports uploaded")
        let alerts = log.callbacks.compactMap { if case .didReceiveAlert(let a) = $0 { a } else { nil } }
        #expect(alerts.contains { !$0.items.isEmpty }, "the turbulence ahead alerted")
        #expect(try engine.store.observationCount() > 0, "the earlier flight's reports are cached")

        // 4. The pilot reports a problem: one log file, without key or user id.
        let exported = try engine.exportLogs()
        let text = try String(contentsOf: exported, encoding: .utf8)
        #expect(!text.isEmpty)
        #expect(!text.contains(server.apiKey) && !text.contains("pilot.42@example.com"))

        // 5. The operator deactivates the key: 403, recording stops.
        _ = try server.runCLI(["keys", "revoke", "--db", server.databasePath, "1"])
        try engine.fetchData(refresh: true)
        engine.syncNow()
        #expect(!engine.isRecording)
        #expect(log.callbacks.last { $0.name == "didUpdateRecordingStatus" } == .didUpdateRecordingStatus(false))

        // 6. The app gets a new key and starts again without stop(): the cache is kept.
        let cached = try engine.store.observationCount()
        let newKey = try server.addKey(airline: "DAL")
        try engine.startNow(apiKey: newKey, airline: "DAL", userId: "pilot.42@example.com", environment: .local(port: server.port))
        #expect(engine.isRecording)
        #expect(try engine.store.observationCount() == cached, "fetched data kept across the restart")

        // 7. Stop: sync stops, the session and the fetched data are deleted.
        engine.stop()
        #expect(!engine.isStarted && !engine.isRecording)
        #expect(try engine.store.observationCount() == 0)
    }
}
