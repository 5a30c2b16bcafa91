// What `eddy` does when built without the `Tools` trait (a plain `swift build`): its dependencies were left out, so it
// only says how to build it (Package.swift, trait `Tools`).
#if !Tools
import Foundation

/// The entry point of a `eddy` built without the `Tools` trait.
@main
enum WithoutTools {
    /// Says how to build the real `eddy`, and exits 2.
    static func main() {
        FileHandle.standardError.write(Data("""
            eddy was built without the Tools trait, which brings the command line's and the server's dependencies: \
            build it with `make`, or `swift build --traits LibcurlTransport,Tools`

            """.utf8))
        exit(2)
    }
}
#endif
