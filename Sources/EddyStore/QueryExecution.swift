import EddyH3
package import EddyVocabulary
import Foundation
import GRDB

extension EddyStore {
    /// Runs a turbulence query; results are sorted by tile (cell, layer), then time, then id.
    /// Throws `.invalidQuery` for bad input (nothing is read), the other store errors for storage failures.
    package func turbulence(_ query: TurbulenceQuery) throws(StoreError) -> [TurbulenceItem] {
        try turbulence([query])[0]
    }

    /// Runs several turbulence queries in one read snapshot, each answered as `turbulence(_:)` answers it, in the
    /// order given. An area shared by several queries (the engine's alert candidates: server and own reports of one
    /// circle) is covered with cells once. Throws `.invalidQuery` for the first bad query (nothing is read).
    package func turbulence(_ queries: [TurbulenceQuery]) throws(StoreError) -> [[TurbulenceItem]] {
        try turbulenceAndNowcast(queries, []).turbulence
    }

    /// Runs turbulence and nowcast queries in one read snapshot, each answered as `turbulence(_:)` and `nowcast(_:)`
    /// answer it, in the order given. An area shared by several queries (the engine's alert candidates: server
    /// reports, own reports and every forecast hour's nowcast of one circle) is covered with cells once, and the
    /// nowcast table is read only when it holds a cell still valid at the earliest `now`. Throws `.invalidQuery` for
    /// the first bad query, turbulence queries first (nothing is read).
    package func turbulenceAndNowcast(
        _ turbulenceQueries: [TurbulenceQuery], _ nowcastQueries: [NowcastQuery]
    ) throws(StoreError) -> (turbulence: [[TurbulenceItem]], nowcast: [[NowcastCell]]) {
        // Every query as a turbulence query (a nowcast query's area, altitude, severity and `now` are validated as
        // one), each area covered by the first query that has it.
        let nowcastAsTurbulence = nowcastQueries.map { query in
            TurbulenceQuery(area: query.area, altitudeRangeFeet: query.altitudeRangeFeet, minimumSeverity: query.minimumSeverity,
                            viewer: query.viewer, now: query.now)
        }
        let allQueries = turbulenceQueries + nowcastAsTurbulence
        var preparedQueries: [PreparedQuery] = []
        preparedQueries.reserveCapacity(allQueries.count)
        for (index, query) in allQueries.enumerated() {
            if index >= turbulenceQueries.count {
                let hour = nowcastQueries[index - turbulenceQueries.count].forecastHour
                guard (0...QueryLimits.maximumForecastHour).contains(hour) else { throw .invalidQuery(.invalidForecastHour(hour)) }
            }
            let shared = allQueries.indices.prefix(index).first { allQueries[$0].area == query.area }
            do {
                preparedQueries.append(try query.prepare(covering: shared.flatMap { preparedQueries[$0].cells }))
            } catch { throw .invalidQuery(error) }
        }
        let preparedTurbulence = preparedQueries.prefix(turbulenceQueries.count)
        let preparedNowcast = Array(preparedQueries.dropFirst(turbulenceQueries.count))
        if preparedQueries.allSatisfy({ $0.cells?.isEmpty == true }) {
            return (turbulenceQueries.map { _ in [] }, nowcastQueries.map { _ in [] })
        }
        return try read { db -> (turbulence: [[TurbulenceItem]], nowcast: [[NowcastCell]]) in
            let turbulence = try zip(turbulenceQueries, preparedTurbulence).map { (query, prepared) throws -> [TurbulenceItem] in
                if let cells = prepared.cells, cells.isEmpty { return [] }
                var items: [TurbulenceItem]
                switch query.selection {
                case .own: items = try ownTurbulence(query, prepared, db)
                case .server, .serverExcludingOwn: items = try serverTurbulence(query, prepared, db)
                }
                // The server path gives its items in result order already: check before sorting (a sort of thousands
                // of large items allocates a merge buffer even for sorted input).
                if !Self.isInResultOrder(items) { items.sort(by: Self.resultOrder) }
                return items
            }
            return (turbulence, try nowcastCells(nowcastQueries, preparedNowcast, db))
        }
    }

    /// Whether `items` are sorted by `resultOrder`.
    static func isInResultOrder(_ items: [TurbulenceItem]) -> Bool {
        var index = 1
        while index < items.count {
            if resultOrder(items[index], items[index - 1]) { return false }
            index += 1
        }
        return true
    }

    /// A cell list as the JSON array text `json_each` reads (the cells' signed 64-bit store values).
    static func cellListJSON(_ cells: [UInt64]) -> String {
        "[" + cells.map { String($0.storeInt) }.joined(separator: ",") + "]"
    }

