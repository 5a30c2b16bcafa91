#if Tools
import EddyH3
import EddyProtocol
import EddyVocabulary
import Foundation
import GRDB
import Logging
import Testing

@testable import EddyServerKit

/// `--database` values: what parses, and what a bad one says.
@Suite struct DatabaseLocationTests {
    @Test func sqliteAndPostgresURLsParse() throws {
        #expect(try DatabaseLocation(parsing: "sqlite:/tmp/x.sqlite") == .sqlite(path: "/tmp/x.sqlite"))
        #expect(try DatabaseLocation(parsing: "sqlite:relative.db") == .sqlite(path: "relative.db"))
        guard case .postgres(let location) = try DatabaseLocation(parsing: "postgres://eddy:s%40cret@127.0.0.1:5433/fleet") else {
            Issue.record("not postgres")
            return
        }
        #expect(location.host == "127.0.0.1" && location.port == 5433 && location.username == "eddy")
        #expect(location.password == "s@cret" && location.database == "fleet" && location.sslMode == nil)
        #expect(!location.redacted.contains("cret"))
        guard case .postgres(let defaults) = try DatabaseLocation(parsing: "postgresql://u@db.example/x?sslmode=require") else {
            Issue.record("not postgres")
            return
        }
        #expect(defaults.port == 5432 && defaults.sslMode == .require && defaults.effectiveSSLMode.requiresTLS)
    }

    @Test(arguments: [
        ("mysql://u@h/db", "starts with neither"),
        ("sqlite:", "path is empty"),
        ("postgres://127.0.0.1:5432/db", "user name is missing"),
        ("postgres://u@127.0.0.1:5432/", "database name is missing"),
        ("postgres://u@127.0.0.1:5432/db?foo=bar", "unknown parameter"),
        ("postgres://u@127.0.0.1:5432/db?sslmode=verify", "unknown sslmode=verify"),
        ("postgres://u@:5432/db", "host is missing"),
    ])
    func malformedValuesSayWhatIsWrongAndWhatToDo(text: String, problem: String) {
        do {
            _ = try DatabaseLocation(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.problem.contains(problem), "\(error.problem)")
            #expect(error.description.contains("postgres://USER"), "the message shows a good value: \(error.description)")
        }
    }

