import EddySimulation
import Foundation
@testable import EddyNavigation
@testable import EddyVocabulary

/// A phone-grade GNSS error generator for tests (docs/position.md §6): per horizontal axis a first-order
/// Gauss–Markov error plus white noise, occasional multipath excursions that the reported accuracy does not show,
/// a reported accuracy that wanders on its own (it does not track the true error), and a Doppler velocity error.
///
/// Deterministic for a seed. The parameters are documented so the simulator's `phone` profile can be made to agree.
struct PhoneGNSSErrorModel {
    /// Every parameter of the model (defaults: a phone in a cockpit cradle).
    struct Parameters {
        /// 1-σ of the time-correlated error, per axis, metres.
        var correlatedSigmaMeters = 4.0
        /// Correlation time of that error, seconds.
        var correlationTimeSeconds = 60.0
        /// 1-σ of the white error, per axis, metres.
        var whiteSigmaMeters = 1.5
        /// Mean rate of multipath excursions, per second (one every 3 minutes).
        var multipathRatePerSecond = 1.0 / 180
        /// Shortest and longest excursion, seconds (uniform).
        var multipathSecondsRange = 2.0...6.0
        /// Smallest and largest excursion offset, metres (uniform, random direction, constant while it lasts).
        var multipathMetersRange = 20.0...80.0
        /// 1-σ of the natural log of the reported accuracy's wander around the honest 68 % radius.
        var accuracyLogSigma = 0.35
        /// Correlation time of that wander, seconds.
        var accuracyCorrelationSeconds = 120.0
        /// Smallest accuracy the phone reports, metres (reports are whole metres).
        var minimumReportedAccuracyMeters = 3.0
        /// 1-σ of the white velocity error, per axis, m/s.
        var velocityWhiteSigma = 0.15
        /// 1-σ of the correlated velocity error, per axis, m/s.
        var velocityCorrelatedSigma = 0.1
        /// Correlation time of the velocity error, seconds.
        var velocityCorrelationSeconds = 3.0
        /// Below this true speed the phone reports no course, m/s.
        var minimumSpeedForCourse = 0.5
    }

    /// One corrupted fix and the error that went into it.
    struct Observation {
        /// What the phone reports.
        var fix: LocationSample
        /// Injected position error east, metres.
        var errorEastMeters: Double
        /// Injected position error north, metres.
        var errorNorthMeters: Double
        /// Whether a multipath excursion was on.
        var inMultipath: Bool
    }

    let parameters: Parameters
    private var random: Xoshiro256StarStar
    private var lastTime: Double?
    private var correlatedEast = 0.0, correlatedNorth = 0.0
    private var velocityEast = 0.0, velocityNorth = 0.0
    private var accuracyLog = 0.0
    private var multipathUntil = -Double.infinity
    private var multipathEast = 0.0, multipathNorth = 0.0
    /// When set, the next fixes carry this extra offset (east, north metres) until the given time (for tests).
    var injectedExcursion: (from: Double, until: Double, east: Double, north: Double)?

    init(seed: UInt64, parameters: Parameters = Parameters()) {
        self.parameters = parameters
        random = Xoshiro256StarStar(seed: seed)
        correlatedEast = parameters.correlatedSigmaMeters * random.nextGaussian()
        correlatedNorth = parameters.correlatedSigmaMeters * random.nextGaussian()
        velocityEast = parameters.velocityCorrelatedSigma * random.nextGaussian()
        velocityNorth = parameters.velocityCorrelatedSigma * random.nextGaussian()
        accuracyLog = parameters.accuracyLogSigma * random.nextGaussian()
    }

    /// One step of a first-order Gauss–Markov process with stationary σ and correlation time τ.
    private mutating func markov(_ x: Double, sigma: Double, tau: Double, dt: Double) -> Double {
        let phi = exp(-dt / tau)
        return phi * x + sigma * (1 - phi * phi).squareRoot() * random.nextGaussian()
    }

