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

/// API key expiry, last use and the sessions a key opened (issue 30, deliverable 6), on every backend.
@Suite struct KeyExpiryTests {
    @Test(arguments: StorageBackend.allCases)
    func anExpiredKeyOpensNoSessionAndItsSessionsEndAndItsUseIsRecorded(backend: StorageBackend) async throws {
        let now = 1_800_000_000.0
        let storage = try await backend.makeStorage(now: now)
        let expiring = try await storage.addKey(airline: "DAL", label: "tablet", now: now, expiresAt: now + 600)
        let forever = try await storage.addKey(airline: "DAL", label: "ops", now: now)
        let clock = ManualEpochClock(start: now)
        let service = try SyncService(database: storage, clock: clock, options: ServerOptions(), logger: StorageBackend.quiet)
        let app = EddyServerApplication.make(service: service, logger: StorageBackend.quiet, checkpointInterval: nil)
        try await app.test(.router) { client in
            func start(_ key: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/session", method: .post, body: ByteBuffer(bytes: try JSONEncoder().encode(
                    SessionStartRequest(apiKey: key, airline: "DAL", userId: "u1", clientVersion: "1.0.0"))))
            }
            let opened = try await start(expiring.key)
            #expect(opened.status == .ok)
            let token = try JSONDecoder().decode(SessionStartResponse.self, from: Data(buffer: opened.body)).token
            clock.advance(by: 60)
            _ = try await start(expiring.key)
            let tick: () async throws -> TestResponse = {
                try await client.execute(uri: "/v1/fetch", method: .post, headers: [.authorization: "Bearer \(token)"],
                                         body: ByteBuffer(bytes: try JSONEncoder().encode(DeltaFetchRequest(dataType: .liveFlights, area: .global))))
            }
            #expect(try await tick().status == .ok)
            clock.advance(by: 600)
            for refused in [try await tick(), try await start(expiring.key)] {
                #expect(refused.status == .forbidden)
                #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: refused.body)).error == "keyExpired")
            }
            #expect(try await start(forever.key).status == .ok)
        }
        let keys = try await storage.listKeys()
        let used = try #require(keys.first { $0.id == expiring.record.id })
        #expect(used.expiresAt == now + 600 && used.lastUsedAt == now + 60 && used.sessionsStarted == 2, "\(used)")
        #expect(!used.isUsable(at: now + 600) && used.isUsable(at: now + 599))
        let other = try #require(keys.first { $0.id == forever.record.id })
        #expect(other.expiresAt == nil && other.sessionsStarted == 1 && other.lastUsedAt == now + 660)
        await storage.shutdown()
    }
}
#endif
