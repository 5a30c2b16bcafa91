import EddyGeoid

/// The geoid the engine uses for HAE = MSL + N: EGM96 on its 15′ grid (docs/terrain-and-geoid.md).
enum Geoid {
    /// 1σ of the grid's bilinear interpolation against EGM96 itself (GeographicLib's table for egm96-15: 40 mm RMS).
    static let interpolationSigmaMeters = 0.04

    /// Undulation N, metres (nil for an invalid position).
    static func undulationMeters(latitudeDegrees: Double, longitudeDegrees: Double) -> Double? {
        EGM96.undulationMeters(latitudeDegrees: latitudeDegrees, longitudeDegrees: longitudeDegrees)
    }
}
