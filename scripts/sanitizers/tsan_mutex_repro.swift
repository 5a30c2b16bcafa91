// ThreadSanitizer cannot see Synchronization.Mutex on Linux (docs/reliability.md §4): this program counts to 80000 under
// the mutex correctly, yet `swiftc -sanitize=thread -g tsan_mutex_repro.swift && ./tsan_mutex_repro` reports races
// inside the lock (Swift 6.3.1, x86_64 Linux). ThreadSanitizerHooks in EddyClock is the workaround.
import Synchronization
import Dispatch
struct S: Sendable { var a: [Double] = []; var t = 0.0; var k = 0 }
final class L: Sendable { let m = Mutex<S>(S()) }
let l = L()
let g = DispatchGroup()
for _ in 0..<4 {
    DispatchQueue.global().async(group: g) {
        for i in 0..<20000 { l.m.withLock { s in s.a.append(Double(i)); s.t = Double(i); s.k += 1; if s.a.count > 100 { s.a.removeFirst(50) } } }
    }
}
g.wait()
print(l.m.withLock { $0.k })
