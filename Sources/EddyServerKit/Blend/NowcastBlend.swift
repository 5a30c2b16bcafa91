#if Tools
import EddyH3
package import EddyVocabulary
import Foundation

/// The blended nowcast (issue 31; docs/nowcast.md "Blend"): the fleet's reports, pilot reports and a gridded forecast
/// pooled per cell, layer and forecast hour as evidence about the cell's EDR.
///
/// Each source `s` says what the EDR is, `eₛ`, with a log-normal uncertainty `σₛ` (EDR is close to log-normal; Sharman
/// et al. 2014), so it gives an exceedance probability `pₛₖ = 1 − Φ((ln Tₖ − ln eₛ) / σₛ)` for each threshold `Tₖ`.
/// The probabilities are pooled in log-odds against a log-normal climatology `cₖ`, each source weighted by its skill
/// times a decay with age (reports) or lead time (forecast):
///
///     logit Pₖ = logit cₖ + Σₛ wₛ (logit pₛₖ − logit cₖ),   wₛ = skillₛ · exp(−ageₛ / τₛ) · exp(−dₛ² / 2L²)
///
/// (a generalised logarithmic opinion pool: one source at full weight reproduces its own probabilities, and a weak one
/// pulls towards climatology). The issued EDR is the median of the pooled distribution: the EDR where `Pₖ` crosses
/// ½, interpolated in `ln T` between thresholds; a cell whose `P` at the lowest threshold is below ½ is not issued.
/// Reports are advected by the motion the fleet's and pilot reports show (`NowcastMotion`); a pilot report is spread
/// over the cells within its source's `spreadRings` (it is placed to tens of km; the fleet's are placed by GPS); per
/// source and cell only its strongest-weighted report counts (reports of one source in one place are correlated). The
/// cell's provenance is the source with the largest weighted evidence at the issued band. Pure: no I/O, no clock.
package struct NowcastBlend: Sendable {
    /// How one source's values are trusted.
    package struct SourceModel: Sendable {
        /// Weight at age (or lead) zero.
        package var skill: Double
        /// e-folding time of the weight with the value's age (reports) or lead time (forecast), hours.
        package var decayHours: Double
        /// Standard deviation of ln EDR around the source's value.
        package var logSpread: Double
        /// A report counts in the cells within this many H3 rings of its (advected) cell: its placement uncertainty.
        package var spreadRings = 0
    }

    /// The fleet's in-situ EDR: the reference measurement, placed by GPS in its cell (σ: the sampling scatter of a
    /// 10-s-window EDR).
    package var fleet = SourceModel(skill: 1.0, decayHours: 1.5, logSpread: 0.3)
    /// Pilot reports: subjective bands, placed and timed less exactly (Schwartz 1996; Sharman et al. 2014), so spread
    /// over two rings (≈ 30 km).
    package var pilotReports = SourceModel(skill: 0.7, decayHours: 1.0, logSpread: 0.6, spreadRings: 2)
    /// The gridded forecast prior (GTG, WAFS): calibrated to EDR by its makers, so alone it is taken at its word (skill
    /// 1: a cell only the forecast covers is issued at the forecast's EDR); its weight decays slowly with lead time.
    package var forecast = SourceModel(skill: 1.0, decayHours: 48, logSpread: 0.7)
    /// Climatology of ln EDR at cruise levels: median EDR 0.03, σ 0.7 (P(EDR ≥ 0.1) ≈ 4 %, P(≥ 0.2) ≈ 0.3 %).
    package var climatologyMedianEDR = 0.03, climatologyLogSpread = 0.7
    /// EDR thresholds the probabilities are pooled at, m^(2/3) s^-1 (the nowcast's cut, then the severity bands).
    package var thresholds: [Double] = [0.05, 0.10, 0.15, 0.20, 0.30, 0.45, 0.70]
    /// No source is more certain than this either way (caps one report's evidence).
    package var probabilityLimit = 0.999
    /// Placement uncertainty of a spread report (Gaussian weight with distance), km.
    package var placementKm = 30.0
    /// Centre spacing of neighbouring resolution-5 cells, km (√3 × the 8.5 km edge).
    package var ringSpacingKm = 14.7
    /// Forecast hours issued.
    package var forecastHours: ClosedRange<Int> = 0...6
    /// Reports older than this before the issue time are ignored, hours.
    package var lookbackHours: Double = 6
    /// A forecast counts for a target hour when its valid time is within this many hours of it.
    package var forecastValidityToleranceHours: Double = 1.5
    /// How motion is estimated; nil for none (persistence).
    var motion: NowcastMotion? = NowcastMotion()
    /// How the forecast's patches are moved to where the reports place them before pooling; nil for not at all.
    package var alignment: ForecastAlignment? = ForecastAlignment()

    /// Makes a blend with the documented weights.
    package init() {}

    /// The blend's inputs at one issue.
    package struct Inputs: Sendable {
        /// The fleet's reports (peak EDR per tile crossing, exit time).
        var fleet: [NowcastModel.Input]
        /// Stored pilot-report cells (their band, class and observation time).
        package var pilotReports: [StoredPilotReportCell]
        /// Stored forecast cells (any issue; those issued after the nowcast's issue time are ignored).
        package var forecast: [StoredForecastCell]
    }

    /// One issued cell.
    package struct Output: Sendable, Equatable {
        /// H3 resolution-5 cell.
        package var cell: UInt64
        /// Layer, thousands of feet.
        package var layer: Int
        /// Hours after the issue time.
        package var forecastHour: Int
        /// The pooled distribution's median EDR, m^(2/3) s^-1.
        package var edr: Double
        /// The source with the largest weighted evidence at the issued band.
        package var provenance: TurbulenceProvenance
    }

    /// One source's say about one cell and hour: its weight and its ln EDR.
    struct Evidence { var weight: Double; var logEDR: Double }
    /// The strongest evidence of each source in one cell and hour (fleet, pilot reports, forecast).
    struct CellEvidence { var sources: [Evidence?] = [nil, nil, nil] }
    struct Key: Hashable { var cell: UInt64; var layer: Int; var hour: Int }

    /// The cells issued at `issueTime` (Unix seconds) from `inputs`, sorted by cell, layer, hour.
    package func issue(at issueTime: Double, inputs: Inputs) -> [Output] {
        var evidence: [Key: CellEvidence] = [:]
        let velocities = motion?.estimate(at: issueTime, observations: inputs.fleet + Self.motionInputs(inputs.pilotReports)) ?? [:]
        // Fleet: the freshest report per cell and layer.
        var freshest: [Key: NowcastModel.Input] = [:]
        for report in inputs.fleet {
            let key = Key(cell: report.cell, layer: report.layer, hour: 0)
            if let held = freshest[key], held.exitTime > report.exitTime || (held.exitTime == report.exitTime && held.edrPeak >= report.edrPeak) { continue }
            freshest[key] = report
        }
        for report in freshest.values where report.edrPeak.isFinite && report.edrPeak >= 0 {
            spread(cell: report.cell, layer: report.layer, time: min(report.exitTime, issueTime), edr: report.edrPeak, source: 0,
                   model: fleet, issueTime: issueTime, velocities: velocities, into: &evidence)
        }
        for report in inputs.pilotReports where report.observationTime <= issueTime {
            spread(cell: report.h3, layer: report.layer, time: report.observationTime, edr: Self.value(of: report, climatology: climatologyMedianEDR),
                   source: 1, model: pilotReports, issueTime: issueTime, velocities: velocities, into: &evidence)
        }
        addForecast(alignedForecast(inputs, issueTime: issueTime).cells, issueTime: issueTime, into: &evidence)
        var result: [Output] = []
        for (key, cellEvidence) in evidence {
            if let output = pooled(cellEvidence, key: key) { result.append(output) }
        }
        result.sort { ($0.cell, $0.layer, $0.forecastHour) < ($1.cell, $1.layer, $1.forecastHour) }
        return result
    }

    /// The forecast cells of `inputs` after feature alignment by the reports made up to `issueTime` (unchanged without
    /// `alignment`), and what the alignment did.
    package func alignedForecast(_ inputs: Inputs, issueTime: Double) -> (cells: [StoredForecastCell], summary: ForecastAlignment.Summary) {
        guard let alignment else { return (inputs.forecast, ForecastAlignment.Summary()) }
        let usable = inputs.forecast.filter { $0.issueTime <= issueTime }
        return alignment.align(usable, reports: alignment.reports(fleet: inputs.fleet, pilotReports: inputs.pilotReports, issueTime: issueTime))
    }

    /// The EDR a pilot report stands for: the geometric middle of its band; for smooth air the climatological median
    /// (within the band); for an open band 1.3 × its lower bound.
    static func value(of report: StoredPilotReportCell, climatology: Double) -> Double {
        guard report.edrLower > 0 else { return min(climatology, (report.edrUpper ?? climatology) / 2) }
        guard let upper = report.edrUpper else { return report.edrLower * 1.3 }
        return (report.edrLower * upper).squareRoot()
    }

    /// Pilot reports as motion-fit inputs (they trace the turbulence too; the fit keeps only turbulent ones).
    static func motionInputs(_ reports: [StoredPilotReportCell]) -> [NowcastModel.Input] {
        reports.map { NowcastModel.Input(cell: $0.h3, layer: $0.layer, exitTime: $0.observationTime, edrPeak: value(of: $0, climatology: 0.03)) }
    }

    /// Adds a report's evidence at every forecast hour to the cells around where it has drifted by then.
    func spread(cell: UInt64, layer: Int, time: Double, edr: Double, source: Int, model: SourceModel, issueTime: Double,
                velocities: [NowcastMotion.Region: NowcastMotion.Velocity], into evidence: inout [Key: CellEvidence]) {
        let ageHours = (issueTime - time) / 3600
        guard ageHours >= 0, ageHours <= lookbackHours, edr.isFinite else { return }
        let logEDR = log(max(edr, 0.005))
        let velocity = motion?.region(of: cell, layer: layer).flatMap { velocities[$0] }
        for hour in forecastHours {
            let hours = ageHours + Double(hour)
            let weight = model.skill * exp(-hours / model.decayHours)
            guard weight >= 0.01 else { continue }
            let centre = velocity.map { NowcastMotion.advect(cell, by: $0, hours: hours) } ?? cell
            let disk = model.spreadRings > 0
                ? (try? H3.gridDiskDistances(H3Index(rawValue: centre), k: model.spreadRings)) ?? [(H3Index(rawValue: centre), 0)]
                : [(H3Index(rawValue: centre), 0)]
            for (neighbour, ring) in disk {
                let distanceKm = Double(ring) * ringSpacingKm
                let ringWeight = weight * exp(-distanceKm * distanceKm / (2 * placementKm * placementKm))
                let key = Key(cell: neighbour.rawValue, layer: layer, hour: hour)
                var held = evidence[key] ?? CellEvidence()
                if let current = held.sources[source], current.weight >= ringWeight { continue }
                held.sources[source] = Evidence(weight: ringWeight, logEDR: logEDR)
                evidence[key] = held
            }
        }
    }

    /// The forecast value a cell and hour takes, and the lead time of its product.
    struct ForecastPick { var edr: Double; var lead: Double }

    /// Per target hour the product time to use — the valid time nearest the hour (within the tolerance), of the newest
    /// issue on a tie, among the issues made no later than the nowcast — and each cell's value at it. The choice is made
    /// per product time, not per cell: a cell absent at the chosen time (a grid stored above a floor) is no evidence,
    /// not an invitation to take its value from the hour before or after.
    func forecastPicks(_ cells: [StoredForecastCell], issueTime: Double) -> [Key: ForecastPick] {
        struct ProductTime: Hashable { var issue: Double; var valid: Double }
        let usable = cells.filter { $0.issueTime <= issueTime && $0.edr.isFinite && $0.edr >= 0 }
        let times = Set(usable.map { ProductTime(issue: $0.issueTime, valid: $0.validTime) })
        var chosen: [Int: ProductTime] = [:]
        for hour in forecastHours {
            let target = issueTime + Double(hour) * 3600
            let best = times.filter { abs($0.valid - target) <= forecastValidityToleranceHours * 3600 }
                .min { (abs($0.valid - target), -$0.issue) < (abs($1.valid - target), -$1.issue) }
            if let best { chosen[hour] = best }
        }
        var hoursOf: [ProductTime: [Int]] = [:]
        for (hour, time) in chosen { hoursOf[time, default: []].append(hour) }
        var picks: [Key: ForecastPick] = [:]
        for cell in usable {
            guard let hours = hoursOf[ProductTime(issue: cell.issueTime, valid: cell.validTime)] else { continue }
            for hour in hours {
                let lead = (issueTime + Double(hour) * 3600 - cell.issueTime) / 3600
                let key = Key(cell: cell.h3, layer: cell.layer, hour: hour)
                picks[key] = ForecastPick(edr: max(picks[key]?.edr ?? 0, cell.edr), lead: lead)
            }
        }
        return picks
    }

    /// Adds the picked forecast of each cell and hour, weighted by its lead time.
    func addForecast(_ cells: [StoredForecastCell], issueTime: Double, into evidence: inout [Key: CellEvidence]) {
        for (key, pick) in forecastPicks(cells, issueTime: issueTime) {
            let weight = forecast.skill * exp(-max(pick.lead, 0) / forecast.decayHours)
            evidence[key, default: CellEvidence()].sources[2] = Evidence(weight: weight, logEDR: log(max(pick.edr, 0.005)))
        }
    }

    /// The pooled median of one cell and hour, nil when below the lowest threshold.
    func pooled(_ cellEvidence: CellEvidence, key: Key) -> Output? {
        let models = [fleet, pilotReports, forecast]
        let climatologyLog = log(climatologyMedianEDR)
        var logits: [Double] = []
        var dominant: [Int] = []
        for threshold in thresholds {
            let lnT = log(threshold)
            let climate = logit(exceedance(lnT, median: climatologyLog, spread: climatologyLogSpread))
            var total = climate
            var strongest = (source: -1, evidence: 0.0)
            for (source, say) in cellEvidence.sources.enumerated() {
                guard let say else { continue }
                let term = say.weight * (logit(exceedance(lnT, median: say.logEDR, spread: models[source].logSpread)) - climate)
                total += term
                if abs(term) > strongest.evidence { strongest = (source, abs(term)) }
            }
            logits.append(total)
            dominant.append(strongest.source)
        }
        guard let first = logits.first, first >= 0 else { return nil }
        var band = 0
        while band + 1 < logits.count && logits[band + 1] >= 0 { band += 1 }
        var logEDR = log(thresholds[band])
        if band + 1 < logits.count {
            let fraction = logits[band] / (logits[band] - logits[band + 1])
            logEDR += fraction * (log(thresholds[band + 1]) - log(thresholds[band]))
        }
        let provenance: TurbulenceProvenance = switch dominant[band] {
        case 1: .pilotReport
        case 2: .forecast
        default: .fleetMeasured
        }
        return Output(cell: key.cell, layer: key.layer, forecastHour: key.hour, edr: exp(logEDR), provenance: provenance)
    }

    /// P(ln EDR ≥ lnT) for ln EDR ~ N(median, spread²), kept within `probabilityLimit`.
    func exceedance(_ lnT: Double, median: Double, spread: Double) -> Double {
        let p = 0.5 * erfc((lnT - median) / (spread * 2.0.squareRoot()))
        return min(max(p, 1 - probabilityLimit), probabilityLimit)
    }

    /// ln(p / (1 − p)).
    func logit(_ p: Double) -> Double { log(p / (1 - p)) }
}
#endif
