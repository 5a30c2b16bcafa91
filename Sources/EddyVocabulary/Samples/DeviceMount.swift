import Foundation

/// How the device is installed, which decides what a flat orientation and attitude changes mean (docs/detection.md §2).
public enum DeviceMount: String, Sendable, Codable, CaseIterable, Hashable {
    /// A tablet or phone in a cradle (default): lying flat means lying on a seat (not measured), and a move or a
    /// handled tick takes it out of position.
    case cradle
    /// A fixed installation (AHRS, data logger, panel mount): flat is the correct orientation, and attitude changes or
    /// accelerations never take it out of position; only the sensor-health gates (noise, gaps, rate, units) apply.
    case fixed
}
