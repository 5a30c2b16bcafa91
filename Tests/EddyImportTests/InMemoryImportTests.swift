import EddySensorLog
import Foundation
import Testing
@testable import EddyImport

/// The in-memory entry point the `import` fuzz target uses (docs/reliability.md §7) gives what the file-based import
/// gives, and the fuzzer's findings stay fixed.
@Suite struct InMemoryImportTests {
    private func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A single-file export and a zip archive, imported from memory into memory, give byte for byte the flight the
    /// file-based import writes.
    @Test(arguments: ["sensorlog/sensorlog.csv", "igc/flight.igc", "sensorlogger/sensorlogger.zip"])
    func sameFlightAsFromFiles(_ relative: String) throws {
        let path = ImportFixtures.path(relative)
        let out = TempDirectory()
        let fromFiles = try FlightImport.run(source: path, to: out.path)
        let flight = InMemoryFlight()
        let fromMemory = try FlightImport.run(
            try ExportSource(name: (path as NSString).lastPathComponent, bytes: try bytes(path)), to: flight)
        #expect(fromMemory.format == fromFiles.format)
        #expect(fromMemory.sensors == fromFiles.sensors)
        #expect(flight.metaJSON.map(Array.init) == (try bytes(out.file("meta.json"))))
        for kind in SensorFileKind.allCases {
            let onDisk = FileManager.default.fileExists(atPath: out.file(kind.fileName)) ? try bytes(out.file(kind.fileName)) : nil
            #expect(flight.files[kind] == onDisk, "\(kind.fileName)")
        }
    }

    /// A folder export held in memory is detected and imported like the folder on disk.
    @Test func folderSameAsOnDisk() throws {
        let root = ImportFixtures.path("phyphox/export")
        var files: [String: [UInt8]] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: root)! {
            var isDirectory: ObjCBool = false
            let full = (root as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { files[name] = try bytes(full) }
        }
        let out = TempDirectory()
        let fromFiles = try FlightImport.run(source: root, to: out.path)
        let flight = InMemoryFlight()
        let fromMemory = try FlightImport.run(ExportSource(folder: "export", files: files), to: flight)
        #expect(fromMemory.format == .phyphox)
        #expect(fromMemory.sensors == fromFiles.sensors)
        #expect(flight.files[.accelerometer] == (try bytes(out.file("accelerometer.csv"))))
    }

    /// Fuzz finding (import target): a file name inside an export (a folder's file, a zip entry) was quoted raw in
    /// the unknown-format message and as the error's file, so a control byte in it reached the terminal. Now
    /// escaped as `\x11`, from disk and from memory alike.
    @Test func controlBytesInExportFileNamesAreEscaped() throws {
        let folder = TempDirectory()
        let name = "junk\u{11}.csv"
        _ = folder.write("export/" + name, Array("a,b\n1,2\n".utf8))
        let diskError = try #require(importError(folder.file("export")))
        #expect(diskError.kind == .unknownFormat)
        let memoryError: ImportError
        do {
            _ = try FlightImport.run(ExportSource(folder: "export", files: [name: Array("a,b\n1,2\n".utf8)]), to: InMemoryFlight())
            Issue.record("an unknown export was imported")
            return
        } catch {
            memoryError = error
        }
        for error in [diskError, memoryError] {
            let text = error.description
            #expect(!text.utf8.contains { $0 < 0x20 && $0 != 0x0A }, "control byte in \(text.debugDescription)")
            #expect(text.contains("junk\\x11.csv"))
        }
        #expect(diskError.description == memoryError.description)
        // The same escaping for a file name used as an error's file.
        let located = ImportError(kind: .io, file: "export.zip:a\u{1B}[2J.csv", line: 3, message: "read failed", advice: "")
        #expect(located.description == "export.zip:a\\x1b[2J.csv:3: read failed")
    }

    /// Fuzz finding (import target): a header cell with a control byte was quoted raw in the missing-columns message
    /// ("has: Time (s), Acceleration x\u{17}(m/s^2), …"). Every located error's text now escapes control bytes.
    @Test func controlBytesInHeaderCellsAreEscaped() throws {
        let csv = Array("\"Time (s)\",\"Acceleration x\u{17}(m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n3.217,0,0.049,9.8\n".utf8)
        let folder = TempDirectory()
        _ = folder.write("export/Accelerometer.csv", csv)
        let diskError = try #require(importError(folder.file("export")))
        let memoryError: ImportError
        do {
            _ = try FlightImport.run(ExportSource(folder: "export", files: ["Accelerometer.csv": csv]), to: InMemoryFlight())
            Issue.record("a header without an x column was imported")
            return
        } catch {
            memoryError = error
        }
        #expect(diskError.kind == .missingColumns)
        #expect(diskError.description == memoryError.description)
        #expect(!diskError.description.utf8.contains { $0 < 0x20 && $0 != 0x0A }, "\(diskError.description.debugDescription)")
        #expect(diskError.description.contains("Acceleration x\\x17(m/s^2)"))
    }

