// libFuzzer entry point for every Eddy fuzz target (docs/reliability.md, "Fuzzing"). Built only with EDDY_FUZZ=1 and
// `-sanitize=fuzzer,address -parse-as-library` (`make fuzz`); EDDY_FUZZ_TARGET names the target a process runs.
// Each target feeds the bytes to one parser and checks invariants beyond "no crash" where they are cheap; a broken
// invariant calls `fatalError`, which libFuzzer reports as a crash with the input saved.
import EddyCLIParsing
import EddyH3
import EddyImport
import EddyProtocol
import EddySensorLog
import EddyTerrain
import EddyVocabulary
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The targets, by the name EDDY_FUZZ_TARGET gives.
let fuzzTargets: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
    "csv": FuzzCSV.run,
    "meta": FuzzMeta.run,
    "import": FuzzImport.run,
    "request": FuzzRequest.run,
    "response": FuzzResponse.run,
    "h3": FuzzH3.run,
    "cli": FuzzCLI.run,
    "hgt": FuzzHGT.run,
]

/// The target this process runs (read once).
let selectedTarget: @Sendable (UnsafeRawBufferPointer) -> Void = {
    let name = ProcessInfo.processInfo.environment["EDDY_FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(Data("eddy-fuzz: set EDDY_FUZZ_TARGET to one of \(fuzzTargets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The process entry point. SwiftPM links an executable target's `main` to `<Module>_main`; with `-parse-as-library`
/// and no `@main` that symbol is ours to define: it hands the arguments to libFuzzer's driver.
@_cdecl("EddyFuzz_main")
public func eddyFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return llvmFuzzerRunDriver(&count, &arguments) { start, size in
        fuzzTestOneInput(start.map(UnsafeRawPointer.init), size)
    }
}

/// libFuzzer's per-input call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    selectedTarget(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}

/// Breaks an invariant: libFuzzer reports the crash and saves the input.
func violated(_ message: String) -> Never {
    fatalError("invariant violated: \(message)")
}

/// A private scratch directory for this process (the hgt target's tile file).
let scratchDirectory: String = {
    // tmpfs when there is one.
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
    let path = base + "eddy-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// An error's text must be printable: no control bytes but line feeds (the product escapes input it quotes).
func checkPrintable(_ error: any Error) {
    let text = "\(error)"
    if text.utf8.contains(where: { $0 < 0x20 && $0 != 0x0A }) { violated("control byte in error text: \(text.debugDescription)") }
}

/// The sensor-log CSV reader: byte 0 picks the file (accelerometer, gyroscope, barometer, location) and lenient mode;
/// the rest is that file. Invariants: every sample finite where required, `t` never decreasing within a file,
/// positions in range; a strict read that succeeds skips nothing; error texts printable.
///
/// In memory (`FlightLogReader(meta:files:options:)`): the reader's header and row parsing, checks, errors and merge
/// are the code a file goes through, fed in the chunks read(2) gives; not exercised here are open/read themselves,
/// the directory and file-existence checks and meta.json loading (meta.json decoding is the `meta` target).
enum FuzzCSV {
    static let meta: FlightMeta = {
        guard let meta = try? FlightMeta.decode(Data(#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"small"}}"#.utf8)) else {
            violated("the fuzz meta.json does not decode")
        }
        return meta
    }()
    static let kinds: [SensorFileKind] = [.accelerometer, .gyroscope, .barometer, .location]
    static let minimalAccelerometer = Array("t,ax,ay,az\n0,0,0,1\n".utf8)

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let first = data.first else { return }
        let kind = kinds[Int(first & 3)]
        let lenient = first & 4 != 0
        var files: [SensorFileKind: [UInt8]] = [.accelerometer: minimalAccelerometer]
        files[kind] = Array(data[1...])
        let reader: FlightLogReader
        do {
            reader = try FlightLogReader(meta: meta, files: files, options: .init(lenient: lenient))
        } catch {
            checkPrintable(error)
            return
        }
        var last: [Double] = [-.infinity, -.infinity, -.infinity, -.infinity]
        do {
            while let sample = try reader.next() {
                let (file, t): (Int, Double)
                switch sample {
                case .accelerometer(let a):
                    guard a.x.isFinite, a.y.isFinite, a.z.isFinite else { violated("non-finite acceleration") }
                    (file, t) = (0, a.t)
                case .gyroscope(let g):
                    guard g.x.isFinite, g.y.isFinite, g.z.isFinite else { violated("non-finite rotation") }
                    (file, t) = (1, g.t)
                case .barometer(let b):
                    guard b.pressureHectopascals > 0, b.pressureHectopascals < 2000 else { violated("pressure out of range") }
                    (file, t) = (2, b.t)
                case .location(let l):
                    guard (-90...90).contains(l.latitudeDegrees), (-180...180).contains(l.longitudeDegrees) else {
                        violated("position out of range")
                    }
                    (file, t) = (3, l.t)
                }
                guard t.isFinite else { violated("non-finite t") }
                if t < last[file] { violated("t went backwards in \(kinds[file].fileName)") }
                last[file] = t
            }
            if !lenient, !reader.skippedLines.isEmpty { violated("strict read skipped lines") }
        } catch {
            // A clear error is the right answer to bad input; its text must be printable.
            checkPrintable(error)
        }
    }
}

/// meta.json: a document that decodes re-encodes to one that decodes to the same value.
enum FuzzMeta {
    static func run(_ data: UnsafeRawBufferPointer) {
        guard let meta = try? FlightMeta.decode(Data(data)) else { return }
        guard let encoded = try? meta.encoded() else { violated("a decoded meta.json does not encode") }
        guard let again = try? FlightMeta.decode(encoded) else { violated("re-encoded meta.json does not decode") }
        guard again == meta else { violated("meta.json round trip changed the value") }
    }
}

/// Every importer: byte 0 picks the file name (format tell-tales, bits 0–2), a forced format (bit 7 set: bits 3–5) and
/// a folder (bit 6: the rest is files separated by NUL bytes, each its name, a line feed, its contents); otherwise the
/// rest is one export file (a zip archive when it starts like one). An import that succeeds must leave a flight the
/// strict reader reads to the end; an error's text must be printable.
///
/// In memory (`ExportSource(name:bytes:)`, `ExportSource(folder:files:)`, `FlightImport.run(_:to:options:)`): format
/// detection, the zip reader and inflater, every importer, the sink and the flight writer's formatting and checks
/// are the code files go through; not exercised here are the system calls (open, read, pread, stat, write) and the
/// folder walk of an export on disk.
enum FuzzImport {
    static let names = ["export.csv", "Accelerometer.csv", "flight.igc", "export.zip", "sensor.txt", "physics.csv",
                        "andro.csv", "log.csv"]

    static func run(_ data: UnsafeRawBufferPointer) {
        guard let first = data.first else { return }
        let rest = Array(data[1...])
        let format: ImportFormat? = first & 0x80 == 0 ? nil : ImportFormat.allCases[Int((first >> 3) & 7) % ImportFormat.allCases.count]
        let source: ExportSource
        if first & 0x40 != 0 {
            var files: [String: [UInt8]] = [:]
            for part in nulSeparated(rest) {
                let newline = part.firstIndex(of: 0x0A) ?? part.endIndex
                let name = String(decoding: part[part.startIndex..<newline], as: UTF8.self)
                guard !name.isEmpty else { continue }
                files[name] = Array(part[min(newline + 1, part.endIndex)...])
            }
            source = ExportSource(folder: "export", files: files)
        } else {
            do {
                source = try ExportSource(name: names[Int(first & 7)], bytes: rest)
            } catch {
                checkPrintable(error)
                return
            }
        }
        let flight = InMemoryFlight()
        do {
            _ = try FlightImport.run(source, to: flight, options: ImportOptions(format: format))
        } catch {
            checkPrintable(error)
            return
        }
        do {
            guard let metaJSON = flight.metaJSON else { violated("an import succeeded without meta.json") }
            let reader = try FlightLogReader(meta: try FlightMeta.decode(metaJSON), files: flight.files)
            while try reader.next() != nil {}
        } catch {
            violated("an imported flight does not read back: \(error)")
        }
    }

    /// The non-empty runs between NUL bytes (found with C's memchr: the instrumented `split` traced every byte).
    static func nulSeparated(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                let end = memchr(base + start, 0, buffer.count - start).map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? buffer.count
                if end > start { parts.append(bytes[start..<end]) }
                start = end + 1
            }
        }
        return parts
    }
}

/// The server's request bodies: each route's JSONDecoder decode (what JSONResponse.decode does) and the canonical
/// report-batch fast path, which must agree with JSONDecoder whenever it accepts, and re-encode to the same value.
enum FuzzRequest {
    static func run(_ data: UnsafeRawBufferPointer) {
        let body = Data(data)
        let decoder = JSONDecoder()
        _ = try? decoder.decode(SessionStartRequest.self, from: body)
        _ = try? decoder.decode(DeltaFetchRequest.self, from: body)
        _ = try? decoder.decode(PositionUploadBody.self, from: body)
        let slow = try? decoder.decode(ReportBatch.self, from: body)
        if let fast = CanonicalReportBatch.decode(body) {
            guard let slow else { violated("canonical batch accepted what JSONDecoder refuses") }
            guard slow == fast else { violated("canonical batch decode differs from JSONDecoder") }
            if let encoded = CanonicalReportBatch.encode(fast), CanonicalReportBatch.decode(encoded) != fast {
                violated("canonical batch round trip changed the value")
            }
        }
    }
}

/// The client's response bodies: JSONDecoder for each answer, and the canonical turbulence fast path, which must agree
/// with JSONDecoder whenever it accepts.
enum FuzzResponse {
    static func run(_ data: UnsafeRawBufferPointer) {
        let body = Data(data)
        let decoder = JSONDecoder()
        _ = try? decoder.decode(SessionStartResponse.self, from: body)
        _ = try? decoder.decode(ReportBatchAck.self, from: body)
        _ = try? decoder.decode(TickResponse.self, from: body)
        _ = try? decoder.decode(ErrorBody.self, from: body)
        let slow = try? decoder.decode(DeltaFetchResponse.self, from: body)
        if let fast = CanonicalTurbulenceDecoder.decode(body) {
            guard let slow else { violated("canonical fetch answer accepted what JSONDecoder refuses") }
            guard slow == fast else { violated("canonical fetch decode differs from JSONDecoder") }
        }
    }
}

/// H3: string → index → string round trip; a valid cell's centre lies in the cell; a position (two doubles from the
/// input) gives a valid cell at the asked resolution, or a typed error.
enum FuzzH3 {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        if let index = H3Index(string: text) {
            let printed = String(index.rawValue, radix: 16)
            guard H3Index(string: printed) == index else { violated("H3 string round trip: \(text.debugDescription)") }
            if H3.isValidCell(index) {
                guard let centre = try? H3.cellToLatLng(index) else { violated("valid cell without a centre") }
                guard let back = try? H3.latLngToCell(centre, resolution: index.resolution), back == index else {
                    violated("centre of \(printed) is not in it")
                }
                _ = try? H3.cellToBoundary(index)
                _ = try? H3.gridDisk(index, k: 1)
                if index.resolution > 0 { _ = try? H3.cellToParent(index, resolution: index.resolution - 1) }
            }
        }
        if data.count >= 17 {
            let latitude = data.loadUnaligned(fromByteOffset: 0, as: Double.self)
            let longitude = data.loadUnaligned(fromByteOffset: 8, as: Double.self)
            let resolution = Int(data[16] % 17) - 1  // -1 and 16: invalid resolutions, must be refused
            if let cell = try? H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: resolution) {
                guard H3.isValidCell(cell), cell.resolution == resolution else { violated("latLngToCell gave an invalid cell") }
            } else if latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180, (0...15).contains(resolution) {
                violated("latLngToCell refused a valid position")
            }
        }
    }
}

