#if Tools
import Eddy
import EddyAlerts
import EddyReplay
import EddySensorLog
import EddyStore
import EddySupport
import EddyVocabulary
import Foundation

/// What `eddy replay --engine` runs with.
struct EngineReplayOptions {
    /// Flight directory.
    var flight: String
    /// JSON Lines instead of the readable timeline.
    var json = false
    /// Skip and count bad lines.
    var lenient = false
    /// Class override (`--class`): the aircraft becomes that class's representative type.
    var aircraftClass: AircraftClass?
    /// `--type`: the type designator to fly instead of meta.json's.
    var typeDesignator: String?
    /// Device mount override (else meta.json's device.mount, else cradle).
    var mount: DeviceMount?
    /// Flight-plan hints instead of meta.json's `flight_plan`, field by field.
    var flightPlan: FlightMeta.FlightPlan?
    /// Engine store path; nil for a temporary store removed afterwards.
    var db: String?
    /// Sync server base URL; nil for an offline engine.
    var server: String?
    /// API key (needed with a server).
    var apiKey: String?
    /// Airline ICAO code of the session.
    var airline = "EDY"
    /// User id of the session.
    var userId = "eddy-replay"
    /// Also write the flight's page here (`--html`; docs/maps.md).
    var html: String?
    /// With a server and `--db`: start over instead of resuming the flight the store's replay record describes.
    var restart = false
    /// Pace the samples against the wall clock at this many log seconds per wall second (`--speed`); nil: as fast as
    /// the CPU allows.
    var speed: Double?
    /// With a server: how long the end of the replay waits for the outbox to drain, wall-clock seconds (`--drain-timeout`).
    var drainTimeoutSeconds = 120.0
}

