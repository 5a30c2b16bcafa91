import AppleSensorStubs
import EddyAppleSensors
import EddyAppleSensorsOnStubs
import EddyVocabulary
import Foundation
import Synchronization
import Testing

/// What the feed pushed and reported, and the engine's low power mode as the test sets it.
final class RecordingSink: AppleSensorSink {
    let samples = Mutex<[SensorSample]>([])
    let failures = Mutex<[String]>([])
    let lowPower = Mutex(false)
    func push(_ sample: SensorSample) { samples.withLock { $0.append(sample) } }
    func reportLocationFailure(_ message: String) { failures.withLock { $0.append(message) } }
    var isLowPowerMode: Bool { lowPower.withLock { $0 } }
}

/// Both clocks as a test moves them: uptime (the boot clock) and Unix time.
final class TestClocks: Sendable {
    let reads = Mutex((uptimeSeconds: 3_600.0, unixSeconds: 1_764_003_600.0))
    var closure: AppleSensorFeed.ClockReads { { self.reads.withLock { $0 } } }
    func advance(_ seconds: Double, sleeping: Bool = false) {
        reads.withLock { $0 = (sleeping ? $0.uptimeSeconds : $0.uptimeSeconds + seconds, $0.unixSeconds + seconds) }
    }
}

@Suite(.serialized) struct AppleSensorFeedTests {
    static func fix(_ t: Double, speed: Double = 230, course: Double = 90, horizontal: Double = 5,
                    simulated: Bool = false) -> CLLocation {
        CLLocation(coordinate: CLLocationCoordinate2D(latitude: 47, longitude: 8), altitude: 10_000, horizontalAccuracy: horizontal,
                   verticalAccuracy: 8, course: course, courseAccuracy: 1, speed: speed, speedAccuracy: 0.5,
                   timestamp: Date(timeIntervalSince1970: t), sourceInfo: CLLocationSourceInformation(softwareSimulationState: simulated, andExternalAccessoryState: false))
    }

