import EddyCore
import EddyH3
import EddyProtocol
import EddyStore
import EddySync
import Foundation
import Synchronization

/// The scheduler's clock in `.flightTime` mode: the latest pushed sample time (0 before the first sample, so
/// everything set up before the flight is due at its first step).
final class FlightTimeClock: SyncClock {
    private let current = Mutex(0.0)
    func now() -> Double { current.withLock { $0 } }
    /// Moves time forward to `t` (never backwards).
    func advance(to t: Double) { current.withLock { if t > $0 { $0 = t } } }
    func sleep(seconds: Double) async { await Task.yield() }
}

/// The wall-clock sync loop: a background thread stepping the scheduler, woken early by `wake()`.
final class SyncLoop: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = true
    private var woken = false
    private let scheduler: SyncScheduler
    private let idleSeconds: Double
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(scheduler: SyncScheduler, idleSeconds: Double) {
        self.scheduler = scheduler
        self.idleSeconds = idleSeconds
    }

    func start() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                let keepGoing = running
                condition.unlock()
                guard keepGoing else { break }
                let wait = scheduler.step()
                condition.lock()
                if running && !woken {
                    _ = condition.wait(until: Date().addingTimeInterval(min(max(wait, 0.05), idleSeconds)))
                }
                woken = false
                condition.unlock()
            }
            finished.signal()
        }
        thread.name = "eddy-sync"
        self.thread = thread
        thread.start()
    }

    /// Runs the next step at once.
    func wake() {
        condition.lock(); woken = true; condition.signal(); condition.unlock()
    }

    /// Stops the loop and waits for the running step to end.
    func stop() {
        condition.lock(); running = false; condition.signal(); condition.unlock()
        if thread != nil { finished.wait() }
        thread = nil
    }
}