    /// Whether a sorted cell list holds `cell` (binary search).
    static func sortedCells(_ cells: [UInt64], contain cell: UInt64) -> Bool {
        var low = 0
        var high = cells.count
        while low < high {
            let middle = (low + high) / 2
            if cells[middle] < cell { low = middle + 1 } else { high = middle }
        }
        return low < cells.count && cells[low] == cell
    }

    /// Own reports of the time span and layers, read through the outbox's (status, exit time) index; the area's cells
    /// are checked here (the outbox is small: pending reports and 6 h of sent ones), not with an SQL list of cells.
    private func ownTurbulence(_ query: TurbulenceQuery, _ prepared: PreparedQuery, _ db: Database) throws -> [TurbulenceItem] {
        let layers = prepared.layers ?? Int.min...Int.max
        let viewer = query.viewer
        // Every severity is read: a report's trend compares it with the one before it in its tile.
        let statement = try db.cachedStatement(sql: """
            SELECT \(reportColumns) FROM own_report
            WHERE status IN (0, 1) AND exit_time >= ? AND layer BETWEEN ? AND ?
            """)
        let cursor = try Row.fetchCursor(statement, arguments: [prepared.sinceTime, layers.lowerBound, layers.upperBound])
        var items: [TurbulenceItem] = []
        while let row = try cursor.next() {
            if let cells = prepared.cells {
                let h3: Int64 = row[1]
                if !Self.sortedCells(cells, contain: UInt64(bitPattern: h3)) { continue }
            }
            let report = try decodeReport(row, table: "own_report")
            if let tiles = prepared.tiles, !tiles.contains(report.tile) { continue }
            items.append(TurbulenceItem(
                report: report, severity: SeverityScale.severity(edr: report.edrPeak, viewer: viewer), origin: .own,
                reporterID: nil, source: nil, reportCount: 1))
        }
        let withTrends = Self.settingTrends(items)
        let minimumEDR = prepared.minimumEDR ?? -Double.infinity
        let kept = withTrends.items.filter { $0.report.edrPeak >= minimumEDR }
        guard query.aggregation == .worstPerTile else { return kept }
        // The tile's trend is its latest report's, whichever report is the worst.
        return Self.worstPerTile(kept).map { item in
            var item = item
            item.trend = withTrends.latestByTile[item.report.tile] ?? item.trend
            return item
        }
    }

    /// A 128-bit id as a hashable pair.
    private struct IDKey: Hashable {
        let high: UInt64
        let low: UInt64
    }

    /// One chosen observation and how many matching reports its tile had.
    private struct Pick {
        var cell: UInt64
        var entry: ObservationIndex.Entry
        var count: Int
        /// The tile's trend (aggregated) or the report's (every report).
        var trend: TurbulenceTrend
    }

    /// One layer of a cell while aggregating, as positions in the cell's entries (−1: none): the worst kept report
    /// and how many were kept, and the latest two reports of any severity.
    private struct TileSlot {
        var layer: Int32
        var latest: Int
        var previous = -1
        var worst = -1
        var count = 0
        init(layer: Int32, latest: Int) { self.layer = layer; self.latest = latest }
    }

    /// Whether `a` was cached after `b`: later exit time, then the larger id (a total order).
    private static func isLater(_ a: ObservationIndex.Entry, than b: ObservationIndex.Entry) -> Bool {
        if a.exitTime != b.exitTime { return a.exitTime > b.exitTime }
        return (a.idHigh, a.idLow) > (b.idHigh, b.idLow)
    }

    /// Whether `a` is worse than `b`: higher peak EDR, then later, then the smaller id.
    private static func isWorse(_ a: ObservationIndex.Entry, than b: ObservationIndex.Entry) -> Bool {
        if a.edrPeak != b.edrPeak { return a.edrPeak > b.edrPeak }
        if a.exitTime != b.exitTime { return a.exitTime > b.exitTime }
        return (a.idHigh, a.idLow) < (b.idHigh, b.idLow)
    }

