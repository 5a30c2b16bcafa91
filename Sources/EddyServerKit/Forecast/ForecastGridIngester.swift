#if Tools
package import EddySupport
import Foundation
package import Logging

/// What a forecast-grid ingest did: counts, and every message that failed with its file, number, problem and remedy.
package struct ForecastIngestSummary: Sendable, IngestSummary {
    /// An empty summary.
    package init() {}
    /// Files read.
    package var filesRead = 0
    /// GRIB messages met (fields, skipped and failed).
    package var messagesRead = 0
    /// Turbulence EDR fields read and mapped onto cells.
    package var fieldsRead = 0
    /// Messages that are not turbulence EDR (icing, winds…): counted, not stored.
    package var skipped = 0
    /// Cells (product × cell × layer × valid time × issue time) written.
    package var cellsStored = 0
    /// Messages that failed: `FILE: message N: problem; remedy`.
    package var errors: [String] = []
    /// Files that could not be read or stored, with the reason.
    package var unreadable: [String] = []

    /// Whether nothing at all could be read (every file unreadable, or no field decoded): the command's failure.
    package var nothingRead: Bool { fieldsRead == 0 && skipped == 0 }

    /// The one-line summary.
    package var line: String {
        "forecast grids: \(filesRead) file(s), \(messagesRead) message(s): \(fieldsRead) EDR field(s) read, \(cellsStored) cell(s) stored, "
            + "\(skipped) other field(s) skipped, \(errors.count) message error(s), \(unreadable.count) unreadable file(s)"
    }

    /// Adds another summary's counts and messages.
    package mutating func add(_ other: ForecastIngestSummary) {
        filesRead += other.filesRead; messagesRead += other.messagesRead; fieldsRead += other.fieldsRead; skipped += other.skipped
        cellsStored += other.cellsStored; errors += other.errors; unreadable += other.unreadable
    }
}

