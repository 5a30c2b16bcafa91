import Foundation
import Testing
@testable import EddyNavigation
import EddyVocabulary

@Suite("ITU-R P.835 reference atmospheres and the climatology")
struct ReferenceAtmosphereTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Temperatures and P.835's pressure fit agree with PyPI `itur`'s implementation of the Recommendation, and the
    /// hypsometric pressures with an independent 1-m integration of itur's temperatures (scripts/make_p835_fixture.py).
    @Test func matchesITUR() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Fixtures/atmosphere/p835-itur.csv"), encoding: .utf8)
        var rows = 0
        var worstHypsometric = 0.0
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            try #require(f.count == 6, "bad fixture line \(line)")
            let latitude = try #require(Double(f[0])), summer = f[1] == "summer"
            let h = try #require(Double(f[2])), t = try #require(Double(f[3])), p = try #require(Double(f[4])), hyps = try #require(Double(f[5]))
            let profile = ReferenceAtmosphere.profile(latitudeDegrees: latitude, summer: summer)
            #expect(abs(profile.temperatureKelvin(heightKilometers: h) - t) < 1e-3, "\(profile) \(h) km")
            #expect(abs(profile.pressureHectopascals(heightKilometers: h) / p - 1) < 1e-6, "\(profile) \(h) km")
            let relative = abs(profile.hypsometricPressureHectopascals(heightKilometers: h) / hyps - 1)
            worstHypsometric = max(worstHypsometric, relative)
            rows += 1
        }
        #expect(rows == 486)
        // 0.02 % of 250 hPa is 0.05 hPa: 5 ft of pressure altitude at FL350.
        #expect(worstHypsometric < 2e-4, "\(worstHypsometric)")
    }

    /// Band centres in mid-winter and mid-summer are the pure profiles; the season flips south of the equator;
    /// weights add up to 1 everywhere.
    @Test func blending() {
        let january = 1_768_460_400.0   // 2026-01-15 06:00 UTC
        let july = 1_784_095_200.0      // 2026-07-15 06:00 UTC
        let north = AtmosphereClimatology.weights(latitudeDegrees: 60, unixSeconds: january)
        #expect(north.first { $0.0 == .highLatitudeWinter }.map { $0.1 > 0.99 } == true)
        let south = AtmosphereClimatology.weights(latitudeDegrees: -60, unixSeconds: january)
        #expect(south.first { $0.0 == .highLatitudeSummer }.map { $0.1 > 0.99 } == true)
        #expect(AtmosphereClimatology.weights(latitudeDegrees: 30, unixSeconds: july).first { $0.0 == .midLatitudeSummer }.map { $0.1 > 0.99 } == true)
        #expect(AtmosphereClimatology.weights(latitudeDegrees: 5, unixSeconds: july).map(\.0) == [.lowLatitude])
        for latitude in stride(from: -90.0, through: 90, by: 7.5) {
            for day in stride(from: 0.0, through: 365, by: 30) {
                let sum = AtmosphereClimatology.weights(latitudeDegrees: latitude, unixSeconds: january + day * 86_400).reduce(0) { $0 + $1.1 }
                #expect(abs(sum - 1) < 1e-12)
            }
        }
    }

    /// The offset's mean follows the profile: tropics warm (GNSS above pressure altitude at FL350 by ≈ 1,600 ft, like
    /// ISA+11.5), high-latitude winter cold (≈ −1,900 ft at FL330); σ is the tropics' smaller day-to-day spread.
    @Test func offsetsByLatitudeAndSeason() {
        let july = 1_784_095_200.0, january = 1_768_460_400.0
        let tropics = AtmosphereClimatology.offset(latitudeDegrees: 10, unixSeconds: july, mslFeet: 36_600, qnhHectopascals: nil)
        #expect(tropics.meanFeet > 1_450 && tropics.meanFeet < 1_750, "\(tropics)")
        #expect(tropics.sigmaFeet < 300, "\(tropics)")
        let arctic = AtmosphereClimatology.offset(latitudeDegrees: 60, unixSeconds: january, mslFeet: 31_070, qnhHectopascals: nil)
        #expect(arctic.meanFeet < -1_750 && arctic.meanFeet > -2_100, "\(arctic)")
        #expect(arctic.sigmaFeet > 500 && arctic.sigmaFeet < 700, "\(arctic)")
        #expect(arctic.isaDeviationCelsius < -5, "\(arctic)")
    }
}