    @Test func startsEverySensorAsAFlightNeedsAndMapsTheBootClockToUnixTime() throws {
        AppleProcessInfoTestState.thermalState.withLock { $0 = .nominal }
        AppleProcessInfoTestState.lowPowerMode.withLock { $0 = false }
        let (sink, clocks) = (RecordingSink(), TestClocks())
        let (motion, altimeter, location) = (CMMotionManager(), CMAltimeter(), CLLocationManager())
        location.testAuthorizationStatus = .notDetermined
        let feed = AppleSensorFeed(sink: sink, motionManager: motion, altimeter: altimeter, locationManager: location, readClocks: clocks.closure)
        feed.start()
        #expect(location.testAuthorizationRequests == 1 && location.testUpdating)
        #expect(location.activityType == .airborne && location.allowsBackgroundLocationUpdates && !location.pausesLocationUpdatesAutomatically)
        #expect(location.desiredAccuracy == kCLLocationAccuracyBest && location.distanceFilter == kCLDistanceFilterNone)
        #expect(motion.accelerometerUpdateInterval == 0.02 && motion.gyroUpdateInterval == 0.02)
        #expect(feed.ratePlan == SensorRatePlan(accelerometerHz: 50, gyroscopeHz: 50, bestLocationAccuracy: true))

        // Boot-clock stamps (uptime 3,600.5 s) land on Unix time; kPa become hPa; −1 speed and course become unknown.
        let accelerometer = try #require(motion.testAccelerometerHandler)
        accelerometer(CMAccelerometerData(testTimestamp: 3_600.5, acceleration: CMAcceleration(x: 0.01, y: 0.02, z: -1)), nil)
        let handler1 = try #require(motion.testGyroHandler)
        handler1(CMGyroData(testTimestamp: 3_600.52, rotationRate: CMRotationRate(x: 0, y: 0.1, z: 0)), nil)
        let handler2 = try #require(altimeter.testHandler)
        handler2(CMAltitudeData(testTimestamp: 3_600.6, pressureKilopascals: 26.4), nil)
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_600.7, speed: -1, course: -1)])
        let samples = sink.samples.withLock { $0 }
        #expect(samples.count == 4)
        #expect(samples[0] == .accelerometer(AccelerometerSample(t: 1_764_003_600.5, x: 0.01, y: 0.02, z: -1)))
        #expect(samples[1] == .gyroscope(GyroscopeSample(t: 1_764_003_600.52, x: 0, y: 0.1, z: 0)))
        if case .barometer(let b) = samples[2] { #expect(abs(b.pressureHectopascals - 264) < 1e-9 && b.t == 1_764_003_600.6) }
        else { Issue.record("not a barometer sample: \(samples[2])") }
        if case .location(let l) = samples[3] {
            #expect(l.speedMetersPerSecond == nil && l.courseDegrees == nil && l.altitudeMeters == 10_000 && l.source == .device)
        } else { Issue.record("not a fix: \(samples[3])") }
        #expect(sink.failures.withLock { $0 }.isEmpty)

        feed.stop()
        #expect(motion.testAccelerometerHandler == nil && motion.testGyroHandler == nil && altimeter.testHandler == nil && !location.testUpdating)
        accelerometer(CMAccelerometerData(testTimestamp: 3_601, acceleration: CMAcceleration(x: 0, y: 0, z: -1)), nil)
        #expect(sink.samples.withLock { $0.count } == 4, "nothing is pushed after stop()")
    }

    @Test func aSleepMovesTheAnchorAndTheNextStampsFollow() throws {
        let (sink, clocks) = (RecordingSink(), TestClocks())
        let (motion, location) = (CMMotionManager(), CLLocationManager())
        let feed = AppleSensorFeed(sink: sink, motionManager: motion, altimeter: CMAltimeter(), locationManager: location, readClocks: clocks.closure)
        feed.start()
        // Ten minutes asleep: the boot clock stood still, Unix time ran on. The next fix's clock read notices it.
        clocks.advance(600, sleeping: true)
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_004_200)])
        #expect(feed.clockReanchorCount == 1)
        let handler3 = try #require(motion.testAccelerometerHandler)
        handler3(CMAccelerometerData(testTimestamp: 3_600.25, acceleration: CMAcceleration(x: 0, y: 0, z: -1)), nil)
        #expect(sink.samples.withLock { $0.last } == .accelerometer(AccelerometerSample(t: 1_764_004_200.25, x: 0, y: 0, z: -1)))
        feed.stop()
    }

    @Test func refusalsAndSensorErrorsReachTheEngineOnceEach() throws {
        let (sink, clocks) = (RecordingSink(), TestClocks())
        let (motion, location) = (CMMotionManager(), CLLocationManager())
        motion.testGyroAvailable = false
        location.testAuthorizationStatus = .denied
        let feed = AppleSensorFeed(sink: sink, motionManager: motion, altimeter: CMAltimeter(), locationManager: location, readClocks: clocks.closure)
        feed.start()
        feed.locationManagerDidChangeAuthorization(location)
        feed.locationManager(location, didFailWithError: CLError(testCode: .denied))
        feed.locationManager(location, didFailWithError: CLError(testCode: .locationUnknown))
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_601, simulated: true), Self.fix(1_764_003_602, simulated: true)])
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_603, horizontal: -1)])
        struct SensorOff: Error {}
        let handler4 = try #require(motion.testAccelerometerHandler)
        handler4(nil, SensorOff())
        #expect(motion.testGyroHandler == nil, "no gyroscope on this device: none started")
        let failures = sink.failures.withLock { $0 }
        #expect(failures.count == 4, "\(failures)")
        #expect(failures[0].contains("location permission is denied") && failures[0].contains("Settings"))
        #expect(failures[1].contains("software-simulated location was refused"))
        #expect(failures[2].contains("negative horizontalAccuracy"))
        #expect(failures[3].contains("accelerometer failed"))
        #expect(sink.samples.withLock { $0 }.isEmpty)
        feed.stop()
    }

    @Test func ratesFollowHeatPowerAndTheEnginesLowPowerMode() {
        AppleProcessInfoTestState.thermalState.withLock { $0 = .nominal }
        AppleProcessInfoTestState.lowPowerMode.withLock { $0 = false }
        defer { AppleProcessInfoTestState.thermalState.withLock { $0 = .nominal } }
        let (sink, clocks) = (RecordingSink(), TestClocks())
        let (motion, location) = (CMMotionManager(), CLLocationManager())
        let feed = AppleSensorFeed(sink: sink, motionManager: motion, altimeter: CMAltimeter(), locationManager: location, readClocks: clocks.closure)
        feed.start()
        AppleProcessInfoTestState.thermalState.withLock { $0 = .serious }
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_601)])
        #expect(motion.accelerometerUpdateInterval == 0.04 && motion.gyroUpdateInterval == 0.04)
        AppleProcessInfoTestState.thermalState.withLock { $0 = .critical }
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_602)])
        #expect(motion.testGyroHandler == nil && motion.testAccelerometerHandler != nil)
        AppleProcessInfoTestState.thermalState.withLock { $0 = .nominal }
        sink.lowPower.withLock { $0 = true }
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_603)])
        #expect(motion.accelerometerUpdateInterval == 0.1 && motion.testGyroHandler == nil)
        #expect(location.desiredAccuracy == kCLLocationAccuracyNearestTenMeters)
        sink.lowPower.withLock { $0 = false }
        feed.locationManager(location, didUpdateLocations: [Self.fix(1_764_003_604)])
        #expect(motion.accelerometerUpdateInterval == 0.02 && motion.testGyroHandler != nil && location.desiredAccuracy == kCLLocationAccuracyBest)
        feed.stop()
    }
}
