import EddyDetection
import EddyNavigation
import EddyProtocol
package import EddyVocabulary

extension EngineCore {
    /// One sample (Unix seconds). Accelerometer, gyro and barometer feed detection; a location also drives the flight
    /// phase, the fetch area, position uploads and alert monitoring. Ignored before `start`; in low power mode only
    /// locations are used.
    /// While a demo runs only its `simulated` samples are taken (the host's are dropped), and only then.
    package mutating func push(_ sample: SensorSample, simulated: Bool = false) -> EngineStep {
        guard isStarted, simulated == isSimulating else { return EngineStep(time: currentTime) }
        var effects: [EngineEffect] = []
        process(sample, checked: !simulated, &effects)
        let t = currentTime
        if engineTime != nil, sync.takePurge(at: t) { effects.append(.purgeExpired(now: t)) }
        // Sync runs only with a server: an offline engine asks for no step (and allocates nothing per sample).
        if hasServer {
            let syncRequested = effects.contains { $0.isSync }
            switch configuration.syncTiming {
            case .flightTime: if syncRequested || sync.syncStepDue(at: t) { effects.append(.runSyncStep) }
            case .wallClock: if syncRequested { effects.append(.wakeSync) }
            }
        }
        return EngineStep(effects: effects, time: t)
    }

    /// The host's location source failed.
    package mutating func locationFailure(_ message: String, now: Double) -> EngineStep {
        hostTime = now
        return EngineStep(effects: [.callback(.locationManagerDidFail(.invalidLocation(message)))], time: currentTime)
    }

    /// Ends the current flight's detection: the open tile crossing is closed (end of a replay).
    package mutating func finishDetection(now: Double) -> EngineStep {
        hostTime = now
        var effects: [EngineEffect] = []
        closeFlightDetection(&effects)
        return EngineStep(effects: effects, time: currentTime)
    }

    /// Without `checked` (a demo's own samples) the time and value checks are skipped.
    private mutating func process(_ sample: SensorSample, checked: Bool, _ effects: inout [EngineEffect]) {
        if checked {
            if case .location = sample, configuration.syncTiming == .wallClock { timeChecks.setHostClock(hostTime) }
            let valid = timeChecks.check(sample)
            if !timeChecks.notices.isEmpty { takeTimeNotices(&effects) }
            // A refused motion or barometer sample stops here; a fix with a NaN time goes on to its failure callback.
            if !valid, !Self.isLocation(sample) { return }
        }
        guard sample.t.isFinite else {
            if case .location = sample {
                effects.append(.callback(.locationManagerDidFail(.invalidLocation("location time is not finite"))))
            }
            return
        }
        if case .location(let fix) = sample {
            handleLocation(fix, &effects)
            return
        }
        guard !location.isLowPower else { return }
        advanceTime(sample.t)
        switch sample {
        case .accelerometer(let a): if isRecording { feedDetection(.accelerometer(a), &effects) }
        case .gyroscope(let g): if isRecording { feedDetection(.gyroscope(g), &effects) }
        case .barometer(let reading):
            let navigated = location.addBarometer(reading, &effects)
            if isRecording { feedDetection(.barometer(reading, navigated), &effects) }
        case .location: break
        }
    }

    private static func isLocation(_ sample: SensorSample) -> Bool {
        if case .location = sample { true } else { false }
    }

    private mutating func advanceTime(_ t: Double) {
        if t > (engineTime ?? -.infinity) { engineTime = t }
    }

    // MARK: location

    private mutating func handleLocation(_ received: LocationSample, _ effects: inout [EngineEffect]) {
        let placed: PlacedFix
        switch location.place(received, maximumVerticalAccuracyMeters: thresholds.maximumVerticalAccuracyMeters, &effects) {
        case .notUsed: return
        case .ignored(let t): advanceTime(t); return
        case .placed(let fix): advanceTime(fix.received.t); placed = fix
        }
        // The host's view uses the filtered position; detection takes what navigation made of the fix.
        let fix = placed.position
        for change in location.updatePhase(fix) {
            switch change.event {
            case .airborne:
                if flight == nil {
                    flight = Flight(isTemporary: true)
                    sync.forgetFlightID()
                    effects.append(.persist(.flight(flight)))
                }
            case .landed:
                if flight?.isTemporary == true {
                    closeFlightDetection(&effects)
                    flight = nil
                    sync.forgetFlightID()
                    effects.append(.persist(.flight(nil)))
                }
            case .lowPower(let on):
                if on { closeFlightDetection(&effects) }
                effects.append(.callback(.didUpdateLowPowerMode(on)))
            }
        }
        guard !location.isLowPower else { return }
        let navigated = location.estimateAltitude(at: placed, hasServer: hasServer, &effects)
        let estimate = navigated.altitude
        if isRecording { feedDetection(.location(navigated), &effects) }
        guard placed.placed != nil else { return }   // a position the filter refused moves nothing
        if location.flightPhase != .onGround, let layer = estimate?.layer ?? fix.layerAltitudeFeet.map({ TileID.layer(altitudeFeet: $0) }),
           let cell = TileIndexer.h3Resolution5.cell(fix.latitudeDegrees, fix.longitudeDegrees) {
            alerts.recordVisit(TileID(h3: cell, layer: layer), at: fix.t)
        }
        updateRouteArea(fix, &effects)
        if location.flightPhase == .airborne, !isSimulating,
           sync.positionUploadDue(at: fix.t, interval: configuration.positionUploadIntervalSeconds) {
            let flightID = sync.currentWireFlightID()
            if let position = positionUpload(fix, estimate, flightID: flightID) {
                sync.positionUploaded(at: fix.t)
                effects.append(.uploadPosition(position, location.offsetObservation()))
            }
        }
        alerts.evaluate(at: fix, estimate: estimate, phase: location.flightPhase, generation: dataGeneration,
                        history: dataQuery.historyWindow, isSimulated: isSimulating, &effects)
    }

