// Height above terrain (HAT) from an MSL altitude and an SRTM elevation, with an uncertainty that combines the
// altitude's and the DEM's. Both heights are above the EGM96 geoid (SRTM is referenced to it), so HAT = MSL - terrain.
// The uncertainty model and its sources are in docs/terrain-and-geoid.md §4.

/// SRTM vertical accuracy used for the DEM's share of the HAT uncertainty.
package enum SRTMAccuracy {
    /// SRTM's specified absolute height error at 90 % confidence (LE90), metres: 16 m (Farr et al. 2007,
    /// "The Shuttle Radar Topography Mission", Rev. Geophys. 45, RG2004, Table 1; Rodríguez et al. 2006 measured
    /// 5.6–9.0 m LE90 by continent, so this is conservative).
    package static let absoluteErrorLE90Meters = 16.0
}

/// Height above terrain with its two-sided 68 % and 90 % uncertainty half-widths (Gaussian errors assumed).
package struct HeightAboveTerrain: Sendable, Equatable {
    /// MSL altitude minus terrain elevation, metres (negative when the altitude lies below the terrain model).
    package let meters: Double
    /// Half-width of the 68 % interval (≈ 1 σ), metres.
    package let uncertainty68Meters: Double
    /// Half-width of the 90 % interval (1.645 σ), metres.
    package let uncertainty90Meters: Double
}

/// z-scores of the two-sided 68 % and 90 % intervals of a normal distribution.
enum NormalQuantile {
    /// Φ⁻¹(0.84): two-sided 68 %.
    static let z68 = 0.994457883209753
    /// Φ⁻¹(0.95): two-sided 90 %.
    static let z90 = 1.6448536269514722
}

extension TerrainElevation {
    /// Height above this terrain of an aircraft at `mslMeters` whose altitude has a 68 % half-width `uMSL68Meters`;
    /// the DEM contributes σ = `demLE90Meters` / 1.645 and the two add in quadrature. Nil when there is no terrain
    /// value (`.void`, `.noTile`) or an input is not finite or an uncertainty negative.
    package func heightAboveTerrain(
        mslMeters: Double, uMSL68Meters: Double, demLE90Meters: Double = SRTMAccuracy.absoluteErrorLE90Meters
    ) -> HeightAboveTerrain? {
        guard case .meters(let terrainMeters) = self,
              mslMeters.isFinite, uMSL68Meters.isFinite, demLE90Meters.isFinite,
              uMSL68Meters >= 0, demLE90Meters >= 0
        else { return nil }
        let altitudeSigma = uMSL68Meters / NormalQuantile.z68
        let demSigma = demLE90Meters / NormalQuantile.z90
        let sigma = (altitudeSigma * altitudeSigma + demSigma * demSigma).squareRoot()
        return HeightAboveTerrain(
            meters: mslMeters - terrainMeters,
            uncertainty68Meters: sigma * NormalQuantile.z68,
            uncertainty90Meters: sigma * NormalQuantile.z90
        )
    }
}
