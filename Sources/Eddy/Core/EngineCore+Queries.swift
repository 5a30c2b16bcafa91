import EddyH3
import EddyStore
import EddyVocabulary

/// What a host query needs from the core, read under the engine's lock in one go.
struct EngineQuerySnapshot: Sendable {
    /// The area to read (the request's, or the data query's route area; nil when neither is set).
    var area: QueryArea?
    /// The data query's history window.
    var historyWindow: HistoryWindow
    /// The data query's minimum severity.
    var minimumSeverity: Severity
    /// The aircraft's class.
    var viewer: AircraftClass
    /// Engine time, Unix seconds.
    var now: Double
}

extension EngineCore {
    /// The snapshot for a host query over `area` (nil: the data query's route area, as `turbulence(in: .route)`).
    func querySnapshot(area: QueryArea?) -> EngineQuerySnapshot {
        EngineQuerySnapshot(area: area ?? turbulenceQuery(for: .route)?.area, historyWindow: dataQuery.historyWindow,
                            minimumSeverity: dataQuery.minimumSeverity, viewer: aircraft.aircraftClass, now: currentTime)
    }
}
