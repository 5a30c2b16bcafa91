import EddySupport
import EddySync
import EddyTesting
import EddyURLSession
import Foundation
import Synchronization
import Testing
@testable import Eddy

/// `EddyConfiguration.transport`: the engine makes its transport with the host's factory, from the environment and the
/// configured timeouts.
@Suite(.serialized) struct TransportInjectionTests {
    @Test func theDefaultIsThePlatformTransport() {
        let configuration = EddyConfiguration(storePath: "/unused")
        #expect(configuration.transport.name == HTTPTransportFactory.platformDefault.name)
        #expect(HTTPTransportFactory.available.first?.name == HTTPTransportFactory.platformDefault.name)
        // URLSession is in the library on Apple platforms and with the `URLSessionOnLinux` trait; a Linux curl build
        // leaves it (and FoundationNetworking) out.
        #if canImport(Darwin)
        #expect(configuration.transport.name == "urlSession")
        #expect(HTTPTransportFactory.available.map(\.name).contains("urlSession"))
        #elseif URLSessionOnLinux
        #expect(HTTPTransportFactory.available.map(\.name).contains("urlSession"))
        #else
        #expect(HTTPTransportFactory.available.map(\.name) == ["curl"])
        #endif
    }

    @Test func theEngineStartsThroughTheInjectedFactory() throws {
        let server = try LocalEddyServer()
        let folder = try EngineFolder()
        defer { folder.remove() }
        let made = Mutex<[TransportConfiguration]>([])
        var configuration = EddyConfiguration(storePath: folder.path("engine.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.connectTimeoutSeconds = 3
        configuration.requestTimeoutSeconds = 9
        configuration.transport = HTTPTransportFactory(name: "spy") { (transportConfiguration) throws(TransportError) in
            made.withLock(visibleToThreadSanitizerAs: server) { $0.append(transportConfiguration) }
            return try HTTPTransportFactory.urlSession.makeTransport(transportConfiguration)
        }
        let engine = try EddyEngine(configuration: configuration)
        // The first start validates the key with the server: through URLSessionTransport here, whatever the platform.
        try engine.startNow(apiKey: server.apiKey, airline: "DAL", userId: "injected", environment: .local(port: server.port))
        engine.stop()
        let expected = TransportConfiguration(baseURL: server.baseURL, connectTimeoutSeconds: 3, totalTimeoutSeconds: 9)
        #expect(made.withLock(visibleToThreadSanitizerAs: server) { $0 } == [expected])
    }

    @Test func aFactoryThatRefusesTheEnvironmentFailsTheStartWithATypedError() throws {
        let folder = try EngineFolder()
        defer { folder.remove() }
        var configuration = EddyConfiguration(storePath: folder.path("engine.sqlite"), delivery: .callerThread, syncTiming: .flightTime)
        configuration.transport = HTTPTransportFactory(name: "picky") { (_) throws(TransportError) in
            throw .invalidConfiguration("no proxy support")
        }
        let engine = try EddyEngine(configuration: configuration)
        #expect(throws: EddyError.environmentInvalid("picky transport: invalid configuration: no proxy support")) {
            try engine.startNow(apiKey: "eddy_x", airline: "DAL", userId: "u", environment: .server("http://127.0.0.1:9", proxy: "http://p:1"))
        }
    }
}