    /// Server observations: read the index entries of the area's cells (blocks of their buckets and recent entries,
    /// in one snapshot), filter and aggregate them, then read only the chosen rows.
    private func serverTurbulence(_ query: TurbulenceQuery, _ prepared: PreparedQuery, _ db: Database) throws -> [TurbulenceItem] {
        // The own ids to leave out, read (in this snapshot) when the first cell with entries comes.
        var excluded = Set<IDKey>()
        var excludedRead = prepared.excludeOwnSince == nil
        func readExcluded() throws {
            excludedRead = true
            guard let ownSince = prepared.excludeOwnSince else { return }
            let statement = try db.cachedStatement(sql: "SELECT id FROM own_report WHERE exit_time >= ?")
            let cursor = try Data.fetchCursor(statement, arguments: [ownSince])
            while let blob = try cursor.next() {
                guard blob.count == 16 else { continue }
                let halves = UUID.halves(of: blob)
                excluded.insert(IDKey(high: halves.high, low: halves.low))
            }
        }
        let since = prepared.sinceTime
        let minimumEDR = prepared.minimumEDR ?? -Double.infinity
        let lowestLayer = Int32(clamping: prepared.layers?.lowerBound ?? Int(Int32.min))
        let highestLayer = Int32(clamping: prepared.layers?.upperBound ?? Int(Int32.max))
        let tiles = prepared.tiles
        let aggregate = query.aggregation == .worstPerTile
        let viewer = query.viewer
        var picks: [Pick] = []
        var window: [ObservationIndex.Entry] = []  // every-report scratch: the cell's reports in the window and range
        var slots: [TileSlot] = []                  // worst-per-tile scratch: one slot per layer
        let severity = { (entry: ObservationIndex.Entry) in SeverityScale.severity(edr: entry.edrPeak, viewer: viewer) }
        let kept = { (entry: ObservationIndex.Entry) in
            entry.edrPeak >= minimumEDR && (excluded.isEmpty || !excluded.contains(IDKey(high: entry.idHigh, low: entry.idLow)))
        }
        // One snapshot: sees observations written by another instance or process too (its generation decides).
        try observationIndex.forEachCell(db, cells: prepared.cells, since: since, layers: lowestLayer...highestLayer) { cell, entries in
            if !excludedRead { try readExcluded() }
            guard aggregate else {
                // Every report: oldest first within each layer, each compared with the one before it (any severity).
                window.removeAll(keepingCapacity: true)
                for entry in entries where entry.exitTime >= since && entry.layer >= lowestLayer && entry.layer <= highestLayer {
                    if let tiles, !tiles.contains(TileID(h3: cell, layer: Int(entry.layer))) { continue }
                    window.append(entry)
                }
                window.sort { $0.layer != $1.layer ? $0.layer < $1.layer : Self.isLater($1, than: $0) }
                var previous: ObservationIndex.Entry?
                for entry in window {
                    if previous?.layer != entry.layer { previous = nil }
                    let trend = TurbulenceTrend(latest: severity(entry), previous: previous.map(severity))
                    previous = entry
                    if kept(entry) { picks.append(Pick(cell: cell, entry: entry, count: 1, trend: trend)) }
                }
                return
            }
            // Worst per tile, in one pass: each layer's worst kept report and count, and its latest two reports of any
            // severity (the tile's trend). Slots hold positions in `entries`, not copies.
            slots.removeAll(keepingCapacity: true)
            for i in entries.indices {
                let entry = entries[i]
                guard entry.exitTime >= since, entry.layer >= lowestLayer, entry.layer <= highestLayer else { continue }
                if let tiles, !tiles.contains(TileID(h3: cell, layer: Int(entry.layer))) { continue }
                var index = 0
                while index < slots.count && slots[index].layer != entry.layer { index += 1 }
                if index == slots.count {
                    slots.append(TileSlot(layer: entry.layer, latest: i))
                } else if Self.isLater(entry, than: entries[slots[index].latest]) {
                    slots[index].previous = slots[index].latest
                    slots[index].latest = i
                } else if slots[index].previous < 0 || Self.isLater(entry, than: entries[slots[index].previous]) {
                    slots[index].previous = i
                }
                guard entry.edrPeak >= minimumEDR,
                      excluded.isEmpty || !excluded.contains(IDKey(high: entry.idHigh, low: entry.idLow)) else { continue }
                slots[index].count += 1
                if slots[index].worst < 0 || Self.isWorse(entry, than: entries[slots[index].worst]) { slots[index].worst = i }
            }
            // Layer order: the cells come in ascending order, so the picks come in the result order (the final sort
            // then finds them sorted).
            slots.sort { $0.layer < $1.layer }
            for slot in slots where slot.worst >= 0 {
                let trend = TurbulenceTrend(latest: severity(entries[slot.latest]),
                                            previous: slot.previous < 0 ? nil : severity(entries[slot.previous]))
                picks.append(Pick(cell: cell, entry: entries[slot.worst], count: slot.count, trend: trend))
            }
        }
        if picks.isEmpty { return [] }
        var items = picks.map { pick in
            let report = pick.entry.report(cell: pick.cell)
            return TurbulenceItem(
                report: report, severity: SeverityScale.severity(edr: report.edrPeak, viewer: viewer), origin: .server,
                reporterID: nil, source: nil, reportCount: pick.count, trend: pick.trend)
        }
        guard query.includeReporterDetails else { return items }
        // Reporter id and source live only in the table: read them for the chosen rows.
        var positionByRowid: [Int64: Int] = [:]
        positionByRowid.reserveCapacity(picks.count)
        for (position, pick) in picks.enumerated() { positionByRowid[pick.entry.rowid] = position }
        let list = "[" + picks.map(\.entry.rowid).sorted().map(String.init).joined(separator: ",") + "]"
        let statement = try db.cachedStatement(sql: """
            SELECT rowid, reporter_id, source FROM observation WHERE rowid IN (SELECT value FROM json_each(?))
            """)
        let cursor = try Row.fetchCursor(statement, arguments: [list])
        while let row = try cursor.next() {
            let rowid: Int64 = row[0]
            guard let position = positionByRowid[rowid] else { continue }
            items[position].reporterID = row[1]
            items[position].source = row[2]
        }
        return items
    }

