// Issue 27's acceptance for the Apple sensor glue: a host app that lets `AppleSensorFeed` run CoreMotion, CMAltimeter
// and CoreLocation (here their stand-ins, Tests/AppleSensorStubs) gets the same reports as the fixture replay. The
// stand-ins deliver what the real frameworks would: motion and pressure stamped on the boot clock (seconds since boot;
// the device booted at the log's time origin), pressure in kPa, fixes on Unix time with CoreLocation's −1 for an
// unknown speed, course or altitude.
import AppleSensorStubs
import Eddy
import EddyAppleSensors
import EddyAppleSensorsOnStubs
import EddySensorLog
import EddyTesting
import Foundation
import Testing

@Suite struct AppleSensorWalkTests {
    /// The fixture's samples (log time) and its shift to Unix seconds, as `eddy replay --engine` reads them.
    static func fixture(_ name: String) throws -> (samples: [SensorSample], shift: Double, meta: FlightMeta) {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/flights/\(name)").path
        let reader = try FlightLogReader(directory: directory)
        var samples: [SensorSample] = []
        while let sample = try reader.next() { samples.append(sample) }
        return (samples, reader.meta.timeOriginEpochSeconds ?? 0, reader.meta)
    }

    /// An offline engine set up as the fixture replay sets it up; its recorder.
    static func engine(_ folder: TemporaryDirectory, _ file: String, meta: FlightMeta, name: String) throws -> (EddyEngine, CallbackRecorder) {
        var configuration = EddyConfiguration(storePath: folder.path(file), delivery: .callerThread, syncTiming: .flightTime)
        configuration.deviceMount = meta.device?.mount ?? .cradle
        let engine = try EddyEngine(configuration: configuration)
        let recorder = CallbackRecorder(engine)
        try engine.setAircraft(designator: meta.aircraft.type ?? "B738")
        engine.setFlight(Flight(flightPlanId: "replay/" + name))
        try engine.startNow(apiKey: "offline", airline: "DAL", userId: "pilot", environment: .offline)
        return (engine, recorder)
    }

    static func reports(_ recorder: CallbackRecorder) -> [DetectedTurbulence] {
        recorder.callbacks.compactMap { if case .detectedTurbulence(let d) = $0 { d } else { nil } }
    }

    @Test(arguments: ["sim-medium-mixed", "jsbsim-737-mixed", "jsbsim-c172-mixed"])
    func theFeedGivesTheReportsOfTheFixtureReplay(_ name: String) throws {
        let (samples, shift, meta) = try Self.fixture(name)
        let folder = try TemporaryDirectory(prefix: "eddy-apple-walk")
        defer { folder.remove() }

        // The replay: samples pushed on Unix time.
        let (direct, directLog) = try Self.engine(folder, "direct.sqlite", meta: meta, name: name)
        for sample in samples {
            var shifted = sample
            shifted.t = sample.t + shift
            direct.push(shifted)
        }
        direct.finishDetection()

        // The app: the feed runs the (stand-in) sensors; the device booted at the log's time origin.
        let (app, appLog) = try Self.engine(folder, "app.sqlite", meta: meta, name: name)
        let (motion, altimeter, location) = (CMMotionManager(), CMAltimeter(), CLLocationManager())
        let feed = AppleSensorFeed(sink: app, motionManager: motion, altimeter: altimeter, locationManager: location,
                                   readClocks: { (0, shift) })
        feed.start()
        let accelerometer = try #require(motion.testAccelerometerHandler)
        let gyroscope = motion.testGyroHandler
        let barometer = try #require(altimeter.testHandler)
        for sample in samples {
            switch sample {
            case .accelerometer(let a):
                accelerometer(CMAccelerometerData(testTimestamp: a.t, acceleration: CMAcceleration(x: a.x, y: a.y, z: a.z)), nil)
            case .gyroscope(let g):
                let handler = try #require(gyroscope, "the feed runs the gyroscope")
                handler(CMGyroData(testTimestamp: g.t, rotationRate: CMRotationRate(x: g.x, y: g.y, z: g.z)), nil)
            case .barometer(let b):
                barometer(CMAltitudeData(testTimestamp: b.t, pressureKilopascals: b.pressureHectopascals / 10), nil)
            case .location(let l):
                #expect(l.pressureAltitudeFeet == nil && l.source == .device, "a CoreLocation fix carries no pressure altitude")
                let fix = CLLocation(
                    coordinate: CLLocationCoordinate2D(latitude: l.latitudeDegrees, longitude: l.longitudeDegrees),
                    altitude: l.altitudeMeters ?? 0, horizontalAccuracy: l.horizontalAccuracyMeters ?? 0,
                    verticalAccuracy: l.altitudeMeters == nil ? -1 : l.verticalAccuracyMeters ?? 0,
                    course: l.courseDegrees ?? -1, courseAccuracy: l.courseDegrees == nil ? -1 : 1,
                    speed: l.speedMetersPerSecond ?? -1, speedAccuracy: l.speedMetersPerSecond == nil ? -1 : 0.5,
                    timestamp: Date(timeIntervalSince1970: l.t + shift),
                    sourceInfo: CLLocationSourceInformation(softwareSimulationState: false, andExternalAccessoryState: false))
                feed.locationManager(location, didUpdateLocations: [fix])
            }
        }
        app.finishDetection()
        feed.stop()

        let expected = Self.reports(directLog), got = Self.reports(appLog)
        #expect(!expected.isEmpty, "the fixture replay reports something")
        #expect(got.count == expected.count, "\(got.count) reports through the feed, \(expected.count) in the replay")
        for (a, b) in zip(got, expected) {
            #expect(a.report.tile == b.report.tile && a.severity == b.severity, "\(a) vs \(b)")
            #expect(a.report.enterTime == b.report.enterTime && a.report.exitTime == b.report.exitTime)
            // Pressure went through kPa (÷ 10 × 10): at most a last-bit difference may reach an EDR.
            #expect(abs(a.report.edrMedian - b.report.edrMedian) <= 1e-12 && abs(a.report.edrPeak - b.report.edrPeak) <= 1e-12)
            #expect(a.report.id == b.report.id && a.report.altitudeSource == b.report.altitudeSource)
        }
        let failures = appLog.callbacks.filter { $0.name == "locationManagerDidFail" }
        #expect(failures.isEmpty, "\(failures)")
    }
}