    /// Runs the built `eddy-server serve --database URL`; returns its exit status, standard error and wall time, or
    /// nil when it is still running after 60 s (then it is killed). A process of its own, so the timing is the
    /// server's, not this parallel test run's busy cooperative pool (in-process, both checks once waited 154 s).
    func serveExit(database: String) throws -> (status: Int32, stderr: String, seconds: Double)? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = root.appendingPathComponent(".build/debug/eddy-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build eddy-server first (swift build)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-serve-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--database", database, "--port", "0"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errURL)
        let start = Date()
        try process.run()
        while process.isRunning, Date().timeIntervalSince(start) < 60 { usleep(50_000) }
        guard !process.isRunning else { process.terminate(); return nil }
        let stderr = String(decoding: FileManager.default.contents(atPath: errURL.path) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, stderr, Date().timeIntervalSince(start))
    }

    /// A port where something listens but never answers (a wrong port in --database): `eddy-server serve` stops with
    /// a clear error within seconds, not a hang. The socket is ours, so no other test can take the port meanwhile.
    @Test func silentListenerIsAClearErrorNotAHang() throws {
        let (fd, port) = try loopbackSocket(listening: true)
        defer { close(fd) }
        let exit = try #require(try serveExit(database: "postgres://eddy@127.0.0.1:\(port)/eddy"), "eddy-server still running after 60 s")
        #expect(exit.status == 2)
        // PostgresNIO's 5-s connect timeout (the probe connection's `connectTimeout`) ends it, saying what to do.
        #expect(exit.stderr.contains("127.0.0.1:\(port)") && exit.stderr.contains("--database"), "\(exit.stderr)")
        #expect(exit.seconds < 20, "\(exit.seconds) s")
    }

    /// A closed port: a clear error at once.
    @Test func unreachablePostgresIsAClearErrorNotAHang() throws {
        let port = try freeLoopbackPort()
        let exit = try #require(try serveExit(database: "postgres://eddy@127.0.0.1:\(port)/eddy"), "eddy-server still running after 60 s")
        #expect(exit.status == 2)
        #expect(exit.stderr.contains("127.0.0.1:\(port)") && exit.stderr.contains("--database"), "\(exit.stderr)")
        #expect(exit.seconds < 20, "\(exit.seconds) s")
    }

    /// A loopback TCP port that was free a moment ago.
    func freeLoopbackPort() throws -> Int {
        let (fd, port) = try loopbackSocket(listening: false)
        close(fd)
        return port
    }

    /// A TCP socket bound to a free loopback port (listening, but never accepting, when `listening`); the caller
    /// closes it.
    func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 && (!listening || listen(fd, 8) == 0)
            }
        }
        guard bound else { close(fd); throw StorageTestError("cannot bind a loopback port") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// What every backend must do alike, called on the storage and through the domain rules above it (`ServerDomain`).
@Suite struct StorageBehaviourTests {
    func report(_ cell: UInt64, time: Double) -> TileReport {
        TileReport(id: UUID(), tile: TileID(h3: cell, layer: 35), enterTime: time - 60, exitTime: time, edrPeak: 0.3, edrMedian: 0.1,
                   reporterClass: .medium, altitudeSource: .gnssFleetOffset, altitudeU90Feet: 120, layerUncertain: true)
    }

    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue

    @Test(arguments: StorageBackend.allCases)
    func ingestIsIdempotentAndFetchRoundTripsEveryField(backend: StorageBackend) async throws {
        let now = 1_800_000_000.0
        let storage = try await backend.makeStorage(now: now)
        let domain = ServerDomain(storage: storage)
        let a = report(Self.cell, time: now - 100)
        var b = report(Self.cell, time: now - 50)
        b.altitudeSource = nil
        b.altitudeU90Feet = nil
        b.layerUncertain = nil
        let rows = [a, b].map { IngestRow(report: $0, center: GeoPoint(lat: 40, lng: -100)) }
        let first = try await domain.ingest(rows, reporterId: "r_1", flightExpiry: 600, tick: 3, now: now)
        #expect(first == [a.id, b.id])
        let again = try await domain.ingest(rows, reporterId: "r_1", flightExpiry: 600, tick: 4, now: now + 1)
        #expect(again.isEmpty)
        let all = try await domain.observations(ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil))
        #expect(all.map(\.report) == [a, b])
        #expect(all.map(\.tick) == [3, 3])
        #expect(Set(all.map(\.reporterId)).count == 1 && all[0].reporterId.hasPrefix("f"))
        let delta = try await domain.observations(ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: 4))
        #expect(delta.isEmpty)
        #expect(try await !domain.hasObservations(ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: 4)))
        #expect(try await domain.hasObservations(ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: 3)))
        let square = [GeoPoint(lat: 39, lng: -101), GeoPoint(lat: 39, lng: -99), GeoPoint(lat: 41, lng: -99), GeoPoint(lat: 41, lng: -101)]
        let inside = try await domain.observations(ObservationFilter(polygon: square, minExitTime: now - 60, minLayer: 30, maxLayer: 40, minTick: nil))
        #expect(inside.map(\.report.id) == [b.id])
        let elsewhere = square.map { GeoPoint(lat: $0.lat + 10, lng: $0.lng) }
        #expect(try await domain.observations(ObservationFilter(polygon: elsewhere, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)).isEmpty)
        await storage.shutdown()
    }

    @Test(arguments: StorageBackend.allCases)
    func keysAndSessions(backend: StorageBackend) async throws {
        let storage = try await backend.makeStorage(now: 1_800_000_000)
        let (key, record) = try await storage.addKey(airline: "DAL", label: "ops", now: 1_800_000_000)
        #expect(try await storage.listKeys() == [record])
        let found = try #require(try await storage.lookupKey(key))
        #expect(found.id == record.id && found.airline == "DAL" && found.active)
        #expect(try await storage.lookupKey("eddy_nope") == nil)
        let one = try await storage.openSession(keyId: record.id, airline: "DAL", userId: "u", now: 1_800_000_000, ttl: 60)
        let two = try await storage.openSession(keyId: record.id, airline: "DAL", userId: "u", now: 1_800_000_001, ttl: 60)
        #expect(one.reporterId == two.reporterId && one.token != two.token)
        #expect(try await storage.session(token: one.token)?.reporterId == one.reporterId)
        try await storage.revokeKey(id: record.id)
        #expect(try await storage.session(token: two.token)?.keyActive == false)
        await #expect(throws: ServerDatabaseError.self) { try await storage.revokeKey(id: 999) }
        await storage.shutdown()
    }
}

