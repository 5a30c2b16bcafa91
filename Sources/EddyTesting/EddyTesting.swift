import Eddy
import EddyVocabulary
// `SyntheticFlight`'s API is made of EddySimulation's types (`FlightScenario`, `TurbulenceSegment`, `SimulatedChunk`):
// re-exported so that a host's tests need only `import Eddy` and `import EddyTesting`.
@_exported import EddySimulation

/// Helpers for host apps' own tests (see docs/testing.md):
/// ``LocalEddyServer`` (a real `eddy-server` on loopback), ``SyntheticFlight`` (accelerometer, gyro,
/// barometer and location samples with known turbulence) and ``SyntheticRoute`` (location-only legs
/// for flight-phase and alert tests). All samples are stamped in Unix epoch seconds.
public enum EddyTesting {
    /// The engine version these helpers were built with.
    public static let engineVersion = EddyVersion.current
}
