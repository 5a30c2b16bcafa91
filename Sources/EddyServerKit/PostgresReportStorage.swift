#if Tools
import EddyProtocol
import EddySupport
import EddyVocabulary
package import Foundation
import Logging
import PostgresNIO

// PostgresServerStorage: reports (ingest, fetch pages, nowcast inputs), the nowcast, live flights and fleet altitude
// offsets.
extension PostgresServerStorage {
    // MARK: observations

    /// One statement: the served reporter id (the uploader's live flight, else a fresh random id), the new ids claimed
    /// in `report_ids` (`ON CONFLICT DO NOTHING`, so a report uploaded to two instances is stored once), and the rows
    /// of those ids inserted from arrays (one statement per batch, between `BEGIN` and `COMMIT`; the new ids are
    /// returned only once the commit succeeded). Nullable columns travel as sentinels ('' , NaN, -1) turned back into
    /// NULL by NULLIF.
    package func insertReports(_ upload: ReportUpload) async throws(ServerDatabaseError) -> Set<UUID> {
        let rows = upload.rows
        if rows.isEmpty { return [] }
        let (ids, h3, layer, lat, lng, enter, exit, peak, median, classes, sources, u90, uncertain) = Self.columns(of: rows)
        let (reporterId, since, fallback) = (upload.reporterId, upload.liveFlightUpdatedSince, upload.fallbackPublicId)
        let (tick, now) = (Int64(upload.tick), upload.receivedAt)
        let logger = self.logger
        // In a transaction: the ids are returned (and acknowledged) only once COMMIT has succeeded.
        return try await write("store uploaded reports") { connection -> Set<UUID> in
            let result = try await connection.query("""
                WITH served AS (
                    SELECT COALESCE((SELECT public_id FROM flights WHERE reporter_id = \(reporterId) AND updated_at >= \(since)
                                     ORDER BY updated_at DESC LIMIT 1), \(fallback)) AS id),
                fresh AS (INSERT INTO report_ids (id) SELECT unnest(\(ids)::uuid[]) ON CONFLICT DO NOTHING RETURNING id)
                INSERT INTO observations (id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class,
                    reporter_id, tick, received_at, altitude_source, altitude_u90_ft, layer_uncertain)
                SELECT t.id, t.h3, t.layer, t.lat, t.lng, t.enter_time, t.exit_time, t.edr_peak, t.edr_median, t.class,
                    (SELECT id FROM served), \(tick), \(now), NULLIF(t.source, ''), NULLIF(t.u90, 'NaN'::float8),
                    CASE t.uncertain WHEN -1 THEN NULL ELSE t.uncertain = 1 END
                FROM unnest(\(ids)::uuid[], \(h3)::int8[], \(layer)::int8[], \(lat)::float8[], \(lng)::float8[], \(enter)::float8[],
                            \(exit)::float8[], \(peak)::float8[], \(median)::float8[], \(classes)::text[], \(sources)::text[],
                            \(u90)::float8[], \(uncertain)::int8[])
                    AS t(id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, class, source, u90, uncertain)
                WHERE t.id IN (SELECT id FROM fresh)
                RETURNING id
                """, logger: logger)
            var fresh = Set<UUID>()
            for try await id in result.decode(UUID.self) { fresh.insert(id) }
            return fresh
        }
    }

    /// The upload's rows as one array per column (bound with `unnest`).
    static func columns(of rows: [IngestRow]) -> (
        ids: [UUID], h3: [Int64], layer: [Int64], lat: [Double], lng: [Double], enter: [Double], exit: [Double], peak: [Double],
        median: [Double], classes: [String], sources: [String], u90: [Double], uncertain: [Int64]
    ) {
        var ids: [UUID] = [], h3: [Int64] = [], layer: [Int64] = [], lat: [Double] = [], lng: [Double] = []
        var enter: [Double] = [], exit: [Double] = [], peak: [Double] = [], median: [Double] = [], classes: [String] = []
        var sources: [String] = [], u90: [Double] = [], uncertain: [Int64] = []
        for row in rows {
            let r = row.report
            ids.append(r.id); h3.append(Int64(bitPattern: r.tile.h3)); layer.append(Int64(r.tile.layer))
            lat.append(row.center.lat); lng.append(row.center.lng); enter.append(r.enterTime); exit.append(r.exitTime)
            peak.append(r.edrPeak); median.append(r.edrMedian); classes.append(r.reporterClass.rawValue)
            sources.append(r.altitudeSource?.rawValue ?? ""); u90.append(r.altitudeU90Feet ?? .nan)
            uncertain.append(r.layerUncertain.map { $0 ? 1 : 0 } ?? -1)
        }
        return (ids, h3, layer, lat, lng, enter, exit, peak, median, classes, sources, u90, uncertain)
    }

