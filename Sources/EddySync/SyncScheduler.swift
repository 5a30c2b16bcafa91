package import EddyProtocol
package import EddySupport
package import EddyVocabulary
import Foundation
import Synchronization

/// How often an area × data type is refreshed (intervals come from the server's settings).
public enum UpdateFrequency: String, Sendable, Codable, CaseIterable {
    /// Never periodically: only when the area changes or `fetchNow()` is called.
    case none
    /// Every `minimalIntervalSeconds` (default 10 min).
    case minimal
    /// Every `mediumIntervalSeconds` (default 5 min).
    case medium
    /// Every `fastIntervalSeconds` (default 1 min).
    case fast

    /// The interval in seconds under `settings`; nil for `none`.
    package func intervalSeconds(_ settings: ServerSettings) -> Double? {
        switch self {
        case .none: nil
        case .minimal: settings.minimalIntervalSeconds
        case .medium: settings.mediumIntervalSeconds
        case .fast: settings.fastIntervalSeconds
        }
    }
}

/// Fetching status of one area × data type.
public enum FetchingStatus: String, Sendable, Equatable {
    /// Nothing running, last fetch fine (or none yet).
    case idle
    /// A fetch is running.
    case fetching
    /// The last fetch failed; a retry is scheduled.
    case failed
}

/// What the scheduler tells the host (state changes are reported only on change).
package enum SyncEvent: Sendable, Equatable {
    /// Server reachability changed.
    case reachabilityChanged(Bool)
    /// Fetching status of an area × data type changed.
    case fetchingStatusChanged(area: DataAreaType, dataType: DataType, status: FetchingStatus)
    /// New data stored for an area × data type.
    case receivedData(area: DataAreaType, dataType: DataType, itemCount: Int, full: Bool)
    /// Reports acknowledged by the server.
    case uploaded(accepted: Int, duplicates: Int, rejected: Int)
    /// A failure (every failure is surfaced).
    case failed(SyncError)
    /// 403 or 426: the server refuses this client; recording and sync stop.
    case recordingStopped(SyncError)
}

/// Scheduler settings.
package struct SchedulerConfiguration: Sendable {
    /// Data types fetched for each area (the viewport: `viewportDataTypes` when set).
    package var dataTypes: [DataType] = [.turbulence]
    /// Data types fetched for the viewport area (nil: `dataTypes`).
    package var viewportDataTypes: [DataType]? = nil
    /// Update frequency.
    package var frequency: UpdateFrequency = .fast
    /// History window, hours.
    package var historyHours: Double = EddyWire.defaultHistoryHours
    /// Layers fetched (thousands of feet).
    package var minLayer = 0
    /// Layers fetched (thousands of feet).
    package var maxLayer = 60
    /// Viewer class (polygons are drawn for it).
    package var viewerClass: AircraftClass = .medium
    /// Reports per upload batch.
    package var uploadBatchSize = 100
    /// Most items asked for in one fetch answer (`pageSize`); a larger answer comes in pages, each fetched at once
    /// after the one before (the server caps it at its own limit, 10,000 by default).
    package var fetchPageSize = 10_000
    /// First back-off delay, seconds.
    package var backoffBaseSeconds: Double = 2
    /// Longest back-off delay, seconds.
    package var backoffMaxSeconds: Double = 300
    /// Seed of the jitter generator (deterministic tests).
    package var jitterSeed: UInt64 = 0x5EED
    /// Longest idle wait of `run()` between outbox checks, seconds.
    package var idlePollSeconds: Double = 1
    /// Creates the defaults.
    package init() {}

    /// The data types fetched for an area type.
    package func dataTypes(for area: DataAreaType) -> [DataType] {
        area == .viewport ? viewportDataTypes ?? dataTypes : dataTypes
    }
}

