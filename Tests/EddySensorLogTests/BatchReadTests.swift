import EddyVocabulary
import Foundation
import Testing
@testable import EddySensorLog

/// `FlightLogReader.next(upTo:into:)`, the batches replays read in: the same samples in the same order as `next()`, and
/// at a bad line the samples before it first, then the line's error.
@Suite struct BatchReadTests {
    private static let accelerometer = "t,ax,ay,az\n0,0,0,-1\n0.02,0.1,0,-1\n0.04,0.2,0,-1\n0.06,0.3,0,-1\n0.08,0.4,0,-1\n"
    private static let gyroscope = "t,wx,wy,wz\n0.01,0,0,0.1\n0.03,0,0,0.2\n0.05,0,0,0.3\n"
    private static let location = "t,lat,lon,alt_m\n0,47,8,1000\n0.05,47.001,8.001,1001\n"

    private func reader(_ files: [SensorFileKind: String]) throws -> FlightLogReader {
        let meta = try FlightMeta.decode(Data(#"{"format":"eddy-sensor-log","version":1,"aircraft":{"class":"medium"}}"#.utf8))
        return try FlightLogReader(meta: meta, files: files.mapValues { Array($0.utf8) })
    }

    /// Batches of 1, 3 and 64 give exactly the merged sequence `next()` gives, and the same counts per file.
    @Test(arguments: [1, 3, 64])
    func sameSamplesAsNext(batchSize: Int) throws {
        let files: [SensorFileKind: String] = [.accelerometer: Self.accelerometer, .gyroscope: Self.gyroscope,
                                               .location: Self.location]
        let one = try reader(files)
        var expected: [SensorSample] = []
        while let sample = try one.next() { expected.append(sample) }
        #expect(expected.count == 10)

        let batched = try reader(files)
        var samples: [SensorSample] = []
        var batch: [SensorSample] = []
        while true {
            batch.removeAll()
            let error = batched.next(upTo: batchSize, into: &batch)
            #expect(error == nil)
            #expect(batch.count <= batchSize)
            samples += batch
            if batch.count < batchSize { break }
        }
        #expect(samples == expected)
        #expect(batched.sampleCounts == one.sampleCounts)
    }

    /// A bad fourth data line: the batch holds exactly what a `next()` loop delivers before it throws (the merge reads
    /// one line ahead, so the sample just before the bad line is not among them), then the same error, naming line 5.
    @Test func samplesBeforeABadLineThenItsError() throws {
        let bad = "t,ax,ay,az\n0,0,0,-1\n0.02,0.1,0,-1\n0.04,0.2,0,-1\n0.06,x,0,-1\n0.08,0.4,0,-1\n"
        let one = try reader([.accelerometer: bad])
        var delivered: [SensorSample] = []
        var loopError: SensorLogError?
        do throws(SensorLogError) {
            while let sample = try one.next() { delivered.append(sample) }
        } catch {
            loopError = error
        }
        let batched = try reader([.accelerometer: bad])
        var batch: [SensorSample] = []
        let error = try #require(batched.next(upTo: 64, into: &batch))
        #expect(batch == delivered)
        #expect(batch.map(\.t) == [0, 0.02])
        #expect(error == loopError)
        #expect(error.kind == .notANumber)
        #expect(error.line == 5)
    }
}
