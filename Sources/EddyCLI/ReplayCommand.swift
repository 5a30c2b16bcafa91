#if Tools
import ArgumentParser
import EddyDetection
import EddyGeoid
import EddyImport
import EddyNavigation
import EddyReplay
import EddySensorLog
import EddyStore
import EddyTerrain
import EddyVocabulary
import Foundation

/// `eddy replay FLIGHT`: runs a flight log through the detection pipeline.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a flight log through the turbulence detector and report what it found.",
        discussion: """
            Without --json: a readable report (truth comparison, position changes, minutes, tiles).
            With --json: JSON Lines, one event per line (position, minute, tile) and a summary last;
            byte-identical run after run. See docs/replay.md.

            With --engine: the whole engine (detection, store, flight phase, alerts, sync with --server)
            runs on the flight and every delegate callback is printed (with --json: one
            {"type":"delegate",…} line each, then a {"type":"summary",…} line). Offline, sample times
            are shifted by meta.json's time_origin and the output is byte-identical run after run; with
            --server they are shifted so that the flight ends now (the server refuses reports from the
            future and serves only the last hours).
            """)

    @Argument(help: "Flight directory (meta.json, accelerometer.csv, …), or a sensor-app export (file, folder, .zip) to import first (see eddy import).")
    var flight: String

    @Flag(help: "Print JSON Lines instead of the report.")
    var json = false

    @Flag(help: "With --json: add one {\"type\":\"track\",…} line per location fix (≈ 1 s): position, pressure altitude, MSL/HAE, uncertainty, altitude source.")
    var track = false

    @Option(help: "With --track: a directory of SRTM .hgt tiles; track lines gain hat_m (height above terrain).")
    var dem: String?

    @Flag(help: "Skip and count bad lines instead of stopping at the first one.")
    var lenient = false

    @Option(help: "Also write the flight as one self-contained HTML page (map, altitude profile, EDR over time; no network): docs/maps.md.")
    var html: String?

    @Option(name: .customLong("class"), help: "Use this aircraft class instead of meta.json's (small, medium, large).", transform: parseClass)
    var aircraftClass: AircraftClass?

    @Option(name: .customLong("type"), help: "Fly this ICAO Doc 8643 type designator instead of meta.json's (its airframe's gust response and its class; e.g. C172, B738, GLID for a glider of no designated type).")
    var typeDesignator: String?

    @Option(help: "Device mount instead of meta.json's device.mount: cradle (default; flat = lying on a seat, not measured) or fixed (AHRS, logger, panel mount: flat is correct, never out of position by manoeuvres).", transform: parseMount)
    var mount: DeviceMount?

    @OptionGroup(title: "Flight-plan hints (docs/altitude.md)")
    var flightPlan: FlightPlanOptions

    @Option(help: "Store the flight's tile reports (own-report outbox) in this Eddy store file; created if absent. With --engine: the engine's store (default: a temporary file, removed afterwards).")
    var db: String?

    @Flag(help: "Run the whole engine (detection, store, flight phase, alerts, sync) and print its delegate timeline.")
    var engine = false

    @Option(help: "With --engine: sync with the eddy-server at this base URL (http://127.0.0.1:8080).")
    var server: String?

    @Flag(help: "With --engine --server --db: start the flight over (a new time shift) instead of resuming the run the store's replay record describes (docs/reliability.md).")
    var restart = false

    @Option(help: "With --engine: pace the samples against the wall clock at FACTOR times real time (10 = a 2-hour flight in 12 minutes; with --server the flight then ends when the replay ends). Default: as fast as possible.")
    var speed: Double?

    @Option(name: .customLong("drain-timeout"), help: "With --server: at the end, wait at most this many seconds for the outbox to be uploaded (the server's pacing is waited out; default 120). A temporary store that still holds pending reports is kept, and its path printed.")
    var drainTimeoutSeconds: Double?

    @Option(help: "With --server: the API key (eddy-server keys add); default: the EDDY_API_KEY environment variable.")
    var apiKey: String?

    @Option(help: "With --engine: the session's airline, 3-character ICAO code (EDY); with --server, the key's airline.")
    var airline: String?

    @Option(help: "With --engine: the session's user id (eddy-replay).")
    var userId: String?

    func validate() throws {
        if let typeDesignator {
            guard let type = AircraftTypeTable.type(designator: typeDesignator) else {
                throw ValidationError("--type \(typeDesignator): \(AircraftTypeError.unknownDesignator(typeDesignator)) (`eddy replay --type GLID` flies a glider of no designated type)")
            }
            if let aircraftClass, aircraftClass != type.aircraftClass {
                throw ValidationError("--type \(type.designator) is a \(type.aircraftClass.rawValue) aircraft but --class says \(aircraftClass.rawValue): give one of them")
            }
        }
        if track, !json || engine { throw ValidationError("--track needs --json (and no --engine): it adds track lines to the JSON Lines output") }
        if dem != nil, !track { throw ValidationError("--dem needs --track (height above terrain is printed in track lines)") }
        if let speed, !(speed.isFinite && speed > 0 && speed <= 1_000_000) {
            throw ValidationError("--speed must be a number above 0 and at most 1000000 (10 = ten times real time), got \(speed)")
        }
        if let drainTimeoutSeconds, !(drainTimeoutSeconds.isFinite && drainTimeoutSeconds >= 0) {
            throw ValidationError("--drain-timeout must be 0 or more seconds, got \(drainTimeoutSeconds)")
        }
        if drainTimeoutSeconds != nil, server == nil { throw ValidationError("--drain-timeout needs --server (it waits for the uploads)") }
        if speed != nil, !engine { throw ValidationError("--speed needs --engine (it paces the engine replay)") }
        if !engine {
            let engineOnly = [("--server", server), ("--api-key", apiKey), ("--airline", airline), ("--user-id", userId)]
            if let (name, _) = engineOnly.first(where: { $0.1 != nil }) {
                throw ValidationError("\(name) needs --engine (it configures the engine replay)")
            }
        } else if restart, server == nil || db == nil {
            throw ValidationError("--restart needs --server and --db (only a synced replay with a kept store resumes)")
        } else if apiKey != nil, server == nil {
            throw ValidationError("--api-key needs --server (an offline engine replay uses no key)")
        }
    }

    func run() async throws {
        let imported: ImportedFlight
        do { imported = try ImportedFlight(path: flight, json: json) } catch {
            FileHandle.standardError.write(Data("eddy replay: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let flight = imported.directory
        if engine {
            var options = EngineReplayOptions(flight: flight)
            options.json = json
            options.lenient = lenient
            options.aircraftClass = aircraftClass
            options.typeDesignator = typeDesignator
            options.mount = mount
            options.flightPlan = flightPlan.flightPlan
            options.html = html
            options.db = db
            options.restart = restart
            options.speed = speed
            if let drainTimeoutSeconds { options.drainTimeoutSeconds = drainTimeoutSeconds }
            options.server = server
            options.apiKey = apiKey ?? (server == nil ? nil : ProcessInfo.processInfo.environment["EDDY_API_KEY"])
            if let airline { options.airline = airline }
            if let userId { options.userId = userId }
            do { try await EngineReplay.run(options) } catch {
                FileHandle.standardError.write(Data("eddy replay: \(error)\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        let output = OutputBuffer()
        do {
            let replay = try FlightReplay(directory: flight, options: ReplayOptions(
                lenient: lenient, aircraftClass: aircraftClass, typeDesignator: typeDesignator, mount: mount, flightPlan: flightPlan.flightPlan))
            let viewer = replay.aircraftClass
            let terrain = try dem.map { path throws(TerrainError) in try TerrainDirectory(path: path) }
            let progress = ReplayProgress(directory: flight, json: json)
            defer { progress.reporter.finish() }
            var mapTrack = MapPages.TrackCollector()
            let summary = try replay.run { event in
                progress.event(event)
                if html != nil { mapTrack.add(event) }
                guard json else { return }
                var event = event
                if track, case .altitude(var a) = event { Self.addEarthModels(&a, terrain: terrain); event = .altitude(a) }
                if let line = ReplayJSON.line(for: event, viewer: viewer, track: track) { output.line(line) }
            }
            if json { output.line(ReplayJSON.summaryLine(summary)) } else { output.write(ReplayReport.text(summary)) }
            output.flush()
            if let db { try storeReports(summary, path: db) }
            if let html { try MapPages.write(MapPages.flightPage(summary: summary, track: mapTrack.points), to: html, command: "replay") }
        } catch let error as CLIFailure {
            output.flush()
            FileHandle.standardError.write(Data("eddy replay: \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as StoreError {
            output.flush()
            FileHandle.standardError.write(Data("eddy replay: store \(db ?? ""): \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as TerrainError {
            output.flush()
            FileHandle.standardError.write(Data("eddy replay: --dem: \(error)\n".utf8))
            throw ExitCode(1)
        } catch let error as SensorLogError {
            output.flush()
            let place = error.kind == .missingDirectory ? "" : "\(flight): "
            FileHandle.standardError.write(Data("eddy replay: \(place)\(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Fills a track point's geoid undulation (EGM96) and height above terrain (when a DEM is given and covers it).
    static func addEarthModels(_ a: inout AltitudeEstimate, terrain: TerrainDirectory?) {
        guard let lat = a.latitudeDegrees, let lon = a.longitudeDegrees else { return }
        a.geoidUndulationMeters = EGM96.undulationMeters(latitudeDegrees: lat, longitudeDegrees: lon)
        guard let terrain, let msl = a.mslMeters, let u = a.mslUncertaintyMeters,
              let elevation = try? terrain.elevationMeters(latitudeDegrees: lat, longitudeDegrees: lon),
              let hat = elevation.heightAboveTerrain(mslMeters: msl, uMSL68Meters: u.u68) else { return }
        a.heightAboveTerrainMeters = hat.meters
    }

    /// Writes the replay's tile reports (epoch times) into the store's outbox; says what it did on stderr,
    /// so `--json` output stays pure.
    private func storeReports(_ summary: ReplaySummary, path: String) throws {
        let store = try EddyStore.open(path: path)
        if let notice = store.openOutcome.notice {
            FileHandle.standardError.write(Data("eddy replay: \(notice)\n".utf8))
        }
        let reports = summary.tileReportsInEpochTime
        let inserted = try store.insertOwnReports(reports)
        try store.close()
        FileHandle.standardError.write(Data(
            "eddy replay: stored \(inserted) new of \(reports.count) tile reports in \(path)\n".utf8))
    }
}
#endif
