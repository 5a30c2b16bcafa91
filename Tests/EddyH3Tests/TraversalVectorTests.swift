import Testing
@testable import EddyH3

/// Oracle vectors from h3-py 4.5.0: grid traversal.
@Suite("H3 oracle vectors: traversal")
struct TraversalVectorTests {
    @Test("gridDisk sets match the reference (random origins, pentagons and their neighbourhoods)")
    func gridDiskVectors() throws {
        let records = try Vectors.records("grid_disk.txt")
        #expect(records.count > 1000)
        var mismatches: [String] = []
        for rec in records {
            let origin = Vectors.cell(rec[0])
            let k = Int(rec[1])!
            let expected = rec[2...].map(String.init)
            let got = try H3.gridDisk(origin, k: k).map(\.description).sorted()
            if got != expected { mismatches.append("\(origin) k=\(k): got \(got.count) cells, expected \(expected.count)") }
            #expect(Set(got).count == got.count, "duplicates in gridDisk(\(origin), \(k))")
        }
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }
}
