#if Tools
import EddyH3
import EddyVocabulary
import Foundation
import Testing

@testable import EddyServerKit

/// GRIB2 turbulence forecasts read through ecCodes (issue 31 deliverable 2; docs/nowcast.md "Forecast grids"): the
/// fixtures written by ecCodes itself (scripts/make_forecast_fixtures.sh) read back onto cells, layers and times, checked
/// against the analytic field they were made from and against what ecCodes' own `grib_get_data` prints.
@Suite struct ForecastGridReaderTests {
    static let folder = PostgresFaultCluster.root.appendingPathComponent("Fixtures/forecast")
    static func fixture(_ name: String) -> String { folder.appendingPathComponent(name).path }
    /// 2026-11-28T00:00:00Z, the fixtures' reference day.
    static let day = 1_795_824_000.0

    /// The 36 isobaric levels of the 0.25° WAFS EDR fields (NOAA-EMC/WAFS fix/wafs/grib2_0p25_gfs_hazard.list), FL450
    /// down to FL100, each fall in its flight level's layer; GTG's altitudes (m) likewise; other level types are refused.
    @Test func wafsPressureLevelsAndGTGAltitudesAreTheirFlightLevelsLayers() throws {
        let hectopascals = [147.5, 154.7, 162.4, 170.4, 178.7, 187.5, 196.8, 206.5, 216.6, 227.3, 238.4, 250, 262, 274.5, 287.4,
                            300.9, 314.9, 329.3, 344.3, 359.9, 376, 392.7, 410, 427.9, 446.5, 465.6, 485.5, 506, 527.2, 549.2,
                            571.8, 595.2, 619.4, 644.4, 670.2, 696.8]
        let layers = hectopascals.map { try? ForecastLevel.layer(type: 100, value: $0 * 100).get() }
        #expect(layers == Array((10...45).reversed()).map { Optional($0) }, "\(layers)")
        for (hPa, flightLevel) in zip(hectopascals, (10...45).reversed()) {
            let feet = StandardAtmosphere.pressureAltitudeFeet(pressureHectopascals: hPa)
            #expect(abs(feet - Double(flightLevel) * 1000) < 30, "\(hPa) hPa is \(feet) ft")
        }
        #expect(try ForecastLevel.layer(type: 102, value: 3048).get() == 10)
        #expect(try ForecastLevel.layer(type: 102, value: 10668).get() == 35)
        #expect(try ForecastLevel.layer(type: 102, value: 10_000 * 0.3048 - 1).get() == 10)   // 9,996.7 ft: FL100
        guard case .failure(let problem) = ForecastLevel.layer(type: 1, value: 0) else { Issue.record("surface placed"); return }
        #expect(problem.reason.contains("level type 1"))
        #expect(ForecastField.product(centre: "egrr", levelType: 100) == "WAFS" && ForecastField.product(centre: "kwbc", levelType: 102) == "GTG")
        #expect(ForecastField.isEDR(discipline: 0, category: 19, parameter: 30) && !ForecastField.isEDR(discipline: 0, category: 19, parameter: 37))
    }

    /// WAFS (egrr, isobaric, regular 0.25° grid with one missing point): every cell whose centre lies in a grid box with a
    /// value takes that point's value — the analytic field there, and exactly what `grib_get_data` prints for the point
    /// nearest the centre; the missing point's box stays empty; the icing field is skipped.
    @Test func wafsFieldsMatchTheAnalyticFieldAndEcCodesOwnTools() throws {
        let reading = try ForecastGridIngester.read(file: Self.fixture("wafs-egrr-isobaric.grib2"), product: nil, minimumEDR: 0)
        #expect(reading.messages == 7 && reading.fields == 6 && reading.skipped == 1 && reading.errors.isEmpty, "\(reading.errors)")
        #expect(Set(reading.cells.map(\.product)) == ["WAFS"] && Set(reading.cells.map(\.layer)) == [10, 30, 45])
        #expect(Set(reading.cells.map(\.issueTime)) == [Self.day] && Set(reading.cells.map(\.validTime)) == [Self.day + 6 * 3600, Self.day + 9 * 3600])

        // Message 2: FL300, step 6 h. The cells expected: those whose centres lie in the grid's boxes (48.875…51.125°N,
        // 2.125°W…0.125°E), found by H3's own polygon-to-cells on the finely drawn box, less the missing point's box.
        let cells = reading.cells.filter { $0.layer == 30 && $0.validTime == Self.day + 6 * 3600 }
        let points = try Self.gribGetData(Self.fixture("wafs-egrr-isobaric.grib2"), message: 2)
        #expect(points.count == 81 && points.filter { $0.value == nil }.count == 1)
        var outline: [LatLng] = []
        for step in 0...50 { outline.append(LatLng(latitude: 48.875, longitude: -2.125 + 2.25 * Double(step) / 50)) }
        for step in 0...50 { outline.append(LatLng(latitude: 51.125, longitude: 0.125 - 2.25 * Double(step) / 50)) }
        let inside = try H3.polygonToCells(outer: outline, resolution: TileID.h3Resolution).map(\.rawValue)
        let missingBox = try Set(inside.filter { cell in
            let centre = try H3.cellToLatLng(H3Index(rawValue: cell))
            return abs(centre.latitude - 50.5) <= 0.125 && abs(centre.longitude + 1.75) <= 0.125
        })
        #expect(!missingBox.isEmpty)
        #expect(Set(cells.map(\.h3)) == Set(inside).subtracting(missingBox), "\(cells.count) cells, \(inside.count) inside, \(missingBox.count) missing")
        for cell in cells {
            let centre = try H3.cellToLatLng(H3Index(rawValue: cell.h3))
            let nearest = try #require(points.min { Self.degreesApart($0, centre) < Self.degreesApart($1, centre) })
            #expect(nearest.value == cell.edr, "cell \(cell.h3): grib_get_data \(String(describing: nearest.value)), read \(cell.edr)")
            let analytic = 0.02 + 0.04 * (nearest.latitude - 49) + 0.03 * (Self.west(nearest.longitude) + 2) + 0.004 * 30
            #expect(abs(cell.edr - analytic) < 1e-4, "cell \(cell.h3): \(cell.edr) vs analytic \(analytic)")
        }
    }

