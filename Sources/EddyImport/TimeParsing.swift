/// Date and clock cells of sensor exports, parsed from bytes (no DateFormatter / ICU: see docs/import.md).
enum TimeParsing {
    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-compatible low-level date algorithms").
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count (inverse of `daysFromCivil`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Whether a day exists (month length, leap years).
    static func validDate(_ year: Int, _ month: Int, _ day: Int) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// ISO 8601 UTC text of epoch seconds, microsecond resolution: `2026-11-22T10:00:00.123456Z`.
    static func isoString(epochSeconds: Double) -> String {
        // Total: a non-finite time gives the epoch, and times are clamped to years 0…9999 (±3·10¹¹ s), far inside
        // Int64 microseconds (±9.2·10¹² s), so a corrupt export cannot trap here.
        let bounded = epochSeconds.isFinite ? min(max(epochSeconds, -62_167_219_200), 253_402_300_799) : 0
        let micros = Int64((bounded * 1e6).rounded())
        var days = Int(micros / 86_400_000_000)
        var rest = micros % 86_400_000_000
        if rest < 0 { rest += 86_400_000_000; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        let seconds = Int(rest / 1_000_000)
        let fraction = Int(rest % 1_000_000)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let base = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        return fraction == 0 ? base + "Z" : base + "." + pad(fraction, 6) + "Z"
    }

    /// A date and time: `YYYY-MM-DD` then `T` or blank, `HH?MM?SS` with `:` or `-` between the fields, an optional
    /// fraction after `.`, `,`, `:` or `_`, then optionally blanks and a zone (`Z`, `±HH`, `±HHMM`, `±HH:MM`).
    /// Returns epoch seconds (local time read as UTC when there is no zone) and whether a zone was given.
    static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> (epochSeconds: Double, hasZone: Bool)? {
        var i = 0
        let n = b.count
        while i < n, b[i] == 0x20 { i += 1 }
        func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var value = 0
            for k in 0..<count {
                let d = b[i + k] &- 0x30
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            i += count
            return value
        }
        func expect(_ allowed: [UInt8]) -> Bool {
            guard i < n, allowed.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect([0x2D, 0x2F]), let month = digits(2), expect([0x2D, 0x2F]), let day = digits(2),
              expect([0x54, 0x20]), let hour = digits(2), expect([0x3A, 0x2D]), let minute = digits(2), expect([0x3A, 0x2D]),
              let second = digits(2), validDate(year, month, day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if i < n, [0x2E, 0x2C, 0x3A, 0x5F].contains(b[i]), i + 1 < n, b[i + 1] &- 0x30 < 10 {
            i += 1
            var scale = 0.1
            while i < n, b[i] &- 0x30 < 10 { fraction += Double(b[i] &- 0x30) * scale; scale /= 10; i += 1 }
        }
        while i < n, b[i] == 0x20 { i += 1 }
        var offset = 0
        var hasZone = false
        if i < n {
            if b[i] == 0x5A || b[i] == 0x7A {
                hasZone = true; i += 1
            } else if b[i] == 0x2B || b[i] == 0x2D {
                let sign = b[i] == 0x2B ? 1 : -1
                i += 1
                guard let hours = digits(2), hours < 24 else { return nil }
                var minutes = 0
                if i < n, b[i] == 0x3A { i += 1 }
                if i < n { guard let m = digits(2), m < 60 else { return nil }; minutes = m }
                offset = sign * (hours * 3600 + minutes * 60)
                hasZone = true
            }
        }
        while i < n, b[i] == 0x20 { i += 1 }
        guard i == n else { return nil }
        let days = daysFromCivil(year, month, day)
        return (Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction, hasZone)
    }

    /// A clock time of day `HH:MM:SS` with an optional fraction after `.` or `:` (Physics Toolbox writes
    /// `13:05:59:123`, milliseconds after a colon). Returns seconds since midnight.
    static func clock(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var fields: [Int] = []
        var digitsInField: [Int] = []
        var current = 0
        var count = 0
        for byte in b where byte != 0x20 {
            if byte &- 0x30 < 10 {
                current = current * 10 + Int(byte &- 0x30); count += 1
                guard count <= 9 else { return nil }
            } else if byte == 0x3A || byte == 0x2E {
                guard count > 0 else { return nil }
                fields.append(current); digitsInField.append(count); current = 0; count = 0
            } else {
                return nil
            }
        }
        guard count > 0 else { return nil }
        fields.append(current); digitsInField.append(count)
        guard fields.count == 3 || fields.count == 4, fields[0] < 24, fields[1] < 60, fields[2] < 61 else { return nil }
        var seconds = Double(fields[0] * 3600 + fields[1] * 60 + fields[2])
        if fields.count == 4 {
            var scale = 1.0
            for _ in 0..<digitsInField[3] { scale *= 10 }
            seconds += Double(fields[3]) / scale
        }
        return seconds
    }

    /// An integer cell (epoch nanoseconds and the like), exactly; nil when it is not a plain integer.
    static func integer(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let n = b.count
        while i < n, b[i] == 0x20 { i += 1 }
        var negative = false
        if i < n, b[i] == 0x2D { negative = true; i += 1 }
        var value: Int64 = 0
        var sawDigit = false
        while i < n, b[i] &- 0x30 < 10 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(b[i] &- 0x30))
            guard !o1, !o2 else { return nil }
            value = a; sawDigit = true; i += 1
        }
        while i < n, b[i] == 0x20 { i += 1 }
        guard sawDigit, i == n else { return nil }
        return negative ? -value : value
    }
}
