import EddyAlerts
import EddyH3
import EddyProtocol
import EddySimulation
import EddyStore
import EddySupport
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// The engine's acceptance scenario: two aircraft against a real `eddy-server` on loopback.
///
/// A flies a simulated medium-jet flight (50 Hz accelerometer + gyro) through 2 min of EDR 0.35 and uploads its tiles.
/// B, later, flies the location-only route of `TwoAircraftScript` (1 Hz) towards that area while monitoring alerts;
/// aircraft C uploads a severe report on the way, and the server is SIGKILLed for 5 min of B's descent and restarted.
/// B's callbacks must be exactly the script's sequences.
@Suite(.serialized) struct TwoAircraftScenarioTests {

    @Test func aircraftBIsAlertedOnceForAsTurbulenceAheadAndOnlyOnChange() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let now = Date().timeIntervalSince1970.rounded(.down)
        let environment = EddyEnvironment.local(port: server.port)

        // Aircraft A: detection through the engine, uploads.
        let engineA = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("a.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let logA = CallbackRecorder(engineA)
        try engineA.startNow(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-A", environment: environment)
        try engineA.setAircraft(designator: "B738")
        let scenarioA = FlightScenario(
            aircraftClass: .medium,
            segments: [TurbulenceSegment(edr: 0, durationSeconds: 240), TurbulenceSegment(edr: 0.35, durationSeconds: 120),
                       TurbulenceSegment(edr: 0, durationSeconds: 240)],
            startLatitude: 40.64, startLongitude: -73.78, courseDegrees: 50, seed: 11)
        for sample in FlightSimulator.simulate(scenarioA).samples.mergedSamples() { engineA.push(shifted(sample, by: now - 5400)) }
        engineA.finishDetection()
        engineA.syncNow()
        #expect(try engineA.store.outboxCounts().pending == 0, "A uploaded every tile")
        let reportsA = logA.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        let turbulentA = reportsA.filter { $0.report.severity(for: .medium) >= .light }
        try #require(!turbulentA.isEmpty, "A felt the EDR 0.35 segment")
        #expect(turbulentA.contains { $0.severity >= .moderate })
        let layerA = turbulentA[0].report.tile.layer
        #expect(turbulentA.allSatisfy { $0.report.tile.layer == layerA })
        let centres = try turbulentA.map { try H3.cellToLatLng(H3Index(rawValue: $0.report.tile.h3)) }
        let area: Geodesy.Point = (centres.map(\.latitude).reduce(0, +) / Double(centres.count),
                                   centres.map(\.longitude).reduce(0, +) / Double(centres.count))

        // Aircraft B: location only, alerts monitored, sync on flight time. B does not upload its position, so every
        // request it makes is a fetch and the outage shows in the fetching status (a failed position upload would
        // otherwise close the back-off gate before the due fetch is tried).
        var configurationB = EddyConfiguration(storePath: folder.path("b.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configurationB.positionUploadIntervalSeconds = .infinity
        let engineB = try EddyEngine(configuration: configurationB)
        let logB = CallbackRecorder(engineB)
        try engineB.startNow(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-B", environment: environment)
        try engineB.setAircraft(designator: "A320")
        engineB.updateFrequency = .fast
        try engineB.startMonitoringAlerts(with: AlertQuery())

        let script = try TwoAircraftScript(area: area, layerA: layerA, now: now)

        var cUploaded = false, killed = false, restarted = false
        var cTile: TileID?
        for fix in script.route {
            if !cUploaded && script.cReports(at: fix) {
                // Aircraft C reports severe turbulence 8 NM from the area's centre towards B, in A's layer.
                let tile = try script.cTile(seenFrom: fix)
                cTile = tile
                let clientC = SyncClient(
                    transport: try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: server.baseURL)),
                    identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "aircraft-C"), clock: SystemEpochClock())
                let ack = try clientC.upload([TileReport(
                    id: UUID(), tile: tile, enterTime: fix.t - 120, exitTime: fix.t - 60, edrPeak: 0.6, edrMedian: 0.5,
                    reporterClass: .medium)])
                #expect(ack.acceptedIds.count == 1)
                cUploaded = true
            }
            if !killed && script.serverDown(at: fix) { server.kill(); killed = true }
            if killed && !restarted && script.serverBack(at: fix) { try server.start(); restarted = true }
            engineB.push(.location(fix))
        }
        #expect(restarted)

        // Alerts, reachability, fetching status and low power: the scenario's exact sequences.
        try script.expectSequences(logB.all.map { ($0.t, $0.callback) }, tilesA: Set(turbulentA.map(\.report.tile)), cTile: cTile)
        #expect(try engineB.store.outboxCounts().pending == 0)
    }
}
