#if Tools
import EddyH3
import Foundation

/// The motion of turbulence that recent reports show, and the advection of nowcast cells by it (docs/nowcast.md).
///
/// Per layer and per H3 resolution-`regionResolution` region (≈ 1,000 km across at resolution 1, so that patches
/// far apart, under different winds, are fitted apart), the turbulent reports (peak EDR ≥ `minimumEDR`) of the last
/// `windowHours` in the region and its six neighbours (a patch cut by a region boundary is fitted whole) are averaged
/// per `binMinutes` (one aircraft's crossing counts once), and the bins' positions `(xᵢ, yᵢ)` in km on the local
/// east/north plane, at times `tᵢ` (hours), give the velocity as the least-squares slope of position on time,
/// `u = Σ(tᵢ − t̄)(xᵢ − x̄) / Σ(tᵢ − t̄)²` (and `v` likewise with `y`): a patch moving at `(u, v)` is crossed by
/// aircraft at random places inside it, so its reports scatter around a centre that moves with it. The estimate is
/// used only when it is well founded: at least `minimumReports` bins spanning at least `minimumSpanHours`, a speed
/// ≤ `maximumSpeedKnots`, and a speed at least `significance` standard errors from zero; anything else is
/// persistence (no motion) for that layer and region.
struct NowcastMotion: Sendable {
    /// Reports of at least this peak EDR (m^(2/3) s^-1) trace the turbulence (light to moderate and worse).
    var minimumEDR: Double = 0.1
    /// Reports older than this before the issue time do not enter the fit, hours.
    var windowHours: Double = 3
    /// Fewest time bins holding turbulent reports for a fit.
    var minimumReports = 6
    /// Reports are averaged per this many minutes before the fit (see ``binned(_:minutes:)``).
    var binMinutes: Double = 10
    /// Shortest span of report times for a fit, hours.
    var minimumSpanHours: Double = 0.5
    /// Fastest credible motion, knots (jet-stream cores reach ≈ 200 kt; turbulence patches move slower).
    var maximumSpeedKnots: Double = 150
    /// The fitted speed must be this many standard errors from zero.
    var significance: Double = 3
    /// H3 resolution of the regions fitted apart.
    var regionResolution = 1

    /// Mean Earth radius, km.
    static let earthRadiusKm = 6371.0088
    /// Kilometres per hour in one knot.
    static let kmPerHourPerKnot = 1.852

    /// A motion, km per hour east and north.
    struct Velocity: Sendable, Equatable {
        /// Eastward speed, km/h.
        var eastKmPerHour: Double
        /// Northward speed, km/h.
        var northKmPerHour: Double
        /// The speed, knots.
        var speedKnots: Double { (eastKmPerHour * eastKmPerHour + northKmPerHour * northKmPerHour).squareRoot() / NowcastMotion.kmPerHourPerKnot }
    }

    /// Where a motion applies: a layer and a region (the resolution-`regionResolution` parent cell).
    struct Region: Hashable, Sendable {
        /// Flight level layer (thousands of feet).
        var layer: Int
        /// The parent cell, raw H3 index.
        var parent: UInt64
    }

    /// The well-founded motions at `issueTime` (regions without one are absent: persistence).
    func estimate(at issueTime: Double, observations: [NowcastModel.Input]) -> [Region: Velocity] {
        var groups: [Region: [(t: Double, lat: Double, lng: Double)]] = [:]
        for obs in observations {
            let ageHours = (issueTime - obs.exitTime) / 3600
            guard ageHours >= 0, ageHours <= windowHours, obs.edrPeak.isFinite, obs.edrPeak >= minimumEDR,
                  let region = region(of: obs.cell, layer: obs.layer),
                  let centre = try? H3.cellToLatLng(H3Index(rawValue: obs.cell))
            else { continue }
            groups[region, default: []].append((-ageHours, centre.latitude, centre.longitude))
        }
        var velocities: [Region: Velocity] = [:]
        for region in groups.keys {
            // The region and its neighbours: a patch cut by a region boundary is fitted whole, not truncated (a
            // truncated patch's centre moves less than the patch).
            let neighbourhood = (try? H3.gridDisk(H3Index(rawValue: region.parent), k: 1)) ?? [H3Index(rawValue: region.parent)]
            var points: [(t: Double, lat: Double, lng: Double)] = []
            for parent in neighbourhood { points += groups[Region(layer: region.layer, parent: parent.rawValue)] ?? [] }
            if let velocity = fit(Self.binned(points, minutes: binMinutes)) { velocities[region] = velocity }
        }
        return velocities
    }

