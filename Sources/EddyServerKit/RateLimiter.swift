#if Tools
import EddySupport
import Synchronization

/// Token-bucket rate limiter keyed by session (thread-safe).
///
/// Each key holds up to `burst` tokens, refilled at `perMinute / 60` tokens per second; a request
/// takes one token. When the bucket is empty the caller is told how long to wait (→ 429 + Retry-After).
final class RateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: Double }
    private let burst: Double
    private let ratePerSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// Creates a limiter; `perMinute` ≤ 0 disables limiting.
    init(perMinute: Double, burst: Int) {
        self.ratePerSecond = perMinute / 60
        self.burst = Double(max(1, burst))
    }

    /// Takes a token for `key` at time `now` (seconds); nil when allowed, else seconds to wait.
    func take(_ key: String, now: Double) -> Double? {
        guard ratePerSecond > 0 else { return nil }
        return buckets.withLock(visibleToThreadSanitizerAs: self) { buckets in
            if buckets.count > 10_000 {
                // Forget sessions idle long enough to have refilled completely (they restart full anyway).
                let refillSeconds = burst / ratePerSecond
                buckets = buckets.filter { now - $0.value.updated < refillSeconds }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * ratePerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) / ratePerSecond
        }
    }
}
#endif