/// API keys stored hashed, rotation, retention: on every backend (issue 14, deliverables 5 and 6).
@Suite struct KeyAndRetentionTests {
    @Test(arguments: StorageBackend.allCases)
    func keysAreStoredHashedAndRotate(backend: StorageBackend) async throws {
        let now = 1_800_000_000.0
        let storage = try await backend.makeStorage(now: now)
        let (key, record) = try await storage.addKey(airline: "DAL", label: "ops", now: now)
        #expect(key.hasPrefix("eddy_") && key.count == 53)
        #expect(record.prefix == String(key.prefix(10)))
        #expect(try await storage.listKeys().map(\.prefix) == [String(key.prefix(10))])
        // What is stored is the hash: it finds nothing when presented as a key, the key finds its row.
        #expect(StorageSupport.apiKeyHash(key).hasPrefix("sha256:") && StorageSupport.apiKeyHash(key).count == 71)
        #expect(try await storage.lookupKey(StorageSupport.apiKeyHash(key)) == nil)
        #expect(try await storage.lookupKey(key)?.id == record.id)
        // Rotation keeping the old key: both work; then rotating with revocation: only the newest works.
        let (kept, keptRecord) = try await storage.rotateKey(id: record.id, revokingOld: false, now: now + 1)
        #expect(kept != key && keptRecord.airline == "DAL" && keptRecord.label == "ops")
        #expect(try await storage.lookupKey(key)?.active == true)
        #expect(try await storage.lookupKey(kept)?.active == true)
        let (newest, newestRecord) = try await storage.rotateKey(id: keptRecord.id, revokingOld: true, now: now + 2)
        #expect(try await storage.lookupKey(kept)?.active == false)
        let newestFound = try await storage.lookupKey(newest)
        #expect(newestFound?.id == newestRecord.id && newestFound?.active == true)
        await #expect(throws: ServerDatabaseError.self) { _ = try await storage.rotateKey(id: 999, revokingOld: true, now: now) }
        await storage.shutdown()
    }

