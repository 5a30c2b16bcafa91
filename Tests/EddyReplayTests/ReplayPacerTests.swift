import Testing
@testable import EddyReplay

/// `ReplayPacer` (`eddy replay --engine --speed`): when each sample is due on the wall clock.
@Suite("Replay pacing")
struct ReplayPacerTests {
    @Test("speed must be finite and positive")
    func invalidSpeeds() {
        for speed in [0.0, -1, .nan, .infinity, -.infinity] { #expect(ReplayPacer(speed: speed) == nil, "speed \(speed)") }
        #expect(ReplayPacer(speed: 10)?.speed == 10)
    }

    @Test("at 10x a sample 5 log seconds after the first is due 0.5 s after it")
    func schedule() throws {
        var pacer = try #require(ReplayPacer(speed: 10))
        #expect(pacer.waitSeconds(beforeLogTime: 100, elapsedSeconds: 3) == 0)   // the first sample fixes the origin
        #expect(abs(pacer.waitSeconds(beforeLogTime: 105, elapsedSeconds: 3) - 0.5) < 1e-12)
        #expect(abs(pacer.waitSeconds(beforeLogTime: 105, elapsedSeconds: 3.2) - 0.3) < 1e-12)
        #expect(abs(pacer.waitSeconds(beforeLogTime: 160, elapsedSeconds: 4) - 5) < 1e-12)
    }

    @Test("a replay behind schedule catches up without waiting; an earlier time never waits")
    func late() throws {
        var pacer = try #require(ReplayPacer(speed: 2))
        _ = pacer.waitSeconds(beforeLogTime: 0, elapsedSeconds: 0)
        #expect(pacer.waitSeconds(beforeLogTime: 10, elapsedSeconds: 7) == 0)
        #expect(pacer.waitSeconds(beforeLogTime: 10, elapsedSeconds: 5) == 0)
        #expect(pacer.waitSeconds(beforeLogTime: -50, elapsedSeconds: 5) == 0)
        #expect(abs(pacer.waitSeconds(beforeLogTime: 14, elapsedSeconds: 6) - 1) < 1e-12)
    }

    @Test("a huge time gap waits at most maximumWaitSeconds and the samples after it keep their spacing")
    func hugeGap() throws {
        var pacer = try #require(ReplayPacer(speed: 1))
        _ = pacer.waitSeconds(beforeLogTime: 0, elapsedSeconds: 0)
        #expect(pacer.waitSeconds(beforeLogTime: 1e15, elapsedSeconds: 1) == ReplayPacer.maximumWaitSeconds)
        let resumed = 1 + ReplayPacer.maximumWaitSeconds
        #expect(pacer.waitSeconds(beforeLogTime: 1e15, elapsedSeconds: resumed) == 0)
        #expect(abs(pacer.waitSeconds(beforeLogTime: 1e15 + 2, elapsedSeconds: resumed) - 2) < 1e-3)
    }

    @Test("non-finite times and clocks never wait")
    func nonFinite() throws {
        var pacer = try #require(ReplayPacer(speed: 10))
        #expect(pacer.waitSeconds(beforeLogTime: .nan, elapsedSeconds: 0) == 0)
        #expect(pacer.originLogTime == nil)
        _ = pacer.waitSeconds(beforeLogTime: 0, elapsedSeconds: 0)
        #expect(pacer.waitSeconds(beforeLogTime: .infinity, elapsedSeconds: 1) == 0)
        #expect(pacer.waitSeconds(beforeLogTime: 10, elapsedSeconds: .nan) == 0)
    }
}
