#if Tools
import EddyH3
import Foundation
import Testing

@testable import EddyServerKit

/// Simulated moving turbulence for the nowcast: a disc of turbulence drifting at a constant velocity, crossed by
/// straight flights whose reports (one per H3 resolution-5 cell crossed, as the engine sends them) are what the
/// nowcast sees; the truth at a forecast hour is the set of cells whose centre is inside the disc then.
struct MovingTurbulenceScenario {
    /// The disc's centre at the issue time.
    var centreLatitude = 40.0, centreLongitude = -100.0
    /// Disc radius, km.
    var radiusKm = 50.0
    /// Drift, km/h (30 kt east by default).
    var eastKmPerHour = 30 * 1.852, northKmPerHour = 0.0
    /// Peak EDR inside the disc and outside it (smooth air, below the nowcast's 0.05 cut).
    var insideEDR = 0.4, outsideEDR = 0.03
    /// Flights per hour crossing the area, and hours of traffic before the issue.
    var flightsPerHour = 30.0, trafficHours = 6.0
    /// Flights pass through a random point within this distance of the disc's centre of the moment, km.
    var trafficRadiusKm = 200.0
    /// Ground speed, km/h (450 kt), and the track's half length, km.
    var groundSpeedKmPerHour = 833.4, halfTrackKm = 250.0
    /// The layer every report is in.
    var layer = 35
    /// Issue time (Unix seconds).
    var issueTime = 1_800_000_000.0

    static let kmPerDegree = NowcastMotion.earthRadiusKm * Double.pi / 180

    /// The disc's centre at `time` (degrees).
    func centre(at time: Double) -> (lat: Double, lng: Double) {
        let hours = (time - issueTime) / 3600
        let lat = centreLatitude + northKmPerHour * hours / Self.kmPerDegree
        let lng = centreLongitude + eastKmPerHour * hours / (Self.kmPerDegree * cos(centreLatitude * Double.pi / 180))
        return (lat, lng)
    }

    /// Distance on the local plane around the scenario's centre, km.
    func distanceKm(_ a: (lat: Double, lng: Double), _ b: (lat: Double, lng: Double)) -> Double {
        let dx = (a.lng - b.lng) * Self.kmPerDegree * cos(centreLatitude * Double.pi / 180)
        let dy = (a.lat - b.lat) * Self.kmPerDegree
        return (dx * dx + dy * dy).squareRoot()
    }

    func inside(_ point: (lat: Double, lng: Double), at time: Double) -> Bool { distanceKm(point, centre(at: time)) <= radiusKm }

    /// The reports of every flight of the traffic window, seeded.
    func reports(seed: UInt64) throws -> [NowcastModel.Input] {
        var random = SeededRandom(seed: seed)
        let flights = Int(flightsPerHour * trafficHours)
        let cosLat = cos(centreLatitude * Double.pi / 180)
        var inputs: [NowcastModel.Input] = []
        for _ in 0..<flights {
            // The moment the flight is closest to its aim point, and the aim point near the disc of that moment.
            let passTime = issueTime - trafficHours * 3600 + random.unit() * trafficHours * 3600
            let aim = centre(at: passTime)
            let offsetKm = trafficRadiusKm * random.unit().squareRoot(), offsetAngle = 2 * Double.pi * random.unit()
            let heading = 2 * Double.pi * random.unit()
            let aimX = offsetKm * cos(offsetAngle), aimY = offsetKm * sin(offsetAngle)
            var current: (cell: UInt64, enter: Double, peak: Double)?
            var distance = -halfTrackKm
            while distance <= halfTrackKm {
                let time = passTime + distance / groundSpeedKmPerHour * 3600
                distance += groundSpeedKmPerHour * 10 / 3600   // a fix every 10 s
                guard time <= issueTime else { break }
                let x = aimX + distance * sin(heading), y = aimY + distance * cos(heading)
                let point = (lat: aim.lat + y / Self.kmPerDegree, lng: aim.lng + x / (Self.kmPerDegree * cosLat))
                let cell = try H3.latLngToCell(latitude: point.lat, longitude: point.lng, resolution: 5).rawValue
                let edr = inside(point, at: time) ? insideEDR : outsideEDR
                if let open = current, open.cell == cell {
                    current = (cell, open.enter, max(open.peak, edr))
                } else {
                    if let open = current {
                        inputs.append(.init(cell: open.cell, layer: layer, exitTime: time, edrPeak: open.peak))
                    }
                    current = (cell, time, edr)
                }
            }
        }
        return inputs
    }

