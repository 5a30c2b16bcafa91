#if Tools
import ArgumentParser
import EddyCLIParsing
import EddyH3
import EddySensorLog
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation

/// `eddy query`: reads a store file (turbulence reports, nowcast, live flights) as text or GeoJSON.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Query an Eddy store file: turbulence by polygon, route or tiles; nowcast; live flights.",
        discussion: """
            Coordinates are `lat,lon` pairs in degrees separated by spaces or semicolons. Without --polygon, \
            --route or --tiles the whole store is searched. Times are Unix epoch seconds; --now defaults to the \
            current time. Text output lists one tile per line (one report per line with --every-report); \
            --geojson prints an RFC 7946 FeatureCollection of tile hexagons. A file that is not an Eddy store is \
            moved aside by the store (never deleted) and reported on stderr.

            Example: eddy query --db cache.sqlite --route "40.64,-73.78 51.47,-0.45" --width-nm 20 \
            --alt-min-feet 34000 --alt-max-feet 40000 --min-severity light
            """
    )

    @Option(name: .long, help: "Path of the store file (it must exist).")
    var db: String

    @Option(name: .long, help: "Polygon ring: up to 250 `lat,lon` points.")
    var polygon: String?

    @Option(name: .long, help: "Route polyline: up to 250 `lat,lon` points (with --width-nm).")
    var route: String?

    @Option(name: .customLong("width-nm"), help: "Corridor half-width each side of --route, NM.")
    var widthNM: Double = 20

    @Option(name: .long, help: "Tiles as `h3hex@layer`, separated by commas or spaces (e.g. 85283473fffffff@35).")
    var tiles: String?

    @Option(name: .customLong("alt-min-feet"), help: "Lowest altitude, feet (whole thousands; with --alt-max-feet).")
    var altMinFeet: Int?

    @Option(name: .customLong("alt-max-feet"), help: "Highest altitude, feet (whole thousands; with --alt-min-feet).")
    var altMaxFeet: Int?

    @Option(name: .customLong("history-hours"), help: "History window: 0.5, 1, 2, 4 or 6 hours.")
    var historyHours: Double = 2

    @Option(name: .customLong("min-severity"), help: "none, light, lightModerate, moderate, moderateSevere or severe.")
    var minSeverity: String = "none"

    @Option(name: .long, help: "Viewer aircraft class: small, medium or large (severity depends on it).")
    var viewer: String = "medium"

    @Option(name: .long, help: "server, own, or server-excluding-own.")
    var source: String = "server"

    @Option(name: .customLong("own-span-minutes"), help: "Time span for own reports (own, server-excluding-own), minutes.")
    var ownSpanMinutes: Double = 60

    @Flag(name: .customLong("every-report"), help: "Every report instead of the worst report per tile.")
    var everyReport = false

    @Flag(name: .long, help: "Include server reports' anonymised reporter id and source.")
    var details = false

    @Option(name: .customLong("nowcast-hour"), help: "Query nowcast cells of this forecast hour (0–12) instead of reports.")
    var nowcastHour: Int?

    @Flag(name: .customLong("live-flights"), help: "List the latest live-flight positions instead of reports.")
    var liveFlights = false

    @Option(name: .long, help: "The present as Unix epoch seconds or an ISO 8601 instant such as 2026-11-22T10:30:00Z (default: now). Give a recorded or simulated flight's time to query its reports later.")
    var now: String?

    /// `--now` as Unix seconds (nil: not given).
    private func parsedNow() throws -> Double? {
        guard let now else { return nil }
        if let seconds = Double(now), seconds.isFinite { return seconds }
        if let seconds = FlightMeta.parseISO8601(now) { return seconds }
        throw ValidationError("--now \"\(now)\": give Unix epoch seconds (1795343400) or an ISO 8601 instant (2026-11-22T10:30:00Z)")
    }

    @Flag(name: .long, help: "Print an RFC 7946 GeoJSON FeatureCollection.")
    var geojson = false

    @Option(name: .long, help: "Also write the tiles as one self-contained HTML map page (altitude filter, no network): docs/maps.md.")
    var html: String?

    func validate() throws {
        if [polygon != nil, route != nil, tiles != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give at most one of --polygon, --route and --tiles")
        }
        if (altMinFeet == nil) != (altMaxFeet == nil) {
            throw ValidationError("give both --alt-min-feet and --alt-max-feet, or neither")
        }
        if liveFlights && nowcastHour != nil { throw ValidationError("give --live-flights or --nowcast-hour, not both") }
        if liveFlights && geojson { throw ValidationError("--geojson is for reports and nowcast, not --live-flights") }
        _ = try parsedNow()
        if html != nil && (liveFlights || nowcastHour != nil) { throw ValidationError("--html draws turbulence reports, not --live-flights or --nowcast-hour") }
    }

    func run() throws {
        guard FileManager.default.fileExists(atPath: db) else {
            throw ValidationError("no store at \(db); give the path of an existing Eddy store file")
        }
        let presentTime = try parsedNow() ?? SystemEpochClock().now()
        let store: EddyStore
        do {
            store = try EddyStore.open(path: db)
        } catch {
            throw CLIFailure("\(error)")
        }
        if let notice = store.openOutcome.notice { FileHandle.standardError.write(Data("eddy query: \(notice)\n".utf8)) }
        do {
            let area = try parseArea()
            let altitude = try altMinFeet.map { try TurbulenceQuery.altitudeRange(lowerFeet: $0, upperFeet: altMaxFeet ?? $0) }
            let severity = try parseSeverity()
            let viewerClass = try parseViewer()
            var output = ""
            if liveFlights {
                output = formatFlights(try store.liveFlights(now: presentTime))
            } else if let nowcastHour {
                let cells = try store.nowcast(NowcastQuery(
                    forecastHour: nowcastHour, area: area, altitudeRangeFeet: altitude, minimumSeverity: severity,
                    viewer: viewerClass, now: presentTime))
                output = geojson ? try GeoJSON.featureCollection(cells, viewer: viewerClass) + "\n" : formatNowcast(cells, viewer: viewerClass)
            } else {
                let query = TurbulenceQuery(
                    area: area, altitudeRangeFeet: altitude, historyWindow: try HistoryWindow.validated(hours: historyHours),
                    minimumSeverity: severity, viewer: viewerClass, aggregation: everyReport ? .everyReport : .worstPerTile,
                    selection: try parseSelection(), now: presentTime, includeReporterDetails: details)
                let items = try store.turbulence(query)
                output = geojson ? try GeoJSON.featureCollection(items) + "\n" : formatItems(items)
                if let html {
                    let subtitle = "\(items.count) \(everyReport ? "reports" : "tiles") · last \(historyHours) h before \(MapPages.utc(presentTime))"
                        + " · source \(source) · \(viewerClass.rawValue) viewer"
                    try MapPages.write(MapPages.fleetPage(title: "Eddy · \(URL(fileURLWithPath: db).lastPathComponent)", subtitle: subtitle,
                                                          viewer: viewerClass, items: items), to: html, command: "query")
                }
            }
            FileHandle.standardOutput.write(Data(output.utf8))
        } catch StoreError.invalidQuery(let error) {
            throw ValidationError(error.description)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CLIFailure("\(error)")
        }
    }

    // MARK: - Parsing

    /// `lat,lon` pairs separated by spaces or semicolons (`CoordinateText.points`: finite, in range).
    static func parseCoordinates(_ text: String, option: String) throws -> [LatLng] {
        do { return try CoordinateText.points(text, option: option) } catch { throw ValidationError(error.message) }
    }

    func parseArea() throws -> QueryArea {
        if let polygon { return .polygon(try Self.parseCoordinates(polygon, option: "--polygon")) }
        if let route { return .route(try Self.parseCoordinates(route, option: "--route"), widthNM: widthNM) }
        if let tiles {
            do { return .tiles(try CoordinateText.tiles(tiles)) } catch { throw ValidationError(error.message) }
        }
        return .everywhere
    }

    func parseSeverity() throws -> Severity {
        guard let severity = Severity(name: minSeverity) else {
            throw ValidationError("--min-severity '\(minSeverity)' is not one of \(Severity.allCases.map(\.name).joined(separator: ", "))")
        }
        return severity
    }

    func parseViewer() throws -> AircraftClass {
        guard let viewerClass = AircraftClass(rawValue: viewer) else {
            throw ValidationError("--viewer '\(viewer)' is not one of small, medium, large")
        }
        return viewerClass
    }

    func parseSelection() throws -> ReportSelection {
        let span = ownSpanMinutes * 60
        switch source {
        case "server": return .server
        case "own": return .own(timeSpanSeconds: span)
        case "server-excluding-own": return .serverExcludingOwn(timeSpanSeconds: span)
        default: throw ValidationError("--source '\(source)' is not one of server, own, server-excluding-own")
        }
    }

    // MARK: - Text output

    static func time(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// A number with a fixed count of decimals (POSIX formatting, no locale); the CLI's tables and timelines use it.
    static func fixed(_ value: Double, _ decimals: Int = 3) -> String { String(format: "%.\(decimals)f", value) }

    func formatItems(_ items: [TurbulenceItem]) -> String {
        var lines = ["h3\tlayer\tseverity\tedr_peak\tedr_median\texit_time\torigin\treports\tid" + (details ? "\treporter\tsource" : "")]
        for item in items {
            let report = item.report
            var line = [
                report.tile.h3String, String(report.tile.layer), item.severity.name, Self.fixed(report.edrPeak),
                Self.fixed(report.edrMedian), Self.time(report.exitTime), item.origin.rawValue, String(item.reportCount),
                report.id.uuidString.lowercased(),
            ]
            if details { line += [item.reporterID ?? "-", item.source ?? "-"] }
            lines.append(line.joined(separator: "\t"))
        }
        lines.append("# \(items.count) \(everyReport ? "reports" : "tiles")")
        return lines.joined(separator: "\n") + "\n"
    }

    func formatNowcast(_ cells: [NowcastCell], viewer: AircraftClass) -> String {
        var lines = ["h3\tlayer\tseverity\tedr\tforecast_hour\tvalid_time\tissue_time"]
        for cell in cells {
            lines.append([
                cell.tile.h3String, String(cell.tile.layer), SeverityScale.severity(edr: cell.edr, viewer: viewer).name,
                Self.fixed(cell.edr), String(cell.forecastHour), Self.time(cell.validTime), Self.time(cell.issueTime),
            ].joined(separator: "\t"))
        }
        lines.append("# \(cells.count) nowcast cells")
        return lines.joined(separator: "\n") + "\n"
    }

    func formatFlights(_ flights: [LiveFlight]) -> String {
        var lines = ["flight\tlatitude\tlongitude\taltitude_ft\theading\tground_speed_kt\ttype\ttime"]
        for flight in flights {
            lines.append([
                flight.flightID, Self.fixed(flight.latitude, 5), Self.fixed(flight.longitude, 5), Self.fixed(flight.altitudeFeet, 0),
                flight.headingDegrees.map { Self.fixed($0, 0) } ?? "-", flight.groundSpeedKnots.map { Self.fixed($0, 0) } ?? "-",
                flight.aircraftType ?? "-", Self.time(flight.time),
            ].joined(separator: "\t"))
        }
        lines.append("# \(flights.count) live flights")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A failure that is not a usage error: printed as `eddy query: …` with exit status 1.
struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
