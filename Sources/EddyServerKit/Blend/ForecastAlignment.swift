#if Tools
import EddyH3
import Foundation

/// Feature alignment of a gridded forecast by the reports (docs/nowcast.md "Feature alignment"): a forecast patch
/// (a connected set of cells at or above `thresholdEDR`, followed through the product's valid times) is moved by the
/// displacement that best puts the turbulent reports near it inside it and the smooth ones outside, searched within
/// `searchRadiusKm`. This is the phase (position) correction of Brewster (2003, "Phase-correcting data assimilation and
/// application to storm-scale numerical weather prediction", Mon. Wea. Rev. 131) and the feature calibration and
/// alignment of Nehrkorn et al. (2014, Mon. Wea. Rev. 142): a forecast whose features are right but misplaced is moved
/// as a whole, instead of being blended cell by cell with observations that land beside it. Pure: no I/O, no clock.
package struct ForecastAlignment: Sendable {
    /// A forecast cell at or above this EDR belongs to a patch, m^(2/3) s^-1 (the scored event: light or worse).
    package var thresholdEDR = 0.10
    /// A fleet report below this EDR is evidence of smooth air (half the event: clearly below it, not its edge).
    package var smoothEDR = 0.05
    /// Displacements are searched within this radius, km.
    package var searchRadiusKm = 150.0
    /// Step of the displacement search grid, km (half a resolution-5 cell spacing).
    package var searchStepKm = 7.35
    /// Reports observed this many hours before the issue, or less, are evidence.
    package var lookbackHours = 3.0
    /// A patch is moved only when at least this many turbulent reports lie inside it once moved.
    package var minimumTurbulentReports = 1
    /// A patch is moved only when the move gains at least this much evidence over leaving it (in reports).
    package var minimumGain = 0.5
    /// A report is compared with the patch at the valid time nearest it, when that is within this many hours.
    package var timeToleranceHours = 1.0
    /// Two patches of consecutive valid times are one feature when they share a layer and their centres moved at most
    /// this fast, km/h (the fastest jet-level winds).
    package var maximumFeatureSpeedKmPerHour = 250.0
    /// A point is in a cell when the cell's centre is the nearest within this distance, km (a res-5 hexagon's radius).
    package var cellRadiusKm = 9.0

    /// Makes an alignment with the documented settings.
    package init() {}

    /// One report as evidence: where, when, at which layer, and whether it is turbulent (+1) or smooth (−1).
    package struct Report: Sendable {
        /// Latitude, degrees.
        package var latitude: Double
        /// Longitude, degrees.
        package var longitude: Double
        /// Layer, thousands of feet.
        package var layer: Int
        /// Observation time, Unix seconds.
        package var time: Double
        /// +1 for turbulence at or above the threshold, −1 for smooth air.
        package var sign: Double
    }

    /// What one alignment did (for the test's print-out and the docs).
    package struct Summary: Sendable, Equatable {
        /// Features (patches followed through valid times) found.
        package var features = 0
        /// Features with enough evidence near them to be tried.
        package var tried = 0
        /// Features moved.
        package var moved = 0
        /// Sum of the moves' lengths, km.
        package var movedKm = 0.0
    }

    /// A patch at one valid time.
    struct Component {
        var cells: [Key: Double] = [:]
        var validTime: Double
        var layers: Set<Int> = []
        /// EDR-weighted centre, degrees.
        var latitude = 0.0, longitude = 0.0
        var velocity = (x: 0.0, y: 0.0)
        var feature = 0
    }
    struct Key: Hashable { var cell: UInt64; var layer: Int }

    /// The evidence of the fleet's and pilot reports of the lookback window before `issueTime`.
    func reports(fleet: [NowcastModel.Input], pilotReports: [StoredPilotReportCell], issueTime: Double) -> [Report] {
        var result: [Report] = []
        func add(_ cell: UInt64, _ layer: Int, _ time: Double, _ edr: Double) {
            guard time <= issueTime, time >= issueTime - lookbackHours * 3600, edr.isFinite,
                  edr >= thresholdEDR || edr < smoothEDR,
                  let centre = try? H3.cellToLatLng(H3Index(rawValue: cell)) else { return }
            result.append(Report(latitude: centre.latitude, longitude: centre.longitude, layer: layer, time: time, sign: edr >= thresholdEDR ? 1 : -1))
        }
        for report in fleet { add(report.cell, report.layer, report.exitTime, report.edrPeak) }
        for report in pilotReports { add(report.h3, report.layer, report.observationTime, NowcastBlend.value(of: report, climatology: 0.03)) }
        return result
    }

    /// `cells` with each forecast feature that the reports place elsewhere moved there; the rest unchanged.
    package func align(_ cells: [StoredForecastCell], reports: [Report]) -> (cells: [StoredForecastCell], summary: Summary) {
        guard !reports.isEmpty else { return (cells, Summary()) }
        struct Run: Hashable { var product: String; var issueTime: Double }
        var runs: [Run: [StoredForecastCell]] = [:]
        for cell in cells { runs[Run(product: cell.product, issueTime: cell.issueTime), default: []].append(cell) }
        var result: [StoredForecastCell] = []
        var summary = Summary()
        for (run, runCells) in runs.sorted(by: { ($0.key.product, $0.key.issueTime) < ($1.key.product, $1.key.issueTime) }) {
            result += alignRun(runCells, product: run.product, issueTime: run.issueTime, reports: reports, summary: &summary)
        }
        return (result, summary)
    }

    /// One forecast run (a product's issue): its patches per valid time, linked into features, each moved by its best
    /// displacement.
    func alignRun(_ cells: [StoredForecastCell], product: String, issueTime: Double, reports: [Report], summary: inout Summary) -> [StoredForecastCell] {
        // Each feature is measured on its own tangent plane (centred on its first patch): a run may cover a continent
        // (GTG) or the globe (WAFS), where one plane would distort distances.
        var byValid: [Double: [Key: Double]] = [:]
        for cell in cells { byValid[cell.validTime, default: [:]][Key(cell: cell.h3, layer: cell.layer)] = max(byValid[cell.validTime]?[Key(cell: cell.h3, layer: cell.layer)] ?? 0, cell.edr) }
        let validTimes = byValid.keys.sorted()
        var components: [Component] = []
        for valid in validTimes { components += self.components(of: byValid[valid] ?? [:], validTime: valid) }
        let features = link(&components)
        summary.features += features
        var moved: [Int: (shift: (x: Double, y: Double), plane: LocalPlane)] = [:]
        for feature in 0..<features {
            let members = components.indices.filter { components[$0].feature == feature }
            guard let first = members.first else { continue }
            let plane = LocalPlane(latitude: components[first].latitude, longitude: components[first].longitude)
            guard let shift = displacement(of: members.map { components[$0] }, reports: reports, plane: plane, summary: &summary) else { continue }
            moved[feature] = (shift, plane)
            summary.moved += 1
            summary.movedKm += hypot(shift.x, shift.y)
        }
        guard !moved.isEmpty else { return cells }
        var fields = byValid
        for component in components where moved[component.feature] != nil {
            for key in component.cells.keys { fields[component.validTime]?[key] = nil }
        }
        for component in components {
            guard let move = moved[component.feature] else { continue }
            for (key, edr) in resampled(component, by: move.shift, plane: move.plane) {
                fields[component.validTime, default: [:]][key] = max(fields[component.validTime]?[key] ?? 0, edr)
            }
        }
        var result: [StoredForecastCell] = []
        for valid in validTimes {
            for (key, edr) in fields[valid] ?? [:] {
                result.append(StoredForecastCell(product: product, h3: key.cell, layer: key.layer, issueTime: issueTime, validTime: valid, edr: edr))
            }
        }
        return result
    }

    /// The connected patches (H3 neighbours in a layer, the same cell in adjacent layers) of cells ≥ the threshold.
    func components(of field: [Key: Double], validTime: Double) -> [Component] {
        var seen = Set<Key>()
        var result: [Component] = []
        // In cell and layer order, so that every run finds the same patches from the same first cells (a dictionary's
        // order changes from process to process, and the alignment must be deterministic).
        for start in field.keys.sorted(by: { ($0.cell, $0.layer) < ($1.cell, $1.layer) }) where (field[start] ?? 0) >= thresholdEDR && !seen.contains(start) {
            var component = Component(validTime: validTime)
            guard let origin = try? H3.cellToLatLng(H3Index(rawValue: start.cell)) else { continue }
            let plane = LocalPlane(latitude: origin.latitude, longitude: origin.longitude)
            var stack = [start]
            seen.insert(start)
            var weight = 0.0, sx = 0.0, sy = 0.0
            while let key = stack.popLast() {
                let value = field[key] ?? 0
                component.cells[key] = value
                component.layers.insert(key.layer)
                if let p = plane.xy(cell: key.cell) { sx += value * p.x; sy += value * p.y; weight += value }
                var next = ((try? H3.gridDisk(H3Index(rawValue: key.cell), k: 1)) ?? []).map { Key(cell: $0.rawValue, layer: key.layer) }
                next += [Key(cell: key.cell, layer: key.layer - 1), Key(cell: key.cell, layer: key.layer + 1)]
                for neighbour in next where !seen.contains(neighbour) && (field[neighbour] ?? 0) >= thresholdEDR {
                    seen.insert(neighbour)
                    stack.append(neighbour)
                }
            }
            let centre = weight > 0 ? plane.latLng(x: sx / weight, y: sy / weight) : (origin.latitude, origin.longitude)
            (component.latitude, component.longitude) = centre
            result.append(component)
        }
        return result
    }

    /// Links each patch to the nearest patch of the next valid time that shares a layer and is within reach, numbers
    /// the features (linked chains; a split or merge joins them) and gives each patch its velocity; returns the count.
    func link(_ components: inout [Component]) -> Int {
        var parent = Array(components.indices)
        func root(_ i: Int) -> Int { var i = i; while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }; return i }
        let validTimes = Set(components.map(\.validTime)).sorted()
        for (step, valid) in validTimes.enumerated() where step + 1 < validTimes.count {
            let next = validTimes[step + 1], hours = (next - valid) / 3600
            for i in components.indices where components[i].validTime == valid {
                let plane = LocalPlane(latitude: components[i].latitude, longitude: components[i].longitude)
                func offset(_ j: Int) -> (x: Double, y: Double) { plane.xy(latitude: components[j].latitude, longitude: components[j].longitude) }
                let candidates = components.indices.filter { j in
                    components[j].validTime == next && !components[j].layers.isDisjoint(with: components[i].layers)
                        && hypot(offset(j).x, offset(j).y) <= maximumFeatureSpeedKmPerHour * hours
                }
                guard let j = candidates.min(by: { hypot(offset($0).x, offset($0).y) < hypot(offset($1).x, offset($1).y) }) else { continue }
                parent[root(j)] = root(i)
                let velocity = (offset(j).x / hours, offset(j).y / hours)
                components[i].velocity = velocity
                if components[j].velocity == (0, 0) { components[j].velocity = velocity }
            }
        }
        var numbers: [Int: Int] = [:]
        for i in components.indices {
            let r = root(i)
            if numbers[r] == nil { numbers[r] = numbers.count }
            components[i].feature = numbers[r] ?? 0
        }
        return numbers.count
    }

    /// The best displacement of one feature (km east, north), or nil to leave it: the reports near each of its patches
    /// (in time and layer) are carried back to the patch's valid time with its velocity, and every displacement of the
    /// search grid is scored by Σ sign × (the patch's EDR at the report's place minus the displacement) / the patch's peak.
    func displacement(of patches: [Component], reports: [Report], plane: LocalPlane, summary: inout Summary) -> (x: Double, y: Double)? {
        var evidence: [(x: Double, y: Double, layer: Int, sign: Double, patch: Int)] = []
        var lookups: [CellLookup] = []
        for (index, patch) in patches.enumerated() {
            lookups.append(CellLookup(patch, plane: plane, radiusKm: cellRadiusKm))
            let reach = searchRadiusKm + (lookups[index].extentKm)
            for report in reports where patch.layers.contains(report.layer) && abs(report.time - patch.validTime) <= timeToleranceHours * 3600 {
                if let nearer = patches.first(where: { $0.layers.contains(report.layer) && abs(report.time - $0.validTime) < abs(report.time - patch.validTime) }),
                   nearer.validTime != patch.validTime { continue }
                let p = plane.xy(latitude: report.latitude, longitude: report.longitude)
                let hours = (report.time - patch.validTime) / 3600
                let x = p.x - patch.velocity.x * hours, y = p.y - patch.velocity.y * hours
                let centre = plane.xy(latitude: patch.latitude, longitude: patch.longitude)
                guard hypot(x - centre.x, y - centre.y) <= reach else { continue }
                evidence.append((x, y, report.layer, report.sign, index))
            }
        }
        guard evidence.contains(where: { $0.sign > 0 }) else { return nil }
        summary.tried += 1
        func score(_ sx: Double, _ sy: Double) -> (total: Double, inside: Int) {
            var total = 0.0, inside = 0
            for e in evidence {
                let value = lookups[e.patch].value(x: e.x - sx, y: e.y - sy, layer: e.layer)
                total += e.sign * value
                if e.sign > 0 && value > 0 { inside += 1 }
            }
            return (total, inside)
        }
        let still = score(0, 0).total
        var best: (x: Double, y: Double, total: Double, inside: Int)?
        let steps = Int(searchRadiusKm / searchStepKm)
        for i in -steps...steps {
            for j in -steps...steps {
                let sx = Double(i) * searchStepKm, sy = Double(j) * searchStepKm
                guard hypot(sx, sy) <= searchRadiusKm else { continue }
                let s = score(sx, sy)
                if let held = best, s.total < held.total || (s.total == held.total && hypot(sx, sy) >= hypot(held.x, held.y)) { continue }
                best = (sx, sy, s.total, s.inside)
            }
        }
        guard let best, best.inside >= minimumTurbulentReports, best.total >= still + minimumGain, best.x != 0 || best.y != 0 else { return nil }
        return (best.x, best.y)
    }

    /// The patch's cells moved by `shift` (km) and resampled onto the grid: each cell near the moved patch takes the
    /// value at its centre minus the shift (nearest neighbour), so the moved patch has no holes.
    func resampled(_ patch: Component, by shift: (x: Double, y: Double), plane: LocalPlane) -> [Key: Double] {
        let lookup = CellLookup(patch, plane: plane, radiusKm: cellRadiusKm)
        var result: [Key: Double] = [:]
        var tried = Set<Key>()
        for key in patch.cells.keys {
            guard let p = plane.xy(cell: key.cell), let moved = plane.cell(x: p.x + shift.x, y: p.y + shift.y),
                  let disk = try? H3.gridDisk(H3Index(rawValue: moved), k: 1) else { continue }
            for destination in disk {
                let target = Key(cell: destination.rawValue, layer: key.layer)
                guard tried.insert(target).inserted, let q = plane.xy(cell: target.cell) else { continue }
                let value = lookup.value(x: q.x - shift.x, y: q.y - shift.y, layer: key.layer, relative: false)
                if value > 0 { result[target] = value }
            }
        }
        return result
    }
}

