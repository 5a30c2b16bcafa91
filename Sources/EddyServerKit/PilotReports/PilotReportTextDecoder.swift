#if Tools
import Foundation

/// Decodes one line of report text: a PIREP (`UA` / `UUA` with `/OV /TM /FL /TP /TB …`) or an ICAO AIREP (`ARP` /
/// `ARS`, or the bare position-report form `UAL842 0824S 17142W 0511 F330 MS39 254/14`). Pure: no I/O, no clock (the
/// day of the `/TM` time comes from `referenceTime`).
package enum PilotReportTextDecoder {
    /// The PIREP text element indicators (FAA JO 7110.10): a solidus followed by one of these starts a field.
    static let elementIndicators: Set<String> = ["OV", "TM", "FL", "TP", "SK", "WX", "TA", "WV", "TB", "IC", "RM"]

    /// Decodes `line`. `referenceTime` (Unix seconds) is when the report was filed or received: the `/TM` time is placed
    /// on the latest day not after it (`PilotReportTime`). `stations` places station-relative locations; with
    /// `resolving` false they are left without a position instead of failing (the AWC CSV's rows carry theirs).
    package static func decode(_ line: String, referenceTime: Double, stations: StationTable?, resolving: Bool = true)
        throws(PilotReportLineError) -> DecodedPilotReport {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw PilotReportLineError("the line is empty", "remove it") }
        if text.uppercased().contains("/OV") { return try pirep(text, referenceTime: referenceTime, stations: stations, resolving: resolving) }
        return try airep(text, referenceTime: referenceTime, stations: stations, resolving: resolving)
    }

    /// Splits a PIREP into its header and `(indicator, value)` fields. A solidus starts a field only when the two
    /// letters after it are an indicator followed by a space, a digit or the end (`/FL` by anything): `/TB LGT/MOD` keeps
    /// `LGT/MOD` together and `/SK OVC015/OVC230` keeps its layers (avwx-engine splits at every solidus).
    static func fields(of text: String) -> (header: String, fields: [(String, String)]) {
        let characters = Array(text.uppercased())
        var starts: [Int] = []
        for index in characters.indices where characters[index] == "/" && index + 2 < characters.count {
            let indicator = String(characters[(index + 1)...(index + 2)])
            guard elementIndicators.contains(indicator) else { continue }
            let next: Character? = index + 3 < characters.count ? characters[index + 3] : nil
            if indicator == "FL" || next.map({ $0 == " " || $0.isASCIIDigit }) ?? true { starts.append(index) }
        }
        guard let first = starts.first else { return (String(characters), []) }
        var fields: [(String, String)] = []
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1] : characters.count
            let indicator = String(characters[(start + 1)..<(start + 3)])
            let value = String(characters[(start + 3)..<end]).trimmingCharacters(in: .whitespaces)
            fields.append((indicator, value))
        }
        return (String(characters[..<first]).trimmingCharacters(in: .whitespaces), fields)
    }

    /// A PIREP line.
    static func pirep(_ text: String, referenceTime: Double, stations: StationTable?, resolving: Bool) throws(PilotReportLineError) -> DecodedPilotReport {
        let (header, fields) = fields(of: text)
        let headerWords = header.split(separator: " ").map(String.init)
        let kind: PilotReportKind
        if headerWords.contains("UUA") { kind = .urgentPIREP } else if headerWords.contains("UA") { kind = .routinePIREP } else {
            throw PilotReportLineError("no UA or UUA before /OV: \"\(header)\" is not a PIREP header",
                                       "start the report with UA (routine) or UUA (urgent), e.g. ABC UA /OV …")
        }
        func value(_ indicator: String) -> String? { fields.first(where: { $0.0 == indicator })?.1 }
        guard let locationText = value("OV") else {
            throw PilotReportLineError("the PIREP has no /OV location", "give /OV with a station, radial and distance or latitude/longitude")
        }
        let location = try PilotReportFields.location(locationText, stations: stations, resolving: resolving)
        guard let timeText = value("TM") else {
            throw PilotReportLineError("the PIREP has no /TM time", "give /TM with the time of the observation, hhmm UTC")
        }
        guard let time = PilotReportFields.timeOfDay(timeText) else {
            throw PilotReportLineError("time /TM \(timeText) is not hhmm UTC", "write four digits, hour 00–23 and minute 00–59, e.g. /TM 0547")
        }
        let altitudeText = value("FL")
        let altitude = try altitudeText.map { text throws(PilotReportLineError) in try PilotReportFields.pirepAltitude(text) } ?? nil
        let typeText = value("TP")?.split(separator: " ").first.map(String.init)
        let turbulence = try value("TB").map { text throws(PilotReportLineError) in try PilotReportFields.turbulence(text) }
        return DecodedPilotReport(
            kind: kind, rawText: text, location: location, timeOfDay: time,
            observationTime: PilotReportTime.resolve(hour: time.hour, minute: time.minute, referenceTime: referenceTime),
            altitude: altitude, altitudeText: altitudeText, aircraftType: typeText == "UNKN" ? nil : typeText, flight: nil,
            turbulence: turbulence)
    }

    /// An AIREP line: `[ARP|ARS|AIREP] FLIGHT POSITION TIME LEVEL …`; the position is a latitude/longitude (glued or
    /// in two words) or a station of the table; the level `F350` (flight level) or `A050` (altitude, hundreds of feet);
    /// turbulence is `TURB` with an intensity word before or after it (`TURB SEV`, `MOD TURB`, `TURBULENCE SEVERE`).
    static func airep(_ text: String, referenceTime: Double, stations: StationTable?, resolving: Bool) throws(PilotReportLineError) -> DecodedPilotReport {
        var words = text.uppercased().split(separator: " ").map(String.init)[...]
        if let first = words.first, ["ARP", "ARS", "AIREP"].contains(first) { words = words.dropFirst() }
        guard let flight = words.popFirst(), flight.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw PilotReportLineError("neither a PIREP (no /OV) nor an AIREP (no flight after ARP)",
                                       "give PIREPs as ABC UA /OV …/TM …/FL …/TP …/TB … and AIREPs as ARP FLIGHT POSITION HHMM F350 …")
        }
        guard let positionWord = words.popFirst() else {
            throw PilotReportLineError("the AIREP of \(flight) has no position", "give the position after the flight, e.g. 5640N00806W")
        }
        var positionText = positionWord
        if PilotReportFields.latitudeLongitude(positionText) == nil, let next = words.first,
           PilotReportFields.latitudeLongitude(positionWord + next) != nil {
            positionText = positionWord + " " + next
            words = words.dropFirst()
        }
        let location: PilotReportLocation
        if let position = PilotReportFields.latitudeLongitude(positionText) {
            location = PilotReportLocation(text: positionText, position: position)
        } else {
            do throws(PilotReportLineError) {
                location = try PilotReportFields.location(positionText, stations: stations, resolving: resolving)
            } catch {
                throw PilotReportLineError("AIREP position \(positionText) of \(flight): \(error.problem)", error.remedy)
            }
        }
        guard let timeText = words.popFirst(), let time = PilotReportFields.timeOfDay(timeText) else {
            throw PilotReportLineError("the AIREP of \(flight) has no time hhmm after its position", "write the time as four digits UTC, e.g. 0622")
        }
        var altitude: PilotReportAltitude?
        var altitudeText: String?
        if let level = words.first, level.count >= 3, level.first == "F" || level.first == "A" {
            guard let feet = PilotReportFields.hundredsOfFeet("F" + level.dropFirst()) else {
                throw PilotReportLineError("AIREP level \(level) of \(flight) is not F or A and three digits", "write e.g. F350 or A050")
            }
            altitude = PilotReportAltitude(lowFeet: feet, highFeet: feet)
            altitudeText = level
            words = words.dropFirst()
        }
        let turbulence = try airepTurbulence(Array(words))
        return DecodedPilotReport(
            kind: .airep, rawText: text, location: location, timeOfDay: time,
            observationTime: PilotReportTime.resolve(hour: time.hour, minute: time.minute, referenceTime: referenceTime),
            altitude: altitude, altitudeText: altitudeText, aircraftType: nil, flight: flight, turbulence: turbulence)
    }

    /// The turbulence of an AIREP's remaining words: `TURB`/`TURBULENCE`/`TB` with intensity words next to it.
    static func airepTurbulence(_ words: [String]) throws(PilotReportLineError) -> ReportedTurbulence? {
        guard let index = words.firstIndex(where: { $0 == "TURB" || $0 == "TURBULENCE" || $0 == "TB" }) else { return nil }
        let window = words[max(0, index - 1)..<min(words.count, index + 3)]
        let candidates = window.filter { PilotReportFields.intensity(in: $0) != nil || $0 == "TO" }
        guard !candidates.isEmpty else {
            throw PilotReportLineError("AIREP turbulence \"\(window.joined(separator: " "))\" has no intensity",
                                       "write TURB LGT, TURB MOD or TURB SEV")
        }
        return try PilotReportFields.turbulence(candidates.joined(separator: " "))
    }
}
#endif
