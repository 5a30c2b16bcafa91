#if Tools
import EddyH3
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// Feature alignment of the forecast by the reports (docs/nowcast.md "Feature alignment"): a forecast patch placed
/// 60 km east of the turbulence that a pilot report and the fleet found is moved onto it; without turbulent evidence
/// near it, or beyond the search radius, it stays.
@Suite struct NowcastBlendAlignmentTests {
    static let issueTime = 1_800_000_000.0
    static let plane = LocalPlane(latitude: 40, longitude: -95)

    /// A round forecast patch (EDR 0.3 at its centre, falling off over 30 km) centred `eastKm` east of 40° N 95° W at
    /// layers 34–36, at valid times issue − 3 h … issue + 3 h.
    static func patch(eastKm: Double, plane: LocalPlane = plane) throws -> [StoredForecastCell] {
        let centre = try #require(plane.cell(x: eastKm, y: 0))
        var cells: [StoredForecastCell] = []
        for (cell, _) in try H3.gridDiskDistances(H3Index(rawValue: centre), k: 5) {
            let p = try #require(plane.xy(cell: cell.rawValue))
            let edr = 0.3 * exp(-pow(hypot(p.x - eastKm, p.y) / 30, 2))
            guard edr > 0.04 else { continue }
            for layer in 34...36 {
                for hour in -3...3 {
                    cells.append(StoredForecastCell(product: "TEST", h3: cell.rawValue, layer: layer, issueTime: issueTime - 6 * 3600,
                                                    validTime: issueTime + Double(hour) * 3600, edr: edr))
                }
            }
        }
        return cells
    }

    static func pilotReport(xKm: Double, yKm: Double, layer: Int, hoursAgo: Double, intensity: ReportedTurbulenceIntensity,
                            plane: LocalPlane = plane) throws -> StoredPilotReportCell {
        let band = PilotReportEDR.band(for: intensity, reporter: .medium)
        return StoredPilotReportCell(reportId: "test-\(xKm)-\(yKm)", provenance: PilotReportRecord.provenance, kind: .routinePIREP,
                                     h3: try #require(plane.cell(x: xKm, y: yKm)), layer: layer, observationTime: issueTime - hoursAgo * 3600,
                                     intensity: intensity, aircraftClass: .medium, aircraftClassAssumed: false,
                                     edrLower: band.lower, edrUpper: band.upper)
    }

    /// The east position (km) of the strongest cell valid at issue + 1 h at layer 35.
    static func peakEastKm(_ cells: [StoredForecastCell]) throws -> Double {
        let valid = cells.filter { $0.validTime == issueTime + 3600 && $0.layer == 35 }
        let peak = try #require(valid.max { $0.edr < $1.edr })
        return try #require(plane.xy(cell: peak.h3)).x
    }

