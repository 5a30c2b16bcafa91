import EddyTesting
import EddyVocabulary
import Foundation
@testable import EddyStore

/// A fresh temporary folder for one test (EddyTesting's helper; removed by the caller via `remove()`).
typealias TemporaryFolder = TemporaryDirectory

/// Deterministic UUID n (for readable tests).
func testUUID(_ n: Int) -> UUID {
    UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", n))!
}

/// A report in tile (h3, layer) exiting at `time` with the given peak EDR.
func makeReport(
    _ n: Int, h3: UInt64 = 0x85283473fffffff, layer: Int = 35, time: Double = 1_800_000_000, edrPeak: Double = 0.25,
    reporterClass: AircraftClass = .medium
) -> TileReport {
    TileReport(
        id: testUUID(n), tile: TileID(h3: h3, layer: layer), enterTime: time - 60, exitTime: time,
        edrPeak: edrPeak, edrMedian: edrPeak / 2, reporterClass: reporterClass)
}

/// A server observation wrapping `makeReport`.
func makeObservation(
    _ n: Int, h3: UInt64 = 0x85283473fffffff, layer: Int = 35, time: Double = 1_800_000_000, edrPeak: Double = 0.25
) -> ServerObservation {
    ServerObservation(report: makeReport(n, h3: h3, layer: layer, time: time, edrPeak: edrPeak), reporterID: "r\(n % 7)", source: "eddy")
}
