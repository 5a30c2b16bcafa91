import CZlib
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A forward-only stream of bytes: a plain file, or one entry of a zip archive inflated on the fly.
protocol ByteSource: AnyObject {
    /// Reads up to `capacity` bytes into `buffer`; 0 means the end.
    func read(_ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(ImportError) -> Int
    /// The stream's length when known for certain before reading (bytes in memory), else nil.
    var exactByteCount: Int? { get }
}

extension ByteSource {
    /// Unknown: a file may change under the reader, a zip entry's stated size is the archive's claim.
    var exactByteCount: Int? { nil }
}

/// A file read with read(2).
final class FileByteSource: ByteSource {
    private let fd: Int32
    private let name: String

    init(path: String, name: String) throws(ImportError) {
        fd = open(path, O_RDONLY)
        self.name = name
        guard fd >= 0 else {
            throw ImportError(kind: .io, file: name, message: "cannot be opened (\(String(cString: strerror(errno))))", advice: "Check the path and permissions")
        }
    }

    deinit { _ = close(fd) }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(ImportError) -> Int {
        while true {
            let count = systemRead(fd, buffer, capacity)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw ImportError(kind: .io, file: name, message: "read failed (\(String(cString: strerror(errno))))", advice: "Check the file")
        }
    }
}

/// A file's bytes held in memory (the fuzz targets' entry point, docs/reliability.md §7): handed out as read(2) would.
final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var exactByteCount: Int? { bytes.count }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(ImportError) -> Int {
        let count = min(capacity, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base + offset, count: count) } }
        offset += count
        return count
    }
}

/// open(2) read-only under a name that does not clash with `ZipArchive.open`.
func openReadOnly(_ path: String) -> Int32 { open(path, O_RDONLY) }

