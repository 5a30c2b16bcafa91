#if Tools
import EddyH3
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// The decoder's rules one by one (the real-text comparison is `PilotReportOracleTests`): intensity words, /TB bands,
/// locations, AIREP turbulence, time of day, the EDR mapping, and bad lines with their errors.
@Suite struct PilotReportDecoderTests {
    static let reference = AircraftReportCSV.instant("2022-09-01T06:00:00Z")!
    static let stations = StationTable([
        .init(id: "ADH", position: LatLng(latitude: 34.8026, longitude: -96.6701), variationDegrees: 6.001),
        .init(id: "OKC", position: LatLng(latitude: 35.3578, longitude: -97.6093), variationDegrees: 0),
    ])

    @Test(arguments: [
        ("MOD", ReportedTurbulenceIntensity.moderate), ("LGT-MOD CHOP", .lightModerate), ("LGT/MOD", .lightModerate),
        ("MODERATE TO SEVERE", .moderateSevere), ("OCNL LGT CHOP", .light), ("SMTH-LGT", .light), ("NEG", .smooth),
        ("SEV CAT", .severe), ("EXTRM", .extreme), ("SEV-EXTRM", .severeExtreme), ("CONS LGT OCNL MOD", .lightModerate),
        ("LGT OCNL SEV", .severe), ("MOD TURB", .moderate),
    ])
    func intensityWords(text: String, intensity: ReportedTurbulenceIntensity) {
        #expect(PilotReportFields.intensity(in: text) == intensity)
    }

    /// /TB bands: a range, BLO and ABV (the FAA form's `BLO-090` too), a lone level.
    @Test func turbulenceBands() throws {
        #expect(try PilotReportFields.turbulence("LGT-MOD CAT 160-260").altitude == PilotReportAltitude(lowFeet: 16_000, highFeet: 26_000))
        #expect(try PilotReportFields.turbulence("LGT-MOD BLO-090").altitude == PilotReportAltitude(lowFeet: 5_000, highFeet: 9_000))
        #expect(try PilotReportFields.turbulence("CONT LGT CHOP BLO 250").altitude == PilotReportAltitude(lowFeet: 21_000, highFeet: 25_000))
        #expect(try PilotReportFields.turbulence("SEV CAT ABV FL350").altitude == PilotReportAltitude(lowFeet: 35_000, highFeet: 39_000))
        #expect(try PilotReportFields.turbulence("SEV CAT 310").altitude == PilotReportAltitude(lowFeet: 31_000, highFeet: 31_000))
        #expect(try PilotReportFields.turbulence("MOD CHOP").type == .chop)
        #expect(PilotReportAltitude(lowFeet: 16_000, highFeet: 26_000).layers == 16...26)
        #expect(throws: PilotReportLineError.self) { try PilotReportFields.turbulence("CHOP 250") }
    }

    /// Latitude/longitude, radial/distance (true bearing = radial + variation), compass point, route midpoint.
    @Test func locations() throws {
        #expect(PilotReportFields.latitudeLongitude("4716N03402W") == LatLng(latitude: 47 + 16.0 / 60, longitude: -(34 + 2.0 / 60)))
        #expect(PilotReportFields.latitudeLongitude("0824S 17142W") == LatLng(latitude: -(8 + 24.0 / 60), longitude: -(171 + 42.0 / 60)))
        #expect(PilotReportFields.latitudeLongitude("62N040W") == LatLng(latitude: 62, longitude: -40))
        let radial = try PilotReportFields.location("KADH120005", stations: Self.stations)
        #expect(radial.station == "KADH" && radial.radialDegrees == 120 && radial.distanceNM == 5)
        let position = try #require(radial.position)
        let adh = (34.8026, -96.6701)
        #expect(abs(Geodesy.distanceNM(from: adh, to: (position.latitude, position.longitude)) - 5) < 1e-6)
        #expect(abs(Geodesy.initialBearingDegrees(from: adh, to: (position.latitude, position.longitude)) - 126.001) < 0.01)
        let compass = try PilotReportFields.location("15 SW OKC", stations: Self.stations)
        #expect(compass.station == "OKC" && compass.radialDegrees == 225 && compass.distanceNM == 15)
        let route = try PilotReportFields.location("ADH-OKC", stations: Self.stations)
        let mid = try #require(route.position)
        #expect(route.isRouteMidpoint)
        let total = Geodesy.distanceNM(from: adh, to: (35.3578, -97.6093))
        #expect(abs(Geodesy.distanceNM(from: adh, to: (mid.latitude, mid.longitude)) - total / 2) < 1e-6)
    }

    /// ICAO AIREP turbulence wording (Doc 4444 Appendix 1: "TURBULENCE SEVERE"; AIREP text `TURB MOD`, `SEV TURB`),
    /// on lines built for the test around a real AIREP's position, time and level.
    @Test func airepTurbulence() throws {
        for (line, intensity) in [
            ("ARP UAL990 5757N01602W 0522 F350 TURB MOD", ReportedTurbulenceIntensity.moderate),
            ("ARS UAL990 5757N01602W 0522 F350 SEV TURB", .severe),
            ("ARS UAL990 5757N01602W 0522 F350 TURBULENCE SEVERE", .severe),
        ] {
            let report = try PilotReportTextDecoder.decode(line, referenceTime: Self.reference, stations: nil)
            #expect(report.kind == .airep && report.flight == "UAL990" && report.turbulence?.intensity == intensity, "\(line)")
            #expect(report.altitude == PilotReportAltitude(lowFeet: 35_000, highFeet: 35_000))
            #expect(report.observationTime == AircraftReportCSV.instant("2022-09-01T05:22:00Z"))
        }
    }

