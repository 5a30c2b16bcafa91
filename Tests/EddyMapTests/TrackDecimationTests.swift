import Testing
@testable import EddyMap

@Suite("TrackDecimation")
struct TrackDecimationTests {
    func point(_ t: Double, layer: Int = 35, fix: Bool = true) -> MapTrackPoint {
        MapTrackPoint(t: t, latitudeDegrees: fix ? 47 : nil, longitudeDegrees: fix ? 8 + t * 1e-3 : nil,
                      pressureAltitudeFeet: Double(layer) * 1000 + 500, gnssAltitudeFeet: nil, layer: layer)
    }

    @Test("a 12-hour 1 Hz track keeps about 8000 points, the first and the last")
    func twelveHours() {
        let track = (0..<43_200).map { point(Double($0)) }
        let (kept, step) = TrackDecimation().apply(track)
        #expect(step == 43_199.0 / 8000)
        #expect(kept.count >= 7_900 && kept.count <= 8_100, "kept \(kept.count)")
        #expect(kept.first?.t == 0 && kept.last?.t == 43_199)
        for index in 1..<kept.count { #expect(kept[index].t - kept[index - 1].t <= step + 1) }
    }

    @Test("a short track keeps one point per 5 s")
    func short() {
        let track = (0..<600).map { point(Double($0)) }
        let (kept, step) = TrackDecimation().apply(track)
        #expect(step == 5)
        #expect(kept.count == 121)
    }

    @Test("every layer change, both ends of a gap and fix changes are kept; out-of-order points are dropped")
    func changesAndGaps() {
        var track = (0..<100).map { point(Double($0), layer: $0 < 37 ? 35 : 36) }
        track += (400..<500).map { point(Double($0), layer: 36, fix: $0 >= 450) }
        track.insert(point(50), at: 60)   // out of order
        let kept = TrackDecimation().apply(track).points
        let times = kept.map(\.t)
        #expect(times.contains(37), "layer change at t = 37 kept")
        #expect(times.contains(99) && times.contains(400), "both ends of the 300 s gap kept")
        #expect(times.contains(450), "first point with a fix kept")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("empty and single-point tracks")
    func edges() {
        #expect(TrackDecimation().apply([]).points.isEmpty)
        #expect(TrackDecimation().apply([point(3)]).points.map(\.t) == [3])
    }
}
