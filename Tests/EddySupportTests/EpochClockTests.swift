import EddySupport
import Foundation
import Testing

@Suite struct EpochClockTests {
    @Test func manualClockMovesOnlyWhenAdvancedOrSlept() async {
        let clock = ManualEpochClock(start: 1_800_000_000)
        #expect(clock.now() == 1_800_000_000)
        clock.advance(by: 60)
        #expect(clock.now() == 1_800_000_060)
        await clock.sleep(seconds: 30)
        #expect(clock.now() == 1_800_000_090)
        await clock.sleep(seconds: -5)   // a negative wait does not move time back
        #expect(clock.now() == 1_800_000_090)
    }

    @Test func sampleDrivenClockNeverGoesBackwards() async {
        let clock = SampleDrivenClock()
        #expect(clock.now() == 0)
        clock.advance(to: 100)
        #expect(clock.now() == 100)
        clock.advance(to: 40)
        #expect(clock.now() == 100)
        clock.advance(to: .nan)
        #expect(clock.now() == 100)
        await clock.sleep(seconds: 3600)   // sleeping does not move sample time
        #expect(clock.now() == 100)
        clock.advance(to: 100.5)
        #expect(clock.now() == 100.5)
    }

    @Test func systemClockReadsTheWallClock() {
        let before = Date().timeIntervalSince1970
        let now = SystemEpochClock().now()
        #expect(now >= before && now <= Date().timeIntervalSince1970)
    }

    @Test func everyClockIsAnEpochClock() {
        let clocks: [any EpochClock] = [SystemEpochClock(), ManualEpochClock(start: 5), SampleDrivenClock(start: 7)]
        #expect(clocks.count == 3)
        #expect(clocks[1].now() == 5 && clocks[2].now() == 7)
    }
}
