#if Tools
import Foundation

/// The files an ingest command's path names (`ingest-pilot-reports`, `ingest-forecast` and their watched folders).
enum IngestFiles {
    /// Why a path names no files: what is wrong, what to do.
    struct Problem: Error {
        let problem: String
        let remedy: String
    }

    /// The path itself, or a folder's regular, non-hidden files sorted by name; `expected` names the files wanted
    /// ("a GRIB2 file"), for the remedy of a path that does not exist.
    static func files(at path: String, expected: String) throws(Problem) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw Problem(problem: "no such file or folder", remedy: "give \(expected) or a folder of them")
        }
        guard isFolder.boolValue else { return [path] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw Problem(problem: "the folder cannot be listed (\(error.localizedDescription))", remedy: "check its permissions")
        }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (path as NSString).appendingPathComponent($0) }.filter { file in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &folder) && !folder.boolValue
        }
    }
}
#endif
