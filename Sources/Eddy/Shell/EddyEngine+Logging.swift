import EddyDetection
import EddySupport
import EddySync
import EddyVocabulary
public import Foundation
import Logging

/// The engine's log (docs/engine.md "Logging"): written by the shell only, never under the core's lock.
extension EddyEngine {
    /// The log as one file, oldest line first (`exportLogs.log` in the log directory, replaced at each call), for a
    /// pilot's problem report. Throws when logging is off or the file cannot be written.
    public func exportLogs() throws(EddyError) -> URL {
        guard let logFile else { throw .logging("logging is off: set EddyConfiguration.logging.directory") }
        writeSessionSummary(isStarted ? "at export, session running" : "at export")
        let destination = logFile.directory.appendingPathComponent("exportLogs.log")
        do {
            try FileManager.default.createDirectory(at: logFile.directory, withIntermediateDirectories: true)
            try logFile.export(to: destination)
        } catch {
            throw .logging("could not write \(destination.path): \(error.localizedDescription). Check the directory is writable.")
        }
        return destination
    }

    /// Writes the session summary as one `SUMMARY` line, whatever the log level (`state` says when: at export, stopped).
    func writeSessionSummary(_ state: String) {
        guard let logFile else { return }
        let (flight, phase) = core.withLock { ($0.flight, $0.flightPhase) }
        let flightText = (flight.map { $0.isTemporary ? "temporary" : ($0.flightNumber ?? "without number") } ?? "none") + ", phase \(phase)"
        let pending = try? store.outboxCounts().pending
        let line = sessionSummary.withLock(visibleToThreadSanitizerAs: self) { $0.line(state: state, flight: flightText, pendingReports: pending) }
        logFile.append(redactor.redact("\(Date(timeIntervalSince1970: configuration.wallClock.now()).ISO8601Format()) SUMMARY \(line)"))
    }

    /// Counts a sample pushed while not started; the first of each such period is logged as a warning.
    func sampleDroppedNotStarted() {
        let first = sessionSummary.withLock(visibleToThreadSanitizerAs: self) { summary in
            summary.samplesDroppedNotStarted += 1
            defer { summary.droppingLogged = true }
            return !summary.droppingLogged
        }
        if first { logger?.warning("push: samples are dropped while the engine is not started (call start first; after stop() call start again)") }
    }

    /// Waits until every queued log line is in the file.
    package func flushLogs() { logFile?.flush() }

    /// A sync event at its level (uploads info, data debug, failures warning with the back-off, refusals error).
    func log(_ event: SyncEvent) {
        guard let logger else { return }
        sessionSummary.withLock(visibleToThreadSanitizerAs: self) { $0.count(event) }
        switch event {
        case .reachabilityChanged(let reachable): logger.notice("sync: server \(reachable ? "reachable" : "unreachable")")
        case .fetchingStatusChanged(let area, let dataType, let status): logger.trace("sync: \(area.rawValue) \(dataType.rawValue) \(status)")
        case .receivedData(let area, let dataType, let count, let full):
            logger.debug("sync: received \(dataType.rawValue) for \(area.rawValue)", metadata: ["items": "\(count)", "full": "\(full)"])
        case .uploaded(let accepted, let duplicates, let rejected):
            logger.info("sync: reports uploaded", metadata: ["accepted": "\(accepted)", "duplicates": "\(duplicates)", "rejected": "\(rejected)"])
        case .failed(let error):
            let retry = sync.withLock(visibleToThreadSanitizerAs: self) { $0?.scheduler.retryNotBefore } ?? 0
            let wait = retry > 0 ? String(format: "%.0f", max(0, retry - clock.now())) : "0"
            logger.warning("sync: request failed: \(error)", metadata: ["backoffSeconds": "\(wait)"])
        case .recordingStopped(let error):
            logger.error("sync: the server refused this client, recording stopped (start again with a valid key): \(error)")
        }
    }

    /// A callback at its level (store failures error; inconsistencies, location failures, fetch failures warning).
    func log(_ callback: EddyCallback, _ logger: Logger) {
        switch callback {
        case .didFailToAccessStore(let failure): logger.error("store: \(failure)")
        case .didDetectInconsistency(let warning): logger.warning("inconsistency: \(warning)")
        case .didReceiveMeasurementNotice(let notice): logger.notice("measurement: \(notice.phase.rawValue) \(notice.kindName): \(notice.reason)")
        case .locationManagerDidFail(let error): logger.warning("location: \(error)")
        case .didFailToFetchNewData(let error): logger.warning("fetch failed: \(error)")
        case .didUpdateRecordingStatus(let on): logger.info("recording \(on ? "on" : "off")")
        case .didUpdateLowPowerMode(let on): logger.info("low power \(on ? "on" : "off")")
        case .didReceiveAlert(let alert): logger.info("alert: \(alert.items.count) items")
        case .detectedTurbulence(let detected):
            logger.debug("detected \(detected.severity.name)", metadata: ["layer": "\(detected.report.tile.layer)", "edrPeak": "\(detected.report.edrPeak)"])
        default: logger.trace("callback \(callback.name)")
        }
    }
}
