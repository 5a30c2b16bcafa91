import EddySupport
public import EddyVocabulary
package import Foundation

/// The contents of a flight's `meta.json` (docs/sensor-log.md): format, time origin, aircraft, device, truth.
public struct FlightMeta: Codable, Sendable, Equatable {
    /// The only format name this reader accepts.
    public static let formatName = "eddy-sensor-log"
    /// The only format version this reader accepts.
    public static let formatVersion = 1

    /// Always `eddy-sensor-log`.
    public var format: String
    /// Always 1.
    public var version: Int
    /// ISO 8601 instant that `t = 0` stands for; nil when `t` is Unix epoch seconds.
    public var timeOrigin: String?
    /// The aircraft the log was recorded in.
    public var aircraft: Aircraft
    /// The recording device.
    public var device: Device?
    /// Known truth (generated or labelled flights only).
    public var truth: Truth?
    /// What the flight plan says about levels and air (optional: docs/sensor-log.md).
    public var flightPlan: FlightPlan?

    /// The aircraft block.
    public struct Aircraft: Codable, Sendable, Equatable {
        /// ICAO type designator (optional), e.g. `B738`.
        public var type: String?
        /// Size class: decides the response model and the severity bands.
        public var aircraftClass: AircraftClass

        /// Creates the block.
        public init(type: String? = nil, aircraftClass: AircraftClass) {
            self.type = type; self.aircraftClass = aircraftClass
        }

        enum CodingKeys: String, CodingKey {
            case type
            case aircraftClass = "class"
        }

