import EddyAlerts
import EddyH3
import EddyNavigation
import EddyProtocol
import EddySimulation
import EddyStore
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// The scripted world's edges: memory instead of SQLite and a scheduler. Effects reach it through the engine's own
/// `EffectInterpreter`, so the core is exercised exactly as the shell applies it.
private final class ScriptedEdges: EngineEdges, @unchecked Sendable {
    /// Reports "on the server" (what a fetch would have stored), answered to alert candidate requests.
    var serverReports: [TileReport] = []
    /// Own reports the core asked to store, in order.
    var stored: [TileReport] = []
    /// Settings the core asked to persist, in order.
    var persisted: [EngineSetting] = []
    /// How many candidate reads the core asked for.
    var candidateReads = 0
    /// Fleet offsets the scripted store answers `.loadAltitudeOffsets` with, and how many reads were asked for.
    var fleetOffsets: [AltitudeOffsetCell] = []
    var altitudeOffsetReads = 0
    /// The offset observation of each position upload (nil: none), in order.
    var uploadedOffsets: [AltitudeOffsetObservation?] = []

    func storeOwnReports(new: DetectedTurbulence?) -> (stored: [DetectedTurbulence], failure: StoreError?) {
        guard let new else { return ([], nil) }
        stored.append(new.report)
        return ([new], nil)
    }
    func persist(_ setting: EngineSetting) throws(StoreError) { persisted.append(setting) }
    func forgetSessionAndFetchedData() throws(StoreError) {}
    func purgeExpired(now: Double) throws(StoreError) -> Bool { false }
    func alertCandidates(for request: AlertCandidateRequest) throws(StoreError) -> (candidates: [AlertCandidate], polygons: [TurbulencePolygon]) {
        candidateReads += 1
        // What the store's query selects: reports of the history window, light or worse for the viewer.
        let candidates = serverReports
            .filter { $0.exitTime >= request.position.time - request.history.seconds && $0.exitTime <= request.position.time }
            .filter { $0.severity(for: request.query.viewerClass) >= max(request.query.minimumSeverity, .light) }
            .map { AlertCandidate(report: $0, origin: .server) }
        return (candidates, [])
    }
    func hasCachedReports() -> Bool { false }
    func configureSync(_ configuration: SchedulerConfiguration) {}
    func setFetchArea(_ area: SyncArea?, for type: DataAreaType) {}
    func uploadPosition(_ position: PositionUpload, altitudeOffset: AltitudeOffsetObservation?) { uploadedOffsets.append(altitudeOffset) }
    func altitudeOffsets(_ request: AltitudeOffsetRequest) -> [AltitudeOffsetCell]? {
        altitudeOffsetReads += 1
        return fleetOffsets
    }
    func withHeightAboveTerrain(_ context: AltitudeContext, latitudeDegrees: Double, longitudeDegrees: Double) -> AltitudeContext { context }
}

/// A scripted world for `EngineCore`: no SQLite, no threads, no sleeping. The core's steps go through the engine's
/// effect interpreter with memory edges (storage in order, candidates answered from memory, callbacks recorded with
/// their time).
private struct ScriptedHost {
    var core: EngineCore
    let edges = ScriptedEdges()
    /// Callbacks with their engine time, in order.
    var callbacks: [(t: Double, callback: EddyCallback)] = []
    /// How many sync steps the core asked for.
    var syncSteps = 0

    var serverReports: [TileReport] { get { edges.serverReports } nonmutating set { edges.serverReports = newValue } }
    var stored: [TileReport] { edges.stored }
    var persisted: [EngineSetting] { edges.persisted }
    var candidateReads: Int { edges.candidateReads }
    var fleetOffsets: [AltitudeOffsetCell] { get { edges.fleetOffsets } nonmutating set { edges.fleetOffsets = newValue } }
    var altitudeOffsetReads: Int { edges.altitudeOffsetReads }
    var uploadedOffsets: [AltitudeOffsetObservation?] { edges.uploadedOffsets }

