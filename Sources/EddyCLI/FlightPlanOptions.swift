#if Tools
import ArgumentParser
import EddySensorLog

/// `eddy replay`'s flight-plan hints (docs/altitude.md "Host hints"): each replaces the same field of meta.json's
/// `flight_plan`.
struct FlightPlanOptions: ParsableArguments {
    @Option(name: .customLong("planned-levels"), help: "Planned cruise flight levels instead of meta.json's flight_plan.planned_levels, comma separated (e.g. 350,370).", transform: parsePlannedLevels)
    var plannedLevels: [Int]?

    @Option(name: .customLong("cleared-levels"), help: "Cleared flight levels instead of meta.json's: LEVEL, or T:LEVEL,… with t in the CSV time base (e.g. 350, or 0:350,3600:370).", transform: parseClearedLevels)
    var clearedLevels: [FlightMeta.FlightPlan.ClearedLevel]?

    @Option(name: .customLong("isa-deviation"), parsing: .unconditional, help: "ISA deviation at cruise, °C, instead of meta.json's: CELSIUS or CELSIUS:SIGMA (1σ, default 2 °C), e.g. 10 or -5:3.", transform: parseISADeviation)
    var isaDeviation: FlightMeta.FlightPlan.ISADeviation?

    /// The override (nil when no option was given).
    var flightPlan: FlightMeta.FlightPlan? {
        guard plannedLevels != nil || clearedLevels != nil || isaDeviation != nil else { return nil }
        return FlightMeta.FlightPlan(plannedLevels: plannedLevels, clearedLevels: clearedLevels, isaDeviation: isaDeviation)
    }
}

private func flightLevel(_ text: Substring, option: String) throws -> Int {
    guard let level = Int(text.trimmingPrefix("FL")), (0...600).contains(level) else {
        throw ValidationError("\(option) \"\(text)\": not a flight level 0…600 (350 = FL350)")
    }
    return level
}

/// Parses `--planned-levels 350,370`.
func parsePlannedLevels(_ text: String) throws -> [Int] {
    try text.split(separator: ",").map { try flightLevel($0, option: "--planned-levels") }
}

/// Parses `--cleared-levels 350` or `--cleared-levels 0:350,3600:370`.
func parseClearedLevels(_ text: String) throws -> [FlightMeta.FlightPlan.ClearedLevel] {
    var previous = -Double.infinity
    return try text.split(separator: ",").map { part in
        let fields = part.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count <= 2, let t = fields.count == 2 ? Double(fields[0]) : 0, t.isFinite, t >= previous else {
            throw ValidationError("--cleared-levels \"\(part)\": give LEVEL or T:LEVEL with t in the CSV time base, in time order")
        }
        previous = t
        return FlightMeta.FlightPlan.ClearedLevel(t: t, level: try flightLevel(fields[fields.count - 1], option: "--cleared-levels"))
    }
}

/// Parses `--isa-deviation 10` or `--isa-deviation -5:3`.
func parseISADeviation(_ text: String) throws -> FlightMeta.FlightPlan.ISADeviation {
    let fields = text.split(separator: ":").compactMap { Double($0) }
    guard (1...2).contains(fields.count), fields.count == text.split(separator: ":").count, abs(fields[0]) <= 60,
          fields.count == 1 || (fields[1] > 0 && fields[1] <= 30) else {
        throw ValidationError("--isa-deviation \"\(text)\": give CELSIUS (−60…60) or CELSIUS:SIGMA (σ in (0, 30] °C), e.g. 10 or -5:3")
    }
    return FlightMeta.FlightPlan.ISADeviation(celsius: fields[0], sigmaCelsius: fields.count == 2 ? fields[1] : nil, t: 0)
}
#endif
