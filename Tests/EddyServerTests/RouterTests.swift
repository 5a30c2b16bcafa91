#if Tools
import EddyH3
import EddyProtocol
import EddyServerKit
import EddySupport
import EddyVocabulary
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing

/// In-process tests of the router and its middleware chain (`app.test(.router)`: no sockets), next to the
/// loopback tests that run the `eddy-server` executable. They use only the library's `package` API. (`.live` was tried
/// to avoid router mode's leaked test channels, but its client's fixed 20-s read timeout failed a loaded CI run;
/// the leak is HummingbirdTesting's and is suppressed with its reason in scripts/sanitizers/lsan-suppressions.txt.)
@Suite struct RouterTests {
    /// A valid H3 resolution-5 cell.
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue

    /// Runs `body` against a fresh server (temporary database, one key for DAL) in process.
    func withServer(
        _ backend: StorageBackend,
        clock: any EpochClock = SystemEpochClock(),
        _ configure: (inout ServerOptions) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let database = try await backend.makeStorage()
        let key = try await database.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        var options = ServerOptions()
        configure(&options)
        let logger = Logger(label: "router-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = try SyncService(database: database, clock: clock, options: options, logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil)
        try await app.test(.router) { client in try await body(client, key) }
    }

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
    }

    /// Starts a session and returns its bearer token.
    static func session(_ client: any TestClientProtocol, key: String) async throws -> String {
        let request = SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")
        let response = try await client.execute(uri: "/v1/session", method: .post, body: json(request))
        #expect(response.status == .ok)
        return try decode(SessionStartResponse.self, response).token
    }

    static func report(exitTime: Double) -> TileReport {
        TileReport(id: UUID(), tile: TileID(h3: cell, layer: 35), enterTime: exitTime - 60, exitTime: exitTime,
                   edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium)
    }

