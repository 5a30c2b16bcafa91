import EddyStore
import EddySupport
import EddySync
import EddyTesting
import Foundation
import Synchronization
import Testing
@testable import Eddy

/// Records every session token the server hands out and every bearer token sent.
private final class TokenWitness: Sendable {
    private let tokens = Mutex<Set<String>>([])
    var all: Set<String> { tokens.withLock(visibleToThreadSanitizerAs: self) { $0 } }
    func see(_ request: SyncHTTPRequest, _ response: SyncHTTPResponse) {
        if let auth = request.headers["Authorization"], auth.hasPrefix("Bearer ") {
            _ = tokens.withLock(visibleToThreadSanitizerAs: self) { $0.insert(String(auth.dropFirst("Bearer ".count))) }
        }
        if request.path == "/v1/session", let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
           let token = object["token"] as? String {
            _ = tokens.withLock(visibleToThreadSanitizerAs: self) { $0.insert(token) }
        }
    }
}

private struct TokenObservingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let witness: TokenWitness
    func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let response = try inner.send(request)
        witness.see(request, response)
        return response
    }
}

@Suite(.serialized) struct EngineLoggingTests {
    @Test func aFullFlightAtTraceLevelLogsNoKeyTokenOrUserId() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let witness = TokenWitness()
        var configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.logging = EddyLogConfiguration(directory: folder.path("logs"), level: .trace)
        configuration.transportWrapper = { TokenObservingTransport(inner: $0, witness: witness) }
        let engine = try EddyEngine(configuration: configuration)
        let userId = "captain.jane.doe@example-airline.com"
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: userId, environment: .local(port: server.port))
        engine.setFlight(Flight(flightNumber: "DAL77"))
        let now = Date().timeIntervalSince1970.rounded(.down)
        let flight = SyntheticFlight(scenario: turbulentScenario(), startEpochSeconds: now - 1200)
        flight.forEachSample { engine.push($0) }
        engine.finishDetection()
        engine.syncNow()
        // The session expires and is renewed: a second token.
        try server.expireSessions()
        try engine.fetchData(refresh: true)
        engine.syncNow()
        engine.stop()
        let url = try engine.exportLogs()
        let bytes = try Data(contentsOf: url)
        let text = String(decoding: bytes, as: UTF8.self)
        // The log has what an operator needs (so the search below searched something).
        #expect(text.contains("INFO start"))
        #expect(text.contains("sync: reports uploaded"))
        #expect(text.contains("TRACE http POST /v1/session"))
        #expect(text.contains("stop"))
        #expect(witness.all.count >= 2, "tokens seen: \(witness.all.count)")
        var secrets = [server.apiKey, userId] + Array(witness.all)
        secrets += secrets.map { Data($0.utf8).base64EncodedString() }
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "a secret (\(secret.prefix(4))…) is in the log")
        }
    }

    @Test func theHandlerRedactsWhateverItIsGiven() {
        let redactor = LogRedactor()
        redactor.add("eddy_0123456789abcdef")
        redactor.add("pilot@example.com")
        let token = String(repeating: "a1b2", count: 16)
        let line = redactor.redact("key eddy_0123456789abcdef user=pilot@example.com Authorization: Bearer xyz.123 token \(token) tile 85283083fffffff")
        #expect(!line.contains("eddy_0123456789abcdef") && !line.contains("pilot@example.com") && !line.contains("xyz.123"))
        #expect(!line.contains(token))
        #expect(line.contains("85283083fffffff"), "a 15-digit H3 index is not a secret")
    }

    @Test func theFileRollsOverAtItsCapAndExportsOldestFirst() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let file = RollingLogFile(directory: URL(fileURLWithPath: folder.path("logs")), maximumFileBytes: 4096, fileCount: 2)
        for i in 0..<2000 {
            file.append("line \(String(format: "%05d", i)) " + String(repeating: "x", count: 40))
            if i % 100 == 0 { file.flush() }
        }
        file.flush()
        let sizes = (0..<3).map { (try? FileManager.default.attributesOfItem(atPath: file.fileURL($0).path)[.size] as? NSNumber)?.intValue }
        #expect(sizes[0].map { $0 <= 4096 } == true && sizes[1].map { $0 <= 4096 } == true, "\(sizes)")
        #expect(sizes[2] == nil, "only two files are kept")
        let export = URL(fileURLWithPath: folder.path("export.log"))
        try file.export(to: export)
        let numbers = String(decoding: try Data(contentsOf: export), as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        #expect(numbers.last == 1999, "the newest line is last")
        #expect(numbers == numbers.sorted(), "oldest first")
        #expect(numbers.count < 2000 && numbers.count > 100, "older lines rolled away: \(numbers.count)")
    }

    @Test func theDefaultLevelIsWarning() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        let configuration = EddyConfiguration(storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        #expect(configuration.logging.level == .warning)
        let engine = try EddyEngine(configuration: configuration)
        try engine.startNow(apiKey: "k", airline: "DAL", userId: "u", environment: .offline)
        engine.reportLocationFailure("GPS receiver disconnected")
        let text = String(decoding: try Data(contentsOf: engine.exportLogs()), as: UTF8.self)
        #expect(!text.contains("INFO"), "info is below the default level")
        #expect(text.contains("WARNING location"), "\(text)")
    }

    @Test func aCleanFlightAtTheDefaultLevelExportsASessionSummaryWithoutSecrets() throws {
        let server = try LocalEddyServer(options: .init(extraServeArguments: ["--rate-limit", "0"]))
        let folder = try EngineFolder()
        defer { folder.remove() }
        let engine = try EddyEngine(configuration: EddyConfiguration(
            storePath: folder.path("e.sqlite"), delivery: .callerThread, syncTiming: .flightTime))
        let now = Date().timeIntervalSince1970.rounded(.down)
        let flight = SyntheticFlight(scenario: turbulentScenario(), startEpochSeconds: now - 1200)
        let samples = flight.samples()
        // Pushed before start: dropped, said once, counted.
        for sample in samples.prefix(10) { engine.push(sample) }
        let userId = "captain.jane.doe@example-airline.com"
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: userId, environment: .local(port: server.port))
        engine.setFlight(Flight(flightNumber: "DAL77"))
        for sample in samples { engine.push(sample) }
        engine.finishDetection()
        engine.syncNow()
        let stored = try engine.store.outboxCounts()
        let running = String(decoding: try Data(contentsOf: engine.exportLogs()), as: UTF8.self)
        let summary = try #require(running.split(separator: "\n").last { $0.contains("SUMMARY") }, "no summary in:\n\(running)")
        #expect(summary.contains("airline DAL, server 127.0.0.1:\(server.port), flight DAL77"), "\(summary)")
        #expect(summary.contains("reports stored \(stored.pending + stored.sent)"), "\(summary)")
        #expect(stored.pending + stored.sent > 5)
        #expect(summary.contains("pending upload \(stored.pending), uploaded \(stored.sent)"), "\(summary)")
        #expect(summary.contains("fetch failures 0"), "\(summary)")
        #expect(summary.contains("samples dropped while not started 10"), "\(summary)")
        #expect(running.contains("WARNING push: samples are dropped while the engine is not started"))
        #expect(running.components(separatedBy: "WARNING push").count == 2, "said once")
        engine.stop()
        let stopped = String(decoding: try Data(contentsOf: engine.exportLogs()), as: UTF8.self)
        #expect(stopped.contains("SUMMARY session summary (stopped)"))
        for secret in [server.apiKey, userId] { #expect(!stopped.contains(secret), "a secret (\(secret.prefix(4))…) is in the log") }
    }
}
