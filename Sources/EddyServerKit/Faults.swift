#if Tools
import EddySupport
import Synchronization

/// A fault the server injects into one request (test hooks only: `eddy-server serve --test-hooks`).
///
/// On the wire (`POST /v1/_test/faults`, see `FaultRule`) a fault is a `kind` string plus optional `seconds`;
/// the strings are decoded into this enum at the edge and unknown kinds are refused with a 400.
package enum InjectedFault: Sendable, Equatable {
    /// Answer 500 `internal` ("injected fault") without running the request.
    case status500
    /// Answer 200 with a truncated JSON body without running the request.
    case malformed
    /// Wait `seconds`, then run the request normally.
    case delay(seconds: Double)
    /// Run the request (it commits), then wait `seconds` before answering: the client times out after the commit.
    case hangAfterCommit(seconds: Double)

    /// The wire name of the fault's kind.
    package var kind: String {
        switch self {
        case .status500: "status500"
        case .malformed: "malformed"
        case .delay: "delay"
        case .hangAfterCommit: "hangAfterCommit"
        }
    }

    /// The wait of `delay` and `hangAfterCommit` (nil for the others).
    package var seconds: Double? {
        switch self {
        case .status500, .malformed: nil
        case .delay(let seconds), .hangAfterCommit(let seconds): seconds
        }
    }

    /// Every wire kind, in documentation order.
    package static let kinds = ["status500", "malformed", "delay", "hangAfterCommit"]
    /// Wait of `delay` when the plan gives no `seconds`.
    package static let defaultDelaySeconds = 5.0
    /// Wait of `hangAfterCommit` when the plan gives no `seconds`.
    package static let defaultHangSeconds = 30.0
}

/// One queued fault and the path it is limited to; wire form `{"kind": "delay", "seconds": 2, "path": "/v1/reports"}`.
package struct FaultRule: Sendable, Equatable, Codable {
    /// The fault.
    package var fault: InjectedFault
    /// Only requests to this path take the fault (any API path when nil).
    package var path: String?

    /// Creates a rule for `fault` on `path` (any API path when nil).
    package init(_ fault: InjectedFault, path: String? = nil) {
        self.fault = fault
        self.path = path
    }

    private enum CodingKeys: String, CodingKey { case kind, seconds, path }

    /// The longest wait a fault may ask for, seconds (a longer one could not even be represented as a `Duration`).
    package static let maximumSeconds = 3600.0

    /// Decodes the wire form; an unknown `kind`, or `seconds` not in 0…`maximumSeconds`, is a decoding error (→ 400).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
        if let seconds, !(seconds >= 0 && seconds <= Self.maximumSeconds) {
            throw DecodingError.dataCorruptedError(
                forKey: .seconds, in: container, debugDescription: "seconds must be 0…\(Int(Self.maximumSeconds)), got \(seconds)")
        }
        switch kind {
        case "status500": fault = .status500
        case "malformed": fault = .malformed
        case "delay": fault = .delay(seconds: seconds ?? InjectedFault.defaultDelaySeconds)
        case "hangAfterCommit": fault = .hangAfterCommit(seconds: seconds ?? InjectedFault.defaultHangSeconds)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "unknown fault kind \"\(kind)\"; expected one of \(InjectedFault.kinds.joined(separator: ", "))")
        }
        path = try container.decodeIfPresent(String.self, forKey: .path)
    }

    /// Encodes the wire form.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fault.kind, forKey: .kind)
        try container.encodeIfPresent(fault.seconds, forKey: .seconds)
        try container.encodeIfPresent(path, forKey: .path)
    }
}

/// Body of `POST /v1/_test/faults`.
package struct FaultPlan: Sendable, Equatable, Codable {
    /// Faults applied to the next matching requests, in order.
    package var faults: [FaultRule]

    /// Creates a plan.
    package init(faults: [FaultRule]) { self.faults = faults }
}

/// The queue of injected faults (thread-safe); each fault applies to one request.
package final class FaultQueue: Sendable {
    private let rules = Mutex<[FaultRule]>([])

    /// Creates an empty queue.
    package init() {}

    /// Queues the plan's faults after those already queued.
    package func add(_ plan: FaultPlan) { rules.withLock(visibleToThreadSanitizerAs: self) { $0.append(contentsOf: plan.faults) } }

    /// Takes the first queued fault that applies to `path`, if any.
    package func take(path: String) -> InjectedFault? {
        rules.withLock(visibleToThreadSanitizerAs: self) { queue in
            guard let index = queue.firstIndex(where: { $0.path == nil || $0.path == path }) else { return nil }
            return queue.remove(at: index).fault
        }
    }
}
#endif
