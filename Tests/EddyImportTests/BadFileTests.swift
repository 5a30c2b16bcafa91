import EddySensorLog
import Foundation
import Testing
@testable import EddyImport

/// Every error class gives a typed error with the file, the line where there is one, and what to do.
@Suite struct BadFileTests {
    private func bad(_ name: String) -> String { ImportFixtures.path("bad/\(name)") }

    @Test func truncatedLastLine() throws {
        let error = try #require(importError(bad("androsensor-truncated.csv")))
        #expect(error.kind == .truncated)
        #expect(error.file == "androsensor-truncated.csv")
        #expect(error.line == 31)   // sep line, header, 28 rows, then the cut row
        #expect(error.description.contains("androsensor-truncated.csv:31:"))
    }

    @Test func mixedUnits() throws {
        let error = try #require(importError(bad("androsensor-mixed-units.csv")))
        #expect(error.kind == .mixedUnits)
        #expect(error.line == 2)
    }

    @Test func notANumber() throws {
        let error = try #require(importError(bad("androsensor-not-a-number.csv")))
        #expect(error.kind == .notANumber)
        #expect(error.line == 13)
        #expect(error.message.contains("1.2.3"))
    }

    @Test func wrongDelimiter() throws {
        let error = try #require(importError(bad("androsensor-wrong-delimiter.csv"), format: .androsensor))
        #expect(error.kind == .wrongDelimiter)
        #expect(error.line == 1)
        #expect(error.advice.contains("';'"))
    }

    @Test func emptyFile() throws {
        let error = try #require(importError(bad("empty.csv"), format: .androsensor))
        #expect(error.kind == .emptyFile)
    }

    @Test func headerOnlyHasNoSamples() throws {
        let error = try #require(importError(bad("header-only.csv"), format: .androsensor))
        #expect(error.kind == .noSamples)
    }

    @Test func binaryIsNeverEchoedRaw() throws {
        let forced = try #require(importError(bad("binary.csv"), format: .sensorlog))
        #expect(forced.kind == .binaryFile)
        #expect(forced.line == nil)
        #expect(forced.description.contains("\\x00"))
        #expect(!forced.description.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let detected = try #require(importError(bad("binary.csv")))
        #expect(detected.kind == .unknownFormat)
    }

    @Test func unknownCSVListsKnownFormats() throws {
        let error = try #require(importError(bad("unknown.csv")))
        #expect(error.kind == .unknownFormat)
        for format in ImportFormat.allCases { #expect(error.advice.contains(format.rawValue)) }
        #expect(error.advice.contains("gFx"))
        #expect(error.message.contains("when,value_a,value_b"))
    }

    @Test func missingColumns() throws {
        let error = try #require(importError(bad("sensorlog-missing-columns.csv")))
        #expect(error.kind == .missingColumns)
        #expect(error.message.contains("accelerometerAccelerationX(G)"))
    }

    @Test func timeGoingBackwards() throws {
        let error = try #require(importError(bad("sensorlogger-backwards")))
        #expect(error.kind == .timeWentBackwards)
        #expect(error.file == "TotalAcceleration.csv")
        #expect(error.line == 4)
    }

    @Test func zipCutShortOrCorrupt() throws {
        let cut = try #require(importError(bad("sensorlogger-cut.zip")))
        #expect(cut.kind == .corruptZip)
        let corrupt = try #require(importError(bad("sensorlogger-corrupt.zip"), format: .sensorlogger))
        #expect(corrupt.kind == .corruptZip)
    }

    @Test func zip64IsRefusedClearly() throws {
        // An end-of-central-directory record whose counts are 0xFFFF: the zip64 marker.
        var bytes: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        bytes += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0]
        let dir = TempDirectory()
        let path = dir.write("big.zip", bytes)
        let error = try #require(importError(path))
        #expect(error.kind == .unsupportedZip)
        #expect(error.advice.contains("Unzip"))
    }

    @Test func igcTruncatedAndUndated() throws {
        let truncated = try #require(importError(bad("igc-truncated.igc")))
        #expect(truncated.kind == .truncated)
        #expect(truncated.line == 4)
        let undated = try #require(importError(bad("igc-no-date.igc"), format: .igc))
        #expect(undated.kind == .badTime)
        #expect(undated.line == 2)
    }

    @Test func missingSource() throws {
        let error = try #require(importError("/nonexistent/export.csv"))
        #expect(error.kind == .missingSource)
    }

    /// A first time stamp that is no date (a time column in the wrong unit, or 1e300) is a typed error, never a trap
    /// converting it to microseconds.
    @Test func originThatIsNoDate() throws {
        for epoch in [1e300, -1e300, 253_402_300_800.0, .nan, .infinity] {
            let context = ImportContext(options: ImportOptions(), outputDirectory: NSTemporaryDirectory() + "eddy-origin-\(UUID())")
            context.filesRead = ["Accelerometer.csv"]
            do {
                _ = try context.begin(kinds: [.accelerometer], originEpochSeconds: epoch)
                Issue.record("\(epoch) was taken as a time origin")
            } catch {
                #expect(error.kind == .badTime)
                #expect(error.file == "Accelerometer.csv")
                #expect(error.description.contains("unit"))
            }
        }
    }
}
