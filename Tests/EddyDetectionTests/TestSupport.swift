import EddySimulation
import Foundation
@testable import EddyDetection
import EddyNavigation
@testable import EddyVocabulary

/// Runs a scenario through a pipeline, streaming the simulator chunk by chunk.
func detect(_ scenario: FlightScenario, configuration: DetectionConfiguration? = nil,
            transform: ((inout [SensorSample]) -> Void)? = nil) -> [DetectionEvent] {
    let detection = configuration ?? DetectionConfiguration(aircraftClass: scenario.aircraftClass)
    // The simulator's air is ISA wherever and whenever it flies: the seasonless prior's world (docs/altitude.md "Not in
    // a world without seasons"), so a GNSS-only altitude — and the air density the EDR model takes from it — is judged
    // with that prior; the climatology is checked against P.835 and on the JSBSim flight-level oracle.
    var navigation = NavigationConfiguration(aircraftClass: detection.aircraftClass)
    navigation.altitude.climatology = false
    var pipeline = NavigatedDetection(configuration: detection, navigation: navigation)
    var events: [DetectionEvent] = []
    FlightSimulator.simulate(scenario) { chunk in
        var samples = chunk.mergedSamples()
        transform?(&samples)
        for sample in samples { pipeline.process(sample, into: &events) }
    }
    pipeline.finish(into: &events)
    return events
}

extension Array where Element == DetectionEvent {
    var minutes: [MinuteEvent] { compactMap { if case .minute(let m) = $0 { m } else { nil } } }
    var positions: [PositionEvent] { compactMap { if case .position(let p) = $0 { p } else { nil } } }
    var tiles: [TileReport] { compactMap { if case .tile(let r) = $0 { r } else { nil } } }
}

/// Minutes whose whole measurement span (the minute plus the 10 s window reaching back) lies inside [start, end].
func minutes(_ all: [MinuteEvent], inside start: Double, _ end: Double) -> [MinuteEvent] {
    all.filter { $0.t - 70 >= start && $0.t <= end }
}

/// A tile indexer for tests: a fixed grid of 0.1° cells (no H3 needed).
let gridIndexer = TileIndexer { lat, lon in
    UInt64(Int((lat + 90) * 10)) << 32 | UInt64(Int((lon + 180) * 10))
}
