import Foundation

/// How good the simulated GNSS fixes are.
public enum GNSSProfile: String, Sendable, Equatable, Codable, CaseIterable {
    /// Exact positions and altitudes; reported accuracy 5 m horizontal, 8 m vertical (the simulator's original fixes).
    case ideal
    /// A phone in a cockpit: time-correlated error, white noise, unreported multipath excursions (docs/simulation.md §GNSS).
    case phone
    /// A phone with a poor sky view: the `phone` errors roughly doubled.
    case poor
}

/// The numbers of one GNSS error profile, all in one place (docs/simulation.md §GNSS gives the reasoning).
///
/// Sources: research note `altitude-and-position.md` §3 (phone altitude swings ~50 m peak to peak with the
/// device still, vertical accuracy not reflecting it; nominal horizontal accuracy ~10 m, a few metres in the
/// open); first-order Gauss–Markov correlation times of ~1–2 min are the usual model of phone / single-frequency
/// GNSS position error (ionosphere, multipath); excursions are what urban or airframe multipath does to a phone.
package struct GNSSErrorParameters: Sendable, Equatable {
    /// Gauss–Markov horizontal error, σ per axis (north, east), m.
    package var horizontalSigmaMeters: Double
    /// Its correlation time, s.
    package var horizontalTauSeconds: Double
    /// White horizontal noise per axis, σ m.
    package var horizontalWhiteMeters: Double
    /// Gauss–Markov vertical error, σ m.
    package var verticalSigmaMeters: Double
    /// Its correlation time, s.
    package var verticalTauSeconds: Double
    /// White vertical noise, σ m.
    package var verticalWhiteMeters: Double
    /// Multipath excursions per hour (Poisson arrivals).
    package var multipathPerHour: Double
    /// Excursion size range (horizontal offset), m; the vertical offset is up to ± the same size.
    package var multipathMeters: ClosedRange<Double>
    /// Excursion length range, s.
    package var multipathSeconds: ClosedRange<Double>
    /// Reported horizontal accuracy: base value, m.
    package var reportedBaseMeters: Double
    /// Reported horizontal accuracy: metres added per metre of the slow (Gauss–Markov) horizontal error.
    package var reportedSlope: Double
    /// Reported horizontal accuracy: σ of its own slow wander, m.
    package var reportedWanderMeters: Double
    /// Correlation time of that wander, s.
    package var reportedWanderTauSeconds: Double
    /// Reported horizontal accuracy is clamped to this range, m.
    package var reportedHorizontalMeters: ClosedRange<Double>
    /// Reported vertical accuracy = factor × reported horizontal + offset (blind to the vertical error)…
    package var reportedVerticalFactor: Double
    /// … plus this offset, m …
    package var reportedVerticalOffsetMeters: Double
    /// … clamped to this range, m.
    package var reportedVerticalMeters: ClosedRange<Double>
    /// White velocity noise per horizontal axis (Doppler), σ m/s: shows in the reported speed and course.
    package var velocitySigmaMetersPerSecond: Double

    /// The parameters of a profile; nil for `.ideal` (no error at all).
    package static func forProfile(_ profile: GNSSProfile) -> GNSSErrorParameters? {
        switch profile {
        case .ideal: return nil
        case .phone:
            return GNSSErrorParameters(
                horizontalSigmaMeters: 4, horizontalTauSeconds: 60, horizontalWhiteMeters: 1.5,
                verticalSigmaMeters: 12, verticalTauSeconds: 90, verticalWhiteMeters: 2,
                multipathPerHour: 4, multipathMeters: 20...80, multipathSeconds: 2...10,
                reportedBaseMeters: 4, reportedSlope: 0.5, reportedWanderMeters: 2.5, reportedWanderTauSeconds: 300,
                reportedHorizontalMeters: 5...16,
                reportedVerticalFactor: 0.8, reportedVerticalOffsetMeters: 1, reportedVerticalMeters: 4...16,
                velocitySigmaMetersPerSecond: 0.3)
        case .poor:
            return GNSSErrorParameters(
                horizontalSigmaMeters: 8, horizontalTauSeconds: 60, horizontalWhiteMeters: 3,
                verticalSigmaMeters: 25, verticalTauSeconds: 90, verticalWhiteMeters: 4,
                multipathPerHour: 8, multipathMeters: 40...160, multipathSeconds: 2...10,
                reportedBaseMeters: 8, reportedSlope: 0.5, reportedWanderMeters: 5, reportedWanderTauSeconds: 300,
                reportedHorizontalMeters: 10...32,
                reportedVerticalFactor: 0.8, reportedVerticalOffsetMeters: 2, reportedVerticalMeters: 8...32,
                velocitySigmaMetersPerSecond: 0.6)
        }
    }
}