    /// Deterministic result order: tile (cell, layer), then exit time, then id.
    static func resultOrder(_ a: TurbulenceItem, _ b: TurbulenceItem) -> Bool {
        if a.report.tile != b.report.tile { return a.report.tile < b.report.tile }
        if a.report.exitTime != b.report.exitTime { return a.report.exitTime < b.report.exitTime }
        let x = a.report.id.halves, y = b.report.id.halves
        return (x.high, x.low) < (y.high, y.low)
    }

    /// Each item's trend against the report before it in its tile (oldest first, any severity), and each tile's
    /// latest trend.
    static func settingTrends(_ items: [TurbulenceItem]) -> (items: [TurbulenceItem], latestByTile: [TileID: TurbulenceTrend]) {
        var sorted = items
        sorted.sort(by: resultOrder)
        var latest: [TileID: TurbulenceTrend] = [:]
        for i in sorted.indices {
            let before = i > 0 && sorted[i - 1].report.tile == sorted[i].report.tile ? sorted[i - 1].severity : nil
            let trend = TurbulenceTrend(latest: sorted[i].severity, previous: before)
            sorted[i].trend = trend
            latest[sorted[i].report.tile] = trend
        }
        return (sorted, latest)
    }

    /// Keeps the worst report of each tile: highest peak EDR, then the latest, then the smallest id.
    static func worstPerTile(_ items: [TurbulenceItem]) -> [TurbulenceItem] {
        var best: [TileID: TurbulenceItem] = [:]
        best.reserveCapacity(items.count)
        for item in items {
            guard var current = best[item.report.tile] else {
                best[item.report.tile] = item
                continue
            }
            let count = current.reportCount + 1
            let x = item.report.id.halves, y = current.report.id.halves
            let better = item.report.edrPeak != current.report.edrPeak
                ? item.report.edrPeak > current.report.edrPeak
                : item.report.exitTime != current.report.exitTime
                ? item.report.exitTime > current.report.exitTime
                : (x.high, x.low) < (y.high, y.low)
            if better { current = item }
            current.reportCount = count
            best[item.report.tile] = current
        }
        return Array(best.values)
    }
}

// MARK: - Nowcast, polygons, live flights

/// A nowcast query: the cells of one forecast hour, in an area and altitude range.
package struct NowcastQuery: Sendable, Equatable {
    /// Hours ahead (0 = the current hour … 12).
    package var forecastHour: Int
    /// Where to look.
    package var area: QueryArea
    /// Altitude range in feet (whole thousands), nil for every altitude.
    package var altitudeRangeFeet: ClosedRange<Int>?
    /// Only cells at least this severe for the viewer.
    package var minimumSeverity: Severity
    /// Viewer class for the severity.
    package var viewer: AircraftClass
    /// The present, Unix epoch seconds: cells no longer valid at `now` are left out.
    package var now: Double

    /// Creates a nowcast query.
    package init(
        forecastHour: Int, area: QueryArea = .everywhere, altitudeRangeFeet: ClosedRange<Int>? = nil,
        minimumSeverity: Severity = .none, viewer: AircraftClass = .medium, now: Double
    ) {
        self.forecastHour = forecastHour
        self.area = area
        self.altitudeRangeFeet = altitudeRangeFeet
        self.minimumSeverity = minimumSeverity
        self.viewer = viewer
        self.now = now
    }
}

extension EddyStore {
    /// Nowcast cells of one forecast hour still valid at `now`, sorted by tile.
    package func nowcast(_ query: NowcastQuery) throws(StoreError) -> [NowcastCell] {
        try turbulenceAndNowcast([], [query]).nowcast[0]
    }

