import EddyTesting
import EddyVocabulary
import Foundation
import Testing
@testable import EddyStore

/// The resume point of a killed engine replay (docs/reliability.md): the latest stored own report's exit in a range.
@Suite("Resume point of a replay")
struct ResumePointTests {
    @Test func latestExitInRangeCountsPendingAndSentReportsAndIgnoresOthers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try EddyStore.open(path: folder.path("s.sqlite"))
        let flight = 1_800_000_000.0...1_800_007_200.0
        #expect(try store.latestOwnReportExitTime(in: flight) == nil)
        // An earlier flight's report (before the range) and one of this flight, then a later one that is sent.
        let reports = [makeReport(1, time: 1_799_990_000), makeReport(2, time: 1_800_000_500),
                       makeReport(3, time: 1_800_003_000.25)]
        try store.insertOwnReports(reports)
        #expect(try store.latestOwnReportExitTime(in: flight) == 1_800_003_000.25)
        try store.markOwnReportsSent(ids: [reports[2].id])
        #expect(try store.latestOwnReportExitTime(in: flight) == 1_800_003_000.25)
        // A report after the range (another flight) does not move this flight's resume point.
        try store.insertOwnReports([makeReport(4, time: 1_800_010_000)])
        #expect(try store.latestOwnReportExitTime(in: flight) == 1_800_003_000.25)
        #expect(try store.latestOwnReportExitTime(in: 1_799_000_000...1_799_999_999) == 1_799_990_000)
    }
}
