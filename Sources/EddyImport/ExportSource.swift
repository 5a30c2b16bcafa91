import Foundation

/// What the user pointed at: one file, a folder of files, or a zip archive; files are opened as byte streams.
package final class ExportSource {
    /// The path given.
    package let path: String
    /// Relative names of the files it holds (one name for a single file), sorted.
    package let fileNames: [String]
    /// Whether the source is a zip archive.
    package var isZip: Bool { zip != nil }
    /// Whether the source is one plain file.
    package let isSingleFile: Bool
    private let zip: ZipArchive?
    private let zipEntries: [String: ZipArchive.Entry]
    /// The files' bytes by name when the export is held in memory (nil: on disk).
    private let memoryFiles: [String: [UInt8]]?
    /// Each lower-cased base name's shallowest file (`file(named:)`).
    private lazy var filesByBaseName: [String: String] = Self.indexByBaseName(fileNames)
    /// Header lines already read, by file name (nil inside: binary or empty).
    private var headerLines: [String: String?] = [:]

    /// Opens a file, folder or zip archive. Throws `ImportError` when it does not exist or the zip is unreadable.
    package init(path: String) throws(ImportError) {
        self.path = path
        memoryFiles = nil
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(kind: .missingSource, file: path, message: "no such file or folder", advice: "Pass an export file, an export folder or a .zip")
        }
        if isDirectory.boolValue {
            var names: [String] = []
            if let enumerator = FileManager.default.enumerator(atPath: path) {
                while let name = enumerator.nextObject() as? String {
                    if enumerator.level > 3 { enumerator.skipDescendants(); continue }
                    var childIsDirectory: ObjCBool = false
                    let full = (path as NSString).appendingPathComponent(name)
                    if FileManager.default.fileExists(atPath: full, isDirectory: &childIsDirectory), !childIsDirectory.boolValue,
                       !TextFastPaths.baseName(name).hasPrefix(".") {
                        names.append(name)
                    }
                }
            }
            fileNames = names.sorted()
            zip = nil; zipEntries = [:]; isSingleFile = false
        } else if ZipArchive.looksLikeZip(path: path) {
            let archive = try ZipArchive(path: path)
            zip = archive
            let listed = Self.listing(archive)
            zipEntries = listed.0; fileNames = listed.1
            isSingleFile = false
        } else {
            zip = nil; zipEntries = [:]; isSingleFile = true
            fileNames = [TextFastPaths.baseName(path)]
        }
    }

    /// The same source over bytes in memory (the fuzz targets' entry point, docs/reliability.md §7): `name` and one
    /// file's `bytes` stand for a single file, or for a zip archive when the bytes start like one (the archive then
    /// read by the same reader, from memory). Format detection, importers and errors are the code a file on disk goes
    /// through; only open(2), read(2), pread(2) and stat(2) are replaced by copies from `bytes`.
    package convenience init(name: String, bytes: [UInt8]) throws(ImportError) {
        if ZipArchive.looksLikeZip(head: Array(bytes.prefix(4))) {
            try self.init(path: name, archive: try ZipArchive(name: name, bytes: bytes))
        } else {
            self.init(path: name, files: [TextFastPaths.baseName(name): bytes], isSingleFile: true)
        }
    }

    /// The same source over an export folder held in memory: file names (relative, `/`-separated) and their bytes.
    package convenience init(folder: String, files: [String: [UInt8]]) {
        let kept = files.filter { name, _ in !name.hasSuffix("/") && !TextFastPaths.baseName(name).hasPrefix(".") }
        self.init(path: folder, files: kept, isSingleFile: false)
    }

    private init(path: String, files: [String: [UInt8]], isSingleFile: Bool) {
        self.path = path
        memoryFiles = files
        fileNames = files.keys.sorted()
        zip = nil; zipEntries = [:]
        self.isSingleFile = isSingleFile
    }

    private init(path: String, archive: ZipArchive) throws(ImportError) {
        self.path = path
        memoryFiles = nil
        zip = archive
        let listed = Self.listing(archive)
        zipEntries = listed.0; fileNames = listed.1
        isSingleFile = false
    }

    /// The archive's files (hidden files and macOS resource forks left out) by name, and their sorted names.
    private static func listing(_ archive: ZipArchive) -> ([String: ZipArchive.Entry], [String]) {
        let files = archive.entries.filter { entry in
            let base = TextFastPaths.baseName(entry.name)
            return !base.hasPrefix(".") && !entry.name.hasPrefix("__MACOSX/")
        }
        return (Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }), files.map(\.name).sorted())
    }

    /// The file whose base name equals `baseName` (case-insensitive), shallowest first (the first in sorted order among
    /// equally deep ones).
    package func file(named baseName: String) -> String? { filesByBaseName[baseName.lowercased()] }

    /// Each lower-cased base name's shallowest file, built once (detection asks for several names per format).
    private static func indexByBaseName(_ names: [String]) -> [String: String] {
        var index: [String: (name: String, depth: Int)] = [:]
        for name in names {
            let key = TextFastPaths.baseName(name).lowercased()
            let depth = Self.componentCount(name)
            if let known = index[key], known.depth <= depth { continue }
            index[key] = (name, depth)
        }
        return index.mapValues(\.name)
    }

    /// The number of non-empty `/`-separated components of a name (`a//b/` has 2).
    private static func componentCount(_ name: String) -> Int {
        var count = 0, previous: UInt8 = 0x2F
        for byte in name.utf8 {
            if previous == 0x2F, byte != 0x2F { count += 1 }
            previous = byte
        }
        return count
    }

    /// Name used in messages: `export.zip:Accelerometer.csv`, or the file name.
    func displayName(_ name: String) -> String {
        if let zip { return "\(zip.name):\(name)" }
        return name
    }

    /// Size in bytes of one file (uncompressed size for zip entries).
    func size(_ name: String) -> Int {
        if let entry = zipEntries[name] { return entry.uncompressedSize }
        if let memoryFiles { return memoryFiles[name]?.count ?? 0 }
        let full = isSingleFile ? path : (path as NSString).appendingPathComponent(name)
        let attributes = try? FileManager.default.attributesOfItem(atPath: full)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Total size of the given files (for progress).
    func totalSize(_ names: [String]) -> Int { names.reduce(0) { $0 + size($1) } }

    /// Opens one file as a byte stream.
    func open(_ name: String) throws(ImportError) -> any ByteSource {
        if let zip {
            guard let entry = zipEntries[name] else {
                throw ImportError(kind: .io, file: displayName(name), message: "not in the archive", advice: "Check the archive's contents")
            }
            return try zip.open(entry)
        }
        if let memoryFiles {
            guard let bytes = memoryFiles[name] else {
                throw ImportError(kind: .io, file: name, message: "cannot be opened (no such file)", advice: "Check the path and permissions")
            }
            return MemoryByteSource(bytes)
        }
        let full = isSingleFile ? path : (path as NSString).appendingPathComponent(name)
        return try FileByteSource(path: full, name: name)
    }

    /// The first `count` bytes of a file (fewer when it is shorter): for format detection.
    func prefix(_ name: String, count: Int = 16_384) -> [UInt8] {
        guard let source = try? open(name) else { return [] }
        // Sized to the file when it is known to be shorter (a size of 0 may mean "unknown": read the whole count then).
        let known = size(name)
        var bytes = [UInt8](repeating: 0, count: known > 0 ? min(count, known) : count)
        var filled = 0
        while filled < bytes.count {
            let got = (try? bytes.withUnsafeMutableBufferPointer { try source.read($0.baseAddress! + filled, $0.count - filled) }) ?? 0
            if got <= 0 { break }
            filled += got
        }
        if filled < bytes.count { bytes.removeSubrange(filled...) }
        return bytes
    }

    /// The header line of a text file (after a BOM and an optional `sep=` line), or nil for binary or empty files.
    /// Read once per file: every format's detection asks for it.
    func headerLine(_ name: String) -> String? {
        if let known = headerLines[name] { return known }
        let line = Self.headerLine(of: prefix(name))
        headerLines[name] = line
        return line
    }

    /// The header line in a file's first bytes: the first non-empty line, or the second when the first is `sep=…`
    /// (a UTF-8 BOM and a trailing carriage return dropped); nil when the bytes are empty or hold a NUL (binary).
    static func headerLine(of bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        while lines.count < 2, start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            if end > start { lines.append(bytes[start..<end]) }
            start = end + 1
        }
        guard var first = lines.first else { return nil }
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first = first.dropFirst(3); lines[0] = first }
        var line = String(decoding: first, as: UTF8.self).lowercased().hasPrefix("sep=") && lines.count > 1 ? lines[1] : first
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
