/// Puts samples from several sources back into time order before detection (docs/engine.md "Sensor input").
///
/// A host pushes motion samples from one thread (CoreMotion's queue) and locations from another (CoreLocation's), each
/// in order but not in order with each other. The buffer holds every sample until a sample at least `windowSeconds`
/// newer has arrived, then releases it in time order (ties keep their arrival order). A sample older than one already
/// released is released at once (the pipeline tolerates small disorder; a source lagging more than the window is a
/// host problem we count in `lateCount`, not a reason to drop data).
package struct SampleReorderBuffer: Sendable {
    /// What it holds: detection inputs (motion samples, and readings and fixes as navigation took them). Not generic,
    /// so the engine's per-sample work is specialised code (a generic buffer instantiated in another module runs on
    /// value witnesses: +20 % engine CPU, measured).
    package typealias Sample = DetectionInput

    /// How long a sample waits for older ones, seconds.
    package let windowSeconds: Double
    private var storage: [Sample] = []
    private var head = 0
    private var newest = -Double.infinity
    private var lastReleased = -Double.infinity
    /// Samples that arrived after a newer one had already been released.
    package private(set) var lateCount = 0

    /// Creates a buffer holding samples for `windowSeconds` (default 2 s).
    package init(windowSeconds: Double = 2) { self.windowSeconds = windowSeconds }

    /// Samples held.
    package var count: Int { storage.count - head }

    /// Takes one sample; appends to `released`, in time order, every sample that has waited long enough.
    package mutating func push(_ sample: Sample, releasingInto released: inout [Sample]) {
        let t = sample.t
        if t < lastReleased {
            lateCount += 1
            released.append(sample)
            return
        }
        // Insert in time order, searching from the back (input is nearly sorted).
        var index = storage.count
        while index > head, storage[index - 1].t > t { index -= 1 }
        if index == storage.count { storage.append(sample) } else { storage.insert(sample, at: index) }
        if t > newest { newest = t }
        while head < storage.count, storage[head].t <= newest - windowSeconds {
            lastReleased = storage[head].t
            released.append(storage[head])
            head += 1
        }
        if head > 4096, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// Releases everything held, in time order (end of a flight).
    package mutating func flush(into released: inout [Sample]) {
        if head < storage.count {
            lastReleased = storage[storage.count - 1].t
            released.append(contentsOf: storage[head...])
        }
        storage.removeAll(keepingCapacity: true)
        head = 0
    }
}
