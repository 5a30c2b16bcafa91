import EddyAlerts
import EddyH3
import EddyStore
import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import Eddy

/// Alerts from nowcast cells flagged by provenance (docs/alerts.md "Provenance"; issue 31): a fleet of one aircraft is
/// warned by pilot reports and forecasts on its route, and can tell them from measurements.
@Suite(.serialized) struct NowcastProvenanceAlertTests {
    typealias Q = EngineQueryTests

    /// A nowcast cell of `provenance` in `tile`, valid since 10 min before `now` (hour 0 of an issue then).
    static func cell(_ tile: TileID, edr: Double, _ provenance: TurbulenceProvenance, now: Double) -> NowcastCell {
        NowcastCell(tile: tile, validTime: now - 600, forecastHour: 0, edr: edr, issueTime: now - 600, provenance: provenance)
    }

    /// `point` as a PIREP `/OV` latitude/longitude (`DDMMNDDDMMW`).
    static func pirepPosition(_ point: Geodesy.Point) -> String {
        String(format: "%02d%02dN%03d%02dW", Int(point.latitude), Int((point.latitude - Double(Int(point.latitude))) * 60),
               Int(-point.longitude), Int((-point.longitude - Double(Int(-point.longitude))) * 60))
    }

    /// `/TM hhmm` of `time` (Unix seconds, UTC).
    static func pirepTime(_ time: Double) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: time))
        return String(format: "%02d%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// Writes `lines` to a file and runs the server's own `ingest-pilot-reports` on it, dated `now`: its summary.
    static func ingestPilotReports(_ lines: [String], server: LocalEddyServer, folder: EngineFolder, now: Double) throws -> String {
        let file = folder.path("pireps.txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return try server.runCLI(["ingest-pilot-reports", "--db", server.databasePath, "--reference-time",
                                  ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: now)), file])
    }

    /// The one aircraft: an engine syncing with `server`, a B738 at `own`, northbound at FL355, after a full fetch and
    /// syncs until `done` holds for its hour-0 nowcast (at most 10): the engine and those cells.
    static func fleetOfOne(server: LocalEddyServer, folder: EngineFolder, own: Geodesy.Point, now: Double,
                           until done: ([NowcastCell]) -> Bool) throws -> (EddyEngine, [NowcastCell]) {
        let engine = try EddyEngine(configuration: EddyConfiguration(storePath: folder.path("one.sqlite"), delivery: .callerThread))
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "the-only-aircraft", environment: .local(port: server.port))
        try engine.setAircraft(designator: "B738")
        try engine.setDataQuery(DataQuery(types: [.turbulence, .nowcast]))
        engine.push(.location(LocationSample(t: now, latitudeDegrees: own.latitude, longitudeDegrees: own.longitude,
                                             altitudeMeters: 35_500 * 0.3048, speedMetersPerSecond: 230, courseDegrees: 0)))
        try engine.fetchData(refresh: true)
        var cells: [NowcastCell] = []
        for _ in 0..<10 where !done(cells) {
            engine.syncNow()
            cells = try engine.nowcast(NowcastRequest(hoursAhead: 0))
        }
        return (engine, cells)
    }

    @Test func pilotReportAndForecastCellsAlertWithTheirProvenance() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try Q.engine(folder)
        Q.fly(engine)
        let forecastTile = try Q.tile(bearing: 0, distanceNM: 20), pilotTile = try Q.tile(bearing: 0, distanceNM: 40)
        let fleetTile = try Q.tile(bearing: 0, distanceNM: 60), measuredTile = try Q.tile(bearing: 0, distanceNM: 80)
        try engine.store.upsertNowcast([
            Self.cell(forecastTile, edr: 0.25, .forecast, now: Q.now),
            Self.cell(pilotTile, edr: 0.25, .pilotReport, now: Q.now),
            Self.cell(fleetTile, edr: 0.25, .fleetMeasured, now: Q.now),     // its reports alert, not the cell
            Self.cell(measuredTile, edr: 0.25, .forecast, now: Q.now),
        ])
        // A measured report of the same severity in the last forecast tile: the measurement is what the item shows.
        try engine.store.upsertObservations(Q.observations([Q.report(measuredTile, .moderate, age: 300)]))
        let alert = try engine.alerts(with: AlertQuery())
        let byTile = Dictionary(uniqueKeysWithValues: alert.items.map { ($0.tile, $0) })
        #expect(byTile[forecastTile]?.provenance == .forecast && byTile[forecastTile]?.severity == .moderate)
        #expect(byTile[pilotTile]?.provenance == .pilotReport)
        #expect(byTile[fleetTile] == nil, "a fleet-measured nowcast cell does not alert: \(alert.items.map(\.tile))")
        #expect(byTile[measuredTile]?.provenance == .fleetMeasured)
        #expect(alert.items.count == 3)
        // A worse forecast than the measurement still alerts, as forecast.
        try engine.store.upsertNowcast([NowcastCell(tile: measuredTile, validTime: Q.now - 300, forecastHour: 0, edr: 0.5,
                                                    issueTime: Q.now - 300, provenance: .forecast)])
        let worse = try engine.alerts(with: AlertQuery())
        #expect(worse.items.first { $0.tile == measuredTile }.map { ($0.provenance, $0.severity) } ?? (.fleetMeasured, .none) == (.forecast, .severe))
        // The engine's nowcast query returns the provenance.
        #expect(try engine.nowcast(NowcastRequest(hoursAhead: 0)).map(\.provenance).contains(.pilotReport))
    }

    /// A fleet of one against a real `eddy-server`: pilot reports ingested by the server's own command on the aircraft's
    /// route reach the client as nowcast cells flagged `pilotReport`, and alert it as such.
    @Test func aFleetOfOneIsAlertedByPilotReportsOnItsRouteThroughARealServer() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let now = Date().timeIntervalSince1970.rounded(.down)
        // Two MOD PIREPs at FL350 (layer 35) 20 and 30 NM north of the aircraft, 10 minutes ago.
        let own: Geodesy.Point = (40.0, -100.0)
        let lines = [20.0, 30.0].map { distance in
            "DEN UA /OV \(Self.pirepPosition(Geodesy.destination(from: own, bearingDegrees: 0, distanceNM: distance))) /TM \(Self.pirepTime(now - 600)) /FL350 /TP B738 /TB MOD"
        }
        let ingest = try Self.ingestPilotReports(lines, server: server, folder: folder, now: now)
        #expect(ingest.contains("2 stored"), "\(ingest)")
        let (engine, cells) = try Self.fleetOfOne(server: server, folder: folder, own: own, now: now) { !$0.isEmpty }
        #expect(!cells.isEmpty && cells.allSatisfy { $0.provenance == .pilotReport }, "\(cells)")
        let alert = try engine.alerts(with: AlertQuery())
        #expect(!alert.items.isEmpty, "alerted by the pilot reports ahead")
        #expect(alert.items.allSatisfy { $0.provenance == .pilotReport }, "\(alert.items.map { ($0.tile, $0.provenance) })")
    }

    /// A fleet of one against a real `eddy-server` process on loopback that ingested a GRIB2 forecast (the GTG-like fixture
    /// written by ecCodes, re-dated by ecCodes' `grib_set` so that it is valid now) and a pilot report: the client syncs
    /// over its transport and is alerted on its route by both, each flagged by its provenance (docs/nowcast.md
    /// "Provenance end to end"; issue 31).
    @Test func aFleetOfOneIsAlertedByAForecastGridAndAPilotReportThroughARealServer() throws {
        let gribSet = "/usr/bin/grib_set"
        try #require(FileManager.default.isExecutableFile(atPath: gribSet), "ecCodes' grib_set is missing: make deps installs libeccodes-tools")
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let now = Date().timeIntervalSince1970.rounded(.down)
        let hourStart = (now / 3600).rounded(.down) * 3600
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        // The GTG-like fixture (EDPARM, CAT, mountain wave at FL100 and FL350 on a Lambert grid from 38° N 97° W, step
        // 3 h): its reference time set to 3 h before the nowcast's issue hour, so it is valid at the issue.
        let reference = calendar.dateComponents([.year, .month, .day, .hour], from: Date(timeIntervalSince1970: hourStart - 3 * 3600))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/forecast")
        let grib = folder.path("gtg-now.grib2")
        let set = Process()
        set.executableURL = URL(fileURLWithPath: gribSet)
        set.arguments = ["-s", String(format: "dataDate=%04d%02d%02d,dataTime=%02d00", reference.year ?? 0, reference.month ?? 0,
                                      reference.day ?? 0, reference.hour ?? 0),
                         fixtures.appendingPathComponent("gtg-kwbc-altitude.grib2").path, grib]
        try set.run()
        set.waitUntilExit()
        try #require(set.terminationStatus == 0, "grib_set failed")
        let forecastIngest = try server.runCLI(["ingest-forecast", "--db", server.databasePath, grib])
        #expect(forecastIngest.contains("6 EDR field(s) read") && !forecastIngest.contains(" 0 cell(s) stored"), "\(forecastIngest)")
        // The aircraft 15 NM south of the grid's south-west corner, northbound at FL355 (layer 35): the forecast's FL350
        // cells lie ahead. A MOD PIREP at FL370 (within the alerts' ±2 layers; not a layer of the forecast, so it
        // does not move the forecast's patch) 60 NM ahead, 10 minutes ago.
        let own: Geodesy.Point = (37.75, -96.9)
        let pirep = Geodesy.destination(from: own, bearingDegrees: 0, distanceNM: 60)
        let pirepIngest = try Self.ingestPilotReports(["ICT UA /OV \(Self.pirepPosition(pirep)) /TM \(Self.pirepTime(now - 600)) /FL370 /TP B738 /TB MOD"],
                                                      server: server, folder: folder, now: now)
        #expect(pirepIngest.contains("1 stored"), "\(pirepIngest)")
        let (engine, cells) = try Self.fleetOfOne(server: server, folder: folder, own: own, now: now) { Set($0.map(\.provenance)).count >= 2 }
        // The forecast's cells are at its levels' layers, the pilot report's at its own; none is fleet-measured.
        #expect(cells.contains { $0.provenance == .forecast && $0.tile.layer == 35 }, "\(cells.count) cells")
        #expect(cells.contains { $0.provenance == .pilotReport && $0.tile.layer == 37 }, "\(cells.count) cells")
        #expect(!cells.contains { $0.provenance == .fleetMeasured })
        #expect(cells.filter { $0.provenance == .forecast }.allSatisfy { [10, 35].contains($0.tile.layer) })
        let alert = try engine.alerts(with: AlertQuery())
        let provenances = Set(alert.items.map(\.provenance))
        #expect(provenances == [.forecast, .pilotReport], "\(alert.items.map { ($0.tile, $0.provenance) })")
        #expect(alert.items.filter { $0.provenance == .forecast }.allSatisfy { $0.tile.layer == 35 && $0.severity >= .light })
        #expect(alert.items.filter { $0.provenance == .pilotReport }.allSatisfy { $0.tile.layer == 37 })
    }
}
