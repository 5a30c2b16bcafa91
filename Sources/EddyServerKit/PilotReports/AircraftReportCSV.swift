#if Tools
import EddyH3
import Foundation

/// The Aviation Weather Center's aircraft-report CSV (`aircraftreports.cache.csv`, the data server's CSV output):
/// a few preamble lines (`No errors`, `No warnings`, `58 ms`, `data source=aircraftreports`, `1957 results`), a header
/// whose names carry the units (`receipt_time, observation_time, …, aircraft_ref, latitude, longitude,
/// altitude_ft_msl, …, turbulence_type, turbulence_intensity, turbulence_base_ft_msl, turbulence_top_ft_msl,
/// turbulence_freq` twice, …, `report_type, raw_text`), then one report a row. Fields are not quoted; `raw_text`
/// is the last column and may itself hold commas, so everything from its column on is the raw text. Pure.
package struct AircraftReportCSV: Sendable {
    /// Column positions of the header; repeated names (the two turbulence groups) keep every position.
    let columns: [String: [Int]]

    /// Whether `line` is the CSV's header.
    package static func isHeader(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("receipt_time,")
    }

    /// Reads the header line; throws when it lacks the columns Eddy needs.
    package init(header: String) throws(PilotReportLineError) {
        var columns: [String: [Int]] = [:]
        for (index, name) in header.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            columns[name.trimmingCharacters(in: .whitespaces).lowercased(), default: []].append(index)
        }
        let needed = ["observation_time", "latitude", "longitude", "altitude_ft_msl", "report_type", "raw_text"]
        let missing = needed.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            throw PilotReportLineError("the aircraft-report CSV header lacks \(missing.joined(separator: ", "))",
                                       "give the AWC aircraft-report CSV as the data server writes it (header receipt_time,observation_time,…,raw_text)")
        }
        self.columns = columns
    }

    /// Decodes one row: AWC's decoded position, time, altitude and turbulence groups, the aircraft type and the report
    /// kind, with the raw text kept. The raw text is decoded too (`PilotReportTextDecoder`) for what the columns leave
    /// out (a turbulence group AWC did not decode); its failure does not reject a row whose columns suffice.
    package func decode(_ line: String, stations: StationTable?) throws(PilotReportLineError) -> DecodedPilotReport {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: String, _ occurrence: Int = 0) -> String? {
            guard let positions = columns[name], occurrence < positions.count, positions[occurrence] < fields.count else { return nil }
            let value = fields[positions[occurrence]].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        guard let rawColumn = columns["raw_text"]?.first, rawColumn < fields.count else {
            throw PilotReportLineError("the row has \(fields.count) fields, fewer than the header's raw_text column",
                                       "give every row all the header's columns, raw_text last")
        }
        var raw = fields[rawColumn...].joined(separator: ",")
        if raw.hasSuffix(",") { raw.removeLast() }     // the data server ends every row with a comma
        raw = raw.trimmingCharacters(in: .whitespaces)
        guard let timeText = column("observation_time"), let time = Self.instant(timeText) else {
            throw PilotReportLineError("observation_time \"\(column("observation_time") ?? "")\" is not an ISO 8601 UTC time",
                                       "write it as YYYY-MM-DDThh:mm:ssZ")
        }
        guard let latText = column("latitude"), let lonText = column("longitude"), let lat = Double(latText), let lon = Double(lonText),
              (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw PilotReportLineError("latitude/longitude \"\(column("latitude") ?? "")\", \"\(column("longitude") ?? "")\" is not a position",
                                       "give decimal degrees, latitude -90…90 and longitude -180…180")
        }
        let fromText = try? PilotReportTextDecoder.decode(raw, referenceTime: time, stations: stations, resolving: false)
        let reportType = (column("report_type") ?? "").uppercased()
        let kind: PilotReportKind = reportType.contains("AIREP") ? .airep : reportType.contains("URGENT") ? .urgentPIREP
            : fromText?.kind ?? .routinePIREP
        var altitude: PilotReportAltitude?
        if let text = column("altitude_ft_msl") {
            guard let feet = Double(text), (-2000...99_000).contains(feet) else {
                throw PilotReportLineError("altitude_ft_msl \"\(text)\" is not feet", "give the altitude in feet, or leave the field empty")
            }
            altitude = PilotReportAltitude(lowFeet: feet, highFeet: feet)
        }
        if column("no_flt_lvl")?.uppercased() == "TRUE" { altitude = nil }
        let turbulence = try turbulenceGroups(column) ?? fromText?.turbulence
        let location = PilotReportLocation(text: fromText?.location.text ?? "\(latText),\(lonText)",
                                           station: fromText?.location.station, radialDegrees: fromText?.location.radialDegrees,
                                           distanceNM: fromText?.location.distanceNM,
                                           position: LatLng(latitude: lat, longitude: lon),
                                           isRouteMidpoint: column("mid_point_assumed")?.uppercased() == "TRUE")
        let type = column("aircraft_ref")
        return DecodedPilotReport(
            kind: kind, rawText: raw, location: location, timeOfDay: fromText?.timeOfDay, observationTime: time,
            altitude: altitude, altitudeText: column("altitude_ft_msl"),
            aircraftType: kind == .airep ? nil : (type == "UNKN" ? nil : type),
            flight: kind == .airep ? (fromText?.flight ?? type) : nil, turbulence: turbulence)
    }

    /// AWC's decoded turbulence groups (up to two): the worse intensity and the union of their bands; nil when the
    /// row has none.
    func turbulenceGroups(_ column: (String, Int) -> String?) throws(PilotReportLineError) -> ReportedTurbulence? {
        var result: ReportedTurbulence?
        for group in 0..<2 {
            guard let text = column("turbulence_intensity", group) else { continue }
            guard let intensity = PilotReportFields.intensity(in: text) else {
                throw PilotReportLineError("turbulence_intensity \"\(text)\" is not an intensity", "use NEG, LGT, LGT-MOD, MOD, MOD-SEV, SEV or EXTRM")
            }
            var band: PilotReportAltitude?
            if let base = column("turbulence_base_ft_msl", group).flatMap(Double.init) {
                band = PilotReportAltitude(lowFeet: base, highFeet: column("turbulence_top_ft_msl", group).flatMap(Double.init) ?? base)
            }
            let type = column("turbulence_type", group).flatMap { PilotReportFields.typeWords[$0.uppercased()] }
            let current = ReportedTurbulence(intensity: intensity, type: type, altitude: band, text: text)
            guard let previous = result else { result = current; continue }
            var merged = previous.intensity >= intensity ? previous : current
            if let a = previous.altitude, let b = band {
                merged.altitude = PilotReportAltitude(lowFeet: min(a.lowFeet, b.lowFeet), highFeet: max(a.highFeet, b.highFeet))
            }
            merged.text = previous.text + "/" + text
            result = merged
        }
        return result
    }

    /// `2022-09-01T05:47:00Z` (or without seconds, or with fractional seconds) → Unix seconds; nil otherwise.
    package static func instant(_ text: String) -> Double? {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        guard characters.count >= 17, characters[4] == "-", characters[7] == "-", characters[10] == "T" || characters[10] == " ",
              characters[13] == ":" else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(characters[range])) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60 else { return nil }
        var seconds = 0.0
        if characters.count > 17, characters[16] == ":" {
            let tail = String(characters[17...]).trimmingCharacters(in: CharacterSet(charactersIn: "Z"))
            guard let value = Double(tail), value < 61 else { return nil }
            seconds = value
        } else if characters.count > 16, characters[16] != "Z" {
            return nil
        }
        return Double(daysFromCivil(year: year, month: month, day: day)) * 86_400 + Double(hour * 3600 + minute * 60) + seconds
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
#endif
