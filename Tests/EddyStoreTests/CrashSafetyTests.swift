import EddyTesting
import Foundation
import Testing
@testable import EddyStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the `eddy-store-crash-writer` executable built next to the test bundle.
func crashWriterURL() -> URL? { builtExecutable("eddy-store-crash-writer") }

/// Finds an executable product built next to the test bundle (`swift build --build-tests` builds every product).
func builtExecutable(_ name: String) -> URL? { BuiltExecutable.locate(name) }

@Suite("Crash safety: SIGKILL during writes")
struct CrashSafetyTests {
    @Test func everyAcknowledgedReportSurvivesRepeatedSIGKILL() throws {
        guard let writer = crashWriterURL() else {
            Issue.record("eddy-store-crash-writer not found: build it with `swift build --build-tests`")
            return
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("crash.sqlite")
        var generator = SystemRandomNumberGenerator()
        var acknowledged = Set<UUID>()
        var killsDuringWrites = 0
        let kills = 60
        for round in 0..<kills {
            let process = Process()
            process.executableURL = writer
            process.arguments = [path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Random moment: every tenth kill during start-up / opening; the others once the loop has started
            // writing (its first acknowledgement arrived — waiting for it keeps the test meaningful on a loaded
            // machine), after a further random delay.
            var data = Data()
            if round % 10 == 0 {
                usleep(UInt32.random(in: 0...30_000, using: &generator))
            } else {
                let chunk = output.fileHandleForReading.availableData  // blocks until the first write is acknowledged
                #expect(!chunk.isEmpty, "round \(round): the writer ended before writing")
                data.append(chunk)
                usleep(UInt32.random(in: 0...150_000, using: &generator))
            }
            #expect(kill(process.processIdentifier, SIGKILL) == 0)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the writer stopped by itself (round \(round))")
            data.append(output.fileHandleForReading.readDataToEndOfFile())
            let text = String(decoding: data, as: UTF8.self)
            // Only complete lines are acknowledgements (a line cut by the kill is not).
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            var newIDs = 0
            for line in lines {
                guard let id = UUID(uuidString: String(line)) else {
                    Issue.record("unexpected writer output: \(line)")
                    continue
                }
                if acknowledged.insert(id).inserted { newIDs += 1 }
            }
            if newIDs > 0 { killsDuringWrites += 1 }

            let store = try EddyStore.open(path: path)
            #expect(store.openOutcome == .opened || (store.openOutcome == .created && acknowledged.isEmpty),
                    "round \(round): \(String(describing: store.openOutcome))")
            #expect(try store.integrityCheck() == ["ok"], "round \(round)")
            let stored = try store.ownReportIDs()
            let lost = acknowledged.subtracting(stored)
            #expect(lost.isEmpty, "round \(round): \(lost.count) acknowledged reports lost")
            try store.close()
        }
        print("crash-safety: \(kills) SIGKILLs, \(acknowledged.count) acknowledged reports, 0 lost, \(killsDuringWrites) kills after writes had begun")
        // The test is only meaningful if most kills landed while the loop was writing.
        #expect(killsDuringWrites >= kills / 2)
        #expect(acknowledged.count > 100)
    }
}