    /// The cells of each prepared nowcast query (see `turbulenceAndNowcast`): none without reading them when the table
    /// holds no cell valid at the earliest `now`; a cell list shared by several queries is bound as one JSON text.
    private func nowcastCells(_ queries: [NowcastQuery], _ preparedQueries: [PreparedQuery], _ db: Database) throws -> [[NowcastCell]] {
        guard let earliestNow = queries.map(\.now).min() else { return [] }
        let anyValid = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM nowcast WHERE valid_time > ?)"),
            arguments: [earliestNow - NowcastCell.validitySeconds]) ?? false
        guard anyValid else { return queries.map { _ in [] } }
        var cellListText: [[UInt64]: String] = [:]
        return try zip(queries, preparedQueries).map { (query, prepared) throws -> [NowcastCell] in
            if prepared.cells?.isEmpty == true { return [] }
            var conditions = ["forecast_hour = ?", "valid_time > ?"]
            var arguments: [(any DatabaseValueConvertible)?] = [query.forecastHour, query.now - NowcastCell.validitySeconds]
            if let cells = prepared.cells {
                conditions.append("h3 IN (SELECT value FROM json_each(?))")
                if cellListText[cells] == nil { cellListText[cells] = Self.cellListJSON(cells) }
                arguments.append(cellListText[cells])
            }
            if let layers = prepared.layers {
                conditions.append("layer BETWEEN ? AND ?")
                arguments.append(layers.lowerBound)
                arguments.append(layers.upperBound)
            }
            if let minimumEDR = prepared.minimumEDR {
                conditions.append("edr >= ?")
                arguments.append(minimumEDR)
            }
            let sql = """
                SELECT h3, layer, valid_time, forecast_hour, edr, issue_time, provenance FROM nowcast
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY h3, layer
                """
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)).compactMap { row -> NowcastCell? in
                let h3: Int64 = row[0]
                let tile = TileID(h3: UInt64(bitPattern: h3), layer: row[1])
                if let tiles = prepared.tiles, !tiles.contains(tile) { return nil }
                let provenance = TurbulenceProvenance(rawValue: row[6]) ?? .fleetMeasured
                return NowcastCell(tile: tile, validTime: row[2], forecastHour: row[3], edr: row[4], issueTime: row[5], provenance: provenance)
            }
        }
    }

    /// The stored turbulence polygons of a history window at or above a severity, most severe first.
    package func turbulencePolygons(historyWindow: HistoryWindow, minimumSeverity: Severity = .light) throws(StoreError) -> [TurbulencePolygonSet] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT history_minutes, severity, geojson, updated_time FROM turbulence_polygon
                WHERE history_minutes = ? AND severity >= ? ORDER BY severity DESC
                """), arguments: [historyWindow.minutes, minimumSeverity.rawValue]
            ).map { row in
                let minutes: Int = row[0]
                let severityValue: Int = row[1]
                guard let window = HistoryWindow(rawValue: minutes), let severity = Severity(rawValue: severityValue) else {
                    throw StoreError.undecodableRow(table: "turbulence_polygon", detail: "window \(minutes) min, severity \(severityValue)")
                }
                return TurbulencePolygonSet(historyWindow: window, severity: severity, geoJSON: row[2], updatedTime: row[3])
            }
        }
    }

    /// The latest position of every live flight seen within `maximumAgeSeconds` before `now`, newest first.
    package func liveFlights(now: Double, maximumAgeSeconds: Double? = nil) throws(StoreError) -> [LiveFlight] {
        guard now.isFinite else { throw .invalidQuery(.invalidNow(now)) }
        let age = maximumAgeSeconds ?? options.liveFlightMaximumAgeSeconds
        guard age.isFinite, age > 0 else { throw .invalidQuery(.invalidTimeSpan(seconds: age)) }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT flight_id, latitude, longitude, altitude_feet, heading_degrees, ground_speed_knots, aircraft_type,
                    flight_number, departure, destination, h3, layer, time
                FROM live_flight WHERE time >= ? ORDER BY time DESC, flight_id
                """, arguments: [now - age]
            ).map { row in
                let h3: Int64 = row[10]
                return LiveFlight(
                    flightID: row[0], latitude: row[1], longitude: row[2], altitudeFeet: row[3], headingDegrees: row[4],
                    groundSpeedKnots: row[5], aircraftType: row[6], flightNumber: row[7], departure: row[8],
                    destination: row[9], tile: TileID(h3: UInt64(bitPattern: h3), layer: row[11]), time: row[12])
            }
        }
    }
}
