#if Tools
import CompressNIO
import EddyProtocol
import EddyVocabulary
import Foundation
package import HTTPTypes
package import Hummingbird
package import NIOCore
import NIOFoundationEssentialsCompat

/// JSON answers: encoding (the hand-written writer for turbulence fetches), gzip when the client accepts it.
package enum JSONResponse {
    /// Responses larger than this are gzip-compressed when the client accepts gzip.
    package static let gzipThresholdBytes = 1024
    /// gzip at zlib level 1: JSON of repeated keys compresses about as well as at level 6, several times faster.
    static let gzip = CompressionAlgorithm.gzip(configuration: ZlibConfiguration(compressionLevel: .fastestCompression))

    /// A JSON response, gzip-compressed when the client accepts it and the body is large enough.
    package static func make<T: Encodable>(status: HTTPResponse.Status = .ok, _ value: T, request: Request) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        var buffer: ByteBuffer
        if let fetch = value as? DeltaFetchResponse, fetch.dataType == .turbulence {
            buffer = FastJSON.turbulenceResponse(fetch)
        } else {
            do {
                buffer = ByteBuffer(bytes: try JSONEncoder().encode(value))
            } catch {
                return Response(status: .internalServerError, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"internal\",\"message\":\"encoding failed\"}")))
            }
        }
        if buffer.readableBytes > gzipThresholdBytes, let accept = request.headers[.acceptEncoding], accept.contains("gzip"),
           let compressed = try? buffer.compress(with: gzip) {
            buffer = compressed
            headers[.contentEncoding] = "gzip"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// Decodes a JSON body, mapping failures to 400 with the decoder's explanation.
    package static func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch let error as DecodingError {
            throw APIError.badRequest("invalid JSON for \(T.self): \(describe(error))")
        } catch {
            throw APIError.badRequest("invalid JSON for \(T.self)")
        }
    }

    /// Short text for a decoding error (path and what was wrong).
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let joined = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "body" : joined
        }
        switch error {
        case .typeMismatch(_, let context): return "\(path(context)): wrong type"
        case .valueNotFound(_, let context): return "\(path(context)): missing value"
        case .keyNotFound(let key, let context): return "\(path(context)): missing key \(key.stringValue)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "undecodable"
        }
    }
}
#endif
