#if Tools
import CEcCodes
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a GRIB message says about itself, read before its values: enough to tell a turbulence EDR field from the rest.
package struct GRIBMessageHeader: Sendable, Equatable {
    /// 1-based position of the message in its file.
    package var number: Int
    /// GRIB edition (Eddy reads 2).
    package var edition: Int
    /// The originating centre, as ecCodes abbreviates it (`kwbc`, `egrr`, `ecmf`…).
    package var centre: String
    /// Discipline (Code table 0.0).
    package var discipline: Int
    /// Parameter category (Code table 4.1).
    package var category: Int
    /// Parameter number (Code table 4.2).
    package var parameter: Int
}

/// A decoded GRIB2 field: its header, times, level and points.
package struct GRIBField: Sendable {
    /// The header.
    package var header: GRIBMessageHeader
    /// Reference (issue) time, Unix seconds; nil when the message's date or time is not valid.
    package var referenceTime: Double?
    /// Validity time (reference time + forecast step, as ecCodes computes it from the step units), Unix seconds.
    package var validTime: Double?
    /// First fixed surface's type (Code table 4.5).
    package var levelType: Int
    /// First fixed surface's value in its SI unit (Pa, m); nil when missing.
    package var levelValue: Double?
    /// ecCodes' grid type (`regular_ll`, `lambert`…).
    package var gridType: String
    /// The points.
    package var points: ForecastGridPoints
}

/// One message of a GRIB file: a field, a message skipped (not wanted), or a message that could not be decoded.
package enum GRIBMessageOutcome: Sendable {
    /// A decoded field.
    case field(GRIBField)
    /// A message that is not wanted (its header).
    case skipped(GRIBMessageHeader)
    /// A message that could not be decoded.
    case failed(GRIBMessageError)
}

/// A GRIB message or file that cannot be used: where, what is wrong, what to do.
package struct GRIBMessageError: Error, Sendable, CustomStringConvertible {
    /// The file.
    package var file: String
    /// 1-based message number in the file (nil: the whole file).
    package var message: Int?
    /// What is wrong.
    package var problem: String
    /// What to do.
    package var remedy: String

    /// Makes an error.
    package init(file: String, message: Int?, problem: String, remedy: String) {
        (self.file, self.message, self.problem, self.remedy) = (file, message, problem, remedy)
    }

    /// `FILE: message N: problem; remedy`.
    package var description: String { "\(file)\(message.map { ": message \($0)" } ?? ""): \(problem); \(remedy)" }
}