/// Why an engine replay stopped: the message for stderr (exit status 1).
struct EngineReplayFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `eddy replay FLIGHT --engine`: streams a flight through a whole `EddyEngine` (detection, store, flight phase,
/// alerts, sync) and prints every delegate callback (docs/replay.md, "The whole engine").
///
/// Sample times are shifted to Unix seconds: by `time_origin` offline (deterministic output), or so that the
/// flight ends now with a server (the server refuses reports from the future and serves only the last hours).
enum EngineReplay {
    /// Type designators used when meta.json's type is missing or not in the table, per class.
    static let representativeDesignators: [AircraftClass: String] = [.small: "C172", .medium: "B738", .large: "B77W"]

    /// How long before its resume point a resumed replay starts pushing, seconds: longer than the detection's cold
    /// start (the 30-s mount settle, the per-second estimator's filters; docs/reliability.md).
    static let resumeWarmUpSeconds = 600.0

    /// With `--speed`: the shortest wait worth a sleep, seconds (shorter ones accumulate until they reach it).
    static let pacingGranularitySeconds = 0.005

    /// Store cache for the replay's engine, KiB: a replay reads little back, so a small page cache keeps the
    /// process small (the store's default is 32 MiB).
    static let storeCacheKiB = 2048

    /// The aircraft an engine replay flies: meta.json's type when it is in the table (and of the `--class`
    /// override's class, if any), else the class's representative designator. Returns the type and where it came from.
    static func aircraft(meta: FlightMeta, classOverride: AircraftClass?, typeOverride: String? = nil) -> (type: AircraftType, source: String) {
        if let designator = typeOverride, let type = AircraftTypeTable.type(designator: designator) { return (type, "type-override") }
        if let designator = meta.aircraft.type, let type = AircraftTypeTable.type(designator: designator),
           type.aircraftClass == (classOverride ?? meta.aircraft.aircraftClass) {
            return (type, "meta")
        }
        let aircraftClass = classOverride ?? meta.aircraft.aircraftClass
        let designator = representativeDesignators[aircraftClass] ?? "B738"
        guard let type = AircraftTypeTable.type(designator: designator) else {
            preconditionFailure("representative designator \(designator) missing from the aircraft table")
        }
        return (type, classOverride == nil ? "class" : "class-override")
    }

    /// Runs the replay, writing the timeline and summary to standard output.
    static func run(_ options: EngineReplayOptions) async throws(EngineReplayFailure) {
        if options.server != nil, (options.apiKey ?? "").isEmpty {
            throw EngineReplayFailure("--server needs an API key: pass --api-key KEY or set EDDY_API_KEY (eddy-server keys add)")
        }
        let reader: FlightLogReader
        do { reader = try FlightLogReader(directory: options.flight, options: .init(lenient: options.lenient)) } catch {
            throw EngineReplayFailure(error.kind == .missingDirectory ? "\(error)" : "\(options.flight): \(error)")
        }
        let meta = reader.meta
        let first: SensorSample
        do {
            guard let sample = try reader.next() else {
                throw EngineReplayFailure("\(options.flight): the flight has no samples: record or simulate one (eddy simulate)")
            }
            first = sample
        } catch let failure as EngineReplayFailure { throw failure }
        catch { throw EngineReplayFailure("\(options.flight): \(error)") }

        // Last sample time: the flight's identity for resuming, and the end of a synced replay.
        var lastLogTimeInFiles: Double?
        if options.server != nil {
            guard let last = lastSampleTime(directory: options.flight, files: reader.files) else {
                throw EngineReplayFailure("\(options.flight): cannot read the last sample time of the flight's CSV files")
            }
            lastLogTimeInFiles = last
        }
        let (aircraft, aircraftSource) = aircraft(meta: meta, classOverride: options.aircraftClass, typeOverride: options.typeDesignator)
        if aircraftSource != "meta", aircraftSource != "type-override" {
            let why = options.aircraftClass != nil ? "--class \(aircraft.aircraftClass.rawValue)"
                : meta.aircraft.type.map { "type \($0) is not in the aircraft table" } ?? "meta.json has no aircraft type"
            FileHandle.standardError.write(Data(
                "eddy replay: \(why): flying \(aircraft.designator) (\(aircraft.name)), the representative \(aircraft.aircraftClass.rawValue) type\n".utf8))
        }

        // Store: --db, or a temporary file removed afterwards.
        let temporaryStore = options.db == nil
        let storePath = options.db ?? NSTemporaryDirectory() + "eddy-engine-replay-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).sqlite"
        // A temporary store is removed at the end, unless it still holds reports the server has not acknowledged.
        var keepStore = false
        defer { if temporaryStore, !keepStore { removeStore(at: storePath) } }

        var storeOptions = StoreOptions()
        storeOptions.cacheSizeKiB = storeCacheKiB
        let engine: EddyEngine
        do {
            var configuration = EddyConfiguration(
                storePath: storePath, storeOptions: storeOptions, delivery: .callerThread, syncTiming: .flightTime)
            configuration.deviceMount = options.mount ?? meta.device?.mount ?? .cradle
            // Every run gets the key on its command line: nothing of the session needs to outlive the process.
            configuration.credentialStore = MemoryCredentialStore()
            engine = try EddyEngine(configuration: configuration)
        } catch {
            throw EngineReplayFailure("cannot open the engine store\(temporaryStore ? "" : " --db \(storePath)"): \(error)")
        }

        // Time shift: log t + shift = Unix seconds. Offline: meta.json's time_origin (deterministic output). With a
        // server: the flight ends now, unless the store's replay record says this flight was replayed before with
        // this --db (a killed run): then the same shift, and detection resumes where the outbox ends.
        let flightName = URL(fileURLWithPath: options.flight).lastPathComponent
        let shift: Double
        var resumeFromUnixTime: Double?
        if let last = lastLogTimeInFiles {
            let identity = ReplayRecord.Identity(flightName: flightName, firstLogTime: first.t, lastLogTime: last)
            let record: ReplayRecord?
            do { record = temporaryStore || options.restart ? nil : try ReplayRecord.load(from: engine.store) }
            catch { throw EngineReplayFailure("cannot read the replay record in --db \(storePath): \(error) (--restart starts the flight over)") }
            if let record, record.identity == identity {
                shift = record.shiftSeconds
                let flightRange = (first.t + shift)...(last + shift)
                do { resumeFromUnixTime = try engine.store.latestOwnReportExitTime(in: flightRange) }
                catch { throw EngineReplayFailure("cannot read the outbox of --db \(storePath): \(error)") }
                let from = resumeFromUnixTime.map { "log t = \(String(format: "%.3f", $0 - shift)) s (the last stored tile's exit)" }
                    ?? "its start (no tile stored yet)"
                FileHandle.standardError.write(Data(
                    "eddy replay: resuming \(flightName) from --db \(storePath) with its time shift \(String(format: "%.0f", shift)) s, from \(from)\n".utf8))
            } else {
                // Paced (`--speed`): the flight ends when the paced replay ends, so samples are never in the future.
                let pacedSeconds = options.speed.map { max(0, last - first.t) / $0 } ?? 0
                shift = (SystemEpochClock().now() - 1 + pacedSeconds).rounded(.down) - last.rounded(.up)
                if !temporaryStore {
                    do { try ReplayRecord(identity: identity, shiftSeconds: shift).save(to: engine.store) }
                    catch { throw EngineReplayFailure("cannot write the replay record to --db \(storePath): \(error)") }
                }
            }
        } else {
            shift = meta.timeOriginEpochSeconds ?? 0
        }
        let timeline = EngineTimeline(json: options.json, shift: shift, firstLogTime: first.t)
        let mapCollector = options.html == nil ? nil : EngineMapCollector()
        engine.callbackObserver = { timed in
            timeline.record(timed)
            mapCollector?.record(timed)
        }
        let plan = FlightMeta.FlightPlan.merged(options.flightPlan, over: meta.flightPlan)
        let environment: EddyEnvironment = options.server.map { .server($0) } ?? .offline
        do {
            try engine.setAircraft(designator: aircraft.designator)
            // An explicit flight (not a temporary one made at take-off): the report-id salt then does not depend on
            // whether a store given with --db still holds the previous run's temporary flight, so reruns are idempotent.
            engine.setFlight(Flight(flightPlanId: "replay/" + flightName))
            try engine.startNow(apiKey: options.apiKey ?? "offline", airline: options.airline, userId: options.userId,
                                environment: environment)
            try engine.startMonitoringAlerts(with: AlertQuery())
            try engine.setPlannedCruiseLevels(plan?.plannedLevels ?? [])
            if let isa = plan?.isaDeviation {
                try engine.setCruiseTemperature(CruiseTemperature(isaDeviationCelsius: isa.celsius, uncertaintyCelsius: isa.sigmaCelsius ?? 2,
                                                                  observedAt: (isa.t ?? 0) + shift))
            }
        } catch {
            timeline.flush()
            throw EngineReplayFailure(startAdvice(error, options: options))
        }

        var sample = first
        var pendingClearedLevels = plan?.clearedLevels ?? []
        var count = 0
        var lastLogTime = first.t
        do {
            // Resuming: the samples before the last stored tile's exit were processed by the killed run. Compared in
            // Unix seconds, computed as the engine computed them (t + shift), so the fix that closed that tile and
            // opened the next one is pushed again exactly: the next crossing gets the same enter time, hence its id.
            // The detection starts cold, so it warms up on the `resumeWarmUpSeconds` before that fix: the reports of
            // crossings entered before it are dropped (the killed run stored them).
            if let resumeFromUnixTime {
                engine.reportFloorTime.withLock(visibleToThreadSanitizerAs: engine) { $0 = resumeFromUnixTime }
                while sample.t + shift < resumeFromUnixTime - resumeWarmUpSeconds {
                    guard let next = try reader.next() else { break }
                    sample = next
                }
            }
            var pacer = options.speed.flatMap { ReplayPacer(speed: $0) }
            let pacingStart = ContinuousClock.now
            while true {
                if pacer != nil {
                    let elapsed = pacingStart.duration(to: .now)
                    let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    let wait = pacer?.waitSeconds(beforeLogTime: sample.t, elapsedSeconds: elapsedSeconds) ?? 0
                    // Waits shorter than a few milliseconds are left to accumulate: one sleep per batch of samples.
                    if wait >= Self.pacingGranularitySeconds {
                        timeline.flush()
                        try? await Task.sleep(for: .seconds(wait))
                    }
                }
                while let cleared = pendingClearedLevels.first, cleared.t <= sample.t {
                    try engine.setClearedFlightLevel(cleared.level)
                    pendingClearedLevels.removeFirst()
                }
                var unix = sample
                unix.t += shift
                engine.push(unix)
                mapCollector?.add(unix)
                count += 1
                lastLogTime = sample.t
                guard let next = try reader.next() else { break }
                sample = next
            }
        } catch {
            engine.finishDetection()
            timeline.flush()
            throw EngineReplayFailure("\(options.flight): \(error)")
        }
        engine.finishDetection()
        if options.server != nil {
            engine.syncNow()
            // The flight clock stopped with the last sample, so the scheduler's back-off (the server's 429 pacing) would
            // never end: the outbox is drained on the wall clock, for a bounded time.
            let drained = await engine.drainOutbox(timeoutSeconds: options.drainTimeoutSeconds)
            let pending = drained.outbox?.pending
            keepStore = temporaryStore && pending != 0
            let remaining = pending.map { "\($0) still pending" } ?? "the outbox could not be read"
            let kept = pending == 0 ? "" : temporaryStore ? "; the store is kept at \(storePath) (replay it with --db to send the rest)"
                : " in --db \(storePath) (a rerun with --db sends them)"
            FileHandle.standardError.write(Data(
                "eddy replay: outbox drained: \(drained.sent) sent at the end, \(remaining)\(kept)\n".utf8))
        }
        let outbox: OutboxCounts
        do { outbox = try engine.store.outboxCounts() }
        catch { timeline.flush(); throw EngineReplayFailure("cannot read the engine store's outbox: \(error)") }
        timeline.finish(summary: EngineReplaySummary(
            flightName: flightName, aircraft: aircraft,
            aircraftSource: aircraftSource, server: options.server != nil, samples: count, firstLogTime: first.t,
            lastLogTime: lastLogTime, outbox: outbox, skippedLines: reader.skippedLines.reduce(0) { $0 + $1.count }))
        if !temporaryStore {
            FileHandle.standardError.write(Data("eddy replay: the engine store is \(storePath)\n".utf8))
        }
        if let html = options.html, let mapCollector {
            let page = mapCollector.page(flightName: flightName, meta: meta, aircraft: aircraft, shift: shift,
                                         timesAreEpoch: options.server != nil || meta.timeOriginEpochSeconds != nil)
            do { try MapPages.write(page, to: html, command: "replay") } catch { throw EngineReplayFailure(error.description) }
        }
    }

    /// The largest `t` among the last lines of the flight's CSV files (read from each file's tail, not streamed).
    static func lastSampleTime(directory: String, files: [SensorFileKind]) -> Double? {
        var latest: Double?
        for kind in files {
            guard let handle = FileHandle(forReadingAtPath: directory + "/" + kind.fileName) else { return nil }
            defer { try? handle.close() }
            guard let size = try? handle.seekToEnd() else { return nil }
            let tail = min(size, 4096)
            guard (try? handle.seek(toOffset: size - tail)) != nil, let data = try? handle.readToEnd() else { return nil }
            let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            guard let line = lines.last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }),
                  let t = Double(line.prefix(while: { $0 != "," }).trimmingCharacters(in: .whitespaces))
            else { continue }   // a file with only a header
            latest = max(latest ?? t, t)
        }
        return latest
    }

    /// The start error with what to do about it on the command line.
    static func startAdvice(_ error: EddyError, options: EngineReplayOptions) -> String {
        switch error {
        case .apiKeyInvalid: "\(error) (--api-key)"
        case .userLocked: "\(error); also check that --airline \(options.airline) is the key's airline"
        case .environmentInvalid, .offline: "--server \(options.server ?? ""): \(error)"
        case .userIdOrAirlineInvalid: "\(error) (--airline, --user-id)"
        default: "\(error)"
        }
    }

    /// Removes a SQLite store, its WAL / shared-memory files and a credential directory an engine left beside it.
    static func removeStore(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal", ".credentials"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// What a synced engine replay with `--db` records in the engine store (configuration key `replay.record`) so that a
/// rerun with the same store and flight resumes it (docs/reliability.md): the flight's identity and its time shift.
struct ReplayRecord: Codable, Equatable {
    /// Which flight: the directory name and the first and last sample times (log time base).
    struct Identity: Codable, Equatable {
        /// The flight directory's name.
        var flightName: String
        /// First sample time, log time base, seconds.
        var firstLogTime: Double
        /// Last sample time, log time base, seconds.
        var lastLogTime: Double
    }

    /// The configuration key the record is stored under.
    static let key = "replay.record"

    /// The flight replayed.
    var identity: Identity
    /// Log t + shift = Unix seconds.
    var shiftSeconds: Double

    /// The store's record, if any.
    static func load(from store: EddyStore) throws(StoreError) -> ReplayRecord? {
        try store.configuration(ReplayRecord.self, forKey: key)
    }

    /// Writes the record (durable when the call returns).
    func save(to store: EddyStore) throws(StoreError) {
        try store.setConfiguration(self, forKey: Self.key)
    }
}
#endif
