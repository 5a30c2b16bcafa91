#if Tools
import EddyVocabulary

/// The nowcast table's provenance column in both SQL dialects (SQLite's migration `v9-nowcast-provenance`,
/// PostgreSQL's version 7): cells issued before it existed came from the fleet's reports alone.
enum NowcastProvenanceSchema {
    /// SQLite.
    static let sqlite = "ALTER TABLE nowcast ADD COLUMN provenance TEXT NOT NULL DEFAULT 'fleetMeasured'"
    /// PostgreSQL.
    static let postgres = ["ALTER TABLE nowcast ADD COLUMN provenance TEXT NOT NULL DEFAULT 'fleetMeasured'"]

    /// A stored provenance; an unknown code (a newer server's) reads as fleet measured, the value old rows have.
    static func provenance(_ code: String) -> TurbulenceProvenance { TurbulenceProvenance(rawValue: code) ?? .fleetMeasured }
}
#endif
