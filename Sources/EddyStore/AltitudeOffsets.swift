import EddyH3
package import EddyVocabulary
import Foundation
import GRDB

// The fleet's geometric − pressure altitude offsets, cached as the server serves them (docs/store.md "Fleet altitude
// offsets"): one row per H3 resolution-3 cell × 1,000-ft layer, replaced by a newer answer, purged by age.

extension AltitudeOffsetCell {
    /// Why this cell cannot be stored, nil when it can: a valid H3 resolution-3 cell, a layer in −100…1,000, finite
    /// offset and time, a finite uncertainty ≥ 0 and at least one observation.
    package var storeProblem: String? {
        let index = H3Index(rawValue: h3)
        guard H3.isValidCell(index), index.resolution == AltitudeOffsetCell.h3Resolution else {
            return "h3 \(String(h3, radix: 16)) is not a valid H3 resolution-\(AltitudeOffsetCell.h3Resolution) cell"
        }
        guard (-100...1000).contains(layer) else { return "layer \(layer) is outside -100...1000" }
        guard offsetFeet.isFinite, newestTime.isFinite else { return "offset and time must be finite" }
        guard abs(offsetFeet) <= AltitudeOffsetCell.maximumOffsetFeet else {
            return "offset \(offsetFeet) ft is beyond ±\(Int(AltitudeOffsetCell.maximumOffsetFeet)) ft"
        }
        guard uncertaintyFeet.isFinite, uncertaintyFeet >= 0, uncertaintyFeet <= AltitudeOffsetCell.maximumUncertaintyFeet else {
            return "uncertainty must be finite, ≥ 0 and ≤ \(Int(AltitudeOffsetCell.maximumUncertaintyFeet)) ft"
        }
        guard observationCount >= 1 else { return "observation count must be ≥ 1" }
        return nil
    }
}

extension EddyStore {
    /// Stores fleet altitude offsets from the server: per cell × layer, a cell replaces the stored one unless the
    /// stored one is newer (its newest observation is later). Throws `invalidArgument` (nothing written) when a cell
    /// fails `storeProblem`. Relaxed durability: the data is re-fetchable.
    package func upsertAltitudeOffsets(_ cells: [AltitudeOffsetCell]) throws(StoreError) {
        for cell in cells {
            if let problem = cell.storeProblem { throw StoreError.invalidArgument("fleet altitude offset: \(problem)") }
        }
        guard !cells.isEmpty else { return }
        _ = try writeRelaxed { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO altitude_offset (h3, layer, offset_feet, uncertainty_feet, observation_count, newest_time)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (h3, layer) DO UPDATE SET
                    offset_feet = excluded.offset_feet, uncertainty_feet = excluded.uncertainty_feet,
                    observation_count = excluded.observation_count, newest_time = excluded.newest_time
                WHERE excluded.newest_time >= altitude_offset.newest_time
                """)
            for cell in cells {
                try statement.execute(arguments: [
                    cell.h3.storeInt, cell.layer, cell.offsetFeet, cell.uncertaintyFeet, cell.observationCount, cell.newestTime,
                ])
            }
        }
    }

    /// The cached fleet offsets near a position, for converting GNSS altitude to pressure altitude.
    ///
    /// Looks in the H3 resolution-3 cell of (`latitude`, `longitude`) and its ring-1 neighbours, layers
    /// `layer − 2 … layer + 2`, and keeps the cells whose newest observation is at most `maxAgeSeconds` before `now`
    /// (a newest time slightly after `now`, from clocks that disagree, counts as fresh). Order: nearest first — grid distance (own cell, then ring 1), then layer distance, then the
    /// newest first, then h3 and layer (deterministic). Throws `invalidArgument` for a position that is not finite or
    /// out of range, a layer outside −100…1,000, a negative or non-finite age or a non-finite `now`.
    package func altitudeOffsets(
        nearLatitude latitude: Double, longitude: Double, layer: Int, maxAgeSeconds: Double, now: Double
    ) throws(StoreError) -> [AltitudeOffsetCell] {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw StoreError.invalidArgument("position (\(latitude), \(longitude)) is not a finite latitude/longitude in range")
        }
        guard (-100...1000).contains(layer) else { throw StoreError.invalidArgument("layer \(layer) is outside -100...1000") }
        guard maxAgeSeconds.isFinite, maxAgeSeconds >= 0 else {
            throw StoreError.invalidArgument("maxAgeSeconds must be finite and ≥ 0, got \(maxAgeSeconds)")
        }
        try checkFinite(now, what: "altitudeOffsets(now:)")
        let disk: [(cell: H3Index, distance: Int)]
        do {
            let centre = try H3.latLngToCell(latitude: latitude, longitude: longitude, resolution: AltitudeOffsetCell.h3Resolution)
            disk = try H3.gridDiskDistances(centre, k: 1).filter { $0.cell.rawValue != 0 }
        } catch {
            throw StoreError.invalidArgument("position (\(latitude), \(longitude)) has no H3 cell: \(error)")
        }
        var distanceByCell: [UInt64: Int] = [:]
        for entry in disk { distanceByCell[entry.cell.rawValue] = entry.distance }
        let list = "[" + distanceByCell.keys.map { String($0.storeInt) }.joined(separator: ",") + "]"
        let cells = try read { db -> [AltitudeOffsetCell] in
            let rows = try Row.fetchAll(db, sql: """
                SELECT h3, layer, offset_feet, uncertainty_feet, observation_count, newest_time FROM altitude_offset
                WHERE h3 IN (SELECT value FROM json_each(?)) AND layer BETWEEN ? AND ? AND newest_time >= ?
                """, arguments: [list, layer - 2, layer + 2, now - maxAgeSeconds])
            return rows.map { row in
                let h3: Int64 = row[0]
                return AltitudeOffsetCell(
                    h3: UInt64(bitPattern: h3), layer: row[1], offsetFeet: row[2], uncertaintyFeet: row[3],
                    observationCount: row[4], newestTime: row[5])
            }
        }
        return cells.sorted { a, b in
            let keyA = (distanceByCell[a.h3] ?? 2, abs(a.layer - layer)), keyB = (distanceByCell[b.h3] ?? 2, abs(b.layer - layer))
            if keyA != keyB { return keyA < keyB }
            if a.newestTime != b.newestTime { return a.newestTime > b.newestTime }
            return (a.h3, a.layer) < (b.h3, b.layer)
        }
    }

    /// Every cached fleet offset, by h3 then layer (diagnostics and tests).
    package func allAltitudeOffsets() throws(StoreError) -> [AltitudeOffsetCell] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT h3, layer, offset_feet, uncertainty_feet, observation_count, newest_time FROM altitude_offset
                ORDER BY h3, layer
                """).map { row in
                let h3: Int64 = row[0]
                return AltitudeOffsetCell(
                    h3: UInt64(bitPattern: h3), layer: row[1], offsetFeet: row[2], uncertaintyFeet: row[3],
                    observationCount: row[4], newestTime: row[5])
            }
        }
    }
}
