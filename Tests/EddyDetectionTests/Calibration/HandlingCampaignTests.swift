import EddySimulation
import Foundation
import Testing
@testable import EddyDetection
@testable import EddyVocabulary

/// One simulated handling flight and what the pipeline made of it.
struct HandlingOutcome {
    /// The scenario's handling kind, gyro and vibration.
    var kind: HandlingKind
    var gyroscope: Bool
    var vibration: Bool
    var seed: UInt64
    /// Handling start and end, seconds.
    var start: Double
    var end: Double
    /// Seconds from the handling start to the first out-of-position event (nil: never taken out).
    var offLatency: Double?
    /// Seconds from the handling end until the device is in position for good (nil: not by the end of the flight).
    var onLatency: Double?
    /// Whole seconds of reported minutes and tile crossings that overlap the handling interval.
    var measuredSecondsWhileHandled: Int
    /// Out-of-position or in-noise events before the handling started (after the first calibration).
    var falseAlarms: Int
    /// Ticks' worth of time in noise, seconds (vibration must not leave the device in noise).
    var noiseSeconds: Double
    /// How far the vertical moves in the device frame: to the held orientation (pick-ups) or the new mount (slides), degrees.
    var tiltDegrees: Double
}

/// The handling campaign: short flights with one slow pick-up, fast pick-up or slide each, with and without gyro,
/// with and without a rattling cradle (docs/detection.md §Mount, issue 12 deliverable 7).
enum HandlingCampaign {
    /// Flies one seed of one combination.
    static func fly(kind: HandlingKind, gyroscope: Bool, vibration: Bool, seed: UInt64) -> HandlingOutcome {
        let kindIndex = UInt64(HandlingKind.allCases.firstIndex(of: kind) ?? 0)
        var draw = Xoshiro256StarStar(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ (kindIndex << 48))
        func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * draw.nextUniform() }
        // Calibration (≤ 12 s) and the 30 s settle are over before the earliest start; the start falls anywhere in a minute.
        let start = (uniform(90, 150) * 25).rounded() / 25
        let length: Double
        switch kind {
        case .slowPickUp: length = uniform(8, 20)
        case .fastPickUp: length = uniform(3, 15)
        case .slide, .burst: length = uniform(1, 3)
        }
        let end = start + length
        let aircraftClass: AircraftClass = seed % 2 == 0 ? .medium : .small
        let edr = uniform(0, 0.3)
        let total = (end + 45).rounded(.up)
        var scenario = FlightScenario(
            aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: edr, durationSeconds: total)],
            includeGyroscope: gyroscope, handling: [HandlingInterval(start: start, end: end, kind: kind)], seed: seed)
        if vibration { scenario.vibration = CradleVibration(frequencyHz: uniform(20, 40), amplitudeG: uniform(0.01, 0.05)) }
        var config = DetectionConfiguration(aircraftClass: aircraftClass)
        config.tileIndexer = gridIndexer
        let events = detect(scenario, configuration: config)
        let positions = events.positions
        let firstCalibration = positions.first { $0.inPosition }?.t ?? .infinity
        let falseAlarms = positions.filter { $0.t > firstCalibration && $0.t < start && (!$0.inPosition || $0.inNoise) }.count
        let offLatency = positions.first { $0.t >= start && !$0.inPosition }.map { $0.t - start }
        // In position for good: after the last event that was not in position (or in position since before the end).
        var onLatency: Double?
        if let last = positions.last, last.inPosition, !last.inNoise {
            let lastOff = positions.lastIndex { !$0.inPosition || $0.inNoise }
            let since = lastOff.map { positions.index(after: $0) }.map { positions[$0].t } ?? 0
            onLatency = max(0, since - end)
        }
        var noiseSeconds = 0.0
        var noiseSince: Double?
        for p in positions {
            if p.inNoise, noiseSince == nil { noiseSince = p.t }
            if !p.inNoise, let since = noiseSince { noiseSeconds += p.t - since; noiseSince = nil }
        }
        if let since = noiseSince { noiseSeconds += total - since }
        var measured = 0.0
        for m in events.minutes { measured += max(0, min(m.t, end) - max(m.t - 60, start)) }
        for tile in events.tiles { measured += max(0, min(tile.exitTime, end) - max(tile.enterTime, start)) }
        let tiltDegrees = FlightSimulator.handlingTiltsDegrees(scenario).first ?? 0
        return HandlingOutcome(
            kind: kind, gyroscope: gyroscope, vibration: vibration, seed: seed, start: start, end: end,
            offLatency: offLatency, onLatency: onLatency, measuredSecondsWhileHandled: Int(measured.rounded(.up)),
            falseAlarms: falseAlarms, noiseSeconds: noiseSeconds, tiltDegrees: tiltDegrees)
    }

    /// Every combination over `seeds`.
    static func run(seeds: ClosedRange<UInt64>, kinds: [HandlingKind] = [.slowPickUp, .fastPickUp, .slide]) -> [HandlingOutcome] {
        var outcomes: [HandlingOutcome] = []
        for kind in kinds {
            for gyroscope in [true, false] {
                for vibration in [false, true] {
                    for seed in seeds { outcomes.append(fly(kind: kind, gyroscope: gyroscope, vibration: vibration, seed: seed)) }
                }
            }
        }
        return outcomes
    }

    /// The q-quantile (nearest rank) of `values`.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
        return sorted[rank]
    }

    /// Lines `name: value` per combination: off / on latency median, p95, max; measured seconds; misses.
    static func summary(_ outcomes: [HandlingOutcome]) -> [String] {
        var lines: [String] = []
        let groups = Dictionary(grouping: outcomes) { "\($0.kind.rawValue)-\($0.gyroscope ? "gyro" : "nogyro")-\($0.vibration ? "vib" : "novib")" }
        for key in groups.keys.sorted() {
            let group = groups[key] ?? []
            let off = group.compactMap(\.offLatency), on = group.compactMap(\.onLatency)
            func f(_ x: Double) -> String { String(format: "%.2f", x) }
            lines.append("handling_\(key): n \(group.count), off p50 \(f(quantile(off, 0.5))) p95 \(f(quantile(off, 0.95))) max \(f(off.max() ?? .nan)) s, "
                + "never off \(group.count - off.count), on p50 \(f(quantile(on, 0.5))) p95 \(f(quantile(on, 0.95))) max \(f(on.max() ?? .nan)) s, "
                + "never on \(group.count - on.count), measured-while-handled \(group.map(\.measuredSecondsWhileHandled).reduce(0, +)) s, "
                + "false alarms \(group.map(\.falseAlarms).reduce(0, +)), noise max \(f(group.map(\.noiseSeconds).max() ?? 0)) s")
        }
        return lines
    }
}