    @Test func aPatchBesideTheReportedTurbulenceIsMovedOntoIt() throws {
        let forecast = try Self.patch(eastKm: 60)
        var blend = NowcastBlend()
        blend.forecastHours = 0...2
        let report = try Self.pilotReport(xKm: 0, yKm: 0, layer: 35, hoursAgo: 1, intensity: .moderate)
        // The fleet crossed the same patch 2 h ago: moderate inside it, smooth 40 km either side.
        let fleet = try [-40.0, 0, 40].map { northKm in
            NowcastModel.Input(cell: try #require(Self.plane.cell(x: 0, y: northKm)), layer: 35, exitTime: Self.issueTime - 2 * 3600, edrPeak: northKm == 0 ? 0.25 : 0.03)
        }
        let inputs = NowcastBlend.Inputs(fleet: fleet, pilotReports: [report], forecast: forecast)
        let aligned = blend.alignedForecast(inputs, issueTime: Self.issueTime)
        #expect(aligned.summary.moved == 1, "\(aligned.summary)")
        let peakEastKm = try Self.peakEastKm(aligned.cells)
        #expect(abs(peakEastKm) <= 15, "peak at \(peakEastKm) km east")
        #expect(abs(aligned.summary.movedKm - 60) <= 15, "moved \(aligned.summary.movedKm) km")
        // Every layer and valid time of the feature moved with it: nothing of the patch is left at 60 km east.
        let left = aligned.cells.filter { cell in (Self.plane.xy(cell: cell.h3).map { abs($0.x - 60) < 8 && abs($0.y) < 8 } ?? false) && cell.edr >= 0.1 }
        #expect(left.isEmpty, "\(left.count) cells ≥ 0.10 left at the forecast's place")
        // The blend issues the report's cell as turbulent at +1 h, and no longer the forecast's old centre.
        let issued = blend.issue(at: Self.issueTime, inputs: inputs).filter { $0.forecastHour == 1 && $0.layer == 35 && $0.edr >= 0.1 }
        #expect(issued.contains { $0.cell == report.h3 })
        #expect(!issued.contains { $0.cell == (Self.plane.cell(x: 60, y: 0) ?? 0) })
    }

    /// One run covering two continents (as a global WAFS product does): each feature is measured on its own tangent
    /// plane, so the one at 60° N 10° E moves as exactly as the one at 40° N 95° W.
    @Test func featuresFarApartInOneRunAreEachMovedOntoTheirReports() throws {
        let europe = LocalPlane(latitude: 60, longitude: 10)
        let forecast = try Self.patch(eastKm: 60) + Self.patch(eastKm: 60, plane: europe)
        let reports = try [Self.pilotReport(xKm: 0, yKm: 0, layer: 35, hoursAgo: 1, intensity: .moderate),
                           Self.pilotReport(xKm: 0, yKm: 0, layer: 35, hoursAgo: 1, intensity: .moderate, plane: europe)]
        let aligned = NowcastBlend().alignedForecast(NowcastBlend.Inputs(fleet: [], pilotReports: reports, forecast: forecast), issueTime: Self.issueTime)
        #expect(aligned.summary.features == 2 && aligned.summary.moved == 2, "\(aligned.summary)")
        for plane in [Self.plane, europe] {
            let valid = aligned.cells.filter { cell in
                cell.validTime == Self.issueTime + 3600 && cell.layer == 35 && (plane.xy(cell: cell.h3).map { hypot($0.x, $0.y) < 300 } ?? false)
            }
            let peak = try #require(valid.max { $0.edr < $1.edr })
            let at = try #require(plane.xy(cell: peak.h3))
            #expect(hypot(at.x, at.y) <= 15, "peak \(at) km from the report at \(plane.latitude)° N")
            // The moved patch has no holes and is not smeared: about as many cells ≥ 0.10 as the forecast's own patch
            // (nearest-neighbour resampling onto a shifted lattice gains or loses a few edge cells, not more).
            let before = forecast.filter { cell in cell.validTime == Self.issueTime + 3600 && cell.layer == 35 && cell.edr >= 0.1
                && (plane.xy(cell: cell.h3).map { hypot($0.x, $0.y) < 300 } ?? false) }.count
            let after = valid.filter { $0.edr >= 0.1 }.count
            #expect(after >= before - 2 && Double(after) <= 1.25 * Double(before), "\(after) cells ≥ 0.10 after, \(before) before")
        }
    }

    @Test func withoutTurbulentEvidenceNearItAPatchStays() throws {
        let forecast = try Self.patch(eastKm: 60)
        let blend = NowcastBlend()
        // A report 300 km away (beyond the 150-km search radius), one in another layer, one older than the lookback,
        // and a smooth report: none moves the patch.
        let reports = try [
            Self.pilotReport(xKm: -240, yKm: 0, layer: 35, hoursAgo: 1, intensity: .moderate),
            Self.pilotReport(xKm: 20, yKm: 0, layer: 30, hoursAgo: 1, intensity: .moderate),
            Self.pilotReport(xKm: 20, yKm: 0, layer: 35, hoursAgo: 4, intensity: .moderate),
            Self.pilotReport(xKm: 20, yKm: 0, layer: 35, hoursAgo: 1, intensity: .smooth),
        ]
        let aligned = blend.alignedForecast(NowcastBlend.Inputs(fleet: [], pilotReports: reports, forecast: forecast), issueTime: Self.issueTime)
        #expect(aligned.summary.moved == 0)
        #expect(aligned.summary.features == 1)
        #expect(Set(aligned.cells.map { "\($0.h3) \($0.layer) \($0.validTime) \($0.edr)" }) == Set(forecast.map { "\($0.h3) \($0.layer) \($0.validTime) \($0.edr)" }))
    }

    @Test func aTurbulentReportAlreadyInsideThePatchLeavesItWhereItIs() throws {
        let forecast = try Self.patch(eastKm: 0)
        let report = try Self.pilotReport(xKm: 0, yKm: 0, layer: 35, hoursAgo: 0.5, intensity: .moderate)
        let aligned = NowcastBlend().alignedForecast(NowcastBlend.Inputs(fleet: [], pilotReports: [report], forecast: forecast), issueTime: Self.issueTime)
        #expect(aligned.summary.tried == 1)
        #expect(aligned.summary.moved == 0)
    }
}
#endif
