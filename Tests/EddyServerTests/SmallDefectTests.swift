#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// The smaller defects of issue 30, one test each.
@Suite struct SmallDefectTests {
    static let now = 1_800_000_000.0

    /// A server on `storage` at the frozen `now`; `body` gets the client and an API key of airline DAL.
    func withServer(
        _ storage: any ServerStorage, _ configure: (inout ServerOptions) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let key = try await storage.addKey(airline: "DAL", label: "test", now: Self.now).key
        var options = ServerOptions()
        configure(&options)
        let service = try SyncService(database: storage, clock: ManualEpochClock(start: Self.now), options: options, logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
        try await app.test(.router) { client in try await body(client, key) }
        await storage.shutdown()
    }

    static func bearer(_ client: any TestClientProtocol, _ key: String) async throws -> HTTPFields {
        let started = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(bytes: try JSONEncoder().encode(
            SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0"))))
        let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: started.body)).token
        return [.authorization: "Bearer \(token)"]
    }

    static let cell = PageTests.cells[0].cell

    /// A report batch as a Python client writes it: lower-case ids.
    static func lowerCaseBatch(_ ids: [String]) -> ByteBuffer {
        let reports = ids.map { id in
            #"{"id":"\#(id)","tile":{"h3":\#(cell),"layer":35},"enterTime":\#(now - 120),"exitTime":\#(now - 60),"edrPeak":0.2,"edrMedian":0.1,"reporterClass":"medium"}"#
        }
        return ByteBuffer(string: #"{"reports":[\#(reports.joined(separator: ","))]}"#)
    }

    @Test func acceptedIdsComeBackLowerCaseAsSent() async throws {
        try await withServer(InMemoryServerStorage()) { client, key in
            let auth = try await Self.bearer(client, key)
            let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
            let answer = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.lowerCaseBatch(ids))
            #expect(answer.status == .ok)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
            #expect(object["acceptedIds"] as? [String] == ids, "\(object)")
            // The typed client still decodes them.
            #expect(try JSONDecoder().decode(ReportBatchAck.self, from: Data(buffer: answer.body)).acceptedIds.map(\.uuidString) == ids.map { $0.uppercased() })
        }
    }

    @Test(arguments: [
        (nil, "1.0.0", 200), (nil, "1.2.0", 426), ("garbage", "1.0.0", 400), ("", "1.0.0", 400),
        ("1.1.9", "1.2.0", 426), ("1.2.0", "1.2.0", 200), (" 2.0.0", "1.2.0", 200), ("2", "1.2.0", 200),
        // What the OpenAPI pattern `^[0-9]{1,6}(\.[0-9]{1,6}){0,2}$` refuses, the server refuses too.
        ("+2.0.0", "1.0.0", 400), ("-0", "1.0.0", 400), ("1.0.0.0", "1.0.0", 400), ("1..0", "1.0.0", 400),
        ("1234567.0.0", "1.0.0", 400),
    ] as [(String?, String, Int)])
    func theClientVersionHeaderCannotBypassTheMinimum(header: String?, minimum: String, status: Int) async throws {
        try await withServer(InMemoryServerStorage(), { $0.minimumClientVersion = WireVersion(minimum)! }) { client, _ in
            var headers: HTTPFields = [:]
            if let header { headers[HTTPField.Name(EddyWire.clientVersionHeader)!] = header }
            let answer = try await client.execute(uri: "/v1/tick", method: .get, headers: headers)
            #expect(answer.status.code == status, "\(String(buffer: answer.body))")
            if status != 200 {
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: answer.body))
                #expect(error.error == (status == 400 ? "badRequest" : "clientTooOld"))
            }
        }
    }

    @Test func unknownPathsAre404AndWrongMethods405WithTheErrorBody() async throws {
        try await withServer(InMemoryServerStorage(), { $0.testHooks = true }) { client, _ in
            let missing = try await client.execute(uri: "/v1/nothing", method: .get)
            #expect(missing.status == .notFound)
            #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: missing.body)).error == "notFound")
            let table = HTTPRoutes.methods(testHooks: true, metrics: true)
            #expect(table.count == 13)
            for (path, allowed) in table {
                let other: HTTPRequest.Method = allowed.contains(.get) ? .delete : .get
                let refused = try await client.execute(uri: path, method: other)
                #expect(refused.status == .methodNotAllowed, "\(other) \(path): \(refused.status)")
                #expect(refused.headers[.allow] == allowed.map(\.rawValue).joined(separator: ", "))
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body))
                #expect(error.error == "methodNotAllowed" && error.message.contains(path), "\(error.message)")
                // The table's method reaches a route (whatever it then answers: 401 without a token, 400 without a body).
                let routed = try await client.execute(uri: path, method: allowed[0])
                #expect(![404, 405].contains(routed.status.code), "\(allowed[0]) \(path): \(routed.status)")
            }
        }
    }

    @Test func aPositionFromTheFarFutureIsRefused() async throws {
        try await withServer(InMemoryServerStorage()) { client, key in
            let auth = try await Self.bearer(client, key)
            func upload(time: Double) async throws -> TestResponse {
                let flight = LiveFlight(flightID: "f1", latitude: 40, longitude: -100, altitudeFeet: 35_000, headingDegrees: 90,
                                        groundSpeedKnots: 450, aircraftType: "B738", time: time)
                return try await client.execute(uri: "/v1/position", method: .post, headers: auth,
                                                body: ByteBuffer(bytes: try JSONEncoder().encode(PositionUploadBody(position: flight))))
            }
            let future = try await upload(time: 1e12)
            #expect(future.status == .badRequest)
            #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: future.body)).message.contains("position time"))
            #expect(try await upload(time: Self.now + 500).status == .ok, "within the allowed clock skew")
        }
    }

    @Test func sqliteThatRefusesWritesIsNotReadyUntilItWritesAgain() async throws {
        let storage = try #require(try await StorageBackend.sqlite.makeStorage(now: Self.now) as? SQLiteServerStorage)
        try await withServer(storage) { client, key in
            let auth = try await Self.bearer(client, key)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            // The database may not grow any more: SQLite's own "database or disk is full" (SQLITE_FULL) on every write
            // that needs a page, as on a full disk.
            try await storage.pool.write { db in
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                try db.execute(sql: "PRAGMA max_page_count = \(pages + 2)")
            }
            var refused = 0
            for _ in 0..<20 where refused == 0 {
                let batch = ReportBatch(reports: (0..<100).map { _ in
                    TileReport(id: UUID(), tile: TileID(h3: Self.cell, layer: 35), enterTime: Self.now - 120, exitTime: Self.now - 60,
                               edrPeak: 0.2, edrMedian: 0.1, reporterClass: .medium)
                })
                let answer = try await client.execute(uri: "/v1/reports", method: .post, headers: auth,
                                                      body: ByteBuffer(bytes: try JSONEncoder().encode(batch)))
                if answer.status == .serviceUnavailable { refused += 1 } else { #expect(answer.status == .ok) }
            }
            #expect(refused == 1, "an upload is refused once the database cannot grow")
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable, "still, on the next probe")
            try await storage.pool.write { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok, "the probe write succeeds: ready again")
        }
    }

    @Test func upkeepFailuresAreLoggedWhenTheyStartOnceAMinuteAndWhenTheyEnd() {
        let lines = CapturedLines()
        var log = UpkeepFailureLog(logger: Logger(label: "upkeep-test") { _ in CapturingLogHandler(lines: lines) })
        struct Down: Error {}
        for second in 0..<150 { log.failed(Down(), now: Self.now + Double(second)) }
        log.succeeded(now: Self.now + 150)
        log.succeeded(now: Self.now + 151)
        let seen = lines.all.map { "\($0.level) \($0.message) \($0.metadata["failures"] ?? "")" }
        #expect(seen == [
            "error storage upkeep failed 1", "error storage upkeep still failing 61", "error storage upkeep still failing 121",
            "notice storage upkeep works again 150",
        ])
    }
}
#endif
