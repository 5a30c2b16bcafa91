import EddyAlerts
import EddyDetection
import EddyH3
import EddyProtocol
import EddySimulation
import EddyStore
import EddySync
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// The engine's query surface (docs/engine.md "Queries"): turbulence with trend and along-track fields, nowcast,
/// polygons, live flights, the device position and the viewport data types.
@Suite(.serialized) struct EngineQueryTests {
    static let now = 1_790_000_000.0
    static let own: Geodesy.Point = (40.6, -73.5)

    /// An offline engine at `own`, flying north at 230 m/s (447 kt) at 10 km (layer 32), engine time `now`.
    static func engine(_ folder: EngineFolder) throws -> EddyEngine {
        let engine = try folder.flightTimeEngine()
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        try engine.setAircraft(designator: "B738")
        return engine
    }

    static func fly(_ engine: EddyEngine) {
        engine.push(.location(LocationSample(t: now, latitudeDegrees: own.latitude, longitudeDegrees: own.longitude,
                                             altitudeMeters: 10_000, speedMetersPerSecond: 230, courseDegrees: 0)))
    }

    /// The tile `distanceNM` from `own` on `bearing`, layer 32.
    static func tile(bearing: Double, distanceNM: Double) throws -> TileID {
        let p = Geodesy.destination(from: own, bearingDegrees: bearing, distanceNM: distanceNM)
        return TileID(h3: try H3.latLngToCell(latitude: p.latitude, longitude: p.longitude, resolution: 5).rawValue, layer: 32)
    }

    /// A report of `severity` (for a medium viewer) in `tile`, leaving it `age` seconds before `now`.
    static func report(_ tile: TileID, _ severity: Severity, age: Double) -> TileReport {
        let edr = SeverityScale.minimumEDR(for: severity, viewer: .medium) + 0.005
        return TileReport(id: UUID(), tile: tile, enterTime: now - age - 60, exitTime: now - age, edrPeak: edr,
                          edrMedian: edr / 2, reporterClass: .medium)
    }

    static func observations(_ reports: [TileReport]) -> [ServerObservation] {
        reports.map { ServerObservation(report: $0, reporterID: "r", source: "test") }
    }

    @Test func turbulenceCarriesTrendAndAlongTrackFields() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        let worse = try Self.tile(bearing: 0, distanceNM: 20), better = try Self.tile(bearing: 0, distanceNM: 40)
        let new = try Self.tile(bearing: 0, distanceNM: 60), same = try Self.tile(bearing: 5, distanceNM: 80)
        let behind = try Self.tile(bearing: 180, distanceNM: 30)
        try engine.store.upsertObservations(Self.observations([
            Self.report(worse, .light, age: 3000), Self.report(worse, .moderate, age: 1000),
            Self.report(better, .moderate, age: 3000), Self.report(better, .light, age: 1000),
            Self.report(new, .light, age: 500),
            Self.report(same, .lightModerate, age: 3000), Self.report(same, .lightModerate, age: 100),
            Self.report(behind, .moderate, age: 100),
        ]))
        // Before the first fix: trend, but nothing along the track.
        #expect(try engine.turbulence(TurbulenceRequest(area: .everywhere)).allSatisfy { $0.alongTrack == nil && $0.trend != nil })
        Self.fly(engine)
        let items = try engine.turbulence(TurbulenceRequest())
        let byTile = Dictionary(uniqueKeysWithValues: items.map { ($0.report.tile, $0) })
        #expect(byTile.count == 5)
        #expect(byTile[worse]?.trend == .worse && byTile[worse]?.severity == .moderate && byTile[worse]?.reportCount == 2)
        #expect(byTile[better]?.trend == .better && byTile[better]?.severity == .moderate, "worst report, latest trend")
        #expect(byTile[new]?.trend == .new && byTile[same]?.trend == .same)
        let knots = 230 * 3600 / 1852.0
        for tile in [worse, better, new, same] {
            let along = try #require(byTile[tile]?.alongTrack, "ahead: \(tile)")
            let reach = try #require(along.timeToReachSeconds), pass = try #require(along.timeToPassSeconds)
            #expect(abs(reach - along.distanceNM / knots * 3600) < 1e-6)
            #expect(abs(pass - along.farEdgeNM / knots * 3600) < 1e-6)
        }
        #expect((try #require(byTile[worse]?.alongTrack)).distanceNM < (try #require(byTile[better]?.alongTrack)).distanceNM)
        #expect(byTile[behind]?.alongTrack == nil, "behind the aircraft")
        // `turbulence(in:)` fills the same fields.
        let route = try engine.turbulence(in: .route)
        #expect(route.map(\.alongTrack) == items.map(\.alongTrack) && route.map(\.trend) == items.map(\.trend))

