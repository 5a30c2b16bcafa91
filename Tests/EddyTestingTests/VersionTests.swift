import Eddy
import EddyTesting
import Testing

@Test func testingHelpersNameTheEngineVersion() {
    #expect(EddyTesting.engineVersion.split(separator: ".").count == 3)
}

@Suite struct CallbackRecorderTests {
    @Test func recordsInOrderAndWaitsForACondition() {
        let recorder = CallbackRecorder()
        recorder.record(TimedCallback(t: 1, sequence: 0, callback: .didUpdateRecordingStatus(true)))
        recorder.record(TimedCallback(t: 2, sequence: 1, callback: .serverReachabilityUpdated(false)))
        #expect(recorder.callbacks == [.didUpdateRecordingStatus(true), .serverReachabilityUpdated(false)])
        #expect(recorder.named("serverReachabilityUpdated").map(\.t) == [2])
        #expect(recorder.wait(timeoutSeconds: 0.05) { $0.count == 2 })
        #expect(!recorder.wait(timeoutSeconds: 0.05) { $0.count == 3 }, "times out when the condition never holds")
    }
}