    /// The phone's fix for a true state.
    mutating func observe(_ truth: TruthPoint) -> Observation {
        let p = parameters
        let dt = lastTime.map { max(0, truth.t - $0) } ?? 0
        lastTime = truth.t
        if dt > 0 {
            correlatedEast = markov(correlatedEast, sigma: p.correlatedSigmaMeters, tau: p.correlationTimeSeconds, dt: dt)
            correlatedNorth = markov(correlatedNorth, sigma: p.correlatedSigmaMeters, tau: p.correlationTimeSeconds, dt: dt)
            velocityEast = markov(velocityEast, sigma: p.velocityCorrelatedSigma, tau: p.velocityCorrelationSeconds, dt: dt)
            velocityNorth = markov(velocityNorth, sigma: p.velocityCorrelatedSigma, tau: p.velocityCorrelationSeconds, dt: dt)
            accuracyLog = markov(accuracyLog, sigma: p.accuracyLogSigma, tau: p.accuracyCorrelationSeconds, dt: dt)
            // Poisson arrivals: probability of a start within dt.
            if truth.t >= multipathUntil, random.nextUniform() < 1 - exp(-p.multipathRatePerSecond * dt) {
                let seconds = p.multipathSecondsRange.lowerBound
                    + random.nextUniform() * (p.multipathSecondsRange.upperBound - p.multipathSecondsRange.lowerBound)
                let meters = p.multipathMetersRange.lowerBound
                    + random.nextUniform() * (p.multipathMetersRange.upperBound - p.multipathMetersRange.lowerBound)
                let angle = 2 * Double.pi * random.nextUniform()
                multipathUntil = truth.t + seconds
                multipathEast = meters * sin(angle)
                multipathNorth = meters * cos(angle)
            }
        }
        let inMultipath = truth.t < multipathUntil
        var east = correlatedEast + p.whiteSigmaMeters * random.nextGaussian()
        var north = correlatedNorth + p.whiteSigmaMeters * random.nextGaussian()
        if inMultipath { east += multipathEast; north += multipathNorth }
        if let x = injectedExcursion, truth.t >= x.from, truth.t < x.until { east += x.east; north += x.north }

        // Reported accuracy: the honest 68 % radius of the non-multipath error, wandering on its own.
        let sigma = (p.correlatedSigmaMeters * p.correlatedSigmaMeters + p.whiteSigmaMeters * p.whiteSigmaMeters)
            .squareRoot()
        let honest68 = CircularGaussian.radius68PerSigma * sigma
        let reported = max(p.minimumReportedAccuracyMeters, (honest68 * exp(accuracyLog)).rounded())

        let position = TruthPoint.offset(latitudeDegrees: truth.latitudeDegrees, longitudeDegrees: truth.longitudeDegrees,
                                         eastMeters: east, northMeters: north)
        // The receiver states its course against north where it thinks it is: turn the true velocity into the
        // reported position's east/north (matters only within a few km of a pole).
        let turned = TruthPoint.turn(east: truth.velocityEast, north: truth.velocityNorth,
                                     from: (truth.latitudeDegrees, truth.longitudeDegrees), to: position)
        let vE = turned.east + velocityEast + p.velocityWhiteSigma * random.nextGaussian()
        let vN = turned.north + velocityNorth + p.velocityWhiteSigma * random.nextGaussian()
        let trueSpeed = (truth.velocityEast * truth.velocityEast + truth.velocityNorth * truth.velocityNorth).squareRoot()
        let speed = (vE * vE + vN * vN).squareRoot()
        var course: Double?
        if trueSpeed >= p.minimumSpeedForCourse {
            let c = atan2(vE, vN) * 180 / .pi
            course = c < 0 ? c + 360 : c
        }
        let fix = LocationSample(
            t: truth.t, latitudeDegrees: position.latitudeDegrees, longitudeDegrees: position.longitudeDegrees,
            horizontalAccuracyMeters: reported, speedMetersPerSecond: speed, courseDegrees: course)
        return Observation(fix: fix, errorEastMeters: east, errorNorthMeters: north, inMultipath: inMultipath)
    }
}

/// The true state of the aircraft at one time (lat/lon on WGS-84, ground velocity).
struct TruthPoint {
    var t: Double
    var latitudeDegrees: Double
    var longitudeDegrees: Double
    var velocityEast: Double
    var velocityNorth: Double

    /// Meridional and prime-vertical radii of curvature of WGS-84 at a latitude, metres (independent of the code
    /// under test, which works through ECEF).
    static func radii(latitudeDegrees: Double) -> (meridional: Double, primeVertical: Double) {
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let s = sin(latitudeDegrees * .pi / 180)
        let w = (1 - e2 * s * s).squareRoot()
        return (a * (1 - e2) / (w * w * w), a / w)
    }

