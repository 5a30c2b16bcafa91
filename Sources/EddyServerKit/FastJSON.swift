#if Tools
package import EddyProtocol
import EddySupport
import EddyVocabulary
import Foundation
package import NIOCore

/// A hand-written JSON writer for the one large answer: a turbulence fetch (up to tens of thousands of
/// observations). Foundation's `JSONEncoder` spends most of a full corridor fetch walking nested containers;
/// this writes the same JSON (same keys, numbers and strings by the JSON writer of EddySupport: shortest round-trip, whole numbers bare,
/// UUIDs upper-case as `JSONEncoder` writes them) straight into a buffer. `ServerTests` checks that both decode to
/// equal values.
package enum FastJSON {
    /// The JSON of a turbulence fetch answer.
    ///
    /// The wire format has no `null` for a report's numbers, so an observation with a non-finite time, EDR or
    /// altitude uncertainty (which the upload check never lets into the database) is left out rather than sent as a
    /// made-up number; likewise a fleet altitude offset cell with a non-finite number. `altitudeOffsets` follows
    /// `observations` when the answer has it, then `nextCursor` when more pages follow.
    package static func turbulenceResponse(_ response: DeltaFetchResponse) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(256 + response.observations.count * 260)
        buffer.writeString("{\"dataType\":\"\(response.dataType.wireName)\",\"serverTick\":\(response.serverTick),")
        buffer.writeString("\"full\":\(response.full),\"nowcast\":[],\"liveFlights\":[],\"observations\":[")
        var first = true
        for observation in response.observations {
            let report = observation.report
            guard report.enterTime.isFinite, report.exitTime.isFinite, report.edrPeak.isFinite, report.edrMedian.isFinite,
                  report.altitudeU90Feet?.isFinite ?? true
            else { continue }
            if !first { buffer.writeStaticString(",") }
            first = false
            buffer.writeStaticString("{\"report\":")
            WireJSON.writeReport(report, into: &buffer)
            buffer.writeStaticString(",\"reporterId\":")
            buffer.writeJSONString(observation.reporterId)
            buffer.writeStaticString(",\"tick\":")
            buffer.writeJSONInteger(observation.tick)
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("]")
        if let offsets = response.altitudeOffsets {
            buffer.writeStaticString(",\"altitudeOffsets\":[")
            var firstCell = true
            for cell in offsets where cell.offsetFeet.isFinite && cell.uncertaintyFeet.isFinite && cell.newestTime.isFinite {
                if !firstCell { buffer.writeStaticString(",") }
                firstCell = false
                WireJSON.writeAltitudeOffsetCell(cell, into: &buffer)
            }
            buffer.writeStaticString("]")
        }
        if let cursor = response.nextCursor {
            buffer.writeStaticString(",\"nextCursor\":")
            buffer.writeJSONString(cursor)
        }
        buffer.writeStaticString("}")
        return buffer
    }
}

/// The JSON writer writes straight into NIO's buffer (EddySupport itself does not depend on NIO).
extension ByteBuffer: JSONSink {
    /// Appends UTF-8 bytes.
    package mutating func appendJSONBytes(_ bytes: UnsafeRawBufferPointer) { writeBytes(bytes) }
    /// Appends one ASCII byte.
    package mutating func appendJSONByte(_ byte: UInt8) { writeInteger(byte) }
}
#endif
