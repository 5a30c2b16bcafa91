/// A geographic position in DEGREES (latitude north, longitude east).
public struct LatLng: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double

    /// Creates a position from degrees.
    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a position from radians, converting as the reference's `radsToDegs` (× 180/π).
    @inlinable
    public init(latitudeRadians: Double, longitudeRadians: Double) {
        self.latitude = latitudeRadians * 57.29577951308232
        self.longitude = longitudeRadians * 57.29577951308232
    }

    /// Latitude in radians, as the reference's `degsToRads` (× π/180).
    @inlinable
    public var latitudeRadians: Double { latitude * 0.017453292519943295 }

    /// Longitude in radians, as the reference's `degsToRads` (× π/180).
    @inlinable
    public var longitudeRadians: Double { longitude * 0.017453292519943295 }

    /// "lat,lng" in degrees.
    public var description: String { "\(latitude),\(longitude)" }
}

/// Errors thrown by EddyH3; each names what is wrong.
public enum H3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The index is not a valid H3 cell.
    case invalidCell
    /// A resolution outside 0...15, or a child/parent resolution on the wrong side of the cell's.
    case resolutionOutOfRange
    /// A latitude or longitude that is NaN or infinite.
    case nonFiniteCoordinates
    /// The operation crossed a pentagon's deleted sub-sequence (e.g. grid distance across a pentagon).
    case pentagonDistortion
    /// A negative or too large k / ring size.
    case invalidK
    /// The two cells are too far apart or on unrelated base cells, or not comparable (different resolutions).
    case cellsNotComparable
    /// A polygon with too few vertices or non-finite coordinates.
    case invalidPolygon
    /// The reference's generic failure (unexpected internal state, degenerate polygon bounding box).
    case failed
    /// The result would exceed `H3.maxOutputCells` (e.g. a huge k, children many levels down, a polygon far
    /// larger than the resolution suits).
    case tooManyCells

    /// Human-readable explanation with a hint.
    public var description: String {
        switch self {
        case .invalidCell: return "invalid H3 cell index (check the hex string / bits)"
        case .resolutionOutOfRange: return "resolution out of range (use 0...15, and a child resolution ≥ the cell's)"
        case .nonFiniteCoordinates: return "latitude/longitude must be finite numbers"
        case .pentagonDistortion: return "pentagon distortion: the path crosses a pentagon's deleted sub-sequence"
        case .invalidK: return "k must be ≥ 0"
        case .cellsNotComparable: return "cells are not comparable (different resolution or too far apart)"
        case .invalidPolygon: return "invalid polygon (needs ≥ 3 finite vertices per ring)"
        case .failed: return "H3 operation failed"
        case .tooManyCells: return "result too large (over \(H3.maxOutputCells) cells): use a coarser resolution or smaller k"
        }
    }
}
