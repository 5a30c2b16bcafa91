#if Tools
import ArgumentParser
import EddyServerKit
import EddySupport
import Foundation

/// `eddy-server verify`: scores the nowcast, the forecast alone and persistence alone against the fleet reports that
/// came after each issue (docs/nowcast.md "Verification").
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Score the nowcast, the forecast alone and persistence alone against the fleet reports that came after.",
        discussion: """
            Re-issues each hourly nowcast of the window from the reports, pilot reports and forecast grids observed up to its \
            issue time, and counts hits, misses and false alarms of the event EDR >= 0.10 against the fleet's reports of \
            each following hour, per layer band and forecast hour: CSI, POD, FAR and frequency bias.
            """)
    @OptionGroup var database: DatabaseOption
    @Option(help: ArgumentHelp("First issue verified, ISO 8601 UTC (default: 24 h before --to).", valueName: "time"))
    var from: String?
    @Option(help: ArgumentHelp("Last issue verified, ISO 8601 UTC (default: 7 h ago, so that all its hours were observed).", valueName: "time"))
    var to: String?

    func run() async throws {
        let end = try to.map { try Self.instant($0, option: "--to") } ?? SystemEpochClock().now() - NowcastVerificationGauges.delayHours * 3600
        let start = try from.map { try Self.instant($0, option: "--from") } ?? end - 24 * 3600
        guard start <= end else { throw ValidationError("--from \(from ?? "") is after --to \(to ?? ""); give a --from before --to") }
        let hindcast = NowcastHindcast()
        let counts = try await database.with { storage in try await hindcast.run(storage: storage, from: start, to: end) }
        let format = ISO8601DateFormatter()
        let first = format.string(from: Date(timeIntervalSince1970: start)), last = format.string(from: Date(timeIntervalSince1970: end))
        print("nowcast verification: issues \(first) to \(last), event EDR >= \(hindcast.verification.eventEDR)")
        print(counts.isEmpty ? "no fleet reports followed these issues: nothing to score" : hindcast.verification.table(counts))
    }

    /// A time option's value, or an error naming the option.
    static func instant(_ text: String, option: String) throws -> Double {
        guard let time = AircraftReportCSV.instant(text) else {
            throw ValidationError("\(option) \(text) is not an ISO 8601 UTC time such as 2026-11-28T06:00:00Z")
        }
        return time
    }
}
#endif