/// The command line's parsers: coordinates, cells, routes/polygons, tiles, GeoJSON polygons; what they accept is
/// in range.
enum FuzzCLI {
    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        if let (lat, lon) = try? CoordinateText.latLon(Substring(text)), !(lat.isFinite && lon.isFinite) {
            violated("latLon accepted a non-finite value")
        }
        if let cell = try? CoordinateText.cell(Substring(text)), !H3.isValidCell(cell) { violated("cell accepted an invalid cell") }
        if let points = try? CoordinateText.points(text, option: "--route") {
            for p in points where !(p.latitude.isFinite && abs(p.latitude) <= 90 && abs(p.longitude) <= 180) {
                violated("points accepted \(p)")
            }
        }
        _ = try? CoordinateText.tiles(text)
        if let rings = try? GeoJSONPolygon.rings(from: Data(data)) {
            guard !rings.isEmpty else { violated("no rings accepted") }
            for ring in rings where !ring.isEmpty && ring.count < 3 { violated("ring with \(ring.count) positions accepted") }
        }
        do {
            _ = try CoordinateText.points(text, option: "--polygon")
        } catch {
            if error.message.count > 400 { violated("error message is \(error.message.count) characters") }
            if error.message.utf8.contains(where: { $0 < 0x20 }) { violated("control byte in error message") }
        }
    }
}

