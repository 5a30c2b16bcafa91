import Testing
@testable import EddyGeoid

@Suite("EGM96 geoid")
struct EGM96Tests {
    /// N at a position; fails the test (and returns .nan) if the model gives none.
    private func n(_ latitude: Double, _ longitude: Double) -> Double {
        let value = EGM96.undulationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude)
        #expect(value != nil, "no undulation at (\(latitude), \(longitude))")
        return value ?? .nan
    }

    @Test("the compiled-in table decodes to the full 721 × 1440 grid")
    func tableDecodes() {
        let grid = EGM96.decodedGrid
        #expect(grid?.count == 721 * 1440)
    }

    /// NGA's sample output of INTPT.F on WW15MGH.GRD (the EGM96 15' grid), from the EGM96 readme.txt
    /// ("OUTINTPT.DAT"): latitude, longitude (0...360 east) and N in metres. NGA interpolates with a bicubic spline;
    /// we interpolate bilinearly, whose error on this grid is up to ~1.2 m worst case and 4 cm RMS (GeographicLib's
    /// table for egm96-15); at these six points the two agree within 5 cm.
    @Test("NGA's published sample undulations", arguments: [
        (38.6281550, 269.7791550, -31.628),
        (-14.6212170, 305.0211140, -2.969),
        (46.8743190, 102.4487290, -43.575),
        (-23.6174460, 133.8747120, 15.871),
        (38.6254730, 359.9995000, 50.066),
        (-0.4667440, 0.0023000, 17.329),
    ])
    func ngaSamples(latitude: Double, longitudeEast: Double, published: Double) {
        #expect(abs(n(latitude, longitudeEast) - published) <= 0.1)
        // The same meridian written west-negative.
        #expect(n(latitude, longitudeEast - 360) == n(latitude, longitudeEast))
    }

    @Test("poles: one value whatever the longitude (WW15MGH.GRD: 13.606 m at 90° N, -29.534 m at 90° S)")
    func poles() {
        for longitude in stride(from: -180.0, through: 180.0, by: 7.3) {
            #expect(abs(n(90, longitude) - 13.61) < 0.006)
            #expect(abs(n(-90, longitude) - (-29.53)) < 0.006)
        }
    }

    @Test("extremes: about -107 m south of India and +85 m over New Guinea")
    func extremes() {
        // EGM96's minimum (-106.99 m near 4.75° N 78.75° E) and maximum (85.39 m near 8.25° S 147.25° E).
        #expect(abs(n(4.75, 78.75) - (-106.99)) < 0.01)
        #expect(abs(n(-8.25, 147.25) - 85.39) < 0.01)
        var low = Double.infinity
        var high = -Double.infinity
        for latitude in stride(from: -90.0, through: 90.0, by: 0.5) {
            for longitude in stride(from: -180.0, to: 180.0, by: 0.5) {
                let value = n(latitude, longitude)
                low = min(low, value)
                high = max(high, value)
            }
        }
        #expect(low > -107.1 && low < -100)
        #expect(high < 85.5 && high > 80)
    }

    @Test("longitude wraps: ±180, the antimeridian and values beyond one turn")
    func wrapping() {
        #expect(n(0, 180) == n(0, -180))
        #expect(n(33.3, 190) == n(33.3, -170))
        #expect(n(-12.34, 540) == n(-12.34, 180))
        #expect(n(-12.34, -540) == n(-12.34, -180))
        #expect(abs(n(51.2, 720.25) - n(51.2, 0.25)) < 1e-9)
        // Continuity across the antimeridian: the last cell interpolates towards column 0.
        let west = n(10.1, 179.999999)
        let east = n(10.1, -179.999999)
        #expect(abs(west - east) < 0.001)
        // Halfway across the last cell is the mean of its two edge meridians on a grid row.
        let mid = n(10.0, 179.875)
        #expect(abs(mid - (n(10.0, 179.75) + n(10.0, -180)) / 2) < 1e-9)
    }

    @Test("bilinear: exact at nodes, linear along grid lines, continuous across cell edges")
    func bilinear() {
        let a = n(47.0, 8.0)
        let b = n(47.0, 8.25)
        let c = n(47.25, 8.0)
        let d = n(47.25, 8.25)
        #expect(abs(n(47.0, 8.1) - (a + (b - a) * 0.4)) < 1e-9)
        #expect(abs(n(47.125, 8.125) - (a + b + c + d) / 4) < 1e-9)
        #expect(abs(n(47.25 - 1e-12, 8.1) - n(47.25, 8.1)) < 1e-6)
    }

    @Test("non-finite or out-of-range latitude gives nil", arguments: [
        (Double.nan, 0.0), (0.0, Double.nan), (Double.infinity, 0.0), (0.0, -Double.infinity),
        (90.000001, 0.0), (-90.5, 10.0), (1e300, 0.0),
    ])
    func badInput(latitude: Double, longitude: Double) {
        #expect(EGM96.undulationMeters(latitudeDegrees: latitude, longitudeDegrees: longitude) == nil)
    }

    @Test("huge but finite longitudes still wrap without trapping")
    func hugeLongitude() {
        #expect(EGM96.undulationMeters(latitudeDegrees: 0, longitudeDegrees: 1e300) != nil)
        #expect(EGM96.undulationMeters(latitudeDegrees: 0, longitudeDegrees: -Double.greatestFiniteMagnitude) != nil)
    }

    @Test("the decoder rejects corrupt or short tables")
    func decoderRejectsCorruption() {
        // Three values 0, 1, -1 on a 1 × 3 grid: residuals 0, 1, -2 → zigzag 0, 2, 3 → bytes 00 02 03 → "AAID".
        #expect(EGM96.decodeGrid("AAID", rows: 1, columns: 3) == [0, 1, -1])
        #expect(EGM96.decodeGrid("AAID", rows: 1, columns: 4) == nil)
        #expect(EGM96.decodeGrid("AAID", rows: 1, columns: 2) == nil)
        #expect(EGM96.decodeGrid("AA!D", rows: 1, columns: 3) == nil)
        // An unfinished varint (continuation bit set on the last byte).
        #expect(EGM96.decodeGrid("gA==", rows: 1, columns: 1) == nil)
    }
}