    /// A position moved by small east/north offsets (metres), longitude wrapped into −180…180. Within 0.5° of a
    /// pole, where east/north degrees break down, the spherical great-circle formulas of `Geodesy` are used.
    static func offset(latitudeDegrees: Double, longitudeDegrees: Double, eastMeters: Double, northMeters: Double)
        -> (latitudeDegrees: Double, longitudeDegrees: Double) {
        if abs(latitudeDegrees) > 89.5 {
            let p = Geodesy.destination(from: (latitudeDegrees, longitudeDegrees),
                                        bearingDegrees: atan2(eastMeters, northMeters) * 180 / .pi,
                                        distanceNM: (eastMeters * eastMeters + northMeters * northMeters).squareRoot() / 1852)
            return (p.latitude, p.longitude)
        }
        let r = radii(latitudeDegrees: latitudeDegrees)
        let lat = latitudeDegrees + northMeters / r.meridional * 180 / .pi
        var lon = longitudeDegrees
            + eastMeters / (r.primeVertical * cos(latitudeDegrees * .pi / 180)) * 180 / .pi
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return (lat, lon)
    }

    /// ECEF position of a geodetic position at height 0, and its east and north unit vectors (the standard formulas,
    /// written here independently of the code under test).
    static func frame(_ latDeg: Double, _ lonDeg: Double)
        -> (p: (Double, Double, Double), east: (Double, Double, Double), north: (Double, Double, Double)) {
        let a = 6_378_137.0, f = 1 / 298.257_223_563
        let e2 = f * (2 - f)
        let lat = latDeg * .pi / 180, lon = lonDeg * .pi / 180
        let n = a / (1 - e2 * sin(lat) * sin(lat)).squareRoot()
        return ((n * cos(lat) * cos(lon), n * cos(lat) * sin(lon), n * (1 - e2) * sin(lat)),
                (-sin(lon), cos(lon), 0),
                (-sin(lat) * cos(lon), -sin(lat) * sin(lon), cos(lat)))
    }

    /// A horizontal vector given in the east/north axes at `from`, in the east/north axes at `to`.
    static func turn(east: Double, north: Double, from: (Double, Double), to: (latitudeDegrees: Double, longitudeDegrees: Double))
        -> (east: Double, north: Double) {
        let a = frame(from.0, from.1), b = frame(to.latitudeDegrees, to.longitudeDegrees)
        let v = (east * a.east.0 + north * a.north.0, east * a.east.1 + north * a.north.1,
                 east * a.east.2 + north * a.north.2)
        return (v.0 * b.east.0 + v.1 * b.east.1 + v.2 * b.east.2, v.0 * b.north.0 + v.1 * b.north.1 + v.2 * b.north.2)
    }

    /// East/north metres from this point to a position: the east/north components of the ECEF difference in this
    /// point's local frame (exact for offsets of metres to kilometres, at the poles and across the antimeridian).
    func offsetMeters(toLatitude latitude: Double, longitude: Double) -> (east: Double, north: Double) {
        let here = Self.frame(latitudeDegrees, longitudeDegrees), there = Self.frame(latitude, longitude)
        let d = (there.p.0 - here.p.0, there.p.1 - here.p.1, there.p.2 - here.p.2)
        return (d.0 * here.east.0 + d.1 * here.east.1 + d.2 * here.east.2,
                d.0 * here.north.0 + d.1 * here.north.1 + d.2 * here.north.2)
    }

    /// Points every `interval` seconds along a great circle (spherical `Geodesy`, safe over the poles and across the
    /// antimeridian) at constant speed along the sphere, with the velocity the path has on the ellipsoid.
    static func greatCircle(latitudeDegrees: Double, longitudeDegrees: Double, bearingDegrees: Double,
                            speedMetersPerSecond: Double, seconds: Double, interval: Double = 1) -> [TruthPoint] {
        let start = (latitude: latitudeDegrees, longitude: longitudeDegrees)
        let count = Int((seconds / interval).rounded())
        return (0...count).map { i in
            let t = Double(i) * interval
            let distanceNM = speedMetersPerSecond * t / 1852
            let here = Geodesy.destination(from: start, bearingDegrees: bearingDegrees, distanceNM: distanceNM)
            // Velocity: central difference over ±1 m of path, measured on the ellipsoid (the sphere's metres differ
            // from the ellipsoid's by up to 0.3 %, which a filter trusting Doppler velocity would notice).
            let ahead = Geodesy.destination(from: start, bearingDegrees: bearingDegrees, distanceNM: distanceNM + 1 / 1852)
            let behind = Geodesy.destination(from: start, bearingDegrees: bearingDegrees, distanceNM: distanceNM - 1 / 1852)
            var point = TruthPoint(t: t, latitudeDegrees: here.latitude, longitudeDegrees: here.longitude,
                                   velocityEast: 0, velocityNorth: 0)
            let a = point.offsetMeters(toLatitude: ahead.latitude, longitude: ahead.longitude)
            let b = point.offsetMeters(toLatitude: behind.latitude, longitude: behind.longitude)
            point.velocityEast = (a.east - b.east) / 2 * speedMetersPerSecond
            point.velocityNorth = (a.north - b.north) / 2 * speedMetersPerSecond
            return point
        }
    }

