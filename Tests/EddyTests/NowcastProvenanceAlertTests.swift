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
        let observed = Date(timeIntervalSince1970: now - 600)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let parts = calendar.dateComponents([.hour, .minute], from: observed)
        let time = String(format: "%02d%02d", parts.hour ?? 0, parts.minute ?? 0)
        var lines: [String] = []
        for distance in [20.0, 30.0] {
            let p = Geodesy.destination(from: own, bearingDegrees: 0, distanceNM: distance)
            let latitude = String(format: "%02d%02dN", Int(p.latitude), Int((p.latitude - Double(Int(p.latitude))) * 60))
            let longitude = String(format: "%03d%02dW", Int(-p.longitude), Int((-p.longitude - Double(Int(-p.longitude))) * 60))
            lines.append("DEN UA /OV \(latitude)\(longitude) /TM \(time) /FL350 /TP B738 /TB MOD")
        }
        let file = folder.path("pireps.txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let format = ISO8601DateFormatter()
        let ingest = try server.runCLI(["ingest-pilot-reports", "--db", server.databasePath, "--reference-time",
                                        format.string(from: Date(timeIntervalSince1970: now)), file])
        #expect(ingest.contains("2 stored"), "\(ingest)")

        let engine = try EddyEngine(configuration: EddyConfiguration(storePath: folder.path("one.sqlite"), delivery: .callerThread))
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "the-only-aircraft", environment: .local(port: server.port))
        try engine.setAircraft(designator: "B738")
        try engine.setDataQuery(DataQuery(types: [.turbulence, .nowcast]))
        engine.push(.location(LocationSample(t: now, latitudeDegrees: own.latitude, longitudeDegrees: own.longitude,
                                             altitudeMeters: 35_500 * 0.3048, speedMetersPerSecond: 230, courseDegrees: 0)))
        try engine.fetchData(refresh: true)
        var cells: [NowcastCell] = []
        for _ in 0..<10 where cells.isEmpty {
            engine.syncNow()
            cells = try engine.nowcast(NowcastRequest(hoursAhead: 0))
        }
        #expect(!cells.isEmpty && cells.allSatisfy { $0.provenance == .pilotReport }, "\(cells)")
        let alert = try engine.alerts(with: AlertQuery())
        #expect(!alert.items.isEmpty, "alerted by the pilot reports ahead")
        #expect(alert.items.allSatisfy { $0.provenance == .pilotReport }, "\(alert.items.map { ($0.tile, $0.provenance) })")
    }
}
