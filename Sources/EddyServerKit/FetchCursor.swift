#if Tools
import EddyVocabulary

/// Where the next page of a fetch starts, as the client carries it between pages (`nextCursor`, then `cursor`;
/// docs/protocol.md "Pages").
///
/// The text is opaque to clients: a kind, the answer's tick (every page of one fetch answers the first page's tick and
/// `full`), what the pages select, and the position of the last item looked at (keyset pagination: each page is an index
/// range, whatever the number of pages before it). Only letters, digits and `.:+-` appear in it, so it needs no escape in
/// JSON. A client can only forge a cursor for a fetch it may make anyway; the server checks that one parses, matches the
/// data type and names no tick in the future.
enum FetchCursor: Equatable {
    /// Turbulence observations: the answer's tick, the delta's lowest arrival tick (nil: a full answer) and the last
    /// report looked at.
    case observations(answerTick: Int, minTick: Int?, after: ObservationPosition)
    /// Nowcast cells of the issue made at `issueTime`, after a cell.
    case nowcast(answerTick: Int, issueTime: Double, after: NowcastPosition)
    /// Live flights after a public id.
    case liveFlights(answerTick: Int, afterPublicId: String)

    /// The tick every page of the fetch answers.
    var answerTick: Int {
        switch self {
        case .observations(let tick, _, _), .nowcast(let tick, _, _), .liveFlights(let tick, _): tick
        }
    }

    /// The text sent as `nextCursor`.
    var text: String {
        switch self {
        case .observations(let tick, let minTick, let after):
            "o1:\(tick):\(minTick.map(String.init) ?? "-"):\(after.exitTime):\(after.sequence)"
        case .nowcast(let tick, let issueTime, let after):
            "n1:\(tick):\(issueTime):\(after.cell):\(after.layer):\(after.forecastHour)"
        case .liveFlights(let tick, let publicId):
            "f1:\(tick):\(publicId)"
        }
    }

    /// Longest cursor text accepted.
    static let maximumLength = 128

    /// Parses a cursor the server gave for a fetch of `dataType`; nil for anything else.
    init?(text: String, dataType: DataType) {
        guard text.utf8.count <= Self.maximumLength else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let tick = Int(parts[1]), tick >= 0 else { return nil }
        switch (parts[0], dataType) {
        case ("o1", .turbulence):
            guard parts.count == 5, let exitTime = Double(parts[3]), exitTime.isFinite, let sequence = Int64(parts[4]) else { return nil }
            let minTick: Int?
            if parts[2] == "-" {
                minTick = nil
            } else {
                guard let value = Int(parts[2]), (0...tick).contains(value) else { return nil }
                minTick = value
            }
            self = .observations(answerTick: tick, minTick: minTick, after: ObservationPosition(exitTime: exitTime, sequence: sequence))
        case ("n1", .nowcast):
            guard parts.count == 6, let issueTime = Double(parts[2]), issueTime.isFinite, let cell = Int64(parts[3]),
                  let layer = Int(parts[4]), let hour = Int(parts[5])
            else { return nil }
            self = .nowcast(answerTick: tick, issueTime: issueTime, after: NowcastPosition(cell: cell, layer: layer, forecastHour: hour))
        case ("f1", .liveFlights):
            let publicId = parts[2]
            guard parts.count == 3, (1...32).contains(publicId.utf8.count),
                  publicId.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
            else { return nil }
            self = .liveFlights(answerTick: tick, afterPublicId: publicId)
        default:
            return nil
        }
    }
}
#endif