@Suite struct HandlingCampaignTests {
    /// Acceptance (issue 12, "Handling"): slow and fast pick-ups, with and without gyro, with and without vibration:
    /// out of position ≤ 2 s after the start, back ≤ 15 s after the end, 0 measured seconds while handled, and no
    /// false alarm before. Slides that tilt the vertical by ≥ 10° (the move angle) too, with or without gyro; smaller
    /// ones need not be noticed: they change n = f·û by < 1.5 % and û follows them (docs/detection.md §2).
    /// Default: seeds 1…4 of each of the 12 combinations (48 flights); `EDDY_HANDLING_CAMPAIGN=100` runs 100 seeds
    /// (`make campaign-handling`) and prints the summary. Slides without gyro are noticed within 2 s by the tilt-trend
    /// test (docs/detection.md §2).
    @Test func campaign() {
        let count = ProcessInfo.processInfo.environment["EDDY_HANDLING_CAMPAIGN"].flatMap { UInt64($0) } ?? 4
        let outcomes = HandlingCampaign.run(seeds: 1...max(1, count))
        for line in HandlingCampaign.summary(outcomes) { print(line) }
        for o in outcomes {
            let label = "\(o.kind.rawValue) gyro \(o.gyroscope) vibration \(o.vibration) seed \(o.seed) handled \(o.start)–\(o.end), tilt \(o.tiltDegrees)°"
            let mustNotice = o.kind != .slide || o.tiltDegrees >= 10
            // A slide without gyro is seen only as the tilt itself: the tilt trend (the vertical leaving the calibrated
            // one steadily for 1.5 s) sees a 10° slide over 3 s within 2 s, where the 8° / 1 °·s tilt test needs 2.6 s.
            let offBound = 2.0
            if mustNotice {
                #expect(o.offLatency.map { $0 <= offBound } == true, "\(label): off after \(String(describing: o.offLatency)) s")
                #expect(o.measuredSecondsWhileHandled == 0, "\(label): \(o.measuredSecondsWhileHandled) s measured while handled")
            }
            // Back ≤ 15 s after the end; a slide noticed late (a small one, seen by the 10° / 1.5 s move test after it
            // stopped) ≤ 15 s after it was noticed.
            let noticedLate = o.kind == .slide ? max(0, (o.offLatency ?? 0) - (o.end - o.start)) : 0
            #expect(o.onLatency.map { $0 <= 15 + noticedLate } == true, "\(label): back after \(String(describing: o.onLatency)) s")
            #expect(o.falseAlarms == 0, "\(label): \(o.falseAlarms) false alarms before the handling")
        }
    }

