/// Places each location fix with the horizontal position filter (docs/position.md): the fix's position becomes the
/// filtered one, a missing speed or course comes from the filtered velocity, a fix no aircraft could have flown to is
/// not used and raises a `positionJump` warning (at most one per 30 s).
///
/// Used by the detection pipeline (report placement) and by the engine core (alerts, uploads, altitude context), so
/// both see the same positions.
package import EddyVocabulary
package struct FixPlacement: Sendable {
    private var filter: HorizontalPositionFilter
    private var lastWarning = -Double.infinity
    private var lastInputWarning = -Double.infinity
    /// A rejected fix farther than this from the filtered position is a position jump (not multipath), metres.
    package static let jumpWarningMeters = 1_000.0
    /// The latest filtered position.
    package private(set) var latest: FilteredPosition?

    /// Creates a placement with the filter's documented defaults.
    package init(configuration: PositionFilterConfiguration = PositionFilterConfiguration()) {
        filter = HorizontalPositionFilter(configuration: configuration)
    }

    /// Sets the filter's horizontal accuracy limit, metres (the engine's server-provided threshold).
    package mutating func setMaximumAccuracyMeters(_ meters: Double) { filter.setMaximumAccuracyMeters(meters) }

    /// What became of one fix.
    package struct Placed: Sendable {
        /// The fix with the filtered position (nil: the fix's position is not used).
        package var fix: LocationSample?
        /// Horizontal 68 % and 90 % uncertainty of `estimate`'s position, metres (nil without one).
        package var uncertainty: Uncertainty?
        /// A jump warning, if this fix was one.
        package var warning: ConsistencyWarning?
        /// Where the aircraft is at the fix's time: `fix` when it was used, otherwise the fix with the filter's
        /// prediction as its position (nil before the filter has a track).
        package var estimate: LocationSample?

        init(fix: LocationSample?, uncertainty: Uncertainty?, warning: ConsistencyWarning?, estimate: LocationSample? = nil) {
            self.fix = fix
            self.uncertainty = uncertainty
            self.warning = warning
            self.estimate = estimate ?? fix
        }
    }

    /// A fix whose position was refused, placed at the filter's prediction instead (with that uncertainty).
    private func refused(_ fix: LocationSample, warning: ConsistencyWarning? = nil) -> Placed {
        guard let p = filter.predicted(at: fix.t) else { return Placed(fix: nil, uncertainty: nil, warning: warning) }
        var placed = fix
        placed.latitudeDegrees = p.latitudeDegrees
        placed.longitudeDegrees = p.longitudeDegrees
        if placed.speedMetersPerSecond == nil { placed.speedMetersPerSecond = p.groundSpeedMetersPerSecond }
        if placed.courseDegrees == nil { placed.courseDegrees = p.trackDegrees }
        return Placed(fix: nil, uncertainty: Uncertainty(u68: p.uncertainty68Meters, u90: p.uncertainty90Meters),
                      warning: warning, estimate: placed)
    }

    /// Filters one fix (already through `LocationFusion`).
    package mutating func place(_ fix: LocationSample) -> Placed {
        let before = latest
        switch filter.update(fix) {
        case .accepted(let p), .restarted(let p, _):
            latest = p
            var placed = fix
            placed.latitudeDegrees = p.latitudeDegrees
            placed.longitudeDegrees = p.longitudeDegrees
            if placed.speedMetersPerSecond == nil { placed.speedMetersPerSecond = p.groundSpeedMetersPerSecond }
            if placed.courseDegrees == nil { placed.courseDegrees = p.trackDegrees }
            return Placed(fix: placed, uncertainty: Uncertainty(u68: p.uncertainty68Meters, u90: p.uncertainty90Meters), warning: nil)
        case .rejected(let why):
            switch why {
            case .impossibleSpeed, .impossibleAcceleration, .outsideInnovationGate:
                // Multipath excursions (tens of metres) are rejected quietly; a warning is for a jump no aircraft can
                // fly: beyond the physical speed limit, or more than `jumpWarningMeters` from where the aircraft is.
                let reference = filter.predicted(at: fix.t) ?? before
                guard let reference, fix.t - lastWarning >= 30 else { return refused(fix) }
                let meters = Geodesy.distanceNM(
                    from: (reference.latitudeDegrees, reference.longitudeDegrees), to: (fix.latitudeDegrees, fix.longitudeDegrees)) * 1852
                var physical = false
                if case .impossibleSpeed = why { physical = true }
                guard physical || meters > Self.jumpWarningMeters else { return refused(fix) }
                lastWarning = fix.t
                return refused(fix, warning: ConsistencyWarning(
                    t: fix.t, kind: .positionJump(meters: meters, seconds: fix.t - (before?.t ?? fix.t))))
            case .invalidAccuracy:
                guard fix.t - lastInputWarning >= 60 else { return refused(fix) }
                lastInputWarning = fix.t
                return refused(fix, warning: ConsistencyWarning(t: fix.t, kind: .invalidInput(
                    "horizontal accuracy \(fix.horizontalAccuracyMeters.map { "\($0)" } ?? "?") m is not a positive number: "
                    + "the fix's position is not used (pass the 68 % radius in metres, or nil when unknown)")))
            case .invalidTime, .notAfterPreviousFix, .invalidCoordinates, .accuracyWorseThan:
                return refused(fix)
            }
        }
    }
}
