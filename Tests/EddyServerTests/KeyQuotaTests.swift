#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

@testable import EddyServerKit

/// The per-key quota (issue 30, deliverable 3): every session of a key and its session starts share one bucket, so a key
/// cannot escape its limit by opening more sessions.
@Suite struct KeyQuotaTests {
    @Test(arguments: StorageBackend.allCases)
    func sessionsOfOneKeyShareItsQuotaAndAnotherKeyIsNotTouched(backend: StorageBackend) async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let storage = try await backend.makeStorage(now: now)
        let first = try await storage.addKey(airline: "DAL", label: "a", now: now).key
        let second = try await storage.addKey(airline: "DAL", label: "b", now: now).key
        var options = ServerOptions()
        // Time stands still: 4 requests per key, then one token a minute; sessions alone would allow 60 each.
        (options.keyRateLimitPerMinute, options.keyRateLimitBurst) = (1, 4)
        let service = try SyncService(database: storage, clock: ManualEpochClock(start: now), options: options, logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
        try await app.test(.router) { client in
            func start(_ key: String, _ user: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(bytes: try JSONEncoder().encode(
                    SessionStartRequest(apiKey: key, airline: "DAL", userId: user, clientVersion: "1.0.0"))))
            }
            func fetch(_ token: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/fetch", method: .post, headers: [.authorization: "Bearer \(token)"],
                                         body: ByteBuffer(bytes: try JSONEncoder().encode(DeltaFetchRequest(dataType: .liveFlights, area: .global))))
            }
            func token(_ response: TestResponse) throws -> String {
                try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: response.body)).token
            }
            // Two sessions (2 tokens) and two fetches (2 more) of the first key use its burst…
            let a = try token(try await start(first, "u1"))
            let b = try token(try await start(first, "u2"))
            #expect(try await fetch(a).status == .ok)
            #expect(try await fetch(b).status == .ok)
            // …so a third session, or a request of either session, is refused for the key.
            for refused in [try await start(first, "u3"), try await fetch(a), try await fetch(b)] {
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter] == "60")
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body))
                #expect(body.error == "rateLimited" && body.message == "too many requests for this API key")
            }
            // The other key has its own bucket.
            let c = try token(try await start(second, "u1"))
            #expect(try await fetch(c).status == .ok)
        }
        await storage.shutdown()
    }
}
#endif
