#if canImport(CCurlShim)
import CCurlShim
import EddySupport
import EddyTransport
import Foundation
import Synchronization

/// libcurl transport: one easy handle per transport (connection reuse / keep-alive), TLS verification on,
/// gzip via `CURLOPT_ACCEPT_ENCODING`, connect and total timeouts, optional proxy. Calls are serialised
/// by a mutex, so one transport may be shared across threads.
public final class CurlTransport: HTTPTransport {
    /// The configuration in use.
    public let configuration: TransportConfiguration
    private let handle: Mutex<EasyHandle>

    /// Owns a `CURL *` (not Sendable by itself; only touched under the mutex).
    private final class EasyHandle {
        let pointer: UnsafeMutableRawPointer
        init(pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
        deinit { eddy_curl_easy_cleanup(pointer) }
    }

    /// Creates a transport; throws `.invalidConfiguration` when libcurl cannot be loaded or started, or the
    /// configuration is invalid (see ``TransportConfiguration/validate()``). libcurl is loaded on the first call
    /// (CCurlShim: a process that never makes a transport never maps it).
    public init(configuration: TransportConfiguration) throws(TransportError) {
        try configuration.validate()
        guard eddy_curl_load() == 1 else {
            throw .invalidConfiguration(
                "libcurl is not available (\(String(cString: eddy_curl_load_error()))): install it (Debian: apt-get install libcurl4) or use URLSessionTransport")
        }
        guard let pointer = eddy_curl_easy_init() else {
            throw .invalidConfiguration("libcurl failed to make an easy handle (curl_easy_init)")
        }
        self.configuration = configuration
        self.handle = Mutex(EasyHandle(pointer: pointer))
    }

    /// Sends a request over the shared easy handle.
    public func send(_ request: SyncHTTPRequest) throws(TransportError) -> SyncHTTPResponse {
        let result: Result<SyncHTTPResponse, TransportError> = handle.withLock(visibleToThreadSanitizerAs: self) { easy in
            perform(request, on: easy.pointer)
        }
        return try result.get()
    }

    /// Accumulates the response while libcurl calls back.
    private final class Sink {
        var body = Data()
        var headers: [String: String] = [:]
    }

    private func perform(_ request: SyncHTTPRequest, on curl: UnsafeMutableRawPointer) -> Result<SyncHTTPResponse, TransportError> {
        eddy_curl_easy_reset(curl)   // keeps the live connection, DNS and TLS session caches
        let url = configuration.trimmedBaseURL + request.path
        let sink = Sink()
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { eddy_curl_slist_free_all(headerList) }

        var code = eddy_curl_setopt_string(curl, CURLOPT_URL, url)
        func set(_ option: CURLoption, _ value: Int) { if code == CURLE_OK { code = eddy_curl_setopt_long(curl, option, value) } }
        func set(_ option: CURLoption, _ value: String) { if code == CURLE_OK { code = eddy_curl_setopt_string(curl, option, value) } }
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeoutSeconds * 1000))
        set(CURLOPT_TIMEOUT_MS, Int(configuration.totalTimeoutSeconds * 1000))
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_ACCEPT_ENCODING, "gzip")
        set(CURLOPT_USERAGENT, configuration.userAgent)
        set(CURLOPT_PROXY, configuration.proxy ?? "")
        if let ca = configuration.caBundlePath { set(CURLOPT_CAINFO, ca) }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            headerList = eddy_curl_slist_append(headerList, "\(name): \(value)")
        }
        if request.body != nil { headerList = eddy_curl_slist_append(headerList, "Content-Type: application/json") }
        headerList = eddy_curl_slist_append(headerList, "Expect:")   // no 100-continue round trip
        if code == CURLE_OK { code = eddy_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList)) }
        if request.method == "POST" {
            let body = request.body ?? Data()
            if code == CURLE_OK { code = eddy_curl_setopt_off(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) }
            if code == CURLE_OK {
                code = body.withUnsafeBytes { raw in
                    // COPYPOSTFIELDS copies the bytes, so the buffer may go away after this call.
                    eddy_curl_setopt_pointer(curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
                }
            }
        } else {
            set(CURLOPT_HTTPGET, 1)
        }
        if code == CURLE_OK {
            code = eddy_curl_set_write_callback(curl, { data, size, count, user in
                let total = size * count
                guard let data, let user else { return total }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                data.withMemoryRebound(to: UInt8.self, capacity: total) { sink.body.append($0, count: total) }
                return total
            }, sinkPointer)
        }
        if code == CURLE_OK {
            code = eddy_curl_set_header_callback(curl, { data, size, count, user in
                let total = size * count
                guard let data, let user else { return total }
                let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                let line = data.withMemoryRebound(to: UInt8.self, capacity: total) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: total), as: UTF8.self)
                }
                if line.hasPrefix("HTTP/") { sink.headers.removeAll() }   // a new response (redirect, 100)
                if let colon = line.firstIndex(of: ":") {
                    let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                    sink.headers[name] = value
                }
                return total
            }, sinkPointer)
        }
        guard code == CURLE_OK else {
            return .failure(.invalidConfiguration("curl option rejected: \(String(cString: eddy_curl_easy_strerror(code)))"))
        }
        let performed = eddy_curl_easy_perform(curl)
        guard performed == CURLE_OK else { return .failure(Self.map(performed, proxy: configuration.proxy)) }
        var status = 0
        _ = eddy_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        return .success(SyncHTTPResponse(status: status, headers: sink.headers, body: sink.body))
    }

    /// Maps a libcurl failure to a typed error; with a proxy configured, connection failures say so (the proxy
    /// may be what is down).
    static func map(_ code: CURLcode, proxy: String? = nil) -> TransportError {
        var message = String(cString: eddy_curl_easy_strerror(code))
        if let proxy, !proxy.isEmpty,
           [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING].contains(code) {
            message += " (via proxy \(proxy): check that the proxy is up and TransportConfiguration.proxy is right)"
        }
        switch code {
        case CURLE_COULDNT_CONNECT: return .cannotConnect(message)
        case CURLE_OPERATION_TIMEDOUT: return .timedOut(message)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .cannotResolve(message)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE: return .connectionLost(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE:
            return .tls(message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidConfiguration(message)
        default: return .other(Int(code.rawValue), message)
        }
    }
}
#endif
