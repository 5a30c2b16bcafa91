import Foundation
import Testing
@testable import EddyH3

/// Hand-checked facts about the API (values from h3-py 4.5.0, see docs/h3.md).
@Suite("H3 basics")
struct BasicTests {
    @Test("Known cell: (32.0, 34.8) at res 5 is 852db0cffffffff with base cell 22")
    func knownCell() throws {
        let cell = try H3.latLngToCell(latitude: 32.0, longitude: 34.8, resolution: 5)
        #expect(cell.description == "852db0cffffffff")
        #expect(cell.rawValue == 599_782_549_274_755_071)
        #expect(H3.baseCell(of: cell) == 22)
        #expect(H3.resolution(of: cell) == 5)
        #expect(H3.isValidCell(cell))
        #expect(!H3.isPentagon(cell))
        let centre = try H3.cellToLatLng(cell)
        #expect(centre.latitude == 32.07171540824655)
        #expect(centre.longitude == 34.75941290053607)
        let disk = try H3.gridDisk(cell, k: 1).map(\.description)
        #expect(disk == ["852db0cffffffff", "852db0cbfffffff", "852db053fffffff", "852db057fffffff",
                         "852db01bfffffff", "852db0c7fffffff", "852db0c3fffffff"])
    }

    @Test("String conversion: lower-case hex out; hex, upper case, 0x and spaces in; garbage rejected")
    func strings() {
        #expect(H3Index(string: "852db0cffffffff")?.rawValue == 0x852db0cffffffff)
        #expect(H3Index(string: "0x852DB0CFFFFFFFF")?.rawValue == 0x852db0cffffffff)
        #expect(H3Index(string: "  852db0cffffffff\n")?.rawValue == 0x852db0cffffffff)
        #expect(H3Index(rawValue: 0x852db0cffffffff).description == "852db0cffffffff")
        #expect(H3Index(string: "") == nil)
        #expect(H3Index(string: "xyz") == nil)
        #expect(H3Index(string: "1ffffffffffffffff") == nil)
        #expect(H3Index(string: "000852db0cffffffff")?.rawValue == 0x852db0cffffffff)
        #expect(H3Index(string: "0")?.rawValue == 0)
        #expect(H3Index(string: "0x") == nil)
        #expect(H3Index(string: "85 2d") == nil)
    }

    @Test("Codable round-trips through the hex string")
    func codable() throws {
        let cell = H3Index(rawValue: 0x852db0cffffffff)
        let data = try JSONEncoder().encode([cell])
        #expect(String(decoding: data, as: UTF8.self) == "[\"852db0cffffffff\"]")
        #expect(try JSONDecoder().decode([H3Index].self, from: data) == [cell])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([H3Index].self, from: Data("[\"zz\"]".utf8)) }
    }

    @Test("Typed errors for bad input")
    func errors() {
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.latLngToCell(latitude: 0, longitude: 0, resolution: 16) }
        #expect(throws: H3Error.resolutionOutOfRange) { try H3.latLngToCell(latitude: 0, longitude: 0, resolution: -1) }
        #expect(throws: H3Error.nonFiniteCoordinates) { try H3.latLngToCell(latitude: .nan, longitude: 0, resolution: 5) }
        #expect(throws: H3Error.nonFiniteCoordinates) {
            try H3.latLngToCell(latitude: 0, longitude: .infinity, resolution: 5)
        }
        #expect(throws: H3Error.invalidCell) { try H3.cellToLatLng(H3Index(rawValue: 0)) }
        #expect(throws: H3Error.invalidCell) { try H3.cellToBoundary(H3Index(rawValue: 0x852db0cfffffff7)) }
        #expect(throws: H3Error.invalidCell) { try H3.gridDisk(H3Index(rawValue: 1), k: 1) }
        #expect(throws: H3Error.invalidK) { try H3.gridDisk(H3Index(rawValue: 0x852db0cffffffff), k: -1) }
    }

    @Test("Constants are the exact doubles of the reference's decimal literals")
    func constantBits() {
        #expect(kPi180.bitPattern == 0x3f91df46a2529d39)
        #expect(k180Pi.bitPattern == 0x404ca5dc1a63c1f8)
        #expect(k2Pi.bitPattern == 0x401921fb54442d18)
        #expect(kEpsilon.bitPattern == 0x3c9cd2b297d889bc)
        #expect(kSqrt3_2.bitPattern == 0x3febb67ae8584caa)
        #expect(kRSin60.bitPattern == 0x3ff279a74590331c)
        #expect(kOneThird.bitPattern == 0x3fd5555555555555)
        #expect(kOneSeventh.bitPattern == 0x3fc2492492492492)
        #expect(kAp7RotRads.bitPattern == 0x3fd5579fdc3a8f41)
        #expect(kEarthRadiusKm.bitPattern == 0x40b8e301d69bd201)
        #expect(kRes0UGnomonic.bitPattern == 0x3fd8722191a02d5e)
        #expect(kInvRes0UGnomonic.bitPattern == 0x4004f1bbcdcbfa56)
        #expect(kSqrt7.bitPattern == 0x40052a7fa9d2f8ea)
        #expect(kRSqrt7.bitPattern == 0x3fd83091e6a7f7e7)
    }
}