    /// A rattling cradle alone (20–40 Hz, 10–50 mg, all flight) neither takes the device out of position nor puts it
    /// in noise, and smooth air stays smooth (the vibration is far above the detection band).
    @Test(arguments: [(20.0, 0.05), (30.0, 0.03), (40.0, 0.05), (25.0, 0.01)])
    func rattleAlone(frequencyHz: Double, amplitudeG: Double) {
        for aircraftClass in [AircraftClass.small, .medium] {
            let scenario = FlightScenario(
                aircraftClass: aircraftClass, segments: [TurbulenceSegment(edr: 0, durationSeconds: 420)], seed: 12,
                vibration: CradleVibration(frequencyHz: frequencyHz, amplitudeG: amplitudeG))
            let events = detect(scenario)
            #expect(events.positions.count == 2, "\(aircraftClass) \(frequencyHz) Hz: \(events.positions)")
            #expect(events.minutes.count >= 5)
            for m in events.minutes { #expect(m.severity == .none, "\(aircraftClass) \(frequencyHz) Hz minute \(m.t): \(m.edrMedian)") }
        }
    }

    /// The vibration really is in the samples: the accelerometer's variance grows by about A²/2.
    @Test func rattleIsSimulated() {
        let quiet = FlightScenario(segments: [TurbulenceSegment(edr: 0, durationSeconds: 20)], accelerometerRateHz: 200, noiseRMSg: 0, seed: 3)
        var shaken = quiet
        shaken.vibration = CradleVibration(frequencyHz: 30, amplitudeG: 0.04)
        func variance(_ s: FlightScenario) -> Double {
            let a = FlightSimulator.simulate(s).samples.accelerometer
            let n = Double(a.count)
            let mean = a.reduce(SIMD3<Double>.zero) { $0 + SIMD3($1.x, $1.y, $1.z) } / n
            return a.reduce(0.0) { $0 + ((SIMD3($1.x, $1.y, $1.z) - mean) * (SIMD3($1.x, $1.y, $1.z) - mean)).sum() } / n
        }
        let added = variance(shaken) - variance(quiet)
        #expect(abs(added / (0.04 * 0.04 / 2) - 1) < 0.1, "added variance \(added)")
    }

    /// A fixed mount is never taken out of position, whatever the handling.
    @Test func fixedMountIsNeverHandled() {
        let scenario = FlightScenario(
            aircraftClass: .small, segments: [TurbulenceSegment(edr: 0.1, durationSeconds: 200)],
            handling: [HandlingInterval(start: 100, end: 110, kind: .slowPickUp)], seed: 4)
        var config = DetectionConfiguration(aircraftClass: .small)
        config.mount = .fixed
        #expect(detect(scenario, configuration: config).positions.filter { !$0.inPosition }.count == 1)   // only the initial event
    }
}
