package import EddyDetection
package import EddyNavigation
package import EddySensorLog
package import EddyVocabulary

/// Everything a replay found: flight facts, the events, and the comparison with the truth in `meta.json`.
package struct ReplaySummary: Sendable {
    /// The flight directory's name.
    package var flightName: String
    /// The flight's meta.json.
    package var meta: FlightMeta
    /// The class the pipeline ran with (meta's, or the `--class` override).
    package var aircraftClass: AircraftClass
    /// Samples read per file.
    package var sampleCounts: [SensorFileKind: Int]
    /// Time of the first and last sample read (log time base).
    package var firstTime: Double?
    /// Time of the last sample read.
    package var lastTime: Double?
    /// Mount state changes, in order.
    package var positions: [PositionEvent]
    /// Measured minutes, in order.
    package var minutes: [MinuteEvent]
    /// Tile crossings, in order.
    package var tiles: [TileReport]
    /// Lines skipped in lenient mode, per file (empty when none).
    package var skippedLines: [SkippedLines]
    /// Truth segments with what was measured in them (empty without truth).
    package var segments: [SegmentComparison]
    /// The altitude estimates, added up.
    package var altitude = AltitudeTally()
    /// Consistency warnings, in order.
    package var warnings: [ConsistencyWarning] = []
    /// Why nothing or less was measured: every ended notice episode, in order (docs/detection.md §9).
    package var notices: [MeasurementNotice] = []
    /// The device mount the pipeline ran with.
    package var mount: DeviceMount = .cradle
    /// The type designator flown: `--type`, else meta.json's (nil: the class model).
    package var typeDesignator: String?

    /// Notice episodes added up per kind name, in order of first appearance: episodes, count, seconds not measured,
    /// and the first episode's notice (its reason text).
    package var noticeTotals: [(name: String, episodes: Int, count: Int, secondsCost: Double, first: MeasurementNotice)] {
        var order: [String] = []
        var totals: [String: (episodes: Int, count: Int, secondsCost: Double, first: MeasurementNotice)] = [:]
        for n in notices {
            let name = n.kindName
            if var t = totals[name] {
                t.episodes += 1; t.count += n.count; t.secondsCost += n.secondsCost
                totals[name] = t
            } else {
                order.append(name)
                totals[name] = (1, n.count, n.secondsCost, n)
            }
        }
        return order.compactMap { name in totals[name].map { (name, $0.episodes, $0.count, $0.secondsCost, $0.first) } }
    }

    /// Total samples read.
    package var totalSamples: Int { sampleCounts.values.reduce(0, +) }

    /// The tile reports with times in Unix epoch seconds (log `t` + `time_origin`), as a store keeps them.
    package var tileReportsInEpochTime: [TileReport] {
        let origin = meta.timeOriginEpochSeconds ?? 0
        return tiles.map { report in
            var shifted = report
            shifted.enterTime += origin
            shifted.exitTime += origin
            return shifted
        }
    }
}

/// One stretch of constant truth (a listed turbulence interval or the smooth air between them)
/// and what the replay measured in the minutes that lie wholly inside it.
package struct SegmentComparison: Sendable, Equatable {
    /// Start, seconds (log time base).
    package var start: Double
    /// End, seconds.
    package var end: Double
    /// True EDR (0 for smooth air), m^(2/3) s^-1.
    package var truthEDR: Double
    /// Severity of the true EDR for the replay's class.
    package var truthSeverity: Severity
    /// Measured minutes wholly inside the segment.
    package var minutes: Int
    /// Median of those minutes' median EDR (nil when no minute).
    package var medianEDR: Double?
    /// Largest of those minutes' peak EDR.
    package var peakEDR: Double?
    /// Severity of `medianEDR` for the replay's class.
    package var measuredSeverity: Severity?
    /// Minutes whose own severity equals `truthSeverity`.
    package var minutesMatchingSeverity: Int

    /// Measured median ÷ truth − 1 (nil for smooth air or no minute).
    package var relativeError: Double? {
        guard let medianEDR, truthEDR > 0 else { return nil }
        return medianEDR / truthEDR - 1
    }
}

/// Builds the per-segment comparison of a replay with its truth.
package enum TruthComparison {
    /// Truth segments covering the flight (listed intervals plus smooth gaps), with measured statistics.
    package static func segments(summary: ReplaySummary) -> [SegmentComparison] {
        guard let truth = summary.meta.truth, let first = summary.firstTime, let last = summary.lastTime else { return [] }
        var pieces: [(start: Double, end: Double, edr: Double)] = []
        var cursor = first
        for interval in truth.turbulence.sorted(by: { $0.start < $1.start }) {
            if interval.start > cursor { pieces.append((cursor, interval.start, 0)) }
            pieces.append((interval.start, interval.end, interval.edr ?? 0))
            cursor = max(cursor, interval.end)
        }
        if last > cursor { pieces.append((cursor, last, 0)) }
        return pieces.filter { $0.end > $0.start }.map { piece in
            let inside = summary.minutes.filter { $0.t - 60 >= piece.start - 1e-6 && $0.t <= piece.end + 1e-6 }
            let truthSeverity = SeverityScale.severity(edr: piece.edr, viewer: summary.aircraftClass)
            let median = inside.isEmpty ? nil : Self.median(inside.map(\.edrMedian))
            return SegmentComparison(
                start: piece.start, end: piece.end, truthEDR: piece.edr, truthSeverity: truthSeverity,
                minutes: inside.count, medianEDR: median, peakEDR: inside.map(\.edrPeak).max(),
                measuredSeverity: median.map { SeverityScale.severity(edr: $0, viewer: summary.aircraftClass) },
                minutesMatchingSeverity: inside.filter { $0.severity == truthSeverity }.count)
        }
    }

    /// Median of a non-empty list (mean of the middle two for an even count).
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