    /// GTG (kwbc, altitudes above MSL, Lambert conformal 13.5-km grid, finer than a cell): each point goes to its own
    /// cell, which keeps the largest value; EDPARM (the larger) wins over CAT and mountain wave for the same cell.
    @Test func gtgLambertPointsGoToTheirCellsWithTheLargestValue() throws {
        let reading = try ForecastGridIngester.read(file: Self.fixture("gtg-kwbc-altitude.grib2"), product: nil, minimumEDR: 0)
        #expect(reading.messages == 6 && reading.fields == 6 && reading.skipped == 0 && reading.errors.isEmpty, "\(reading.errors)")
        #expect(Set(reading.cells.map(\.product)) == ["GTG"] && Set(reading.cells.map(\.layer)) == [10, 35])
        #expect(Set(reading.cells.map(\.issueTime)) == [Self.day + 3 * 3600] && Set(reading.cells.map(\.validTime)) == [Self.day + 6 * 3600])
        let points = try Self.gribGetData(Self.fixture("gtg-kwbc-altitude.grib2"), message: 1)   // EDPARM at 3,048 m
        #expect(points.count == 30)
        var expected: [UInt64: Double] = [:]
        for (index, point) in points.enumerated() {
            let value = try #require(point.value)
            let (i, j) = (index % 6, index / 6)   // scanning mode 64: west→east, south→north
            #expect(abs(value - (0.02 + 0.01 * Double(i) + 0.02 * Double(j) + 0.04)) < 1e-4, "point \(index): \(value)")
            let cell = try H3Cell.of(latitude: point.latitude, longitude: Self.west(point.longitude))
            expected[cell] = max(expected[cell] ?? 0, value)
        }
        let layer10 = Dictionary(uniqueKeysWithValues: reading.cells.filter { $0.layer == 10 }.map { ($0.h3, $0.edr) })
        #expect(layer10 == expected)
        #expect(layer10.count < 30 && layer10.count >= 10, "\(layer10.count) cells for 30 points 13.5 km apart")
    }

