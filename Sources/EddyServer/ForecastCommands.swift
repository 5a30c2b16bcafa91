#if Tools
import ArgumentParser
import EddyServerKit
import Foundation

/// `eddy-server ingest-forecast <file|folder>…`: reads GRIB2 turbulence forecasts (GTG, WAFS EDR fields) through
/// ecCodes into the server's database (docs/nowcast.md "Forecast grids").
struct IngestForecast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest-forecast",
        abstract: "Store GRIB2 turbulence forecasts (GTG, WAFS: EDR fields) from files or folders, as H3 cells × 1,000-ft layers.",
        discussion: """
            Every message that cannot be used is printed as FILE: message N: what is wrong; what to do, and counted. Fields \
            other than turbulence EDR (discipline 0, category 19, parameters 28–31) are counted and skipped. Ingesting the same \
            message again changes nothing. Exit status 1 only when nothing could be read.
            """)
    @OptionGroup var database: DatabaseOption
    @Option(help: ArgumentHelp("Product name to store (default: WAFS for centre egrr or kwbc on isobaric levels, GTG for kwbc on altitudes, else the centre).",
                               valueName: "name"))
    var product: String?
    @Option(help: "Store only cells whose EDR is at least this (m^(2/3) s^-1; 0 stores every cell, smooth air included).")
    var minEdr: Double = 0
    @Argument(help: "GRIB2 files or folders of them.") var paths: [String]

    func validate() throws {
        guard minEdr.isFinite, minEdr >= 0 else { throw ValidationError("--min-edr must be a non-negative EDR") }
        if let product, product.isEmpty { throw ValidationError("--product must not be empty") }
    }

    func run() async throws {
        let (product, minimum) = (product, minEdr)
        let summary = try await database.with { storage -> ForecastIngestSummary in
            guard let store = storage as? any ForecastGridStore else { throw ValidationError("this database backend cannot store forecast grids") }
            return await ForecastGridIngester(storage: store, product: product, minimumEDR: minimum).ingest(paths: paths)
        }
        for line in summary.errors + summary.unreadable { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
        print(summary.line)
        if summary.nothingRead { throw ExitCode(1) }
    }
}
#endif