/// A tangent plane (km east, north) around a point: positions of a few hundred km, where its distortion is small.
struct LocalPlane {
    var latitude: Double, longitude: Double
    var kmPerDegree: Double { NowcastMotion.earthRadiusKm * Double.pi / 180 }
    var cosLatitude: Double { cos(latitude * Double.pi / 180) }

    func xy(latitude lat: Double, longitude lng: Double) -> (x: Double, y: Double) {
        var dl = lng - longitude
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        return (dl * kmPerDegree * cosLatitude, (lat - latitude) * kmPerDegree)
    }
    func xy(cell: UInt64) -> (x: Double, y: Double)? {
        guard let c = try? H3.cellToLatLng(H3Index(rawValue: cell)) else { return nil }
        return xy(latitude: c.latitude, longitude: c.longitude)
    }
    func latLng(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        var lng = longitude + x / (kmPerDegree * cosLatitude)
        if lng > 180 { lng -= 360 } else if lng < -180 { lng += 360 }
        return (latitude + y / kmPerDegree, lng)
    }
    func cell(x: Double, y: Double) -> UInt64? {
        let (lat, lng) = latLng(x: x, y: y)
        guard abs(lat) < 89.9, let cell = try? H3.latLngToCell(latitude: lat, longitude: lng, resolution: 5) else { return nil }
        return cell.rawValue
    }
}

