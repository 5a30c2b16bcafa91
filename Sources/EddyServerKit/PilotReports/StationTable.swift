#if Tools
package import EddyH3
import EddyVocabulary
import Foundation

/// The stations (navaids and airports) that PIREP locations refer to: `/OV ABC`, `/OV ABC090025`.
///
/// Read from a CSV text with a header naming at least `id`, `latitude_deg` and `longitude_deg` (OurAirports' column
/// names; `lat` / `lon` also work) and optionally `variation_deg`: the station's magnetic variation, degrees east
/// positive. A radial is magnetic, so the true bearing is radial + variation; without the column the variation is
/// taken as 0 and a radial's position can be off by distance × sin(variation). The AWC places radials with the current
/// magnetic variation, which the fixtures' table follows (a VOR's slaved variation, to which its radials are really
/// aligned, can differ by several degrees; docs/nowcast.md "Pilot reports"). Pure: the text is read by the caller.
package struct StationTable: Sendable {
    /// One station.
    package struct Station: Sendable, Equatable {
        /// Identifier as written in reports (`ADH`, `KADH`).
        package var id: String
        /// Position.
        package var position: LatLng
        /// Magnetic variation, degrees east positive (0 when the table has none).
        package var variationDegrees: Double
    }

    private var stations: [String: Station]

    /// A table of `stations` (the last of a repeated id wins).
    package init(_ stations: [Station]) {
        self.stations = Dictionary(stations.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// How many stations the table holds.
    package var count: Int { stations.count }

    /// Parses the CSV text of a station table (lines starting with `#` are comments); `source` names it in errors. Throws the first bad line (its number, what
    /// is wrong and what to do): a table is configuration, so a wrong row stops the ingest instead of mislocating reports.
    package init(csv text: String, source: String) throws(PilotReportLineError) {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init).enumerated()
            .filter { !$0.element.trimmingCharacters(in: .whitespaces).isEmpty && !$0.element.hasPrefix("#") }[...]
        guard let header = lines.popFirst() else {
            throw PilotReportLineError("\(source): the station table is empty", "give a CSV with a header id,latitude_deg,longitude_deg[,variation_deg]")
        }
        let names = header.element.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased() }
        func column(_ candidates: [String]) -> Int? { candidates.lazy.compactMap { names.firstIndex(of: $0) }.first }
        guard let idColumn = column(["id", "ident"]), let latColumn = column(["latitude_deg", "lat", "latitude"]),
              let lonColumn = column(["longitude_deg", "lon", "lng", "longitude"]) else {
            throw PilotReportLineError("\(source):\(header.offset + 1): the header \(header.element) lacks id, latitude_deg or longitude_deg",
                                       "name the columns id,latitude_deg,longitude_deg[,variation_deg]")
        }
        let variationColumn = column(["variation_deg", "slaved_variation_deg", "magnetic_variation_deg"])
        var parsed: [Station] = []
        for (offset, line) in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
            let lineName = "\(source):\(offset + 1)"
            guard fields.count > max(idColumn, latColumn, lonColumn) else {
                throw PilotReportLineError("\(lineName): \(fields.count) fields, the header has \(names.count)", "give every station id, latitude and longitude")
            }
            let id = fields[idColumn].uppercased()
            guard !id.isEmpty, let lat = Double(fields[latColumn]), let lon = Double(fields[lonColumn]),
                  (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw PilotReportLineError("\(lineName): station \"\(fields[idColumn])\" has no usable position (\(fields[latColumn]), \(fields[lonColumn]))",
                                           "give latitude -90…90 and longitude -180…180 in decimal degrees")
            }
            var variation = 0.0
            if let variationColumn, variationColumn < fields.count, !fields[variationColumn].isEmpty {
                guard let value = Double(fields[variationColumn]), abs(value) <= 180 else {
                    throw PilotReportLineError("\(lineName): variation \"\(fields[variationColumn])\" of \(id) is not a number of degrees",
                                               "give the magnetic variation in degrees, east positive, or leave it empty")
                }
                variation = value
            }
            parsed.append(Station(id: id, position: LatLng(latitude: lat, longitude: lon), variationDegrees: variation))
        }
        self.init(parsed)
    }

    /// The station for an identifier; a four-letter ICAO airport id (`KADH`) not in the table falls back to its
    /// three-letter FAA id (`ADH`), as US reports mix the two.
    package func station(_ id: String) -> Station? {
        let key = id.uppercased()
        if let found = stations[key] { return found }
        if key.count == 4, let first = key.first, "KPC".contains(first) { return stations[String(key.dropFirst())] }
        return nil
    }

    /// The position `distanceNM` from `station` along magnetic radial `radialDegrees` (true bearing = radial +
    /// variation), on the sphere (`Geodesy.destination`).
    package static func position(from station: Station, radialDegrees: Double, distanceNM: Double) -> LatLng {
        let point = Geodesy.destination(from: (station.position.latitude, station.position.longitude),
                                        bearingDegrees: radialDegrees + station.variationDegrees, distanceNM: distanceNM)
        return LatLng(latitude: point.latitude, longitude: point.longitude)
    }
}
#endif
