#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EddySupport
import Synchronization

/// The engine's one lock around its core state. It knows which thread holds it, so that the engine can check — and a
/// test can prove — that no store write and no network request runs while it is held (docs/engine.md).
final class EngineLock<State: Sendable>: Sendable {
    private let state: Mutex<State>
    private let owner = Atomic<UInt>(0)

    init(_ initial: sending State) { state = Mutex(initial) }

    /// Runs `body` with the state, holding the lock. `body` must not do I/O: it calls the pure core only.
    func withLock<R>(_ body: (inout sending State) throws -> sending R) rethrows -> sending R {
        // Announced to ThreadSanitizer: it cannot see Mutex's futex on Linux (ThreadSanitizerHooks, docs/reliability.md §4).
        try state.withLock(visibleToThreadSanitizerAs: self) { state in
            owner.store(Self.currentThread, ordering: .relaxed)
            defer { owner.store(0, ordering: .relaxed) }
            return try body(&state)
        }
    }

    /// Whether some thread holds the lock.
    var isHeld: Bool { owner.load(ordering: .relaxed) != 0 }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { owner.load(ordering: .relaxed) == Self.currentThread }

    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
