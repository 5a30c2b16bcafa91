package import EddyNavigation
package import EddyVocabulary

/// One input of the detection pipeline, in time order: motion samples as the sensors gave them, and barometer readings
/// and location fixes as navigation took them (docs/detection.md, "Inputs").
///
/// Detection does not estimate where the aircraft is: the one `Navigation` of the engine or of a replay places each
/// fix and estimates the altitude, and detection uses what it made of them (the tile's cell and layer, ground speed,
/// track, the air density's altitude).
package enum DetectionInput: Sendable, Equatable {
    /// Accelerometer reading.
    case accelerometer(AccelerometerSample)
    /// Gyroscope reading.
    case gyroscope(GyroscopeSample)
    /// Barometer reading, with what navigation made of it (used or refused, and its warning).
    case barometer(BarometerSample, NavigatedPressure)
    /// Location fix, placed and with its altitude estimate.
    indirect case location(NavigatedFix)

    /// The input's time, seconds.
    package var t: Double {
        switch self {
        case .accelerometer(let s): s.t
        case .gyroscope(let s): s.t
        case .barometer(let s, _): s.t
        case .location(let n): n.t
        }
    }

    /// The stream the input came from.
    package var source: SampleSource {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .barometer: .barometer
        case .location: .location
        }
    }

    /// The same input with every time moved by `transform` (the engine's flight time base).
    package func retimed(_ transform: (Double) -> Double) -> DetectionInput {
        switch self {
        case .accelerometer(var s): s.t = transform(s.t); return .accelerometer(s)
        case .gyroscope(var s): s.t = transform(s.t); return .gyroscope(s)
        case .barometer(var s, var n):
            s.t = transform(s.t)
            if let warning = n.warning { n.warning = ConsistencyWarning(t: transform(warning.t), kind: warning.kind) }
            return .barometer(s, n)
        case .location(let n): return .location(n.retimed(transform))
        }
    }
}

