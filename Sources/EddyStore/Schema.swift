package import GRDB

/// The store's schema: a forward-only list of GRDB migrations (never edit a shipped one; append a new one).
///
/// Conventions: UUIDs are 16-byte BLOBs, H3 cells are INTEGERs (the 64-bit index, always < 2^63),
/// times are REAL Unix epoch seconds, EDR is REAL m^(2/3) s^-1. See docs/store.md.
package enum StoreSchema {
    /// `PRAGMA application_id` of an Eddy store ("EDDY" in ASCII): tells our files from other apps' SQLite files.
    package static let applicationID: Int32 = 0x4544_4459

    /// Migration identifiers, oldest first.
    package static let migrationIDs: [String] = [
        "v1-outbox-observations", "v2-nowcast-polygons", "v3-live-flights", "v4-observation-generation",
        "v5-report-altitude-fleet-offsets", "v6-observation-blocks", "v7-nowcast-blend-provenance",
    ]

    /// The migrator with every migration registered, in order.
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(migrationIDs[0], migrate: v1)
        migrator.registerMigration(migrationIDs[1], migrate: v2)
        migrator.registerMigration(migrationIDs[2], migrate: v3)
        migrator.registerMigration(migrationIDs[3], migrate: v4)
        migrator.registerMigration(migrationIDs[4], migrate: v5)
        migrator.registerMigration(migrationIDs[5], migrate: v6)
        migrator.registerMigration(migrationIDs[6], migrate: nowcastProvenance)
        return migrator
    }

    /// v1: own-report outbox, server observations, sync state, session and configuration.
    static func v1(_ db: Database) throws {
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: """
            CREATE TABLE own_report (
                id BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 16),
                h3 INTEGER NOT NULL,
                layer INTEGER NOT NULL,
                enter_time REAL NOT NULL,
                exit_time REAL NOT NULL,
                edr_peak REAL NOT NULL,
                edr_median REAL NOT NULL,
                reporter_class TEXT NOT NULL,
                status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1))
            );
            CREATE INDEX own_report_status ON own_report (status, exit_time);
            CREATE INDEX own_report_tile ON own_report (h3, layer, exit_time);

            -- Append-only log of server reports (rowid = arrival order, no secondary index); queries go through
            -- the in-memory ObservationIndex. See docs/store.md for why.
            CREATE TABLE observation (
                id BLOB NOT NULL CHECK (length(id) = 16),
                h3 INTEGER NOT NULL,
                layer INTEGER NOT NULL,
                enter_time REAL NOT NULL,
                exit_time REAL NOT NULL,
                edr_peak REAL NOT NULL,
                edr_median REAL NOT NULL,
                reporter_class TEXT NOT NULL,
                reporter_id TEXT NOT NULL,
                source TEXT NOT NULL
            );

            CREATE TABLE sync_state (
                area_type TEXT NOT NULL,
                data_type TEXT NOT NULL,
                tick TEXT,
                last_full_fetch_time REAL,
                PRIMARY KEY (area_type, data_type)
            ) WITHOUT ROWID;

            CREATE TABLE session (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE configuration (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
            """)
    }

    /// v2: nowcast cells and the aggregated turbulence polygons.
    static func v2(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE nowcast (
                h3 INTEGER NOT NULL,
                layer INTEGER NOT NULL,
                valid_time REAL NOT NULL,
                forecast_hour INTEGER NOT NULL,
                edr REAL NOT NULL,
                issue_time REAL NOT NULL,
                PRIMARY KEY (forecast_hour, h3, layer)
            ) WITHOUT ROWID;
            CREATE INDEX nowcast_valid ON nowcast (valid_time);

            CREATE TABLE turbulence_polygon (
                history_minutes INTEGER NOT NULL,
                severity INTEGER NOT NULL,
                geojson TEXT NOT NULL,
                updated_time REAL NOT NULL,
                PRIMARY KEY (history_minutes, severity)
            ) WITHOUT ROWID;
            """)
    }

    /// v3: live flights (the last known position of each flight).
    static func v3(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE live_flight (
                flight_id TEXT PRIMARY KEY NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                altitude_feet REAL NOT NULL,
                heading_degrees REAL,
                ground_speed_knots REAL,
                aircraft_type TEXT,
                flight_number TEXT,
                departure TEXT,
                destination TEXT,
                h3 INTEGER NOT NULL,
                layer INTEGER NOT NULL,
                time REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX live_flight_time ON live_flight (time);
            """)
    }

    /// v4: a counter bumped by every transaction that changes the observation log, so each store instance (or
    /// process) can tell when its in-memory index is behind the file and rebuild it.
    static func v4(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE store_state (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO store_state (key, value) VALUES ('observation_generation', 0);
            """)
    }

    /// v5: each report's altitude source, 90 % altitude uncertainty and layer-uncertain flag (nullable: reports
    /// stored before, and reports from clients that do not send them, have none), and the fleet's cached
    /// geometric − pressure altitude offsets (one row per H3 resolution-3 cell × layer, replaced by newer answers).
    static func v5(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE own_report ADD COLUMN altitude_source TEXT;
            ALTER TABLE own_report ADD COLUMN altitude_u90_ft REAL;
            ALTER TABLE own_report ADD COLUMN layer_uncertain INTEGER;
            ALTER TABLE observation ADD COLUMN altitude_source TEXT;
            ALTER TABLE observation ADD COLUMN altitude_u90_ft REAL;
            ALTER TABLE observation ADD COLUMN layer_uncertain INTEGER;

            CREATE TABLE altitude_offset (
                h3 INTEGER NOT NULL,
                layer INTEGER NOT NULL,
                offset_feet REAL NOT NULL,
                uncertainty_feet REAL NOT NULL,
                observation_count INTEGER NOT NULL,
                newest_time REAL NOT NULL,
                PRIMARY KEY (h3, layer)
            ) WITHOUT ROWID;
            CREATE INDEX altitude_offset_time ON altitude_offset (newest_time);
            """)
    }

    /// v6: the on-disk part of the observation index (docs/store.md "Observations"): blocks of packed entries, rowid =
    /// bucket << 40 | sequence, and how far the log has been flushed into them. The log itself is unchanged; a store
    /// migrated from v5 starts with nothing flushed, and the first open flushes its log in bounded chunks.
    static func v6(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE observation_block (rowid INTEGER PRIMARY KEY, entries BLOB NOT NULL);
            INSERT INTO store_state (key, value) VALUES ('observation_flushed_rowid', 0), ('observation_block_sequence', 0);
            """)
    }

    /// v7 (branch nowcast-blend, issue 31): each nowcast cell's provenance (`TurbulenceProvenance` raw value); cells
    /// fetched before it came from the fleet's reports alone.
    static func nowcastProvenance(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE nowcast ADD COLUMN provenance TEXT NOT NULL DEFAULT 'fleetMeasured'")
    }
}
