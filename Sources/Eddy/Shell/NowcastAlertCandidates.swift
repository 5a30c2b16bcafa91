import EddyAlerts
import EddyStore
import EddyVocabulary
import Foundation

extension AlertCandidateLoader {
    /// The cached nowcast cells valid at `now` whose value a pilot report or a forecast dominates, as alert candidates
    /// flagged with that provenance (docs/alerts.md "Provenance"). Fleet-measured cells are left out: the reports they
    /// come from are candidates themselves. Where several issues cover `now`, a tile takes the newest issue's cell.
    /// `cellsByForecastHour`: the store's cells of the alert area for forecast hours 0, 1, … in order.
    static func nowcastCandidates(cellsByForecastHour: [[NowcastCell]], now: Double) -> [AlertCandidate] {
        var newest: [TileID: NowcastCell] = [:]
        for cells in cellsByForecastHour {
            for cell in cells where cell.validTime <= now && cell.provenance != .fleetMeasured {
                if let held = newest[cell.tile], held.issueTime >= cell.issueTime { continue }
                newest[cell.tile] = cell
            }
        }
        return newest.values.sorted { $0.tile < $1.tile }.map { cell in
            let report = TileReport(id: candidateID(cell), tile: cell.tile, enterTime: cell.validTime, exitTime: cell.validTime,
                                    edrPeak: cell.edr, edrMedian: cell.edr, reporterClass: .medium)
            return AlertCandidate(report: report, origin: .server, time: cell.validTime, provenance: cell.provenance)
        }
    }

    /// A stable id for a nowcast cell's candidate: its cell, layer and forecast hour.
    static func candidateID(_ cell: NowcastCell) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: cell.tile.h3.bigEndian) { for (index, byte) in $0.enumerated() { bytes[index] = byte } }
        withUnsafeBytes(of: Int32(truncatingIfNeeded: cell.tile.layer).bigEndian) { for (index, byte) in $0.enumerated() { bytes[8 + index] = byte } }
        withUnsafeBytes(of: Int32(truncatingIfNeeded: cell.forecastHour).bigEndian) { for (index, byte) in $0.enumerated() { bytes[12 + index] = byte } }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