    /// The fetch query and its binds (shared by `observations` and `hasObservations`).
    func observationQuery(_ query: ObservationQuery, columns: String, suffix: String) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(query.minExitTime)
        binds.append(Int64(query.minLayer))
        binds.append(Int64(query.maxLayer))
        var sql = "SELECT \(columns) FROM observations WHERE exit_time >= $1 AND layer BETWEEN $2 AND $3"
        if let after = query.after {
            binds.append(after.exitTime)
            binds.append(after.sequence)
            sql += " AND (exit_time, seq) > ($\(binds.count - 1), $\(binds.count))"
        }
        if let minTick = query.minTick {
            binds.append(Int64(minTick))
            sql += " AND tick >= $\(binds.count)"
        }
        if let box = query.boundingBox {
            for value in [box.minLat, box.maxLat, box.minLng, box.maxLng] { binds.append(value) }
            let n = binds.count
            sql += " AND lat BETWEEN $\(n - 3) AND $\(n - 2) AND lng BETWEEN $\(n - 1) AND $\(n)"
        }
        return PostgresQuery(unsafeSQL: sql + suffix, binds: binds)
    }

    package func observations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> [StoredObservation] {
        let statement = observationQuery(query, columns: """
            id, h3, layer, lat, lng, enter_time, exit_time, edr_peak, edr_median, reporter_class, reporter_id, tick,
            altitude_source, altitude_u90_ft, layer_uncertain, seq
            """, suffix: " ORDER BY exit_time, seq" + (query.limit.map { " LIMIT \($0)" } ?? ""))
        return try await read("read observations") { connection in
            let rows = try await connection.query(statement, logger: self.logger)
            var result: [StoredObservation] = []
            for try await row in rows {
                let (id, h3, layer, lat, lng, enter, exit, peak, median, className, reporter, tick, source, u90, uncertain, seq) = try row.decode(
                    (UUID, Int64, Int, Double, Double, Double, Double, Double, Double, String, String, Int64, String?, Double?, Bool?, Int64).self)
                guard let reporterClass = AircraftClass(rawValue: className) else { continue }
                let report = TileReport(
                    id: id, tile: TileID(h3: UInt64(bitPattern: h3), layer: layer), enterTime: enter, exitTime: exit,
                    edrPeak: peak, edrMedian: median, reporterClass: reporterClass,
                    altitudeSource: source.flatMap(AltitudeSource.init(rawValue:)), altitudeU90Feet: u90, layerUncertain: uncertain)
                result.append(StoredObservation(observation: Observation(report: report, reporterId: reporter, tick: Int(tick)),
                                                center: GeoPoint(lat: lat, lng: lng),
                                                position: ObservationPosition(exitTime: exit, sequence: seq)))
            }
            return result
        }
    }

    package func hasObservations(_ query: ObservationQuery) async throws(ServerDatabaseError) -> Bool {
        let statement = observationQuery(query, columns: "1", suffix: " LIMIT 1")
        return try await read("read observations") { connection in
            let rows = try await connection.query(statement, logger: self.logger)
            for try await _ in rows { return true }
            return false
        }
    }

    package func nowcastInputs(from: Double, to: Double) async throws(ServerDatabaseError) -> [StoredNowcastInput] {
        try await read("read the nowcast's inputs") { connection in
            let rows = try await connection.query(
                "SELECT h3, layer, exit_time, edr_peak FROM observations WHERE exit_time BETWEEN \(from) AND \(to)", logger: self.logger)
            var result: [StoredNowcastInput] = []
            for try await (h3, layer, exit, peak) in rows.decode((Int64, Int, Double, Double).self) {
                result.append(StoredNowcastInput(cell: UInt64(bitPattern: h3), layer: layer, exitTime: exit, edrPeak: peak))
            }
            return result
        }
    }

    // MARK: nowcast

    package func latestNowcastIssue() async throws(ServerDatabaseError) -> (issueTime: Double, tick: Int)? {
        try await read("read the latest nowcast issue") { connection in
            let rows = try await connection.query("SELECT issue_time, tick FROM nowcast_issues ORDER BY issue_time DESC LIMIT 1", logger: self.logger)
            for try await (time, tick) in rows.decode((Double, Int64).self) { return (time, Int(tick)) }
            return nil
        }
    }

    package func storeNowcast(issueTime: Double, tick: Int, cells: [StoredNowcastCell]) async throws(ServerDatabaseError) {
        let h3 = cells.map { Int64(bitPattern: $0.cell) }, layer = cells.map { Int64($0.layer) }
        let lat = cells.map(\.center.lat), lng = cells.map(\.center.lng)
        let hour = cells.map { Int64($0.forecastHour) }, edr = cells.map(\.edr), provenance = cells.map(\.provenance.rawValue)
        let logger = self.logger
        try await write("store a nowcast issue") { connection in
            // One issuer at a time across instances; the others find the issue stored and leave.
            try await connection.query("SELECT pg_advisory_xact_lock(1701077114)", logger: logger)
            let rows = try await connection.query("SELECT count(*) FROM nowcast_issues WHERE issue_time >= \(issueTime)", logger: logger)
            var existing: Int64 = 0
            for try await count in rows.decode(Int64.self) { existing = count }
            if existing > 0 { return }
            try await connection.query("DELETE FROM nowcast", logger: logger)
            try await connection.query("""
                INSERT INTO nowcast (issue_time, h3, layer, lat, lng, forecast_hour, edr, tick, provenance)
                SELECT \(issueTime), t.h3, t.layer, t.lat, t.lng, t.hour, t.edr, \(Int64(tick)), t.provenance
                FROM unnest(\(h3)::int8[], \(layer)::int8[], \(lat)::float8[], \(lng)::float8[], \(hour)::int8[], \(edr)::float8[],
                    \(provenance)::text[])
                    AS t(h3, layer, lat, lng, hour, edr, provenance)
                """, logger: logger)
            try await connection.query("INSERT INTO nowcast_issues (issue_time, tick) VALUES (\(issueTime), \(Int64(tick)))", logger: logger)
        }
    }

    package func nowcastCells(minLayer: Int, maxLayer: Int, boundingBox: GeoBoundingBox?, after: NowcastPosition?, limit: Int?)
        async throws(ServerDatabaseError) -> [IssuedNowcastCell] {
        var binds = PostgresBindings()
        binds.append(Int64(minLayer))
        binds.append(Int64(maxLayer))
        var sql = "SELECT issue_time, h3, layer, lat, lng, forecast_hour, edr, provenance FROM nowcast WHERE layer BETWEEN $1 AND $2"
        if let box = boundingBox {
            for value in [box.minLat, box.maxLat, box.minLng, box.maxLng] { binds.append(value) }
            sql += " AND lat BETWEEN $3 AND $4 AND lng BETWEEN $5 AND $6"
        }
        if let after {
            binds.append(after.cell)
            binds.append(Int64(after.layer))
            binds.append(Int64(after.forecastHour))
            sql += " AND (h3, layer, forecast_hour) > ($\(binds.count - 2), $\(binds.count - 1), $\(binds.count))"
        }
        sql += " ORDER BY h3, layer, forecast_hour" + (limit.map { " LIMIT \($0)" } ?? "")
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await read("read the nowcast") { connection in
            let rows = try await connection.query(query, logger: self.logger)
            var result: [IssuedNowcastCell] = []
            for try await (issueTime, h3, layer, lat, lng, hour, edr, provenance)
                in rows.decode((Double, Int64, Int, Double, Double, Int, Double, String).self) {
                result.append(IssuedNowcastCell(issueTime: issueTime, cell: StoredNowcastCell(
                    cell: UInt64(bitPattern: h3), layer: layer, forecastHour: hour, edr: edr, center: GeoPoint(lat: lat, lng: lng),
                    provenance: NowcastProvenanceSchema.provenance(provenance))))
            }
            return result
        }
    }

    // MARK: flights

    package func storePosition(_ write: PositionWrite) async throws(ServerDatabaseError) {
        let logger = self.logger
        let flight = write.flight
        try await self.write("store a live position") { connection in
            try await connection.query("""
                INSERT INTO flights (reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet,
                    heading, speed_knots, time, updated_at)
                VALUES (\(flight.reporterId), \(flight.clientFlightId), \(flight.publicId), \(flight.airline), \(flight.flightNumber),
                    \(flight.aircraftType), \(flight.latitude), \(flight.longitude), \(flight.altitudeFeet), \(flight.headingDegrees),
                    \(flight.speedKnots), \(flight.time), \(flight.updatedAt))
                ON CONFLICT (reporter_id, flight_id) DO UPDATE SET airline = excluded.airline,
                    flight_number = excluded.flight_number, aircraft_type = excluded.aircraft_type,
                    lat = excluded.lat, lng = excluded.lng, altitude_feet = excluded.altitude_feet, heading = excluded.heading,
                    speed_knots = excluded.speed_knots, time = excluded.time, updated_at = excluded.updated_at
                """, logger: logger)
            try await connection.query("DELETE FROM flights WHERE updated_at < \(write.dropFlightsUpdatedBefore)", logger: logger)
            if let offset = write.altitudeOffset {
                let o = offset.observation
                try await connection.query("""
                    INSERT INTO altitude_offsets (reporter_id, h3, layer, time, lat, lng, pressure_altitude_feet, offset_feet,
                        uncertainty_feet, received_at)
                    VALUES (\(offset.reporterId), \(Int64(bitPattern: offset.cell)), \(Int64(offset.layer)), \(o.time),
                        \(o.latitudeDegrees), \(o.longitudeDegrees), \(o.pressureAltitudeFeet), \(o.offsetFeet), \(o.uncertaintyFeet),
                        \(offset.receivedAt))
                    ON CONFLICT (reporter_id, h3, layer) DO UPDATE SET time = excluded.time, lat = excluded.lat,
                        lng = excluded.lng, pressure_altitude_feet = excluded.pressure_altitude_feet,
                        offset_feet = excluded.offset_feet, uncertainty_feet = excluded.uncertainty_feet,
                        received_at = excluded.received_at
                    WHERE excluded.time >= altitude_offsets.time
                    """, logger: logger)
            }
            if let cutoff = write.dropAltitudeOffsetsMeasuredBefore {
                try await connection.query("DELETE FROM altitude_offsets WHERE time < \(cutoff)", logger: logger)
            }
        }
    }

    package func liveFlights(updatedSince: Double, afterPublicId: String?, limit: Int?) async throws(ServerDatabaseError) -> [StoredFlight] {
        let (after, limitClause) = (afterPublicId ?? "", limit.map { " LIMIT \($0)" } ?? "")
        return try await read("read live flights") { connection in
            let rows = try await connection.query("""
                SELECT reporter_id, flight_id, public_id, airline, flight_number, aircraft_type, lat, lng, altitude_feet, heading,
                    speed_knots, time, updated_at
                FROM flights WHERE updated_at >= \(updatedSince) AND public_id > \(after) ORDER BY public_id\(unescaped: limitClause)
                """, logger: self.logger)
            var result: [StoredFlight] = []
            for try await (reporter, clientId, publicId, airline, number, type, lat, lng, altitude, heading, speed, time, updatedAt)
                in rows.decode((String, String, String, String, String?, String, Double, Double, Double, Double, Double, Double, Double).self) {
                result.append(StoredFlight(
                    reporterId: reporter, clientFlightId: clientId, publicId: publicId, airline: airline, flightNumber: number,
                    aircraftType: type, latitude: lat, longitude: lng, altitudeFeet: altitude, headingDegrees: heading, speedKnots: speed,
                    time: time, updatedAt: updatedAt))
            }
            return result
        }
    }

    // MARK: fleet altitude offsets

    package func altitudeOffsetObservations(
        cells: [UInt64]?, minLayer: Int, maxLayer: Int, oldestTime: Double
    ) async throws(ServerDatabaseError) -> [AltitudeOffsetAggregation.Input] {
        var binds = PostgresBindings()
        binds.append(Int64(minLayer))
        binds.append(Int64(maxLayer))
        binds.append(oldestTime)
        var sql = "SELECT h3, layer, offset_feet, uncertainty_feet, time FROM altitude_offsets WHERE layer BETWEEN $1 AND $2 AND time >= $3"
        if let cells {
            if cells.isEmpty { return [] }
            binds.append(cells.map { Int64(bitPattern: $0) })
            sql += " AND h3 = ANY($4::int8[])"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await read("read fleet altitude offsets") { connection in
            let rows = try await connection.query(query, logger: self.logger)
            var result: [AltitudeOffsetAggregation.Input] = []
            for try await (h3, layer, offset, uncertainty, time) in rows.decode((Int64, Int, Double, Double, Double).self) {
                result.append(AltitudeOffsetAggregation.Input(
                    cell: UInt64(bitPattern: h3), layer: layer, offsetFeet: offset, uncertaintyFeet: uncertainty, time: time))
            }
            return result
        }
    }
}
#endif
