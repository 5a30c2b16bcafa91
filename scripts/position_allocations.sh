#!/usr/bin/env bash
# Counts heap allocations per fix of the horizontal position estimators (docs/position.md §8).
# Builds the EddyCore location sources with a tiny driver (swiftc -O) and runs it under valgrind for two numbers of
# fixes; the difference in allocation counts divided by the difference in fixes is the allocations per update.
# Needs swiftc and valgrind (Debian: apt-get install valgrind). Prints `name: value` lines.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/main.swift" <<'SWIFT'
import Foundation
// 10 Hz fixes on a 3 °/s turn at 120 kt with ±5 m deterministic noise, speed and course.
let count = Int(CommandLine.arguments[1]) ?? 0
let method = PositionFilterMethod(rawValue: CommandLine.arguments[2]) ?? .kalman
struct XorShift { var state: UInt64 = 0x5EED_F11E
    mutating func unit() -> Double { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return Double(state >> 11) * 0x1.0p-53 } }
var random = XorShift()
var fixes: [LocationSample] = []
fixes.reserveCapacity(5000)
let speed = 61.7, rate = 3.0 * Double.pi / 180, radius = speed / rate
for i in 0..<5000 {
    let t = Double(i) * 0.1, a = rate * t
    let e = radius * sin(a) + 10 * (random.unit() - 0.5), n = radius * (1 - cos(a)) + 10 * (random.unit() - 0.5)
    var course = (90 - a * 180 / Double.pi).truncatingRemainder(dividingBy: 360)
    if course < 0 { course += 360 }
    fixes.append(LocationSample(t: t, latitudeDegrees: 47 + n / 111_200, longitudeDegrees: 8 + e / (111_200 * cos(47 * Double.pi / 180)),
                                horizontalAccuracyMeters: 8, speedMetersPerSecond: speed, courseDegrees: course))
}
var estimator = PositionEstimator(method: method)
var used = 0
for fix in fixes.prefix(count) where estimator.update(fix).position != nil { used += 1 }
print(used)
SWIFT
swiftc -O -swift-version 6 -package-name eddy \
    "$root/Sources/EddyCore/Model/Samples.swift" "$root"/Sources/EddyCore/Location/{LocalTangentPlane,PositionFilterTypes,HorizontalPositionFilter,PositionAlternatives}.swift \
    "$work/main.swift" -o "$work/driver"
allocs() { valgrind "$work/driver" "$1" "$2" 2>&1 >/dev/null | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,; }
for method in kalman runningAverage leastSquares; do
    few=$(allocs 1000 "$method"); many=$(allocs 5000 "$method")
    echo "position_${method}_allocations_per_update: $(( (many - few) / 4000 ))"
    echo "position_${method}_allocations_total_1000_vs_5000_fixes: ${few} ${many}"
    echo "position_${method}_fixes_used_of_5000: $("$work/driver" 5000 "$method")"
done
