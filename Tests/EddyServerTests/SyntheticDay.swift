#if Tools
import EddyH3
import EddyVocabulary
import Foundation

@testable import EddyServerKit

/// A synthetic day of upper-level turbulence for the nowcast blend (issue 31, docs/nowcast.md "The synthetic day"):
/// a true EDR field that moves and evolves, a gridded forecast of it with position, intensity and timing errors that
/// misses the small convective patches, a fleet of three aircraft measuring it, and pilot reports from other traffic
/// with their delay, subjectivity, placement error and reporter-type bias. Seeded and deterministic.
///
/// The world (numbers and why, docs/nowcast.md):
/// - A 900 × 700 km box around 40° N 95° W, layers 34…38 (FL340–FL389), one day from 00 UTC.
/// - Clear-air patches: ellipses elongated along the wind of their layer (semi-axes 40–150 km and 0.3–0.7 of that),
///   peak EDR 0.15–0.5 (log-uniform), three layers deep, living 2–8 h with a sine-shaped growth and decay, drifting at
///   25–70 kt from the west (± 25°). About eight alive at once; one born an hour.
/// - Convective patches: 30 % of births, 15–40 km, 1–3 h, drifting at 15 kt: what gridded forecasts miss.
/// - Background (smooth air) EDR 0.03. The event scored is EDR ≥ 0.10 (light or worse, the alerts' default floor).
/// - Forecast: issued at 00, 06, 12, 18 UTC, available 3 h later, hourly valid times. Each clear-air patch is placed
///   with an error of N(0, (50 km + 4 km/h × lead)²) per axis, its peak scaled by exp(N(0, 0.4²)), its life cycle shifted
///   by N(0, 1 h); convective patches are absent; one or two spurious patches per issue.
/// - Fleet: three aircraft flying legs of 500–900 km at 450 kt, 45 min turnarounds, each leg at a layer of 35…37;
///   a fix every 20 s, one report per resolution-5 cell crossed: the peak of the true EDR times a measurement scatter
///   exp(N(0, 0.25²)), as the engine reports it.
/// - Pilot reports: 25 other flights an hour across the box at random layers, a fix a minute; at an encounter (true EDR
///   at least the light threshold of the reporter's class) the crew reports with probability 0.3, then not again for
///   30 min; smooth air is reported (NEG) once in 50 flight-hours. Reporter classes small/medium/large 20/60/20 %, the
///   type known for 70 % (else assumed medium, as the decoder does: a small aircraft's report then reads too strong);
///   the felt severity is the true EDR × exp(N(0, 0.3²)) on the reporter's scale; position error N(0, 15 km) per
///   axis; received 10 min + Exp(20 min) after the encounter.
struct SyntheticDay {
    struct Patch {
        var latitude: Double, longitude: Double   // centre at `born`
        var eastKmPerHour: Double, northKmPerHour: Double
        var semiMajorKm: Double, semiMinorKm: Double
        var peakEDR: Double, layer: Int
        var born: Double, lifetimeHours: Double
        var convective: Bool
    }

    /// A point in the box, degrees.
    struct Point { var latitude: Double; var longitude: Double }

    static let dayStart = 1_800_000_000.0 - 1_800_000_000.0.truncatingRemainder(dividingBy: 86_400)
    static let centre = Point(latitude: 40, longitude: -95)
    static let halfWidthKm = 450.0, halfHeightKm = 350.0
    static let layers = 34...38
    static let backgroundEDR = 0.03
    static let kmPerDegree = NowcastMotion.earthRadiusKm * Double.pi / 180
    static let cosCentre = cos(centre.latitude * Double.pi / 180)

    var patches: [Patch] = []
    var fleetReports: [(input: NowcastModel.Input, arrival: Double)] = []
    var pilotReports: [(cell: StoredPilotReportCell, arrival: Double)] = []
    /// Forecast issues: reference time and its patches (displaced, scaled, shifted; spurious ones added).
    var forecastIssues: [(issueTime: Double, patches: [Patch])] = []
    /// Every cell × layer a flight (the fleet or the other traffic) was in, with the time of that fix: where the air was
    /// sampled, for scoring where aircraft fly (recorded only: no draw of the world depends on it).
    var flown: [(cell: UInt64, layer: Int, time: Double)] = []
    /// The resolution-5 cells whose centre is in the box, with their centres.
    var cells: [(cell: UInt64, point: Point)] = []