    /// A server database made before keys were hashed (v3, the key in plain text) keeps its key working: the v4
    /// migration hashes it in place and the plain key is gone from the file.
    @Test func sqliteKeysIssuedBeforeHashingStillWork() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-keys-v3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("old.sqlite").path
        let plain = "eddy_" + String(repeating: "ab", count: 24)
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteServerStorage.migrator.migrate(queue, upTo: "v3-private-live-flights")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO api_keys (key, airline, label, active, created_at) VALUES (?, 'DAL', 'old', 1, 0)",
                               arguments: [plain])
            }
        }
        let storage = try SQLiteServerStorage(path: path)
        #expect(try await storage.lookupKey(plain)?.airline == "DAL")
        #expect(try storage.listKeys().map(\.prefix) == ["eddy_ababa"])
        let stored = try await DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT key FROM api_keys") }
        #expect(stored == [StorageSupport.apiKeyHash(plain)])
    }

    /// Airline-private data on every backend (the rule is `ServerDomain`'s, over each storage): airline B sees A's
    /// aircraft but not its flight number, nor the id the uploader chose (it may name the pilot), nor the reporter; a
    /// second reporter of A sees the number.
    @Test(arguments: StorageBackend.allCases)
    func anotherAirlineCannotReadPrivateFlightData(backend: StorageBackend) async throws {
        let now = 1_800_000_000.0
        let storage = try await backend.makeStorage(now: now)
        let domain = ServerDomain(storage: storage)
        let flight = LiveFlight(flightID: "DAL-pilot-jane", latitude: 40, longitude: -100, altitudeFeet: 35_000,
                                headingDegrees: 90, groundSpeedKnots: 450, aircraftType: "B738", flightNumber: "DL123", time: now)
        try await domain.upsertFlight(flight, reporterId: "r_dal_1", airline: "DAL", now: now, expiry: 600, altitudeOffset: nil,
                                      altitudeOffsetsOlderThan: nil)
        let other = try await domain.flights(polygon: nil, now: now, expiry: 600, excludingReporter: "r_ual_1", viewerAirline: "UAL")
        let same = try await domain.flights(polygon: nil, now: now, expiry: 600, excludingReporter: "r_dal_2", viewerAirline: "DAL")
        #expect(other.count == 1 && other[0].aircraftType == "B738" && other[0].flightNumber == nil)
        #expect(same.count == 1 && same[0].flightNumber == "DL123")
        for seen in other + same {
            #expect(!seen.flightID.contains("pilot") && !seen.flightID.contains("DAL") && !seen.flightID.contains("r_dal"))
        }
        let own = try await domain.flights(polygon: nil, now: now, expiry: 600, excludingReporter: "r_dal_1", viewerAirline: "DAL")
        #expect(own.isEmpty)
        await storage.shutdown()
    }

    @Test(arguments: StorageBackend.allCases)
    func retentionPurgesOldReportsOnly(backend: StorageBackend) async throws {
        let day = 86_400.0, now = 1_800_000_000.0, old = now - 40 * day
        // Opened 40 days ago (PostgreSQL made that day's partitions then), kept up until now.
        let storage = try await backend.makeStorage(now: old)
        let domain = ServerDomain(storage: storage)
        func report(exit: Double) -> IngestRow {
            IngestRow(report: TileReport(id: UUID(), tile: TileID(h3: StorageBehaviourTests.cell, layer: 35), enterTime: exit - 60,
                                         exitTime: exit, edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium),
                      center: GeoPoint(lat: 40, lng: -100))
        }
        let rows = [report(exit: old - 2 * day), report(exit: old), report(exit: now - day), report(exit: now)]
        _ = try await domain.ingest(Array(rows[..<2]), reporterId: "r_1", flightExpiry: 600, tick: 1, now: old)
        try await storage.maintain(now: now)
        _ = try await domain.ingest(Array(rows[2...]), reporterId: "r_1", flightExpiry: 600, tick: 2, now: now)
        #expect(try await storage.purgeReports(exitBefore: now - 30 * day) == 2)
        let all = ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil)
        #expect(try await Set(domain.observations(all).map(\.report.id)) == Set(rows[2...].map(\.report.id)))
        #expect(try await storage.purgeReports(exitBefore: now - 30 * day) == 0)
        // The purged reports' upload ids are forgotten with them: a late re-upload is taken again (and purged next hour).
        #expect(try await domain.ingest([rows[1]], reporterId: "r_1", flightExpiry: 600, tick: 3, now: now) == [rows[1].report.id])
        await storage.shutdown()
    }
}

/// PostgreSQL only: what several instances on one database rely on.
@Suite struct PostgresInstancesTests {
    @Test("two PostgreSQL instances: one epoch, each report stored once, migrations idempotent (skipped without EDDY_TEST_POSTGRES_URL)")
    func twoInstancesShareEpochAndStoreEachReportOnce() async throws {
        let first = try await StorageBackend.postgres.makeStorage(now: 1_800_000_000)
        let postgres = try #require(first as? PostgresServerStorage)
        // A second instance on the same database, opened later: same epoch, migrations not applied twice.
        let second = try await PostgresServerStorage.open(postgres.location, now: 1_800_009_999, logger: StorageBackend.quiet)
        #expect(second.tickEpoch(now: 0) == 1_800_000_000)
        let reports = (0..<50).map { i in
            TileReport(id: UUID(), tile: TileID(h3: StorageBehaviourTests.cell, layer: i % 40), enterTime: 1_799_999_000,
                       exitTime: 1_799_999_100, edrPeak: 0.2, edrMedian: 0.1, reporterClass: .large)
        }
        let rows = reports.map { IngestRow(report: $0, center: GeoPoint(lat: 40, lng: -100)) }
        // The same batch to both instances at once: together they store each report once.
        async let a = ServerDomain(storage: first).ingest(rows, reporterId: "r_a", flightExpiry: 600, tick: 1, now: 1_800_000_000)
        async let b = ServerDomain(storage: second).ingest(rows, reporterId: "r_b", flightExpiry: 600, tick: 1, now: 1_800_000_000)
        let (freshA, freshB) = try await (a, b)
        #expect(freshA.isDisjoint(with: freshB))
        #expect(freshA.union(freshB) == Set(reports.map(\.id)))
        let stored = try await ServerDomain(storage: second).observations(
            ObservationFilter(polygon: nil, minExitTime: 0, minLayer: -2, maxLayer: 99, minTick: nil))
        #expect(stored.count == 50)
        await second.shutdown()
        await first.shutdown()
    }
}
#endif