/// read(2) under a name that does not clash with `ByteSource.read`.
@inline(__always)
func systemRead(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// A zip archive's table of contents, read from its central directory (APPNOTE.TXT 6.3.x §4.3.12–4.3.16).
///
/// Stored (method 0) and deflated (method 8) entries are read; zip64, encrypted and otherwise compressed entries are
/// refused with a clear error. Foundation has no zip API and the library does not shell out, so this is done here.
final class ZipArchive {
    /// One file in the archive.
    struct Entry: Sendable {
        /// Path inside the archive.
        var name: String
        /// 0 = stored, 8 = deflated.
        var method: UInt16
        /// General-purpose flags (bit 0 = encrypted).
        var flags: UInt16
        /// CRC-32 of the uncompressed data.
        var crc32: UInt32
        /// Compressed size, bytes.
        var compressedSize: Int
        /// Uncompressed size, bytes.
        var uncompressedSize: Int
        /// Offset of the local file header.
        var localHeaderOffset: Int
    }

    /// The archive's path (for messages).
    let path: String
    /// Display name of the archive.
    let name: String
    /// Every file entry (directories left out).
    private(set) var entries: [Entry] = []
    /// The open archive, or -1 when its bytes are in `memory`.
    private let fd: Int32
    /// The archive's bytes when read from memory.
    private let memory: [UInt8]
    private let fileSize: Int

    init(path: String) throws(ImportError) {
        self.path = path
        name = TextFastPaths.baseName(path)
        fd = openReadOnly(path)
        memory = []
        guard fd >= 0 else {
            throw ImportError(kind: .io, file: name, message: "cannot be opened (\(String(cString: strerror(errno))))", advice: "Check the path and permissions")
        }
        var info = stat()
        fileSize = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        do throws(ImportError) { try readDirectory() } catch { _ = close(fd); throw error }
    }

    /// The same archive reader over the archive's bytes in memory (the fuzz targets' entry point): every read at an
    /// offset copies from `bytes` where the file-based reader calls pread(2).
    init(name: String, bytes: [UInt8]) throws(ImportError) {
        path = name
        self.name = TextFastPaths.baseName(name)
        fd = -1
        memory = bytes
        fileSize = bytes.count
        try readDirectory()
    }

    deinit { if fd >= 0 { _ = close(fd) } }

    /// Whether the file starts like a zip archive (local header or empty-archive signature).
    static func looksLikeZip(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4)) ?? Data()
        return looksLikeZip(head: Array(head))
    }

    /// Whether bytes start like a zip archive.
    static func looksLikeZip(head: [UInt8]) -> Bool {
        head.count >= 4 && head[0] == 0x50 && head[1] == 0x4B && (head[2] == 3 || head[2] == 5)
    }

    /// pread(2) on the archive, or a copy from `memory` (0 past its end, like pread at end of file).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        if fd >= 0 { return pread(fd, buffer, count, off_t(offset)) }
        let n = min(count, memory.count - offset)
        guard offset >= 0, n > 0 else { return 0 }
        memory.withUnsafeBytes { if let base = $0.baseAddress { buffer.copyMemory(from: base + offset, byteCount: n) } }
        return n
    }

    private func corrupt(_ message: String) -> ImportError {
        ImportError(kind: .corruptZip, file: name, message: message, advice: "The archive is damaged or cut short: export it again, or unzip it and import the folder")
    }

    /// Reads exactly `count` bytes at `offset`.
    func bytes(at offset: Int, count: Int) throws(ImportError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset + count <= fileSize else { throw corrupt("a record at offset \(offset) runs past the end of the file") }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = out.withUnsafeMutableBytes { read(into: $0.baseAddress! + done, count: count - done, at: offset + done) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw corrupt("cannot read \(count) bytes at offset \(offset)") }
            done += got
        }
        return out
    }

    private func readDirectory() throws(ImportError) {
        guard fileSize >= 22 else { throw corrupt("too short to be a zip archive (\(fileSize) bytes)") }
        let tailLength = min(fileSize, 22 + 65_535)
        let tail = try bytes(at: fileSize - tailLength, count: tailLength)
        var eocd = -1
        var index = tail.count - 22
        while index >= 0 {
            if tail[index] == 0x50, tail[index + 1] == 0x4B, tail[index + 2] == 0x05, tail[index + 3] == 0x06 { eocd = index; break }
            index -= 1
        }
        guard eocd >= 0 else { throw corrupt("no end-of-central-directory record (not a zip archive, or cut short)") }
        if eocd >= 20, tail[eocd - 20] == 0x50, tail[eocd - 19] == 0x4B, tail[eocd - 18] == 0x06, tail[eocd - 17] == 0x07 {
            throw zip64()
        }
        let entryCount = Int(le16(tail, eocd + 10))
        let directorySize = Int(le32(tail, eocd + 12))
        let directoryOffset = Int(le32(tail, eocd + 16))
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF { throw zip64() }
        let directory = try bytes(at: directoryOffset, count: directorySize)
        var position = 0
        for _ in 0..<entryCount {
            guard position + 46 <= directory.count, le32(directory, position) == 0x0201_4B50 else {
                throw corrupt("central directory entry at offset \(directoryOffset + position) is damaged")
            }
            let nameLength = Int(le16(directory, position + 28))
            let extraLength = Int(le16(directory, position + 30))
            let commentLength = Int(le16(directory, position + 32))
            guard position + 46 + nameLength + extraLength + commentLength <= directory.count else {
                throw corrupt("central directory entry at offset \(directoryOffset + position) runs past the directory")
            }
            let entryName = String(decoding: directory[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            let compressed = Int(le32(directory, position + 20))
            let uncompressed = Int(le32(directory, position + 24))
            let offset = Int(le32(directory, position + 42))
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw zip64() }
            if !entryName.hasSuffix("/") {
                entries.append(Entry(
                    name: entryName, method: le16(directory, position + 10), flags: le16(directory, position + 8),
                    crc32: le32(directory, position + 16), compressedSize: compressed, uncompressedSize: uncompressed,
                    localHeaderOffset: offset))
            }
            position += 46 + nameLength + extraLength + commentLength
        }
    }

    private func zip64() -> ImportError {
        ImportError(kind: .unsupportedZip, file: name, message: "is a zip64 archive (over 4 GB or 65,535 files), which this reader does not support",
                    advice: "Unzip it and import the folder instead")
    }

    /// Opens one entry for reading (inflating deflated data, checking the CRC at the end).
    func open(_ entry: Entry) throws(ImportError) -> any ByteSource {
        let display = "\(name):\(entry.name)"
        if entry.flags & 1 != 0 {
            throw ImportError(kind: .unsupportedZip, file: display, message: "is encrypted", advice: "Export without a password, or unzip it and import the folder")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw ImportError(kind: .unsupportedZip, file: display, message: "uses compression method \(entry.method) (only stored and deflate are supported)",
                              advice: "Unzip it and import the folder instead")
        }
        let header = try bytes(at: entry.localHeaderOffset, count: 30)
        guard le32(header, 0) == 0x0403_4B50 else { throw corrupt("local header of \(entry.name) is damaged") }
        let dataOffset = entry.localHeaderOffset + 30 + Int(le16(header, 26)) + Int(le16(header, 28))
        guard dataOffset + entry.compressedSize <= fileSize else { throw corrupt("\(entry.name) runs past the end of the archive") }
        return try ZipEntrySource(archive: self, entry: entry, dataOffset: dataOffset, display: display)
    }
}