    static func xy(_ point: Point) -> (x: Double, y: Double) {
        ((point.longitude - centre.longitude) * kmPerDegree * cosCentre, (point.latitude - centre.latitude) * kmPerDegree)
    }
    static func point(x: Double, y: Double) -> Point {
        Point(latitude: centre.latitude + y / kmPerDegree, longitude: centre.longitude + x / (kmPerDegree * cosCentre))
    }

    /// Builds the day for `seed`.
    init(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        // Patches from 8 h before the day (alive at its start) to its end: ~8 at once at the start, one born an hour.
        var born = Self.dayStart - 8 * 3600
        while born < Self.dayStart + 24 * 3600 {
            patches.append(Self.patch(born: born, random: &random))
            born += -log(1 - random.unit()) * 3600
        }
        try collectCells()
        try flyFleet(random: &random)
        try flyOtherTraffic(random: &random)
        for issue in stride(from: Self.dayStart, to: Self.dayStart + 24 * 3600, by: 6 * 3600) {
            forecastIssues.append((issue, forecastPatches(issueTime: issue, random: &random)))
        }
    }

    static func patch(born: Double, random: inout SeededRandom) -> Patch {
        let convective = random.unit() < 0.3
        let x = (random.unit() * 2 - 1) * (halfWidthKm + 200) - 150   // upwind of the box too: patches drift in
        let y = (random.unit() * 2 - 1) * halfHeightKm
        let start = point(x: x, y: y)
        let direction = (random.unit() * 2 - 1) * 25 * Double.pi / 180
        let speedKmPerHour = (convective ? 15 : 25 + random.unit() * 45) * 1.852
        let major = convective ? 15 + random.unit() * 25 : 40 + random.unit() * 110
        return Patch(latitude: start.latitude, longitude: start.longitude,
                     eastKmPerHour: speedKmPerHour * cos(direction), northKmPerHour: speedKmPerHour * sin(direction),
                     semiMajorKm: major, semiMinorKm: major * (convective ? 0.8 : 0.3 + random.unit() * 0.4),
                     peakEDR: exp(log(0.15) + random.unit() * log(0.5 / 0.15)), layer: 34 + Int(random.unit() * 5),
                     born: born, lifetimeHours: convective ? 1 + random.unit() * 2 : 2 + random.unit() * 6, convective: convective)
    }

    /// EDR of `patch` at `point`, `layer` and `time` (its life-cycle envelope × an elliptical Gaussian).
    static func edr(of patch: Patch, at point: Point, layer: Int, time: Double) -> Double {
        let ageHours = (time - patch.born) / 3600
        guard ageHours > 0, ageHours < patch.lifetimeHours, abs(layer - patch.layer) <= 1 else { return 0 }
        let dx = (point.longitude - patch.longitude) * kmPerDegree * cosCentre - patch.eastKmPerHour * ageHours
        let dy = (point.latitude - patch.latitude) * kmPerDegree - patch.northKmPerHour * ageHours
        guard abs(dx) < 3 * patch.semiMajorKm, abs(dy) < 3 * patch.semiMajorKm else { return 0 }
        let speed = max((patch.eastKmPerHour * patch.eastKmPerHour + patch.northKmPerHour * patch.northKmPerHour).squareRoot(), 1e-9)
        let along = (dx * patch.eastKmPerHour + dy * patch.northKmPerHour) / speed
        let across = (-dx * patch.northKmPerHour + dy * patch.eastKmPerHour) / speed
        let r2 = along * along / (patch.semiMajorKm * patch.semiMajorKm) + across * across / (patch.semiMinorKm * patch.semiMinorKm)
        let envelope = sin(Double.pi * ageHours / patch.lifetimeHours)
        let vertical = layer == patch.layer ? 1.0 : 0.7
        return patch.peakEDR * envelope * vertical * exp(-r2)
    }

    /// The true EDR at a point (the worst patch over the background).
    func trueEDR(at point: Point, layer: Int, time: Double) -> Double {
        patches.reduce(Self.backgroundEDR) { max($0, Self.edr(of: $1, at: point, layer: layer, time: time)) }
    }

    /// The box's cells: a 5-km lattice mapped to resolution-5 cells, kept where the cell's centre is in the box.
    mutating func collectCells() throws {
        var seen = Set<UInt64>()
        for x in stride(from: -Self.halfWidthKm, through: Self.halfWidthKm, by: 5) {
            for y in stride(from: -Self.halfHeightKm, through: Self.halfHeightKm, by: 5) {
                let p = Self.point(x: x, y: y)
                let cell = try H3.latLngToCell(latitude: p.latitude, longitude: p.longitude, resolution: 5)
                guard seen.insert(cell.rawValue).inserted else { continue }
                let c = try H3.cellToLatLng(cell)
                let centre = Point(latitude: c.latitude, longitude: c.longitude), xy = Self.xy(centre)
                if abs(xy.x) <= Self.halfWidthKm, abs(xy.y) <= Self.halfHeightKm { cells.append((cell.rawValue, centre)) }
            }
        }
    }

