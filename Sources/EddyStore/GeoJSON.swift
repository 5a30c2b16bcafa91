package import EddyH3
import EddySupport
package import EddyVocabulary
import Foundation

/// RFC 7946 GeoJSON output of query results: one Polygon feature per tile hexagon.
///
/// Rings are `[longitude, latitude]` (6 decimals, ≈ 0.1 m), counter-clockwise (exterior ring, RFC 7946 §3.1.6) and
/// closed (first position repeated last). A hexagon that crosses the antimeridian keeps continuous longitudes (some
/// beyond ±180) rather than being cut in two. Output is deterministic: fixed key order, numbers and strings written by
/// the JSON writer of EddySupport (docs/json.md: shortest round-trip, whole numbers bare, non-finite as null).
package enum GeoJSON {
    /// A FeatureCollection of turbulence items with properties `severity` (name), `edr_peak`, `edr_median`, `layer`,
    /// `time` (exit, Unix seconds), `h3`, `origin`, `report_count`, then — only when the report records them —
    /// `altitude_source`, `altitude_u90_ft` and `layer_uncertain`; the feature `id` is the report id.
    package static func featureCollection(_ items: [TurbulenceItem]) throws(H3Error) -> String {
        var features: [String] = []
        features.reserveCapacity(items.count)
        for item in items {
            let report = item.report
            var properties = [
                ("severity", JSONString.quoted(item.severity.name)),
                ("edr_peak", JSONNumber.text(report.edrPeak)),
                ("edr_median", JSONNumber.text(report.edrMedian)),
                ("layer", String(report.tile.layer)),
                ("time", JSONNumber.text(report.exitTime)),
                ("h3", JSONString.quoted(report.tile.h3String)),
                ("origin", JSONString.quoted(item.origin.rawValue)),
                ("report_count", String(item.reportCount)),
            ]
            if let source = report.altitudeSource { properties.append(("altitude_source", JSONString.quoted(source.rawValue))) }
            if let u90 = report.altitudeU90Feet { properties.append(("altitude_u90_ft", JSONNumber.text(u90))) }
            if let uncertain = report.layerUncertain { properties.append(("layer_uncertain", uncertain ? "true" : "false")) }
            features.append(try feature(id: report.id.uuidString.lowercased(), cell: report.tile.h3, properties: properties))
        }
        return collection(features)
    }

    /// A FeatureCollection of nowcast cells with properties `severity` (for `viewer`), `edr`, `layer`, `forecast_hour`,
    /// `valid_time`, `issue_time`, `h3`, `provenance` (`fleetMeasured`, `pilotReport`, `forecast`).
    package static func featureCollection(_ cells: [NowcastCell], viewer: AircraftClass) throws(H3Error) -> String {
        var features: [String] = []
        for cell in cells {
            let properties = [
                ("severity", JSONString.quoted(SeverityScale.severity(edr: cell.edr, viewer: viewer).name)),
                ("edr", JSONNumber.text(cell.edr)),
                ("layer", String(cell.tile.layer)),
                ("forecast_hour", String(cell.forecastHour)),
                ("valid_time", JSONNumber.text(cell.validTime)),
                ("issue_time", JSONNumber.text(cell.issueTime)),
                ("h3", JSONString.quoted(cell.tile.h3String)),
                ("provenance", JSONString.quoted(cell.provenance.rawValue)),
            ]
            features.append(try feature(id: "\(cell.tile.h3String)-\(cell.tile.layer)-\(cell.forecastHour)", cell: cell.tile.h3, properties: properties))
        }
        return collection(features)
    }

    /// The closed, counter-clockwise boundary ring of a cell as `[longitude, latitude]` pairs.
    package static func ring(cell: UInt64) throws(H3Error) -> [[Double]] {
        let boundary = try H3.cellToBoundary(H3Index(rawValue: cell))
        guard let first = boundary.first else { return [] }
        // Continuous longitudes (unwrap across the antimeridian relative to the first vertex).
        var positions: [[Double]] = []
        positions.reserveCapacity(boundary.count + 1)
        for vertex in boundary {
            var longitude = vertex.longitude
            while longitude - first.longitude > 180 { longitude -= 360 }
            while longitude - first.longitude < -180 { longitude += 360 }
            positions.append([longitude, vertex.latitude])
        }
        // Shoelace in the lon/lat plane: positive = counter-clockwise.
        var twiceArea = 0.0
        for index in positions.indices {
            let a = positions[index]
            let b = positions[(index + 1) % positions.count]
            twiceArea += a[0] * b[1] - b[0] * a[1]
        }
        if twiceArea < 0 { positions.reverse() }
        positions.append(positions[0])
        return positions
    }

    static func feature(id: String, cell: UInt64, properties: [(String, String)]) throws(H3Error) -> String {
        let coordinates = try ring(cell: cell).map { "[\(JSONNumber.fixed($0[0], decimals: 6)),\(JSONNumber.fixed($0[1], decimals: 6))]" }.joined(separator: ",")
        let props = properties.map { "\(JSONString.quoted($0.0)):\($0.1)" }.joined(separator: ",")
        return "{\"type\":\"Feature\",\"id\":\(JSONString.quoted(id)),\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[\(coordinates)]]},"
            + "\"properties\":{\(props)}}"
    }

    static func collection(_ features: [String]) -> String {
        "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}"
    }
}
