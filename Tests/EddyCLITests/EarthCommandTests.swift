import Foundation
import Testing

/// Runs `eddy` with `input` on its standard input (small inputs: written whole, then closed).
private func eddy(_ arguments: [String], input: String) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = try Package.executable("eddy")
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// Writes a 3″ tile (1201 × 1201 big-endian Int16) whose posts come from `height(row, column)`.
private func writeTile(_ path: String, height: (Int, Int) -> Int16) throws {
    var bytes = [UInt8](repeating: 0, count: 1201 * 1201 * 2)
    for row in 0..<1201 {
        for column in 0..<1201 {
            let value = UInt16(bitPattern: height(row, column))
            bytes[(row * 1201 + column) * 2] = UInt8(value >> 8)
            bytes[(row * 1201 + column) * 2 + 1] = UInt8(value & 0xFF)
        }
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

@Suite("eddy geoid / eddy terrain")
struct EarthCommandTests {
    @Test("geoid undulation: one N per line, blank lines skipped")
    func geoid() throws {
        let result = try eddy(["geoid", "undulation"], input: "47,8\n\n 90 , 12 \n-90,-180\n")
        #expect(result.status == 0)
        #expect(result.stdout == "48.39\n13.61\n-29.53\n")
    }

    @Test("geoid undulation: the first bad line stops with stdin:LINE on stderr, earlier output kept")
    func geoidBadLine() throws {
        let result = try eddy(["geoid", "undulation"], input: "47,8\n\n91,0\n0,0\n")
        #expect(result.status == 1)
        #expect(result.stdout == "48.39\n")
        #expect(result.stderr == "stdin:3: latitude 91.0 is outside -90...90 degrees\n")
        let garbage = try eddy(["geoid", "undulation"], input: "47;8\n")
        #expect(garbage.status == 1)
        #expect(garbage.stderr.hasPrefix("stdin:1: expected 'lat,lon'"))
        let nan = try eddy(["geoid", "undulation"], input: "nan,8\n")
        #expect(nan.stderr.hasPrefix("stdin:1: latitude and longitude must be finite"))
    }

    @Test("terrain elevation: metres, void and no-tile; bad lines and bad tiles stop with stdin:LINE")
    func terrain() throws {
        let dir = NSTemporaryDirectory() + "eddy-cli-terrain-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 1000 m everywhere except a void block in the north-west corner (rows and columns 0...9).
        try writeTile(dir + "/N47E008.hgt") { r, c in r < 10 && c < 10 ? Int16.min : 1000 }
        try Data(count: 100).write(to: URL(fileURLWithPath: dir + "/N10E010.hgt"))

        let good = try eddy(["terrain", "elevation", "--dem", dir], input: "47.5,8.5\n47.999,8.001\n0,0\n48,9\n")
        #expect(good.status == 0)
        #expect(good.stdout == "1000.0\nvoid\nno-tile\n1000.0\n")

        let bad = try eddy(["terrain", "elevation", "--dem", dir], input: "47.5,8.5\n0,181\n")
        #expect(bad.status == 1)
        #expect(bad.stdout == "1000.0\n")
        #expect(bad.stderr.hasPrefix("stdin:2: position (0.0, 181.0): "))

        let badTile = try eddy(["terrain", "elevation", "--dem", dir], input: "10.5,10.5\n")
        #expect(badTile.status == 1)
        #expect(badTile.stderr.hasPrefix("stdin:1: \(dir)/N10E010.hgt: 100 bytes is not an SRTM tile"))

        let missing = try eddy(["terrain", "elevation", "--dem", dir + "/nope"], input: "47.5,8.5\n")
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("\(dir)/nope: DEM directory not found"))
    }
}