    /// Found while speeding up detection: swift-corelibs-foundation's `lastPathComponent` traps on a name ending in `//`
    /// and one non-ASCII character, and the importers took base names through it (a single file's name, zip entries,
    /// folder files, the unknown-format message). Every such name now imports, from memory and from disk.
    @Test func namesEndingInDoubleSlashAndOneNonASCIICharacter() throws {
        let csv = try bytes(ImportFixtures.path("sensorlog/sensorlog.csv"))
        let single = try FlightImport.run(try ExportSource(name: "exports//é", bytes: csv), to: InMemoryFlight())
        #expect(single.format == .sensorlog)
        // A folder of one SensorLog file is no SensorLog export (that format is one file): a clear error, not a trap.
        #expect(throws: ImportError.self) {
            try FlightImport.run(ExportSource(folder: "export", files: ["sub//é": csv]), to: InMemoryFlight())
        }
        #expect(throws: ImportError.self) {
            try FlightImport.run(ExportSource(folder: "x//é", files: ["a//é": Array("a,b\n1,2\n".utf8)]), to: InMemoryFlight())
        }
        let disk = TempDirectory()
        _ = disk.write("é", csv)
        let fromDisk = try FlightImport.run(source: disk.path + "//é", to: disk.file("out"))
        #expect(fromDisk.format == .sensorlog)
    }

    /// Fuzz finding (import, the 10 M run, in its first second): a Sensor Logger barometer row of 10092.115 hPa (a
    /// mangled 1002.115) was written, and the flight then failed to read back ("pressure_hpa 10092.115 out of range").
    /// Every importer now refuses such a row with its file and line, as it does latitudes out of range.
    @Test func pressureOutOfRangeIsRefusedWithItsLine() throws {
        let barometer = "time,seconds_elapsed,relativeAltitude,pressure\n1795600000350000000,0.02,-0.29,1003.165\n1795600000550000000,0.18,-0.87,10092.115\n"
        let accelerometer = "time,seconds_elapsed,z,y,x\n1795600000263000000,0.0,0.1,0.2,9.8\n1795600000283000000,0.02,0.1,0.2,9.8\n"
        let error = try #require(importError(memory: ["Barometer.csv": barometer, "TotalAcceleration.csv": accelerometer], format: .sensorlogger))
        #expect(error.kind == .outOfRange)
        #expect(error.line == 3)
        #expect(error.description.contains("Barometer.csv:3"), "\(error)")
        #expect(error.description.contains("10092.115 hPa out of range"), "\(error)")
    }

    /// Fuzz finding (import, the 10 M run): an empty folder or zip with a forced format (detection skipped) reached the
    /// importer's `fileNames[0]` and trapped: `eddy import EMPTYDIR OUT --format sensorlog` crashed. Now a clear error,
    /// for every format, from memory and from disk.
    @Test(arguments: ImportFormat.allCases)
    func emptySourceWithAForcedFormatIsAnError(format: ImportFormat) throws {
        let error = try #require(importError(memory: [:], format: format))
        #expect(error.kind == .noSamples)
        #expect(error.description.contains("holds no files"), "\(error)")
        let empty = TempDirectory()
        let onDisk = try #require(importError(empty.path, format: format))
        #expect(onDisk.kind == .noSamples)
    }

    /// Fuzz finding (import, the 10 M run): a phyphox Location.csv row at t = 6.717e80 s was written, and the flight then
    /// did not read back (the reader refuses |t| > 1e11 s). The importers' time check now refuses it with its line;
    /// the writer refuses it too, as it now refuses every value the reader would (times, pressures, courses).
    @Test func timeBeyondTheReadersBoundIsRefusedWithItsLine() throws {
        let accelerometer = "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n3.217,0,0.05,9.8\n3.237,0,0.05,9.8\n"
        let location = "\"Time (s)\",\"Latitude (°)\",\"Longitude (°)\",\"Height (m)\",\"Velocity (m/s)\",\"Direction (°)\",\"Horizontal Accuracy (m)\",\"Vertical Accuracy (m)\"\n3.717,47.3771,8.54205,813.95,52.6,51.5,4.25,6\n6.717E+80,47.3783,8.54415,823.25,53.2,51.5,5.75,6\n"
        let error = try #require(importError(memory: ["Accelerometer.csv": accelerometer, "Location.csv": location], format: .phyphox))
        #expect(error.kind == .badTime)
        #expect(error.description.contains("Location.csv:3"), "\(error)")
    }

    /// Fuzz findings (import, the 10 M run): an IGC I record with a negative count (`I-3…`) trapped making the range of
    /// extensions, and an extension declared 40 digits wide would overflow an Int. Both are now located errors.
    @Test(arguments: [("I-33638FXA3940SIU4143ENL", "I record declares -3 extensions"),
                      ("I013675LAD", "LAD has too many digits")])
    func damagedIGCRecordsAreErrors(iRecord: String, message: String) throws {
        let b = "B2359584722614N00832502EA01450015020" + String(repeating: "9", count: 40)
        let igc = "AXXXABC Synthetic logger\r\nHFDTEDATE:251126,01\r\n\(iRecord)\r\n\(b)\r\n"
        do {
            _ = try FlightImport.run(try ExportSource(name: "flight.igc", bytes: Array(igc.utf8)), to: InMemoryFlight())
            Issue.record("imported \(iRecord)")
        } catch {
            #expect(error.kind == .notANumber)
            #expect(error.description.contains(message), "\(error)")
        }
    }
}
