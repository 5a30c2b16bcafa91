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

/// gridDiskDistances is consistent with gridRing and gridDistance (both checked against the reference).
@Suite("H3 gridDiskDistances consistency")
struct DiskDistanceTests {
    @Test("Cells at distance d in gridDiskDistances are exactly gridRing(d), and gridDistance agrees")
    func distancesMatchRings() throws {
        let records = try Vectors.records("grid_disk.txt")
        var checked = 0
        for rec in records.prefix(400) {
            let origin = Vectors.cell(rec[0])
            let k = Int(rec[1])!
            let disk = try H3.gridDiskDistances(origin, k: k)
            #expect(Set(disk.map(\.cell).map(\.description)) == Set(rec[2...].map(String.init)))
            for d in 0...k {
                let atD = Set(disk.filter { $0.distance == d }.map(\.cell))
                #expect(atD == Set(try H3.gridRing(origin, k: d)), "\(origin) d=\(d)")
            }
            for (cell, distance) in disk.prefix(20) {
                if let measured = try? H3.gridDistance(origin, cell) { #expect(measured == distance) }
            }
            checked += 1
        }
        #expect(checked == 400)
    }
}

/// Oracle vectors from h3-py 4.5.0: rings, distances, hierarchy, areas and polygons.
@Suite("H3 oracle vectors: rings, hierarchy, measures, polygons")
struct MoreVectorTests {
    @Test("gridRing sets match the reference (pentagon origins use the safe fallback)")
    func gridRingVectors() throws {
        let records = try Vectors.records("grid_ring.txt")
        #expect(records.count > 1000)
        var mismatches: [String] = []
        for rec in records {
            let origin = Vectors.cell(rec[0])
            let k = Int(rec[1])!
            let got: [String]
            do {
                got = try H3.gridRing(origin, k: k).map(\.description).sorted()
            } catch {
                got = ["E"]
            }
            let expected = rec[2...].map(String.init)
            if got != expected { mismatches.append("\(origin) k=\(k): got \(got.prefix(3)) expected \(expected.prefix(3))") }
        }
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("gridDistance matches the reference, including failures far away / across pentagons")
    func gridDistanceVectors() throws {
        let records = try Vectors.records("grid_distance.txt")
        #expect(records.count > 1000)
        var mismatches: [String] = []
        var failures = 0
        for rec in records {
            let a = Vectors.cell(rec[0])
            let b = Vectors.cell(rec[1])
            let got: String
            do {
                got = String(try H3.gridDistance(a, b))
            } catch {
                got = "E"
            }
            if rec[2] == "E" { failures += 1 }
            if got != rec[2] { mismatches.append("\(a) \(b): got \(got) expected \(rec[2])") }
        }
        #expect(failures > 0, "the vectors should include reference failures")
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("cellToParent, cellToCenterChild, childrenCount and cellToChildren match the reference")
    func hierarchyVectors() throws {
        var mismatches: [String] = []
        for rec in try Vectors.records("hierarchy.txt") {
            let cell = Vectors.cell(rec[0])
            let parent = try H3.cellToParent(cell, resolution: Int(rec[1])!)
            let centre = try H3.cellToCenterChild(cell, resolution: Int(rec[3])!)
            let count = try H3.childrenCount(cell, resolution: Int(rec[5])!)
            if parent.description != rec[2] || centre.description != rec[4] || String(count) != rec[6] {
                mismatches.append("\(cell): \(parent) \(centre) \(count) vs \(rec[2]) \(rec[4]) \(rec[6])")
            }
        }
        let childRecords = try Vectors.records("children.txt")
        #expect(childRecords.count > 1000)
        for rec in childRecords {
            let cell = Vectors.cell(rec[0])
            let children = try H3.cellToChildren(cell, resolution: Int(rec[1])!).map(\.description)
            if children.sorted() != rec[2...].map(String.init) { mismatches.append("children of \(cell)") }
            #expect(children == children.sorted { H3Index(string: $0)! < H3Index(string: $1)! })
        }
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }

    @Test("cellAreaKm2 / cellAreaRads2 bit-equal with the reference; average tables equal")
    func areaVectors() throws {
        let records = try Vectors.records("areas.txt")
        #expect(records.count > 3000)
        var worst = 0.0
        var bitEqual = 0
        for rec in records {
            let cell = Vectors.cell(rec[0])
            let km2 = try H3.cellAreaKm2(cell)
            let rads2 = try H3.cellAreaRads2(cell)
            let eKm2 = Vectors.double(rec[1])
            let eRads2 = Vectors.double(rec[2])
            if km2.bitPattern == eKm2.bitPattern && rads2.bitPattern == eRads2.bitPattern { bitEqual += 1 }
            worst = max(worst, abs(km2 - eKm2) / eKm2, abs(rads2 - eRads2) / eRads2)
        }
        print("h3 vectors: areas bit-equal \(bitEqual)/\(records.count), worst relative difference \(worst)")
        #expect(worst <= 1e-12)
        #expect(bitEqual == records.count)
        for rec in try Vectors.records("res_tables.txt") {
            let res = Int(rec[0])!
            #expect(try H3.averageHexagonAreaKm2(resolution: res) == Vectors.double(rec[1]))
            #expect(try H3.averageHexagonEdgeLengthKm(resolution: res) == Vectors.double(rec[2]))
        }
    }

    @Test("polygonToCells sets match the reference (random, holed, transmeridian, around pentagons)")
    func polygonVectors() throws {
        let records = try Vectors.records("polygon_to_cells.txt")
        #expect(records.count > 40)
        var mismatches: [String] = []
        for rec in records {
            var i = 0
            func next() -> Substring { defer { i += 1 }; return rec[i] }
            func ring() -> [LatLng] {
                let n = Int(next())!
                return (0..<n).map { _ in
                    let lat = Vectors.double(next())
                    return LatLng(latitude: lat, longitude: Vectors.double(next()))
                }
            }
            let res = Int(next())!
            let outer = ring()
            #expect(next() == "|")
            let holeCount = Int(next())!
            let holes = (0..<holeCount).map { _ in ring() }
            #expect(next() == "|")
            let expected = rec[i...].map(String.init)
            let got = try H3.polygonToCells(outer: outer, holes: holes, resolution: res).map(\.description).sorted()
            if got != expected {
                mismatches.append("res \(res) \(outer.prefix(2)): got \(got.count) expected \(expected.count)")
            }
        }
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
    }
}
