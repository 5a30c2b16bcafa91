import EddyAlerts
import EddyH3
import EddyNavigation
import EddyStore
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Flight phase, temporary flights, external location, and session behaviour of the engine.
@Suite struct EngineFlightTests {
    private func offlineEngine(_ folder: EngineFolder, name: String = "e.sqlite") throws -> (EddyEngine, CallbackRecorder) {
        let engine = try folder.flightTimeEngine(name)
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        return (engine, log)
    }


    @Test func temporaryFlightFromTakeOffToLandingThenLowPowerDropsMotionSamples() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let (engine, log) = try offlineEngine(folder)
        let route = airportRoute(start: 1_790_000_000)
        var flightsSeen: [Flight?] = []
        var lowPowerAt: Double?
        for fix in route {
            engine.push(.location(fix))
            if flightsSeen.last.map({ $0 != engine.flight }) ?? true { flightsSeen.append(engine.flight) }
            if lowPowerAt == nil, engine.isLowPowerMode { lowPowerAt = fix.t }
        }
        // nil on the ground, a temporary flight in the air, nil again after landing.
        #expect(flightsSeen == [nil, Flight(isTemporary: true), nil])
        #expect(engine.flightPhase == .onGround)
        #expect(engine.isLowPowerMode)
        #expect(log.callbacks.filter { $0.name == "didUpdateLowPowerMode" } == [.didUpdateLowPowerMode(true)])
        // In low power, accelerometer and gyro samples are not processed at all.
        let t = try #require(lowPowerAt) + 500
        let before = log.all.count
        for i in 0..<500 {
            engine.push(.accelerometer(AccelerometerSample(t: t + Double(i) * 0.02, x: 0, y: 0, z: 1)))
            engine.push(.gyroscope(GyroscopeSample(t: t + Double(i) * 0.02, x: 3, y: 3, z: 3)))
        }
        #expect(log.all.count == before)
        #expect(engine.engineTime ?? 0 < t, "dropped samples do not even move the engine's clock")
        // A new flight leaves low power at once.
        engine.setFlight(Flight(flightNumber: "DAL7"))
        #expect(!engine.isLowPowerMode)
        #expect(log.callbacks.last == .didUpdateLowPowerMode(false))
    }

    @Test func adsbPressureAltitudeSetsTheLayerAndBadFixesAreReported() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let (engine, log) = try offlineEngine(folder)
        let now = 1_790_000_000.0
        // An aircraft at FL350 whose GPS altitude reads 36,400 ft (a warm day): the layer must come from ADS-B.
        let centre = try H3.cellToLatLng(H3.latLngToCell(latitude: 47.8, longitude: 9.0, resolution: 5))
        let report = TileReport(id: UUID(), tile: TileID(h3: try H3.latLngToCell(latitude: centre.latitude, longitude: centre.longitude,
                                                                                resolution: 5).rawValue, layer: 35),
                                enterTime: now - 200, exitTime: now - 100, edrPeak: 0.3, edrMedian: 0.25, reporterClass: .medium)
        try engine.store.upsertObservations([ServerObservation(report: report, reporterID: "other", source: "test")])
        try engine.startMonitoringAlerts(with: AlertQuery())
        var query = AlertQuery()
        query.layerBand = 0
        let start = Geodesy.destination(from: (centre.latitude, centre.longitude), bearingDegrees: 270, distanceNM: 60)
        func fix(_ t: Double, _ source: LocationSource, pressureAltitudeFeet: Double?) -> LocationSample {
            LocationSample(t: t, latitudeDegrees: start.latitude, longitudeDegrees: start.longitude, altitudeMeters: 36_400 * 0.3048,
                           speedMetersPerSecond: 230, courseDegrees: 90, pressureAltitudeFeet: pressureAltitudeFeet, source: source)
        }
        engine.push(.location(fix(now, .device, pressureAltitudeFeet: nil)))
        #expect(try engine.alerts(with: query).items.isEmpty, "GPS altitude alone puts the aircraft in layer 36")
        engine.push(.location(fix(now + 1, .adsb, pressureAltitudeFeet: 35_000)))
        engine.push(.location(fix(now + 7, .device, pressureAltitudeFeet: nil)))   // ADS-B altitude still fresh
        let alert = try engine.alerts(with: query)
        #expect(alert.items.map(\.tile) == [report.tile], "ADS-B pressure altitude puts it in layer 35")
        // The monitor fired once (layer 36 is within the default ±2 band, so the alert came with the first fix).
        #expect(log.named("didReceiveAlert").count == 1)
        // Impossible fixes are reported, not used.
        engine.push(.location(LocationSample(t: now + 8, latitudeDegrees: 95, longitudeDegrees: 9)))
        let failures = log.callbacks.compactMap { if case .locationManagerDidFail(let e) = $0 { e } else { nil } }
        #expect(failures.count == 1)
        #expect(failures.first?.description.contains("±90°") == true)
        engine.reportLocationFailure("GPS receiver disconnected")
        #expect(log.named("locationManagerDidFail").count == 2)
    }
}