        // Every report: each against the one before it in its tile.
        let every = try engine.turbulence(TurbulenceRequest(aggregation: .everyReport)).filter { $0.report.tile == worse }
        #expect(every.map(\.trend) == [.new, .worse])
        // Severities and the minimum.
        #expect(Set(try engine.turbulence(TurbulenceRequest(severities: [.moderate])).map(\.report.tile)) == [worse, better, behind])
        #expect(Set(try engine.turbulence(TurbulenceRequest(minimumSeverity: .lightModerate)).map(\.report.tile)) == [worse, better, same, behind])
        // The trend compares with reports below the minimum too: `worse` went light → moderate.
        #expect(try engine.turbulence(TurbulenceRequest(minimumSeverity: .moderate, aggregation: .everyReport))
            .first { $0.report.tile == worse }?.trend == .worse)
        // Altitude range in whole thousands; layer 32 is inside 30,000…35,000 and outside 33,000…40,000.
        #expect(try engine.turbulence(TurbulenceRequest(altitudeRangeFeet: 30_000...35_000)).count == 5)
        #expect(try engine.turbulence(TurbulenceRequest(altitudeRangeFeet: 33_000...40_000)).isEmpty)
        #expect(throws: EddyError.query(.altRangeNotRoundToThousandFeet(lowerFeet: 30_500, upperFeet: 40_000))) {
            try engine.turbulence(TurbulenceRequest(altitudeRangeFeet: 30_500...40_000))
        }
        // Route + width and polygon areas.
        let p20 = Geodesy.destination(from: Self.own, bearingDegrees: 0, distanceNM: 20)
        let p45 = Geodesy.destination(from: Self.own, bearingDegrees: 0, distanceNM: 45)
        let leg = [LatLng(latitude: p20.latitude, longitude: p20.longitude), LatLng(latitude: p45.latitude, longitude: p45.longitude)]
        #expect(Set(try engine.turbulence(TurbulenceRequest(area: .route(leg, widthNM: 3))).map(\.report.tile)) == [worse, better])
        // GeoJSON of the same items.
        let geoJSON = try engine.turbulenceGeoJSON(TurbulenceRequest())
        #expect(geoJSON.contains("\"FeatureCollection\"") && geoJSON.components(separatedBy: "\"Feature\"").count == 6)
    }

    @Test func ownAndServerExcludingOwnSelections() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        Self.fly(engine)
        let tile = try Self.tile(bearing: 0, distanceNM: 10)
        let mine = Self.report(tile, .moderate, age: 100)
        _ = try engine.store.insertOwnReports([mine])
        try engine.store.upsertObservations(Self.observations([mine]))   // the server's echo of it
        #expect(try engine.turbulence(TurbulenceRequest(reports: .own(timeSpanSeconds: 600))).map(\.report.id) == [mine.id])
        #expect(try engine.turbulence(TurbulenceRequest(reports: .own(timeSpanSeconds: 60))).isEmpty)
        #expect(try engine.turbulence(TurbulenceRequest(reports: .server)).map(\.report.id) == [mine.id])
        #expect(try engine.turbulence(TurbulenceRequest(reports: .serverExcludingOwn(timeSpanSeconds: 600))).isEmpty)
        #expect(try engine.turbulence(TurbulenceRequest(reports: .own(timeSpanSeconds: 600))).first?.trend == .new)
    }

    @Test func nowcastPolygonsAndLiveFlights() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        Self.fly(engine)
        let tile = try Self.tile(bearing: 0, distanceNM: 10)
        var high = tile
        high.layer = 38
        try engine.store.upsertNowcast([
            NowcastCell(tile: tile, validTime: Self.now, forecastHour: 0, edr: 0.2, issueTime: Self.now - 600),
            NowcastCell(tile: tile, validTime: Self.now + 7200, forecastHour: 2, edr: 0.3, issueTime: Self.now - 600),
            NowcastCell(tile: high, validTime: Self.now + 7200, forecastHour: 2, edr: 0.3, issueTime: Self.now - 600),
        ])
        #expect(try engine.nowcast(NowcastRequest(hoursAhead: 2)).map(\.tile) == [tile, high].sorted())
        #expect(try engine.nowcast(NowcastRequest(hoursAhead: 2, altitudeRangeFeet: 35_000...40_000)).map(\.tile) == [high])
        #expect(try engine.nowcast(NowcastRequest(hoursAhead: 0)).map(\.forecastHour) == [0])
        #expect(throws: EddyError.query(.invalidForecastHour(13))) { try engine.nowcast(NowcastRequest(hoursAhead: 13)) }

        let ring = [[-74.0, 40.0], [-73.0, 40.0], [-73.0, 41.0], [-74.0, 41.0], [-74.0, 40.0]]
        let feature = PolygonFeature(geometry: PolygonGeometry(coordinates: [ring]), properties: PolygonProperties(
            severity: "moderate", layerMin: 30, layerMax: 34, historyHours: 2, edrPeak: 0.3, tileCount: 12))
        let json = String(decoding: try JSONEncoder().encode(PolygonCollection(features: [feature])), as: UTF8.self)
        try engine.store.upsertTurbulencePolygons([
            TurbulencePolygonSet(historyWindow: .twoHours, severity: .moderate, geoJSON: json, updatedTime: Self.now),
        ])
        let polygons = try engine.polygons()
        #expect(polygons.count == 1)
        let polygon = try #require(polygons.first)
        #expect(polygon.severity == .moderate && polygon.layers == 30...34 && polygon.tileCount == 12)
        #expect(polygon.rings.first?.first == LatLng(latitude: 40, longitude: -74))
        #expect(try engine.polygons(PolygonsRequest(altitudeRangeFeet: 0...10_000)).isEmpty)
        #expect(try engine.polygons(PolygonsRequest(minimumSeverity: .severe)).isEmpty)
        #expect(try engine.polygons(PolygonsRequest(historyWindow: .sixHours)).isEmpty)
        #expect(try engine.polygonsGeoJSON().map(\.geoJSON) == [json])

        try engine.store.upsertLiveFlights([
            LiveFlight(flightID: "f1", latitude: 40.7, longitude: -73.4, altitudeFeet: 35_000, time: Self.now - 10),
            LiveFlight(flightID: "f2", latitude: 45.0, longitude: -60.0, altitudeFeet: 12_000, time: Self.now - 20),
            LiveFlight(flightID: "f3", latitude: 40.7, longitude: -73.4, altitudeFeet: 35_000, time: Self.now - 3600),
        ])
        #expect(try engine.liveFlights().map(\.flightID) == ["f1", "f2"])
        #expect(try engine.liveFlights(LiveFlightsRequest(maximumAgeSeconds: 7200)).count == 3)
        #expect(try engine.liveFlights(LiveFlightsRequest(altitudeRangeFeet: 10_000...20_000)).map(\.flightID) == ["f2"])
        let box = [LatLng(latitude: 40, longitude: -74), LatLng(latitude: 40, longitude: -73), LatLng(latitude: 41, longitude: -73),
                   LatLng(latitude: 41, longitude: -74)]
        #expect(try engine.liveFlights(LiveFlightsRequest(polygon: box)).map(\.flightID) == ["f1"])
    }

    @Test func alertsFallBackToTurbulencePolygonsWhereNoReportIs() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        Self.fly(engine)
        // A moderate polygon 28…40 NM ahead on the track (±0.2° of longitude, ≈ ±9 NM), layers 30…34.
        let a = Geodesy.destination(from: Self.own, bearingDegrees: 0, distanceNM: 28)
        let b = Geodesy.destination(from: Self.own, bearingDegrees: 0, distanceNM: 40)
        let ring = [[a.longitude - 0.2, a.latitude], [a.longitude + 0.2, a.latitude], [b.longitude + 0.2, b.latitude],
                    [b.longitude - 0.2, b.latitude], [a.longitude - 0.2, a.latitude]]
        let feature = PolygonFeature(geometry: PolygonGeometry(coordinates: [ring]), properties: PolygonProperties(
            severity: "moderate", layerMin: 30, layerMax: 34, historyHours: 2, edrPeak: 0.3, tileCount: 3))
        let json = String(decoding: try JSONEncoder().encode(PolygonCollection(features: [feature])), as: UTF8.self)
        try engine.store.upsertTurbulencePolygons([
            TurbulencePolygonSet(historyWindow: .twoHours, severity: .moderate, geoJSON: json, updatedTime: Self.now),
        ])
        let alert = try engine.alerts(with: AlertQuery())
        #expect(alert.source == .turbulencePolygons && alert.items.isEmpty && !alert.isCleared)
        #expect(alert.polygonItems.first?.distanceNM == 30)
        // A report in the beam (even a smooth one) means reports answer.
        try engine.store.upsertObservations(Self.observations([Self.report(try Self.tile(bearing: 0, distanceNM: 15), .none, age: 60)]))
        let answered = try engine.alerts(with: AlertQuery())
        #expect(answered.source == .none && answered.polygonItems.isEmpty)
        // Time frame and polygon through the engine.
        try engine.store.upsertObservations(Self.observations([Self.report(try Self.tile(bearing: 0, distanceNM: 60), .moderate, age: 60)]))
        var within = AlertQuery()
        within.timeFrameSeconds = 300   // 447 kt: ≈ 37 NM
        #expect(try engine.alerts(with: within).items.isEmpty)
        within.timeFrameSeconds = 600   // ≈ 75 NM
        #expect(try engine.alerts(with: within).items.count == 1)
        // A polygon set that does not decode leaves report alerts working; `polygons(_:)` reports it as a store failure.
        try engine.store.upsertTurbulencePolygons([
            TurbulencePolygonSet(historyWindow: .twoHours, severity: .severe, geoJSON: "{not json", updatedTime: Self.now),
        ])
        #expect(try engine.alerts(with: within).items.count == 1)
        #expect(throws: EddyError.self) { try engine.polygons() }
        var bad = AlertQuery()
        bad.polygon = [LatLng(latitude: 40, longitude: -73)]
        #expect(throws: EddyError.alertQuery(.invalidPolygon(pointCount: 1))) { try engine.alerts(with: bad) }
    }

    @Test func devicePositionIsReadableOnTheEngine() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Self.engine(folder)
        #expect(engine.devicePosition == nil && !engine.inPosition && !engine.isHorizontal && !engine.inNoise)
        let log = CallbackRecorder(engine)
        let samples = FlightSimulator.simulate(turbulentScenario()).samples.mergedSamples()
        let start = Self.now
        for sample in samples { engine.push(shifted(sample, by: start)) }
        engine.finishDetection()
        // The same samples straight through the pipeline: its last device-position event is the engine's state.
        var pipeline = NavigatedDetection(configuration: DetectionConfiguration(aircraftClass: .medium, typeDesignator: "B738"))
        var events: [DetectionEvent] = []
        for sample in samples { pipeline.process(retimed(sample, to: (sample.t * 1e6).rounded() / 1e6), into: &events) }
        pipeline.finish(into: &events)
        let last = try #require(events.compactMap { if case .position(let p) = $0 { p } else { nil } }.last)
        #expect(engine.devicePosition == DevicePositionState(inPosition: last.inPosition, isHorizontal: last.horizontal, inNoise: last.inNoise))
        #expect(engine.inPosition == last.inPosition && engine.isHorizontal == last.horizontal && engine.inNoise == last.inNoise)
        let callback = try #require(log.callbacks.compactMap { c -> [Bool]? in
            if case .didChangeDevicePosition(let p, let h) = c { [p, h] } else { nil }
        }.last)
        #expect(callback == [engine.inPosition, engine.isHorizontal])
    }

    @Test func viewportTypesChooseWhatTheViewportFetches() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let viewport = [LatLng(latitude: 39, longitude: -76), LatLng(latitude: 39, longitude: -70),
                        LatLng(latitude: 43, longitude: -70), LatLng(latitude: 43, longitude: -76)]
        for viewportTypes in [Set<DataType>([.turbulence]), [.turbulence, .liveFlights, .nowcast]] {
            let folder = try EngineFolder()
            defer { folder.remove() }
            let engine = try folder.flightTimeEngine()
            let log = CallbackRecorder(engine)
            try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "viewer", environment: .local(port: server.port))
            try engine.setDataQuery(DataQuery(types: [.turbulence], viewportTypes: viewportTypes, viewport: viewport))
            let now = Date().timeIntervalSince1970.rounded(.down)
            engine.push(.location(LocationSample(t: now, latitudeDegrees: 40.7, longitudeDegrees: -73.5, altitudeMeters: 10_000,
                                                 speedMetersPerSecond: 230, courseDegrees: 50)))
            engine.syncNow()
            let fetched = Set(log.callbacks.compactMap { c -> String? in
                if case .didUpdateFetchingStatus(.idle, let area, let type) = c { "\(area.rawValue)/\(type.rawValue)" } else { nil }
            })
            let viewportFetched = Set(fetched.filter { $0.hasPrefix("viewport/") })
            #expect(viewportFetched == Set(viewportTypes.map { "viewport/\($0.rawValue)" }), "fetched: \(fetched)")
            #expect(!fetched.contains("route/liveFlights") && !fetched.contains("route/nowcast"), "route keeps `types`: \(fetched)")
            #expect(fetched.contains("route/turbulence"))
            for type in viewportTypes {
                #expect(try engine.store.lastTick(area: .viewport, dataType: type) != nil, "\(type) stored for the viewport")
            }
            #expect(try engine.store.lastTick(area: .viewport, dataType: .turbulencePolygons) == nil)
            engine.stop()
        }
    }

    @Test func newTurbulencePolygonsMakeTheCoreReadAlertCandidatesAgain() throws {
        let configuration = EddyConfiguration(storePath: "/nonexistent/unused.sqlite", delivery: .callerThread, syncTiming: .flightTime)
        var core = EngineCore(configuration: EngineCoreConfiguration(configuration),
                              aircraft: try #require(AircraftTypeTable.type(designator: "B738")), flight: nil,
                              dataQuery: DataQuery(), updateFrequency: .fast, session: nil)
        for (type, changes) in [(DataType.turbulencePolygons, true), (.turbulence, true), (.nowcast, false), (.liveFlights, false)] {
            let before = core.dataGeneration
            _ = core.syncEvent(.receivedData(area: .route, dataType: type, itemCount: 1, full: true), now: Self.now)
            #expect((core.dataGeneration != before) == changes, "\(type)")
        }
    }

    @Test func persistedDataQueryWithoutViewportTypesDecodesWithTheDefault() throws {
        let old = #"{"types":["turbulence"],"globalEnabled":false,"historyWindow":120,"altitudeRangeFeet":[0,60000],"minimumSeverity":1}"#
        let query = try JSONDecoder().decode(DataQuery.self, from: Data(old.utf8))
        #expect(query.viewportTypes == [.turbulence] && query.historyWindow == .twoHours && query.minimumSeverity == .light)
        var changed = query
        changed.viewportTypes = [.liveFlights]
        #expect(try JSONDecoder().decode(DataQuery.self, from: JSONEncoder().encode(changed)) == changed)
        var empty = DataQuery()
        empty.viewportTypes = []
        #expect(throws: EddyError.self) { try empty.validate() }
    }
}
