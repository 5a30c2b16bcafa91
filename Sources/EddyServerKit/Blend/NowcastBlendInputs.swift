#if Tools
import Foundation

extension NowcastBlend {
    /// The blend's inputs for an issue at `issueTime` read from `storage`: the fleet's reports of the lookback window up to
    /// `through` (the server passes the end of the current interval: reports of the interval count as age 0; a hindcast
    /// passes the issue time), the pilot reports observed in that window when the storage holds them
    /// (`PilotReportStorage`), and the forecast cells valid around the issued hours when it holds forecast grids
    /// (`ForecastGridStorage`; from the alignment's lookback on, for the patches the reports are compared with); a storage without either blends without it.
    func inputs(from storage: any ServerStorage, issueTime: Double, through: Double) async throws(ServerDatabaseError) -> Inputs {
        let from = issueTime - lookbackHours * 3600
        let fleet = try await storage.nowcastInputs(from: from, to: through).map { input in
            NowcastModel.Input(cell: input.cell, layer: input.layer, exitTime: min(input.exitTime, issueTime), edrPeak: input.edrPeak)
        }
        var pilotReports: [StoredPilotReportCell] = []
        if let reports = storage as? any PilotReportStorage {
            pilotReports = try await reports.pilotReportCells(observedFrom: from, to: through).map { cell in
                var placed = cell
                placed.observationTime = min(cell.observationTime, issueTime)
                return placed
            }
        }
        var forecast: [StoredForecastCell] = []
        if let grids = storage as? any ForecastGridStorage {
            let tolerance = forecastValidityToleranceHours * 3600
            let alignmentHours = alignment?.lookbackHours ?? 0
            forecast = try await grids.forecastCells(
                validFrom: issueTime + Double(forecastHours.lowerBound) * 3600 - max(tolerance, alignmentHours * 3600),
                to: issueTime + Double(forecastHours.upperBound) * 3600 + tolerance)
        }
        return Inputs(fleet: fleet, pilotReports: pilotReports, forecast: forecast)
    }
}
#endif