    init(designator: String, configure: (inout EddyConfiguration) -> Void = { _ in }) throws {
        var configuration = EddyConfiguration(storePath: "/nonexistent/unused.sqlite", delivery: .callerThread, syncTiming: .flightTime)
        configure(&configuration)
        core = EngineCore(configuration: EngineCoreConfiguration(configuration),
                          aircraft: try #require(AircraftTypeTable.type(designator: designator)), flight: nil,
                          dataQuery: DataQuery(), updateFrequency: .fast, session: nil)
    }

    mutating func apply(_ step: EngineStep) {
        var core = self.core
        let applied = EffectInterpreter.apply(step, edges: edges) { core.receive($0) }
        self.core = core
        callbacks += applied.callbacks.map { (applied.time, $0) }
        if applied.runSyncStep {
            syncSteps += 1
            self.core.syncStepFinished(waitSeconds: 1, now: applied.time)
        }
    }

    mutating func start(airline: String = "DAL", userId: String, environment: EddyEnvironment, now: Double) {
        apply(core.start(session: PersistedSession(apiKey: "k", airline: airline, userId: userId, environment: environment), now: now))
    }
    mutating func push(_ sample: SensorSample) { apply(core.push(sample)) }
    mutating func syncEvent(_ event: SyncEvent) { apply(core.syncEvent(event, now: core.currentTime)) }

    func named(_ name: String) -> [(t: Double, callback: EddyCallback)] { callbacks.filter { $0.callback.name == name } }
}

@Suite struct EngineCoreTests {
    static let now = 1_790_000_000.0