/// Session, offline restart, stop and a refused key, against a real server.
@Suite(.serialized) struct EngineSessionTests {
    @Test func aRelaunchStartsOfflineWithThePersistedSessionAndStopClearsTheCache() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let path = folder.path("engine.sqlite")
        let environment = EddyEnvironment.local(port: server.port)
        do {
            let first = try EddyEngine(configuration: EddyConfiguration(storePath: path, delivery: .callerThread, syncTiming: .flightTime))
            try first.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
            #expect(first.isStarted && first.isRecording)
            // Some fetched data in the cache.
            let report = TileReport(id: UUID(), tile: TileID(h3: 0x852a1073fffffff, layer: 30), enterTime: 1, exitTime: 2,
                                    edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
            try first.store.upsertObservations([ServerObservation(report: report, reporterID: "x", source: "test")])
        }   // the app quits without stop()
        server.kill()
        let relaunched = try EddyEngine(configuration: EddyConfiguration(storePath: path, delivery: .callerThread, syncTiming: .flightTime))
        let log = CallbackRecorder(relaunched)
        #expect(throws: EddyError.self) {
            try relaunched.startNow(apiKey: "another-key", airline: "DAL", userId: "pilot", environment: environment)
        }
        try relaunched.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
        #expect(relaunched.isStarted)
        #expect(log.callbacks == [.didUpdateRecordingStatus(true), .didReceiveNewTurbulenceData(areaType: .route)],
                "started offline; the cached data is announced once")
        #expect(try relaunched.store.observationCount() == 1)
        relaunched.stop()
        #expect(try relaunched.store.observationCount() == 0, "stop deletes the fetched data")
        #expect(log.callbacks.last == .didUpdateRecordingStatus(false))
        // After stop the session is gone, but the validated identity is remembered (issue 27): the same identity starts
        // offline, another one needs the server.
        try relaunched.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: environment)
        #expect(relaunched.isRecording)
        relaunched.stop()
        #expect { try relaunched.startNow(apiKey: server.apiKey, airline: "DAL", userId: "copilot", environment: environment) }
            throws: { error in if case EddyError.offline = error { true } else { false } }
    }

    @Test func aRevokedKeyStopsRecordingAndKeepsTheOutbox() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        let log = CallbackRecorder(engine)
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port))
        // The flight is flown while the server is down: its tiles wait in the outbox.
        server.kill()
        let now = Date().timeIntervalSince1970.rounded(.down)
        let flight = SyntheticFlight(scenario: turbulentScenario(), startEpochSeconds: now - 3000)
        flight.forEachSample { engine.push($0) }
        engine.finishDetection()
        let pending = try engine.store.outboxCounts().pending
        #expect(pending > 0)
        #expect(log.callbacks.contains(.serverReachabilityUpdated(false)))
        // The operator revokes the key; the server comes back; the next upload is refused with 403.
        _ = try server.runCLI(["keys", "revoke", "--db", server.databasePath, "1"])
        try server.start()
        engine.push(.location(LocationSample(t: flight.endEpochSeconds + 600, latitudeDegrees: 41, longitudeDegrees: -72,
                                             altitudeMeters: 10_000, speedMetersPerSecond: 230, courseDegrees: 50)))
        engine.syncNow()
        #expect(log.callbacks.contains(.didUpdateRecordingStatus(false)))
        #expect(!engine.isRecording)
        #expect(log.callbacks.contains { if case .didFailToFetchNewData(.sync(.forbidden)) = $0 { true } else { false } })
        #expect(try engine.store.outboxCounts().pending == pending, "nothing the server did not acknowledge is dropped")
    }
}

