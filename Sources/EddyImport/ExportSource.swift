import Foundation

/// What the user pointed at: one file, a folder of files, or a zip archive; files are opened as byte streams.
public final class ExportSource {
    /// The path given.
    public let path: String
    /// Relative names of the files it holds (one name for a single file), sorted.
    public let fileNames: [String]
    /// Whether the source is a zip archive.
    public var isZip: Bool { zip != nil }
    /// Whether the source is one plain file.
    public let isSingleFile: Bool
    private let zip: ZipArchive?
    private let zipEntries: [String: ZipArchive.Entry]

    /// Opens a file, folder or zip archive. Throws `ImportError` when it does not exist or the zip is unreadable.
    public init(path: String) throws {
        self.path = path
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
                       !(name as NSString).lastPathComponent.hasPrefix(".") {
                        names.append(name)
                    }
                }
            }
            fileNames = names.sorted()
            zip = nil; zipEntries = [:]; isSingleFile = false
        } else if ZipArchive.looksLikeZip(path: path) {
            let archive = try ZipArchive(path: path)
            zip = archive
            let files = archive.entries.filter { entry in
                let base = (entry.name as NSString).lastPathComponent
                return !base.hasPrefix(".") && !entry.name.hasPrefix("__MACOSX/")
            }
            zipEntries = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            fileNames = files.map(\.name).sorted()
            isSingleFile = false
        } else {
            zip = nil; zipEntries = [:]; isSingleFile = true
            fileNames = [(path as NSString).lastPathComponent]
        }
    }

    /// The file whose base name equals `baseName` (case-insensitive), shallowest first.
    public func file(named baseName: String) -> String? {
        let wanted = baseName.lowercased()
        return fileNames
            .filter { ($0 as NSString).lastPathComponent.lowercased() == wanted }
            .min { $0.split(separator: "/").count < $1.split(separator: "/").count }
    }

    /// Name used in messages: `export.zip:Accelerometer.csv`, or the file name.
    func displayName(_ name: String) -> String {
        if let zip { return "\(zip.name):\(name)" }
        return name
    }

    /// Size in bytes of one file (uncompressed size for zip entries).
    func size(_ name: String) -> Int {
        if let entry = zipEntries[name] { return entry.uncompressedSize }
        let full = isSingleFile ? path : (path as NSString).appendingPathComponent(name)
        let attributes = try? FileManager.default.attributesOfItem(atPath: full)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Total size of the given files (for progress).
    func totalSize(_ names: [String]) -> Int { names.reduce(0) { $0 + size($1) } }

    /// Opens one file as a byte stream.
    func open(_ name: String) throws -> ByteSource {
        if let zip {
            guard let entry = zipEntries[name] else {
                throw ImportError(kind: .io, file: displayName(name), message: "not in the archive", advice: "Check the archive's contents")
            }
            return try zip.open(entry)
        }
        let full = isSingleFile ? path : (path as NSString).appendingPathComponent(name)
        return try FileByteSource(path: full, name: name)
    }

    /// The first `count` bytes of a file (fewer when it is shorter): for format detection.
    func prefix(_ name: String, count: Int = 16_384) -> [UInt8] {
        guard let source = try? open(name) else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = (try? bytes.withUnsafeMutableBufferPointer { try source.read($0.baseAddress! + filled, count - filled) }) ?? 0
            if got <= 0 { break }
            filled += got
        }
        return Array(bytes[0..<filled])
    }

    /// The header line of a text file (after a BOM and an optional `sep=` line), or nil for binary or empty files.
    func headerLine(_ name: String) -> String? {
        let bytes = prefix(name)
        guard !bytes.isEmpty, !bytes.contains(0) else { return nil }
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(3).map { Array($0) }
        guard var first = lines.first else { return nil }
        if first.starts(with: [0xEF, 0xBB, 0xBF]) { first.removeFirst(3); lines[0] = first }
        var index = 0
        if String(decoding: lines[0], as: UTF8.self).lowercased().hasPrefix("sep="), lines.count > 1 { index = 1 }
        var line = lines[index]
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
