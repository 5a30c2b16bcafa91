#if Tools
import Foundation

/// The verification the server runs over its stored data (`eddy-server verify`, the `/metrics` verification gauges;
/// docs/nowcast.md "Verification"): for each hourly issue in a window it re-issues, from what was observed up to the
/// issue time, the blended nowcast, the forecast alone and persistence alone, and scores them against the fleet's
/// reports of the following hours.
///
/// It re-issues rather than reading stored issues because the server keeps only the latest issue; with the same model
/// and the same reports the re-issue is the issue, except for reports that arrived after the issue time but were made
/// before it (the live issue did not have them; the re-issue does).
package struct NowcastHindcast: Sendable {
    /// The blend that is verified (and whose forecast and persistence baselines are scored beside it).
    package var blend = NowcastBlend()
    /// The scoring.
    package var verification = NowcastVerification()
    /// Hours between issues.
    package var intervalSeconds: Double = 3600

    /// Makes a hindcast with the server's model.
    package init() {}

    /// Counts over the issues at whole intervals in `[from, to]` (Unix seconds); observations up to
    /// `to + (last forecast hour + 1) h` score the later hours.
    package func run(storage: any ServerStorage, from: Double, to: Double) async throws(ServerDatabaseError) -> [NowcastVerification.Key: VerificationCounts] {
        var totals: [NowcastVerification.Key: VerificationCounts] = [:]
        var issueTime = (from / intervalSeconds).rounded(.up) * intervalSeconds
        let horizon = Double(verification.forecastHours.upperBound + 1) * 3600
        while issueTime <= to {
            let inputs = try await blend.inputs(from: storage, issueTime: issueTime, through: issueTime)
            let later = try await storage.nowcastInputs(from: issueTime, to: issueTime + horizon).map {
                NowcastVerification.Observation(cell: $0.cell, layer: $0.layer, time: $0.exitTime, edrPeak: $0.edrPeak)
            }
            let counts = verification.score(issueTime: issueTime, predictions: predictions(issueTime: issueTime, inputs: inputs), observations: later)
            for (key, count) in counts { totals[key, default: VerificationCounts()].add(count) }
            issueTime += intervalSeconds
        }
        return totals
    }

    /// The three systems' predicted EDR per cell, layer and hour at one issue.
    func predictions(issueTime: Double, inputs: NowcastBlend.Inputs) -> [NowcastVerification.System: [NowcastVerification.Cell: Double]] {
        var nowcast: [NowcastVerification.Cell: Double] = [:]
        for output in blend.issue(at: issueTime, inputs: inputs) {
            nowcast[.init(cell: output.cell, layer: output.layer, forecastHour: output.forecastHour)] = output.edr
        }
        var persistenceModel = NowcastModel()
        persistenceModel.motion = nil
        persistenceModel.forecastHours = blend.forecastHours
        var persistence: [NowcastVerification.Cell: Double] = [:]
        for output in persistenceModel.issue(at: issueTime, observations: inputs.fleet) {
            persistence[.init(cell: output.cell, layer: output.layer, forecastHour: output.forecastHour)] = output.edr
        }
        // The forecast alone: per cell and hour the value valid nearest the hour (newest issue on a tie), as the blend picks it.
        var forecastOnly = NowcastBlend()
        forecastOnly.forecastHours = blend.forecastHours
        forecastOnly.forecastValidityToleranceHours = blend.forecastValidityToleranceHours
        var forecast: [NowcastVerification.Cell: Double] = [:]
        for (key, pick) in forecastOnly.forecastPicks(inputs.forecast, issueTime: issueTime) {
            forecast[.init(cell: key.cell, layer: key.layer, forecastHour: key.hour)] = pick.edr
        }
        return [.nowcast: nowcast, .forecast: forecast, .persistence: persistence]
    }
}
#endif
