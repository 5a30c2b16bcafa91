import EddySupport
import Testing

@Suite struct MemoTableTests {
    @Test func aKnownKeyIsNotComputedAgainAndTheOldestLeavesWhenFull() {
        let table = MemoTable<Int, String>(capacity: 2)
        var computed: [Int] = []
        func lookUp(_ key: Int) -> String { table.value(for: key) { computed.append(key); return "value \(key)" } }
        #expect(lookUp(1) == "value 1")
        #expect(lookUp(1) == "value 1")
        #expect(lookUp(2) == "value 2")
        #expect(computed == [1, 2])
        #expect(table.count == 2)
        // Full: 3 pushes 1 out, so 1 is computed again, and 2 is still known.
        #expect(lookUp(3) == "value 3")
        #expect(lookUp(2) == "value 2")
        #expect(lookUp(1) == "value 1")
        #expect(computed == [1, 2, 3, 1])
        #expect(table.count == 2)
    }

    @Test func threadsLookingUpTheSameKeysAllGetTheComputedValues() async {
        let table = MemoTable<Int, Int>(capacity: 8)
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<1_000).reduce(0) { sum, i in sum + table.value(for: i % 8) { (i % 8) * 10 } } }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // Each task adds 125 × (0 + 10 + … + 70) = 35,000.
        #expect(sums == Array(repeating: 35_000, count: 8))
        #expect(table.count == 8)
    }
}
