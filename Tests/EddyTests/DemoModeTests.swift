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

/// Issue 13: the demo mode flies simulated turbulence through the real pipeline, flagged, never uploaded.
@Suite(.serialized) struct DemoModeTests {
    @Test func aDemoDetectsFlaggedTurbulenceAndUploadsNothing() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        #expect(throws: EddyError.notStarted) { try engine.startDemo(.turbulence(.moderate)) }
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        try engine.setAircraft(designator: "B738")
        #expect(throws: EddyError.self) { try engine.startDemo(EddyDemo(segments: [])) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        try engine.startDemo(.turbulence(.moderate), pace: .immediate(startEpochSeconds: now - 700))
        #expect(!engine.isDemoRunning, "an immediate demo is over when the call returns")
        engine.syncNow()

        let detected = log.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        #expect(!detected.isEmpty && detected.allSatisfy(\.isSimulated))
        #expect(detected.map(\.severity).max() == .moderate, "moderate asked: \(detected.map(\.severity))")
        // Stored locally, flagged; never in the outbox.
        let outbox = try engine.store.outboxCounts()
        #expect(outbox.pending == 0 && outbox.sent == 0)
        let items = try engine.store.turbulence(TurbulenceQuery(area: .everywhere, historyWindow: .sixHours, now: now,
                                                                includeReporterDetails: true))
        #expect(items.count == detected.count && items.allSatisfy(\.isSimulated))
        // The server got no report and no position.
        let transport = try HTTPTransportFactory.platformDefault.makeTransport(TransportConfiguration(baseURL: server.baseURL))
        let other = SyncClient(transport: transport, identity: ClientIdentity(apiKey: server.apiKey, airline: "DAL", userId: "observer"),
                               clock: SystemEpochClock())
        let area = SyncArea(type: .viewport, polygon: [GeoPoint(lat: 45, lng: 6), GeoPoint(lat: 45, lng: 14),
                                                       GeoPoint(lat: 49, lng: 14), GeoPoint(lat: 49, lng: 6)])
        #expect(try other.fetch(DeltaFetchRequest(dataType: .turbulence, area: area)).observations.isEmpty)
        #expect(try other.fetch(DeltaFetchRequest(dataType: .liveFlights, area: area)).liveFlights.isEmpty)
        // After the demo the host's samples are taken again (and a real report would go to the outbox).
        engine.push(.location(LocationSample(t: now, latitudeDegrees: 40, longitudeDegrees: -73, altitudeMeters: 10_000,
                                             speedMetersPerSecond: 230, courseDegrees: 90)))
        #expect(engine.engineTime == now)
    }

    /// `simulateTurbulence(sev:)`'s promise: the demo's worst tile reads the severity asked for (every severity).
    @Test(arguments: Severity.allCases) func theWorstDemoTileReadsTheAskedSeverity(severity: Severity) throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        try engine.startDemo(.turbulence(severity), pace: .immediate(startEpochSeconds: 1_790_000_000))
        let detected = log.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
        #expect(detected.count >= 8 && detected.allSatisfy(\.isSimulated))
        #expect(detected.map(\.severity).max() == severity, "\(severity) asked: \(detected.map(\.severity))")
    }

    @Test func theHostsSamplesAreIgnoredDuringADemoAndStopDemoEndsIt() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        try engine.startDemo(EddyDemo(segments: [.init(severity: .none, durationSeconds: 3_600)]), pace: .realTime)
        #expect(engine.isDemoRunning)
        let t = Date().timeIntervalSince1970.rounded(.down) + 10_000   // later than any demo sample so far
        engine.push(.location(LocationSample(t: t, latitudeDegrees: 40, longitudeDegrees: -73, speedMetersPerSecond: 230)))
        #expect(engine.engineTime.map { $0 < t } ?? true, "the host's fix is not taken during the demo")
        engine.stopDemo()
        #expect(!engine.isDemoRunning)
        engine.push(.location(LocationSample(t: t, latitudeDegrees: 40, longitudeDegrees: -73, speedMetersPerSecond: 230)))
        #expect(engine.engineTime == t)
    }
}
