import Foundation

/// The nowcast model: persistence with exponential decay by age (no advection yet; see docs/protocol.md).
///
/// For every tile observed in the 6 h before the issue time, the worst peak EDR `e` observed at age `a`
/// hours (issue time − report exit time) is carried forward unchanged in place and decays as
/// `e · exp(−(a + h) / τ)` for forecast hour `h` = 0…6, τ = `decayHours`. Cells whose forecast EDR falls
/// below `minimumEDR` are not issued. A tile with several reports takes the largest decayed value.
struct NowcastModel: Sendable {
    /// e-folding time of turbulence persistence, hours.
    var decayHours: Double = 1.5
    /// Smallest EDR worth issuing, m^(2/3) s^-1.
    var minimumEDR: Double = 0.05
    /// Forecast hours issued.
    var forecastHours: ClosedRange<Int> = 0...6
    /// Observations older than this before the issue time are ignored, hours.
    var lookbackHours: Double = 6

    /// One input observation.
    struct Input: Sendable { var cell: UInt64; var layer: Int; var exitTime: Double; var edrPeak: Double }
    /// One output cell.
    struct Output: Sendable, Equatable { var cell: UInt64; var layer: Int; var forecastHour: Int; var edr: Double }

    /// Forecast cells issued at `issueTime` (Unix seconds) from `observations`.
    func issue(at issueTime: Double, observations: [Input]) -> [Output] {
        struct Key: Hashable { var cell: UInt64; var layer: Int }
        var best: [Key: [Double]] = [:]
        for obs in observations {
            let ageHours = (issueTime - obs.exitTime) / 3600
            guard ageHours >= 0, ageHours <= lookbackHours, obs.edrPeak.isFinite, obs.edrPeak > 0 else { continue }
            let key = Key(cell: obs.cell, layer: obs.layer)
            var values = best[key] ?? Array(repeating: 0, count: forecastHours.count)
            for (index, hour) in forecastHours.enumerated() {
                values[index] = max(values[index], obs.edrPeak * exp(-(ageHours + Double(hour)) / decayHours))
            }
            best[key] = values
        }
        var result: [Output] = []
        for (key, values) in best {
            for (index, hour) in forecastHours.enumerated() where values[index] >= minimumEDR {
                result.append(Output(cell: key.cell, layer: key.layer, forecastHour: hour, edr: values[index]))
            }
        }
        result.sort { ($0.cell, $0.layer, $0.forecastHour) < ($1.cell, $1.layer, $1.forecastHour) }
        return result
    }
}