    /// Standard normal deviate (Box–Muller).
    static func normal(_ random: inout SeededRandom) -> Double {
        (-2 * log(1 - random.unit())).squareRoot() * cos(2 * Double.pi * random.unit())
    }

    /// A random point in the box, km.
    static func randomXY(_ random: inout SeededRandom) -> (x: Double, y: Double) {
        ((random.unit() * 2 - 1) * halfWidthKm, (random.unit() * 2 - 1) * halfHeightKm)
    }

    /// The fleet's reports: three aircraft flying legs all day.
    mutating func flyFleet(random: inout SeededRandom) throws {
        let speedKmPerHour = 450 * 1.852
        for _ in 0..<3 {
            var time = Self.dayStart - 6 * 3600 + random.unit() * 3600
            var from = Self.randomXY(&random)
            while time < Self.dayStart + 24 * 3600 {
                var to = Self.randomXY(&random)
                while hypot(to.x - from.x, to.y - from.y) < 500 { to = Self.randomXY(&random) }
                let length = min(hypot(to.x - from.x, to.y - from.y), 900)
                let layer = 35 + Int(random.unit() * 3)
                var open: (cell: UInt64, peak: Double)?
                var distance = 0.0
                while distance <= length {
                    let f = distance / length
                    let p = Self.point(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)
                    let cell = try H3.latLngToCell(latitude: p.latitude, longitude: p.longitude, resolution: 5).rawValue
                    let measured = trueEDR(at: p, layer: layer, time: time) * exp(0.25 * Self.normal(&random))
                    flown.append((cell, layer, time))
                    if let held = open, held.cell == cell {
                        open = (cell, max(held.peak, measured))
                    } else {
                        if let held = open { fleetReports.append((.init(cell: held.cell, layer: layer, exitTime: time, edrPeak: held.peak), time + 60)) }
                        open = (cell, measured)
                    }
                    distance += speedKmPerHour * 20 / 3600
                    time += 20
                }
                if let held = open { fleetReports.append((.init(cell: held.cell, layer: layer, exitTime: time, edrPeak: held.peak), time + 60)) }
                time += 45 * 60
                from = to
            }
        }
    }

    /// Pilot reports from 25 other flights an hour.
    mutating func flyOtherTraffic(random: inout SeededRandom) throws {
        let speedKmPerHour = 450 * 1.852
        let flights = Int(25 * 30.0)
        for index in 0..<flights {
            let start = Self.dayStart - 6 * 3600 + random.unit() * 30 * 3600
            let from = Self.randomXY(&random)
            var to = Self.randomXY(&random)
            while hypot(to.x - from.x, to.y - from.y) < 400 { to = Self.randomXY(&random) }
            let length = hypot(to.x - from.x, to.y - from.y)
            let layer = 34 + Int(random.unit() * 5)
            let draw = random.unit()
            let trueClass: AircraftClass = draw < 0.2 ? .small : draw < 0.8 ? .medium : .large
            let typeKnown = random.unit() < 0.7
            let decodedClass: AircraftClass = typeKnown ? trueClass : .medium
            let factor = SeverityScale.thresholdFactor(for: trueClass)
            var lastReport = -Double.infinity
            var distance = 0.0, time = start
            while distance <= length {
                let f = distance / length
                let p = Self.point(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)
                let felt = trueEDR(at: p, layer: layer, time: time) * exp(0.3 * Self.normal(&random)) / factor
                flown.append((try H3.latLngToCell(latitude: p.latitude, longitude: p.longitude, resolution: 5).rawValue, layer, time))
                var intensity: ReportedTurbulenceIntensity?
                if felt >= 0.1, time - lastReport > 1800, random.unit() < 0.3 {
                    intensity = Self.intensity(mediumScaleEDR: felt)
                } else if felt < 0.1, random.unit() < (1.0 / 60) / 50 {
                    intensity = .smooth
                }
                if let intensity {
                    lastReport = time
                    let placed = Self.point(x: Self.xy(p).x + 15 * Self.normal(&random), y: Self.xy(p).y + 15 * Self.normal(&random))
                    let cell = try H3.latLngToCell(latitude: placed.latitude, longitude: placed.longitude, resolution: 5).rawValue
                    let band = PilotReportEDR.band(for: intensity, reporter: decodedClass)
                    let arrival = time + 600 - log(1 - random.unit()) * 1200
                    pilotReports.append((StoredPilotReportCell(
                        reportId: "synthetic-\(index)-\(Int(time))", provenance: PilotReportRecord.provenance, kind: .routinePIREP, h3: cell,
                        layer: layer, observationTime: time, intensity: intensity, aircraftClass: decodedClass,
                        aircraftClassAssumed: !typeKnown, edrLower: band.lower, edrUpper: band.upper), arrival))
                }
                distance += speedKmPerHour / 60
                time += 60
            }
        }
    }

