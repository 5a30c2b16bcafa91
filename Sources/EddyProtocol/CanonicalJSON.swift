package import EddySupport
package import EddyVocabulary
package import Foundation

/// Fast decoding of the largest answer, a turbulence fetch, when it is laid out exactly as eddy-server writes
/// it (keys in its order, no whitespace, no string escapes). Anything else returns nil and the caller uses
/// `JSONDecoder`, so a different server (or a future layout) is still read correctly, only more slowly.
package enum CanonicalTurbulenceDecoder {
    /// The decoded answer, or nil when the bytes are not in the canonical layout.
    package static func decode(_ data: Data) -> DeltaFetchResponse? {
        data.withUnsafeBytes { raw -> DeltaFetchResponse? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            var scanner = CanonicalScanner(bytes: base, count: raw.count)
            return scanner.turbulenceResponse()
        }
    }
}

/// Reads the canonical layout byte by byte; every method returns nil (or false) at the first deviation.
struct CanonicalScanner {
        let bytes: UnsafePointer<UInt8>
        let count: Int
        var position = 0

        init(bytes: UnsafePointer<UInt8>, count: Int) { self.bytes = bytes; self.count = count }

        mutating func turbulenceResponse() -> DeltaFetchResponse? {
            guard literal(#"{"dataType":"turbulence","serverTick":"#), let tick = integer(),
                  literal(#","full":"#), let full = boolean(),
                  literal(#","nowcast":[],"liveFlights":[],"observations":["#) else { return nil }
            guard let observations = elements(reserving: count / 260, { $0.observation() }) else { return nil }
            var offsets: [AltitudeOffsetCell]?
            if literal(#","altitudeOffsets":["#) {
                guard let cells = elements({ $0.altitudeOffsetCell() }) else { return nil }
                offsets = cells
            }
            var cursor: String?
            if literal(#","nextCursor":""#) {
                guard let text = plainString() else { return nil }
                cursor = text
            }
            guard literal("}"), position == count else { return nil }
            return DeltaFetchResponse(
                dataType: .turbulence, serverTick: tick, full: full, observations: observations, altitudeOffsets: offsets,
                nextCursor: cursor)
        }

        /// `{"h3":…,"layer":…,"offsetFeet":…,"uncertaintyFeet":…,"observationCount":…,"newestTime":…}`
        mutating func altitudeOffsetCell() -> AltitudeOffsetCell? {
            guard literal(#"{"h3":"#), let h3 = unsigned(), literal(#","layer":"#), let layer = integer(),
                  literal(#","offsetFeet":"#), let offset = double(), literal(#","uncertaintyFeet":"#), let uncertainty = double(),
                  literal(#","observationCount":"#), let count = integer(), literal(#","newestTime":"#), let newest = double(),
                  literal("}")
            else { return nil }
            return AltitudeOffsetCell(
                h3: h3, layer: layer, offsetFeet: offset, uncertaintyFeet: uncertainty, observationCount: count, newestTime: newest)
        }

        mutating func observation() -> Observation? {
            guard literal(#"{"report":"#), let report = report(), literal(#","reporterId":""#), let reporterId = plainString(),
                  literal(#","tick":"#), let tick = integer(), literal("}") else { return nil }
            return Observation(report: report, reporterId: reporterId, tick: tick)
        }

        /// `{"id":…,"tile":{"h3":…,"layer":…},"enterTime":…,"exitTime":…,"edrPeak":…,"edrMedian":…,"reporterClass":…}`,
        /// then optionally, in this order, `"altitudeSource":…`, `"altitudeU90Feet":…`, `"layerUncertain":…` before the
        /// closing brace. An unknown altitude source is not canonical (the `JSONDecoder` fallback explains the error).
        mutating func report() -> TileReport? {
            guard literal(#"{"id":""#), let id = uuid(), literal(#"","tile":{"h3":"#), let h3 = unsigned(),
                  literal(#","layer":"#), let layer = integer(), literal(#"},"enterTime":"#), let enter = double(),
                  literal(#","exitTime":"#), let exit = double(), literal(#","edrPeak":"#), let peak = double(),
                  literal(#","edrMedian":"#), let median = double(), literal(#","reporterClass":""#),
                  let classText = plainString(), let reporterClass = AircraftClass(rawValue: classText)
            else { return nil }
            var source: AltitudeSource?
            var u90: Double?
            var uncertain: Bool?
            if literal(#","altitudeSource":""#) {
                guard let text = plainString(), let known = AltitudeSource(rawValue: text) else { return nil }
                source = known
            }
            if literal(#","altitudeU90Feet":"#) {
                guard let value = double() else { return nil }
                u90 = value
            }
            if literal(#","layerUncertain":"#) {
                guard let flag = boolean() else { return nil }
                uncertain = flag
            }
            guard literal("}") else { return nil }
            return TileReport(
                id: id, tile: TileID(h3: h3, layer: layer), enterTime: enter, exitTime: exit, edrPeak: peak, edrMedian: median,
                reporterClass: reporterClass, altitudeSource: source, altitudeU90Feet: u90, layerUncertain: uncertain)
        }

        /// `{"reports":[report,…]}`
        mutating func reportBatch() -> ReportBatch? {
            guard literal(#"{"reports":["#), let reports = elements({ $0.report() }) else { return nil }
            guard literal("}"), position == count else { return nil }
            return ReportBatch(reports: reports)
        }

        /// The elements of a JSON array whose `[` was just read, up to and including its `]`; nil when one element
        /// does not parse or the separators are not canonical.
        mutating func elements<Element>(reserving capacity: Int = 0, _ element: (inout CanonicalScanner) -> Element?) -> [Element]? {
            var result: [Element] = []
            result.reserveCapacity(capacity)
            if literal("]") { return result }
            while true {
                guard let next = element(&self) else { return nil }
                result.append(next)
                if literal(",") { continue }
                return literal("]") ? result : nil
            }
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let at = position, available = count - position, source = bytes
            let length = text.withUTF8Buffer { expected -> Int? in
                guard expected.count <= available, let start = expected.baseAddress,
                      memcmp(source + at, start, expected.count) == 0 else { return nil }
                return expected.count
            }
            guard let length else { return false }
            position += length
            return true
        }

        mutating func boolean() -> Bool? {
            if literal("true") { return true }
            if literal("false") { return false }
            return nil
        }

        /// JSON digits (no leading zeros) as an unsigned integer.
        mutating func unsigned() -> UInt64? {
            if position + 1 < count, bytes[position] == 0x30, bytes[position + 1] >= 0x30, bytes[position + 1] <= 0x39 { return nil }
            var value: UInt64 = 0
            let start = position
            while position < count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(bytes[position] - 0x30))
                guard !overflow1, !overflow2 else { return nil }
                value = sum
                position += 1
            }
            return position > start ? value : nil
        }

        mutating func integer() -> Int? {
            let negative = literal("-")
            guard let magnitude = unsigned(), magnitude <= UInt64(Int.max) else { return nil }
            return negative ? -Int(magnitude) : Int(magnitude)
        }

        /// A JSON number (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), converted by the standard library.
        mutating func double() -> Double? {
            let start = position
            _ = literal("-")
            if position < count, bytes[position] == 0x30 {
                position += 1
            } else {
                guard digits() else { return nil }
            }
            if literal(".") { guard digits() else { return nil } }
            if position < count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if !literal("+") { _ = literal("-") }
                guard digits() else { return nil }
            }
            return parse(start)
        }

        /// One or more ASCII digits.
        mutating func digits() -> Bool {
            let start = position
            while position < count, bytes[position] >= 0x30, bytes[position] <= 0x39 { position += 1 }
            return position > start
        }

        func parse(_ start: Int) -> Double? {
            guard position > start else { return nil }
            let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: position - start), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { return nil }
            // A zero is read here only when written without an exponent ("0", "-0.0"). JSONDecoder refuses a number
            // that underflows to zero (7E-3805: "not representable") and a negative zero with an exponent (-0.0e5),
            // so the fast path declines both and leaves the answer to JSONDecoder (fuzz finding, docs/reliability.md §7).
            if value == 0, (start..<position).contains(where: { bytes[$0] == UInt8(ascii: "e") || bytes[$0] == UInt8(ascii: "E") }) {
                return nil
            }
            return value
        }

        /// A string without escapes, ending at the next quote (consumed).
        mutating func plainString() -> String? {
            let start = position
            while position < count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: position - start), as: UTF8.self)
                    position += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                position += 1
            }
            return nil
        }

        /// 36 characters `8-4-4-4-12` hex (either case), not consuming the closing quote.
        mutating func uuid() -> UUID? {
            guard position + 36 <= count else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var ok = true
            withUnsafeMutableBytes(of: &value) { out in
                var index = position
                for byteIndex in 0..<16 {
                    if [4, 6, 8, 10].contains(byteIndex) {
                        guard bytes[index] == UInt8(ascii: "-") else { ok = false; return }
                        index += 1
                    }
                    guard let high = Self.hex(bytes[index]), let low = Self.hex(bytes[index + 1]) else { ok = false; return }
                    out[byteIndex] = high << 4 | low
                    index += 2
                }
            }
            guard ok else { return nil }
            position += 36
            return UUID(uuid: value)
        }

        static func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
    }

/// The canonical layout of a report batch, written by the client and read first by the server (which falls back
/// to `JSONDecoder` for any other valid JSON): `{"reports":[{"id":…,"tile":{"h3":…,"layer":…},"enterTime":…,
/// "exitTime":…,"edrPeak":…,"edrMedian":…,"reporterClass":…},…]}`, each report followed by `"altitudeSource"`,
/// `"altitudeU90Feet"` and `"layerUncertain"` when it has them (absent keys: not recorded, as old clients send).
package enum CanonicalReportBatch {
    /// The batch in canonical layout; nil when a number is not finite (the layout never carries `null`; the caller
    /// falls back to `JSONEncoder`, which refuses it too). Numbers follow the JSON writer's policy, whole numbers bare.
    package static func encode(_ batch: ReportBatch) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + batch.reports.count * 200)
        bytes.appendJSONASCII("{\"reports\":[")
        for (index, report) in batch.reports.enumerated() {
            guard report.enterTime.isFinite, report.exitTime.isFinite, report.edrPeak.isFinite, report.edrMedian.isFinite,
                  report.altitudeU90Feet?.isFinite ?? true
            else { return nil }
            if index > 0 { bytes.appendJSONByte(0x2C) }
            WireJSON.writeReport(report, into: &bytes)
        }
        bytes.appendJSONASCII("]}")
        return Data(bytes)
    }

    /// The batch, or nil when the bytes are not in the canonical layout.
    package static func decode(_ data: Data) -> ReportBatch? {
        data.withUnsafeBytes { raw -> ReportBatch? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            var scanner = CanonicalScanner(bytes: base, count: raw.count)
            return scanner.reportBatch()
        }
    }
}

/// The wire JSON of the protocol's objects, written straight into a byte sink (the client's report batches and the
/// server's fetch answers share it). Numbers follow the JSON writer's policy, whole numbers bare, as `JSONEncoder` writes them.
package enum WireJSON {
    /// Writes `report` as its wire object (`{"id":…,"tile":{…},…,"reporterClass":…}`, then `altitudeSource`,
    /// `altitudeU90Feet` and `layerUncertain` when present: a nil field is left out); its numbers must be finite.
    package static func writeReport<Sink: JSONSink>(_ report: TileReport, into sink: inout Sink) {
        sink.appendJSONASCII("{\"id\":\"")
        sink.appendJSONText(report.id.uuidString)
        sink.appendJSONASCII("\",\"tile\":{\"h3\":")
        sink.writeJSONInteger(report.tile.h3)
        sink.appendJSONASCII(",\"layer\":")
        sink.writeJSONInteger(report.tile.layer)
        sink.appendJSONASCII("},\"enterTime\":")
        sink.writeJSONNumber(report.enterTime)
        sink.appendJSONASCII(",\"exitTime\":")
        sink.writeJSONNumber(report.exitTime)
        sink.appendJSONASCII(",\"edrPeak\":")
        sink.writeJSONNumber(report.edrPeak)
        sink.appendJSONASCII(",\"edrMedian\":")
        sink.writeJSONNumber(report.edrMedian)
        sink.appendJSONASCII(",\"reporterClass\":")
        sink.writeJSONString(report.reporterClass.rawValue)
        if let source = report.altitudeSource {
            sink.appendJSONASCII(",\"altitudeSource\":")
            sink.writeJSONString(source.rawValue)
        }
        if let u90 = report.altitudeU90Feet {
            sink.appendJSONASCII(",\"altitudeU90Feet\":")
            sink.writeJSONNumber(u90)
        }
        if let uncertain = report.layerUncertain {
            sink.appendJSONASCII(uncertain ? ",\"layerUncertain\":true" : ",\"layerUncertain\":false")
        }
        sink.appendJSONByte(0x7D)
    }

    /// Writes a fleet altitude offset cell as its wire object
    /// (`{"h3":…,"layer":…,"offsetFeet":…,"uncertaintyFeet":…,"observationCount":…,"newestTime":…}`); its numbers
    /// must be finite.
    package static func writeAltitudeOffsetCell<Sink: JSONSink>(_ cell: AltitudeOffsetCell, into sink: inout Sink) {
        sink.appendJSONASCII("{\"h3\":")
        sink.writeJSONInteger(cell.h3)
        sink.appendJSONASCII(",\"layer\":")
        sink.writeJSONInteger(cell.layer)
        sink.appendJSONASCII(",\"offsetFeet\":")
        sink.writeJSONNumber(cell.offsetFeet)
        sink.appendJSONASCII(",\"uncertaintyFeet\":")
        sink.writeJSONNumber(cell.uncertaintyFeet)
        sink.appendJSONASCII(",\"observationCount\":")
        sink.writeJSONInteger(cell.observationCount)
        sink.appendJSONASCII(",\"newestTime\":")
        sink.writeJSONNumber(cell.newestTime)
        sink.appendJSONByte(0x7D)
    }
}
