package import EddyVocabulary
import Foundation

/// Kalman filter for GNSS fixes in a local east/north tangent plane (docs/position.md).
///
/// Per horizontal axis the state is position, velocity (constant-velocity model with white-noise acceleration) and the
/// fix's time-correlated error (first-order Gauss–Markov, Brown & Hwang): a fix measures position + correlated
/// error + white noise, a fix's speed/course measures velocity. Both axes share one 3×3 covariance (isotropic process
/// and measurement noise keep them identical), so the filter is allocation-free and the 68 %/90 % radii are exact
/// circular-Gaussian radii. Fixes are gated on reported accuracy, on physical speed and acceleration limits and on
/// the innovation (χ², 2 dof); a run of rejections or a long gap restarts the filter.
package struct HorizontalPositionFilter: HorizontalPositionEstimator {
    /// The tuning in use.
    package private(set) var configuration: PositionFilterConfiguration

    /// Symmetric 3×3 covariance of one axis (position, velocity, correlated error), shared by east and north.
    private struct Covariance: Sendable {
        var pp: Double, pv: Double, pb: Double, vv: Double, vb: Double, bb: Double
    }

    /// One axis of the state: position (m), velocity (m/s), correlated fix error (m).
    private struct Axis: Sendable {
        var p: Double, v: Double, b: Double
    }

    private struct State: Sendable {
        var plane: LocalTangentPlane
        var t: Double
        var east: Axis
        var north: Axis
        var cov: Covariance
        /// Steady-state variance of the correlated error of the last fix, m² per axis.
        var correlatedVariance: Double
    }

    /// One fix turned into measurements: position (ECEF), its variance split, the velocity if any.
    private struct Measurement: Sendable {
        var t: Double
        var ecef: Vector3
        var correlatedVariance: Double
        var whiteVariance: Double
        /// Ground velocity (ECEF, m/s: the fix's east/north velocity turned out of its own local frame, which near
        /// the poles differs a lot from the plane's) and the variance to add to the configured velocity noise.
        var velocity: (ecef: Vector3, extraVariance: Double)?
    }

    private var state: State?
    /// The track that has ignored every position since the first rejection of the current episode, coasting on the
    /// fixes' velocity (docs/position.md §4, "Fallback"); nil when none is held.
    private var fallback: State?
    /// Whether a fix was accepted after `fallback` was saved (the signature of an excursion that got through).
    private var acceptedSinceFallback = false
    /// Time of the rejection that saved `fallback`.
    private var fallbackSince: Double?
    private var rejectedCount = 0
    private var firstRejectedTime: Double?
    /// 68 % and 90 % radii per unit σ of the position, widened for the reported accuracy's misstatement.
    private let radius68PerSigma: Double
    /// The reported accuracy radius in units of the per-axis σ: the circular-Gaussian radius that holds
    /// `reportedAccuracyCoverage` of the fixes.
    private let sigmaPerAccuracyRadius: Double
    private let radius90PerSigma: Double

    /// Creates a filter.
    package init(configuration: PositionFilterConfiguration = .init()) {
        self.configuration = configuration
        sigmaPerAccuracyRadius = CircularGaussian.mixtureRadius(probability: configuration.reportedAccuracyCoverage, logSigma: 0)
        radius68PerSigma = CircularGaussian.mixtureRadius(probability: 0.68,
                                                          logSigma: configuration.reportedAccuracyLogSigma)
        radius90PerSigma = CircularGaussian.mixtureRadius(probability: 0.90,
                                                          logSigma: configuration.reportedAccuracyLogSigma)
    }

    /// Sets the accuracy limit (`maximumAccuracyMeters`): fixes from the next one on are gated with it.
    package mutating func setMaximumAccuracyMeters(_ meters: Double) {
        guard meters.isFinite, meters > 0 else { return }
        configuration.maximumAccuracyMeters = meters
    }

    /// Takes the next fix: validates, gates, and either updates, restarts or rejects.
    package mutating func update(_ fix: LocationSample) -> PositionFilterOutcome {
        let accuracy: Double
        switch FixValidation.accuracy(of: fix, lastTime: state?.t, configuration: configuration) {
        case .success(let a): accuracy = a
        case .failure(let rejection): return .rejected(rejection)
        }
        let sigma = accuracy / sigmaPerAccuracyRadius
        var velocity: (ecef: Vector3, extraVariance: Double)?
        if let v = FixValidation.velocity(of: fix, configuration: configuration) {
            let axes = WGS84.eastNorth(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees)
            velocity = (v.east * axes.east + v.north * axes.north, v.extraVariance)
        }
        let m = Measurement(
            t: fix.t, ecef: WGS84.ecef(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees),
            correlatedVariance: configuration.correlatedErrorFraction * sigma * sigma,
            whiteVariance: (1 - configuration.correlatedErrorFraction) * sigma * sigma,
            velocity: velocity)

        guard let current = state else { return restart(at: fix, m, reason: .firstFix) }
        let gap = fix.t - current.t
        if gap > configuration.restartAfterGapSeconds { return restart(at: fix, m, reason: .gap(seconds: gap)) }

        // A fallback older than `fallbackSeconds` is dropped; a held one coasts on the fix's velocity alone.
        if fallbackSince.map({ fix.t - $0 > configuration.fallbackSeconds }) ?? false { dropFallback() }
        let (next, rejection) = Self.step(current, m, usePosition: true, configuration: configuration)
        guard let rejection else {
            state = next
            rejectedCount = 0
            firstRejectedTime = nil
            if let f = fallback {
                fallback = Self.step(f, m, usePosition: false, configuration: configuration).0
                acceptedSinceFallback = true
            }
            return .accepted(output(next, at: next.t))
        }
        if let f = fallback {
            // Rejected after fixes were accepted since the episode began: an excursion may have got through and
            // pulled the track away. If the track that ignored every position since then accepts this one, go back.
            if acceptedSinceFallback {
                let (retried, retryRejection) = Self.step(f, m, usePosition: true, configuration: configuration)
                if retryRejection == nil {
                    state = retried
                    dropFallback()
                    rejectedCount = 0
                    firstRejectedTime = nil
                    return .accepted(output(retried, at: retried.t))
                }
            }
            fallback = Self.step(f, m, usePosition: false, configuration: configuration).0
        } else {
            fallback = next
            fallbackSince = fix.t
            acceptedSinceFallback = false
        }
        state = next  // the prediction, updated with the fix's velocity when that passed its own gate
        rejectedCount += 1
        let since = firstRejectedTime ?? fix.t
        firstRejectedTime = since
        if rejectedCount >= configuration.restartAfterRejections,
           fix.t - since >= configuration.restartAfterRejectedSeconds {
            return restart(at: fix, m, reason: .consecutiveRejections(count: rejectedCount))
        }
        return .rejected(rejection)
    }

    private mutating func dropFallback() {
        fallback = nil
        fallbackSince = nil
        acceptedSinceFallback = false
    }

    /// Predicts `s` to the measurement, gates the position and updates with what passes: the new state (always at the
    /// measurement's time) and the position's rejection, if any; with `usePosition` false the position only is
    /// judged, never used. The velocity is used even when the position is
    /// rejected: Doppler velocity does not share a multipath excursion's offset, and it keeps a coasting filter on a
    /// turning track.
    private static func step(
        _ current: State, _ m: Measurement, usePosition: Bool, configuration: PositionFilterConfiguration
    ) -> (State, PositionRejection?) {
        var s = current
        let dt = m.t - s.t
        // Oversampled fixes carry correlated noise: weigh them as one fix per decorrelation time.
        let oversampling = max(1, configuration.measurementDecorrelationSeconds / dt)
        let measurementWhiteVariance = m.whiteVariance * oversampling
        let z = s.plane.project(ecef: m.ecef)
        let fixVariance = m.correlatedVariance + m.whiteVariance

        // Physical limits, judged beyond the position spread of the last estimate and of the fix. The jump is the
        // straight-line (ECEF) distance: a fix far round the globe can project close to the origin of the plane.
        let sigmas = configuration.physicalLimitSigmas
        var rejection: PositionRejection?
        let offset = m.ecef - s.plane.ecef(eastMeters: s.east.p, northMeters: s.north.p)
        let jump = offset.dot(offset).squareRoot()
        let jumpExcess = max(0, jump - sigmas * (s.cov.pp + fixVariance).squareRoot())
        let impliedSpeed = jumpExcess / dt
        if impliedSpeed > configuration.maximumGroundSpeedMetersPerSecond {
            rejection = .impossibleSpeed(metersPerSecond: impliedSpeed,
                                         limitMetersPerSecond: configuration.maximumGroundSpeedMetersPerSecond)
        }

        predict(&s, to: m.t, correlatedVariance: m.correlatedVariance, configuration: configuration)
        let deviation = hypot(z.eastMeters - s.east.p, z.northMeters - s.north.p)
        let deviationExcess = max(0, deviation - sigmas * (s.cov.pp + fixVariance).squareRoot())
        let impliedAcceleration = 2 * deviationExcess / (dt * dt)
        if rejection == nil, impliedAcceleration > configuration.maximumAccelerationMetersPerSecondSquared {
            rejection = .impossibleAcceleration(
                metersPerSecondSquared: impliedAcceleration,
                limitMetersPerSecondSquared: configuration.maximumAccelerationMetersPerSecondSquared)
        }

        // Innovation gate: position measurement z = p + b + white.
        let yE = z.eastMeters - (s.east.p + s.east.b)
        let yN = z.northMeters - (s.north.p + s.north.b)
        let hp = s.cov.pp + s.cov.pb, hv = s.cov.pv + s.cov.vb, hb = s.cov.pb + s.cov.bb
        let innovationVariance = hp + hb + measurementWhiteVariance
        let manoeuvre = 0.5 * configuration.gateManoeuvreAccelerationMetersPerSecondSquared * dt * dt
        let beyond = max(0, hypot(yE, yN) - manoeuvre)
        let mahalanobisSquared = beyond * beyond / innovationVariance
        if rejection == nil, !(mahalanobisSquared <= configuration.gateChiSquare) {
            rejection = .outsideInnovationGate(mahalanobisSquared: mahalanobisSquared,
                                               limit: configuration.gateChiSquare)
        }

        if rejection == nil, usePosition {
            // Position update (optimal gain; P ← P − h hᵀ / S keeps P symmetric).
            let kp = hp / innovationVariance, kv = hv / innovationVariance, kb = hb / innovationVariance
            s.east.p += kp * yE; s.east.v += kv * yE; s.east.b += kb * yE
            s.north.p += kp * yN; s.north.v += kv * yN; s.north.b += kb * yN
            subtract(&s.cov, hp, hv, hb, over: innovationVariance)
        }

        if let velocity = m.velocity {
            let rv = configuration.velocityNoiseMetersPerSecond * configuration.velocityNoiseMetersPerSecond
            let measured = s.plane.components(of: velocity.ecef)
            let vE = measured.east - s.east.v, vN = measured.north - s.north.v
            let sv = s.cov.vv + (rv + velocity.extraVariance) * oversampling
            let allowance = configuration.gateManoeuvreAccelerationMetersPerSecondSquared * dt
            let vBeyond = max(0, hypot(vE, vN) - allowance)
            if vBeyond * vBeyond / sv <= configuration.gateChiSquare {
                let gp = s.cov.pv, gv = s.cov.vv, gb = s.cov.vb
                s.east.p += gp / sv * vE; s.east.v += gv / sv * vE; s.east.b += gb / sv * vE
                s.north.p += gp / sv * vN; s.north.v += gv / sv * vN; s.north.b += gb / sv * vN
                subtract(&s.cov, gp, gv, gb, over: sv)
            }
        }
        recentreIfFar(&s, configuration: configuration)
        return (s, rejection)
    }

    /// The estimate extrapolated to `t` (constant velocity, uncertainty grown by the process noise), or nil before
    /// the first fix, for a non-finite `t`, before the last fix, or beyond `maximumPredictionSeconds`.
    package func predicted(at t: Double) -> FilteredPosition? {
        guard var s = state, t.isFinite, t >= s.t, t - s.t <= configuration.maximumPredictionSeconds else { return nil }
        Self.predict(&s, to: t, correlatedVariance: s.correlatedVariance, configuration: configuration)
        return output(s, at: t)
    }

    // MARK: - Steps

    private mutating func restart(
        at fix: LocationSample, _ m: Measurement, reason: PositionRestartReason
    ) -> PositionFilterOutcome {
        let plane = LocalTangentPlane(latitudeDegrees: fix.latitudeDegrees, longitudeDegrees: fix.longitudeDegrees)
        let velocityVariance: Double
        if let velocity = m.velocity {
            velocityVariance = configuration.velocityNoiseMetersPerSecond * configuration.velocityNoiseMetersPerSecond
                + velocity.extraVariance
        } else {
            velocityVariance = configuration.initialVelocitySigmaMetersPerSecond
                * configuration.initialVelocitySigmaMetersPerSecond
        }
        // Position = fix (correlated error unknown, mean 0): error of p is −(b + w), hence cov(p, b) = −σb².
        let v = m.velocity.map { plane.components(of: $0.ecef) } ?? (east: 0, north: 0)
        let s = State(
            plane: plane, t: fix.t,
            east: Axis(p: 0, v: v.east, b: 0), north: Axis(p: 0, v: v.north, b: 0),
            cov: Covariance(pp: m.correlatedVariance + m.whiteVariance, pv: 0, pb: -m.correlatedVariance,
                            vv: velocityVariance, vb: 0, bb: m.correlatedVariance),
            correlatedVariance: m.correlatedVariance)
        state = s
        dropFallback()
        rejectedCount = 0
        firstRejectedTime = nil
        return .restarted(output(s, at: s.t), reason: reason)
    }

    private static func predict(
        _ s: inout State, to t: Double, correlatedVariance: Double, configuration: PositionFilterConfiguration
    ) {
        let dt = t - s.t
        guard dt > 0 else { return }
        let phi = exp(-dt / configuration.correlationTimeSeconds)
        let q = configuration.accelerationNoiseDensity
        let c = s.cov
        s.cov = Covariance(
            pp: c.pp + 2 * dt * c.pv + dt * dt * c.vv + q * dt * dt * dt / 3,
            pv: c.pv + dt * c.vv + q * dt * dt / 2,
            pb: phi * (c.pb + dt * c.vb),
            vv: c.vv + q * dt,
            vb: phi * c.vb,
            bb: phi * phi * c.bb + correlatedVariance * (1 - phi * phi))
        s.east.p += s.east.v * dt; s.east.b *= phi
        s.north.p += s.north.v * dt; s.north.b *= phi
        s.t = t
        s.correlatedVariance = correlatedVariance
    }

    /// P ← P − h hᵀ / s for a scalar measurement with P Hᵀ = h and innovation variance s.
    private static func subtract(_ c: inout Covariance, _ hp: Double, _ hv: Double, _ hb: Double, over s: Double) {
        c.pp = max(0, c.pp - hp * hp / s)
        c.pv -= hp * hv / s
        c.pb -= hp * hb / s
        c.vv = max(0, c.vv - hv * hv / s)
        c.vb -= hv * hb / s
        c.bb = max(0, c.bb - hb * hb / s)
    }

    /// Moves the plane's origin to the current position when it is far from it, turning the horizontal vectors by
    /// the meridian convergence between the two planes (the shared isotropic covariance is unchanged by a rotation).
    private static func recentreIfFar(_ s: inout State, configuration: PositionFilterConfiguration) {
        guard hypot(s.east.p, s.north.p) > configuration.recentreDistanceMeters else { return }
        let here = s.plane.geodetic(eastMeters: s.east.p, northMeters: s.north.p)
        let plane = LocalTangentPlane(latitudeDegrees: here.latitudeDegrees, longitudeDegrees: here.longitudeDegrees)
        let r = s.plane.horizontalRotation(to: plane)
        let (vE, vN) = (r.cos * s.east.v + r.sin * s.north.v, -r.sin * s.east.v + r.cos * s.north.v)
        let (bE, bN) = (r.cos * s.east.b + r.sin * s.north.b, -r.sin * s.east.b + r.cos * s.north.b)
        s.plane = plane
        s.east = Axis(p: 0, v: vE, b: bE)
        s.north = Axis(p: 0, v: vN, b: bN)
    }

    private func output(_ s: State, at t: Double) -> FilteredPosition {
        let position = s.plane.geodetic(eastMeters: s.east.p, northMeters: s.north.p)
        // The velocity is expressed in the plane's axes; at the position it is turned into local east/north.
        let local = LocalTangentPlane(latitudeDegrees: position.latitudeDegrees,
                                      longitudeDegrees: position.longitudeDegrees)
        let r = s.plane.horizontalRotation(to: local)
        let sigma = s.cov.pp.squareRoot(), velocitySigma = s.cov.vv.squareRoot()
        return FilteredPosition(
            t: t, latitudeDegrees: position.latitudeDegrees, longitudeDegrees: position.longitudeDegrees,
            velocityNorthMetersPerSecond: -r.sin * s.east.v + r.cos * s.north.v,
            velocityEastMetersPerSecond: r.cos * s.east.v + r.sin * s.north.v,
            uncertainty68Meters: radius68PerSigma * sigma,
            uncertainty90Meters: radius90PerSigma * sigma,
            velocityUncertainty68MetersPerSecond: CircularGaussian.radius68PerSigma * velocitySigma)
    }
}
