import EddyProtocol
import EddyVocabulary
import Foundation
import Testing

/// The domain types moved out of EddyProtocol keep the wire's JSON (docs/openapi.yaml): same keys, same values
/// (Foundation's `JSONEncoder` does not promise a key order, so the comparison sorts keys).
@Suite struct WireVocabularyTests {
    private func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func dataTypesUseTheWireNames() throws {
        #expect(try json(DataType.turbulencePolygons) == #""polygons""#)
        #expect(try json(DataType.allCases) == #"["turbulence","nowcast","polygons","liveFlights"]"#)
        #expect(try json(DataAreaType.allCases) == #"["route","viewport","global"]"#)
        #expect(try JSONDecoder().decode(DataType.self, from: Data(#""polygons""#.utf8)) == .turbulencePolygons)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DataType.self, from: Data(#""turbulencePolygons""#.utf8)) }
        // The store and the host API keep their spelling.
        #expect(DataType.turbulencePolygons.rawValue == "turbulencePolygons")
    }

    @Test func liveFlightWritesExactlyTheWireFieldsAndReadsThemBack() throws {
        let flight = LiveFlight(flightID: "DAL12", latitude: 10.5, longitude: -20.25, altitudeFeet: 35000, headingDegrees: 90,
                                groundSpeedKnots: 450, aircraftType: "B738", flightNumber: "DL12", departure: "KATL",
                                tile: TileID(h3: 1, layer: 35), time: 1_800_000_000)
        let text = try json(flight)
        #expect(text == #"{"aircraftType":"B738","altitudeFeet":35000,"flightId":"DAL12","flightNumber":"DL12","headingDegrees":90,"lat":10.5,"lng":-20.25,"speedKnots":450,"time":1800000000}"#)
        let decoded = try JSONDecoder().decode(LiveFlight.self, from: Data(text.utf8))
        #expect(decoded == LiveFlight(flightID: "DAL12", latitude: 10.5, longitude: -20.25, altitudeFeet: 35000, headingDegrees: 90,
                                      groundSpeedKnots: 450, aircraftType: "B738", flightNumber: "DL12", time: 1_800_000_000))
        // The flight number is optional (left out when nil; another airline's flights never carry it).
        var anonymous = flight
        anonymous.flightNumber = nil
        #expect(try !json(anonymous).contains("flightNumber"))
        // Every wire field is required.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LiveFlight.self, from: Data(#"{"flightId":"A","lat":1,"lng":2,"altitudeFeet":3,"headingDegrees":4,"speedKnots":5,"time":6}"#.utf8))
        }
    }

    /// A fetched flight is placed in its tile; one whose altitude has no layer (not finite, or beyond any flight
    /// level, as a misbehaving server might send) is not placed, and nothing traps converting it.
    @Test func liveFlightsAreOnlyPlacedAtPlausibleAltitudes() throws {
        let flight = LiveFlight(flightID: "DAL12", latitude: 10.5, longitude: -20.25, altitudeFeet: 35_400,
                                headingDegrees: 90, groundSpeedKnots: 450, aircraftType: "B738", time: 1_800_000_000)
        #expect(flight.positionTile?.layer == 35)
        for altitude in [Double.infinity, -.infinity, .nan, 1e300, -1e300, 2e6] {
            var odd = flight
            odd.altitudeFeet = altitude
            #expect(odd.positionTile == nil, "altitude \(altitude)")
        }
    }

    @Test func nowcastCellKeepsTheWireFields() throws {
        let cell = NowcastCell(tile: TileID(h3: 7, layer: 30), validTime: 7200, forecastHour: 2, edr: 0.25, issueTime: 0)
        #expect(try json(cell) == #"{"edr":0.25,"forecastHour":2,"issueTime":0,"provenance":"fleetMeasured","tile":{"h3":7,"layer":30},"validTime":7200}"#)
        // An older server's cell (no provenance) decodes as fleet measured; a forecast cell keeps its provenance.
        let old = #"{"edr":0.25,"forecastHour":2,"issueTime":0,"tile":{"h3":7,"layer":30},"validTime":7200}"#
        #expect(try JSONDecoder().decode(NowcastCell.self, from: Data(old.utf8)) == cell)
        var forecast = cell
        forecast.provenance = .forecast
        #expect(try JSONDecoder().decode(NowcastCell.self, from: JSONEncoder().encode(forecast)).provenance == .forecast)
    }
}
