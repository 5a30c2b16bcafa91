import EddyVocabulary

/// Puts samples from several sources back into time order before detection (docs/engine.md "Sensor input").
///
/// A host pushes motion samples from one thread (CoreMotion's queue) and locations from another (CoreLocation's), each
/// in order but not in order with each other. The buffer holds every sample until a sample at least `windowSeconds`
/// newer has arrived, then releases it in time order (ties keep their arrival order). A sample older than one already
/// released is released at once (the pipeline tolerates small disorder; a source lagging more than the window is a
/// host problem we count in `lateCount`, not a reason to drop data).
///
/// Use: `push` each sample, then take `popReleased()` until nil; at the end of a flight take `popHeld()` until nil.
package struct SampleReorderBuffer: Sendable {
    /// What the buffer holds in its time-ordered storage: motion samples inline, other inputs (1 Hz barometer and
    /// fixes) by slot in `others`. Plain values, so the per-sample moves are copies of bytes, not value-witness calls
    /// (holding `DetectionInput` itself cost the engine ≈ 5 % of its CPU, measured with perf).
    private enum Held {
        case accelerometer(AccelerometerSample)
        case gyroscope(GyroscopeSample)
        case other(t: Double, slot: Int)

        var t: Double {
            switch self {
            case .accelerometer(let s): s.t
            case .gyroscope(let s): s.t
            case .other(let t, _): t
            }
        }
    }

    /// How long a sample waits for older ones, seconds.
    package let windowSeconds: Double
    private var storage: [Held] = []
    private var head = 0
    private var others: [Int: DetectionInput] = [:]
    private var nextSlot = 0
    /// Late samples not yet taken (released at once, before anything else).
    private var late: [DetectionInput] = []
    private var newest = -Double.infinity
    private var lastReleased = -Double.infinity
    /// Samples that arrived after a newer one had already been released.
    package private(set) var lateCount = 0
    /// The source of the latest late sample and how far it was behind the newest released one, seconds.
    package private(set) var latestLate: (source: SampleSource, lagSeconds: Double)?

    /// Creates a buffer holding samples for `windowSeconds` (default 2 s).
    package init(windowSeconds: Double = 2) { self.windowSeconds = windowSeconds }

    /// Samples held (late ones not yet taken included).
    package var count: Int { storage.count - head + late.count }

    /// Takes one sample. A sample older than one already released is counted late and is the next `popReleased()`.
    package mutating func push(_ sample: DetectionInput) {
        let t = sample.t
        if t < lastReleased {
            lateCount += 1
            latestLate = (sample.source, lastReleased - t)
            late.append(sample)
            return
        }
        let held: Held
        switch sample {
        case .accelerometer(let s): held = .accelerometer(s)
        case .gyroscope(let s): held = .gyroscope(s)
        default:
            held = .other(t: t, slot: nextSlot)
            others[nextSlot] = sample
            nextSlot += 1
        }
        // Insert in time order, searching from the back (input is nearly sorted).
        var index = storage.count
        while index > head, storage[index - 1].t > t { index -= 1 }
        if index == storage.count { storage.append(held) } else { storage.insert(held, at: index) }
        if t > newest { newest = t }
        if head > 4096, head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// The next sample ready to go: a late one, else the oldest held one if it has waited `windowSeconds` (a sample that
    /// much newer has arrived); nil when none is ready.
    package mutating func popReleased() -> DetectionInput? {
        if !late.isEmpty { return late.removeFirst() }
        guard head < storage.count, storage[head].t <= newest - windowSeconds else { return nil }
        return popOldest()
    }

    /// The oldest held sample whether or not it has waited (end of a flight), late ones first; nil when empty.
    package mutating func popHeld() -> DetectionInput? {
        if !late.isEmpty { return late.removeFirst() }
        guard head < storage.count else {
            storage.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        return popOldest()
    }

    private mutating func popOldest() -> DetectionInput {
        let held = storage[head]
        head += 1
        lastReleased = held.t
        switch held {
        case .accelerometer(let s): return .accelerometer(s)
        case .gyroscope(let s): return .gyroscope(s)
        case .other(_, let slot):
            guard let sample = others.removeValue(forKey: slot) else {
                preconditionFailure("SampleReorderBuffer: slot \(slot) held without its sample")
            }
            return sample
        }
    }
}
