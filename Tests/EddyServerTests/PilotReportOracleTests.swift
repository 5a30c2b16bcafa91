#if Tools
import EddyH3
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// Our decode of real PIREP / AIREP text (Fixtures/pireps) against two outside decoders, report by report:
/// avwx-engine (PyPI, run by scripts/make_pirep_fixtures.py) for the PIREP fields, and the Aviation Weather Center's
/// own decoded columns (position, altitude, intensity, time) for the rows of its aircraft-report CSV.
@Suite struct PilotReportOracleTests {
    static let folder = PostgresFaultCluster.root.appendingPathComponent("Fixtures/pireps")

    /// Where we differ from avwx-engine on purpose (docs/nowcast.md "Pilot reports", "Where Eddy and avwx-engine differ").
    static let intendedAvwxDifferences: [String: String] = [
        // avwx-engine splits a PIREP at every solidus, so `/TB LGT/MOD` reads as LGT; the AWC decodes LGT-MOD, as we do.
        "awc-aircraftreports-2022-09-01.csv:13": "LGT/MOD is one intensity (LGT-MOD), not LGT and a field MO",
        "awc-aircraftreports-2022-09-01.csv:15": "LGT/MOD is one intensity (LGT-MOD), not LGT and a field MO",
    ]

    /// Stations the OurAirports table lacks (its airports file was not in the fetched snapshot, and SER's only namesake
    /// is in Chile): those PIREPs' own /OV cannot be placed, and the line says so.
    static let stationsMissing: Set<String> = ["IND", "TED", "SER"]

    struct Oracle {
        var file: String
        var line: Int
        var raw: String
        var avwx: [String: Any]?
        var awc: [String: Any]?
    }

