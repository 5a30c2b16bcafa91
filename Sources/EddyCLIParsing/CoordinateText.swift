package import EddyH3
import EddySupport
package import EddyVocabulary
package import Foundation

/// A problem with one piece of command-line or stdin text: what is wrong, with a short escaped excerpt of the input.
package struct InputTextError: Error, Equatable, CustomStringConvertible {
    /// What is wrong (the input quoted as an escaped excerpt of at most 60 characters).
    package var message: String
    /// Creates an error.
    package init(message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}

/// The `eddy` command line's text parsers (coordinates, cells, routes, polygons, tiles), in a library so that the
/// fuzz targets can link them (docs/reliability.md, "Fuzzing"). Pure: no I/O.
package enum CoordinateText {
    /// `lat,lon` in decimal degrees (spaces around each number allowed); both must be finite. The range is not
    /// checked (the geoid and H3 tools answer for any finite position).
    package static func latLon(_ line: Substring) throws(InputTextError) -> (Double, Double) {
        let parts = line.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else {
            throw InputTextError(message: "expected 'lat,lon' in decimal degrees, got '\(InputExcerpt.escaped(line))'")
        }
        guard latitude.isFinite, longitude.isFinite else {
            throw InputTextError(message: "latitude and longitude must be finite, got '\(InputExcerpt.escaped(line))'")
        }
        return (latitude, longitude)
    }

    /// A hexadecimal H3 cell id that is a valid cell.
    package static func cell(_ line: Substring) throws(InputTextError) -> H3Index {
        guard let cell = H3Index(string: String(line)) else {
            throw InputTextError(message: "expected a hexadecimal H3 cell id, got '\(InputExcerpt.escaped(line))'")
        }
        guard H3.isValidCell(cell) else {
            throw InputTextError(message: "'\(InputExcerpt.escaped(line))' is not a valid H3 cell")
        }
        return cell
    }

    /// `lat,lon` pairs separated by spaces, semicolons, tabs or newlines (a `--polygon` or `--route`): each finite,
    /// latitude in -90…90 and longitude in -180…180. `option` names the option in the message.
    package static func points(_ text: String, option: String) throws(InputTextError) -> [LatLng] {
        let pairs = text.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "\n" || $0 == "\t" })
        var points: [LatLng] = []
        points.reserveCapacity(pairs.count)
        for (index, pair) in pairs.enumerated() {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                throw InputTextError(message: "\(option): point #\(index + 1) '\(InputExcerpt.escaped(pair))' is not `lat,lon` in degrees")
            }
            guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw InputTextError(
                    message: "\(option): point #\(index + 1) '\(InputExcerpt.escaped(pair))' is outside latitude -90…90, longitude -180…180")
            }
            points.append(LatLng(latitude: latitude, longitude: longitude))
        }
        return points
    }

    /// `h3hex@layer` items separated by commas, spaces or semicolons (`--tiles`).
    package static func tiles(_ text: String) throws(InputTextError) -> [TileID] {
        let items = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" })
        var tiles: [TileID] = []
        for item in items {
            let parts = item.split(separator: "@")
            guard parts.count == 2, let cell = H3Index(string: String(parts[0])), let layer = Int(parts[1]) else {
                throw InputTextError(message: "--tiles: '\(InputExcerpt.escaped(item))' is not `h3hex@layer` (e.g. 85283473fffffff@35)")
            }
            tiles.append(TileID(h3: cell.rawValue, layer: layer))
        }
        return tiles
    }
}

/// Minimal GeoJSON Polygon reader for `eddy h3 polygon-to-cells`.
package enum GeoJSONPolygon {
    /// Rings (outer first, then holes) as degree positions; GeoJSON positions are `[lng, lat]`.
    package static func rings(from data: Data) throws(InputTextError) -> [[LatLng]] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw InputTextError(message: "input is not valid JSON (\(error.localizedDescription)); expected one GeoJSON Polygon")
        }
        guard var dict = object as? [String: Any] else {
            throw InputTextError(message: "expected a GeoJSON object with \"type\": \"Polygon\"")
        }
        if dict["type"] as? String == "Feature" {
            guard let geometry = dict["geometry"] as? [String: Any] else {
                throw InputTextError(message: "GeoJSON Feature has no geometry object")
            }
            dict = geometry
        }
        guard dict["type"] as? String == "Polygon" else {
            let found = dict["type"].map { InputExcerpt.escaped("\($0)") } ?? "nothing"
            throw InputTextError(message: "expected GeoJSON type \"Polygon\", got \(found)")
        }
        guard let coordinates = dict["coordinates"] as? [Any], !coordinates.isEmpty else {
            throw InputTextError(message: "GeoJSON Polygon needs a non-empty \"coordinates\" array of rings")
        }
        var rings: [[LatLng]] = []
        for (r, ringAny) in coordinates.enumerated() {
            guard let ring = ringAny as? [Any] else {
                throw InputTextError(message: "ring \(r) is not an array of [lng, lat] positions")
            }
            var points: [LatLng] = []
            for (p, posAny) in ring.enumerated() {
                guard let pos = posAny as? [Any], pos.count >= 2,
                      let lng = (pos[0] as? NSNumber)?.doubleValue, let lat = (pos[1] as? NSNumber)?.doubleValue,
                      lat.isFinite, lng.isFinite
                else {
                    throw InputTextError(message: "ring \(r) position \(p) must be [lng, lat] with finite numbers")
                }
                points.append(LatLng(latitude: lat, longitude: lng))
            }
            if !points.isEmpty && points.count < 3 {
                throw InputTextError(message: "ring \(r) has \(points.count) positions; a ring needs at least 3")
            }
            rings.append(points)
        }
        return rings
    }
}