/// A patch's cell centres in a spatial hash: the value of the cell whose centre is nearest a point (within a radius).
struct CellLookup {
    var buckets: [Bucket: [(x: Double, y: Double, edr: Double)]] = [:]
    struct Bucket: Hashable { var i: Int; var j: Int; var layer: Int }
    var radiusKm: Double
    var peak = 0.0
    var extentKm = 0.0

    init(_ patch: ForecastAlignment.Component, plane: LocalPlane, radiusKm: Double) {
        self.radiusKm = radiusKm
        let centre = plane.xy(latitude: patch.latitude, longitude: patch.longitude)
        for key in patch.cells.keys.sorted(by: { ($0.cell, $0.layer) < ($1.cell, $1.layer) }) {
            guard let p = plane.xy(cell: key.cell), let edr = patch.cells[key] else { continue }
            buckets[Bucket(i: Int((p.x / radiusKm).rounded(.down)), j: Int((p.y / radiusKm).rounded(.down)), layer: key.layer), default: []].append((p.x, p.y, edr))
            peak = max(peak, edr)
            extentKm = max(extentKm, hypot(p.x - centre.x, p.y - centre.y))
        }
    }

    /// The EDR at the nearest centre within the radius (divided by the patch's peak when `relative`), else 0.
    func value(x: Double, y: Double, layer: Int, relative: Bool = true) -> Double {
        let i = Int((x / radiusKm).rounded(.down)), j = Int((y / radiusKm).rounded(.down))
        var best = (distance: radiusKm * radiusKm, edr: 0.0)
        for di in -1...1 {
            for dj in -1...1 {
                for c in buckets[Bucket(i: i + di, j: j + dj, layer: layer)] ?? [] {
                    let d = (c.x - x) * (c.x - x) + (c.y - y) * (c.y - y)
                    if d <= best.distance { best = (d, c.edr) }
                }
            }
        }
        return relative && peak > 0 ? best.edr / peak : best.edr
    }
}
#endif