/// One second's GNSS error: what to add to the true fix, and what the receiver reports about it.
struct GNSSFixError {
    /// North, east, up position error, m.
    var northMeters = 0.0
    var eastMeters = 0.0
    var upMeters = 0.0
    /// Reported horizontal and vertical accuracy, m.
    var horizontalAccuracyMeters = 5.0
    var verticalAccuracyMeters = 8.0
    /// Velocity error north / east, m/s.
    var velocityNorth = 0.0
    var velocityEast = 0.0
    /// Whether a multipath excursion is under way.
    var multipath = false
}

/// The GNSS error process: first-order Gauss–Markov (x_{k+1} = a x_k + σ √(1 − a²) w, a = e^(−Δt/τ)) per axis,
/// white noise, Poisson multipath excursions; one step per 1 Hz fix, from its own random stream.
struct GNSSErrorModel {
    let parameters: GNSSErrorParameters
    var random: Xoshiro256StarStar
    var north: Double
    var east: Double
    var up: Double
    var wander: Double
    var multipathSecondsLeft = 0
    var multipathOffset = SIMD3<Double>.zero

    /// Starts the process in its stationary distribution.
    init(parameters: GNSSErrorParameters, seed: UInt64) {
        self.parameters = parameters
        var random = Xoshiro256StarStar(seed: seed)
        north = parameters.horizontalSigmaMeters * random.nextGaussian()
        east = parameters.horizontalSigmaMeters * random.nextGaussian()
        up = parameters.verticalSigmaMeters * random.nextGaussian()
        wander = parameters.reportedWanderMeters * random.nextGaussian()
        self.random = random
    }

    /// The error of the current fix; then the process advances by one second.
    mutating func next() -> GNSSFixError {
        let p = parameters
        if multipathSecondsLeft == 0, random.nextUniform() < p.multipathPerHour / 3600 {
            let size = p.multipathMeters.lowerBound + random.nextUniform() * (p.multipathMeters.upperBound - p.multipathMeters.lowerBound)
            let direction = 2 * Double.pi * random.nextUniform()
            let vertical = size * (2 * random.nextUniform() - 1)
            let length = p.multipathSeconds.lowerBound + random.nextUniform() * (p.multipathSeconds.upperBound - p.multipathSeconds.lowerBound)
            multipathOffset = SIMD3(size * cos(direction), size * sin(direction), vertical)
            multipathSecondsLeft = max(1, Int(length.rounded()))
        }
        var error = GNSSFixError()
        error.northMeters = north + p.horizontalWhiteMeters * random.nextGaussian()
        error.eastMeters = east + p.horizontalWhiteMeters * random.nextGaussian()
        error.upMeters = up + p.verticalWhiteMeters * random.nextGaussian()
        if multipathSecondsLeft > 0 {
            error.northMeters += multipathOffset.x
            error.eastMeters += multipathOffset.y
            error.upMeters += multipathOffset.z
            error.multipath = true
            multipathSecondsLeft -= 1
        }
        // Reported accuracy: follows the slow error loosely, wanders on its own, blind to white noise and multipath.
        let slow = (north * north + east * east).squareRoot()
        let horizontal = min(max(p.reportedBaseMeters + p.reportedSlope * slow + wander, p.reportedHorizontalMeters.lowerBound),
                             p.reportedHorizontalMeters.upperBound)
        error.horizontalAccuracyMeters = horizontal
        error.verticalAccuracyMeters = min(max(p.reportedVerticalFactor * horizontal + p.reportedVerticalOffsetMeters,
                                               p.reportedVerticalMeters.lowerBound), p.reportedVerticalMeters.upperBound)
        error.velocityNorth = p.velocitySigmaMetersPerSecond * random.nextGaussian()
        error.velocityEast = p.velocitySigmaMetersPerSecond * random.nextGaussian()
        // Advance the Gauss–Markov states by 1 s.
        north = Self.step(north, sigma: p.horizontalSigmaMeters, tau: p.horizontalTauSeconds, &random)
        east = Self.step(east, sigma: p.horizontalSigmaMeters, tau: p.horizontalTauSeconds, &random)
        up = Self.step(up, sigma: p.verticalSigmaMeters, tau: p.verticalTauSeconds, &random)
        wander = Self.step(wander, sigma: p.reportedWanderMeters, tau: p.reportedWanderTauSeconds, &random)
        return error
    }

    /// One 1-s step of a first-order Gauss–Markov process with stationary σ and correlation time τ.
    static func step(_ x: Double, sigma: Double, tau: Double, _ random: inout Xoshiro256StarStar) -> Double {
        let a = exp(-1 / tau)
        return a * x + sigma * (1 - a * a).squareRoot() * random.nextGaussian()
    }
}
