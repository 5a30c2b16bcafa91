/// One accelerometer reading: specific force in the device frame, in g, gravity included.
public struct AccelerometerSample: Sendable, Equatable {
    /// Sample time, seconds (the log's time base).
    public var t: Double
    /// Specific force along device x, in g.
    public var x: Double
    /// Specific force along device y, in g.
    public var y: Double
    /// Specific force along device z, in g.
    public var z: Double
    /// Creates a reading.
    public init(t: Double, x: Double, y: Double, z: Double) { self.t = t; self.x = x; self.y = y; self.z = z }
}

/// One gyroscope reading: rotation rate in the device frame, rad/s.
public struct GyroscopeSample: Sendable, Equatable {
    /// Sample time, seconds.
    public var t: Double
    /// Rotation rate about device x, rad/s.
    public var x: Double
    /// Rotation rate about device y, rad/s.
    public var y: Double
    /// Rotation rate about device z, rad/s.
    public var z: Double
    /// Creates a reading.
    public init(t: Double, x: Double, y: Double, z: Double) { self.t = t; self.x = x; self.y = y; self.z = z }
}

/// One barometer reading: static pressure at the device (cabin pressure in a pressurised aircraft).
public struct BarometerSample: Sendable, Equatable {
    /// Sample time, seconds.
    public var t: Double
    /// Pressure, hPa.
    public var pressureHectopascals: Double
    /// Creates a reading.
    public init(t: Double, pressureHectopascals: Double) { self.t = t; self.pressureHectopascals = pressureHectopascals }
}

/// Where a location fix came from.
public enum LocationSource: String, Sendable, Codable, CaseIterable {
    /// The device's own GNSS.
    case device
    /// An external GNSS / AHRS receiver.
    case external
    /// ADS-B own-ship report (carries pressure altitude).
    case adsb
}

/// One location fix. Optional fields are unknown when nil.
public struct LocationSample: Sendable, Equatable {
    /// Fix time, seconds.
    public var t: Double
    /// Latitude, degrees WGS-84.
    public var latitudeDegrees: Double
    /// Longitude, degrees WGS-84.
    public var longitudeDegrees: Double
    /// GNSS altitude above mean sea level, metres.
    public var altitudeMeters: Double?
    /// Horizontal accuracy (68 %), metres.
    public var horizontalAccuracyMeters: Double?
    /// Vertical accuracy (68 %), metres.
    public var verticalAccuracyMeters: Double?
    /// Ground speed, m/s.
    public var speedMetersPerSecond: Double?
    /// Track, degrees true.
    public var courseDegrees: Double?
    /// Pressure altitude from an external source (ADS-B own-ship, AHRS), feet.
    public var pressureAltitudeFeet: Double?
    /// Where the fix came from.
    public var source: LocationSource

    /// Creates a fix.
    public init(
        t: Double, latitudeDegrees: Double, longitudeDegrees: Double, altitudeMeters: Double? = nil,
        horizontalAccuracyMeters: Double? = nil, verticalAccuracyMeters: Double? = nil,
        speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil,
        pressureAltitudeFeet: Double? = nil, source: LocationSource = .device
    ) {
        self.t = t
        self.latitudeDegrees = latitudeDegrees
        self.longitudeDegrees = longitudeDegrees
        self.altitudeMeters = altitudeMeters
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.verticalAccuracyMeters = verticalAccuracyMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.pressureAltitudeFeet = pressureAltitudeFeet
        self.source = source
    }

    /// The altitude used for the 1000 ft tile layer: external pressure altitude when present, else GNSS altitude.
    public var layerAltitudeFeet: Double? {
        if let pressureAltitudeFeet { return pressureAltitudeFeet }
        if let altitudeMeters { return altitudeMeters / 0.3048 }
        return nil
    }
}

/// Any one sensor reading, as merged by time from a flight log or pushed by a host app.
public enum SensorSample: Sendable, Equatable {
    /// Accelerometer reading.
    case accelerometer(AccelerometerSample)
    /// Gyroscope reading.
    case gyroscope(GyroscopeSample)
    /// Barometer reading.
    case barometer(BarometerSample)
    /// Location fix.
    case location(LocationSample)

    /// The sample's time, seconds.
    public var t: Double {
        get {
            switch self {
            case .accelerometer(let s): s.t
            case .gyroscope(let s): s.t
            case .barometer(let s): s.t
            case .location(let s): s.t
            }
        }
        set {
            switch self {
            case .accelerometer(var s): s.t = newValue; self = .accelerometer(s)
            case .gyroscope(var s): s.t = newValue; self = .gyroscope(s)
            case .barometer(var s): s.t = newValue; self = .barometer(s)
            case .location(var s): s.t = newValue; self = .location(s)
            }
        }
    }
}
