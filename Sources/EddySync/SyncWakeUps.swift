package import EddySupport
import Synchronization

/// Cuts the sync loop's wait short (`SyncScheduler.run(wakeUps:)`): the engine wakes it when a report is stored, a
/// fetch area changes or the host asks for a fetch. A wake-up that comes while the loop is busy is kept for its next
/// wait, so none is lost; several coalesce into one.
package final class SyncWakeUps: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// No wake-up pending.
    package init() {}

    /// Ends the current wait at once, or the next one if the loop is not waiting.
    package func wake() {
        let waiter = state.withLock(visibleToThreadSanitizerAs: self) { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else { s.pending = true; return nil }
            s.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Waits `seconds` on `clock`, or until a wake-up (pending or new), or until the task is cancelled.
    package func sleep(seconds: Double, on clock: any EpochClock) async {
        if state.withLock(visibleToThreadSanitizerAs: self, { s in defer { s.pending = false }; return s.pending }) { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await clock.sleep(seconds: seconds) }
            group.addTask { await self.waitForWakeUp() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns at the next wake-up, or when the task is cancelled.
    private func waitForWakeUp() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock(visibleToThreadSanitizerAs: self) { s -> Bool in
                    if s.pending || Task.isCancelled { s.pending = false; return true }
                    s.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock(visibleToThreadSanitizerAs: self) { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume()
        }
    }
}
