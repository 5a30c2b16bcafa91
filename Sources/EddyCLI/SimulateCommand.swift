#if Tools
import ArgumentParser
import EddyReplay
import EddySensorLog
import EddySimulation
import EddyVocabulary
import Foundation

/// `eddy simulate OUTDIR`: writes a synthetic flight with known truth in the sensor-log format.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write a simulated flight (von Kármán gusts at known EDR, device mount, noise, handling) as a sensor log.",
        discussion: """
            Examples:
              eddy simulate out/flight --class medium --segments 0:10m,0.2:5m,0:5m,0.45:5m --handling 1200:15
              eddy simulate out/long --hours 12 --segments 0:20m,0.12:10m --seed 7
              eddy simulate out/trip --segments 0:90m --profile 0:gnd,25m:35000,60m:35000,90m:gnd \\
                  --field-elevation 1400 --isa-deviation 10 --qnh 1002 --gnss phone --baro-bias random
            The truth (segments and handling) goes to meta.json; see docs/replay.md. With any of --isa-deviation,
            --qnh, --profile, --field-elevation, --gnss (other than ideal), --adsb, --pressurized or --baro-bias
            the true track (position, pressure and MSL altitude, cabin, one line per second) goes to
            truth-track.csv; see docs/simulation.md.
            """)

    @Argument(help: "Flight directory to write (created if needed; its log files are replaced).")
    var outdir: String

    @Option(name: .customLong("class"), help: "Aircraft class: small, medium or large.", transform: parseClass)
    var aircraftClass: AircraftClass = .medium

    @Option(help: "Accelerometer and gyroscope rate, Hz (10…200).")
    var rate: Double = 50

    @Option(help: "Turbulence segments EDR:duration, comma separated (durations in s, m or h).")
    var segments: String = "0:10m,0.2:5m,0:5m,0.45:5m"

    @Option(help: "Repeat the segment pattern to fill this many hours (long flights).")
    var hours: Double?

    @Option(name: .customLong("noise-mg"), help: "Accelerometer white noise per axis, RMS milli-g.")
    var noiseMilliG: Double = 1.5

    @Option(help: "Device handling start:duration[:kind] (repeatable or comma separated; kind burst, slow, fast or slide; default burst), e.g. 1200:15 or 20m:15s:slow.")
    var handling: [String] = []

    @Option(help: "Rattling cradle: engine vibration frequency:milli-g all flight, e.g. 30:25 (30 Hz, 25 mg peak).")
    var vibration: String?

    @Option(help: "Coordinated turn start:duration:bank[:rollRate] (degrees; repeatable), e.g. 600:2m:25.")
    var turn: [String] = []

    @Option(help: ArgumentHelp(
        "Manoeuvre kind@start[:value[:duration]] (repeatable or comma separated), e.g. steep-turn@600:60 (bank °), pull-up@300:2 (g), parabola@5m:1.8 (g), stall@400:6 (buffet Hz), aerotow@0:0.05 (surge g), takeoff-roll@30, landing-roll@50m, taxi@0::3m (runway roughness ISO 8608 Gd, 1e-6 m³); kinds: \(ManoeuvreKind.allCases.map(\.rawValue).joined(separator: ", ")).",
        valueName: "manoeuvre"))
    var manoeuvre: [String] = []

    @Option(help: "Seed of every random draw (gusts, noise, mount, handling).")
    var seed: UInt64 = 1

    @Flag(help: "The device lies flat (screen up) instead of standing in a cradle.")
    var flat = false

    @Option(name: .customLong("lat"), help: "Start latitude, degrees.")
    var latitude: Double = 47.0

    @Option(name: .customLong("lon"), help: "Start longitude, degrees.")
    var longitude: Double = 8.0

    @Option(name: .customLong("course"), help: "Initial track, degrees true.")
    var courseDegrees: Double = 90

    @Option(name: .customLong("altitude-ft"), help: "Flight altitude, feet (default: the class's cruise altitude).")
    var altitudeFeet: Double?

    @Option(name: .customLong("speed-mps"), help: "Ground speed, m/s (default: the class's cruise speed).")
    var speedMetersPerSecond: Double?

    @Flag(name: .customLong("no-gyro"), help: "Do not write gyroscope.csv.")
    var noGyroscope = false

    @Flag(name: .customLong("no-baro"), help: "Do not write barometer.csv.")
    var noBarometer = false

    @Option(name: .customLong("time-origin"), help: "ISO 8601 instant for t = 0 in meta.json.")
    var timeOrigin: String = "2026-11-22T10:00:00Z"

    @Flag(help: "Write every value at full double precision instead of sensor resolution (bigger files).")
    var exact = false

    @Option(name: .customLong("isa-deviation"), parsing: .unconditional,
            help: "Temperature deviation from ISA, °C (-40…40), e.g. 10 or -15.")
    var isaDeviationCelsius: String?

    @Option(help: "Mean-sea-level pressure QNH, hPa (900…1100).")
    var qnh: String?

    @Option(help: ArgumentHelp(
        "Altitude profile time:pressure-altitude-ft, comma separated, e.g. 0:gnd,25m:35000,60m:35000,90m:gnd; times in s, m or h, altitude in feet or gnd (on the ground at --field-elevation). Linear in between; the first altitude is held before, the last after; at most 12,000 ft/min.",
        valueName: "profile"))
    var profile: String?

    @Option(name: .customLong("field-elevation"), parsing: .unconditional,
            help: "Field elevation above MSL, feet (-1,000…15,000): the ground of --profile and of the cabin schedule (default: no ground; gnd = 0 ft MSL).")
    var fieldElevationFeet: String?

    @Option(help: "GNSS error profile: ideal (exact fixes), phone or poor (correlated error and multipath the reported accuracy does not show).")
    var gnss: String = "ideal"

    @Flag(help: "Fixes are ADS-B own-ship reports carrying pressure altitude (25-ft steps).")
    var adsb = false

    @Option(help: "Pressurised cabin: yes or no (default: by class; medium and large yes, small no).")
    var pressurized: String?

    @Option(name: .customLong("cabin-altitude"), help: "Cabin altitude at cruise of a pressurised aircraft, feet (0…10,000; default 6,000).")
    var cabinAltitudeFeet: String?

    @Option(name: .customLong("baro-bias"), parsing: .unconditional,
            help: "Barometer absolute bias, hPa (-10…10), or random (uniform ±1 hPa from the seed, a BMP280's accuracy).")
    var barometerBias: String?

    func validate() throws {
        guard rate.isFinite, (10...200).contains(rate) else { throw ValidationError("--rate \(rate): must be 10 to 200 Hz") }
        guard noiseMilliG.isFinite, (0...100).contains(noiseMilliG) else { throw ValidationError("--noise-mg \(noiseMilliG): must be 0 to 100 milli-g") }
        guard (-90...90).contains(latitude) else { throw ValidationError("--lat \(latitude): must be -90 to 90") }
        guard (-180...180).contains(longitude) else { throw ValidationError("--lon \(longitude): must be -180 to 180") }
        if let altitudeFeet, !(altitudeFeet.isFinite && (-1_000...60_000).contains(altitudeFeet)) {
            throw ValidationError("--altitude-ft \(altitudeFeet): must be -1,000 to 60,000 ft")
        }
        if let speedMetersPerSecond, !(speedMetersPerSecond.isFinite && (0...350).contains(speedMetersPerSecond)) {
            throw ValidationError("--speed-mps \(speedMetersPerSecond): must be 0 to 350 m/s")
        }
        guard FlightMeta.parseISO8601(timeOrigin) != nil else { throw ValidationError("--time-origin \"\(timeOrigin)\": write an ISO 8601 instant like 2026-11-22T10:00:00Z") }
        do {
            _ = try makeScenario()
        } catch let error as SimulationSpecError {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        let scenario = try makeScenario()   // already checked by validate()
        do {
            try SimulatedFlightWriter.write(scenario, to: outdir, timeOrigin: timeOrigin, exact: exact)
        } catch {
            FileHandle.standardError.write(Data("eddy simulate: \(error)\n".utf8))
            throw ExitCode(1)
        }
        let minutes = scenario.durationSeconds / 60
        let accelerometer = Int((scenario.durationSeconds * scenario.accelerometerRateHz).rounded())
        print("eddy simulate: wrote \(outdir): \(aircraftClass.rawValue) class, \(String(format: "%.1f", minutes)) min, "
              + "≈\(accelerometer) accelerometer samples at \(rate) Hz, \(scenario.segments.count) segments, "
              + "\(scenario.handling.count) handling interval\(scenario.handling.count == 1 ? "" : "s"), seed \(seed)"
              + (scenario.usesAltitudeFeatures ? "; truth track in \(TruthTrack.fileName)" : ""))
    }

    /// The scenario the options describe.
    func makeScenario() throws -> FlightScenario {
        var pattern = try SimulationSpec.segments(segments)
        if let hours { pattern = try SimulationSpec.repeated(pattern, hours: hours) }
        let handlingIntervals = try SimulationSpec.handling(handling)
        let turns = try SimulationSpec.turns(turn)
        let total = pattern.reduce(0) { $0 + $1.durationSeconds }
        if let late = handlingIntervals.first(where: { $0.end > total }) {
            throw SimulationSpecError(option: "--handling", message: "interval \(late.start)…\(late.end) s ends after the flight (\(total) s)")
        }
        var scenario = FlightScenario(
            aircraftClass: aircraftClass, segments: pattern, accelerometerRateHz: rate,
            includeGyroscope: !noGyroscope, includeBarometer: !noBarometer, noiseRMSg: noiseMilliG / 1000,
            handling: handlingIntervals, flat: flat, startLatitude: latitude, startLongitude: longitude,
            altitudeFeet: altitudeFeet, groundSpeedMetersPerSecond: speedMetersPerSecond,
            courseDegrees: courseDegrees, turns: turns, seed: seed)
        if let isaDeviationCelsius {
            scenario.isaDeviationCelsius = try SimulationSpec.number(isaDeviationCelsius, option: "--isa-deviation", range: -40...40, unit: "°C")
        }
        if let qnh { scenario.qnhHectopascals = try SimulationSpec.number(qnh, option: "--qnh", range: 900...1100, unit: "hPa") }
        if let fieldElevationFeet {
            scenario.fieldElevationFeet = try SimulationSpec.number(fieldElevationFeet, option: "--field-elevation", range: -1_000...15_000, unit: "ft")
        }
        if let profile {
            if altitudeFeet != nil {
                throw SimulationSpecError(option: "--profile", message: "give either --profile or --altitude-ft, not both")
            }
            let waypoints = try SimulationSpec.profile(profile)
            try SimulationSpec.checkProfile(waypoints, fieldElevationFeet: scenario.fieldElevationFeet, atmosphere: scenario.atmosphere)
            scenario.altitudeProfile = waypoints
        } else if scenario.fieldElevationFeet != nil {
            throw SimulationSpecError(option: "--field-elevation", message: "only means something with --profile (the ground it starts or ends on)")
        }
        scenario.gnssProfile = try SimulationSpec.gnssProfile(gnss)
        scenario.adsb = adsb
        if let pressurized { scenario.pressurized = try SimulationSpec.yesNo(pressurized, option: "--pressurized") }
        if let cabinAltitudeFeet {
            scenario.cabinAltitudeFeet = try SimulationSpec.number(cabinAltitudeFeet, option: "--cabin-altitude", range: 0...10_000, unit: "ft")
        }
        if let barometerBias { scenario.barometerBiasHectopascals = try SimulationSpec.barometerBias(barometerBias, seed: seed) }
        if let vibration { scenario.vibration = try SimulationSpec.vibration(vibration) }
        scenario.manoeuvres = try SimulationSpec.manoeuvres(manoeuvre)
        if let late = FlightSimulator.truth(for: scenario).manoeuvres.first(where: { $0.start >= total }) {
            throw SimulationSpecError(option: "--manoeuvre", message: "\(late.kind.rawValue) at \(late.start) s starts after the flight (\(total) s)")
        }
        return scenario
    }
}

/// Parses `--mount` values with a message listing the choices.
func parseMount(_ text: String) throws -> DeviceMount {
    guard let value = DeviceMount(rawValue: text.lowercased()) else {
        throw ValidationError("--mount \"\(text)\": must be cradle (tablet or phone in a cradle) or fixed (AHRS, logger, panel mount)")
    }
    return value
}

/// Parses `--class` values with a message listing the choices.
func parseClass(_ text: String) throws -> AircraftClass {
    guard let value = AircraftClass(rawValue: text.lowercased()) else {
        throw ValidationError("--class \"\(text)\": must be small, medium or large")
    }
    return value
}
#endif
