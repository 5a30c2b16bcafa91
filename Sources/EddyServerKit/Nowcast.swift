#if Tools
import Foundation

/// The nowcast model: persistence with exponential decay by age, advected by the motion recent reports show
/// (docs/nowcast.md; docs/protocol.md "Nowcast").
///
/// For every tile observed in the 6 h before the issue time, the worst peak EDR `e` observed at age `a`
/// hours (issue time − report exit time) decays as `e · exp(−(a + h) / τ)` for forecast hour `h` = 0…6,
/// τ = `decayHours`. With `motion` set, the observation is carried to the resolution-5 cell its centre reaches after
/// `a + h` hours at the velocity `NowcastMotion` estimated for its layer and region (where none is well founded, and
/// with `motion` nil, it stays in place: persistence). Cells whose forecast EDR falls below `minimumEDR` are not
/// issued. A cell with several contributions takes the largest.
struct NowcastModel: Sendable {
    /// e-folding time of turbulence persistence, hours.
    var decayHours: Double = 1.5
    /// Smallest EDR worth issuing, m^(2/3) s^-1.
    var minimumEDR: Double = 0.05
    /// Forecast hours issued.
    var forecastHours: ClosedRange<Int> = 0...6
    /// Observations older than this before the issue time are ignored, hours.
    var lookbackHours: Double = 6
    /// How motion is estimated; nil for pure persistence.
    var motion: NowcastMotion? = NowcastMotion()

    /// One input observation.
    struct Input: Sendable { var cell: UInt64; var layer: Int; var exitTime: Double; var edrPeak: Double }
    /// One output cell.
    struct Output: Sendable, Equatable { var cell: UInt64; var layer: Int; var forecastHour: Int; var edr: Double }

    /// Forecast cells issued at `issueTime` (Unix seconds) from `observations`.
    func issue(at issueTime: Double, observations: [Input]) -> [Output] {
        struct Key: Hashable { var cell: UInt64; var layer: Int }
        let velocities = motion?.estimate(at: issueTime, observations: observations) ?? [:]
        var best: [Key: [Double]] = [:]
        for obs in observations {
            let ageHours = (issueTime - obs.exitTime) / 3600
            guard ageHours >= 0, ageHours <= lookbackHours, obs.edrPeak.isFinite, obs.edrPeak > 0 else { continue }
            let velocity = motion?.region(of: obs.cell, layer: obs.layer).flatMap { velocities[$0] }
            for (index, hour) in forecastHours.enumerated() {
                let edr = obs.edrPeak * exp(-(ageHours + Double(hour)) / decayHours)
                guard edr >= minimumEDR else { continue }
                let cell = velocity.map { NowcastMotion.advect(obs.cell, by: $0, hours: ageHours + Double(hour)) } ?? obs.cell
                let key = Key(cell: cell, layer: obs.layer)
                var values = best[key] ?? Array(repeating: 0, count: forecastHours.count)
                values[index] = max(values[index], edr)
                best[key] = values
            }
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
#endif
