import Eddy
import EddyStore
import EddyTesting
import Foundation
import Testing

@Suite struct EngineTypedStoreErrorTests {
    @Test func aStoreThatCannotOpenIsEddyErrorStoreWithTheStoreError() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let blocker = folder.path("not-a-folder")
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let storePath = blocker + "/engine/e.sqlite"
        do {
            _ = try EddyEngine(configuration: EddyConfiguration(storePath: storePath, delivery: .callerThread))
            Issue.record("the engine opened a store under a regular file")
        } catch {
            guard case let .store(.cannotOpen(path, _)) = error else {
                Issue.record("expected EddyError.store(.cannotOpen), got \(error)")
                return
            }
            #expect(path == storePath)
            #expect(error.description.hasPrefix("local store failed: cannot open the store at \(storePath)"))
            #expect(error.description.contains("Check that the folder exists and is writable"))
        }
    }
}
