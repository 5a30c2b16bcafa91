#if Tools
import EddyH3
import EddyProtocol
import EddyServerKit
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Synchronization
import Testing

/// `/metrics`, request ids in responses and logs, `/healthz` and `/readyz` (Observability.swift, ServerMetrics.swift).
@Suite struct ObservabilityTests {
    static let cell = try! H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5).rawValue
    static let requestIdHeader = HTTPField.Name("X-Request-Id")!

    /// A fresh in-process server (temporary database, one key for DAL), with `logger` and `readiness`.
    func withServer(
        logger: Logger = Logger(label: "observability-test", factory: { _ in SwiftLogNoOpLogHandler() }),
        readiness: ReadinessProbe? = nil,
        _ configure: (inout ServerOptions) -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-observability-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = try SQLiteServerStorage(path: dir.appendingPathComponent("s.sqlite").path)
        let key = try await database.addKey(airline: "DAL", label: "test", now: Date().timeIntervalSince1970).key
        var options = ServerOptions()
        configure(&options)
        let service = try SyncService(database: database, clock: SystemEpochClock(), options: options, logger: logger)
        let app = EddyServerApplication.make(service: service, logger: logger, checkpointInterval: nil, readiness: readiness)
        try await app.test(.router) { client in try await body(client, key) }
    }

    static func json(_ value: some Encodable) throws -> ByteBuffer { ByteBuffer(bytes: try JSONEncoder().encode(value)) }

    static func session(_ client: any TestClientProtocol, key: String, headers: HTTPFields = [:]) async throws -> String {
        let request = SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0")
        let response = try await client.execute(uri: "/v1/session", method: .post, headers: headers, body: json(request))
        #expect(response.status == .ok)
        return try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: response.body)).token
    }

    static func report(layer: Int = 35) -> TileReport {
        let exit = Date().timeIntervalSince1970 - 120
        return TileReport(id: UUID(), tile: TileID(h3: cell, layer: layer), enterTime: exit - 60, exitTime: exit,
                          edrPeak: 0.3, edrMedian: 0.1, reporterClass: .medium)
    }

    /// Scrapes `/metrics` and parses the text format.
    static func scrape(_ client: any TestClientProtocol) async throws -> PrometheusText {
        let response = try await client.execute(uri: "/metrics", method: .get)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
        return try PrometheusText(String(buffer: response.body))
    }

    @Test func countersMoveWithRequestsIngestRejectionsAndSessions() async throws {
        try await withServer { client, key in
            let before = try await Self.scrape(client)
            #expect(before.value("eddy_sessions_opened_total") == nil)
            let token = try await Self.session(client, key: key)
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let batch = ReportBatch(reports: [Self.report(), Self.report(), Self.report(layer: 120)])
            for _ in 0..<2 {
                let upload = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: Self.json(batch))
                #expect(upload.status == .ok)
            }
            let unauthenticated = try await client.execute(
                uri: "/v1/fetch", method: .post, body: Self.json(DeltaFetchRequest(dataType: .turbulence, area: .global)))
            #expect(unauthenticated.status == .unauthorized)
            _ = try await client.execute(uri: "/no/such/path/\(UUID().uuidString)", method: .get)

            let after = try await Self.scrape(client)
            #expect(after.value("eddy_sessions_opened_total") == 1)
            #expect(after.value("eddy_http_requests_total", ["route": "/v1/session", "method": "POST", "status": "200"]) == 1)
            #expect(after.value("eddy_http_requests_total", ["route": "/v1/reports", "method": "POST", "status": "200"]) == 2)
            #expect(after.value("eddy_http_requests_total", ["route": "/v1/fetch", "method": "POST", "status": "401"]) == 1)
            #expect(after.value("eddy_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]) == 1)
            #expect(after.value("eddy_http_requests_total", ["route": "/metrics", "method": "GET", "status": "200"]) == 1)
            #expect(after.value("eddy_reports_ingested_total", ["outcome": "new"]) == 2)
            #expect(after.value("eddy_reports_ingested_total", ["outcome": "duplicate"]) == 2)
            #expect(after.value("eddy_rejections_total", ["reason": "report_layer"]) == 2)
            #expect(after.value("eddy_rejections_total", ["reason": "unauthorized"]) == 1)
            #expect(after.value("eddy_http_request_duration_seconds_count", ["route": "/v1/reports", "method": "POST"]) == 2)
            let sum = try #require(after.value("eddy_http_request_duration_seconds_sum", ["route": "/v1/reports", "method": "POST"]))
            #expect(sum > 0 && sum < 60)
            // Cumulative buckets: the +Inf bucket holds every observation.
            #expect(after.value("eddy_http_request_duration_seconds_bucket", ["route": "/v1/reports", "method": "POST", "le": "+Inf"]) == 2)
            #expect(after.value("eddy_http_requests_in_flight") == 1)   // the scrape itself
            // No path of the 404 became a label value.
            #expect(!after.samples.contains { $0.labels.values.contains { $0.hasPrefix("/no/such") } })
        }
    }

    @Test func rateLimitRefusalsAreCounted() async throws {
        // One token, refilled after 1,000 minutes: the second request is refused however long the first one took (at
        // 1 per minute, a run under ThreadSanitizer with every suite in parallel once let a minute pass between them).
        try await withServer({ $0.rateLimitPerMinute = 0.001; $0.rateLimitBurst = 1 }) { client, key in
            let token = try await Self.session(client, key: key)
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            let batch = try Self.json(ReportBatch(reports: [Self.report()]))
            let answer1 = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: batch)
            #expect(answer1.status == .ok)
            let answer2 = try await client.execute(uri: "/v1/reports", method: .post, headers: auth, body: batch)
            #expect(answer2.status == .tooManyRequests)
            let metrics = try await Self.scrape(client)
            #expect(metrics.value("eddy_rate_limited_total") == 1)
            #expect(metrics.value("eddy_rejections_total", ["reason": "rateLimited"]) == 1)
            #expect(metrics.value("eddy_http_requests_total", ["route": "/v1/reports", "method": "POST", "status": "429"]) == 1)
        }
    }

    @Test func twoServersInOneProcessCountApart() async throws {
        try await withServer { first, key in
            _ = try await Self.session(first, key: key)
            _ = try await Self.session(first, key: key)
            try await withServer { second, otherKey in
                _ = try await Self.session(second, key: otherKey)
                let answer3 = try await Self.scrape(second)
                #expect(answer3.value("eddy_sessions_opened_total") == 1)
            }
            let answer4 = try await Self.scrape(first)
            #expect(answer4.value("eddy_sessions_opened_total") == 2)
        }
    }

    @Test func databasePoolGaugesFollowTheStorageHook() async throws {
        let metrics = ServerMetrics()
        #expect(try PrometheusText(metrics.exposition()).value("eddy_database_connections_in_use") == nil)
        metrics.setDatabasePool(connectionsInUse: 3, requestsWaiting: 7)
        var parsed = try PrometheusText(metrics.exposition())
        #expect(parsed.value("eddy_database_connections_in_use") == 3)
        #expect(parsed.value("eddy_database_requests_waiting") == 7)
        metrics.databasePoolSampler = { .init(connectionsInUse: 5, requestsWaiting: 0) }
        parsed = try PrometheusText(metrics.exposition())
        #expect(parsed.value("eddy_database_connections_in_use") == 5)
        #expect(parsed.value("eddy_database_requests_waiting") == 0)
    }

    @Test func metricsCanBeTurnedOff() async throws {
        try await withServer({ $0.metricsEnabled = false }) { client, _ in
            let answer5 = try await client.execute(uri: "/metrics", method: .get)
            #expect(answer5.status == .notFound)
            let answer6 = try await client.execute(uri: "/healthz", method: .get)
            #expect(answer6.status == .ok)
        }
    }

    @Test func aSaneRequestIdIsEchoedAnInsaneOneReplaced() async throws {
        try await withServer { client, _ in
            let sane = "req-42_A.b"
            let echoed = try await client.execute(uri: "/v1/tick", method: .get, headers: [Self.requestIdHeader: sane])
            #expect(echoed.headers[Self.requestIdHeader] == sane)
            let longest = String(repeating: "a", count: 64)
            let answer7 = try await client.execute(uri: "/healthz", method: .get, headers: [Self.requestIdHeader: longest])
            #expect(answer7.headers[Self.requestIdHeader] == longest)
            var made: [String] = []
            for offered in [String(repeating: "a", count: 65), "has space", "semi;colon", "ünï", nil] {
                let headers: HTTPFields = offered.map { [Self.requestIdHeader: $0] } ?? [:]
                let response = try await client.execute(uri: "/v1/tick", method: .get, headers: headers)
                let id = try #require(response.headers[Self.requestIdHeader])
                #expect(id != offered)
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "generated id \(id)")
                made.append(id)
            }
            #expect(Set(made).count == made.count)
            // Errors answered by the router (404) and by the API (401) carry the id too.
            let answer8 = try await client.execute(uri: "/nope", method: .get, headers: [Self.requestIdHeader: "x1"])
            #expect(answer8.headers[Self.requestIdHeader] == "x1")
            let answer9 = try await client.execute(uri: "/v1/fetch", method: .post, headers: [Self.requestIdHeader: "x2"], body: ByteBuffer())
            #expect(answer9.headers[Self.requestIdHeader] == "x2")
        }
    }

    @Test func everyLogLineOfARequestCarriesItsId() async throws {
        let lines = CapturedLines()
        var logger = Logger(label: "observability-test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .debug
        try await withServer(logger: logger) { client, key in
            _ = try await Self.session(client, key: key, headers: [Self.requestIdHeader: "session-req-1"])
            _ = try await client.execute(uri: "/v1/fetch", method: .post, headers: [Self.requestIdHeader: "fetch-req-2"], body: ByteBuffer())
        }
        let captured = lines.all
        let session = captured.filter { $0.metadata["request_id"] == "session-req-1" }
        let fetch = captured.filter { $0.metadata["request_id"] == "fetch-req-2" }
        #expect(session.contains { $0.message == "session started" })
        #expect(session.contains { $0.message == "request" && $0.metadata["path"] == "/v1/session" })
        #expect(fetch.contains { $0.message == "request" && $0.metadata["status"] == "401" })
        // Every line written while serving a request names it; the start-up lines name none.
        for line in captured where line.message == "request" || line.message == "session started" {
            #expect(line.metadata["request_id"] != nil, "\(line)")
        }
    }

    @Test func readyzAsksTheProbeHealthzDoesNot() async throws {
        struct Down: Error {}
        let failing = ReadinessProbe { throw Down() }
        try await withServer(readiness: failing) { client, _ in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .serviceUnavailable)
            #expect(String(buffer: ready.body).contains("database"))
            let answer10 = try await client.execute(uri: "/healthz", method: .get)
            #expect(answer10.status == .ok)
        }
        let calls = Atomic<Int>(0)
        try await withServer(readiness: ReadinessProbe { calls.add(1, ordering: .relaxed) }) { client, _ in
            let answer11 = try await client.execute(uri: "/readyz", method: .get)
            #expect(answer11.status == .ok)
        }
        #expect(calls.load(ordering: .relaxed) == 1)
        // The default probe queries the real database.
        try await withServer { client, _ in
            let answer12 = try await client.execute(uri: "/readyz", method: .get)
            #expect(answer12.status == .ok)
        }
    }
}