    /// `/TM` lies on the latest day not after the reference (10 min of tolerance): 2350 read at 00:10 is yesterday's.
    @Test func timeOfDayIsPlacedBeforeTheReference() {
        let midnight = AircraftReportCSV.instant("2022-09-02T00:10:00Z")!
        #expect(PilotReportTime.resolve(hour: 23, minute: 50, referenceTime: midnight) == AircraftReportCSV.instant("2022-09-01T23:50:00Z"))
        #expect(PilotReportTime.resolve(hour: 0, minute: 15, referenceTime: midnight) == AircraftReportCSV.instant("2022-09-02T00:15:00Z"))
        #expect(PilotReportTime.resolve(hour: 0, minute: 30, referenceTime: midnight) == AircraftReportCSV.instant("2022-09-01T00:30:00Z"))
    }

    /// Intensity × reporter class → EDR band; each band reads back, for a viewer of the reporter's class, as the
    /// severity reported (the engine's own `SeverityScale`).
    @Test func edrBandsFollowTheReportersClass() {
        let medium = PilotReportEDR.band(for: .moderate, reporter: .medium)
        #expect(medium.lower == 0.20 && medium.upper == 0.30)
        let small = PilotReportEDR.band(for: .moderate, reporter: .small), large = PilotReportEDR.band(for: .moderate, reporter: .large)
        #expect(abs(small.lower - 0.12) < 1e-12 && abs((small.upper ?? 0) - 0.18) < 1e-12)
        #expect(abs(large.lower - 0.26) < 1e-12 && abs((large.upper ?? 0) - 0.39) < 1e-12)
        #expect(PilotReportEDR.band(for: .extreme, reporter: .medium).upper == nil)
        let expected: [ReportedTurbulenceIntensity: Severity] = [
            .smooth: .none, .light: .light, .lightModerate: .lightModerate, .moderate: .moderate, .moderateSevere: .moderateSevere,
            .severe: .severe, .extreme: .severe,
        ]
        for reporter in AircraftClass.allCases {
            for (intensity, severity) in expected {
                let band = PilotReportEDR.band(for: intensity, reporter: reporter)
                #expect(SeverityScale.severity(edr: band.lower + 1e-9, viewer: reporter) == severity, "\(intensity) \(reporter)")
                if let upper = band.upper {
                    #expect(SeverityScale.severity(edr: upper - 1e-9, viewer: reporter) == severity, "\(intensity) \(reporter)")
                }
            }
        }
        for (designator, aircraftClass, assumed) in [("C172", AircraftClass.small, false), ("B77W", .large, false), ("AT75", .medium, true),
                                                     (nil, .medium, true)] as [(String?, AircraftClass, Bool)] {
            let found = PilotReportEDR.reporterClass(designator: designator)
            #expect(found.aircraftClass == aircraftClass && found.assumed == assumed, "\(designator ?? "nil")")
        }
    }

    /// Bad lines (Fixtures/pireps/bad-lines.txt: real reports broken one field at a time, and one good line) each get
    /// their own error naming the field and what to write; the good line is still read.
    @Test func badLinesGetOneErrorEachAndTheRestIsRead() throws {
        let url = PilotReportOracleTests.folder.appendingPathComponent("bad-lines.txt")
        let reading = PilotReportReader.read(try String(contentsOf: url, encoding: .utf8), source: "bad-lines.txt",
                                             referenceTime: Self.reference, stations: Self.stations)
        let errors = Dictionary(uniqueKeysWithValues: reading.errors.map { ($0.line, $0.error.description) })
        let expected: [Int: String] = [
            5: "no UA or UUA before /OV", 6: "time /TM 2561 is not hhmm UTC", 7: "altitude /FLABC is not three digits",
            8: "turbulence group \"CHOP\" has no intensity", 9: "location \"12345678901\" is not a station",
            10: "station XYZ of location XYZ090010 is not in the station table", 11: "the PIREP has no /TM time",
            12: "neither a PIREP (no /OV) nor an AIREP", 13: "the AIREP of UAL990 has no time hhmm",
            14: "altitude 70000–70000 ft is outside",
        ]
        #expect(Set(errors.keys) == Set(expected.keys), "\(errors)")
        for (line, text) in expected { #expect(errors[line]?.contains(text) == true, "line \(line): \(errors[line] ?? "none")") }
        #expect(errors.values.allSatisfy { $0.contains("; ") }, "every error says what to do")
        #expect(reading.records.count == 1 && reading.records.first?.sourceLine == 15)
        #expect(PilotReportTextDecoder.decodeResult("1F0 UA /OV KADH120005 /TM 0547 /FL210 /TP AT75 /TB MOD", referenceTime: 0, stations: nil)
            .isFailure(containing: "no station table was given"))
    }
}

extension Result where Failure == PilotReportLineError {
    /// Whether the result failed with a message containing `text`.
    func isFailure(containing text: String) -> Bool {
        if case .failure(let error) = self { return error.description.contains(text) }
        return false
    }
}

extension PilotReportTextDecoder {
    /// `decode` as a `Result` (tests).
    static func decodeResult(_ line: String, referenceTime: Double, stations: StationTable?) -> Result<DecodedPilotReport, PilotReportLineError> {
        Result { () throws(PilotReportLineError) in try decode(line, referenceTime: referenceTime, stations: stations, resolving: true) }
    }
}
#endif
