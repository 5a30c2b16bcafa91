/// Parses RFC 3339 / ISO 8601 instants (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`) into Unix epoch seconds without
/// Foundation's ICU-backed `ISO8601DateFormatter`: loading ICU's data costs ≈ 6 MB of resident memory, more than the
/// engine's own working set in a 12-hour replay. The date is converted with H. Hinnant's days-from-civil algorithm
/// ("chrono-compatible low-level date algorithms", http://howardhinnant.github.io/date_algorithms.html), proleptic
/// Gregorian. Impossible dates (2026-04-31, 2100-02-29) are refused.
enum ISO8601Instant {
    /// Unix epoch seconds of `text`, or nil when it is not such an instant.
    static func epochSeconds(_ text: String) -> Double? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<(start + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...monthDays).contains(day) else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            var scale = 0.1
            while i < b.count, (48...57).contains(b[i]) {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offsetSeconds = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 6 <= b.count, b[i + 3] == UInt8(ascii: ":"),
                  let offsetHours = number(i + 1, 2), let offsetMinutes = number(i + 4, 2), offsetHours < 24, offsetMinutes < 60 {
            offsetSeconds = (b[i] == UInt8(ascii: "+") ? 1 : -1) * (offsetHours * 3600 + offsetMinutes * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
    }
}
