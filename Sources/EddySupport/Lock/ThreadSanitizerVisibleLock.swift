#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import Synchronization

/// ThreadSanitizer's annotation entry points, found at run time: present only in a `--sanitize=thread` build (the TSan
/// runtime exports them), nil otherwise, so a normal build pays one nil check per lock. Needed because the toolchain's
/// `Synchronization.Mutex` locks with a raw futex inside the (uninstrumented) standard library on Linux: TSan does not
/// see it and reports every access under the lock as a race (docs/reliability.md §4).
package enum ThreadSanitizerHooks {
    /// A C function taking an address, as `__tsan_acquire` / `__tsan_release` are.
    package typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void
    /// `__tsan_acquire(address)`: the caller now happens-after every earlier release on `address`.
    package static let acquire: Hook? = lookup("__tsan_acquire")
    /// `__tsan_release(address)`: what the caller did so far happens-before a later acquire on `address`.
    package static let release: Hook? = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Hook? {
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(everywhere, name) else { return nil }
        return unsafeBitCast(symbol, to: Hook.self)
    }
}

extension Mutex where Value: ~Copyable {
    /// `withLock`, with the critical section announced to ThreadSanitizer as acquire/release on `owner`'s address
    /// (the object that holds this mutex); the same as `withLock` outside a TSan build.
    package borrowing func withLock<Result, Failure: Error>(
        visibleToThreadSanitizerAs owner: AnyObject, _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            let address = UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
            ThreadSanitizerHooks.acquire?(address)
            defer { ThreadSanitizerHooks.release?(address) }
            return try body(&value)
        }
    }
}
