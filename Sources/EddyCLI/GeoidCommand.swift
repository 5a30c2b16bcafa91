#if Tools
import ArgumentParser
import EddyCLIParsing
import EddyGeoid
import Foundation

/// `eddy geoid`: EGM96 geoid tools for outside checks (stdin → stdout, one item per line).
struct GeoidCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geoid",
        abstract: "EGM96 geoid tools: read `lat,lon` lines (degrees) on stdin, write one value per line.",
        discussion: """
            The first bad line stops the batch with `stdin:LINE: what is wrong` on stderr (exit status 1); the \
            output for the lines before it is complete. Blank lines are skipped.
            """,
        subcommands: [Undulation.self]
    )

    /// `eddy geoid undulation`: `lat,lon` → N in metres (HAE = MSL + N).
    struct Undulation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undulation",
            abstract: "Input `lat,lon` (latitude -90...90, longitude any finite value, wrapped); output the EGM96 "
                + "undulation N in metres (HAE = MSL + N), 15' grid, bilinear.")

        func run() throws {
            try EarthLineTool.run { line throws(EarthLineError) in
                let (latitude, longitude) = try EarthLineTool.parseLatLon(line)
                guard let n = EGM96.undulationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude) else {
                    throw EarthLineError(message: "latitude \(latitude) is outside -90...90 degrees")
                }
                return n.description
            }
        }
    }
}

/// A bad input line for `eddy geoid` / `eddy terrain`: what is wrong and what to do.
struct EarthLineError: Error {
    /// Human-readable message.
    let message: String
}

/// Line-oriented stdin → stdout driver shared by `eddy geoid` and `eddy terrain`.
enum EarthLineTool {
    /// Streams stdin line by line (memory stays flat for any input size), calls `body` for each non-blank (trimmed)
    /// line and prints its result on its own line; on the first bad line prints what was produced so far, then
    /// `stdin:LINE: message` on stderr, and exits 1.
    static func run(_ body: (Substring) throws(EarthLineError) -> String) throws {
        var out = ""
        out.reserveCapacity(1 << 16)
        var lineNumber = 0
        while let rawLine = readLine(strippingNewline: true) {
            lineNumber += 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            do {
                out += try body(Substring(line))
                out += "\n"
            } catch {
                FileHandle.standardOutput.write(Data(out.utf8))
                FileHandle.standardError.write(Data("stdin:\(lineNumber): \(error.message)\n".utf8))
                throw ExitCode(1)
            }
            if out.utf8.count >= 1 << 16 {
                FileHandle.standardOutput.write(Data(out.utf8))
                out.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// Parses `lat,lon` in decimal degrees; both must be finite (`CoordinateText.latLon`).
    static func parseLatLon(_ line: Substring) throws(EarthLineError) -> (Double, Double) {
        do { return try CoordinateText.latLon(line) } catch { throw EarthLineError(message: error.message) }
    }
}
#endif