@inline(__always) func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
@inline(__always) func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
    UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
}

/// One zip entry's bytes: stored data copied, deflated data inflated with zlib (raw deflate, no header).
final class ZipEntrySource: ByteSource {
    private let archive: ZipArchive
    private let entry: ZipArchive.Entry
    private let display: String
    private var nextOffset: Int
    private var compressedLeft: Int
    private var produced = 0
    private var crc: UInt = 0
    private var stream = z_stream()
    private var inflating = false
    private var finished = false
    private var streamEnded = false
    private let input: UnsafeMutablePointer<UInt8>
    private static let inputCapacity = 64 * 1024
    private var inputCount = 0

    init(archive: ZipArchive, entry: ZipArchive.Entry, dataOffset: Int, display: String) throws(ImportError) {
        self.archive = archive; self.entry = entry; self.display = display
        nextOffset = dataOffset
        compressedLeft = entry.compressedSize
        input = .allocate(capacity: Self.inputCapacity)
        crc = CZlib.crc32(0, nil, 0)
        if entry.method == 8 {
            let status = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            guard status == Z_OK else {
                input.deallocate()
                throw ImportError(kind: .io, file: display, message: "zlib could not start (status \(status))", advice: "Unzip the archive and import the folder")
            }
            inflating = true
        }
    }

    deinit {
        if inflating { inflateEnd(&stream) }
        input.deallocate()
    }

    private func corrupt(_ message: String) -> ImportError {
        ImportError(kind: .corruptZip, file: display, message: message, advice: "The archive is damaged or cut short: export it again, or unzip it and import the folder")
    }

    /// Reads more compressed bytes from the archive into `input`.
    private func fill() throws(ImportError) -> Int {
        let count = min(Self.inputCapacity, compressedLeft)
        guard count > 0 else { return 0 }
        var done = 0
        while done < count {
            let got = archive.read(into: input + done, count: count - done, at: nextOffset + done)
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw corrupt("cannot read the compressed data") }
            done += got
        }
        nextOffset += count
        compressedLeft -= count
        return count
    }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) throws(ImportError) -> Int {
        if finished { return 0 }
        var count = 0
        if entry.method == 0 {
            let want = min(capacity, compressedLeft)
            if want > 0 {
                var done = 0
                while done < want {
                    let got = archive.read(into: buffer + done, count: want - done, at: nextOffset + done)
                    if got < 0, errno == EINTR { continue }
                    guard got > 0 else { throw corrupt("cannot read the stored data") }
                    done += got
                }
                nextOffset += want; compressedLeft -= want
            }
            count = want
        } else {
            stream.next_out = buffer
            stream.avail_out = UInt32(capacity)
            while !streamEnded, stream.avail_out > 0 {
                if stream.avail_in == 0 {
                    inputCount = try fill()
                    stream.next_in = input
                    stream.avail_in = UInt32(inputCount)
                }
                let status = inflate(&stream, Z_NO_FLUSH)
                if status == Z_STREAM_END { streamEnded = true; break }
                if status == Z_BUF_ERROR, stream.avail_in == 0, compressedLeft == 0 {
                    throw corrupt("the deflate stream ends early (truncated archive)")
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    throw corrupt("the deflate data is invalid (zlib status \(status))")
                }
            }
            count = capacity - Int(stream.avail_out)
        }
        if count > 0 {
            crc = CZlib.crc32(crc, buffer, UInt32(count))
            produced += count
        }
        if count < capacity || count == 0 {
            finished = true
            guard produced == entry.uncompressedSize else {
                throw corrupt("holds \(produced) bytes, the directory says \(entry.uncompressedSize)")
            }
            guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else { throw corrupt("CRC-32 mismatch") }
        }
        return count
    }
}
