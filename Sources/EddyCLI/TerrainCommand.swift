#if Tools
import ArgumentParser
import EddyTerrain
import Foundation

/// `eddy terrain`: SRTM terrain tools (stdin → stdout, one item per line).
struct TerrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terrain",
        abstract: "SRTM terrain tools: read `lat,lon` lines (degrees) on stdin, write one value per line.",
        subcommands: [Elevation.self]
    )

    /// `eddy terrain elevation --dem DIR`: `lat,lon` → metres, `void` or `no-tile`.
    struct Elevation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "elevation",
            abstract: "Input `lat,lon` (latitude -90...90, longitude -180...180); output the bilinear SRTM "
                + "elevation in metres above the EGM96 geoid, `void` (no data around the point) or `no-tile` "
                + "(no tile in DIR covers it).",
            discussion: """
                DIR holds SRTM .hgt tiles (N47E008.hgt or n47e008.hgt; 1″ 3601×3601 or 3″ 1201×1201). The first \
                bad line (not `lat,lon`, not finite, out of range) or a bad tile file stops the batch with \
                `stdin:LINE: what is wrong` on stderr (exit status 1); the output for the lines before it is \
                complete. Blank lines are skipped.
                """
        )

        @Option(name: .long, help: "Directory of SRTM .hgt tiles.")
        var dem: String

        @Option(name: .long, help: "Most tiles kept memory-mapped at once (≥ 1).")
        var cacheTiles: Int = 8

        func run() throws {
            let directory: TerrainDirectory
            do {
                directory = try TerrainDirectory(path: dem, cacheTiles: cacheTiles)
            } catch {
                FileHandle.standardError.write(Data("eddy terrain elevation: \(error)\n".utf8))
                throw ExitCode(1)
            }
            try EarthLineTool.run { line throws(EarthLineError) in
                let (latitude, longitude) = try EarthLineTool.parseLatLon(line)
                let elevation: TerrainElevation
                do throws(TerrainError) {
                    elevation = try directory.elevationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude)
                } catch {
                    throw EarthLineError(message: error.description)
                }
                switch elevation {
                case .meters(let meters): return meters.description
                case .void: return "void"
                case .noTile: return "no-tile"
                }
            }
        }
    }
}
#endif
