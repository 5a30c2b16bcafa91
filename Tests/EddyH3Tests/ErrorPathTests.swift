import Testing
@testable import EddyH3

/// Typed errors and edge cases of the extended API (facts checked against h3-py 4.5.0 where noted).
@Suite("H3 error paths and edge cases")
struct ErrorPathTests {
    let cell = H3Index(rawValue: 0x852db0cffffffff)  // res 5, base cell 22

    @Test("Hierarchy rejects resolutions on the wrong side of the cell's")
    func hierarchyErrors() throws {
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.cellToParent(cell, resolution: 6) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.cellToParent(cell, resolution: -1) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.cellToChildren(cell, resolution: 4) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.cellToCenterChild(cell, resolution: 16) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.childrenCount(cell, resolution: 16) }
        #expect(throws: H3Error.invalidCell) { try H3.cellToParent(H3Index(rawValue: 0), resolution: 0) }
        #expect(try H3.cellToParent(cell, resolution: 5) == cell)
        #expect(try H3.cellToChildren(cell, resolution: 5) == [cell])
        #expect(try H3.childrenCount(cell, resolution: 7) == 49)
        let pentagon = try H3.pentagons(resolution: 3)[0]
        #expect(try H3.childrenCount(pentagon, resolution: 5) == 41)  // 1 + 5·(49 − 1)/6
        #expect(try H3.cellToChildren(pentagon, resolution: 5).count == 41)
    }

    @Test("Pentagons and base cells: 12 pentagons per resolution, 122 res-0 cells, all valid")
    func pentagonsAndBaseCells() throws {
        for res in 0...15 {
            let pentagons = try H3.pentagons(resolution: res)
            #expect(pentagons.count == 12)
            #expect(pentagons.allSatisfy { H3.isValidCell($0) && H3.isPentagon($0) && $0.resolution == res })
            #expect(try H3.cellToBoundary(pentagons[0]).count >= 5)
        }
        let base = H3.res0Cells()
        #expect(base.count == 122)
        #expect(base.filter(H3.isPentagon).count == 12)
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.pentagons(resolution: 16) }
    }

    @Test("gridDistance: 0 to itself, 1 to neighbours, typed failures")
    func gridDistanceErrors() throws {
        #expect(try H3.gridDistance(cell, cell) == 0)
        for neighbour in try H3.gridRing(cell, k: 1) { #expect(try H3.gridDistance(cell, neighbour) == 1) }
        let coarse = try H3.cellToParent(cell, resolution: 4)
        #expect(throws: H3Error.cellsNotComparable) { try H3.gridDistance(cell, coarse) }
        let far = try H3.latLngToCell(latitude: -33.9, longitude: 151.2, resolution: 5)
        #expect(throws: H3Error.cellsNotComparable) { try H3.gridDistance(cell, far) }
        // Around a pentagon some pairs cannot be unfolded; the reference fails on the same pairs (checked
        // against h3-py in grid_distance.txt), here they must surface as .pentagonDistortion.
        let pentagon = try H3.pentagons(resolution: 1)[0]
        var sawPentagonFailure = false
        for a in try H3.gridRing(pentagon, k: 1) {
            for b in try H3.gridRing(pentagon, k: 2) {
                do {
                    _ = try H3.gridDistance(a, b)
                } catch H3Error.pentagonDistortion {
                    sawPentagonFailure = true
                }
            }
        }
        #expect(sawPentagonFailure)
    }

    @Test("polygonToCells: empty outer gives no cells; bad rings and resolutions are typed errors")
    func polygonErrors() throws {
        #expect(try H3.polygonToCells(outer: [], resolution: 5).isEmpty)
        let two = [LatLng(latitude: 0, longitude: 0), LatLng(latitude: 1, longitude: 1)]
        #expect(throws: H3Error.invalidPolygon) { try H3.polygonToCells(outer: two, resolution: 5) }
        let square = [LatLng(latitude: 32.0, longitude: 34.5), LatLng(latitude: 32.3, longitude: 34.5),
                      LatLng(latitude: 32.3, longitude: 35.0), LatLng(latitude: 32.0, longitude: 35.0)]
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.polygonToCells(outer: square, resolution: 16) }
        let withNaN = square + [LatLng(latitude: .nan, longitude: 34.7)]
        #expect(throws: (any Error).self) { try H3.polygonToCells(outer: withNaN, resolution: 5) }
        // Closed and open rings give the same cells (h3-py drops the closing vertex); h3-py: 38 cells at res 6.
        let open = try H3.polygonToCells(outer: square, resolution: 6)
        let closed = try H3.polygonToCells(outer: square + [square[0]], resolution: 6)
        #expect(open.count == 38)
        #expect(Set(open) == Set(closed))
    }

    @Test("Areas and averages: res-5 cell area near the average, typed resolution errors")
    func measures() throws {
        let km2 = try H3.cellAreaKm2(cell)
        #expect(km2 == 289.044178144733)  // h3-py 4.5.0 cell_area(…, 'km^2') printed value
        #expect(abs(try H3.cellAreaM2(cell) - km2 * 1e6) <= km2 * 1e6 * 1e-15)
        #expect(try H3.averageHexagonAreaKm2(resolution: 5) == 252.9038581819449)
        #expect(try H3.averageHexagonEdgeLengthKm(resolution: 5) == 9.854090990)
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.averageHexagonAreaKm2(resolution: 16) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.averageHexagonEdgeLengthKm(resolution: -1) }
        let d = H3.greatCircleDistanceKm(LatLng(latitude: 0, longitude: 0), LatLng(latitude: 0, longitude: 1))
        #expect(abs(d - 111.19) < 0.01)
    }

    @Test("Inputs the reference accepts: out-of-range but finite latitude/longitude, the poles")
    func outOfRangeInputs() throws {
        let a = try H3.latLngToCell(latitude: 100, longitude: 394.8, resolution: 5)
        #expect(a.description == "85038157fffffff")  // h3-py 4.5.0
        let north = try H3.latLngToCell(latitude: 90, longitude: 0, resolution: 0)
        #expect(H3.isValidCell(north))
        #expect(try H3.latLngToCell(latitude: 90, longitude: 123, resolution: 7)
                == H3.latLngToCell(latitude: 90, longitude: -45, resolution: 7))
    }
}

/// Requests that would exhaust memory get a typed error instead of a crash.
@Suite("H3 size limits")
struct SizeLimitTests {
    @Test("Huge k, deep children and continent-sized fine polygons throw tooManyCells")
    func limits() throws {
        let cell = H3Index(rawValue: 0x852db0cffffffff)
        #expect(throws: H3Error.tooManyCells) { try H3.gridDisk(cell, k: 1_000_000) }
        #expect(throws: H3Error.tooManyCells) { try H3.gridRing(cell, k: 1_000_000) }
        let base = H3.res0Cells()[0]
        #expect(throws: H3Error.tooManyCells) { try H3.cellToChildren(base, resolution: 15) }
        #expect(try H3.childrenCount(base, resolution: 15) == 4_747_561_509_943)
        let big = [LatLng(latitude: -40, longitude: -60), LatLng(latitude: 40, longitude: -60),
                   LatLng(latitude: 40, longitude: 60), LatLng(latitude: -40, longitude: 60)]
        #expect(throws: H3Error.tooManyCells) { try H3.polygonToCells(outer: big, resolution: 12) }
        #expect(try H3.gridDisk(cell, k: 100).count == 30_301)
    }
}