    /// The reported word for an EDR on the medium-class scale.
    static func intensity(mediumScaleEDR edr: Double) -> ReportedTurbulenceIntensity {
        let t = SeverityScale.mediumClassThresholds
        if edr >= PilotReportEDR.extremeMediumClassThreshold { return .extreme }
        if edr >= t[4] { return .severe }
        if edr >= t[3] { return .moderateSevere }
        if edr >= t[2] { return .moderate }
        if edr >= t[1] { return .lightModerate }
        return .light
    }

    /// A forecast issue's patches: the clear-air ones displaced, scaled and shifted in time; convective ones missed;
    /// one or two spurious ones.
    func forecastPatches(issueTime: Double, random: inout SeededRandom) -> [Patch] {
        var result: [Patch] = []
        for patch in patches where !patch.convective && patch.born + patch.lifetimeHours * 3600 > issueTime && patch.born < issueTime + 24 * 3600 {
            var forecast = patch
            let midLeadHours = max(0, (patch.born + patch.lifetimeHours * 1800 - issueTime) / 3600)
            let sigmaKm = 50 + 4 * midLeadHours
            let shifted = Self.point(x: Self.xy(Point(latitude: patch.latitude, longitude: patch.longitude)).x + sigmaKm * Self.normal(&random),
                                     y: Self.xy(Point(latitude: patch.latitude, longitude: patch.longitude)).y + sigmaKm * Self.normal(&random))
            forecast.latitude = shifted.latitude
            forecast.longitude = shifted.longitude
            forecast.peakEDR *= exp(0.4 * Self.normal(&random))
            forecast.born += 3600 * Self.normal(&random)
            result.append(forecast)
        }
        let spurious = 1 + Int(random.unit() * 2)
        for _ in 0..<spurious {
            var fake = Self.patch(born: issueTime + random.unit() * 12 * 3600, random: &random)
            fake.convective = false
            result.append(fake)
        }
        return result
    }

    /// The reference time of the latest forecast issue available at `time` (3 h after its reference time).
    func forecastIssue(availableAt time: Double) -> Double? {
        forecastIssues.last(where: { $0.issueTime + 3 * 3600 <= time })?.issueTime
    }

    /// The forecast cells (EDR above the background: the rest carries no evidence against climatology) of the issue
    /// of reference time `issueTime`, valid at `valid`.
    func forecastCells(issueTime: Double, valid: Double) -> [StoredForecastCell] {
        guard let issue = forecastIssues.first(where: { $0.issueTime == issueTime }) else { return [] }
        var result: [StoredForecastCell] = []
        do {
            for (cell, point) in cells {
                for layer in Self.layers {
                    let edr = issue.patches.reduce(Self.backgroundEDR) { max($0, Self.edr(of: $1, at: point, layer: layer, time: valid)) }
                    if edr > Self.backgroundEDR * 1.2 {
                        result.append(StoredForecastCell(product: "SYNTHETIC", h3: cell, layer: layer, issueTime: issue.issueTime, validTime: valid, edr: edr))
                    }
                }
            }
        }
        return result
    }

    /// The box's cell × layer keys whose true EDR at `time` is at least `threshold`.
    func truth(at time: Double, threshold: Double) -> Set<CellLayer> {
        var result = Set<CellLayer>()
        for (cell, point) in cells {
            for layer in Self.layers where trueEDR(at: point, layer: layer, time: time) >= threshold {
                result.insert(CellLayer(cell: cell, layer: layer))
            }
        }
        return result
    }

    /// The box's cell × layer keys some flight was in within half an hour of `time`.
    func flown(around time: Double, box: Set<UInt64>) -> Set<CellLayer> {
        Set(flown.filter { abs($0.time - time) <= 1800 && box.contains($0.cell) }.map { CellLayer(cell: $0.cell, layer: $0.layer) })
    }

    /// A cell and layer.
    struct CellLayer: Hashable { var cell: UInt64; var layer: Int }
}
#endif