    var speed: Double { (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot() }
}

/// Flight paths for the position tests: a speed and a turn rate per segment, integrated on WGS-84.
struct TruthTrajectory {
    /// One leg: duration, acceleration along track (m/s²), turn rate (degrees/s, positive right).
    struct Leg {
        var seconds: Double
        var accelerationMetersPerSecondSquared = 0.0
        var turnDegreesPerSecond = 0.0
    }

    var startLatitude: Double
    var startLongitude: Double
    var startSpeed: Double
    var startTrackDegrees: Double
    var legs: [Leg]

    var durationSeconds: Double { legs.reduce(0) { $0 + $1.seconds } }

    /// Truth points every `interval` seconds from 0 through the end (integration step 0.01 s).
    func points(interval: Double, startTime: Double = 0) -> [TruthPoint] {
        var lat = startLatitude, lon = startLongitude, speed = startSpeed, track = startTrackDegrees
        var result: [TruthPoint] = []
        let step = 0.01
        var t = 0.0, nextSample = 0.0
        func sample() {
            let c = track * .pi / 180
            result.append(TruthPoint(t: startTime + t, latitudeDegrees: lat, longitudeDegrees: lon,
                                     velocityEast: speed * sin(c), velocityNorth: speed * cos(c)))
        }
        for leg in legs {
            let steps = Int((leg.seconds / step).rounded())
            for _ in 0..<steps {
                if t >= nextSample - 1e-9 { sample(); nextSample += interval }
                // Midpoint integration of speed and track over the step.
                let midSpeed = speed + 0.5 * leg.accelerationMetersPerSecondSquared * step
                let midTrack = (track + 0.5 * leg.turnDegreesPerSecond * step) * .pi / 180
                let moved = TruthPoint.offset(latitudeDegrees: lat, longitudeDegrees: lon,
                                              eastMeters: midSpeed * sin(midTrack) * step,
                                              northMeters: midSpeed * cos(midTrack) * step)
                lat = moved.latitudeDegrees; lon = moved.longitudeDegrees
                speed = max(0, speed + leg.accelerationMetersPerSecondSquared * step)
                track += leg.turnDegreesPerSecond * step
                t += step
            }
        }
        if t >= nextSample - 1e-9 { sample() }
        return result
    }

    static let knots = 1852.0 / 3600

    /// 10 minutes straight and level at 120 kt.
    static let straight = TruthTrajectory(startLatitude: 47.4, startLongitude: 8.5, startSpeed: 120 * knots,
                                          startTrackDegrees: 45, legs: [Leg(seconds: 600)])
    /// 120 kt: 60 s straight, 240 s standard-rate (3 °/s) turn (two full circles), 60 s straight.
    static let standardRateTurn = TruthTrajectory(
        startLatitude: 47.4, startLongitude: 8.5, startSpeed: 120 * knots, startTrackDegrees: 0,
        legs: [Leg(seconds: 60), Leg(seconds: 240, turnDegreesPerSecond: 3), Leg(seconds: 60)])
    /// Take-off roll 0 → 75 m/s at 2.5 m/s², climb acceleration to 130 m/s at 0.5 m/s², 60 s steady.
    static let accelerating = TruthTrajectory(
        startLatitude: 47.45, startLongitude: 8.55, startSpeed: 0, startTrackDegrees: 280,
        legs: [Leg(seconds: 20), Leg(seconds: 30, accelerationMetersPerSecondSquared: 2.5),
               Leg(seconds: 110, accelerationMetersPerSecondSquared: 0.5), Leg(seconds: 60)])
}

extension PositionFilterConfiguration {
    /// The filter told the truth about this model's receiver: its reported accuracy is an honest 68 % radius (Android's
    /// definition) that wanders by a log-σ of 0.35, where the simulator's `phone` profile, which the defaults follow,
    /// reports a 75 % radius with a smaller wander.
    static var matchingPhoneModel: PositionFilterConfiguration {
        var configuration = PositionFilterConfiguration()
        configuration.reportedAccuracyCoverage = 0.68
        configuration.reportedAccuracyLogSigma = PhoneGNSSErrorModel.Parameters().accuracyLogSigma
        // Its velocity error is correlated over 3 s (the profile's is white): at 10 Hz the 30 fixes inside that time
        // are not independent, which a white velocity noise of 0.3 m/s per 1-s decorrelation time under-states.
        configuration.velocityNoiseMetersPerSecond = 0.5
        return configuration
    }
}