    /// The cells whose centre is inside the disc `hours` after the issue.
    func truth(hours: Int) throws -> Set<UInt64> {
        let time = issueTime + Double(hours) * 3600
        let middle = centre(at: time)
        let origin = try H3.latLngToCell(latitude: middle.lat, longitude: middle.lng, resolution: 5)
        var cells = Set<UInt64>()
        for cell in try H3.gridDisk(origin, k: 8) {
            let centre = try H3.cellToLatLng(cell)
            if inside((centre.latitude, centre.longitude), at: time) { cells.insert(cell.rawValue) }
        }
        return cells
    }
}

/// SplitMix64: a seeded, repeatable uniform generator for the scenario.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Contingency counts of a forecast against the truth, summed over cases.
struct Contingency {
    var hits = 0, misses = 0, falseAlarms = 0
    mutating func add(forecast: Set<UInt64>, truth: Set<UInt64>) {
        hits += forecast.intersection(truth).count
        misses += truth.subtracting(forecast).count
        falseAlarms += forecast.subtracting(truth).count
    }
    /// Critical success index hits / (hits + misses + false alarms).
    var csi: Double { Double(hits) / Double(max(1, hits + misses + falseAlarms)) }
    /// Probability of detection (hit rate).
    var pod: Double { Double(hits) / Double(max(1, hits + misses)) }
    /// False alarm ratio.
    var far: Double { Double(falseAlarms) / Double(max(1, hits + falseAlarms)) }
}