/// Reads GRIB2 turbulence forecasts (GTG, WAFS) into the server's storage (docs/nowcast.md "Forecast grids"): every
/// EDR field's points onto resolution-5 cells (`ForecastGridCells`), its level onto a layer (`ForecastLevel`), the largest
/// value per product × cell × layer × valid time × issue time kept, one transaction per file.
package struct ForecastGridIngester: Sendable {
    /// Where cells go.
    package var storage: any ForecastGridStore
    /// The product name to store instead of the one inferred from centre and level type (`--product`).
    package var product: String?
    /// Cells with a smaller EDR are not stored (`--min-edr`; 0 stores every cell, smooth air included).
    package var minimumEDR: Double
    /// The clock of `received_at`.
    package var clock: any EpochClock

    /// An ingester into `storage`.
    package init(storage: any ForecastGridStore, product: String? = nil, minimumEDR: Double = 0, clock: any EpochClock = SystemEpochClock()) {
        self.storage = storage
        self.product = product
        self.minimumEDR = minimumEDR
        self.clock = clock
    }

    /// The files a path names: itself, or a folder's regular, non-hidden files sorted by name.
    package static func files(at path: String) throws(GRIBMessageError) -> [String] {
        do { return try IngestFiles.files(at: path, expected: "a GRIB2 file") } catch {
            throw GRIBMessageError(file: path, message: nil, problem: error.problem, remedy: error.remedy)
        }
    }

    /// Ingests every file `paths` name (folders: their files).
    package func ingest(paths: [String]) async -> ForecastIngestSummary {
        await .ingesting(paths: paths, files: { path throws in try Self.files(at: path) }, file: { await ingest(file: $0) })
    }

    /// Ingests one file: reads every message, stores the cells of its EDR fields in one transaction, counts the rest.
    package func ingest(file: String) async -> ForecastIngestSummary {
        var summary = ForecastIngestSummary()
        let reading: ForecastFileReading
        do { reading = try Self.read(file: file, product: product, minimumEDR: minimumEDR) } catch {
            summary.unreadable.append("\(error)")
            return summary
        }
        summary.filesRead = 1
        (summary.messagesRead, summary.fieldsRead, summary.skipped) = (reading.messages, reading.fields, reading.skipped)
        summary.errors = reading.errors.map(\.description)
        do {
            summary.cellsStored = try await storage.storeForecastCells(reading.cells, source: file, receivedAt: clock.now())
        } catch {
            summary.unreadable.append("\(file): nothing stored: \(error); the file is read again at the next ingest")
            summary.filesRead = 0
        }
        return summary
    }

    /// What one file holds: its cells (largest EDR per product × cell × layer × valid × issue time) and counts.
    package struct ForecastFileReading: Sendable {
        /// Messages met.
        package var messages = 0
        /// EDR fields read.
        package var fields = 0
        /// Other fields.
        package var skipped = 0
        /// Messages that failed.
        package var errors: [GRIBMessageError] = []
        /// The cells, sorted by valid time, issue time, product, layer and cell.
        package var cells: [StoredForecastCell] = []
    }

    /// Reads a GRIB file's EDR fields onto cells (`product` overrides the inferred product name).
    package static func read(file: String, product: String?, minimumEDR: Double) throws(GRIBMessageError) -> ForecastFileReading {
        var reading = ForecastFileReading()
        var largest: [CellKey: Double] = [:]
        try GRIBReader.forEachMessage(in: file, wanted: { ForecastField.isEDR(discipline: $0.discipline, category: $0.category, parameter: $0.parameter) }) { outcome in
            reading.messages += 1
            switch outcome {
            case .skipped: reading.skipped += 1
            case .failed(let error): reading.errors.append(error)
            case .field(let field):
                switch cells(of: field, file: file, product: product) {
                case .failure(let error): reading.errors.append(error)
                case .success(let (key, values)):
                    reading.fields += 1
                    for (h3, edr) in values {
                        var cellKey = key
                        cellKey.h3 = h3
                        largest[cellKey] = max(largest[cellKey] ?? -.infinity, edr)
                    }
                }
            }
        }
        reading.cells = largest.filter { $0.value >= minimumEDR }.map { key, edr in
            StoredForecastCell(product: key.product, h3: key.h3, layer: key.layer, issueTime: key.issueTime, validTime: key.validTime, edr: edr)
        }.sorted { ($0.validTime, $0.issueTime, $0.product, $0.layer, $0.h3) < ($1.validTime, $1.issueTime, $1.product, $1.layer, $1.h3) }
        return reading
    }

    /// A field's key (its `h3` still 0) and its values per cell, or why the field cannot be used.
    static func cells(of field: GRIBField, file: String, product: String?) -> Result<(CellKey, [UInt64: Double]), GRIBMessageError> {
        func failure(_ problem: String, _ remedy: String) -> Result<(CellKey, [UInt64: Double]), GRIBMessageError> {
            .failure(GRIBMessageError(file: file, message: field.header.number, problem: problem, remedy: remedy))
        }
        guard let issue = field.referenceTime, let valid = field.validTime else {
            return failure("its reference or validity date and time are not a calendar date and time", "check dataDate, dataTime and the step with grib_ls")
        }
        let layer: Int
        switch ForecastLevel.layer(type: field.levelType, value: field.levelValue) {
        case .success(let value): layer = value
        case .failure(let problem):
            return failure(problem.reason, "Eddy places EDR fields on isobaric levels (100) or altitudes above MSL (102) only")
        }
        let finite = field.points.values.filter { !$0.isNaN }
        if let bad = finite.first(where: { !$0.isFinite || $0 < 0 }) {
            return failure("it holds the value \(bad), not an EDR (m^(2/3) s^-1, never negative)", "check the message with grib_get_data")
        }
        let values = ForecastGridCells.cellValues(field.points)
        let name = product ?? ForecastField.product(centre: field.header.centre, levelType: field.levelType)
        return .success((CellKey(product: name, h3: 0, layer: layer, issueTime: issue, validTime: valid), values))
    }

    /// The identity of a stored forecast cell.
    struct CellKey: Hashable {
        var product: String
        var h3: UInt64
        var layer: Int
        var issueTime: Double
        var validTime: Double
    }
}

extension ForecastGridIngester {
    /// A watcher of `folder` that ingests its new and changed GRIB2 files with this ingester (`serve --forecast-folder`).
    package func folderWatcher(folder: String, logger: Logger) -> IngestFolderWatcher<ForecastIngestSummary> {
        IngestFolderWatcher(folder: folder, noun: "forecast grid", part: "message", logger: logger) { file in await self.ingest(file: file) }
    }
}
#endif
