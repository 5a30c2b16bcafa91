#if Tools
import EddyProtocol
import EddyServerKit
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `/map`: authentication (API key → session cookie, bearer token, 401 without) and the page's tiles (docs/maps.md).
@Suite struct MapRouteTests {
    /// The page's data element, parsed.
    static func pageData(_ response: TestResponse) throws -> [String: Any] {
        let html = String(buffer: response.body)
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"eddy-data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try #require(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
    }

    @Test(arguments: StorageBackend.allCases) func withoutASessionTheMapIs401(backend: StorageBackend) async throws {
        try await RouterTests().withServer(backend) { client, _ in
            let bare = try await client.execute(uri: "/map", method: .get)
            #expect(bare.status == .unauthorized)
            #expect(bare.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(String(buffer: bare.body).contains("/map?key="))
            let unknownKey = try await client.execute(uri: "/map?key=nope", method: .get)
            #expect(unknownKey.status == .unauthorized)
            let forged = try await client.execute(uri: "/map", method: .get, headers: [.cookie: "eddy_map=forged"])
            #expect(forged.status == .unauthorized)
            let badBearer = try await client.execute(uri: "/map", method: .get, headers: [.authorization: "Bearer forged"])
            #expect(badBearer.status == .unauthorized)
        }
    }

    @Test(arguments: StorageBackend.allCases) func theKeyIsExchangedForACookieAndThePageShowsTheWorstReportPerTile(backend: StorageBackend) async throws {
        try await RouterTests().withServer(backend) { client, key in
            let token = try await RouterTests.session(client, key: key)
            let now = Date().timeIntervalSince1970
            var weak = RouterTests.report(exitTime: now - 120)
            weak.edrPeak = 0.12
            var strong = RouterTests.report(exitTime: now - 60)
            strong.edrPeak = 0.5
            var other = RouterTests.report(exitTime: now - 60)
            other.tile.layer = 20
            other.edrPeak = 0.05
            other.edrMedian = 0.03
            let upload = try await client.execute(uri: "/v1/reports", method: .post, headers: [.authorization: "Bearer \(token)"],
                                                  body: RouterTests.json(ReportBatch(reports: [weak, strong, other])))
            #expect(upload.status == .ok)

            let exchange = try await client.execute(uri: "/map?key=\(key)&hours=2", method: .get)
            #expect(exchange.status == .seeOther)
            #expect(exchange.headers[.location] == "/map?hours=2")
            let cookie = try #require(exchange.headers[.setCookie])
            #expect(cookie.hasPrefix("eddy_map=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/map"))
            let pair = String(cookie.prefix { $0 != ";" })

            let page = try await client.execute(uri: "/map?hours=2", method: .get, headers: [.cookie: pair])
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            let data = try Self.pageData(page)
            let all = try #require(data["tiles"] as? [[String: Any]])
            // The reports' tiles (no provenance) and, under them, this hour's nowcast cells that are light or worse: here
            // the one the severe report makes, fleet measured (the layer-20 report's 0.05 is below light).
            let tiles = all.filter { $0["prov"] == nil }
            #expect(tiles.count == 2)
            let nowcast = all.filter { $0["prov"] != nil }
            #expect(nowcast.count == 1 && nowcast.first?["prov"] as? String == "fleetMeasured" && nowcast.first?["layer"] as? Int == 35,
                    "\(nowcast)")
            #expect(String(buffer: page.body).contains("id=\"provenance-legend\""))
            let worst = try #require(tiles.first { $0["layer"] as? Int == 35 })
            #expect(worst["sevName"] as? String == "severe")
            #expect(worst["peak"] as? Double == 0.5)
            #expect((worst["v"] as? [Double])?.count == 12)
            #expect(tiles.first { $0["layer"] as? Int == 20 }?["sevName"] as? String == "none")

            let bearer = try await client.execute(uri: "/map?viewer=large", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(bearer.status == .ok)
            let large = try #require(try Self.pageData(bearer)["tiles"] as? [[String: Any]]).filter { $0["prov"] == nil }
            #expect(large.first { $0["layer"] as? Int == 35 }?["sevName"] as? String == "moderateSevere", "0.5 is below 0.45 × 1.3")

            let badHours = try await client.execute(uri: "/map?hours=3", method: .get, headers: [.cookie: pair])
            #expect(badHours.status == .badRequest)
            let filtered = try await client.execute(uri: "/map?min_layer=30&max_layer=40", method: .get, headers: [.cookie: pair])
            #expect(try (Self.pageData(filtered)["tiles"] as? [[String: Any]])?.filter { $0["prov"] == nil }.count == 1)
        }
    }
}
#endif
