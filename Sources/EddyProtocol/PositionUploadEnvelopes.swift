package import EddyVocabulary

// `POST /v1/position`: the own position for the live-flights layer and the optional fleet altitude offset.

/// The own position for the live-flights layer (the fields of the `POST /v1/position` body).
package typealias PositionUpload = LiveFlight

/// `POST /v1/position` body: the own position (`LiveFlight`'s wire fields) plus, from an aircraft that knows both its
/// GNSS and its pressure altitude, an optional fleet altitude offset `altitudeOffset` (docs/protocol.md).
package struct PositionUploadBody: Sendable, Equatable, Codable {
    /// The position (its wire fields are the body's top-level fields).
    package var position: PositionUpload
    /// The aircraft's measured geometric − pressure altitude offset; nil when it has no pressure source (not sent).
    package var altitudeOffset: AltitudeOffsetObservation?

    /// Creates a body.
    package init(position: PositionUpload, altitudeOffset: AltitudeOffsetObservation? = nil) {
        self.position = position
        self.altitudeOffset = altitudeOffset
    }

    private enum CodingKeys: String, CodingKey { case altitudeOffset }

    /// Reads the position's wire fields and the optional `altitudeOffset` (absent or `null`: none).
    package init(from decoder: any Decoder) throws {
        position = try PositionUpload(from: decoder)
        altitudeOffset = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(AltitudeOffsetObservation.self, forKey: .altitudeOffset)
    }

    /// Writes the position's wire fields, then `altitudeOffset` when there is one.
    package func encode(to encoder: any Encoder) throws {
        try position.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(altitudeOffset, forKey: .altitudeOffset)
    }
}
