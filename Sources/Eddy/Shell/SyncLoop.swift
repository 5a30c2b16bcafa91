import EddySync
import Foundation
import Synchronization

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
