import Foundation
import Testing
@testable import EddySimulation

@Suite("eddy simulate option parsing")
struct SimulationSpecTests {
    @Test("durations take s, m, h or no unit")
    func durations() throws {
        #expect(try SimulationSpec.duration("90", option: "--x") == 90)
        #expect(try SimulationSpec.duration("90s", option: "--x") == 90)
        #expect(try SimulationSpec.duration("10m", option: "--x") == 600)
        #expect(try SimulationSpec.duration("1.5h", option: "--x") == 5400)
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.duration("10 minutes", option: "--x") }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.duration("-5", option: "--x") }
    }

    @Test("segments EDR:duration")
    func segments() throws {
        let parsed = try SimulationSpec.segments("0:10m,0.2:5m,0:5m,0.45:300")
        #expect(parsed == [
            TurbulenceSegment(edr: 0, durationSeconds: 600), TurbulenceSegment(edr: 0.2, durationSeconds: 300),
            TurbulenceSegment(edr: 0, durationSeconds: 300), TurbulenceSegment(edr: 0.45, durationSeconds: 300),
        ])
    }

    @Test("bad segments say what is wrong", arguments: [
        ("0.2", "is not EDR:duration"), ("x:5m", "EDR \"x\""), ("-0.1:5m", "from 0 to 2"), ("0.2:5q", "not a duration"),
        ("0.2:0", "more than 0"), ("", "empty"), ("0:1m,,0.2:1m", "is not EDR:duration"),
    ])
    func badSegments(text: String, mentions: String) {
        do {
            _ = try SimulationSpec.segments(text)
            Issue.record("\(text) accepted")
        } catch {   // the parser throws SimulationSpecError only (typed)
            #expect(error.option == "--segments")
            #expect(error.description.contains(mentions), "\(error)")
        }
    }

    @Test("--hours repeats the pattern and cuts the last segment")
    func hours() throws {
        let pattern = try SimulationSpec.segments("0:20m,0.3:25m")
        let long = try SimulationSpec.repeated(pattern, hours: 1)
        #expect(long == [
            TurbulenceSegment(edr: 0, durationSeconds: 1200), TurbulenceSegment(edr: 0.3, durationSeconds: 1500),
            TurbulenceSegment(edr: 0, durationSeconds: 900),
        ])
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.repeated(pattern, hours: 0) }
    }

    @Test("handling kinds and the rattling cradle's vibration")
    func handlingKindsAndVibration() throws {
        let parsed = try SimulationSpec.handling(["90:12:slow,20:3:SLIDE", "200:5:fast", "300:4:burst"])
        #expect(parsed.map(\.kind) == [.slide, .slowPickUp, .fastPickUp, .burst])
        #expect(parsed[0] == HandlingInterval(start: 20, end: 23, kind: .slide))
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.handling(["90:12:wave"]) }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.handling(["90:12:slow:1"]) }
        #expect(try SimulationSpec.vibration("30:25") == CradleVibration(frequencyHz: 30, amplitudeG: 0.025))
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.vibration("30") }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.vibration("0:25") }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.vibration("30:900") }
        // Old truth / scenario JSON without a kind decodes as a burst.
        let old = try JSONDecoder().decode(HandlingInterval.self, from: Data(#"{"start": 1, "end": 2}"#.utf8))
        #expect(old == HandlingInterval(start: 1, end: 2, kind: .burst))
        let slide = HandlingInterval(start: 1, end: 2, kind: .slide)
        #expect(try JSONDecoder().decode(HandlingInterval.self, from: JSONEncoder().encode(slide)) == slide)
    }

    @Test("handling start:duration, repeatable and comma separated, sorted")
    func handling() throws {
        let parsed = try SimulationSpec.handling(["20m:15s,1500:10", "90:5"])
        #expect(parsed == [HandlingInterval(start: 90, end: 95), HandlingInterval(start: 1200, end: 1215), HandlingInterval(start: 1500, end: 1510)])
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.handling(["1200"]) }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.handling(["1200:0"]) }
    }

    @Test("turns start:duration:bank[:rate]")
    func turns() throws {
        let parsed = try SimulationSpec.turns(["600:2m:25", "1000:60:-30:3"])
        #expect(parsed == [
            CoordinatedTurn(start: 600, durationSeconds: 120, bankDegrees: 25, rollRateDegreesPerSecond: 5),
            CoordinatedTurn(start: 1000, durationSeconds: 60, bankDegrees: -30, rollRateDegreesPerSecond: 3),
        ])
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.turns(["600:2m:75"]) }
        #expect(throws: SimulationSpecError.self) { try SimulationSpec.turns(["600:2m"]) }
    }
}
