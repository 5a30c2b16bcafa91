import Dispatch
import EddySupport
import EddySync
import Synchronization

/// The current session's sync: its client and scheduler and, in wall-clock mode, the one sync loop
/// (`SyncScheduler.run(wakeUps:)`, on the engine's injected clock). The loop's steps block on HTTP and SQLite, so it
/// runs on a serial queue of its own (`SerialQueueExecutor`), never on Swift's cooperative threads.
final class SyncRuntime: Sendable {
    /// The session's client.
    let client: SyncClient
    /// The session's scheduler.
    let scheduler: SyncScheduler
    private let wakeUps = SyncWakeUps()
    private let executor = SerialQueueExecutor(label: "eddy-sync")
    private let loop = Mutex<(task: Task<Void, Never>, finished: DispatchSemaphore)?>(nil)

    /// A runtime whose loop is not running yet.
    init(client: SyncClient, scheduler: SyncScheduler) {
        self.client = client
        self.scheduler = scheduler
    }

    /// Starts the loop (wall-clock mode; no-op when it runs).
    func startLoop() {
        loop.withLock(visibleToThreadSanitizerAs: self) { loop in
            guard loop == nil else { return }
            let finished = DispatchSemaphore(value: 0)
            let (scheduler, wakeUps) = (scheduler, wakeUps)
            let task = Task(executorPreference: executor) {
                await scheduler.run(wakeUps: wakeUps)
                finished.signal()
            }
            loop = (task, finished)
        }
    }

    /// Runs the loop's next step at once.
    func wake() { wakeUps.wake() }

    /// Stops the loop and waits for the step that runs to end (not when called from the loop's own queue, e.g. a
    /// callback delivered on the calling thread during a step: that step ends when the call returns).
    func stopLoop() {
        guard let running = loop.withLock(visibleToThreadSanitizerAs: self, { loop in defer { loop = nil }; return loop }) else { return }
        running.task.cancel()
        wakeUps.wake()
        if !executor.isCurrent { running.finished.wait() }
    }
}

/// A task executor that runs every job on one serial dispatch queue: for work that blocks (the sync loop's HTTP
/// requests and SQLite writes), kept off Swift's cooperative thread pool.
final class SerialQueueExecutor: TaskExecutor, Sendable {
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()

    /// An executor on a new serial queue named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the calling thread is running a job of this executor.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Runs `job` on the queue.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
