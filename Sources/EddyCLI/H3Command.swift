#if Tools
import ArgumentParser
import EddyCLIParsing
import EddyH3
import Foundation

/// `eddy h3`: batch H3 tools for outside checks (stdin → stdout, one item per line).
struct H3Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "h3",
        abstract: "H3 v4.5.0 tools: read stdin, write stdout, one item per line (positions in degrees).",
        discussion: """
            Invalid input stops the batch with an error on stderr naming the line (exit status 1); the output
            for the lines before it is complete. Blank lines are skipped.
            """,
        subcommands: [
            LatLngToCell.self, CellToLatLng.self, CellToBoundary.self, GridDisk.self, PolygonToCells.self,
        ]
    )

    /// `eddy h3 latlng-to-cell --res R`: `lat,lng` → hex cell id.
    struct LatLngToCell: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latlng-to-cell", abstract: "Input `lat,lng` in degrees; output the hex cell id.")

        @Option(name: .long, help: "Resolution 0–15.")
        var res: Int

        func validate() throws {
            guard (0...15).contains(res) else { throw ValidationError("--res must be 0...15, got \(res)") }
        }

        func run() throws {
            try H3LineTool.run { line, out in
                let (lat, lng) = try H3LineTool.parseLatLng(line)
                let cell = try H3.latLngToCell(latitude: lat, longitude: lng, resolution: res)
                out.append(cell)
            }
        }
    }

    /// `eddy h3 cell-to-latlng`: hex cell id → `lat,lng` (17 significant digits).
    struct CellToLatLng: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cell-to-latlng", abstract: "Input a hex cell id; output its centre `lat,lng` (degrees).")

        func run() throws {
            try H3LineTool.run { line, out in
                let centre = try H3.cellToLatLng(try H3LineTool.parseCell(line))
                out.append(centre.latitude)
                out.append(byte: UInt8(ascii: ","))
                out.append(centre.longitude)
            }
        }
    }

    /// `eddy h3 cell-to-boundary`: hex cell id → `lat,lng;lat,lng;…`.
    struct CellToBoundary: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cell-to-boundary",
            abstract: "Input a hex cell id; output its boundary `lat,lng;lat,lng;…` (degrees).")

        func run() throws {
            try H3LineTool.run { line, out in
                let boundary = try H3.cellToBoundary(try H3LineTool.parseCell(line))
                for (i, v) in boundary.enumerated() {
                    if i > 0 { out.append(byte: UInt8(ascii: ";")) }
                    out.append(v.latitude)
                    out.append(byte: UInt8(ascii: ","))
                    out.append(v.longitude)
                }
            }
        }
    }

    /// `eddy h3 grid-disk --k K`: hex cell id → ids within distance K, space separated.
    struct GridDisk: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grid-disk", abstract: "Input a hex cell id; output the ids within grid distance K.")

        @Option(name: .long, help: "Grid distance k ≥ 0.")
        var k: Int

        func validate() throws {
            guard k >= 0 else { throw ValidationError("--k must be ≥ 0, got \(k)") }
        }

        func run() throws {
            try H3LineTool.run { line, out in
                let disk = try H3.gridDisk(try H3LineTool.parseCell(line), k: k)
                for (i, cell) in disk.enumerated() {
                    if i > 0 { out.append(byte: UInt8(ascii: " ")) }
                    out.append(cell)
                }
            }
        }
    }

    /// `eddy h3 polygon-to-cells --res R`: one GeoJSON Polygon on stdin → one id per line.
    struct PolygonToCells: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "polygon-to-cells",
            abstract: "Input one GeoJSON Polygon (or a Feature holding one); output the ids of the cells whose "
                + "centre lies inside, one per line.")

        @Option(name: .long, help: "Resolution 0–15.")
        var res: Int

        func validate() throws {
            guard (0...15).contains(res) else { throw ValidationError("--res must be 0...15, got \(res)") }
        }

        func run() throws {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let rings: [[LatLng]]
            do {
                rings = try GeoJSONPolygon.rings(from: data)
            } catch {
                FileHandle.standardError.write(Data("eddy h3 polygon-to-cells: \(error.message)\n".utf8))
                throw ExitCode(1)
            }
            let cells: [H3Index]
            do {
                cells = try H3.polygonToCells(outer: rings[0], holes: Array(rings.dropFirst()), resolution: res)
            } catch {
                FileHandle.standardError.write(Data("eddy h3 polygon-to-cells: \(error)\n".utf8))
                throw ExitCode(1)
            }
            var out = H3OutputBuffer()
            for cell in cells {
                out.append(cell)
                out.append(byte: UInt8(ascii: "\n"))
            }
            out.flush()
        }
    }
}
#endif
