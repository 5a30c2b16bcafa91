/// A JSON object written key by key in call order (stable key order, numbers under the one number policy of
/// `JSONNumber`, strings escaped by `JSONString`): the JSON Lines of `eddy replay` and the CLI's engine timeline.
package struct JSONObject: Sendable {
    private var body: [UInt8] = []
    /// How whole numbers are spelled in this object (`3` or `3.0`).
    package let wholeNumbers: JSONWholeNumbers

    /// Creates an empty object.
    package init(wholeNumbers: JSONWholeNumbers = .bare) { self.wholeNumbers = wholeNumbers }

    /// The object's text.
    package var text: String {
        var bytes: [UInt8] = [0x7B]
        bytes.reserveCapacity(body.count + 2)
        bytes += body
        bytes.append(0x7D)
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func key(_ name: String) {
        if !body.isEmpty { body.append(0x2C) }
        body.writeJSONString(name)
        body.append(0x3A)
    }

    /// Adds a string.
    package mutating func string(_ name: String, _ value: String) {
        key(name)
        body.writeJSONString(value)
    }

    /// Adds a number (shortest decimal that reads back to the same double; non-finite as null).
    package mutating func number(_ name: String, _ value: Double) {
        key(name)
        body.writeJSONNumber(value, wholeNumbers: wholeNumbers)
    }

    /// Adds a number rounded to `decimals` decimals (`JSONNumber.fixed`).
    package mutating func fixed(_ name: String, _ value: Double, decimals: Int) {
        key(name)
        body.appendJSONText(JSONNumber.fixed(value, decimals: decimals, wholeNumbers: wholeNumbers))
    }

    /// Adds an integer.
    package mutating func integer(_ name: String, _ value: Int) {
        key(name)
        body.writeJSONInteger(value)
    }

    /// Adds a Boolean.
    package mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        if value { body.appendJSONASCII("true") } else { body.appendJSONASCII("false") }
    }

    /// Adds a null.
    package mutating func null(_ name: String) {
        key(name)
        body.appendJSONASCII("null")
    }

    /// Adds ready-made JSON (an array or object) as is.
    package mutating func raw(_ name: String, _ json: String) {
        key(name)
        body.appendJSONText(json)
    }

    /// A JSON array of ready-made JSON values.
    package static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}
