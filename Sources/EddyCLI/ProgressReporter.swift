#if Tools
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress of a long import or replay on stderr, only when stderr is a terminal (`isatty(2)`): never in pipes, files
/// or `--json` runs, so machine-readable output stays clean. Redraws one line at most 10 times a second.
final class ProgressReporter {
    /// Whether anything is drawn.
    let enabled: Bool
    private let label: String
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    /// A reporter for `label`; `allowed` false (e.g. `--json`) turns it off whatever the terminal.
    init(label: String, allowed: Bool = true) {
        self.label = label
        enabled = allowed && isatty(STDERR_FILENO) != 0
    }

    /// Shows `done` of `total` (bytes, seconds of flight…) as a percentage.
    func update(done: Double, total: Double, unit: String = "") {
        guard enabled, total > 0 else { return }
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        let percent = min(100, max(0, 100 * done / total))
        let detail = unit.isEmpty ? "" : String(format: " (%.0f of %.0f %@)", done, total, unit)
        FileHandle.standardError.write(Data(String(format: "\r%@: %5.1f %%%@\u{1B}[K", label, percent, detail).utf8))
        drawn = true
    }

    /// Clears the progress line.
    func finish() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
#endif