    /// The loopback scenario's sequences (TwoAircraftScenarioTests), driven through the pure core with scripted
    /// sync events: exactly three alerts at the same moments, the same reachability, fetching status and low power.
    @Test func twoAircraftAlertSequenceAndLowPowerFromScriptedInputs() throws {
        let now = Self.now
        // Aircraft A: detection through the core; its stored reports are what B's fetch would bring.
        var a = try ScriptedHost(designator: "B738")
        a.start(userId: "aircraft-A", environment: .offline, now: 0)
        let scenarioA = FlightScenario(
            aircraftClass: .medium,
            segments: [TurbulenceSegment(edr: 0, durationSeconds: 240), TurbulenceSegment(edr: 0.35, durationSeconds: 120),
                       TurbulenceSegment(edr: 0, durationSeconds: 240)],
            startLatitude: 40.64, startLongitude: -73.78, courseDegrees: 50, seed: 11)
        for sample in FlightSimulator.simulate(scenarioA).samples.mergedSamples() {
            var shifted = sample
            shifted.t += now - 5400
            a.push(shifted)
        }
        a.apply(a.core.finishDetection(now: a.core.currentTime))
        #expect(a.stored.map(\.id) == a.named("detectedTurbulence").compactMap {
            if case .detectedTurbulence(let d) = $0.callback { d.report.id } else { nil }
        }, "every report is stored, then announced, in order")
        let turbulentA = a.stored.filter { $0.severity(for: .medium) >= .light }
        try #require(!turbulentA.isEmpty, "A felt the EDR 0.35 segment")
        #expect(turbulentA.contains { $0.severity(for: .medium) >= .moderate })
        let layerA = turbulentA[0].tile.layer
        #expect(turbulentA.allSatisfy { $0.tile.layer == layerA })
        let centres = try turbulentA.map { try H3.cellToLatLng(H3Index(rawValue: $0.tile.h3)) }
        let area: Geodesy.Point = (centres.map(\.latitude).reduce(0, +) / Double(centres.count),
                                   centres.map(\.longitude).reduce(0, +) / Double(centres.count))

        // Aircraft B: location only, alerts monitored; its fetch brought A's reports.
        var b = try ScriptedHost(designator: "A320") { $0.positionUploadIntervalSeconds = .infinity }
        b.serverReports = a.stored
        b.start(userId: "aircraft-B", environment: .local(port: 1), now: 0)
        b.apply(b.core.setUpdateFrequency(.fast, now: 0))
        b.core.startMonitoringAlerts(AlertQuery())

        let script = try TwoAircraftScript(area: area, layerA: layerA, now: now)

        // The sync events B's scheduler raised in the loopback run, at the same moments: reachable at the first
        // fetch, unreachable while the server is killed, reachable again after its restart.
        let fetching = { (status: FetchingStatus) in
            SyncEvent.fetchingStatusChanged(area: .route, dataType: .turbulence, status: status)
        }
        var cTile: TileID?
        var reachableAgain = false, killed = false
        b.syncEvent(.reachabilityChanged(true))
        b.syncEvent(fetching(.fetching))
        b.syncEvent(.receivedData(area: .route, dataType: .turbulence, itemCount: turbulentA.count, full: true))
        b.syncEvent(fetching(.idle))
        for fix in script.route {
            b.push(.location(fix))
            if cTile == nil && script.cReports(at: fix) {
                // Aircraft C's severe report 8 NM from the area towards B, in A's layer, arrives with B's next fetch.
                let tile = try script.cTile(seenFrom: fix)
                cTile = tile
                b.serverReports.append(TileReport(id: UUID(), tile: tile, enterTime: fix.t - 120, exitTime: fix.t - 60,
                                                  edrPeak: 0.6, edrMedian: 0.5, reporterClass: .medium))
                b.syncEvent(fetching(.fetching))
                b.syncEvent(.receivedData(area: .route, dataType: .turbulence, itemCount: 1, full: false))
                b.syncEvent(fetching(.idle))
            }
            if !killed && script.serverDown(at: fix) {
                killed = true
                b.syncEvent(fetching(.fetching))
                b.syncEvent(.reachabilityChanged(false))
                b.syncEvent(.failed(.unreachable(.cannotConnect("connection refused"))))
                b.syncEvent(fetching(.failed))
            }
            if killed && !reachableAgain && script.serverBack(at: fix) {
                reachableAgain = true
                b.syncEvent(fetching(.fetching))
                b.syncEvent(.reachabilityChanged(true))
                b.syncEvent(fetching(.idle))
            }
        }

        // Alerts, reachability, fetching status and low power: the loopback scenario's exact sequences.
        try script.expectSequences(b.callbacks, tilesA: Set(turbulentA.map(\.tile)), cTile: cTile)
        #expect(b.named("didReceiveNewTurbulenceData").count == 2)
        #expect(b.named("didFailToFetchNewData").count == 1)
        // B measured nothing and invented nothing; candidates were read far less often than there were fixes.
        #expect(b.stored.isEmpty)
        #expect(b.named("detectedTurbulence").isEmpty)
        #expect(b.candidateReads > 0 && b.candidateReads < script.route.locations().count / 10)
        #expect(b.syncSteps > 0, "flight-time sync steps are asked for")
    }

    /// The low-power sequence of an offline flight: a temporary flight from take-off to landing (persisted), low power
    /// after the taxi, motion samples dropped without moving the clock, a new flight leaving low power at once.
    @Test func lowPowerSequenceFromScriptedInputs() throws {
        var host = try ScriptedHost(designator: "B738")
        host.start(userId: "pilot", environment: .offline, now: 0)
        let route = airportRoute(start: Self.now)
        var flights: [Flight?] = []
        var lowPowerAt: Double?
        for fix in route {
            host.push(.location(fix))
            if flights.last.map({ $0 != host.core.flight }) ?? true { flights.append(host.core.flight) }
            if lowPowerAt == nil, host.core.isLowPowerMode { lowPowerAt = fix.t }
        }
        #expect(flights == [nil, Flight(isTemporary: true), nil])
        #expect(host.persisted == [.flight(Flight(isTemporary: true)), .flight(nil)], "the temporary flight is persisted, then cleared")
        #expect(host.core.flightPhase == .onGround)
        #expect(host.named("didUpdateLowPowerMode").map(\.callback) == [.didUpdateLowPowerMode(true)])

        let t = try #require(lowPowerAt) + 500
        let before = host.callbacks.count
        let clock = host.core.engineTime
        for i in 0..<500 {
            let step = host.core.push(.accelerometer(AccelerometerSample(t: t + Double(i) * 0.02, x: 0, y: 0, z: 1)))
            #expect(step.effects.filter { if case .runSyncStep = $0 { false } else { true } }.isEmpty)
        }
        #expect(host.callbacks.count == before)
        #expect(host.core.engineTime == clock, "dropped samples do not even move the engine's clock")

        host.apply(host.core.setFlight(Flight(flightNumber: "DAL7"), now: host.core.currentTime))
        #expect(!host.core.isLowPowerMode)
        #expect(host.callbacks.last?.callback == .didUpdateLowPowerMode(false))
        #expect(host.persisted.last == .flight(Flight(flightNumber: "DAL7")))
    }

    /// A report is handed to storage before any callback announces it, and a step never asks for I/O it cannot name.
    @Test func reportsAreStoredBeforeTheyAreAnnouncedAndStopForgetsTheSession() throws {
        var host = try ScriptedHost(designator: "B738")
        host.start(userId: "pilot", environment: .offline, now: 0)
        let flight = FlightScenario(aircraftClass: .medium,
                                    segments: [TurbulenceSegment(edr: 0.3, durationSeconds: 300)],
                                    startLatitude: 47, startLongitude: 8, courseDegrees: 90, seed: 3)
        var storeIndexes: [Int] = []
        for sample in FlightSimulator.simulate(flight).samples.mergedSamples() {
            var shifted = sample
            shifted.t += Self.now
            let step = host.core.push(shifted)
            for (i, effect) in step.effects.enumerated() {
                if case .storeOwnReport = effect { storeIndexes.append(i) }
                if case .callback(.detectedTurbulence) = effect { Issue.record("a report is announced by the core, not stored first") }
            }
            host.apply(step)
        }
        #expect(!storeIndexes.isEmpty, "the crossings of a 5 min flight are stored while it flies")
        #expect(host.stored.count == storeIndexes.count)
        let stop = host.core.stop(now: host.core.currentTime)
        let kinds = stop.effects.map { effect -> String in
            switch effect {
            case .storeOwnReport: "store"
            case .callback(let c): c.name
            case .forgetSessionAndFetchedData: "forget"
            default: "other"
            }
        }
        #expect(kinds.last == "forget")
        #expect(kinds.contains("didUpdateRecordingStatus"))
        #expect(kinds.filter { $0 == "store" }.count == 1, "the open tile crossing is stored at stop")
        host.apply(stop)
        #expect(!host.core.isStarted && host.core.session == nil)
        #expect(host.stored.count >= 2)
        // After stop, samples are ignored: nothing to do, not even a sync step.
        #expect(host.core.push(.accelerometer(AccelerometerSample(t: Self.now + 1000, x: 0, y: 0, z: 1))).isEmpty)
    }
}