    /// Bad messages: each one an error naming the file, the message and what to do; nothing of them is read.
    @Test func badMessagesAreCountedWithTheirFileAndNumber() throws {
        let file = Self.fixture("bad-messages.grib2")
        let reading = try ForecastGridIngester.read(file: file, product: nil, minimumEDR: 0)
        #expect(reading.fields == 0 && reading.cells.isEmpty && reading.errors.count == 2, "\(reading.errors)")
        let texts = reading.errors.map(\.description)
        #expect(texts.first?.hasPrefix(file + ": message 1: level type 1 (Code table 4.5)") == true, "\(texts)")
        #expect(texts.last?.hasPrefix(file + ": message 2: ecCodes cannot read it") == true, "\(texts)")
        #expect(throws: GRIBMessageError.self) { try ForecastGridIngester.read(file: file + ".none", product: nil, minimumEDR: 0) }
        // Not GRIB at all (no "GRIB" to start a message): no message, no field (the command then exits 1: nothing read).
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-not-grib-\(UUID().uuidString).txt")
        try "plain text, no message in it\n".write(to: text, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: text) }
        let empty = try ForecastGridIngester.read(file: text.path, product: nil, minimumEDR: 0)
        #expect(empty.messages == 0 && empty.fields == 0 && empty.errors.isEmpty && empty.cells.isEmpty, "\(empty.errors)")
    }

    /// A regular grid across the antimeridian, scanned east to west and south to north (the reverse of WAFS): the flood
    /// finds exactly the cells a brute-force search finds (every cell near the grid whose centre is within half an
    /// increment of a point, by plain distance in degrees), each with its nearest point's value.
    @Test func aRegularGridAcrossTheAntimeridianInAnyScanningOrder() throws {
        var latitudes: [Double] = [], longitudes: [Double] = [], values: [Double] = []
        for row in 0..<5 {
            for column in 0..<6 {
                latitudes.append(-20 + 0.25 * Double(row))
                longitudes.append(180.75 - 0.25 * Double(column))   // 180.75 (= −179.25) westwards to 179.5
                values.append(row == 2 && column == 3 ? .nan : 0.01 * Double(row * 6 + column))
            }
        }
        let points = ForecastGridPoints(latitudes: latitudes, longitudes: longitudes, values: values,
                                        regularSpacing: .init(latitudeDegrees: 0.25, longitudeDegrees: 0.25))
        let cells = ForecastGridCells.cellValues(points)
        var expected: [UInt64: Double] = [:]
        for index in values.indices {
            let origin = try H3.latLngToCell(latitude: latitudes[index], longitude: Self.west(longitudes[index]), resolution: TileID.h3Resolution)
            for cell in try H3.gridDisk(origin, k: 4) {
                let centre = try H3.cellToLatLng(cell)
                let nearest = values.indices.min {
                    Self.degreesApart(PrintedPoint(latitude: latitudes[$0], longitude: longitudes[$0], value: nil), centre)
                        < Self.degreesApart(PrintedPoint(latitude: latitudes[$1], longitude: longitudes[$1], value: nil), centre)
                }!
                var dLon = abs(Self.west(longitudes[nearest]) - centre.longitude)
                if dLon > 180 { dLon = 360 - dLon }
                if abs(latitudes[nearest] - centre.latitude) <= 0.125, dLon <= 0.125, !values[nearest].isNaN { expected[cell.rawValue] = values[nearest] }
            }
        }
        #expect(expected.count > 20 && cells == expected, "\(cells.count) cells, brute force \(expected.count)")
        let centreLongitudes = try cells.keys.map { try H3.cellToLatLng(H3Index(rawValue: $0)).longitude }
        #expect(centreLongitudes.contains { $0 > 0 } && centreLongitudes.contains { $0 < 0 }, "cells on both sides of 180°")
    }

    /// `--min-edr` keeps only the cells at or above it; `--product` renames.
    @Test func minimumEDRAndProductOverride() throws {
        let all = try ForecastGridIngester.read(file: Self.fixture("wafs-egrr-isobaric.grib2"), product: nil, minimumEDR: 0)
        let strong = try ForecastGridIngester.read(file: Self.fixture("wafs-egrr-isobaric.grib2"), product: "WAFS-UK", minimumEDR: 0.2)
        #expect(!strong.cells.isEmpty && strong.cells.count < all.cells.count && strong.cells.allSatisfy { $0.edr >= 0.2 && $0.product == "WAFS-UK" })
        #expect(strong.cells.count == all.cells.filter { $0.edr >= 0.2 }.count)
    }

    /// A point as `grib_get_data` prints it (value nil where missing).
    struct PrintedPoint { var latitude: Double; var longitude: Double; var value: Double? }

    /// ecCodes' own `grib_get_data` output for message `message` of `file` (missing values printed as "missing").
    static func gribGetData(_ file: String, message: Int) throws -> [PrintedPoint] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["grib_get_data", "-L", "%.12f %.12f", "-m", "missing", "-F", "%.17g", "-w", "count=\(message)", file]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "grib_get_data (libeccodes-tools) failed: \(text)")
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 3, let latitude = Double(fields[0]), let longitude = Double(fields[1]) else { return nil }
            return PrintedPoint(latitude: latitude, longitude: longitude, value: Double(fields[2]))
        }
    }

    /// A longitude in −180…180.
    static func west(_ longitude: Double) -> Double { longitude > 180 ? longitude - 360 : longitude }

    /// Squared distance in degrees of latitude and longitude (what "nearest" means on a regular lat/lon grid).
    static func degreesApart(_ point: PrintedPoint, _ centre: LatLng) -> Double {
        let dLat = point.latitude - centre.latitude
        var dLon = abs(west(point.longitude) - centre.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        return dLat * dLat + dLon * dLon
    }
}
#endif