/// GRIB files read through ecCodes (ECMWF's GRIB library; the `CEcCodes` system library): every message in turn,
/// the header first, the values only of the messages the caller wants. ecCodes decodes every packing and computes
/// the coordinates of every grid it knows (`latitudes`, `longitudes`), so the reader handles any of them.
package enum GRIBReader {
    /// Reads the messages of `path` in order, calling `body` with each outcome; `wanted` decides from the header
    /// whether a message's values are decoded. Throws only when the file cannot be opened.
    package static func forEachMessage(in path: String, wanted: (GRIBMessageHeader) -> Bool,
                                       _ body: (GRIBMessageOutcome) -> Void) throws(GRIBMessageError) {
        guard let file = fopen(path, "rb") else {
            throw GRIBMessageError(file: path, message: nil, problem: "cannot be opened (\(String(cString: strerror(errno))))",
                                   remedy: "check that it exists and is readable")
        }
        defer { fclose(file) }
        var number = 0
        while true {
            number += 1
            let before = ftell(file)
            var status: Int32 = 0
            guard let handle = codes_handle_new_from_file(nil, file, PRODUCT_GRIB, &status) else {
                if status == CODES_SUCCESS { return }   // end of file
                body(.failed(GRIBMessageError(
                    file: path, message: number, problem: "ecCodes cannot read it (\(message(of: status)))",
                    remedy: "a GRIB message damaged or cut short (fetch the file again), or not GRIB at all; grib_ls lists what ecCodes can read")))
                // A message ecCodes could not read may leave the file where it was: stop rather than read it forever.
                if ftell(file) <= before || feof(file) != 0 { return }
                continue
            }
            defer { codes_handle_delete(handle) }
            body(outcome(of: handle, number: number, file: path, wanted: wanted))
        }
    }

    /// The outcome of one message ecCodes has read.
    static func outcome(of handle: OpaquePointer, number: Int, file: String, wanted: (GRIBMessageHeader) -> Bool) -> GRIBMessageOutcome {
        let keys = Keys(handle: handle)
        let header = GRIBMessageHeader(number: number, edition: keys.long("edition") ?? 0, centre: keys.string("centre") ?? "?",
                                       discipline: keys.long("discipline") ?? -1, category: keys.long("parameterCategory") ?? -1,
                                       parameter: keys.long("parameterNumber") ?? -1)
        guard wanted(header) else { return .skipped(header) }
        func failure(_ problem: String, _ remedy: String) -> GRIBMessageOutcome {
            .failed(GRIBMessageError(file: file, message: number, problem: problem, remedy: remedy))
        }
        guard header.edition == 2 else {
            return failure("it is GRIB edition \(header.edition)", "Eddy reads GRIB2; convert it with `grib_set -s edition=2`")
        }
        let points: ForecastGridPoints
        switch keys.points() {
        case .success(let decoded): points = decoded
        case .failure(let problem):
            return failure(problem.reason, "the grid or the values cannot be decoded: check the message with grib_dump")
        }
        var levelValue: Double?
        if let scaled = keys.long("scaledValueOfFirstFixedSurface"), scaled != Int(CODES_MISSING_LONG) {
            let scale = keys.long("scaleFactorOfFirstFixedSurface").flatMap { $0 == Int(CODES_MISSING_LONG) ? nil : $0 } ?? 0
            levelValue = Double(scaled) * pow(10, Double(-scale))
        }
        return .field(GRIBField(
            header: header,
            referenceTime: keys.long("dataDate").flatMap { date in keys.long("dataTime").flatMap { GRIBTime.unixSeconds(date: date, time: $0) } },
            validTime: keys.long("validityDate").flatMap { date in keys.long("validityTime").flatMap { GRIBTime.unixSeconds(date: date, time: $0) } },
            levelType: keys.long("typeOfFirstFixedSurface") ?? -1, levelValue: levelValue, gridType: keys.string("gridType") ?? "?",
            points: points))
    }

    /// ecCodes' text for an error code.
    static func message(of status: Int32) -> String { String(cString: codes_get_error_message(status)) }

    /// Key access on one message handle.
    struct Keys {
        let handle: OpaquePointer

        /// An integer key, nil when absent or not readable as an integer.
        func long(_ key: String) -> Int? {
            var value = 0
            return codes_get_long(handle, key, &value) == CODES_SUCCESS ? value : nil
        }

        /// A floating-point key.
        func double(_ key: String) -> Double? {
            var value = 0.0
            return codes_get_double(handle, key, &value) == CODES_SUCCESS ? value : nil
        }

        /// A string key.
        func string(_ key: String) -> String? {
            var buffer = [CChar](repeating: 0, count: 256)
            var length = buffer.count
            guard codes_get_string(handle, key, &buffer, &length) == CODES_SUCCESS else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        /// A floating-point array key, or why it cannot be read.
        func doubles(_ key: String) -> Result<[Double], GRIBKeyProblem> {
            var count = 0
            var status = codes_get_size(handle, key, &count)
            guard status == CODES_SUCCESS else { return .failure(GRIBKeyProblem("key \(key): \(GRIBReader.message(of: status))")) }
            var values = [Double](repeating: 0, count: count)
            status = codes_get_double_array(handle, key, &values, &count)
            guard status == CODES_SUCCESS else { return .failure(GRIBKeyProblem("key \(key): \(GRIBReader.message(of: status))")) }
            return .success(Array(values.prefix(count)))
        }

        /// The field's points: ecCodes' coordinates and values, missing values (bitmap) as NaN.
        func points() -> Result<ForecastGridPoints, GRIBKeyProblem> {
            let latitudes: [Double], longitudes: [Double], values: [Double]
            switch (doubles("latitudes"), doubles("longitudes"), doubles("values")) {
            case (.success(let a), .success(let b), .success(let c)): (latitudes, longitudes, values) = (a, b, c)
            case (.failure(let problem), _, _), (_, .failure(let problem), _), (_, _, .failure(let problem)):
                return .failure(GRIBKeyProblem("ecCodes gives no coordinates or values for its grid (\(problem.reason))"))
            }
            guard latitudes.count == values.count, longitudes.count == values.count else {
                return .failure(GRIBKeyProblem("ecCodes gives \(latitudes.count) coordinates for \(values.count) values"))
            }
            var field = values
            if long("bitmapPresent") == 1, let missing = double("missingValue") {
                for index in field.indices where field[index] == missing { field[index] = .nan }
            }
            var spacing: ForecastGridPoints.RegularSpacing?
            if string("gridType") == "regular_ll", let east = double("iDirectionIncrementInDegrees"),
               let north = double("jDirectionIncrementInDegrees"), east > 0, north > 0 {
                spacing = .init(latitudeDegrees: north, longitudeDegrees: east)
            }
            return .success(ForecastGridPoints(latitudes: latitudes, longitudes: longitudes, values: field, regularSpacing: spacing))
        }
    }

    /// Why a key could not be read.
    struct GRIBKeyProblem: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
#endif
