import EddyNavigation
import EddyProtocol
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Issue 13: thresholds served in the session settings, with the engine's local defaults.
@Suite(.serialized) struct ServerThresholdsTests {
    /// 60 fixes at 150 kt (77 m/s) and FL350: in the air by the default 50 kt, not by a 200 kt threshold.
    private func push150Knots(_ engine: EddyEngine, from t0: Double) {
        for i in 0..<60 {
            engine.push(.location(LocationSample(t: t0 + Double(i), latitudeDegrees: 47, longitudeDegrees: 8 + Double(i) * 0.001,
                                                 altitudeMeters: 10_668, horizontalAccuracyMeters: 5, verticalAccuracyMeters: 8,
                                                 speedMetersPerSecond: 77.2, courseDegrees: 90)))
        }
    }

    @Test func anOlderServersSettingsDecodeWithoutThresholds() throws {
        let json = #"{"minimalIntervalSeconds":600,"mediumIntervalSeconds":300,"fastIntervalSeconds":60,"tickSeconds":60,"fullRefreshAfterTicks":60,"maxReportsPerBatch":1000,"maxRequestBytes":1048576,"liveFlightExpirySeconds":600}"#
        let settings = try JSONDecoder().decode(ServerSettings.self, from: Data(json.utf8))
        #expect(settings.thresholds == nil)
        let local = EddyThresholds(local: FlightPhaseConfiguration(), maximumHorizontalAccuracyMeters: 50, maximumVerticalAccuracyMeters: 100)
        #expect(local.overridden(by: settings.thresholds) == local)
        // A partial or bad set: each missing or invalid value keeps the local default.
        let partial = local.overridden(by: ClientThresholds(lowPowerSpeedKnots: 12, inAirSpeedKnots: -1))
        #expect(partial.lowPowerSpeedKnots == 12 && partial.inAirSpeedKnots == 50 && partial.isFromServer)
    }

    @Test func theEngineUsesTheServersValuesAndKeepsThemForAnOfflineRestart() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: [
            "--rate-limit", "0", "--in-air-speed-knots", "200", "--low-power-speed-knots", "12", "--max-vertical-accuracy-meters", "5",
        ]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        let now = Date().timeIntervalSince1970.rounded(.down)
        do {
            let engine = try EddyEngine(configuration: configuration)
            #expect(engine.thresholds.inAirSpeedKnots == 50 && !engine.thresholds.isFromServer, "local default before any session")
            try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
            #expect(engine.thresholds.inAirSpeedKnots == 200 && engine.thresholds.lowPowerSpeedKnots == 12)
            #expect(engine.thresholds.maximumVerticalAccuracyMeters == 5 && engine.thresholds.isFromServer)
            #expect(engine.thresholds.inAirAltitudeFeet == 500, "the server's default equals the engine's")
            push150Knots(engine, from: now - 120)
            #expect(engine.flightPhase != .airborne, "150 kt is below the server's 200 kt")
            // Vertical accuracy 8 m is worse than the server's 5 m: the GNSS altitude is not used.
            #expect(engine.altitudeContext == nil)
        }
        // The app quits; the server is gone; the app starts again with the same identity.
        server.stop()
        let engine = try EddyEngine(configuration: configuration)
        #expect(engine.thresholds.inAirSpeedKnots == 200, "persisted with the session")
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        #expect(engine.thresholds.inAirSpeedKnots == 200 && engine.thresholds.isFromServer)
        // stop() forgets the session and with it the server's values.
        engine.stop()
        #expect(engine.thresholds.inAirSpeedKnots == 50 && !engine.thresholds.isFromServer)
    }

    @Test func aServerWithoutThresholdsLeavesTheLocalDefaults() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0", "--no-client-thresholds"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        var configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.flightPhase.airborneSpeedKnots = 60
        let engine = try EddyEngine(configuration: configuration)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        #expect(!engine.thresholds.isFromServer)
        #expect(engine.thresholds.inAirSpeedKnots == 60, "the configuration's local default")
        push150Knots(engine, from: Date().timeIntervalSince1970.rounded(.down) - 120)
        #expect(engine.flightPhase == .airborne)
        #expect(engine.altitudeContext != nil, "8 m vertical accuracy is within the default 100 m")
    }
}
