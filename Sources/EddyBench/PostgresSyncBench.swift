import Foundation

/// The sync figures on PostgreSQL: a throw-away cluster (scripts/pg_cluster.sh, under .build/pg-bench, PostgreSQL's
/// durable defaults), preloaded with `EDDY_BENCH_POSTGRES_PRELOAD` reports (10 M by default) spread over the last ten
/// days, then the same ingest and delta measurements as SQLite through a real `eddy-server --database postgres://…`.
///
/// The preload does not go through HTTP (it would take longer than the benchmark): it is multi-row
/// `INSERT … SELECT FROM generate_series` straight into `report_ids` and `observations` (1 M rows a statement), into
/// the daily partitions the server would have created on those days.
enum PostgresSyncBench {
    /// Runs the PostgreSQL part and prints its figures.
    static func run() throws {
        let script = try clusterScript()
        let root = script.deletingLastPathComponent().deletingLastPathComponent()
        let clusterDirectory = root.appendingPathComponent(".build/pg-bench").path
        let environment = ["EDDY_PG_DIR": clusterDirectory]
        _ = try shell(["bash", script.path, "destroy"], environment: environment)
        let url = try shell(["bash", script.path, "start"], environment: environment).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? shell(["bash", script.path, "destroy"], environment: environment) }

        // Migrate (the first open creates the schema), then move the tick epoch ten days back so that the preloaded
        // reports get the ticks they would have had.
        _ = try shell([BenchServer.binary.path, "keys", "list", "--database", url])
        let now = Date().timeIntervalSince1970
        let days = 10
        let epoch = (now - Double(days) * 86_400).rounded(.down)
        try psql(url, "UPDATE meta SET value = '\(epoch)' WHERE key = 'tick_epoch'")
        let today = Int((now / 86_400).rounded(.down))
        for day in (today - days - 1)...(today + 2) {
            try psql(url, """
                CREATE TABLE IF NOT EXISTS observations_d\(day) PARTITION OF observations
                FOR VALUES FROM (\(Double(day) * 86_400)) TO (\(Double(day + 1) * 86_400))
                """)
        }
        let preload = Int(ProcessInfo.processInfo.environment["EDDY_BENCH_POSTGRES_PRELOAD"] ?? "") ?? 10_000_000
        let cell = Int64(bitPattern: try SyncBenchmarks.cellPool(count: 1)[0])
        let chunk = 1_000_000
        let loadStart = Date()
        var loaded = 0
        while loaded < preload {
            let upper = min(preload, loaded + chunk)
            // Exit times uniform over the ten days ending ten minutes ago; positions uniform in ±60° latitude.
            try psql(url, """
                WITH g AS (SELECT gen_random_uuid() AS id, i,
                                  \(epoch) + (\(now - 600 - epoch)) * i / \(preload)::float8 AS e
                           FROM generate_series(\(loaded + 1), \(upper)) AS i),
                     ids AS (INSERT INTO report_ids (id) SELECT id FROM g)
                INSERT INTO observations (id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                    reporter_id, tick, received_at)
                SELECT id, \(cell), (i % 45)::int, -60 + random() * 120, -180 + random() * 360, e - 100, e, 0.2, 0.1, 'medium',
                    'fpreload', floor(e - \(epoch))::int8, e FROM g
                """)
            loaded = upper
        }
        try psql(url, "ANALYZE")
        let loadSeconds = Date().timeIntervalSince(loadStart)
        FileHandle.standardError.write(Data("postgres preload: \(preload) reports in \(Int(loadSeconds)) s\n".utf8))
        print("postgres_preload_reports_per_s: \(Int(Double(preload) / max(loadSeconds, 0.001)))")

        let server = try BenchServer(database: url)
        defer { server.stop() }
        _ = try SyncBenchmarks.ingestAndDelta(server: server, suffix: "_postgres", start: Date().timeIntervalSince1970)
        let stored = try psqlValue(url, "SELECT count(*) FROM observations")
        print("server_reports_stored_postgres: \(stored)")
    }

    /// scripts/pg_cluster.sh: in the working directory's checkout, else above the `eddy-bench` binary.
    static func clusterScript() throws -> URL {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var directory = BenchServer.binary.deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        for candidate in candidates {
            let script = candidate.appendingPathComponent("scripts/pg_cluster.sh")
            if FileManager.default.fileExists(atPath: script.path) { return script.resolvingSymlinksInPath() }
        }
        throw BenchError("scripts/pg_cluster.sh not found; run eddy-bench from the checkout (or set EDDY_BENCH_POSTGRES=0)")
    }

    /// Runs `sql` with psql (stops at the first error).
    static func psql(_ url: String, _ sql: String) throws {
        _ = try shell(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql])
    }

    /// The single value `sql` returns.
    static func psqlValue(_ url: String, _ sql: String) throws -> String {
        try shell(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a command (found on PATH), returns its standard output; throws with its standard error when it fails.
    static func shell(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        if ProcessInfo.processInfo.environment["EDDY_BENCH_VERBOSE"] == "1" {
            FileHandle.standardError.write(Data("postgres bench: \(arguments.prefix(4).joined(separator: " "))\n".utf8))
        }
        // Files, not pipes: the postgres server that `pg_cluster.sh start` leaves running inherits the write end of a
        // pipe, so reading a pipe to its end would wait for the server to exit. posix_spawn and waitpid, not Foundation's
        // Process: its waitUntilExit missed the exit of `pg_cluster.sh start` (the child stayed a zombie, the bench hung).
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-bench-shell-\(UUID().uuidString)")
        let outPath = base.appendingPathExtension("out").path, errPath = base.appendingPathExtension("err").path
        defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start \(arguments.first ?? ""): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError("waitpid failed for \(arguments.first ?? ""): errno \(errno)") }
        }
        let outData = FileManager.default.contents(atPath: outPath) ?? Data()
        let errData = FileManager.default.contents(atPath: errPath) ?? Data()
        // Exited normally with status 0 (WIFEXITED: low 7 bits 0; WEXITSTATUS: the next byte).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw BenchError("\(arguments.prefix(3).joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self))")
        }
        return String(decoding: outData, as: UTF8.self)
    }
}
