package import EddyAlerts
package import EddyNavigation
package import EddyProtocol
import EddyStore
import EddySync
package import EddyVocabulary

/// Something `EngineCore` decided must happen in the world. The core never does I/O itself: the engine's shell
/// applies these after releasing the lock around the core, in the order given (docs/engine.md, "Core and shell").
///
/// Order rule the shell keeps: storage and scheduler-state effects run in order (a storage failure becomes a
/// callback in place), then every callback is delivered, then the sync step or wake-up. A callback therefore never
/// reports a report that is not stored yet, and a sync step (which raises callbacks of its own) comes after the
/// callbacks that caused it.
package enum EngineEffect: Sendable {
    // Storage, in order.
    /// Store this own report in the outbox; only once it is stored is `detectedTurbulence` raised for it.
    case storeOwnReport(DetectedTurbulence)
    /// Persist a setting in the store (a failure is reported, the setting stays in effect).
    case persist(EngineSetting)
    /// Forget the session and every fetched datum (`stop()`); pending own reports stay.
    case forgetSessionAndFetchedData
    /// Purge expired cached data (observations older than 6 h, past nowcasts, stale live flights) as of `now`.
    case purgeExpired(now: Double)
    /// Read the alert candidates around a position, and give them back (`EngineFeedback.alertCandidatesLoaded`).
    case loadAlertCandidates(AlertCandidateRequest)
    /// Raise `didReceiveNewTurbulenceData(areaType:)` for these areas if the cache holds any report (start).
    case announceCachedData([DataAreaType])
    /// Raise a delegate callback.
    case callback(EddyCallback)
    /// Raise `didUpdateAltitudeContext` with the height above terrain at the fix's position filled in (terrain tiles
    /// are read at the edge).
    case deliverAltitudeContext(AltitudeContext, latitudeDegrees: Double, longitudeDegrees: Double)
    // Sync: scheduler state in order; the step or wake-up after the callbacks.
    /// Reconfigure the sync scheduler.
    case configureSync(SchedulerConfiguration)
    /// Set (nil: clear) a fetch area; a changed one is fetched at once, in full.
    case setFetchArea(SyncArea?, DataAreaType)
    /// Queue an own-position upload (live flights).
    case uploadPosition(PositionUpload, AltitudeOffsetObservation?)
    /// Read the cached fleet altitude offsets near a position and give them back (`EngineFeedback.altitudeOffsetsLoaded`).
    case loadAltitudeOffsets(AltitudeOffsetRequest)
    /// Run one sync step inline now (flight-time sync).
    case runSyncStep
    /// Wake the background sync loop (wall-clock sync).
    case wakeSync

    /// Whether it concerns sync (a flight-time step or a wake-up then follows, so the scheduler acts on it at once).
    var isSync: Bool {
        switch self {
        case .configureSync, .setFetchArea, .uploadPosition, .runSyncStep, .wakeSync: true
        default: false
        }
    }
}

/// What the shell learned applying effects and gives back to the core (`EngineCore.receive(_:)`): the answers to the
/// reads the core asked for, and changes of the cached data. The core's answer is applied after the step that asked.
package enum EngineFeedback: Sendable {
    /// The alert candidates (and the history window's turbulence polygons) read for a request.
    case alertCandidatesLoaded([AlertCandidate], polygons: [TurbulencePolygon], request: AlertCandidateRequest)
    /// The fleet altitude offsets read for a request (a read failure gives none: offsets are an aid).
    case altitudeOffsetsLoaded([AltitudeOffsetCell])
    /// The purge removed observations: alert candidates are read again.
    case cachedDataChanged
}

/// A setting the engine persists so that a relaunch restores it.
package enum EngineSetting: Sendable, Equatable {
    /// The aircraft type.
    case aircraft(AircraftType)
    /// The flight (nil: none).
    case flight(Flight?)
    /// The data query.
    case dataQuery(DataQuery)
    /// The update frequency.
    case updateFrequency(UpdateFrequency)
    /// The barometer calibration.
    case barometerCalibration(BarometerCalibration)
}

/// Which cached fleet altitude offsets to read: near a position and layer, no older than `maxAgeSeconds` at `now`.
package struct AltitudeOffsetRequest: Sendable, Equatable {
    /// Position, degrees.
    package var latitudeDegrees: Double
    /// Position, degrees.
    package var longitudeDegrees: Double
    /// The aircraft's layer (offsets of layers ±2 are read).
    package var layer: Int
    /// Oldest offset wanted, seconds.
    package var maxAgeSeconds: Double
    /// Engine time, Unix seconds.
    package var now: Double
}

/// What alert candidates to read: those of `query` around `position`, for a history window, as of a data generation.
package struct AlertCandidateRequest: Sendable, Equatable {
    /// The alert query (its viewer class is the aircraft's).
    package var query: AlertQuery
    /// Where the aircraft is.
    package var position: AlertPosition
    /// History window of the data query.
    package var history: HistoryWindow
    /// The core's data generation when it asked (a newer generation makes the answer stale later).
    package var generation: Int
    /// The fix the evaluation is for.
    package var fix: LocationSample
}

/// What one call into the core produced: effects to apply and the engine time to stamp its callbacks with.
package struct EngineStep: Sendable {
    /// Effects, in order.
    package var effects: [EngineEffect] = []
    /// Engine time of the step, Unix seconds (the latest sample time, or the host's time before the first sample).
    package var time: Double
    /// Whether anything must be applied.
    package var isEmpty: Bool { effects.isEmpty }
}
