public import EddyVocabulary

/// A `CLLocation` as CoreLocation delivers it, in Apple's units and with Apple's "invalid" markers, before mapping.
///
/// Field by field (developer.apple.com/documentation/corelocation/cllocation): `coordinate` (degrees WGS-84);
/// `altitude` (metres above mean sea level); `horizontalAccuracy` (metres; "a negative value indicates that the
/// latitude and longitude are invalid"); `verticalAccuracy` (metres; negative: the altitude is invalid); `speed` (m/s;
/// "a negative value indicates an invalid speed"); `speedAccuracy` (negative: the speed is invalid); `course` (degrees
/// from true north; negative: invalid); `courseAccuracy` (negative: the course is invalid); `timestamp` (a `Date`);
/// `sourceInformation.isProducedByAccessory` (iOS 15: "an external accessory attached to the device, such as a Made for
/// iPhone GPS dongle or CarPlay") and `isSimulatedBySoftware`.
public struct AppleLocationReading: Sendable, Equatable {
    /// `coordinate.latitude`, degrees.
    public var latitudeDegrees: Double
    /// `coordinate.longitude`, degrees.
    public var longitudeDegrees: Double
    /// `altitude`, metres above mean sea level.
    public var altitudeMeters: Double
    /// `horizontalAccuracy`, metres (negative: position invalid).
    public var horizontalAccuracyMeters: Double
    /// `verticalAccuracy`, metres (negative: altitude invalid).
    public var verticalAccuracyMeters: Double
    /// `speed`, m/s (negative: invalid).
    public var speedMetersPerSecond: Double
    /// `speedAccuracy`, m/s (negative: speed invalid); nil where the OS has none.
    public var speedAccuracyMetersPerSecond: Double?
    /// `course`, degrees true (negative: invalid).
    public var courseDegrees: Double
    /// `courseAccuracy`, degrees (negative: course invalid); nil where the OS has none.
    public var courseAccuracyDegrees: Double?
    /// `timestamp.timeIntervalSince1970`, Unix seconds.
    public var unixSeconds: Double
    /// `sourceInformation?.isProducedByAccessory` (nil before iOS 15 or without source information).
    public var producedByAccessory: Bool?
    /// `sourceInformation?.isSimulatedBySoftware`.
    public var simulatedBySoftware: Bool?

    /// A reading, field by field as `CLLocation` has them.
    public init(
        latitudeDegrees: Double, longitudeDegrees: Double, altitudeMeters: Double, horizontalAccuracyMeters: Double,
        verticalAccuracyMeters: Double, speedMetersPerSecond: Double, speedAccuracyMetersPerSecond: Double? = nil,
        courseDegrees: Double, courseAccuracyDegrees: Double? = nil, unixSeconds: Double,
        producedByAccessory: Bool? = nil, simulatedBySoftware: Bool? = nil
    ) {
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
        self.altitudeMeters = altitudeMeters
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.verticalAccuracyMeters = verticalAccuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.speedAccuracyMetersPerSecond = speedAccuracyMetersPerSecond
        self.courseDegrees = courseDegrees
        self.courseAccuracyDegrees = courseAccuracyDegrees
        self.unixSeconds = unixSeconds
        self.producedByAccessory = producedByAccessory
        self.simulatedBySoftware = simulatedBySoftware
    }

    /// Why a reading gives no fix.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// `horizontalAccuracy` is negative: CoreLocation marks the coordinate invalid.
        case positionInvalid
        /// The coordinate or time is not a finite number, or the coordinate is outside ±90° / ±180°.
        case notANumber(field: String)

        /// What went wrong and what Eddy did.
        public var description: String {
            switch self {
            case .positionInvalid:
                "CoreLocation marked the position invalid (negative horizontalAccuracy): the reading is not used"
            case .notANumber(let field):
                "the location's \(field) is not a valid number: the reading is not used"
            }
        }
    }

    /// The fix Eddy takes from this reading: invalid speed, course, altitude and accuracies become nil (unknown), an
    /// accessory's fix is `.external`, a device's `.device`. A software-simulated fix is mapped like any other; the
    /// adapter decides whether to use it (`simulatedBySoftware`).
    public func locationSample() -> Result<LocationSample, Refusal> {
        guard latitudeDegrees.isFinite, abs(latitudeDegrees) <= 90 else { return .failure(.notANumber(field: "latitude")) }
        guard longitudeDegrees.isFinite, abs(longitudeDegrees) <= 180 else { return .failure(.notANumber(field: "longitude")) }
        guard unixSeconds.isFinite else { return .failure(.notANumber(field: "timestamp")) }
        guard !(horizontalAccuracyMeters < 0) else { return .failure(.positionInvalid) }
        let altitudeValid = verticalAccuracyMeters >= 0 && altitudeMeters.isFinite
        let speedValid = speedMetersPerSecond >= 0 && speedMetersPerSecond.isFinite && !((speedAccuracyMetersPerSecond ?? 0) < 0)
        let courseValid = courseDegrees >= 0 && courseDegrees.isFinite && !((courseAccuracyDegrees ?? 0) < 0)
        return .success(LocationSample(
            t: unixSeconds, latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees,
            altitudeMeters: altitudeValid ? altitudeMeters : nil,
            horizontalAccuracyMeters: Self.positive(horizontalAccuracyMeters),
            verticalAccuracyMeters: altitudeValid ? Self.positive(verticalAccuracyMeters) : nil,
            speedMetersPerSecond: speedValid ? speedMetersPerSecond : nil,
            courseDegrees: courseValid ? courseDegrees.truncatingRemainder(dividingBy: 360) : nil,
            source: producedByAccessory == true ? .external : .device))
    }

    /// A positive, finite accuracy; nil for 0 (CoreLocation's "exact" means "not given" to a filter that needs a spread).
    private static func positive(_ meters: Double) -> Double? { meters > 0 && meters.isFinite ? meters : nil }
}
