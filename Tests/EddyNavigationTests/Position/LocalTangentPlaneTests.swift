import EddySimulation
import Foundation
import Testing
@testable import EddyNavigation
@testable import EddyVocabulary

@Suite struct LocalTangentPlaneTests {
    /// Geodetic → ECEF → geodetic returns the input over the whole globe, poles and antimeridian included.
    @Test func geodeticRoundTrip() {
        var random = Xoshiro256StarStar(seed: 11)
        var worstDegrees = 0.0
        var cases: [(Double, Double)] = [(90, 0), (-90, 0), (90, 123), (0, 180), (0, -180), (45, 180), (-89.999_999, 179.999_999)]
        for _ in 0..<20_000 { cases.append((random.nextUniform() * 180 - 90, random.nextUniform() * 360 - 180)) }
        for (lat, lon) in cases {
            let back = WGS84.geodetic(WGS84.ecef(latitudeDegrees: lat, longitudeDegrees: lon))
            #expect(back.latitudeDegrees.isFinite && back.longitudeDegrees.isFinite)
            worstDegrees = max(worstDegrees, abs(back.latitudeDegrees - lat))
            if abs(lat) < 89.999 {
                var dLon = abs(back.longitudeDegrees - lon)
                if dLon > 180 { dLon = 360 - dLon }
                worstDegrees = max(worstDegrees, dLon)
            }
        }
        #expect(worstDegrees < 1e-9)  // ≈ 0.1 mm
    }

    /// Heikkinen's latitude is exact for points above and below the surface too (the filter's plane points lie up to
    /// tens of metres above the ellipsoid).
    @Test func geodeticOfPointsOffTheSurface() {
        for (lat, lon, h) in [(47.0, 8.0, 12_000.0), (-33.9, 151.2, -100), (89.9, 0, 500), (0, 0, 10_000)] {
            let p = WGS84.ecef(latitudeDegrees: lat, longitudeDegrees: lon, heightMeters: h)
            let back = WGS84.geodetic(p)
            #expect(abs(back.latitudeDegrees - lat) < 1e-9)
            #expect(abs(back.longitudeDegrees - lon) < 1e-9)
        }
    }

    /// Offsets built with the test's own local-frame formulas project to the same east/north metres, and a plane
    /// point maps back to the position, within 2 cm up to 3 km from the origin — at the poles and the antimeridian.
    @Test func planeAgreesWithIndependentLocalFrame() {
        var random = Xoshiro256StarStar(seed: 12)
        let origins: [(Double, Double)] = [(47.4, 8.5), (60, 179.99), (-45, -179.99), (89.99, 30), (-89.99, -60),
                                           (90, 0), (0, 0)]
        for (lat, lon) in origins {
            let plane = LocalTangentPlane(latitudeDegrees: lat, longitudeDegrees: lon)
            let origin = TruthPoint(t: 0, latitudeDegrees: lat, longitudeDegrees: lon, velocityEast: 0, velocityNorth: 0)
            for _ in 0..<200 {
                let e = random.nextUniform() * 6000 - 3000, n = random.nextUniform() * 6000 - 3000
                let p = plane.geodetic(eastMeters: e, northMeters: n)
                #expect(p.latitudeDegrees.isFinite && p.longitudeDegrees.isFinite)
                #expect(abs(p.longitudeDegrees) <= 180 && abs(p.latitudeDegrees) <= 90)
                let back = plane.project(latitudeDegrees: p.latitudeDegrees, longitudeDegrees: p.longitudeDegrees)
                #expect(hypot(back.eastMeters - e, back.northMeters - n) < 0.02)
                let independent = origin.offsetMeters(toLatitude: p.latitudeDegrees, longitude: p.longitudeDegrees)
                #expect(hypot(independent.east - e, independent.north - n) < 0.02)
            }
        }
    }

    /// The rotation between two planes turns a vector exactly as going through ECEF does; near the pole it is large.
    @Test func horizontalRotationNearThePole() {
        let a = LocalTangentPlane(latitudeDegrees: 89.99, longitudeDegrees: 0)
        let b = LocalTangentPlane(latitudeDegrees: 89.99, longitudeDegrees: 90)
        let r = a.horizontalRotation(to: b)
        // A vector pointing east at a (ECEF +y) points south at b… but its components must agree with projection.
        let v = Vector3(0, 1, 0)
        let inA = a.components(of: v), inB = b.components(of: v)
        let turned = (r.cos * inA.east + r.sin * inA.north, -r.sin * inA.east + r.cos * inA.north)
        #expect(abs(turned.0 - inB.east) < 1e-3 && abs(turned.1 - inB.north) < 1e-3)
        #expect(abs(atan2(r.sin, r.cos)) > 1.5)  // ≈ 90° of meridian convergence
    }

    /// The 68 % and 90 % radii of a circular 2-D Gaussian: closed form √(−2 ln(1 − p)) and a Monte Carlo check.
    /// (1.515σ, sometimes quoted, is the 68.27 % radius; the 68 % radius is 1.5096σ.)
    @Test func circularGaussianRadii() {
        #expect(abs(CircularGaussian.radius68PerSigma - 1.509_592) < 1e-6)
        #expect(abs(CircularGaussian.radius90PerSigma - 2.145_966) < 1e-6)
        #expect(abs(1 - exp(-pow(1.515_195, 2) / 2) - 0.6827) < 1e-4)
        var random = Xoshiro256StarStar(seed: 13)
        var in68 = 0, in90 = 0
        let n = 200_000
        for _ in 0..<n {
            let r = hypot(random.nextGaussian(), random.nextGaussian())
            if r <= CircularGaussian.radius68PerSigma { in68 += 1 }
            if r <= CircularGaussian.radius90PerSigma { in90 += 1 }
        }
        #expect(abs(Double(in68) / Double(n) - 0.68) < 0.004)
        #expect(abs(Double(in90) / Double(n) - 0.90) < 0.004)
    }

    /// The mixture radii hold their probability when σ itself is off by a log-normal factor (Monte Carlo).
    @Test func mixtureRadiiHoldTheirProbability() {
        #expect(abs(CircularGaussian.mixtureRadius(probability: 0.9, logSigma: 0) - CircularGaussian.radius90PerSigma) < 1e-9)
        let s = 0.35
        let k68 = CircularGaussian.mixtureRadius(probability: 0.68, logSigma: s)
        let k90 = CircularGaussian.mixtureRadius(probability: 0.90, logSigma: s)
        #expect(k90 > CircularGaussian.radius90PerSigma)
        var random = Xoshiro256StarStar(seed: 14)
        var in68 = 0, in90 = 0
        let n = 200_000
        for _ in 0..<n {
            let scale = exp(s * random.nextGaussian())
            let r = scale * hypot(random.nextGaussian(), random.nextGaussian())
            if r <= k68 { in68 += 1 }
            if r <= k90 { in90 += 1 }
        }
        #expect(abs(Double(in68) / Double(n) - 0.68) < 0.004)
        #expect(abs(Double(in90) / Double(n) - 0.90) < 0.004)
    }
}
