import EddyTesting
import Testing

@Test func testingHelpersNameTheEngineVersion() {
    #expect(EddyTesting.engineVersion.split(separator: ".").count == 3)
}
