import Foundation
import Synchronization

// The one time source of Eddy: Unix epoch seconds and a sleep, injected wherever time is read (sync client and
// scheduler, engine, server), so tests and replays never depend on the wall clock. The pure modules (vocabulary, navigation, detection, alerts)
// reads no clock at all: it gets times from its samples.

/// A source of epoch time: now in Unix seconds, and a way to wait.
package protocol EpochClock: Sendable {
    /// Now, Unix epoch seconds.
    func now() -> Double
    /// Waits `seconds` (a manual or sample-driven clock may return at once).
    func sleep(seconds: Double) async
}

/// The wall clock.
package struct SystemEpochClock: EpochClock {
    /// Creates the clock.
    package init() {}
    /// Now, Unix epoch seconds (`Date()`).
    package func now() -> Double { Date().timeIntervalSince1970 }
    /// Sleeps for real (negative waits do not sleep).
    package func sleep(seconds: Double) async { try? await Task.sleep(for: .seconds(max(0, seconds))) }
}

/// A clock tests move by hand; sleeping advances it instead of waiting.
package final class ManualEpochClock: EpochClock {
    private let current: Mutex<Double>
    /// Starts at `start`, Unix epoch seconds.
    package init(start: Double) { current = Mutex(start) }
    /// Now, Unix epoch seconds.
    package func now() -> Double { current.withLock(visibleToThreadSanitizerAs: self) { $0 } }
    /// Moves time forward by `seconds` (a negative value moves it back: tests may want that).
    package func advance(by seconds: Double) { current.withLock(visibleToThreadSanitizerAs: self) { $0 += seconds } }
    /// Advances the clock instead of sleeping (and yields, so a loop on this clock lets other tasks run).
    package func sleep(seconds: Double) async {
        advance(by: max(0, seconds))
        await Task.yield()
    }
}

/// A clock driven by sample times (replays, and the engine's flight-time sync): now is the latest time pushed
/// with `advance(to:)`, which never moves it backwards; sleeping only yields (time moves when samples come).
package final class SampleDrivenClock: EpochClock {
    private let current: Mutex<Double>
    /// Starts at `start`, Unix epoch seconds (0 by default: everything set up before the first sample is due at once).
    package init(start: Double = 0) { current = Mutex(start) }
    /// The latest sample time, Unix epoch seconds.
    package func now() -> Double { current.withLock(visibleToThreadSanitizerAs: self) { $0 } }
    /// Moves time forward to `t`, Unix epoch seconds; an earlier `t` (or NaN) leaves it unchanged.
    package func advance(to t: Double) { current.withLock(visibleToThreadSanitizerAs: self) { if t > $0 { $0 = t } } }
    /// Yields only: time moves with the samples.
    package func sleep(seconds: Double) async { await Task.yield() }
}
