import EddyProtocol
import Foundation
import NIOCore

/// A hand-written JSON writer for the one large answer: a turbulence fetch (up to tens of thousands of
/// observations). Foundation's `JSONEncoder` spends most of a full corridor fetch walking nested containers;
/// this writes the same JSON (same keys, numbers in Swift's shortest round-trip form, UUIDs upper-case as
/// `JSONEncoder` writes them) straight into a buffer. `ServerTests` checks that both decode to equal values.
enum FastJSON {
    /// The JSON of a turbulence fetch answer.
    static func turbulenceResponse(_ response: DeltaFetchResponse) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(256 + response.observations.count * 260)
        buffer.writeString("{\"dataType\":\"\(response.dataType.wireName)\",\"serverTick\":\(response.serverTick),")
        buffer.writeString("\"full\":\(response.full),\"nowcast\":[],\"liveFlights\":[],\"observations\":[")
        for (index, observation) in response.observations.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            let report = observation.report
            buffer.writeStaticString("{\"report\":{\"id\":\"")
            buffer.writeString(report.id.uuidString)
            buffer.writeStaticString("\",\"tile\":{\"h3\":")
            buffer.writeString(String(report.tile.h3))
            buffer.writeStaticString(",\"layer\":")
            buffer.writeString(String(report.tile.layer))
            buffer.writeStaticString("},\"enterTime\":")
            buffer.writeString(number(report.enterTime))
            buffer.writeStaticString(",\"exitTime\":")
            buffer.writeString(number(report.exitTime))
            buffer.writeStaticString(",\"edrPeak\":")
            buffer.writeString(number(report.edrPeak))
            buffer.writeStaticString(",\"edrMedian\":")
            buffer.writeString(number(report.edrMedian))
            buffer.writeStaticString(",\"reporterClass\":\"")
            buffer.writeString(report.reporterClass.rawValue)
            buffer.writeStaticString("\"},\"reporterId\":")
            writeString(observation.reporterId, into: &buffer)
            buffer.writeStaticString(",\"tick\":")
            buffer.writeString(String(observation.tick))
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("]}")
        return buffer
    }

    /// A finite double in Swift's shortest round-trip form (valid JSON); non-finite values (never stored) as 0.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A JSON string literal with the escapes RFC 8259 requires.
    static func writeString(_ value: String, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": buffer.writeStaticString("\\\"")
            case "\\": buffer.writeStaticString("\\\\")
            case "\n": buffer.writeStaticString("\\n")
            case "\r": buffer.writeStaticString("\\r")
            case "\t": buffer.writeStaticString("\\t")
            case _ where scalar.value < 0x20: buffer.writeString(String(format: "\\u%04x", scalar.value))
            default: buffer.writeString(String(scalar))
            }
        }
        buffer.writeStaticString("\"")
    }
}
