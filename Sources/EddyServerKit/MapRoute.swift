#if Tools
import EddyMap
import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `GET /map`: the fleet's recent reports as one self-contained HTML page (docs/maps.md, "The server's /map").
///
/// A browser authenticates once with the API key in the query (`/map?key=KEY`): the server opens a session for the
/// key's airline (user id `map-browser`, the usual session lifetime) and answers 303 to `/map` (the key leaves the
/// address bar and history) with the session token in an `HttpOnly; SameSite=Strict` cookie `eddy_map` limited to
/// `/map`. Later requests carry the cookie; API clients may send `Authorization: Bearer <token>` instead. Without
/// either: 401 with a short explanation. Revoked keys: 403. Query: `hours` (0.5, 1, 2, 4, 6; default 6),
/// `viewer` (small, medium, large; default medium), `min_layer` / `max_layer` (-2…99); the page adds its own altitude filter.
struct MapRoute: Sendable {
    /// The cookie holding the map session's token.
    static let cookieName = "eddy_map"
    /// User id of sessions opened by `/map?key=`.
    static let userId = "map-browser"
    /// The page's Content-Security-Policy: nothing but the page's own inline script and style; no request at all.
    static let contentSecurityPolicy = MapHTML.contentSecurityPolicy

    let service: SyncService

