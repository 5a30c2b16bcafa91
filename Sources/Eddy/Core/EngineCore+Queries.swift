package import EddyAlerts
package import EddyNavigation
package import EddyProtocol
package import EddyStore
package import EddySync
package import EddyVocabulary

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

/// The state the shell reads from the core: engine time, phase, position, altitude, alerts, and the queries the
/// data query implies.
extension EngineCore {
    /// Whether low power mode is on.
    package var isLowPowerMode: Bool { location.isLowPower }
    /// The flight phase.
    package var flightPhase: FlightPhase { location.flightPhase }
    /// Engine time: the latest sample time, or the host's time before the first sample, Unix seconds.
    package var currentTime: Double { engineTime ?? hostTime }
    /// The latest location used (after fusion and the position filter).
    package var lastFix: LocationSample? { location.lastFix }
    /// The latest altitude context (nil before the first fix with an altitude).
    package var altitudeContext: AltitudeContext? { location.altitudeContext }
    /// The barometer calibration (restored from the store, then from calibrations; nil: none).
    package var barometerCalibration: BarometerCalibration? { location.barometerCalibration }
    /// The calibration's state as the host sees it at `t`.
    package func calibrationState(at t: Double) -> BarometerCalibrationState { location.calibrationState(at: t) }
    /// The monitored alert query (nil when not monitoring).
    package var alertQuery: AlertQuery? { alerts.query }
    /// The current flight's wire id (nil until the first position upload).
    package var wireFlightID: String? { sync.wireFlightID }

    /// The motion along-track fields are computed from: the latest filtered fix (nil before the first fix).
    package var ownMotion: OwnMotion? { lastFix.map(OwnMotion.init(fix:)) }

    /// What a one-shot alert evaluation needs: the latest fix, the history window, the viewer class, the generation.
    package var alertContext: (fix: LocationSample?, history: HistoryWindow, viewer: AircraftClass, generation: Int) {
        (lastFix, dataQuery.historyWindow, aircraft.aircraftClass, dataGeneration)
    }

    /// The sync scheduler's settings for the current data query, frequency and aircraft.
    package var schedulerConfiguration: SchedulerConfiguration {
        var c = SchedulerConfiguration()
        c.dataTypes = DataType.allCases.filter { dataQuery.types.contains($0) }
        c.viewportDataTypes = DataType.allCases.filter { dataQuery.viewportTypes.contains($0) }
        c.frequency = updateFrequency
        c.historyHours = dataQuery.historyWindow.hours
        c.minLayer = dataQuery.altitudeRangeFeet.lowerBound / 1000
        c.maxLayer = dataQuery.altitudeRangeFeet.upperBound / 1000
        c.viewerClass = aircraft.aircraftClass
        c.jitterSeed = configuration.syncJitterSeed
        return c
    }

    /// The areas the data query asks for (the route area around the aircraft when no route polygon is set).
    package var fetchAreas: [(area: SyncArea?, type: DataAreaType)] {
        let q = dataQuery
        var route: SyncArea?
        if let polygon = q.routePolygon {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(polygon))
        } else if let centre = sync.autoRouteCentre {
            route = SyncArea(type: .route, polygon: EngineGeometry.geoPoints(EngineGeometry.circle(
                latitude: centre.latitude, longitude: centre.longitude, radiusNM: configuration.autoRouteRadiusNM)))
        }
        return [
            (route, .route),
            (q.viewport.map { SyncArea(type: .viewport, polygon: EngineGeometry.geoPoints($0)) }, .viewport),
            (q.globalEnabled ? SyncArea.global : nil, .global),
        ]
    }

    /// The store query that answers the data query for one of its areas (nil when that area is not set): the area,
    /// history window, altitude range and **minimum severity** for the aircraft's class, at engine time. The route
    /// area without a route polygon is the `autoRouteRadiusNM` circle around the latest position.
    package func turbulenceQuery(for areaType: DataAreaType) -> TurbulenceQuery? {
        let q = dataQuery
        let area: QueryArea
        switch areaType {
        case .global:
            guard q.globalEnabled else { return nil }
            area = .everywhere
        case .viewport:
            guard let viewport = q.viewport else { return nil }
            area = .polygon(viewport)
        case .route:
            if let polygon = q.routePolygon {
                area = .polygon(polygon)
            } else if let centre = sync.autoRouteCentre ?? lastFix.map({ ($0.latitudeDegrees, $0.longitudeDegrees) }) {
                area = .polygon(EngineGeometry.circle(latitude: centre.0, longitude: centre.1, radiusNM: configuration.autoRouteRadiusNM))
            } else {
                return nil
            }
        }
        return TurbulenceQuery(area: area, altitudeRangeFeet: q.altitudeRangeFeet, historyWindow: q.historyWindow,
                               minimumSeverity: q.minimumSeverity, viewer: aircraft.aircraftClass, now: currentTime,
                               includeReporterDetails: hasSimulatedReports)
    }

    /// The snapshot for a host query over `area` (nil: the data query's route area, as `turbulence(in: .route)`).
    func querySnapshot(area: QueryArea?) -> EngineQuerySnapshot {
        EngineQuerySnapshot(area: area ?? turbulenceQuery(for: .route)?.area, historyWindow: dataQuery.historyWindow,
                            minimumSeverity: dataQuery.minimumSeverity, viewer: aircraft.aircraftClass, now: currentTime)
    }
}
