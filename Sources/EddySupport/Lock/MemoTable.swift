import Synchronization

/// A small, bounded, thread-safe table of results already computed from the same inputs: for pure functions that are
/// costly and called again and again with the same arguments (a pipeline set up per flight integrates the same EDR
/// model and solves the same mixture radii each time). `Key` equality must imply equal results; lookups are linear, so
/// keep `capacity` small. The computation runs outside the lock (two threads may both compute a missing value; both get
/// the same result), and the oldest entry leaves when the table is full.
package final class MemoTable<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let entries: Mutex<[(key: Key, value: Value)]>
    private let capacity: Int

    /// A table holding at most `capacity` results.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries = Mutex([])
    }

    /// The result stored for `key`, else `compute()`'s (then stored).
    package func value(for key: Key, _ compute: () -> Value) -> Value {
        if let known = entries.withLock(visibleToThreadSanitizerAs: self, { entries in entries.first { $0.key == key }?.value }) {
            return known
        }
        let value = compute()
        entries.withLock(visibleToThreadSanitizerAs: self) { entries in
            guard !entries.contains(where: { $0.key == key }) else { return }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append((key, value))
        }
        return value
    }

    /// How many results are stored.
    package var count: Int { entries.withLock(visibleToThreadSanitizerAs: self) { $0.count } }
}
