import EddyVocabulary
import Testing
@testable import EddySensorLog

/// Issue 15 "Limits": a 1 MB CSV line (below the reader's 1 MiB line cap, so it reaches the field parser) gives a
/// clear, short error naming the file and line; lenient mode skips it and keeps the good lines.
@Suite("Sensor log: a 1 MB line")
struct LineLimitTests {
    private func flight(withLine line: String) -> TempFlight {
        let flight = TempFlight()
        flight.writeMeta()
        flight.write("accelerometer.csv", "t,ax,ay,az\n0,0,0,-1\n" + line + "\n0.04,0,0,-1\n")
        return flight
    }

    @Test("one 1,000,000-byte field: line 3 of accelerometer.csv, an error shorter than 1 kB", arguments: ["9", "x", ","])
    func megabyteLine(filler: String) throws {
        let line = String(repeating: filler, count: 1_000_000)
        let f = flight(withLine: line)
        let error = try #require(f.readError())
        #expect(error.file == "accelerometer.csv")
        #expect(error.line == 3)
        #expect(error.kind != .lineTooLong)   // 10⁶ bytes are under the 1 MiB cap: the parser refuses it
        #expect(error.description.utf8.count < 1000, "the error is \(error.description.utf8.count) bytes")
        let (reader, samples) = try f.read(lenient: true)
        #expect(samples.map(\.t) == [0, 0.04])
        #expect(reader.skippedLines.first?.first?.line == 3)
    }

    @Test("a line of 1 MiB + 1 bytes is refused as too long, also lenient")
    func overTheCap() throws {
        let f = flight(withLine: String(repeating: "1", count: CSVReadState.maximumLineBytes + 1))
        for lenient in [false, true] {
            let error = try #require(f.readError(lenient: lenient))
            #expect(error.kind == .lineTooLong)
            #expect(error.line == 3)
            #expect(error.description.utf8.count < 1000)
        }
    }
}
