import Eddy
import EddyAlerts
import EddyVocabulary
import Foundation
import Testing

/// What a host app sees with `import Eddy` alone: the engine, its configuration, the sample and report types, the
/// ServerData vocabulary, fetching status, alert queries and the engine's query API (re-exported modules).
@Suite struct HostImportTests {
    @Test func hostAPIIsReachableThroughImportEddyAlone() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("eddy-host-import-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let configuration = EddyConfiguration(
            storePath: directory.appendingPathComponent("eddy.sqlite").path, delivery: .callerThread,
            syncTiming: .flightTime)
        let engine = try EddyEngine(configuration: configuration)
        #expect(!engine.isStarted)
        try engine.startNow(apiKey: "key", airline: "DAL", userId: "pilot", environment: .offline)
        #expect(engine.isStarted)
        #expect(engine.engineTime == nil)

        let t0 = 1_790_000_000.0
        let fix = LocationSample(t: t0, latitudeDegrees: 47.45, longitudeDegrees: 8.56, altitudeMeters: 430,
                                 speedMetersPerSecond: 0, courseDegrees: 280, source: .device)
        let sample: SensorSample = .location(fix)
        engine.push(sample)
        #expect(engine.engineTime == t0, "a location fix moves the engine's clock")
        engine.push(contentsOf: [.accelerometer(AccelerometerSample(t: t0 + 0.02, x: 0, y: 0, z: -1))])

        // Offline: nothing is fetched, every area × data type stays idle.
        for areaType in DataAreaType.allCases {
            for dataType in DataType.allCases {
                #expect(engine.fetchingStatus(areaType: areaType, dataType: dataType) == FetchingStatus.idle)
            }
        }

        // Alerts: a default query is valid and, with an empty store, alerts on nothing.
        try engine.startMonitoringAlerts(with: AlertQuery())
        #expect(engine.isMonitoringAlerts)
        let alert = try engine.alerts(with: AlertQuery())
        #expect(alert.isCleared)
        engine.stopMonitoringAlerts()

        // Reports and severity: a tile id is an H3 cell (EddyH3) and a layer.
        let cell = try H3.latLngToCell(latitude: 47.45, longitude: 8.56, resolution: 5)
        let report = TileReport(id: UUID(), tile: TileID(h3: cell.rawValue, layer: 35), enterTime: t0,
                                exitTime: t0 + 60, edrPeak: 0.5, edrMedian: 0.3, reporterClass: .medium)
        #expect(report.severity(for: .medium) > Severity.none)

        // The engine's query API: an offline engine's cache holds no server data.
        let items = try engine.turbulence(TurbulenceRequest(area: .everywhere))
        #expect(items.isEmpty)
        #expect(try engine.nowcast(NowcastRequest(hoursAhead: 1)).isEmpty)
        #expect(try engine.polygons(PolygonsRequest()).isEmpty)
        #expect(try engine.liveFlights(LiveFlightsRequest()).isEmpty)
        let along: AlongTrack? = items.first?.alongTrack
        let trend: TurbulenceTrend? = items.first?.trend
        #expect(along == nil && trend == nil)
        #expect(!engine.inPosition && !engine.isHorizontal && !engine.inNoise)
        var alertOptions = AlertQuery()
        alertOptions.timeFrameSeconds = 600
        #expect(try engine.alerts(with: alertOptions).source == AlertSource.none)
        #expect(try engine.store.outboxCounts().pending == 0)

        engine.stop()
        #expect(!engine.isStarted)
    }
}
