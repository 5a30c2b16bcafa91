#if Tools
import Foundation

/// Contingency counts of yes/no forecasts of an event against what was then observed (docs/nowcast.md
/// "Verification"), and the scores the literature uses for turbulence forecasts (Wilks, "Statistical Methods in the
/// Atmospheric Sciences", ch. 9; Sharman et al. 2006 verify GTG this way against PIREPs and in-situ EDR).
package struct VerificationCounts: Sendable, Equatable {
    /// Forecast yes, observed yes.
    package var hits = 0
    /// Forecast no, observed yes.
    package var misses = 0
    /// Forecast yes, observed no.
    package var falseAlarms = 0
    /// Forecast no, observed no.
    package var correctNegatives = 0

    /// Empty counts.
    package init() {}

    /// Adds one forecast/observation pair.
    package mutating func add(forecast: Bool, observed: Bool) {
        switch (forecast, observed) {
        case (true, true): hits += 1
        case (false, true): misses += 1
        case (true, false): falseAlarms += 1
        case (false, false): correctNegatives += 1
        }
    }

    /// Adds set-based counts: `forecast` and `observed` are the yes cells; a universe's no/no cells are not counted.
    package mutating func add<Element: Hashable>(forecast: Set<Element>, observed: Set<Element>) {
        hits += forecast.intersection(observed).count
        misses += observed.subtracting(forecast).count
        falseAlarms += forecast.subtracting(observed).count
    }

    /// Adds other counts.
    package mutating func add(_ other: VerificationCounts) {
        hits += other.hits
        misses += other.misses
        falseAlarms += other.falseAlarms
        correctNegatives += other.correctNegatives
    }

    /// Critical success index H / (H + M + F); nil without any yes.
    package var csi: Double? { ratio(hits, hits + misses + falseAlarms) }
    /// Probability of detection H / (H + M); nil without observed events.
    package var pod: Double? { ratio(hits, hits + misses) }
    /// False-alarm ratio F / (H + F); nil without forecast events.
    package var far: Double? { ratio(falseAlarms, hits + falseAlarms) }
    /// Frequency bias (H + F) / (H + M): above 1 over-forecasts; nil without observed events.
    package var bias: Double? { ratio(hits + falseAlarms, hits + misses) }

    private func ratio(_ numerator: Int, _ denominator: Int) -> Double? {
        denominator > 0 ? Double(numerator) / Double(denominator) : nil
    }
}

/// Scoring of the nowcast, the forecast alone and persistence alone against the fleet reports that arrive afterwards
/// (issue 31, deliverable 4). Pure: the caller gives each system's issued cells and the later reports.
package struct NowcastVerification: Sendable {
    /// The systems scored.
    package enum System: String, Sendable, CaseIterable, Comparable {
        /// The issued (blended) nowcast.
        case nowcast
        /// The gridded forecast alone (nearest valid time of the latest issue available).
        case forecast
        /// Persistence alone: the fleet's reports decayed in place, no motion, no other source.
        case persistence

        /// Orders systems as declared.
        package static func < (lhs: System, rhs: System) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Where counts are kept apart: system, layer band, forecast hour.
    package struct Key: Hashable, Sendable, Comparable {
        /// The system.
        package var system: System
        /// The band's lowest layer (bands of `layersPerBand` layers: 30 = FL300–FL349 for 5).
        package var layerBand: Int
        /// Hours after the issue.
        package var forecastHour: Int

        /// Orders by system, band, hour.
        package static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.system, lhs.layerBand, lhs.forecastHour) < (rhs.system, rhs.layerBand, rhs.forecastHour)
        }
    }

    /// One observation: a fleet report (peak EDR over its tile crossing, exit time).
    package struct Observation: Sendable {
        /// H3 resolution-5 cell.
        package var cell: UInt64
        /// Layer, thousands of feet.
        package var layer: Int
        /// When the aircraft left the tile, Unix seconds.
        package var time: Double
        /// Peak EDR, m^(2/3) s^-1.
        package var edrPeak: Double

        /// Makes an observation.
        package init(cell: UInt64, layer: Int, time: Double, edrPeak: Double) {
            self.cell = cell
            self.layer = layer
            self.time = time
            self.edrPeak = edrPeak
        }
    }

    /// A cell, layer and forecast hour a system predicts an EDR for.
    package struct Cell: Hashable, Sendable {
        /// H3 resolution-5 cell.
        package var cell: UInt64
        /// Layer, thousands of feet.
        package var layer: Int
        /// Hours after the issue.
        package var forecastHour: Int

        /// Makes a cell key.
        package init(cell: UInt64, layer: Int, forecastHour: Int) {
            self.cell = cell
            self.layer = layer
            self.forecastHour = forecastHour
        }
    }

    /// The event: EDR at least this, m^(2/3) s^-1 (light or worse, the alerts' default floor for a medium aircraft).
    package var eventEDR = 0.10
    /// Layers per reported band.
    package var layersPerBand = 5
    /// Forecast hours scored.
    package var forecastHours: ClosedRange<Int> = 0...6

    /// Makes a verification with the default event and bands.
    package init() {}

    /// Counts for one issue at `issueTime`: each observation in hour `h`'s valid interval
    /// `[issueTime + h·3600, issueTime + (h+1)·3600)` scores each system's prediction for its cell and layer at `h`
    /// (a cell not issued predicts no event). Several observations of one cell in one hour count once, with their
    /// worst EDR (the same crossing is not scored twice).
    package func score(issueTime: Double, predictions: [System: [Cell: Double]], observations: [Observation]) -> [Key: VerificationCounts] {
        var observed: [Cell: Double] = [:]
        for observation in observations where observation.edrPeak.isFinite {
            let hour = Int(((observation.time - issueTime) / 3600).rounded(.down))
            guard observation.time >= issueTime, forecastHours.contains(hour) else { continue }
            let key = Cell(cell: observation.cell, layer: observation.layer, forecastHour: hour)
            observed[key] = max(observed[key] ?? 0, observation.edrPeak)
        }
        var counts: [Key: VerificationCounts] = [:]
        for system in System.allCases {
            let predicted = predictions[system] ?? [:]
            for (cell, edr) in observed {
                let band = Int((Double(cell.layer) / Double(layersPerBand)).rounded(.down)) * layersPerBand
                counts[Key(system: system, layerBand: band, forecastHour: cell.forecastHour), default: VerificationCounts()]
                    .add(forecast: (predicted[cell] ?? 0) >= eventEDR, observed: edr >= eventEDR)
            }
        }
        return counts
    }

    /// The table `eddy-server verify` prints: one line per system, layer band and hour.
    package func table(_ counts: [Key: VerificationCounts]) -> String {
        func format(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }
        func padded(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
        var lines = ["system       layers     hour   hits misses falseAlarms  CSI    POD    FAR    bias"]
        for key in counts.keys.sorted() {
            guard let c = counts[key] else { continue }
            let layers = "FL\(key.layerBand * 10)-\((key.layerBand + layersPerBand) * 10 - 1)"
            lines.append(padded(key.system.rawValue, 13) + padded(layers, 11) + padded("+\(key.forecastHour)", 5)
                + String(format: "%6d %7d %11d", c.hits, c.misses, c.falseAlarms)
                + "  " + [c.csi, c.pod, c.far, c.bias].map { padded(format($0), 6) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}
#endif
