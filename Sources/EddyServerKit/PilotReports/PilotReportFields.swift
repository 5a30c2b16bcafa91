#if Tools
package import EddyH3
import EddyVocabulary
import Foundation

/// Decoders of the fields PIREPs and AIREPs share: locations, altitudes, turbulence groups. Pure.
package enum PilotReportFields {
    /// Intensity words and their levels (FAA contractions, the spelled-out forms and ICAO's `SVR`/`MDT`).
    static let intensityWords: [String: ReportedTurbulenceIntensity] = [
        "NEG": .smooth, "SMTH": .smooth, "SMOOTH": .smooth, "NIL": .smooth, "NONE": .smooth,
        "LGT": .light, "LIGHT": .light, "LT": .light, "LGHT": .light,
        "MOD": .moderate, "MODERATE": .moderate, "MDT": .moderate,
        "SEV": .severe, "SEVERE": .severe, "SVR": .severe,
        "EXTRM": .extreme, "EXTREME": .extreme, "XTRM": .extreme, "EXTR": .extreme,
    ]

    /// Type words.
    static let typeWords: [String: ReportedTurbulenceType] = ["CAT": .clearAir, "CHOP": .chop, "LLWS": .lowLevelWindShear]

    /// The intensity of a text such as `MOD`, `LGT-MOD`, `MODERATE TO SEVERE`, `OCNL LGT`, `SMTH-LGT`; nil when it has
    /// no intensity word.
    package static func intensity(in text: String) -> ReportedTurbulenceIntensity? {
        let levels = words(of: text).compactMap { intensityWords[$0] }
        guard let low = levels.min(), let high = levels.max() else { return nil }
        return ReportedTurbulenceIntensity.range(low, high)
    }

    /// The words of a group, split at spaces, hyphens and solidi (`LGT-MOD`, `LGT/MOD`).
    static func words(of text: String) -> [String] {
        text.uppercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "/" || $0 == "," }).map(String.init)
    }

    /// Decodes a `/TB` group: intensity, type and the altitude band it names, if any (`180-280`, `BLO 250`, `ABV
    /// FL350`, `BLO-090`, `250`). `BLO h` is taken as h − 4,000 ft … h and `ABV h` as h … h + 4,000 ft (five layers: the
    /// reports do not say how far; docs/nowcast.md).
    package static func turbulence(_ text: String) throws(PilotReportLineError) -> ReportedTurbulence {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let intensity = intensity(in: trimmed) else {
            throw PilotReportLineError("turbulence group \"\(trimmed)\" has no intensity",
                                       "write NEG, LGT, LGT-MOD, MOD, MOD-SEV, SEV or EXTRM in /TB")
        }
        let tokens = trimmed.uppercased().split(separator: " ").map(String.init)
        let type = words(of: trimmed).lazy.compactMap { typeWords[$0] }.first
        var altitude: PilotReportAltitude?
        for (index, token) in tokens.enumerated() {
            if token.hasPrefix("BLO") || token.hasPrefix("BLW") || token.hasPrefix("ABV") {
                let rest = token.dropFirst(3).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
                let value = rest.isEmpty ? (index + 1 < tokens.count ? tokens[index + 1] : "") : rest
                guard let feet = hundredsOfFeet(value) else {
                    throw PilotReportLineError("turbulence group \"\(trimmed)\": \(token) needs an altitude in hundreds of feet",
                                               "write e.g. BLO 250 or ABV FL350")
                }
                altitude = token.hasPrefix("ABV") ? PilotReportAltitude(lowFeet: feet, highFeet: feet + 4000)
                                                  : PilotReportAltitude(lowFeet: max(0, feet - 4000), highFeet: feet)
                break
            }
            if let range = hundredsOfFeetRange(token) { altitude = range; break }
        }
        return ReportedTurbulence(intensity: intensity, type: type, altitude: altitude, text: trimmed)
    }

    /// `250`, `FL250`, `F250` → 25,000 ft; nil for anything else.
    static func hundredsOfFeet(_ text: String) -> Double? {
        var digits = Substring(text)
        if digits.hasPrefix("FL") { digits = digits.dropFirst(2) } else if digits.hasPrefix("F") { digits = digits.dropFirst() }
        guard (2...3).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let value = Int(digits) else { return nil }
        return Double(value * 100)
    }

    /// `180-280`, `FL180-FL280`, or a lone three-digit `250` → a band; nil for anything else.
    static func hundredsOfFeetRange(_ token: String) -> PilotReportAltitude? {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, let low = hundredsOfFeet(parts[0]), let high = hundredsOfFeet(parts[1]) {
            return PilotReportAltitude(lowFeet: low, highFeet: high)
        }
        if parts.count == 1, token.count == 3, let single = hundredsOfFeet(token) {
            return PilotReportAltitude(lowFeet: single, highFeet: single)
        }
        return nil
    }

    /// Decodes a `/FL` field: `380` → 38,000 ft, `250-270` → a band; nil for `UNKN`, `DURD`, `DURC`, `DURGD`, `DURGC`.
    package static func pirepAltitude(_ text: String) throws(PilotReportLineError) -> PilotReportAltitude? {
        let field = text.trimmingCharacters(in: .whitespaces).uppercased()
        if field.isEmpty || ["UNKN", "UNK", "DURD", "DURC", "DURGD", "DURGC"].contains(field) { return nil }
        if let band = hundredsOfFeetRange(field) { return band }
        throw PilotReportLineError("altitude /FL\(field) is not three digits of hundreds of feet",
                                   "write /FL followed by e.g. 350, 050-070, UNKN, DURD or DURC")
    }

    /// Compass points as radials, degrees (16-point rose).
    static let compassPoints: [String: Int] = [
        "N": 0, "NNE": 22, "NE": 45, "ENE": 67, "E": 90, "ESE": 112, "SE": 135, "SSE": 157,
        "S": 180, "SSW": 202, "SW": 225, "WSW": 247, "W": 270, "WNW": 292, "NW": 315, "NNW": 337,
    ]

    /// Decodes a location as written in `/OV` (or an AIREP's position): `62N040W`, `4716N03402W`, `KADH120005`,
    /// `GON 270010`, `SBJ090/010`, `15 SW LRP`, `TXK`, and routes `ABC-DEF` (the midpoint of the first and last fix).
    /// A station-relative location is placed with `stations`; without a table, or for a station it lacks, the line is
    /// an error saying so.
    /// With `resolving` false, a station-relative location is returned without a position instead (the AWC CSV gives
    /// the position decoded).
    package static func location(_ text: String, stations: StationTable?, resolving: Bool = true) throws(PilotReportLineError)
        -> PilotReportLocation {
        let field = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !field.isEmpty else {
            throw PilotReportLineError("the location /OV is empty", "write a station (ABC), a radial and distance (ABC090025) or a latitude/longitude (4716N03402W)")
        }
        let fixes = field.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if fixes.count > 1, let first = fixes.first, let last = fixes.last {
            let a = try point(first, stations: stations, resolving: resolving), b = try point(last, stations: stations, resolving: resolving)
            var route = a
            route.text = field
            route.radialDegrees = nil
            route.distanceNM = nil
            route.isRouteMidpoint = true
            if let pa = a.position, let pb = b.position {
                let distance = Geodesy.distanceNM(from: (pa.latitude, pa.longitude), to: (pb.latitude, pb.longitude))
                let bearing = Geodesy.initialBearingDegrees(from: (pa.latitude, pa.longitude), to: (pb.latitude, pb.longitude))
                let mid = Geodesy.destination(from: (pa.latitude, pa.longitude), bearingDegrees: bearing, distanceNM: distance / 2)
                route.position = LatLng(latitude: mid.latitude, longitude: mid.longitude)
            }
            return route
        }
        return try point(field, stations: stations, resolving: resolving)
    }

    /// One fix of a location.
    static func point(_ field: String, stations: StationTable?, resolving: Bool) throws(PilotReportLineError) -> PilotReportLocation {
        if let position = latitudeLongitude(field) { return PilotReportLocation(text: field, position: position) }
        var station: String, radial: Int?, distance: Int?
        let parts = field.split(separator: " ").map(String.init)
        if parts.count == 3, let miles = Int(parts[0]), let bearing = compassPoints[parts[1]] {
            (station, radial, distance) = (parts[2], bearing, miles)          // 15 SW LRP
        } else if parts.count == 2, let miles = Int(parts[0]), parts[1].count > 3,
                  let split = compassSplit(parts[1]) {
            (station, radial, distance) = (split.station, split.bearing, miles) // 10 WGON
        } else if let relative = radialDistance(field.replacingOccurrences(of: " ", with: "")) {
            (station, radial, distance) = relative                            // KADH120005, GON 270010, SBJ090/010
        } else if parts.count == 1, isStationIdentifier(field) {
            station = field
        } else {
            throw PilotReportLineError("location \"\(field)\" is not a station, a radial and distance or a latitude/longitude",
                                       "write e.g. ABC, ABC090025, 15 SW ABC or 4716N03402W")
        }
        var location = PilotReportLocation(text: field, station: station, radialDegrees: radial, distanceNM: distance)
        guard resolving else { return location }
        guard let stations else {
            throw PilotReportLineError("location \(field) is relative to station \(station) and no station table was given",
                                       "pass --stations FILE (CSV: id,latitude_deg,longitude_deg[,variation_deg]) naming \(station)")
        }
        guard let found = stations.station(station) else {
            throw PilotReportLineError("station \(station) of location \(field) is not in the station table",
                                       "add \(station) to the --stations table (id,latitude_deg,longitude_deg[,variation_deg])")
        }
        if let radial, radial > 360 {
            throw PilotReportLineError("radial \(radial) of location \(field) is not a direction", "write the radial as 000…360 degrees")
        }
        location.position = StationTable.position(from: found, radialDegrees: Double(radial ?? 0), distanceNM: Double(distance ?? 0))
        return location
    }

    /// `10 WGON` → (GON, 270): a compass point glued to the station.
    static func compassSplit(_ token: String) -> (station: String, bearing: Int)? {
        for length in [3, 2, 1] where token.count > length + 1 {
            if let bearing = compassPoints[String(token.prefix(length))] { return (String(token.dropFirst(length)), bearing) }
        }
        return nil
    }

    /// `KADH120005` / `SBJ090/010` → station, radial, distance.
    static func radialDistance(_ field: String) -> (String, Int?, Int?)? {
        let compact = field.replacingOccurrences(of: "/", with: "")
        guard compact.count >= 8 else { return nil }
        let digits = compact.suffix(6)
        let station = String(compact.dropLast(6))
        guard digits.allSatisfy(\.isASCIIDigit), isStationIdentifier(station),
              let radial = Int(digits.prefix(3)), let distance = Int(digits.suffix(3)) else { return nil }
        return (station, radial, distance)
    }

    /// Two to five letters and digits with at least one letter (`TXK`, `KADH`, `1F0`).
    static func isStationIdentifier(_ text: String) -> Bool {
        (2...5).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } && text.contains(where: \.isLetter)
    }

    /// `62N040W`, `4716N03402W`, `4716N 03402W`, `0824S17142W` → a position; nil for anything else.
    package static func latitudeLongitude(_ field: String) -> LatLng? {
        let compact = field.replacingOccurrences(of: " ", with: "")
        guard let hemisphereIndex = compact.firstIndex(where: { $0 == "N" || $0 == "S" }) else { return nil }
        let latDigits = compact[..<hemisphereIndex]
        let rest = compact[compact.index(after: hemisphereIndex)...]
        guard let last = rest.last, last == "E" || last == "W" else { return nil }
        let lonDigits = rest.dropLast()
        guard latDigits.allSatisfy(\.isASCIIDigit), lonDigits.allSatisfy(\.isASCIIDigit),
              let latitude = degreesMinutes(latDigits, degreeDigits: 2), let longitude = degreesMinutes(lonDigits, degreeDigits: 3),
              latitude <= 90, longitude <= 180 else { return nil }
        return LatLng(latitude: compact[hemisphereIndex] == "S" ? -latitude : latitude,
                                   longitude: last == "W" ? -longitude : longitude)
    }

    /// `47` or `4716` (degree digits, then optional minutes) → decimal degrees.
    static func degreesMinutes(_ digits: Substring, degreeDigits: Int) -> Double? {
        guard digits.count == degreeDigits || digits.count == degreeDigits + 2, let degrees = Int(digits.prefix(degreeDigits)) else { return nil }
        guard digits.count > degreeDigits else { return Double(degrees) }
        guard let minutes = Int(digits.suffix(2)), minutes < 60 else { return nil }
        return Double(degrees) + Double(minutes) / 60
    }

    /// `0547` → (5, 47); nil for anything but four digits of a valid time.
    package static func timeOfDay(_ text: String) -> (hour: Int, minute: Int)? {
        let field = text.trimmingCharacters(in: .whitespaces)
        guard field.count == 4, field.allSatisfy(\.isASCIIDigit), let value = Int(field), value / 100 < 24, value % 100 < 60 else { return nil }
        return (value / 100, value % 100)
    }
}

extension Character {
    /// An ASCII digit 0–9.
    var isASCIIDigit: Bool { isASCII && isNumber }
}
#endif