/// The live set-up: wall-clock sync on a background thread, callbacks on a host queue.
@Suite(.serialized) struct EngineWallClockTests {
    @Test func backgroundSyncFetchesASetViewportAndReportsOnTheHostQueue() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let queue = DispatchQueue(label: "host")
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("e.sqlite"), delivery: .queue(queue), syncTiming: .wallClock))
        let log = CallbackRecorder(engine)
        let started = DispatchSemaphore(value: 0)
        let outcome = CallbackRecorder()
        engine.start(apiKey: server.apiKey, airline: "DAL", userId: "pilot", environment: .local(port: server.port)) { result in
            if case .success = result { outcome.record(TimedCallback(t: 0, sequence: 0, callback: .didUpdateRecordingStatus(true))) }
            started.signal()
        }
        #expect(started.wait(timeout: .now() + 20) == .success)
        #expect(outcome.all.count == 1, "the completion reports success")
        var query = DataQuery()
        query.viewport = [LatLng(latitude: 40, longitude: -75), LatLng(latitude: 40, longitude: -70),
                          LatLng(latitude: 43, longitude: -70), LatLng(latitude: 43, longitude: -75)]
        query.types = Set(DataType.allCases)
        query.viewportTypes = Set(DataType.allCases)   // the viewport fetches `viewportTypes` (default turbulence only)
        try engine.setDataQuery(query)
        let fetchedAll = log.wait(timeoutSeconds: 20) { callbacks in
            DataType.allCases.allSatisfy { callbacks.contains(.didUpdateFetchingStatus(.idle, areaType: .viewport, dataType: $0)) }
        }
        #expect(fetchedAll)
        // fetchData(refresh: true) fetches again at once, in full.
        let cyclesBefore = log.callbacks.filter { $0 == .didUpdateFetchingStatus(.idle, areaType: .viewport, dataType: .turbulence) }.count
        try engine.fetchData(refresh: true)
        let refetched = log.wait(timeoutSeconds: 20) { callbacks in
            callbacks.filter { $0 == .didUpdateFetchingStatus(.idle, areaType: .viewport, dataType: .turbulence) }.count > cyclesBefore
        }
        #expect(refetched)
        #expect(try engine.store.syncState(area: .viewport, data: .turbulence)?.lastFullFetchTime != nil)
        engine.stop()
        queue.sync {}
        let viewport = log.callbacks.filter {
            if case .didUpdateFetchingStatus(_, .viewport, .turbulence) = $0 { true } else { false }
        }
        #expect(Array(viewport.prefix(2)) == [.didUpdateFetchingStatus(.fetching, areaType: .viewport, dataType: .turbulence),
                                               .didUpdateFetchingStatus(.idle, areaType: .viewport, dataType: .turbulence)])
        #expect(log.callbacks.contains(.serverReachabilityUpdated(true)))
        // Every data type's first (full) fetch is announced with its own callback.
        for name in ["didReceiveNewTurbulenceData", "didReceiveNewNowcast", "didReceiveNewTurbulencePolygons",
                     "didReceiveNewLiveFlightData"] {
            #expect(!log.named(name).isEmpty, "\(name) missing")
        }
        #expect(log.callbacks.first == .didUpdateRecordingStatus(true))
        #expect(log.callbacks.last == .didUpdateRecordingStatus(false))
        #expect(engine.isServerReachable == nil, "sync stopped with the engine")
    }
}

@Suite struct EngineCacheExpiryTests {
    @Test func expiredServerDataIsPurgedAsFlightTimePassesAndPendingReportsStay() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try folder.flightTimeEngine()
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        let now = 1_790_000_000.0
        func report(exit: Double) -> TileReport {
            TileReport(id: UUID(), tile: TileID(h3: 0x852a1073fffffff, layer: 30), enterTime: exit - 60, exitTime: exit,
                       edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
        }
        try engine.store.upsertObservations([
            ServerObservation(report: report(exit: now - 7 * 3600), reporterID: "old", source: "test"),
            ServerObservation(report: report(exit: now - 3600), reporterID: "recent", source: "test"),
        ])
        let ownOld = report(exit: now - 8 * 3600)
        _ = try engine.store.insertOwnReports([ownOld])   // never acknowledged: must survive
        engine.push(.location(LocationSample(t: now, latitudeDegrees: 40, longitudeDegrees: -73, altitudeMeters: 10_000)))
        #expect(try engine.store.observationCount() == 1, "the 7 h old observation is gone, the 1 h old one stays")
        #expect(try engine.store.pendingOwnReports().map(\.id) == [ownOld.id])
        // The next purge waits 10 min of engine time.
        try engine.store.upsertObservations([ServerObservation(report: report(exit: now - 9 * 3600), reporterID: "x", source: "test")])
        engine.push(.location(LocationSample(t: now + 60, latitudeDegrees: 40, longitudeDegrees: -73, altitudeMeters: 10_000)))
        #expect(try engine.store.observationCount() == 2)
        engine.push(.location(LocationSample(t: now + 600, latitudeDegrees: 40, longitudeDegrees: -73, altitudeMeters: 10_000)))
        #expect(try engine.store.observationCount() == 1)
    }
}

/// A short flight from and to one airport (parked, taxi, take-off, cruise, descent, landing, a long taxi): the
/// temporary-flight and low-power sequence, shared by the engine's and the pure core's tests.
func airportRoute(start: Double) -> SyntheticRoute {
    SyntheticRoute(startLatitude: 47.45, startLongitude: 8.56, startCourseDegrees: 280, fieldElevationFeet: 1400,
                   startEpochSeconds: start)
        .parked(seconds: 60)
        .taxi(speedKnots: 15, seconds: 120)
        .takeoffClimb(toAltitudeFeet: 12_000, speedKnots: 300, seconds: 600)
        .cruise(seconds: 300)
        .descent(toAltitudeFeet: 1400, speedKnots: 160, seconds: 600)
        .landingRoll(toSpeedKnots: 15, fieldElevationFeet: 1400)
        .taxi(speedKnots: 12, seconds: 400)
}