/// SRTM `.hgt` reading: the tile-name parser on the input's text, and elevations from a 3″ tile whose posts near the
/// queried position come from the input. Invariants: a name that parses prints back to itself (upper-cased);
/// an elevation is a post value (or a weighted mean of them) within Int16 range, or void.
enum FuzzHGT {
    static let tileDirectory: String = {
        let path = scratchDirectory + "/hgt"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path + "/N46E008.hgt", contents: Data(count: SRTMTileSize.threeArcSecond.byteCount))
        return path
    }()
    static let directory: TerrainDirectory = {
        guard let d = try? TerrainDirectory(path: tileDirectory, cacheTiles: 1) else { violated("cannot open the fuzz tile directory") }
        return d
    }()
    static let fd: Int32 = open(tileDirectory + "/N46E008.hgt", O_WRONLY)

    static func run(_ data: UnsafeRawBufferPointer) {
        let text = String(decoding: data, as: UTF8.self)
        if let corner = TerrainDirectory.tileCorner(fileName: text) {
            let name = TerrainDirectory.tileFileName(southLatitude: corner.south, westLongitude: corner.west)
            guard name.lowercased() == text.lowercased() else { violated("tile name \(text.debugDescription) prints as \(name)") }
        }
        guard data.count >= 4 else { return }
        // Position inside N46E008 from bytes 0…3; the posts around it from the rest of the input.
        let fy = Double(UInt16(data[0]) << 8 | UInt16(data[1])) / 65535
        let fx = Double(UInt16(data[2]) << 8 | UInt16(data[3])) / 65535
        let last = 1200
        let row = last - min(Int(fy * Double(last)), last - 1) - 1
        let column = min(Int(fx * Double(last)), last - 1)
        var posts = [UInt8](repeating: 0, count: 8)
        for i in 0..<min(8, data.count - 4) { posts[i] = data[4 + i] }
        for r in 0..<2 {
            let offset = off_t(((row + r) * 1201 + column) * 2)
            _ = posts.withUnsafeBytes { pwrite(fd, $0.baseAddress! + 4 * r, 4, offset) }
        }
        let latitude = 46 + fy, longitude = 8 + fx
        do {
            switch try directory.elevationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude) {
            case .meters(let m): guard m.isFinite, m >= -32767, m <= 32767 else { violated("elevation \(m)") }
            case .void: break
            case .noTile: violated("no tile for a position inside N46E008")
            }
        } catch {
            violated("elevation threw \(error)")
        }
    }
}