    static func oracle() throws -> [Oracle] {
        let data = try Data(contentsOf: folder.appendingPathComponent("oracle.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let reports = try #require(root["reports"] as? [[String: Any]])
        return reports.map {
            Oracle(file: $0["file"] as? String ?? "", line: $0["line"] as? Int ?? 0, raw: $0["raw"] as? String ?? "",
                   avwx: $0["avwx"] as? [String: Any], awc: $0["awc"] as? [String: Any])
        }
    }

    static func stations() throws -> StationTable {
        let text = try String(contentsOf: folder.appendingPathComponent("stations.csv"), encoding: .utf8)
        return try StationTable(csv: text, source: "stations.csv")
    }

    /// Every report of the fixtures decodes to what avwx-engine and the AWC decoded, except the listed differences;
    /// prints the position error against the AWC's.
    @Test func decodesTheRealReportsAsTheOraclesDo() throws {
        let reports = try Self.oracle()
        let stations = try Self.stations()
        #expect(reports.count >= 40)
        var mismatches: [String] = []
        var positionErrorsNM: [(String, Double)] = []
        var compared = (avwx: 0, awc: 0)
        let avwxReference = try #require(AircraftReportCSV.instant("2023-10-17T06:00:00Z"))
        for oracle in reports {
            let name = "\(oracle.file):\(oracle.line)"
            let awc = oracle.awc
            let reference = (awc?["receipt_time"] as? String).flatMap(AircraftReportCSV.instant) ?? avwxReference
            let decoded: DecodedPilotReport
            do throws(PilotReportLineError) {
                decoded = try PilotReportTextDecoder.decode(oracle.raw, referenceTime: reference, stations: stations)
            } catch {
                let station = Self.stationsMissing.first { error.problem.contains("station \($0) ") }
                if station == nil { mismatches.append("\(name): \(error)") }
                continue
            }
            if let avwx = oracle.avwx {
                compared.avwx += 1
                let differences = Self.compare(decoded, avwx: avwx)
                if !differences.isEmpty, Self.intendedAvwxDifferences[name] == nil {
                    mismatches.append("\(name) vs avwx-engine: \(differences.joined(separator: "; "))")
                }
            }
            if let awc {
                compared.awc += 1
                let (differences, errorNM) = Self.compare(decoded, awc: awc)
                if let errorNM { positionErrorsNM.append((name, errorNM)) }
                if !differences.isEmpty { mismatches.append("\(name) vs AWC: \(differences.joined(separator: "; "))") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(compared.avwx >= 20 && compared.awc >= 20, "\(compared)")
        let sorted = positionErrorsNM.map(\.1).sorted()
        let worst = positionErrorsNM.max { $0.1 < $1.1 }
        print("pilot-report oracle: \(compared.avwx) reports against avwx-engine, \(compared.awc) against the AWC; position vs AWC: "
              + "median \(String(format: "%.2f", sorted[sorted.count / 2])) NM, max \(String(format: "%.2f", worst?.1 ?? 0)) NM (\(worst?.0 ?? "-"))")
        // Latitude/longitude forms agree to rounding; station-relative ones within the table's variation and position
        // (measured: 1.41 NM at 145 NM from PVN, half a degree of variation).
        #expect((worst?.1 ?? 0) < 2.0, "\(positionErrorsNM)")
    }

    /// The fields avwx-engine decodes: kind, /OV station, radial and distance, /TM, /FL, /TP, /TB intensity and band.
    static func compare(_ decoded: DecodedPilotReport, avwx: [String: Any]) -> [String] {
        var differences: [String] = []
        if (avwx["type"] as? String) != decoded.kind.rawValue { differences.append("type \(avwx["type"] ?? "nil") ≠ \(decoded.kind.rawValue)") }
        if let location = avwx["location"] as? [String: Any] {
            if let station = location["station"] as? String, station != decoded.location.station {
                differences.append("station \(station) ≠ \(decoded.location.station ?? "nil")")
            }
            if (location["direction"] as? Int) != decoded.location.radialDegrees || (location["distance"] as? Int) != decoded.location.distanceNM {
                differences.append("radial/distance \(location["direction"] ?? "nil")/\(location["distance"] ?? "nil") ≠ "
                    + "\(decoded.location.radialDegrees.map(String.init) ?? "nil")/\(decoded.location.distanceNM.map(String.init) ?? "nil")")
            }
        }
        let ours = decoded.timeOfDay.map { String(format: "%02d%02d", $0.hour, $0.minute) }
        if (avwx["time"] as? String) != ours { differences.append("time \(avwx["time"] ?? "nil") ≠ \(ours ?? "nil")") }
        if let hundreds = avwx["altitude"] as? Int {
            if decoded.altitude?.lowFeet != Double(hundreds * 100) { differences.append("altitude \(hundreds) ≠ \(String(describing: decoded.altitude))") }
        } else if avwx["altitude"] is String, decoded.altitude != nil {
            differences.append("altitude \(avwx["altitude"] ?? "") is not a level, ours \(String(describing: decoded.altitude))")
        }
        if (avwx["aircraft"] as? String) != decoded.aircraftType { differences.append("aircraft \(avwx["aircraft"] ?? "nil") ≠ \(decoded.aircraftType ?? "nil")") }
        let turbulence = avwx["turbulence"] as? [String: Any]
        if (turbulence == nil) != (decoded.turbulence == nil) { differences.append("turbulence present \(turbulence != nil) ≠ \(decoded.turbulence != nil)") }
        if let turbulence, let ours = decoded.turbulence {
            let severity = turbulence["severity"] as? String ?? ""
            if PilotReportFields.intensity(in: severity) != ours.intensity { differences.append("intensity \(severity) ≠ \(ours.intensity.code)") }
            if let ceiling = turbulence["ceiling"] as? Int, ours.altitude?.highFeet != Double(ceiling * 100) {
                differences.append("turbulence ceiling \(ceiling) ≠ \(String(describing: ours.altitude))")
            }
            if let floor = turbulence["floor"] as? Int, ours.altitude?.lowFeet != Double(floor * 100) {
                differences.append("turbulence floor \(floor) ≠ \(String(describing: ours.altitude))")
            }
        }
        return differences
    }

    /// The AWC's decoded columns: position (great-circle distance returned), altitude, intensity, observation time.
    static func compare(_ decoded: DecodedPilotReport, awc: [String: Any]) -> (differences: [String], positionErrorNM: Double?) {
        var differences: [String] = []
        var errorNM: Double?
        if let lat = awc["latitude"] as? Double, let lon = awc["longitude"] as? Double, let position = decoded.location.position {
            errorNM = Geodesy.distanceNM(from: (lat, lon), to: (position.latitude, position.longitude))
        } else {
            differences.append("no position")
        }
        if let feet = awc["altitude_ft_msl"] as? Double, decoded.altitude?.lowFeet != feet {
            differences.append("altitude \(feet) ≠ \(String(describing: decoded.altitude))")
        }
        let groups = awc["turbulence"] as? [[String: Any]] ?? []
        let awcIntensity = groups.compactMap { ($0["intensity"] as? String).flatMap(PilotReportFields.intensity(in:)) }.max()
        if awcIntensity != decoded.turbulence?.intensity {
            differences.append("intensity \(awcIntensity?.code ?? "none") ≠ \(decoded.turbulence?.intensity.code ?? "none")")
        }
        if let time = (awc["observation_time"] as? String).flatMap(AircraftReportCSV.instant), time != decoded.observationTime {
            differences.append("observation time \(time) ≠ \(decoded.observationTime)")
        }
        return (differences, errorNM)
    }

    /// The CSV reader takes the AWC's decoded columns: every row with turbulence is a record at the AWC's position,
    /// rows without are skipped (AIREPs reporting no turbulence, a PIREP of icing only).
    @Test func readsTheAWCCSVWithItsDecodedFields() throws {
        for (name, records, skipped) in [("awc-aircraftreports-2022-09-01.csv", 10, 1), ("awc-aircraftreports-2022-04-23.csv", 1, 12)] {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            let reading = PilotReportReader.read(text, source: name, referenceTime: 0, stations: nil)
            #expect(reading.errors.isEmpty, "\(reading.errors)")
            #expect(reading.records.count == records && reading.skips.count == skipped, "\(name): \(reading.records.count), \(reading.skips)")
            for record in reading.records {
                #expect(record.report.observationTime > 1.6e9, "\(record.report.rawText)")
                #expect(record.cells.count == 1 && record.cells[0].layer == Int(record.altitude.lowFeet / 1000))
            }
        }
        let text = try String(contentsOf: Self.folder.appendingPathComponent("awc-aircraftreports-2022-04-23.csv"), encoding: .utf8)
        let urgent = try #require(PilotReportReader.read(text, source: "x", referenceTime: 0, stations: nil).records.first)
        #expect(urgent.report.kind == .urgentPIREP && urgent.intensity == .moderateSevere && urgent.aircraftClass == .medium)
        #expect(urgent.position == LatLng(latitude: 38.015, longitude: -104.659))
        #expect(urgent.report.observationTime == AircraftReportCSV.instant("2022-04-23T05:10:00Z"))
    }
}
#endif
