public import Eddy
public import EddyVocabulary

/// Where `AppleSensorFeed` puts what the sensors read: the engine, or a test's recorder.
public protocol AppleSensorSink: AnyObject, Sendable {
    /// Takes one sample on Unix time (`EddyEngine.push(_:)`).
    func push(_ sample: SensorSample)
    /// Takes a sensor or permission failure (`EddyEngine.reportLocationFailure(_:)`, delivered as
    /// `locationManagerDidFail(withError:)`).
    func reportLocationFailure(_ message: String)
    /// Whether the engine is in low power mode (on the ground after landing): the feed then asks for lower rates.
    var isLowPowerMode: Bool { get }
}

extension EddyEngine: AppleSensorSink {}
