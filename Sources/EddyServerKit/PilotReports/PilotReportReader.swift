#if Tools
import Crypto
package import EddyH3
package import EddyVocabulary
import Foundation

/// A tile a pilot report covers: H3 resolution-5 cell × 1,000-ft layer.
package struct PilotReportCell: Sendable, Hashable {
    /// H3 resolution-5 cell.
    package var h3: UInt64
    /// Layer (`TileID.layer`): thousands of feet.
    package var layer: Int
}

/// A decoded pilot report ready to store: where it came from, what it says, the EDR band it stands for and its cells.
package struct PilotReportRecord: Sendable, Equatable {
    /// The provenance stored with every pilot report (fleet reports are "measured", forecasts "forecast").
    package static let provenance = "pilotReport"
    /// Identity: hex SHA-256 of the observation minute and the normalised text, so the same report read twice (from
    /// two files, a CSV and a text line, or the same file again) is one report.
    package var id: String
    /// The decoded report.
    package var report: DecodedPilotReport
    /// The file it was read from, as given.
    package var sourceFile: String
    /// Its line number in that file (1-based).
    package var sourceLine: Int
    /// The decoded position.
    package var position: LatLng
    /// The altitude band of the turbulence, feet.
    package var altitude: PilotReportAltitude
    /// The reported intensity.
    package var intensity: ReportedTurbulenceIntensity
    /// The reporter's class (from its type; medium when assumed).
    package var aircraftClass: AircraftClass
    /// Whether the class was assumed (type unknown, `UNKN`, or an AIREP).
    package var aircraftClassAssumed: Bool
    /// Lower EDR bound of the band, m^(2/3) s^-1 (`PilotReportEDR.band`).
    package var edrLower: Double
    /// Upper EDR bound, m^(2/3) s^-1; nil when open (severe–extreme, extreme).
    package var edrUpper: Double?
    /// The cells (one H3 cell × each layer of the band).
    package var cells: [PilotReportCell]
}

/// What became of one line.
package enum PilotReportLineOutcome: Sendable, Equatable {
    /// A report to store.
    case report(PilotReportRecord)
    /// A report that carries nothing Eddy can place as turbulence (no turbulence group, no altitude): counted, not an error.
    case skipped(reason: String)
    /// A line that is not a usable report: what is wrong and what to do.
    case failed(PilotReportLineError)
}

/// The lines of one file and what became of each (comment, blank and CSV preamble/header lines are not listed).
package struct PilotReportFileReading: Sendable {
    /// The file as named to the reader.
    package var source: String
    /// (line number, outcome), in file order.
    package var lines: [(line: Int, outcome: PilotReportLineOutcome)]

    /// The reports to store.
    package var records: [PilotReportRecord] { lines.compactMap { if case .report(let r) = $0.outcome { r } else { nil } } }
    /// The failed lines with their errors.
    package var errors: [(line: Int, error: PilotReportLineError)] {
        lines.compactMap { if case .failed(let e) = $0.outcome { ($0.line, e) } else { nil } }
    }
    /// The skipped lines with their reasons.
    package var skips: [(line: Int, reason: String)] {
        lines.compactMap { if case .skipped(let r) = $0.outcome { ($0.line, r) } else { nil } }
    }
}

