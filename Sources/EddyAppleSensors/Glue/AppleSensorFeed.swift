// The Apple glue: runs CoreMotion, CMAltimeter and CoreLocation and pushes their readings into the engine. It compiles
// where CoreMotion and CoreLocation exist; on Linux it is compiled (as the test-only target EddyAppleSensorsOnStubs,
// which links this folder) against Tests/AppleSensorStubs, stand-ins for exactly the Apple API used here, and its
// behaviour is tested by driving them. It has never been built against a real Apple SDK (docs/apple-sensors.md).
#if EDDY_APPLE_SENSOR_STUBS
public import AppleSensorStubs
public import EddyAppleSensors
#elseif canImport(CoreMotion) && canImport(CoreLocation)
public import CoreLocation
public import CoreMotion
#endif

#if EDDY_APPLE_SENSOR_STUBS || (canImport(CoreMotion) && canImport(CoreLocation))
import EddySupport
import EddyVocabulary
public import Foundation
import Synchronization

/// Feeds an engine from the device's sensors: raw accelerometer and gyroscope (CoreMotion), pressure (CMAltimeter) and
/// location (CoreLocation), mapped to Eddy's samples on Unix time (docs/apple-sensors.md). Create it with the engine,
/// call `start()` after the engine's `start`, and `stop()` when recording ends.
///
/// Location runs with activity type `.airborne`, no distance filter, no automatic pauses and, when `backgroundUpdates`
/// is true, in the background: the app then needs `location` in its `UIBackgroundModes`. Authorisation is requested
/// (when in use) if not yet determined; a refusal, a missing sensor or a sensor error reaches the engine as
/// `locationManagerDidFail(withError:)`, once per cause per `start()`. Rates follow `SensorRatePlan` and change when the
/// engine enters or leaves low power mode, the system's Low Power Mode changes or the device heats up (checked at each
/// fix).
public final class AppleSensorFeed: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
    /// Reads both clocks one right after the other: `ProcessInfo.systemUptime` and Unix seconds.
    public typealias ClockReads = @Sendable () -> (uptimeSeconds: Double, unixSeconds: Double)

    private let sink: any AppleSensorSink
    private let motion: CMMotionManager
    private let altimeter: CMAltimeter
    private let location: CLLocationManager
    private let queue: OperationQueue
    private let readClocks: ClockReads
    private let backgroundUpdates: Bool
    private let acceptSimulatedLocations: Bool
    private let state = Mutex(State())

    private struct State {
        var clock = BootClockAnchor()
        var plan: SensorRatePlan?
        var running = false
        var reported: Set<String> = []
        var reanchors = 0
    }

    /// A feed into `sink` (usually the `EddyEngine`), with the app's managers (Apple recommends one `CMMotionManager` per
    /// app). `readClocks` defaults to the system's clocks; `backgroundUpdates` keeps location running in the background
    /// (needs `location` in `UIBackgroundModes`); software-simulated fixes are refused unless `acceptSimulatedLocations`.
    public init(
        sink: any AppleSensorSink, motionManager: CMMotionManager = CMMotionManager(), altimeter: CMAltimeter = CMAltimeter(),
        locationManager: CLLocationManager = CLLocationManager(), readClocks: ClockReads? = nil,
        backgroundUpdates: Bool = true, acceptSimulatedLocations: Bool = false
    ) {
        self.sink = sink
        motion = motionManager
        self.altimeter = altimeter
        location = locationManager
        self.readClocks = readClocks ?? { (ProcessInfo.processInfo.systemUptime, SystemEpochClock().now()) }
        self.backgroundUpdates = backgroundUpdates
        self.acceptSimulatedLocations = acceptSimulatedLocations
        queue = OperationQueue()
        queue.name = "Eddy sensors"
        queue.maxConcurrentOperationCount = 1
        super.init()
    }

    /// The rates in use (nil before `start()`).
    public var ratePlan: SensorRatePlan? { state.withLock { $0.plan } }
    /// How many times the boot-clock anchor moved since `start()` (the device slept, or the wall clock was set).
    public var clockReanchorCount: Int { state.withLock { $0.reanchors } }

    /// Starts the sensors (again after `stop()`; calling it while running does nothing).
    public func start() {
        let reads = readClocks()
        let plan = currentPlan()
        let alreadyRunning = state.withLock { state in
            if state.running { return true }
            state = State()
            state.running = true
            state.plan = plan
            _ = state.clock.observe(uptimeSeconds: reads.uptimeSeconds, unixSeconds: reads.unixSeconds)
            return false
        }
        guard !alreadyRunning else { return }

        location.delegate = self
        location.activityType = .airborne
        location.distanceFilter = kCLDistanceFilterNone
        location.pausesLocationUpdatesAutomatically = false
        location.allowsBackgroundLocationUpdates = backgroundUpdates
        location.desiredAccuracy = plan.bestLocationAccuracy ? kCLLocationAccuracyBest : kCLLocationAccuracyNearestTenMeters
        let status = location.authorizationStatus
        if status == .notDetermined { location.requestWhenInUseAuthorization() }
        if status == .denied || status == .restricted { reportOnce(Self.permissionAdvice) }
        location.startUpdatingLocation()

        if motion.isAccelerometerAvailable {
            startMotion(plan)
        } else {
            reportOnce("this device has no accelerometer: Eddy cannot measure turbulence on it")
        }
        if CMAltimeter.isRelativeAltitudeAvailable() {
            altimeter.startRelativeAltitudeUpdates(to: queue) { [weak self] data, error in
                guard let self else { return }
                if let data {
                    self.push { clock in AppleMotion.barometer(pressureKilopascals: data.pressure.doubleValue, uptimeSeconds: data.timestamp, clock: clock) }
                } else if let error {
                    self.reportOnce("the barometer failed (\(error)): altitude uses GNSS only")
                }
            }
        }
    }

    /// Stops every sensor. The engine keeps what it measured.
    public func stop() {
        let wasRunning = state.withLock { state in
            defer { state.running = false }
            return state.running
        }
        guard wasRunning else { return }
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        altimeter.stopRelativeAltitudeUpdates()
        location.stopUpdatingLocation()
    }

    // MARK: CLLocationManagerDelegate

    /// Each fix: the clocks are compared (re-anchored after a sleep), the fix is mapped and pushed, and the rates follow
    /// the engine's and the device's state.
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let reads = readClocks()
        let running = state.withLock { state in
            guard state.running else { return false }
            if case .reanchored = state.clock.observe(uptimeSeconds: reads.uptimeSeconds, unixSeconds: reads.unixSeconds) {
                state.reanchors += 1
            }
            return true
        }
        guard running else { return }
        for fix in locations {
            let reading = AppleLocationReading(
                latitudeDegrees: fix.coordinate.latitude, longitudeDegrees: fix.coordinate.longitude, altitudeMeters: fix.altitude,
                horizontalAccuracyMeters: fix.horizontalAccuracy, verticalAccuracyMeters: fix.verticalAccuracy,
                speedMetersPerSecond: fix.speed, speedAccuracyMetersPerSecond: fix.speedAccuracy, courseDegrees: fix.course,
                courseAccuracyDegrees: fix.courseAccuracy, unixSeconds: fix.timestamp.timeIntervalSince1970,
                producedByAccessory: fix.sourceInformation?.isProducedByAccessory,
                simulatedBySoftware: fix.sourceInformation?.isSimulatedBySoftware)
            if reading.simulatedBySoftware == true, !acceptSimulatedLocations {
                reportOnce("a software-simulated location was refused (pass acceptSimulatedLocations: true to fly a simulated route)")
                continue
            }
            switch reading.locationSample() {
            case .success(let sample): sink.push(.location(sample))
            case .failure(let refusal): reportOnce("\(refusal)")
            }
        }
        replanIfNeeded()
    }

    /// `locationUnknown` is transient (CoreLocation keeps trying); a denial and other errors reach the engine once.
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let code = (error as? CLError)?.code
        if code == .locationUnknown { return }
        reportOnce(code == .denied ? Self.permissionAdvice : "the location service failed: \(error)")
    }

    /// A refusal while running reaches the engine once.
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        let status = manager.authorizationStatus
        if status == .denied || status == .restricted { reportOnce(Self.permissionAdvice) }
    }

    // MARK: internals

    private static let permissionAdvice =
        "location permission is denied or restricted: Eddy needs the position to place reports; allow Location for this app in Settings"

    private func startMotion(_ plan: SensorRatePlan) {
        motion.accelerometerUpdateInterval = plan.accelerometerUpdateIntervalSeconds
        motion.startAccelerometerUpdates(to: queue) { [weak self] data, error in
            guard let self else { return }
            if let data {
                let a = data.acceleration
                self.push { clock in AppleMotion.accelerometer(xG: a.x, yG: a.y, zG: a.z, uptimeSeconds: data.timestamp, clock: clock) }
            } else if let error {
                self.reportOnce("the accelerometer failed (\(error)): nothing is measured until it works again")
            }
        }
        startGyro(plan)
    }

    private func startGyro(_ plan: SensorRatePlan) {
        guard let interval = plan.gyroUpdateIntervalSeconds, motion.isGyroAvailable else { return }
        motion.gyroUpdateInterval = interval
        motion.startGyroUpdates(to: queue) { [weak self] data, error in
            guard let self else { return }
            if let data {
                let w = data.rotationRate
                self.push { clock in AppleMotion.gyroscope(x: w.x, y: w.y, z: w.z, uptimeSeconds: data.timestamp, clock: clock) }
            } else if let error {
                self.reportOnce("the gyroscope failed (\(error)): handling is judged by tilt alone")
            }
        }
    }

    /// Maps with the current anchor (under the lock) and pushes (outside it).
    private func push(_ map: (BootClockAnchor) -> SensorSample?) {
        guard let clock = state.withLock({ $0.running ? $0.clock : nil }), let sample = map(clock) else { return }
        sink.push(sample)
    }

    private func currentPlan() -> SensorRatePlan {
        let info = ProcessInfo.processInfo
        let thermalState = info.thermalState
        let thermal: SensorRatePlan.Thermal = thermalState == .critical ? .critical : thermalState == .serious ? .serious
            : thermalState == .fair ? .fair : .nominal
        return SensorRatePlan.plan(engineLowPower: sink.isLowPowerMode, systemLowPowerMode: info.isLowPowerModeEnabled, thermal: thermal)
    }

    private func replanIfNeeded() {
        let plan = currentPlan()
        let old: SensorRatePlan? = state.withLock { state in
            guard state.running, state.plan != plan else { return nil }
            defer { state.plan = plan }
            return state.plan
        }
        guard let old else { return }
        if old.accelerometerHz != plan.accelerometerHz { motion.accelerometerUpdateInterval = plan.accelerometerUpdateIntervalSeconds }
        if old.gyroscopeHz != plan.gyroscopeHz {
            motion.stopGyroUpdates()
            startGyro(plan)
        }
        location.desiredAccuracy = plan.bestLocationAccuracy ? kCLLocationAccuracyBest : kCLLocationAccuracyNearestTenMeters
    }

    private func reportOnce(_ message: String) {
        let first = state.withLock { $0.reported.insert(message).inserted }
        if first { sink.reportLocationFailure(message) }
    }
}
#endif
