import Dispatch
import EddySupport
import Synchronization

/// Delivers callbacks in the order they were raised, on the host's queue or on the raising thread, to the (weakly
/// held) delegate, to an optional observer and to the event streams; and on the main queue to the (weakly held)
/// main-actor delegate.
final class CallbackDispatcher: Sendable {
    private struct State {
        weak var delegate: (any EddyDelegate)?
        weak var mainActorDelegate: (any EddyMainActorDelegate)?
        var observer: (@Sendable (TimedCallback) -> Void)?
        var streams: [Int: AsyncStream<TimedCallback>.Continuation] = [:]
        var nextStream = 0
        var sequence = 0
        var pending: [TimedCallback] = []
        var draining = false
    }
    private let delivery: CallbackDelivery
    private let state = Mutex(State())

    init(delivery: CallbackDelivery) { self.delivery = delivery }

    var delegate: (any EddyDelegate)? {
        get { state.withLock(visibleToThreadSanitizerAs: self) { $0.delegate } }
        set { state.withLock(visibleToThreadSanitizerAs: self) { $0.delegate = newValue } }
    }

    var mainActorDelegate: (any EddyMainActorDelegate)? {
        get { state.withLock(visibleToThreadSanitizerAs: self) { $0.mainActorDelegate } }
        set { state.withLock(visibleToThreadSanitizerAs: self) { $0.mainActorDelegate = newValue } }
    }

    /// A new stream of every callback from now on, in delivery order; it ends when its consumer stops iterating.
    func events(bufferingNewest limit: Int) -> AsyncStream<TimedCallback> {
        let (stream, continuation) = AsyncStream.makeStream(of: TimedCallback.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = state.withLock(visibleToThreadSanitizerAs: self) { s -> Int in
            defer { s.nextStream += 1 }
            s.streams[s.nextStream] = continuation
            return s.nextStream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = state.withLock(visibleToThreadSanitizerAs: self) { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    var observer: (@Sendable (TimedCallback) -> Void)? {
        get { state.withLock(visibleToThreadSanitizerAs: self) { $0.observer } }
        set { state.withLock(visibleToThreadSanitizerAs: self) { $0.observer = newValue } }
    }

    /// Raises callbacks at engine time `t`, in order.
    func emit(_ callbacks: [EddyCallback], at t: Double) {
        guard !callbacks.isEmpty else { return }
        switch delivery {
        case .queue(let queue):
            // Sequence numbers and enqueueing under one lock: a serial queue then runs them in raise order.
            state.withLock(visibleToThreadSanitizerAs: self) { s in
                for callback in callbacks {
                    let timed = TimedCallback(t: t, sequence: s.sequence, callback: callback)
                    s.sequence += 1
                    queue.async { [self] in self.deliver(timed) }
                }
            }
        case .callerThread:
            let drainHere = state.withLock(visibleToThreadSanitizerAs: self) { s -> Bool in
                for callback in callbacks {
                    s.pending.append(TimedCallback(t: t, sequence: s.sequence, callback: callback))
                    s.sequence += 1
                }
                if s.draining { return false }
                s.draining = true
                return true
            }
            guard drainHere else { return }
            while let next = state.withLock(visibleToThreadSanitizerAs: self, { s -> TimedCallback? in
                if s.pending.isEmpty { s.draining = false; return nil }
                return s.pending.removeFirst()
            }) {
                deliver(next)
            }
        }
    }

    private func deliver(_ timed: TimedCallback) {
        let (delegate, observer, mainActorDelegate, streams) = state.withLock(visibleToThreadSanitizerAs: self) {
            ($0.delegate, $0.observer, $0.mainActorDelegate, $0.streams.isEmpty ? [] : Array($0.streams.values))
        }
        observer?(timed)
        if let delegate { timed.callback.deliver(to: delegate) }
        for stream in streams { stream.yield(timed) }
        // The main queue is serial: the main-actor delegate hears the callbacks in order.
        if let mainActorDelegate {
            DispatchQueue.main.async { MainActor.assumeIsolated { timed.callback.deliver(to: mainActorDelegate) } }
        }
    }
}
