import Eddy
import EddyTransport
import EddyVocabulary
import Testing

@Test func engineVersionIsSemantic() {
    #expect(EddyVersion.current.split(separator: ".").compactMap { Int($0) }.count == 3)
}

/// The transport's default User-Agent is the sync client's name and the one version (`EddySync/1.0.0` today).
@Test func transportUserAgentNamesTheOneVersion() {
    #expect(TransportConfiguration(baseURL: "https://sync.example.org").userAgent == "EddySync/" + EddyVersion.current)
}
