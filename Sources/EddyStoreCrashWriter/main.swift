// eddy-store-crash-writer: the child process of the store's crash-safety test.
// Usage: eddy-store-crash-writer STORE_PATH
// Writes own reports (and some server observations) in a loop, forever. After each `insertOwnReports` call
// returns it prints the ids it stored, one per line, so the parent knows which writes were acknowledged.
// The parent kills it with SIGKILL at random moments and checks that every printed id survived.
import EddyStore
import EddyVocabulary
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: eddy-store-crash-writer STORE_PATH\n".utf8))
    exit(2)
}
let path = CommandLine.arguments[1]

/// Writes a whole buffer to stdout with write(2) (no buffering between the store call and the acknowledgement).
func acknowledge(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { exit(3) }
        offset += written
    }
}

do {
    let store = try EddyStore.open(path: path)
    var generator = SystemRandomNumberGenerator()
    var round = 0
    let classes = AircraftClass.allCases
    while true {
        round += 1
        let count = Int.random(in: 1...4, using: &generator)
        let reports = (0..<count).map { _ in
            TileReport(
                id: UUID(), tile: TileID(h3: 0x0852_8347_3fff_ffff, layer: Int.random(in: 0..<45, using: &generator)),
                enterTime: 1_800_000_000 + Double(round), exitTime: 1_800_000_060 + Double(round),
                edrPeak: Double.random(in: 0...0.6, using: &generator), edrMedian: 0.05,
                reporterClass: classes[round % classes.count])
        }
        try store.insertOwnReports(reports)
        acknowledge(reports.map { $0.id.uuidString + "\n" }.joined())
        if round % 5 == 0 {
            // Interleave bigger server batches so kills also land in the middle of large transactions.
            let observations = (0..<500).map { index in
                ServerObservation(
                    report: TileReport(
                        id: UUID(), tile: TileID(h3: 0x0852_8347_3fff_ffff, layer: index % 45),
                        enterTime: 1_800_000_000, exitTime: 1_800_000_000 + Double(round),
                        edrPeak: 0.1, edrMedian: 0.05, reporterClass: .medium),
                    reporterID: "r\(index)", source: "crash-test")
            }
            try store.upsertObservations(observations)
        }
        if round % 50 == 0 { try store.markOwnReportsSent(ids: reports.map(\.id)) }
    }
} catch {
    FileHandle.standardError.write(Data("eddy-store-crash-writer: \(error)\n".utf8))
    exit(1)
}
