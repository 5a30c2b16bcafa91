import EddySupport
import EddyVocabulary
import Testing

/// `Int(saturating:)` and the tile layer never trap (issue 15: Double → Int conversions of input-derived values).
@Suite("Saturating Double → Int")
struct SaturatingConversionTests {
    @Test func roundsLikeIntOfRoundedInRange() {
        for value in [-2.5, -1.5, -0.5, -0.0, 0.4, 0.5, 1.5, 2.5, 1e15 + 0.5, -123456.7] {
            #expect(Int(saturating: value) == Int(value.rounded()), "\(value)")
            #expect(Int(saturating: value, rounding: .down) == Int(value.rounded(.down)), "\(value)")
            #expect(Int(saturating: value, rounding: .up) == Int(value.rounded(.up)), "\(value)")
        }
    }

    @Test func clampsAndMapsNaN() {
        let limit = Int.saturationLimit
        #expect(limit == 1 << 53)
        #expect(Int(saturating: .infinity) == limit && Int(saturating: 1e308) == limit && Int(saturating: 1e19) == limit)
        #expect(Int(saturating: -.infinity) == -limit && Int(saturating: -1e308) == -limit)
        #expect(Int(saturating: .nan) == 0 && Int(saturating: .nan, nan: -1) == -1)
        #expect(Int(saturating: Double(limit) - 1) == limit - 1)
    }

    @Test func tileLayerIsTotal() {
        #expect(TileID.layer(altitudeFeet: 35_500) == 35)
        #expect(TileID.layer(altitudeFeet: -500) == -1)
        #expect(TileID.layer(altitudeFeet: .nan) == 0)
        #expect(TileID.layer(altitudeFeet: 1e308) == Int.saturationLimit)
        #expect(TileID.layer(altitudeFeet: -.infinity) == -Int.saturationLimit)
    }
}