/// One log line as the capturing handler saw it (the provider's metadata merged in, as swift-log's handlers do).
struct CapturedLine: Sendable, CustomStringConvertible {
    var level: Logger.Level = .info
    var message: String
    var metadata: [String: String]
    var description: String { "\(message) \(metadata)" }
}

/// The lines captured so far (shared by the handler copies swift-log makes).
final class CapturedLines: Sendable {
    private let lines = Mutex<[CapturedLine]>([])
    func append(_ line: CapturedLine) { lines.withLock(visibleToThreadSanitizerAs: self) { $0.append(line) } }
    var all: [CapturedLine] { lines.withLock(visibleToThreadSanitizerAs: self) { $0 } }
}

/// A LogHandler that keeps every line, merging metadata like swift-log's `StreamLogHandler`: handler metadata, then
/// the metadata provider's, then the call's.
struct CapturingLogHandler: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        merged.merge(metadataProvider?.get() ?? [:]) { $1 }
        merged.merge(event.metadata ?? [:]) { $1 }
        lines.append(CapturedLine(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }
}

/// The Prometheus text exposition format, parsed: samples `name{label="value",…} number`.
struct PrometheusText {
    struct Sample { var name: String; var labels: [String: String]; var value: Double }
    struct Malformed: Error, CustomStringConvertible { var line: String; var description: String { "malformed sample: \(line)" } }
    var samples: [Sample] = []

    init(_ text: String) throws {
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...].replacingOccurrences(of: "+Inf", with: "inf"))
            else { throw Malformed(line: line) }
            let series = line[..<space]
            var labels: [String: String] = [:]
            var name = String(series)
            if let brace = series.firstIndex(of: "{") {
                guard series.hasSuffix("}") else { throw Malformed(line: line) }
                name = String(series[..<brace])
                let body = series[series.index(after: brace)..<series.index(before: series.endIndex)]
                for pair in body.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[1].hasPrefix("\""), parts[1].hasSuffix("\"") else { throw Malformed(line: line) }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
            }
            samples.append(Sample(name: name, labels: labels, value: value))
        }
    }

    /// The value of the sample with exactly these labels, nil when absent.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }
}
#endif
