#if Tools
import ArgumentParser
import EddyServerKit
import Foundation
import Logging

/// `eddy-server migrate`: shows or applies the schema migrations (`serve` applies them at start too).
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the database's schema migrations, or with --status / --dry-run only show what they would do.")
    @OptionGroup var database: DatabaseOption
    @Flag(help: "Show the migrations applied and pending; change nothing.") var status = false
    @Flag(help: "Apply the pending migrations and undo them (PostgreSQL: in a transaction rolled back; SQLite: on a copy of the file), timed; change nothing.")
    var dryRun = false

    func validate() throws {
        if status && dryRun { throw ValidationError("give --status or --dry-run, not both") }
    }

    func run() async throws {
        let location = try database.completedLocation
        print("database: \(location.redacted)")
        do {
            if !status && !dryRun {
                // Opening the storage applies the pending migrations (as serve does at start).
                await (try await database.open(logger: quietLogger)).shutdown()
            }
            let report: MigrationStatus
            switch location {
            case .sqlite(let path): report = try SQLiteServerStorage.migrationStatus(path: path, dryRun: dryRun)
            case .postgres(let postgres):
                report = try await PostgresServerStorage.migrationStatus(postgres, dryRun: dryRun, logger: quietLogger, timeouts: database.timeouts)
            }
            print(report.text)
        } catch {
            FileHandle.standardError.write(Data("eddy-server: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
#endif