    /// The centroids of `points` per `minutes`-long time bin (one aircraft's crossing of a patch yields several reports
    /// within minutes, strongly correlated; a bin counts them once).
    static func binned(_ points: [(t: Double, lat: Double, lng: Double)], minutes: Double) -> [(t: Double, lat: Double, lng: Double)] {
        guard minutes > 0 else { return points }
        var bins: [Int: [(t: Double, lat: Double, lng: Double)]] = [:]
        for point in points {
            let bin = (point.t * 60 / minutes).rounded(.down)
            guard bin.isFinite, abs(bin) < 1e9 else { continue }
            bins[Int(bin), default: []].append(point)
        }
        return bins.keys.sorted().compactMap { key in
            guard let members = bins[key], let first = members.first else { return nil }
            let n = Double(members.count)
            // Longitudes around the first member's (continuous across the antimeridian).
            let meanDLng = members.reduce(0) { sum, point in
                var d = point.lng - first.lng
                if d > 180 { d -= 360 } else if d < -180 { d += 360 }
                return sum + d
            } / n
            return (members.reduce(0) { $0 + $1.t } / n, members.reduce(0) { $0 + $1.lat } / n, first.lng + meanDLng)
        }
    }

    /// The region of `cell` in `layer`, nil for a cell that is not a valid H3 index of a finer resolution.
    func region(of cell: UInt64, layer: Int) -> Region? {
        let index = H3Index(rawValue: cell)
        guard H3.isValidCell(index), H3.resolution(of: index) >= regionResolution,
              let parent = try? H3.cellToParent(index, resolution: regionResolution)
        else { return nil }
        return Region(layer: layer, parent: parent.rawValue)
    }

    /// The least-squares velocity of `points` (time in hours, degrees), nil when not well founded.
    func fit(_ points: [(t: Double, lat: Double, lng: Double)]) -> Velocity? {
        let n = Double(points.count)
        guard points.count >= minimumReports,
              let first = points.map(\.t).min(), let last = points.map(\.t).max(), last - first >= minimumSpanHours
        else { return nil }
        let meanLat = points.map(\.lat).reduce(0, +) / n
        // Longitudes around the first point's, so that a region across the antimeridian stays continuous.
        let refLng = points[0].lng
        let unwrapped = points.map { point -> Double in
            var d = point.lng - refLng
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            return d
        }
        let meanDLng = unwrapped.reduce(0, +) / n
        let kmPerDegree = Self.earthRadiusKm * Double.pi / 180
        let cosLat = cos(meanLat * Double.pi / 180)
        let xs = unwrapped.map { ($0 - meanDLng) * kmPerDegree * cosLat }
        let ys = points.map { ($0.lat - meanLat) * kmPerDegree }
        let meanT = points.map(\.t).reduce(0, +) / n
        let dts = points.map { $0.t - meanT }
        let stt = dts.reduce(0) { $0 + $1 * $1 }
        guard stt > 0 else { return nil }
        let u = zip(dts, xs).reduce(0) { $0 + $1.0 * $1.1 } / stt
        let v = zip(dts, ys).reduce(0) { $0 + $1.0 * $1.1 } / stt
        // Standard errors of the slopes from the residuals (n − 2 degrees of freedom).
        let residualX = zip(dts, xs).reduce(0) { $0 + pow($1.1 - u * $1.0, 2) }
        let residualY = zip(dts, ys).reduce(0) { $0 + pow($1.1 - v * $1.0, 2) }
        let standardError = ((residualX + residualY) / 2 / (n - 2) / stt).squareRoot()
        let velocity = Velocity(eastKmPerHour: u, northKmPerHour: v)
        let speedKmPerHour = velocity.speedKnots * Self.kmPerHourPerKnot
        guard velocity.speedKnots.isFinite, velocity.speedKnots <= maximumSpeedKnots,
              speedKmPerHour >= significance * standardError
        else { return nil }
        return velocity
    }

    /// The resolution-`resolution` cell that the centre of `cell` reaches after moving `hours` at `velocity`;
    /// `cell` itself when it is not a valid H3 index or the moved point has no cell.
    static func advect(_ cell: UInt64, by velocity: Velocity, hours: Double, resolution: Int = 5) -> UInt64 {
        let index = H3Index(rawValue: cell)
        guard H3.isValidCell(index), let centre = try? H3.cellToLatLng(index) else { return cell }
        let kmPerDegree = earthRadiusKm * Double.pi / 180
        let lat = centre.latitude + velocity.northKmPerHour * hours / kmPerDegree
        let cosLat = cos(centre.latitude * Double.pi / 180)
        guard lat.isFinite, abs(lat) < 89.9, cosLat > 1e-6 else { return cell }
        var lng = centre.longitude + velocity.eastKmPerHour * hours / (kmPerDegree * cosLat)
        if lng > 180 { lng -= 360 } else if lng < -180 { lng += 360 }
        guard let moved = try? H3.latLngToCell(latitude: lat, longitude: lng, resolution: resolution) else { return cell }
        return moved.rawValue
    }
}
#endif
