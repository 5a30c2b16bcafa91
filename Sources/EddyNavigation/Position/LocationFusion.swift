/// Chooses the fix the engine uses from device and external location sources (docs/engine.md "Location").
///
/// - An external fix (`.external` GPS or `.adsb` own-ship) is preferred for position while it is fresh: device fixes
///   that arrive within `externalFreshSeconds` of the last external fix are not used.
/// - ADS-B own-ship **pressure altitude** is preferred for the altitude layer: while the last ADS-B pressure altitude
///   is fresh (`pressureAltitudeFreshSeconds`), it replaces the pressure altitude of every fix used. A cabin
///   barometer reads cabin pressure, so the device barometer is never used for the layer of a pressurised aircraft.
/// - A fix with non-finite or out-of-range coordinates is rejected with a reason (the engine reports it as
///   `locationManagerDidFail(withError:)`).
package import EddyVocabulary
package struct LocationFusion: Sendable {
    /// How long an external fix outranks device fixes, seconds.
    package var externalFreshSeconds: Double
    /// How long an ADS-B pressure altitude stays in use, seconds.
    package var pressureAltitudeFreshSeconds: Double
    private var lastExternalTime: Double?
    private var lastADSBPressureAltitude: (t: Double, feet: Double)?

    /// Creates a fusion with the freshness limits (defaults 5 s for position, 10 s for pressure altitude).
    package init(externalFreshSeconds: Double = 5, pressureAltitudeFreshSeconds: Double = 10) {
        self.externalFreshSeconds = externalFreshSeconds
        self.pressureAltitudeFreshSeconds = pressureAltitudeFreshSeconds
    }

    /// What became of one fix.
    package enum Outcome: Sendable, Equatable {
        /// Use this fix (possibly with the ADS-B pressure altitude filled in).
        case use(LocationSample)
        /// Not used: a fresher external source is in charge.
        case superseded
        /// Not usable: the reason, for the host.
        case rejected(String)
    }

    /// Takes the next fix from any source.
    package mutating func process(_ fix: LocationSample) -> Outcome {
        guard fix.t.isFinite else { return .rejected("location time is not a finite number") }
        guard fix.latitudeDegrees.isFinite, fix.longitudeDegrees.isFinite,
              abs(fix.latitudeDegrees) <= 90, abs(fix.longitudeDegrees) <= 180
        else {
            return .rejected("location (\(fix.latitudeDegrees), \(fix.longitudeDegrees)) is not a valid position: "
                + "latitude must be within ±90° and longitude within ±180°")
        }
        var fix = fix
        if let p = fix.pressureAltitudeFeet, !p.isFinite { fix.pressureAltitudeFeet = nil }
        if let a = fix.altitudeMeters, !a.isFinite { fix.altitudeMeters = nil }
        if let v = fix.speedMetersPerSecond, !(v.isFinite && v >= 0) { fix.speedMetersPerSecond = nil }
        if let c = fix.courseDegrees, !(c.isFinite && c >= 0) { fix.courseDegrees = nil }

        switch fix.source {
        case .adsb, .external:
            lastExternalTime = fix.t
            if fix.source == .adsb, let p = fix.pressureAltitudeFeet { lastADSBPressureAltitude = (fix.t, p) }
        case .device:
            if let last = lastExternalTime, fix.t - last <= externalFreshSeconds, fix.t >= last { return .superseded }
        }
        if let adsb = lastADSBPressureAltitude, fix.t - adsb.t <= pressureAltitudeFreshSeconds, fix.t >= adsb.t {
            fix.pressureAltitudeFeet = adsb.feet
        }
        return .use(fix)
    }
}