/// The engine's altitude wiring from scripted inputs: an ADS-B aircraft shares its offset with its position; an
/// aircraft with neither ADS-B nor an unpressurised barometer converts GNSS altitude with the fleet's offsets.
@Suite struct EngineAltitudeTests {
    static let now = 1_790_000_000.0

    /// Level cruise at FL350 on an ISA+15 day: GNSS altitude ≈ 1,930 ft above pressure altitude.
    static func fixes(adsb: Bool, seconds: Int) -> [LocationSample] {
        let geometricFeet = BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: 35_000, isaDeviationCelsius: 15)
        return (0..<seconds).map { i in
            LocationSample(
                t: now + Double(i), latitudeDegrees: 47, longitudeDegrees: 8 + Double(i) * 0.003, altitudeMeters: geometricFeet * 0.3048,
                horizontalAccuracyMeters: 6, verticalAccuracyMeters: 10, speedMetersPerSecond: 230, courseDegrees: 90,
                pressureAltitudeFeet: adsb ? 35_000 : nil, source: adsb ? .adsb : .device)
        }
    }

    @Test func anADSBAircraftUploadsItsOffsetWithItsPosition() throws {
        var host = try ScriptedHost(designator: "B738") { $0.positionUploadIntervalSeconds = 30 }
        host.start(userId: "pilot", environment: .local(port: 1), now: Self.now)
        for fix in Self.fixes(adsb: true, seconds: 400) { host.push(.location(fix)) }
        let offsets = host.uploadedOffsets.compactMap { $0 }
        #expect(!host.uploadedOffsets.isEmpty)
        let last = try #require(offsets.last)
        let truth = BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: 35_000, isaDeviationCelsius: 15) - 35_000
        #expect(abs(last.offsetFeet - truth) < 1, "exact GNSS here: the learned offset is the atmosphere's")
        #expect(last.pressureAltitudeFeet == 35_000)
        #expect(host.altitudeOffsetReads >= 6, "fleet offsets are read every 60 s of flight with a server")
        let context = try #require(host.core.altitudeContext)
        #expect(context.source == .external && context.layer == 35 && context.heldFlightLevelFeet == 35_000)
        #expect(context.haeMeters.map { abs($0 - (context.mslMeters ?? 0) - 48) < 5 } == true, "EGM96 N ≈ +48 m at 47° N 8–9° E")
    }

    @Test func aGNSSOnlyAircraftUsesTheFleetOffset() throws {
        var host = try ScriptedHost(designator: "B738")
        let truth = BarometricAltitude.geometricThicknessFeet(fromPressureAltitudeFeet: 0, toPressureAltitudeFeet: 35_000, isaDeviationCelsius: 15) - 35_000
        let cells = Set((0..<400).compactMap { i in
            try? H3.latLngToCell(latitude: 47, longitude: 8 + Double(i) * 0.003, resolution: AltitudeOffsetCell.h3Resolution).rawValue
        })
        host.fleetOffsets = cells.flatMap { cell in
            [34, 35].map { AltitudeOffsetCell(h3: cell, layer: $0, offsetFeet: truth, uncertaintyFeet: 20, observationCount: 4, newestTime: Self.now) }
        }
        host.start(userId: "pilot", environment: .local(port: 1), now: Self.now)
        for fix in Self.fixes(adsb: false, seconds: 200) { host.push(.location(fix)) }
        let context = try #require(host.core.altitudeContext)
        #expect(context.source == .gnssFleetOffset)
        #expect(abs(context.pressureAltitudeFeet - 35_000) < 60)
        #expect(context.layer == 35)
        #expect(context.status == .gnssWithFleetOffset)
        #expect(host.uploadedOffsets.allSatisfy { $0 == nil }, "no pressure source of its own: nothing to share")
        let changes = host.named("didUpdateAltitudeContext").count
        #expect(changes >= 1 && changes < 20, "on change only: \(changes) deliveries for 200 s of level flight")
    }

    @Test func offlineTheFleetIsNotAskedAndTheContextSaysSo() throws {
        var host = try ScriptedHost(designator: "B738")
        host.start(userId: "pilot", environment: .offline, now: Self.now)
        for fix in Self.fixes(adsb: false, seconds: 120) { host.push(.location(fix)) }
        #expect(host.altitudeOffsetReads == 0)
        let context = try #require(host.core.altitudeContext)
        #expect(context.source == .gnssStandardAtmosphere)
        #expect(context.problems.contains(.fleetOffsetUnavailable), "\(context)")
        // ISA+15 at 47° N in September is ≈ 10 °C warmer than the climatology (issue 28): a level is chosen, and the
        // flag follows its probability (docs/altitude.md "Flight-level inference").
        let probability = try #require(context.flightLevelProbability)
        #expect(context.problems.contains(.layerUncertain) == (probability < 0.9), "\(context)")
    }
}

