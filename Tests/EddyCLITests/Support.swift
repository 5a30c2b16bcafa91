import EddyTesting
import Foundation

/// A failure of the test harness itself (a missing binary).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// Paths of the package, its fixtures and its built executables, found from this file's location.
enum Package {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func flight(_ name: String) -> String { root.appendingPathComponent("Fixtures/flights/\(name)").path }

    /// An executable of this package's build (EddyTesting's lookup).
    static func executable(_ name: String) throws -> URL {
        guard let url = BuiltExecutable.locate(name) else {
            throw HarnessError(description: "\(name) not built: run `swift build --build-tests`")
        }
        return url
    }
}

/// Runs `eddy` with arguments.
func eddy(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessOutput {
    try BuiltExecutable.run(try Package.executable("eddy"), arguments, environment: environment)
}