    /// Answers the request (page, redirect, or an error the error middleware turns into JSON); `notes` learns the key.
    func handle(_ request: Request, notes: RequestNotes? = nil) async throws -> Response {
        let query = request.uri.queryParameters
        if let key = query["key"].map(String.init) {
            return try await exchange(key: key, request: request, notes: notes)
        }
        let authorization: String?
        if let header = request.headers[.authorization] {
            authorization = header
        } else if let cookie = request.cookies[Self.cookieName]?.value, !cookie.isEmpty {
            authorization = "Bearer " + cookie
        } else {
            return Self.unauthorized("no session: open /map?key=YOUR_API_KEY once (the server then keeps a session cookie)")
        }
        let session: SessionRecord
        do { session = try await service.authenticate(authorization: authorization, notes: notes) } catch {
            guard error.status == .unauthorized else { throw error }
            return Self.unauthorized("the session has expired or is unknown: open /map?key=YOUR_API_KEY again")
        }
        let hours = try Self.double(query["hours"], name: "hours") ?? 6
        guard EddyWire.historyWindowsHours.contains(hours) else { throw APIError.badRequest("hours must be one of 0.5, 1, 2, 4, 6") }
        let viewerName = query["viewer"].map(String.init) ?? "medium"
        guard let viewer = AircraftClass(rawValue: viewerName) else { throw APIError.badRequest("viewer must be small, medium or large") }
        let minLayer = try Self.int(query["min_layer"], name: "min_layer") ?? -2
        let maxLayer = try Self.int(query["max_layer"], name: "max_layer") ?? 99
        guard minLayer <= maxLayer, (-2...99).contains(minLayer), (-2...99).contains(maxLayer) else {
            throw APIError.badRequest("min_layer ≤ max_layer, both in -2...99 (thousands of feet)")
        }
        let now = service.clock.now()
        let filter = ObservationFilter(polygon: nil, minExitTime: now - hours * 3600, minLayer: minLayer, maxLayer: maxLayer, minTick: nil)
        let observations = try await service.stored(await service.domain.observations(filter))
        // The nowcast of this hour (issued now if due, as a fetch would), drawn by provenance under the reports.
        _ = try await service.issueNowcastIfDue()
        let nowcast = try await service.stored(await service.domain.nowcast(polygon: nil, minLayer: minLayer, maxLayer: maxLayer))
        let page = Self.page(observations: observations, viewer: viewer, hours: hours, now: now, airline: session.airline,
                             geometry: service.geometry, nowcast: nowcast)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("Content-Security-Policy")!] = Self.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: MapHTML.render(page))))
    }

    /// Checks the key, opens a session and answers 303 to `/map` (other query parameters kept) with the cookie.
    func exchange(key: String, request: Request, notes: RequestNotes? = nil) async throws -> Response {
        guard !key.isEmpty, key.unicodeScalars.count <= 200, let record = try await service.stored(await service.database.lookupKey(key)) else {
            return Self.unauthorized("the API key is not known to this server")
        }
        notes?.apiKey = APIKeyNote(id: record.id, airline: record.airline)
        guard record.active else { throw APIError.keyRevoked }
        let ttl = service.options.sessionTTLSeconds
        let now = service.clock.now()
        guard record.isUsable(at: now) else { throw APIError.keyExpired }
        let session = try await service.stored(
            await service.database.openSession(keyId: record.id, airline: record.airline, userId: Self.userId, now: now, ttl: ttl))
        service.logger.info("map session started", metadata: ["airline": "\(record.airline)", "key": "\(record.id)"])
        var kept: [String] = []
        for (name, value) in request.uri.queryParameters where name != "key" {
            kept.append("\(Self.percentEncoded(String(name)))=\(Self.percentEncoded(String(value)))")
        }
        var headers = HTTPFields()
        headers[.location] = kept.isEmpty ? "/map" : "/map?" + kept.sorted().joined(separator: "&")
        headers[.setCookie] = "\(Self.cookieName)=\(session.token); Path=/map; Max-Age=\(Int(saturating: ttl)); HttpOnly; SameSite=Strict"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// The page: the worst report per tile (by peak EDR) of the window, severity for `viewer`; then the nowcast cells of
    /// hour 0 that are light or worse for `viewer`, each with its provenance (drawn in its source's style, under the
    /// reports; docs/maps.md "Nowcast cells").
    static func page(observations: [Observation], viewer: AircraftClass, hours: Double, now: Double, airline: String,
                     geometry: any CellGeometry, nowcast: [NowcastCell] = []) -> MapPage {
        struct Worst { var report: TileReport; var count: Int }
        var worst: [TileID: Worst] = [:]
        var order: [TileID] = []
        for observation in observations {
            let report = observation.report
            if var entry = worst[report.tile] {
                entry.count += 1
                if report.edrPeak > entry.report.edrPeak { entry.report = report }
                worst[report.tile] = entry
            } else {
                worst[report.tile] = Worst(report: report, count: 1)
                order.append(report.tile)
            }
        }
        let tiles = order.compactMap { tile -> MapTile? in
            guard let entry = worst[tile] else { return nil }
            let r = entry.report
            let ring = geometry.boundary(of: tile.h3)
            guard ring.count >= 3 else { return nil }
            return MapTile(
                h3: tile.h3String, layer: tile.layer, severity: SeverityScale.severity(edr: r.edrPeak, viewer: viewer),
                edrPeak: r.edrPeak, edrMedian: r.edrMedian, enterTime: r.enterTime, exitTime: r.exitTime,
                vertices: ring.map { ($0.lat, $0.lng) }, detail: entry.count == 1 ? "1 report" : "\(entry.count) reports")
        }
        let nowcastTiles = nowcast.compactMap { cell -> MapTile? in
            let severity = SeverityScale.severity(edr: cell.edr, viewer: viewer)
            guard cell.forecastHour == 0, severity >= .light else { return nil }
            let ring = geometry.boundary(of: cell.tile.h3)
            guard ring.count >= 3 else { return nil }
            return MapTile(h3: cell.tile.h3String, layer: cell.tile.layer, severity: severity, edrPeak: cell.edr, edrMedian: cell.edr,
                           enterTime: cell.validTime, exitTime: cell.validTime + 3600, vertices: ring.map { ($0.lat, $0.lng) },
                           detail: "nowcast", provenance: cell.provenance)
        }
        let hoursText = hours == hours.rounded() ? String(Int(saturating: hours)) : String(hours)
        let subtitle = "\(tiles.count) tiles from \(observations.count) reports · last \(hoursText) h · \(nowcastTiles.count) nowcast cells of this hour"
            + " · \(viewer.rawValue) viewer · session of \(airline)"
        return MapPage(kind: .fleet, title: "Eddy fleet map", subtitle: subtitle, timesAreEpoch: true, viewer: viewer, tiles: tiles + nowcastTiles)
    }

    /// 401 with a short plain-text explanation (a browser shows it as it is).
    static func unauthorized(_ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.wwwAuthenticate] = "Bearer realm=\"eddy-map\""
        headers[.cacheControl] = "no-store"
        return Response(status: .unauthorized, headers: headers,
                        body: .init(byteBuffer: ByteBuffer(string: "401 Unauthorized: \(message). See docs/maps.md.\n")))
    }

    static func double(_ text: Substring?, name: String) throws -> Double? {
        guard let text else { return nil }
        guard let value = Double(text), value.isFinite else { throw APIError.badRequest("\(name) must be a number") }
        return value
    }

    static func int(_ text: Substring?, name: String) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text) else { throw APIError.badRequest("\(name) must be a whole number") }
        return value
    }

    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
#endif