@Suite struct NowcastAdvectionTests {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6]
    static let hours = 0...3

    /// Persistence and advection scored over `seeds` runs of `scenario`, per forecast hour.
    static func score(_ scenario: MovingTurbulenceScenario) throws -> (persistence: [Contingency], advection: [Contingency]) {
        var persistence = Array(repeating: Contingency(), count: hours.count)
        var advection = persistence
        var still = NowcastModel()
        still.motion = nil
        let moving = NowcastModel()
        for seed in seeds {
            let reports = try scenario.reports(seed: seed)
            let fixed = still.issue(at: scenario.issueTime, observations: reports)
            let advected = moving.issue(at: scenario.issueTime, observations: reports)
            for hour in hours {
                let truth = try scenario.truth(hours: hour)
                persistence[hour].add(forecast: Set(fixed.filter { $0.forecastHour == hour }.map(\.cell)), truth: truth)
                advection[hour].add(forecast: Set(advected.filter { $0.forecastHour == hour }.map(\.cell)), truth: truth)
            }
        }
        return (persistence, advection)
    }

    static func table(_ name: String, _ scored: (persistence: [Contingency], advection: [Contingency])) -> String {
        var lines = ["\(name): hour | persistence CSI POD FAR | advection CSI POD FAR"]
        for hour in hours {
            let p = scored.persistence[hour], a = scored.advection[hour]
            lines.append(String(format: "  +%dh | %.3f %.3f %.3f | %.3f %.3f %.3f", hour, p.csi, p.pod, p.far, a.csi, a.pod, a.far))
        }
        return lines.joined(separator: "\n")
    }

    @Test func theFittedMotionIsThePatchDrift() throws {
        let scenario = MovingTurbulenceScenario()
        for seed in Self.seeds {
            let reports = try scenario.reports(seed: seed)
            let velocities = NowcastMotion().estimate(at: scenario.issueTime, observations: reports)
            #expect(!velocities.isEmpty, "seed \(seed): no motion found")
            for (region, velocity) in velocities {
                print(String(format: "nowcast motion seed %d region %llx: east %.1f km/h, north %.1f km/h", seed, region.parent,
                             velocity.eastKmPerHour, velocity.northKmPerHour))
                #expect(region.layer == 35)
                // 30 kt = 55.6 km/h east; the fit of ~100 scattered reports is good to a few km/h.
                #expect(abs(velocity.eastKmPerHour - scenario.eastKmPerHour) < 15, "seed \(seed): \(velocity)")
                #expect(abs(velocity.northKmPerHour) < 15, "seed \(seed): \(velocity)")
            }
        }
    }

    @Test func advectionBeatsPersistenceOnMovingTurbulence() throws {
        let scored = try Self.score(MovingTurbulenceScenario())
        print(Self.table("nowcast 30 kt east", scored))
        for hour in 1...2 {
            #expect(scored.advection[hour].csi > scored.persistence[hour].csi + 0.05, "hour \(hour)")
            #expect(scored.advection[hour].far < scored.persistence[hour].far, "hour \(hour)")
        }
        let fast = try Self.score(MovingTurbulenceScenario(eastKmPerHour: 60 * 1.852, northKmPerHour: 20 * 1.852))
        print(Self.table("nowcast 60 kt east + 20 kt north", fast))
        for hour in 1...2 { #expect(fast.advection[hour].csi > fast.persistence[hour].csi + 0.05, "hour \(hour)") }
    }

    @Test func stationaryTurbulenceStaysPut() throws {
        let scenario = MovingTurbulenceScenario(eastKmPerHour: 0, northKmPerHour: 0)
        let scored = try Self.score(scenario)
        print(Self.table("nowcast stationary", scored))
        for hour in Self.hours {
            // No real motion: the fit is insignificant (persistence) or small; advection must not lose skill.
            #expect(scored.advection[hour].csi >= scored.persistence[hour].csi - 0.03, "hour \(hour)")
        }
        for seed in Self.seeds {
            for velocity in NowcastMotion().estimate(at: scenario.issueTime, observations: try scenario.reports(seed: seed)).values {
                #expect(velocity.speedKnots < 10, "seed \(seed): \(velocity)")
            }
        }
    }

    @Test func tooFewReportsMeanPersistence() throws {
        let scenario = MovingTurbulenceScenario(flightsPerHour: 1, trafficHours: 2)
        let reports = try scenario.reports(seed: 9)
        let turbulent = reports.filter { $0.edrPeak >= 0.1 }
        #expect(turbulent.count < NowcastMotion().minimumReports)
        var still = NowcastModel()
        still.motion = nil
        #expect(NowcastModel().issue(at: scenario.issueTime, observations: reports) == still.issue(at: scenario.issueTime, observations: reports))
    }

    @Test func advectionMovesACellCentreByVelocityTimesTime() throws {
        let start = try H3.latLngToCell(latitude: 40, longitude: -100, resolution: 5)
        let velocity = NowcastMotion.Velocity(eastKmPerHour: 100, northKmPerHour: 0)
        let moved = NowcastMotion.advect(start.rawValue, by: velocity, hours: 2)
        let from = try H3.cellToLatLng(start), to = try H3.cellToLatLng(H3Index(rawValue: moved))
        let eastKm = (to.longitude - from.longitude) * MovingTurbulenceScenario.kmPerDegree * cos(40 * Double.pi / 180)
        // 200 km east, to within one resolution-5 cell (≈ 9 km edge).
        #expect(abs(eastKm - 200) < 10)
        #expect(abs(to.latitude - from.latitude) * MovingTurbulenceScenario.kmPerDegree < 10)
        // Not an H3 cell: left in place.
        #expect(NowcastMotion.advect(12345, by: velocity, hours: 2) == 12345)
    }
}
#endif
