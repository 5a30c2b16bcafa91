// LeakSanitizer finds a toolchain leak on Linux (docs/reliability.md §10): `String(contentsOf:)` / `Data(contentsOf:)` of
// an EMPTY regular file leaks a 4-KB buffer per call. FoundationEssentials' `readBytesFromFile` takes its "st_size == 0
// (maybe /proc)" path, mallocs a 4096-byte chunk, reads 0 bytes and returns it with length 0; `readDataFromFile` then
// returns `Data()` for a length of 0 and never frees the chunk. `FileHandle.readToEnd()` frees it (it is not leaked).
//   swiftc -sanitize=address -g lsan_empty_file_repro.swift && ./lsan_empty_file_repro
// reports 409600 bytes in 100 allocations from `readBytesFromFile` (Swift 6.3.1, x86_64 Linux); with the argument
// `filehandle` it reads the same file 100 times through FileHandle and LeakSanitizer reports nothing.
import Foundation
let url = FileManager.default.temporaryDirectory.appendingPathComponent("lsan-empty-\(getpid()).txt")
FileManager.default.createFile(atPath: url.path, contents: Data())
defer { try? FileManager.default.removeItem(at: url) }
let throughFileHandle = CommandLine.arguments.dropFirst().first == "filehandle"
var characters = 0
for _ in 0..<100 {
    if throughFileHandle {
        let handle = try FileHandle(forReadingFrom: url)
        characters += String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self).count
        try handle.close()
    } else {
        characters += try String(contentsOf: url, encoding: .utf8).count
    }
}
print("read an empty file 100 times (\(throughFileHandle ? "FileHandle" : "String(contentsOf:)")): \(characters) characters")