/// Reads a file's text of PIREPs / AIREPs: raw report lines (one report a line; `#` starts a comment line) or the AWC
/// aircraft-report CSV (recognised by its header). Pure: the caller reads the file and gives its reference time.
package enum PilotReportReader {
    /// Highest altitude a report may place turbulence at, feet (layer 60).
    package static let maximumAltitudeFeet = 60_999.0

    /// Reads `text` named `source`. `referenceTime` (Unix seconds; the file's modification time unless given) dates
    /// raw lines' `/TM` times; CSV rows carry their own. `stations` places station-relative locations.
    package static func read(_ text: String, source: String, referenceTime: Double, stations: StationTable?) -> PilotReportFileReading {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\r")) }
        // A CSV has its header within its first lines (after the data server's preamble); before it, nothing is a report.
        let headerIndex = lines.prefix(12).firstIndex(where: AircraftReportCSV.isHeader)
        var csv: AircraftReportCSV?
        var result = PilotReportFileReading(source: source, lines: [])
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if let headerIndex {
                if index < headerIndex { continue }
                if index == headerIndex {
                    do throws(PilotReportLineError) { csv = try AircraftReportCSV(header: trimmed) } catch { result.lines.append((number, .failed(error))) }
                    continue
                }
                guard let csv else { continue }   // a bad header was reported once; its rows cannot be read
                result.lines.append((number, outcome(source: source, line: number) { () throws(PilotReportLineError) in
                    try csv.decode(trimmed, stations: stations)
                }))
            } else {
                result.lines.append((number, outcome(source: source, line: number) { () throws(PilotReportLineError) in
                    try PilotReportTextDecoder.decode(trimmed, referenceTime: referenceTime, stations: stations)
                }))
            }
        }
        return result
    }

    /// The outcome of decoding one line with `decode`.
    static func outcome(source: String, line: Int, _ decode: () throws(PilotReportLineError) -> DecodedPilotReport) -> PilotReportLineOutcome {
        let report: DecodedPilotReport
        do throws(PilotReportLineError) { report = try decode() } catch { return .failed(error) }
        return record(report, source: source, line: line)
    }

    /// A decoded report as a record to store, or why it is skipped or fails.
    package static func record(_ report: DecodedPilotReport, source: String, line: Int) -> PilotReportLineOutcome {
        guard let turbulence = report.turbulence else {
            return .skipped(reason: "no turbulence reported (no /TB group, no TURB)")
        }
        guard let altitude = report.turbulenceAltitude else {
            return .skipped(reason: "turbulence \(turbulence.text) without an altitude (/FL \(report.altitudeText ?? "missing"), no band in /TB)")
        }
        guard altitude.lowFeet >= -2000, altitude.highFeet <= maximumAltitudeFeet else {
            return .failed(PilotReportLineError(
                "altitude \(Int(altitude.lowFeet))–\(Int(altitude.highFeet)) ft is outside -2,000…60,999 ft",
                "write /FL in hundreds of feet (e.g. 350 for 35,000 ft)"))
        }
        guard let position = report.location.position else {
            return .failed(PilotReportLineError("location \(report.location.text) has no position",
                                                "give a station table (--stations) naming its station"))
        }
        guard let cell = try? H3.latLngToCell(latitude: position.latitude, longitude: position.longitude, resolution: TileID.h3Resolution)
        else {
            return .failed(PilotReportLineError("position \(position.latitude), \(position.longitude) has no H3 cell", "check the location"))
        }
        let band = PilotReportAltitude(lowFeet: max(0, altitude.lowFeet), highFeet: max(0, altitude.highFeet))
        let (aircraftClass, assumed) = PilotReportEDR.reporterClass(designator: report.aircraftType)
        let edr = PilotReportEDR.band(for: turbulence.intensity, reporter: aircraftClass)
        return .report(PilotReportRecord(
            id: identity(of: report), report: report, sourceFile: source, sourceLine: line, position: position, altitude: band,
            intensity: turbulence.intensity, aircraftClass: aircraftClass, aircraftClassAssumed: assumed,
            edrLower: edr.lower, edrUpper: edr.upper,
            cells: band.layers.map { PilotReportCell(h3: cell.rawValue, layer: $0) }))
    }

    /// The identity of a report: hex SHA-256 of its observation minute and its text in upper case with spaces collapsed.
    package static func identity(of report: DecodedPilotReport) -> String {
        let text = report.rawText.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
        let minute = Int((report.observationTime / 60).rounded(.down))
        return SHA256.hash(data: Array("\(minute)|\(text)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
#endif