    /// Re-centres the automatic route area when the aircraft is `autoRouteRecentreNM` from its centre.
    private mutating func updateRouteArea(_ fix: LocationSample, _ effects: inout [EngineEffect]) {
        guard dataQuery.routePolygon == nil, hasServer, sync.recentreRoute(at: fix, recentreNM: configuration.autoRouteRecentreNM)
        else { return }
        if let route = fetchAreas.first(where: { $0.type == .route }) {
            effects.append(.setFetchArea(route.area, .route))
        }
    }

    /// The own position for the live-flights layer: the random per-flight id, never the user id; the host's flight
    /// number travels separately and the server shows it only to the same airline (docs/protocol.md).
    private func positionUpload(_ fix: LocationSample, _ estimate: AltitudeEstimate?, flightID: String) -> PositionUpload? {
        guard let altitude = estimate?.pressureAltitudeFeet ?? fix.layerAltitudeFeet, session != nil else { return nil }
        let number = flight.flatMap(\.flightNumber).flatMap { (1...LiveFlight.maximumFlightNumberLength).contains($0.unicodeScalars.count) ? $0 : nil }
        return PositionUpload(
            flightID: flightID, latitude: fix.latitudeDegrees, longitude: fix.longitudeDegrees, altitudeFeet: altitude,
            headingDegrees: fix.courseDegrees ?? 0, groundSpeedKnots: (fix.speedMetersPerSecond ?? 0) * 3600 / 1852,
            aircraftType: aircraft.designator, flightNumber: number, time: fix.t)
    }

    // MARK: detection

    /// Motion samples, and barometer readings and fixes as navigation took them, reach detection in time order through
    /// the reorder buffer (they may come from different threads); locations drive phase and alerts at once.
    private mutating func feedDetection(_ input: DetectionInput, _ effects: inout [EngineEffect]) {
        detection.push(input, identity: detection.isFlightRunning ? nil : detectionIdentity)
        if let late = detection.lateInput {
            timeChecks.late(late.source, lagSeconds: late.lagSeconds)
            takeTimeNotices(&effects)
        }
        handleDetectionEvents(&effects)
    }

    /// Ends the current flight's detection: held inputs go through, the open tile crossing is closed, and the open time
    /// and value notices end.
    mutating func closeFlightDetection(_ effects: inout [EngineEffect]) {
        detection.close(identity: detectionIdentity)
        handleDetectionEvents(&effects)
        timeChecks.finish()
        takeTimeNotices(&effects)
    }

    /// The time and value checks' notices, to the host.
    private mutating func takeTimeNotices(_ effects: inout [EngineEffect]) {
        for notice in timeChecks.takeNotices() { effects.append(.callback(.didReceiveMeasurementNotice(notice))) }
    }

    private mutating func handleDetectionEvents(_ effects: inout [EngineEffect]) {
        guard !detection.events.isEmpty else { return }
        for event in detection.events {
            switch event {
            case .position(let p):
                let changed = devicePosition.map({ $0.inPosition != p.inPosition || $0.horizontal != p.horizontal }) ?? true
                devicePosition = (p.inPosition, p.horizontal, p.inNoise)
                if changed {
                    effects.append(.callback(.didChangeDevicePosition(inPosition: p.inPosition, horizontal: p.horizontal)))
                }
            case .minute, .altitude:
                break
            case .warning:
                break   // navigation's warnings reached the host when navigation took the reading or fix
            case .notice(let notice):
                effects.append(.callback(.didReceiveMeasurementNotice(notice)))
            case .tile(let report):
                // Stored before anything else happens to it; the cached data changes with it.
                effects.append(.storeOwnReport(DetectedTurbulence(
                    report: report, severity: report.severity(for: aircraft.aircraftClass), isSimulated: isSimulating)))
                if isSimulating { simulatedReportDetected() }
                cachedDataChanged()
            }
        }
    }
}
