import Testing
@testable import EddyMap

/// Decodes one encoded polyline (0.01° units) into (lat, lon) degrees; nil on a malformed string.
func decodePolyline(_ text: Substring) -> [(Double, Double)]? {
    var values: [Int] = []
    var result = 0, shift = 0
    for byte in text.utf8 {
        guard byte >= 63, byte <= 126 else { return nil }
        let chunk = Int(byte) - 63
        result |= (chunk & 31) << shift
        if chunk >= 32 { shift += 5; continue }
        values.append(result & 1 == 1 ? ~(result >> 1) : result >> 1)
        result = 0; shift = 0
    }
    guard shift == 0, values.count % 2 == 0 else { return nil }
    var lat = 0, lon = 0
    return stride(from: 0, to: values.count, by: 2).map { index in
        lat += values[index]; lon += values[index + 1]
        return (Double(lat) / 100, Double(lon) / 100)
    }
}

@Suite("Basemap")
struct BasemapTests {
    let rings = Basemap.ringsEncoded.split(separator: " ").map { decodePolyline($0) }

    @Test("every ring decodes to closed rings of valid coordinates")
    func decodes() throws {
        #expect(rings.count > 250)
        for ring in rings {
            let ring = try #require(ring)
            #expect(ring.count >= 4)
            #expect(ring.first?.0 == ring.last?.0 && ring.first?.1 == ring.last?.1)
            #expect(ring.allSatisfy { (-90...90).contains($0.0) && (-180...180).contains($0.1) })
        }
        #expect(Basemap.bordersEncoded.split(separator: " ").allSatisfy { decodePolyline($0) != nil })
    }

    func onLand(_ lat: Double, _ lon: Double) -> Bool {
        var inside = false
        for case let ring? in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let (yi, xi) = ring[i], (yj, xj) = ring[j]
                if (yi > lat) != (yj > lat), lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    @Test("known places: Zürich, Denver, Sydney and Nairobi are land; the mid-Atlantic, the Tasman Sea and the Black Sea are not")
    func landAndSea() {
        #expect(onLand(47.37, 8.54))
        #expect(onLand(39.74, -104.99))
        #expect(onLand(-33.87, 151.0))
        #expect(onLand(-1.29, 36.82))
        #expect(!onLand(30, -40))
        #expect(!onLand(-40, 160))
        #expect(!onLand(43.2, 34.0))
    }
}
