import Eddy
import Testing

@Test func engineVersionIsSemantic() {
    #expect(EddyVersion.current.split(separator: ".").compactMap { Int($0) }.count == 3)
}
