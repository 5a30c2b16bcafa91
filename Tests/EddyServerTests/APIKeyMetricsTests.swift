#if Tools
import EddyH3
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// `eddy_api_key_requests_total` (issue 30, deliverable 6 "per-key counters"): every request made with a known key is
/// counted against the key's row id and airline by outcome, the secret never shows, and the series are bounded.
@Suite struct APIKeyMetricsTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }

    static func report() -> TileReport {
        let exit = Date().timeIntervalSince1970 - 120
        return TileReport(id: UUID(), tile: TileID(h3: cell, layer: 35), enterTime: exit - 60, exitTime: exit, edrPeak: 0.3,
                          edrMedian: 0.1, reporterClass: .medium)
    }

    static func startSession(_ client: any TestClientProtocol, key: String, airline: String) async throws -> (status: HTTPResponse.Status, token: String?) {
        let request = SessionStartRequest(apiKey: key, airline: airline, userId: "u1", clientVersion: "1.0.0")
        let response = try await client.execute(uri: "/v1/session", method: .post, body: json(request))
        guard response.status == .ok else { return (response.status, nil) }
        return (response.status, try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: response.body)).token)
    }

    @Test func requestsAreCountedPerKeyByOutcomeWithoutTheSecret() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-key-metrics-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = try SQLiteServerStorage(path: dir.appendingPathComponent("s.sqlite").path)
        let now = Date().timeIntervalSince1970
        let (dalKey, dal) = try await database.addKey(airline: "DAL", label: "dal", now: now)
        let (ualKey, ual) = try await database.addKey(airline: "UAL", label: "ual", now: now)
        var options = ServerOptions()
        options.rateLimitPerMinute = 0.001   // a burst of 3 requests per session, refilled after 1,000 minutes
        options.rateLimitBurst = 3
        let logger = Logger(label: "key-metrics-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = try SyncService(database: database, clock: SystemEpochClock(), options: options, logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil)
        try await app.test(.router) { client in
            // DAL: a session (ok), two uploads (ok), a fetch whose body is not JSON (client_error), then 429 (rate_limited).
            let dalToken = try #require(try await Self.startSession(client, key: dalKey, airline: "DAL").token)
            let dalAuth: HTTPFields = [.authorization: "Bearer \(dalToken)"]
            for _ in 0..<2 {
                let upload = try await client.execute(uri: "/v1/reports", method: .post, headers: dalAuth,
                                                      body: Self.json(ReportBatch(reports: [Self.report()])))
                #expect(upload.status == .ok)
            }
            let garbage = try await client.execute(uri: "/v1/fetch", method: .post, headers: dalAuth, body: ByteBuffer(string: "{"))
            #expect(garbage.status == .badRequest)
            let limited = try await client.execute(uri: "/v1/fetch", method: .post, headers: dalAuth,
                                                   body: Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global)))
            #expect(limited.status == .tooManyRequests)
            // UAL: a session start under the wrong airline (refused), a session (ok), then the key revoked: refused.
            #expect(try await Self.startSession(client, key: ualKey, airline: "SWR").status == .forbidden)
            let ualToken = try #require(try await Self.startSession(client, key: ualKey, airline: "UAL").token)
            try database.revokeKey(id: ual.id)
            let revoked = try await client.execute(uri: "/v1/fetch", method: .post, headers: [.authorization: "Bearer \(ualToken)"],
                                                   body: Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global)))
            #expect(revoked.status == .forbidden)
            // No key known: an unknown key and a request without a token are not counted against any key.
            #expect(try await Self.startSession(client, key: "eddy_not_a_key", airline: "DAL").status == .unauthorized)
            let anonymous = try await client.execute(uri: "/v1/fetch", method: .post, body: ByteBuffer(string: "{}"))
            #expect(anonymous.status == .unauthorized)

            let response = try await client.execute(uri: "/metrics", method: .get)
            let text = String(buffer: response.body)
            let metrics = try PrometheusText(text)
            let name = "eddy_api_key_requests_total"
            let dalId = String(dal.id), ualId = String(ual.id)
            #expect(metrics.value(name, ["key": dalId, "airline": "DAL", "outcome": "ok"]) == 3)
            #expect(metrics.value(name, ["key": dalId, "airline": "DAL", "outcome": "client_error"]) == 1)
            #expect(metrics.value(name, ["key": dalId, "airline": "DAL", "outcome": "rate_limited"]) == 1)
            #expect(metrics.value(name, ["key": ualId, "airline": "UAL", "outcome": "ok"]) == 1)
            #expect(metrics.value(name, ["key": ualId, "airline": "UAL", "outcome": "refused"]) == 2)
            let series = metrics.samples.filter { $0.name == name }
            #expect(series.count == 5, "\(series)")
            #expect(series.reduce(0) { $0 + $1.value } == 8)   // the unknown key and the anonymous request: no key
            #expect(text.contains("# HELP \(name) "))
            // Neither secret nor its stored prefix is in the exposition.
            for secret in [dalKey, ualKey, dal.prefix, ual.prefix] { #expect(!text.contains(secret), "\(secret) exposed") }
        }
    }

    @Test func keysPastTheBoundAreCountedTogether() throws {
        let metrics = ServerMetrics(maxAPIKeySeries: 2)
        for (id, status) in [(1, 200), (2, 429), (3, 200), (4, 503), (1, 403), (3, 200)] {
            metrics.recordAPIKeyRequest(APIKeyNote(id: Int64(id), airline: "DAL"), status: status)
        }
        let parsed = try PrometheusText(metrics.exposition())
        let name = "eddy_api_key_requests_total"
        #expect(parsed.value(name, ["key": "1", "airline": "DAL", "outcome": "ok"]) == 1)
        #expect(parsed.value(name, ["key": "1", "airline": "DAL", "outcome": "refused"]) == 1)
        #expect(parsed.value(name, ["key": "2", "airline": "DAL", "outcome": "rate_limited"]) == 1)
        #expect(parsed.value(name, ["key": "other", "airline": "other", "outcome": "ok"]) == 2)
        #expect(parsed.value(name, ["key": "other", "airline": "other", "outcome": "server_error"]) == 1)
        #expect(!parsed.samples.contains { $0.name == name && ["3", "4"].contains($0.labels["key"]) })
    }

    @Test func outcomesFollowTheStatus() {
        let outcomes = [200, 204, 303, 400, 401, 403, 404, 413, 426, 429, 500, 503].map { ServerMetrics.apiKeyOutcome(status: $0) }
        #expect(outcomes == ["ok", "ok", "ok", "client_error", "client_error", "refused", "client_error", "client_error",
                             "client_error", "rate_limited", "server_error", "server_error"])
    }
}
#endif