/// Drives uploads and fetches on an injected clock.
///
/// `step()` does everything due now and returns the seconds until the next due work; `run()` loops on it.
/// After a transient failure (server unreachable, 5xx, malformed answer, 429) every request waits for an
/// exponential back-off with jitter (`base · 2^n`, capped, times a seeded factor in [0.5, 1]); 429 waits at
/// least its Retry-After. A success resets the back-off. 403 and 426 stop the scheduler for good.
package final class SyncScheduler: Sendable {
    private let client: SyncClient
    private let store: any SyncStore
    private let clock: any EpochClock
    private let emit: @Sendable (SyncEvent) -> Void

    private struct Key: Hashable { var area: DataAreaType; var dataType: DataType }
    private struct State {
        var configuration: SchedulerConfiguration
        var areas: [DataAreaType: SyncArea] = [:]
        var nextFetch: [Key: Double] = [:]
        var status: [Key: FetchingStatus] = [:]
        var reachable: Bool?
        var retryNotBefore: Double = 0
        var failures = 0
        var stopped: SyncError?
        var rng: SplitMix64
        var position: PositionUploadBody?
        var positionDirty = false
        /// Where an interrupted paged fetch continues (its next page's cursor), per area × data type.
        var pageCursors: [Key: String] = [:]
    }
    private let state: Mutex<State>
    private let stepLock = Mutex(())

    /// Creates a scheduler; events are delivered synchronously on the thread running `step()`.
    package init(
        client: SyncClient, store: any SyncStore, clock: any EpochClock, configuration: SchedulerConfiguration = .init(),
        events: @escaping @Sendable (SyncEvent) -> Void = { _ in }
    ) {
        self.client = client
        self.store = store
        self.clock = clock
        self.emit = events
        self.state = Mutex(State(configuration: configuration, rng: SplitMix64(seed: configuration.jitterSeed)))
    }

    /// Sets (or clears) an area; a changed area is fetched at once, in full.
    package func setArea(_ area: SyncArea?, for type: DataAreaType) throws(SyncError) {
        let changed = state.withLock(visibleToThreadSanitizerAs: self) { s -> Bool in
            guard s.areas[type] != area else { return false }
            s.areas[type] = area
            for dataType in DataType.allCases {
                s.nextFetch[Key(area: type, dataType: dataType)] = clock.now()
                s.pageCursors[Key(area: type, dataType: dataType)] = nil
            }
            return true
        }
        if changed {
            do { try store.resetTicks(area: type) } catch { throw .store(error) }
        }
    }

    /// Changes the configuration (data types, frequency, window…); everything is due at once.
    package func configure(_ update: (inout SchedulerConfiguration) -> Void) {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            update(&s.configuration)
            for key in s.nextFetch.keys { s.nextFetch[key] = clock.now() }
            s.pageCursors.removeAll()
        }
    }

    /// Makes every area × data type due now (SkyPath's `fetchData(refresh:)`).
    package func fetchNow() {
        state.withLock(visibleToThreadSanitizerAs: self) { s in for key in s.nextFetch.keys { s.nextFetch[key] = clock.now() } }
    }

    /// Sets the own position to upload at the next step, with the aircraft's fleet altitude offset when it measured
    /// one (geometric − pressure altitude; sent once, with this position).
    package func updatePosition(_ position: PositionUpload, altitudeOffset: AltitudeOffsetObservation? = nil) {
        state.withLock(visibleToThreadSanitizerAs: self) { $0.position = PositionUploadBody(position: position, altitudeOffset: altitudeOffset); $0.positionDirty = true }
    }

    /// Reachability as last observed (nil before the first request).
    package var isReachable: Bool? { state.withLock(visibleToThreadSanitizerAs: self) { $0.reachable } }
    /// Why the scheduler stopped for good, if it did.
    package var stoppedReason: SyncError? { state.withLock(visibleToThreadSanitizerAs: self) { $0.stopped } }
    /// Fetching status of an area × data type.
    package func fetchingStatus(area: DataAreaType, dataType: DataType) -> FetchingStatus {
        state.withLock(visibleToThreadSanitizerAs: self) { $0.status[Key(area: area, dataType: dataType)] ?? .idle }
    }
    /// When requests may go out again (Unix seconds); 0 when not backing off.
    package var retryNotBefore: Double { state.withLock(visibleToThreadSanitizerAs: self) { $0.retryNotBefore } }

    /// Runs everything due now: outbox upload, position, due fetches. Returns seconds until the next due work.
    @discardableResult
    package func step() -> Double {
        stepLock.withLock(visibleToThreadSanitizerAs: self) { _ in
            guard state.withLock(visibleToThreadSanitizerAs: self, { $0.stopped == nil }) else { return .infinity }
            if gateOpen() { uploadOutbox() }
            if gateOpen() { uploadPosition() }
            for key in dueFetches() where gateOpen() { fetch(key) }
            return secondsUntilNextWork()
        }
    }

    /// The sync loop: `step()`, then a wait on the scheduler's clock until the next due work (at most
    /// `idlePollSeconds`, at least 50 ms), cut short by `wakeUps`; until the task is cancelled or the scheduler stops.
    /// The engine runs it in wall-clock mode, tests on a manual clock (docs/sync.md, "Scheduler").
    package func run(wakeUps: SyncWakeUps = SyncWakeUps()) async {
        while !Task.isCancelled {
            let wait = step()
            if wait == .infinity, stoppedReason != nil { return }
            let idle = state.withLock(visibleToThreadSanitizerAs: self) { $0.configuration.idlePollSeconds }
            await wakeUps.sleep(seconds: min(max(wait, 0.05), idle), on: clock)
        }
    }

    /// Uploads the outbox until it is empty, the server refuses the client, or `deadline` (Unix seconds on `waitClock`)
    /// would pass: the server's 429 pacing (its retry-after) and other failures (back-off from 0.5 s, doubling, at most
    /// 10 s) are waited out on `waitClock`, not on the scheduler's clock (the end of a replay, whose flight clock no
    /// longer moves). Returns the reports the server accepted.
    package func drainOutbox(until deadline: Double, waitClock: any EpochClock) async -> Int {
        var sent = 0
        var failures = 0
        while state.withLock(visibleToThreadSanitizerAs: self, { $0.stopped == nil }) {
            switch uploadNextBatch() {
            case .moved(let accepted):
                sent += accepted
                failures = 0
            case .empty, .storeFailed, .stuck:
                return sent
            case .failed(let error):
                var wait = min(10, 0.5 * pow(2, Double(failures)))
                if case .rateLimited(let retryAfter) = error { wait = retryAfter }
                failures += 1
                guard waitClock.now() + wait < deadline else { return sent }
                await waitClock.sleep(seconds: wait)
            }
        }
        return sent
    }

    // MARK: work

    private func gateOpen() -> Bool {
        state.withLock(visibleToThreadSanitizerAs: self) { $0.stopped == nil && clock.now() >= $0.retryNotBefore }
    }

    private func uploadOutbox() {
        while gateOpen() {
            guard case .moved = uploadNextBatch() else { return }
        }
    }

    /// What uploading one outbox batch did.
    private enum BatchOutcome {
        /// Nothing pending.
        case empty
        /// The store failed (reported).
        case storeFailed
        /// The server took the batch but moved nothing (no loop on it).
        case stuck
        /// The server accepted `accepted` reports (others may have been rejected).
        case moved(accepted: Int)
        /// The request failed (reported; the back-off is set).
        case failed(SyncError)
    }

    /// Uploads the oldest pending batch and marks what the server acknowledged.
    private func uploadNextBatch() -> BatchOutcome {
        let batchSize = state.withLock(visibleToThreadSanitizerAs: self) { min($0.configuration.uploadBatchSize, client.settings.maxReportsPerBatch) }
        let pending: [TileReport]
        do { pending = try store.pendingReports(limit: batchSize) } catch { emit(.failed(.store(error))); return .storeFailed }
        guard !pending.isEmpty else { return .empty }
        let ack: ReportBatchAck
        do { ack = try client.upload(pending) } catch {
            failed(error)
            return .failed(error)
        }
        succeeded()
        do {
            try store.markReportsSent(ack.acceptedIds)
            if !ack.rejected.isEmpty { try store.markReportsRejected(ack.rejected) }
        } catch {
            emit(.failed(.store(error)))
            return .storeFailed
        }
        emit(.uploaded(accepted: ack.acceptedIds.count, duplicates: ack.duplicateCount, rejected: ack.rejected.count))
        return ack.acceptedIds.isEmpty && ack.rejected.isEmpty ? .stuck : .moved(accepted: ack.acceptedIds.count)
    }

    private func uploadPosition() {
        guard let position = state.withLock(visibleToThreadSanitizerAs: self, { s -> PositionUploadBody? in s.positionDirty ? s.position : nil }) else { return }
        do {
            try client.uploadPosition(position.position, altitudeOffset: position.altitudeOffset)
            succeeded()
            state.withLock(visibleToThreadSanitizerAs: self) { if $0.position == position { $0.positionDirty = false } }
        } catch {
            failed(error)
        }
    }

    private func dueFetches() -> [Key] {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            let now = clock.now()
            var due: [Key] = []
            for areaType in DataAreaType.allCases where s.areas[areaType] != nil {
                for dataType in s.configuration.dataTypes(for: areaType) {
                    let key = Key(area: areaType, dataType: dataType)
                    let next = s.nextFetch[key] ?? now
                    if s.nextFetch[key] == nil { s.nextFetch[key] = now }
                    if next <= now { due.append(key) }
                }
            }
            return due
        }
    }

    /// Fetches an area × data type, every page of it: each page is stored as it comes, the tick with the last one. A
    /// failure keeps the page's cursor, so the retry after the back-off continues there; a cursor the server refuses
    /// (400, or 409 when the nowcast issue changed between pages) is dropped and the fetch starts again from its first
    /// page.
    private func fetch(_ key: Key) {
        let (request, interval, resume) = state.withLock(visibleToThreadSanitizerAs: self) { s -> (DeltaFetchRequest?, Double?, String?) in
            guard let area = s.areas[key.area] else { return (nil, nil, nil) }
            let c = s.configuration
            let request = DeltaFetchRequest(
                dataType: key.dataType, area: area, sinceTick: nil, historyHours: c.historyHours,
                minLayer: c.minLayer, maxLayer: c.maxLayer, viewerClass: c.viewerClass, pageSize: c.fetchPageSize)
            return (request, c.frequency.intervalSeconds(client.settings), s.pageCursors[key])
        }
        guard var request else { return }
        setStatus(key, .fetching)
        do {
            request.sinceTick = try store.lastTick(area: key.area, dataType: key.dataType)
        } catch {
            setStatus(key, .failed)
            emit(.failed(.store(error)))
            return
        }
        request.cursor = resume
        var itemCount = 0
        while true {
            let response: DeltaFetchResponse
            do {
                response = try client.fetch(request)
            } catch {
                if Self.refusesCursor(error) { state.withLock(visibleToThreadSanitizerAs: self) { $0.pageCursors[key] = nil } }
                setStatus(key, .failed)
                failed(error)
                return
            }
            succeeded()
            do { try store.apply(response, request: request, now: clock.now()) } catch {
                setStatus(key, .failed)
                emit(.failed(.store(error)))
                return
            }
            itemCount += response.itemCount
            state.withLock(visibleToThreadSanitizerAs: self) { $0.pageCursors[key] = response.nextCursor }
            guard let next = response.nextCursor else {
                state.withLock(visibleToThreadSanitizerAs: self) { $0.nextFetch[key] = interval.map { clock.now() + $0 } ?? .infinity }
                setStatus(key, .idle)
                if itemCount > 0 || response.full {
                    emit(.receivedData(area: key.area, dataType: key.dataType, itemCount: itemCount, full: response.full))
                }
                return
            }
            // The next page now, unless the scheduler stopped or backs off meanwhile (it then continues at this cursor).
            guard gateOpen() else { return }
            request.cursor = next
        }
    }

    /// Whether `error` means the server will not take the page cursor again (it then fetches from the first page).
    private static func refusesCursor(_ error: SyncError) -> Bool {
        switch error {
        case .badRequest: true
        case .server(let status, _): status == 409
        default: false
        }
    }

    private func setStatus(_ key: Key, _ status: FetchingStatus) {
        let changed = state.withLock(visibleToThreadSanitizerAs: self) { s -> Bool in
            let old = s.status[key] ?? .idle
            s.status[key] = status
            return old != status
        }
        if changed { emit(.fetchingStatusChanged(area: key.area, dataType: key.dataType, status: status)) }
    }

    private func setReachable(_ reachable: Bool) {
        let changed = state.withLock(visibleToThreadSanitizerAs: self) { s -> Bool in
            defer { s.reachable = reachable }
            return s.reachable != reachable
        }
        if changed { emit(.reachabilityChanged(reachable)) }
    }

    private func succeeded() {
        setReachable(true)
        state.withLock(visibleToThreadSanitizerAs: self) { $0.failures = 0; $0.retryNotBefore = 0 }
    }

    private func failed(_ error: SyncError) {
        if case .unreachable = error { setReachable(false) } else { setReachable(true) }
        emit(.failed(error))
        switch error {
        case .forbidden, .clientTooOld, .apiKeyInvalid:
            state.withLock(visibleToThreadSanitizerAs: self) { $0.stopped = error }
            emit(.recordingStopped(error))
            return
        default: break
        }
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            let exponent = min(s.failures, 30)
            let raw = min(s.configuration.backoffMaxSeconds, s.configuration.backoffBaseSeconds * pow(2, Double(exponent)))
            var delay = raw * (0.5 + 0.5 * Double(s.rng.next() >> 11) / Double(1 << 53))   // jitter factor in [0.5, 1)
            if case .rateLimited(let retryAfter) = error { delay = max(delay, retryAfter) }
            s.failures += 1
            s.retryNotBefore = clock.now() + delay
        }
    }

    private func secondsUntilNextWork() -> Double {
        state.withLock(visibleToThreadSanitizerAs: self) { s in
            let now = clock.now()
            let active = s.nextFetch.filter { s.areas[$0.key.area] != nil && s.configuration.dataTypes(for: $0.key.area).contains($0.key.dataType) }
            var next = active.values.min() ?? .infinity
            next = max(next, s.retryNotBefore)
            return max(0, next - now)
        }
    }
}