        /// Decodes the block; an unknown class is a `SensorLogError.Kind.unknownAircraftClass`, not a default.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decodeIfPresent(String.self, forKey: .type)
            let name = try container.decode(String.self, forKey: .aircraftClass)
            guard let value = AircraftClass(rawValue: name) else {
                throw SensorLogError(
                    kind: .unknownAircraftClass, file: "meta.json",
                    message: "aircraft.class \"\(InputExcerpt.escaped(name))\" is not one of small, medium, large",
                    advice: "Set aircraft.class to small (light aircraft), medium (737/A320) or large (777/A350)")
            }
            aircraftClass = value
        }
    }

    /// The device block.
    public struct Device: Codable, Sendable, Equatable {
        /// Device model, free text.
        public var model: String?
        /// Whether the device sits in a pressurised cabin (its barometer then reads cabin pressure).
        public var pressurizedCabin: Bool?
        /// How the device is installed (`cradle` or `fixed`); nil: a cradle (optional, absent in older files).
        public var mount: DeviceMount?

        /// Creates the block.
        public init(model: String? = nil, pressurizedCabin: Bool? = nil, mount: DeviceMount? = nil) {
            self.model = model; self.pressurizedCabin = pressurizedCabin; self.mount = mount
        }

        enum CodingKeys: String, CodingKey {
            case model
            case pressurizedCabin = "pressurized_cabin"
            case mount
        }

        /// Decodes the block; an unknown mount is a `SensorLogError.Kind.invalidMeta` naming the known ones.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            model = try container.decodeIfPresent(String.self, forKey: .model)
            pressurizedCabin = try container.decodeIfPresent(Bool.self, forKey: .pressurizedCabin)
            if let name = try container.decodeIfPresent(String.self, forKey: .mount) {
                guard let value = DeviceMount(rawValue: name) else {
                    throw SensorLogError(
                        kind: .invalidMeta, file: "meta.json", message: "device.mount \"\(InputExcerpt.escaped(name))\" is not one of cradle, fixed",
                        advice: "Set device.mount to cradle (tablet or phone in a cradle) or fixed (AHRS, logger, panel mount), or leave it out")
                }
                mount = value
            }
        }
    }

    /// One truth interval in the log's time base: `[start, end)` seconds, with an EDR for turbulence.
    public struct Interval: Codable, Sendable, Equatable {
        /// Start, seconds (same base as the CSV `t`).
        public var start: Double
        /// End, seconds.
        public var end: Double
        /// EDR in m^(2/3) s^-1 for turbulence intervals; nil for handling intervals.
        public var edr: Double?
        /// The manoeuvre flown (e.g. `steep-turn`, `parabola`) for manoeuvre intervals; nil otherwise.
        public var kind: String?

        /// Creates an interval.
        public init(start: Double, end: Double, edr: Double? = nil, kind: String? = nil) {
            self.start = start; self.end = end; self.edr = edr; self.kind = kind
        }

        /// Length, seconds.
        public var durationSeconds: Double { end - start }
    }

    /// Known truth: turbulence intervals (everything else is smooth) and device-handling intervals.
    public struct Truth: Codable, Sendable, Equatable {
        /// Intervals of known turbulence, with EDR.
        public var turbulence: [Interval]
        /// Intervals of known device handling.
        public var handling: [Interval]
        /// Intervals of known manoeuvres (each with its `kind`); written only when there are any.
        public var manoeuvres: [Interval]

        /// Creates the block.
        public init(turbulence: [Interval] = [], handling: [Interval] = [], manoeuvres: [Interval] = []) {
            self.turbulence = turbulence; self.handling = handling; self.manoeuvres = manoeuvres
        }

        enum CodingKeys: String, CodingKey { case turbulence, handling, manoeuvres }

        /// Decodes the block; any list may be absent.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            turbulence = try container.decodeIfPresent([Interval].self, forKey: .turbulence) ?? []
            handling = try container.decodeIfPresent([Interval].self, forKey: .handling) ?? []
            manoeuvres = try container.decodeIfPresent([Interval].self, forKey: .manoeuvres) ?? []
        }

        /// Encodes the block; `manoeuvres` only when there are any (older logs keep their bytes).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(turbulence, forKey: .turbulence)
            try container.encode(handling, forKey: .handling)
            if !manoeuvres.isEmpty { try container.encode(manoeuvres, forKey: .manoeuvres) }
        }
    }

    enum CodingKeys: String, CodingKey {
        case format, version
        case timeOrigin = "time_origin"
        case aircraft, device, truth
        case flightPlan = "flight_plan"
    }

    /// Creates a meta block for a new log.
    public init(
        timeOrigin: String? = nil, aircraft: Aircraft, device: Device? = nil, truth: Truth? = nil
    ) {
        self.format = Self.formatName
        self.version = Self.formatVersion
        self.timeOrigin = timeOrigin
        self.aircraft = aircraft
        self.device = device
        self.truth = truth
    }

    /// `time_origin` as Unix epoch seconds (nil when `t` is already epoch seconds, or unparsable).
    public var timeOriginEpochSeconds: Double? {
        timeOrigin.flatMap(Self.parseISO8601)
    }

    /// Parses an ISO 8601 instant (`2026-11-22T10:00:00Z`, optional fraction, `Z` or `±HH:MM`) into Unix epoch seconds.
    package static func parseISO8601(_ text: String) -> Double? {
        ISO8601Instant.epochSeconds(text)
    }

    /// Checks what Codable cannot: format name and version, time origin, truth intervals.
    package func validate() throws(SensorLogError) {
        func invalid(_ message: String, _ advice: String) -> SensorLogError {
            SensorLogError(kind: .invalidMeta, file: "meta.json", message: message, advice: advice)
        }
        guard format == Self.formatName else {
            throw invalid("format is \"\(InputExcerpt.escaped(format))\", expected \"\(Self.formatName)\"", "This is not an Eddy sensor log; see docs/sensor-log.md")
        }
        guard version == Self.formatVersion else {
            throw invalid("version \(version) is not supported (this reader knows version \(Self.formatVersion))", "Convert the log to version 1 or update Eddy")
        }
        if let timeOrigin, Self.parseISO8601(timeOrigin) == nil {
            throw invalid("time_origin \"\(InputExcerpt.escaped(timeOrigin))\" is not an ISO 8601 instant", "Write it like 2026-11-22T10:00:00Z, or remove it when t is Unix epoch seconds")
        }
        try flightPlan?.validate()
        for (name, list) in [("turbulence", truth?.turbulence ?? []), ("handling", truth?.handling ?? []), ("manoeuvres", truth?.manoeuvres ?? [])] {
            for (index, interval) in list.enumerated() {
                let place = "truth.\(name)[\(index)]"
                guard interval.start.isFinite, interval.end.isFinite, interval.start < interval.end else {
                    throw invalid("\(place) has start \(interval.start) not before end \(interval.end)", "Each interval needs start < end, in the CSV time base")
                }
                if let edr = interval.edr, !(edr.isFinite && edr >= 0) {
                    throw invalid("\(place).edr \(edr) is not a non-negative number", "EDR is in m^(2/3) s^-1, 0 or more")
                }
            }
        }
    }

    /// Loads and validates `meta.json` from a flight directory.
    public static func load(directory: String) throws(SensorLogError) -> FlightMeta {
        let path = directory.hasSuffix("/") ? directory + "meta.json" : directory + "/meta.json"
        guard FileManager.default.fileExists(atPath: path) else {
            throw SensorLogError(
                kind: .missingMeta, file: "meta.json", message: "missing in \(directory)",
                advice: "Every flight directory needs a meta.json with format, version and aircraft.class (see docs/sensor-log.md)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SensorLogError(kind: .io, file: "meta.json", message: "cannot be read (\(error.localizedDescription))", advice: "Check the file's permissions")
        }
        return try decode(data)
    }

    /// Decodes and validates `meta.json` bytes, turning decoding failures into readable `SensorLogError`s.
    package static func decode(_ data: Data) throws(SensorLogError) -> FlightMeta {
        let meta: FlightMeta
        do {
            meta = try JSONDecoder().decode(FlightMeta.self, from: data)
        } catch let error as SensorLogError {
            throw error
        } catch let error as DecodingError {
            throw SensorLogError(kind: .invalidMeta, file: "meta.json", message: describe(error), advice: "See docs/sensor-log.md for the meta.json fields")
        } catch {
            throw SensorLogError(kind: .invalidMeta, file: "meta.json", message: InputExcerpt.escaped("\(error)", limit: 200), advice: "See docs/sensor-log.md for the meta.json fields")
        }
        try meta.validate()
        return meta
    }

    /// Encodes as pretty, key-sorted JSON (deterministic bytes). A meta that passed `validate()` always encodes; one
    /// that cannot (a non-finite truth value) is an `invalidMeta` error saying what JSONEncoder refused.
    package func encoded() throws(SensorLogError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw SensorLogError(kind: .invalidMeta, file: "meta.json", message: "cannot be encoded (\(error))", advice: "Give only finite numbers in meta.json's fields")
        }
        data.append(0x0A)
        return data
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ extra: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (extra.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return InputExcerpt.escaped(text.replacingOccurrences(of: ".[", with: "["))
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "required field \"\(path(context, key))\" is missing"
        case .typeMismatch(let type, let context):
            return "field \"\(path(context))\" has the wrong type (expected \(type))"
        case .valueNotFound(let type, let context):
            return "field \"\(path(context))\" is null (expected \(type))"
        case .dataCorrupted(let context):
            let place = path(context)
            return place.isEmpty ? "not valid JSON (\(context.debugDescription))" : "field \"\(place)\": \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