    @Test(arguments: StorageBackend.allCases) func missingOrUnknownTokenIs401WithTheErrorBody(backend: StorageBackend) async throws {
        try await withServer(backend) { client, _ in
            let fetch = try Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global))
            let missing = try await client.execute(uri: "/v1/fetch", method: .post, body: fetch)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.contentType] == "application/json")
            #expect(try Self.decode(ErrorBody.self, missing) == ErrorBody(
                error: "unauthorized", message: "missing `Authorization: Bearer <token>`; start a session at POST /v1/session"))
            let unknown = try await client.execute(uri: "/v1/fetch", method: .post, headers: [.authorization: "Bearer nope"], body: fetch)
            #expect(unknown.status == .unauthorized)
            #expect(try Self.decode(ErrorBody.self, unknown) == ErrorBody(
                error: "sessionExpired", message: "the session token is unknown or expired; start a new session"))
        }
    }

    @Test(arguments: StorageBackend.allCases) func oldClientVersionIs426(backend: StorageBackend) async throws {
        try await withServer(backend, { $0.minimumClientVersion = WireVersion("1.2.0")! }) { client, _ in
            let old = try await client.execute(uri: "/v1/tick", method: .get, headers: [.init(EddyWire.clientVersionHeader)!: "1.1.9"])
            #expect(old.status.code == 426)
            #expect(try Self.decode(ErrorBody.self, old) == ErrorBody(
                error: "clientTooOld", message: "client version too old; 1.2.0 or newer is required"))
            let current = try await client.execute(uri: "/v1/tick", method: .get, headers: [.init(EddyWire.clientVersionHeader)!: "1.2.0"])
            #expect(current.status == .ok)
        }
    }

    @Test(arguments: StorageBackend.allCases) func oversizedBodyIs413(backend: StorageBackend) async throws {
        try await withServer(backend, { $0.settings.maxRequestBytes = 100 }) { client, _ in
            let response = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(repeating: UInt8(ascii: " "), count: 101))
            #expect(response.status == .contentTooLarge)
            #expect(try Self.decode(ErrorBody.self, response) == ErrorBody(error: "payloadTooLarge", message: "request body over 100 bytes"))
        }
    }

    @Test(arguments: StorageBackend.allCases) func malformedJSONIs400WithTheDecoderExplanation(backend: StorageBackend) async throws {
        try await withServer(backend) { client, key in
            let broken = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(string: "{\"apiKey\": "))
            #expect(broken.status == .badRequest)
            let body = try Self.decode(ErrorBody.self, broken)
            #expect(body.error == "badRequest")
            #expect(body.message.hasPrefix("invalid JSON for SessionStartRequest"))
            let missingKey = try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(string: "{\"apiKey\": \"\(key)\"}"))
            #expect(missingKey.status == .badRequest)
            #expect(try Self.decode(ErrorBody.self, missingKey).message == "invalid JSON for SessionStartRequest: body: missing key airline")
        }
    }

    @Test(arguments: StorageBackend.allCases) func uploadThenFullAndDeltaFetch(backend: StorageBackend) async throws {
        // A clock that does not move: "stored in this very tick" must not depend on a 60-s tick boundary falling
        // between the upload and the fetch (it did once on a loaded machine).
        // The reports are dated by that clock too: dated by the wall clock they came from the server's future once the
        // test had waited long enough for its turn (AddressSanitizer, every suite in parallel) and were refused.
        let start = Date().timeIntervalSince1970
        try await withServer(backend, clock: ManualEpochClock(start: start)) { client, key in
            let token = try await Self.session(client, key: key)
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let reports = (0..<3).map { _ in Self.report(exitTime: start - 100) }
            let upload = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            #expect(upload.status == .ok)
            let ack = try Self.decode(ReportBatchAck.self, upload)
            #expect(ack.newCount == 3 && ack.duplicateCount == 0 && Set(ack.acceptedIds) == Set(reports.map(\.id)))
            let again = try Self.decode(ReportBatchAck.self, try await client.execute(
                uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports))))
            #expect(again.newCount == 0 && again.duplicateCount == 3)

            let full = try await client.execute(
                uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global)))
            #expect(full.status == .ok)
            let all = try Self.decode(DeltaFetchResponse.self, full)
            #expect(all.full && Set(all.observations.map(\.report.id)) == Set(reports.map(\.id)))
            let deltaRequest = DeltaFetchRequest(dataType: .turbulence, area: .global, sinceTick: all.serverTick)
            let delta = try Self.decode(DeltaFetchResponse.self, try await client.execute(
                uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(deltaRequest)))
            #expect(!delta.full)
            #expect(Set(delta.observations.map(\.report.id)) == Set(reports.map(\.id)))   // stored in this very tick
            let later = DeltaFetchRequest(dataType: .turbulence, area: .global, sinceTick: all.serverTick + 1)
            let none = try await client.execute(uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(later))
            #expect(try Self.decode(DeltaFetchResponse.self, none).full)   // a tick from the future: full refresh
        }
    }

    @Test(arguments: StorageBackend.allCases) func typedFaultsApplyOncePerRequestAndUnknownKindsAre400(backend: StorageBackend) async throws {
        try await withServer(backend, { $0.testHooks = true }) { client, _ in
            let plan = FaultPlan(faults: [FaultRule(.status500, path: "/v1/tick"), FaultRule(.malformed, path: "/v1/tick")])
            let queued = try await client.execute(uri: "/v1/_test/faults", method: .post, body: Self.json(plan))
            #expect(queued.status == .ok)
            let failed = try await client.execute(uri: "/v1/tick", method: .get)
            #expect(failed.status == .internalServerError)
            #expect(try Self.decode(ErrorBody.self, failed) == ErrorBody(error: "internal", message: "injected fault"))
            let malformed = try await client.execute(uri: "/v1/tick", method: .get)
            #expect(malformed.status == .ok)
            #expect((try? Self.decode(TickResponse.self, malformed)) == nil)
            #expect(try await client.execute(uri: "/v1/tick", method: .get).status == .ok)   // queue drained
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)

            let unknown = try await client.execute(
                uri: "/v1/_test/faults", method: .post, body: ByteBuffer(string: #"{"faults":[{"kind":"explode"}]}"#))
            #expect(unknown.status == .badRequest)
            let message = try Self.decode(ErrorBody.self, unknown).message
            #expect(message.contains("unknown fault kind \"explode\""))
            #expect(message.contains("status500, malformed, delay, hangAfterCommit"))
            // A wait no Duration can hold (or a negative one) is refused up front, not slept on.
            for seconds in ["1e300", "3600.5", "-1"] {
                let tooLong = try await client.execute(
                    uri: "/v1/_test/faults", method: .post, body: ByteBuffer(string: #"{"faults":[{"kind":"delay","seconds":"# + seconds + "}]}"))
                #expect(tooLong.status == .badRequest, "seconds \(seconds)")
                #expect(try Self.decode(ErrorBody.self, tooLong).message.contains("seconds must be 0…3600"))
            }
            // The wire strings decode into the enum, with the documented default waits.
            let wire = #"{"faults":[{"kind":"delay","path":"/v1/reports"},{"kind":"hangAfterCommit","seconds":2}]}"#
            #expect(try JSONDecoder().decode(FaultPlan.self, from: Data(wire.utf8)) == FaultPlan(faults: [
                FaultRule(.delay(seconds: 5), path: "/v1/reports"), FaultRule(.hangAfterCommit(seconds: 2)),
            ]))
        }
    }

    @Test(arguments: StorageBackend.allCases) func testHookRoutesExistOnlyWithTestHooks(backend: StorageBackend) async throws {
        try await withServer(backend) { client, _ in
            let plan = try Self.json(FaultPlan(faults: [FaultRule(.status500)]))
            #expect(try await client.execute(uri: "/v1/_test/faults", method: .post, body: plan).status == .notFound)
            #expect(try await client.execute(uri: "/v1/tick", method: .get).status == .ok)
        }
    }

    @Test(arguments: StorageBackend.allCases) func rateLimitIs429WithRetryAfter(backend: StorageBackend) async throws {
        // Time stands still (5 s ahead of the position's time stamp): the wait is exactly one token's refill, 60 s.
        let positionTime = Date().timeIntervalSince1970.rounded(.down)
        let frozen = ManualEpochClock(start: positionTime + 5)
        try await withServer(backend, clock: frozen, { $0.rateLimitPerMinute = 1; $0.rateLimitBurst = 2 }) { client, key in
            let token = try await Self.session(client, key: key)
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let position = LiveFlight(flightID: "DAL1", latitude: 10, longitude: 10, altitudeFeet: 35000, headingDegrees: 90,
                                      groundSpeedKnots: 450, aircraftType: "B738", time: positionTime)
            for _ in 0..<2 {
                #expect(try await client.execute(uri: "/v1/position", method: .post, headers: auth, body: Self.json(position)).status == .ok)
            }
            let limited = try await client.execute(uri: "/v1/position", method: .post, headers: auth, body: Self.json(position))
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "60")
            #expect(try Self.decode(ErrorBody.self, limited).error == "rateLimited")
        }
    }

    @Test(arguments: StorageBackend.allCases) func largeAnswersAreGzippedWhenAccepted(backend: StorageBackend) async throws {
        try await withServer(backend) { client, key in
            let token = try await Self.session(client, key: key)
            let reports = (0..<20).map { _ in Self.report(exitTime: Date().timeIntervalSince1970 - 100) }
            var auth: HTTPFields = [.authorization: "Bearer \(token)"]
            _ = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(ReportBatch(reports: reports)))
            auth[.acceptEncoding] = "gzip"
            let fetch = try await client.execute(
                uri: "/v1/fetch", method: .post, headers: auth, body: Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global)))
            #expect(fetch.status == .ok)
            #expect(fetch.headers[.contentEncoding] == "gzip")
        }
    }
}
#endif
