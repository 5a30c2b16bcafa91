#if Tools
import Foundation
import Logging

/// When the server verifies its nowcast for the `/metrics` gauges (docs/nowcast.md "Verification").
package enum NowcastVerificationGauges {
    /// Each issue verifies the issue this many hours before it: by then every forecast hour (0…6) of that issue has
    /// had its fleet reports.
    package static let delayHours = 7.0
}

extension SyncService {
    /// Verifies the issue `NowcastVerificationGauges.delayHours` before `issueTime` (a hindcast from the stored data) and
    /// adds its counts to the verification gauges; a storage failure is logged and skipped (the gauges keep what they
    /// had).
    func verifyPastIssue(before issueTime: Double) async {
        let past = issueTime - NowcastVerificationGauges.delayHours * 3600
        guard metrics.claimVerification(issueTime: past) else { return }
        var hindcast = NowcastHindcast()
        hindcast.intervalSeconds = options.nowcastIntervalSeconds
        do {
            metrics.addVerification(try await hindcast.run(storage: database, from: past, to: past))
        } catch {
            logger.warning("nowcast verification skipped", metadata: ["issueTime": "\(past)", "error": "\(error)"])
        }
    }
}
#endif
