import EddyH3
import Foundation
import Testing
@testable import EddyAlerts
@testable import EddyVocabulary

/// Along-track distance, time to reach and time to pass of a tile's hexagon (docs/engine.md "Along the track").
@Suite("Along the track")
struct AlongTrackTests {
    typealias F = AlertFixtures

    /// The tile `distanceNM` from the origin on `bearing`.
    static func tile(bearing: Double, distanceNM: Double) -> TileID {
        F.report(bearingDegrees: bearing, distanceNM: distanceNM).tile
    }

    /// Along-track extent of a hexagon on a local flat-earth (east/north) plane: an independent approximation of the
    /// spherical projection, good to well under 1 % within 100 NM.
    static func flatExtent(_ tile: TileID, own: Geodesy.Point, track: Double) -> (near: Double, far: Double) {
        let boundary = try! H3.cellToBoundary(H3Index(rawValue: tile.h3))
        let nmPerDegree = Geodesy.earthRadiusNM * .pi / 180
        let t = track * .pi / 180
        let along = boundary.map { v -> Double in
            let north = (v.latitude - own.latitude) * nmPerDegree
            let east = (v.longitude - own.longitude) * nmPerDegree * cos(own.latitude * .pi / 180)
            return north * cos(t) + east * sin(t)
        }
        return (along.min()!, along.max()!)
    }

    @Test("A tile ahead: near and far edges match a flat-earth projection; times are distance over ground speed")
    func aheadMatchesFlatProjection() throws {
        for (track, distance) in [(0.0, 30.0), (90.0, 55.0), (233.0, 80.0), (17.0, 12.0)] {
            let tile = Self.tile(bearing: track, distanceNM: distance)
            let motion = OwnMotion(latitudeDegrees: F.origin.latitude, longitudeDegrees: F.origin.longitude,
                                   trackDegrees: track, groundSpeedKnots: 450)
            let r = try #require(AlongTrackGeometry.relation(tile: tile, motion: motion))
            let flat = Self.flatExtent(tile, own: F.origin, track: track)
            #expect(abs(r.distanceNM - flat.near) < 0.01 * distance, "near edge \(r.distanceNM) vs flat \(flat.near)")
            #expect(abs(r.farEdgeNM - flat.far) < 0.01 * distance, "far edge \(r.farEdgeNM) vs flat \(flat.far)")
            // The hexagon (resolution 5: edge ≈ 5.3 NM, ≈ 9–11 NM across) lies around the centre's distance.
            let centre = Geodesy.distanceNM(from: F.origin, to: F.centre(tile))
            #expect(r.distanceNM < centre && centre < r.farEdgeNM)
            #expect(r.farEdgeNM - r.distanceNM > 8 && r.farEdgeNM - r.distanceNM < 12)
            let reach = try #require(r.timeToReachSeconds), pass = try #require(r.timeToPassSeconds)
            #expect(abs(reach - r.distanceNM / 450 * 3600) < 1e-9)
            #expect(abs(pass - r.farEdgeNM / 450 * 3600) < 1e-9)
        }
    }

    @Test("Behind, abeam outside the corridor, unknown track: nil; not moving: distance without times")
    func notAhead() throws {
        let motion = OwnMotion(latitudeDegrees: F.origin.latitude, longitudeDegrees: F.origin.longitude,
                               trackDegrees: 0, groundSpeedKnots: 300)
        #expect(AlongTrackGeometry.relation(tile: Self.tile(bearing: 180, distanceNM: 40), motion: motion) == nil)
        let abeam = Self.tile(bearing: 60, distanceNM: 60)   // ≈ 52 NM right of the track, 30 NM ahead
        #expect(AlongTrackGeometry.relation(tile: abeam, motion: motion, corridorHalfWidthNM: 20) == nil)
        #expect(AlongTrackGeometry.relation(tile: abeam, motion: motion, corridorHalfWidthNM: 60) != nil)
        var unknown = motion
        unknown.trackDegrees = nil
        #expect(AlongTrackGeometry.relation(tile: Self.tile(bearing: 0, distanceNM: 40), motion: unknown) == nil)
        var still = motion
        still.groundSpeedKnots = 2
        let r = try #require(AlongTrackGeometry.relation(tile: Self.tile(bearing: 0, distanceNM: 40), motion: still))
        #expect(r.distanceNM > 30 && r.timeToReachSeconds == nil && r.timeToPassSeconds == nil)
        still.groundSpeedKnots = nil
        #expect(AlongTrackGeometry.relation(tile: Self.tile(bearing: 0, distanceNM: 40), motion: still)?.timeToReachSeconds == nil)
    }

    @Test("Inside the hexagon: distance and time to reach 0, time to pass to the far edge")
    func inside() throws {
        let motion = OwnMotion(latitudeDegrees: F.origin.latitude, longitudeDegrees: F.origin.longitude,
                               trackDegrees: 45, groundSpeedKnots: 240)
        let r = try #require(AlongTrackGeometry.relation(tile: Self.tile(bearing: 0, distanceNM: 0), motion: motion))
        #expect(r.distanceNM == 0 && r.timeToReachSeconds == 0)
        #expect(r.farEdgeNM > 0 && r.farEdgeNM < 8)
        #expect(abs(try #require(r.timeToPassSeconds) - r.farEdgeNM / 240 * 3600) < 1e-9)
    }

    @Test("Trend: new without an earlier report, worse, better, same")
    func trend() {
        #expect(TurbulenceTrend(latest: .light, previous: nil) == .new)
        #expect(TurbulenceTrend(latest: .moderate, previous: .light) == .worse)
        #expect(TurbulenceTrend(latest: .none, previous: .light) == .better)
        #expect(TurbulenceTrend(latest: .light, previous: .light) == .same)
    }
}
