public import EddyDetection
public import EddyNavigation
public import EddyVocabulary

/// `EddyDelegate` for Swift 6 apps whose model lives on the main actor (a `@MainActor @Observable` class): the same
/// SkyPath-style methods, isolated to the main actor, so the model adopts it without `@preconcurrency`
/// (docs/engine.md "Swift 6 apps"). Set it with `EddyEngine.mainActorDelegate` (held weakly); its callbacks always
/// arrive on the main queue, in order, whatever `EddyConfiguration.delivery` says (SkyPath's contract: the main thread).
/// The three required methods have no default; every other one has a default no-op.
@MainActor
public protocol EddyMainActorDelegate: AnyObject, Sendable {
    /// Recording started (true) or stopped (false: stopped by the host, or the server refused the key or client).
    func didUpdateRecordingStatus(to recording: Bool)
    /// New turbulence reports were stored for an area (also once at start when cached data is ready).
    func didReceiveNewTurbulenceData(areaType: DataAreaType)
    /// The device was moved or settled (`inPosition`), or lies flat (`horizontal`); only on change.
    func didChangeDevicePosition(_ inPosition: Bool, horizontal: Bool)
    /// A new nowcast was stored.
    func didReceiveNewNowcast()
    /// This aircraft finished crossing a tile: its report (severity `.none` for a smooth crossing), already stored.
    func detectedTurbulence(_ report: DetectedTurbulence)
    /// New turbulence polygons were stored.
    func didReceiveNewTurbulencePolygons()
    /// New live flight data was stored.
    func didReceiveNewLiveFlightData()
    /// A fetch or upload failed (retried with back-off when it can help).
    func didFailToFetchNewData(with error: EddyError)
    /// The engine could not read or write its store (what it was doing, and the store's error with what to do).
    func didFailToAccessStore(_ failure: StoreOperationFailure)
    /// The set of alerting tiles ahead changed (new, worse, fewer, or cleared); only on change.
    func didReceiveAlert(_ alert: EddyAlert)
    /// A location sample was unusable, or the host reported a location failure.
    func locationManagerDidFail(withError error: EddyError)
    /// The server became reachable (true) or unreachable (false); only on change.
    func serverReachabilityUpdated(to reachable: Bool)
    /// Low power mode entered (true, after landing) or left (false); only on change.
    func didUpdateLowPowerMode(_ isLowPower: Bool)
    /// Fetching status of an area × data type changed; only on change.
    func didUpdateFetchingStatus(to status: FetchingStatus, areaType: DataAreaType, dataType: DataType)
    /// The altitude context changed (source, layer, cabin, calibration, status, problems, or 100 ft / 500 ft/min);
    /// only on change (rule in docs/altitude.md).
    func didUpdateAltitudeContext(_ context: AltitudeContext)
    /// Something no plausible motion explains (a pressure jump, a position jump) or an unusable reading.
    func didDetectInconsistency(_ warning: ConsistencyWarning)
    /// A reason detection measures nothing or less began or ended (rate below the minimum, device flat, gyro offset, no
    /// location, units that look wrong, time gaps); once per episode, with its start, end, count and cost.
    func didReceiveMeasurementNotice(_ notice: MeasurementNotice)
}

@MainActor
extension EddyMainActorDelegate {
    /// Default: ignored.
    public func didReceiveNewNowcast() {}
    /// Default: ignored.
    public func detectedTurbulence(_ report: DetectedTurbulence) {}
    /// Default: ignored.
    public func didReceiveNewTurbulencePolygons() {}
    /// Default: ignored.
    public func didReceiveNewLiveFlightData() {}
    /// Default: ignored.
    public func didFailToFetchNewData(with error: EddyError) {}
    /// Default: ignored.
    public func didFailToAccessStore(_ failure: StoreOperationFailure) {}
    /// Default: ignored.
    public func didReceiveAlert(_ alert: EddyAlert) {}
    /// Default: ignored.
    public func locationManagerDidFail(withError error: EddyError) {}
    /// Default: ignored.
    public func serverReachabilityUpdated(to reachable: Bool) {}
    /// Default: ignored.
    public func didUpdateLowPowerMode(_ isLowPower: Bool) {}
    /// Default: ignored.
    public func didUpdateFetchingStatus(to status: FetchingStatus, areaType: DataAreaType, dataType: DataType) {}
    /// Default: ignored.
    public func didUpdateAltitudeContext(_ context: AltitudeContext) {}
    /// Default: ignored.
    public func didDetectInconsistency(_ warning: ConsistencyWarning) {}
    /// Default: ignored.
    public func didReceiveMeasurementNotice(_ notice: MeasurementNotice) {}
}

extension EddyCallback {
    /// Calls the matching main-actor delegate method.
    @MainActor
    public func deliver(to delegate: any EddyMainActorDelegate) {
        switch self {
        case .didUpdateRecordingStatus(let on): delegate.didUpdateRecordingStatus(to: on)
        case .didReceiveNewTurbulenceData(let area): delegate.didReceiveNewTurbulenceData(areaType: area)
        case .didChangeDevicePosition(let inPosition, let horizontal): delegate.didChangeDevicePosition(inPosition, horizontal: horizontal)
        case .didReceiveNewNowcast: delegate.didReceiveNewNowcast()
        case .detectedTurbulence(let detected): delegate.detectedTurbulence(detected)
        case .didReceiveNewTurbulencePolygons: delegate.didReceiveNewTurbulencePolygons()
        case .didReceiveNewLiveFlightData: delegate.didReceiveNewLiveFlightData()
        case .didFailToFetchNewData(let error): delegate.didFailToFetchNewData(with: error)
        case .didFailToAccessStore(let failure): delegate.didFailToAccessStore(failure)
        case .didReceiveAlert(let alert): delegate.didReceiveAlert(alert)
        case .locationManagerDidFail(let error): delegate.locationManagerDidFail(withError: error)
        case .serverReachabilityUpdated(let reachable): delegate.serverReachabilityUpdated(to: reachable)
        case .didUpdateLowPowerMode(let on): delegate.didUpdateLowPowerMode(on)
        case .didUpdateFetchingStatus(let status, let area, let data):
            delegate.didUpdateFetchingStatus(to: status, areaType: area, dataType: data)
        case .didUpdateAltitudeContext(let context): delegate.didUpdateAltitudeContext(context)
        case .didDetectInconsistency(let warning): delegate.didDetectInconsistency(warning)
        case .didReceiveMeasurementNotice(let notice): delegate.didReceiveMeasurementNotice(notice)
        }
    }
}
