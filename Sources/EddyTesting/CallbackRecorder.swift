public import Eddy
import EddySupport
import Foundation
import Synchronization

/// Records every callback an engine raises (with its engine time and sequence number), for assertions in a host's
/// tests: `let recorder = CallbackRecorder(engine)`, run the scenario, then look at `recorder.callbacks`.
public final class CallbackRecorder: Sendable {
    private let items = Mutex<[TimedCallback]>([])

    /// Creates a recorder; with an engine, it becomes that engine's `callbackObserver`.
    public init(_ engine: EddyEngine? = nil) {
        engine?.callbackObserver = { [self] timed in record(timed) }
    }

    /// Records one callback.
    public func record(_ callback: TimedCallback) { items.withLock(visibleToThreadSanitizerAs: self) { $0.append(callback) } }

    /// Everything recorded, in delivery order.
    public var all: [TimedCallback] { items.withLock(visibleToThreadSanitizerAs: self) { $0 } }

    /// The callbacks without their times.
    public var callbacks: [EddyCallback] { all.map(\.callback) }

    /// The callbacks whose delegate method is `name` (e.g. "didReceiveAlert").
    public func named(_ name: String) -> [TimedCallback] { all.filter { $0.callback.name == name } }

    /// Waits (polling every 10 ms, on the wall clock) until `condition` holds for the recorded callbacks or
    /// `timeoutSeconds` pass; returns whether it held. For engines whose sync runs on the wall clock.
    public func wait(timeoutSeconds: Double, until condition: ([EddyCallback]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            if condition(callbacks) { return true }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
