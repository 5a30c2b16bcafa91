// Stand-ins for exactly the Apple API that `AppleSensorFeed` (Sources/EddyAppleSensors/Glue) uses, so that the glue
// compiles and runs on Linux, where CoreMotion and CoreLocation do not exist. Each declaration mirrors the signature in
// Apple's documentation, cited above it. They do nothing by themselves: tests drive them through the `test…` hooks at
// the end of each type, which are NOT Apple API. None of this was checked against a real Apple SDK.
public import Foundation
public import Synchronization

// MARK: CoreMotion

/// https://developer.apple.com/documentation/coremotion/cmlogitem — `var timestamp: TimeInterval { get }`: "the amount of
/// time in seconds since the device booted".
open class CMLogItem: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmlogitem/timestamp
    public let timestamp: TimeInterval
    /// Test hook (not Apple API): a reading at `timestamp`.
    public init(testTimestamp timestamp: TimeInterval) { self.timestamp = timestamp }
}

/// https://developer.apple.com/documentation/coremotion/cmacceleration — `struct CMAcceleration { var x, y, z: Double }`
/// (g).
public struct CMAcceleration: Sendable {
    /// X-axis acceleration in G's.
    public var x: Double
    /// Y-axis acceleration in G's.
    public var y: Double
    /// Z-axis acceleration in G's.
    public var z: Double
    /// https://developer.apple.com/documentation/coremotion/cmacceleration/init(x:y:z:)
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
}

/// https://developer.apple.com/documentation/coremotion/cmaccelerometerdata — `var acceleration: CMAcceleration { get }`.
public final class CMAccelerometerData: CMLogItem, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmaccelerometerdata/acceleration
    public let acceleration: CMAcceleration
    /// Test hook (not Apple API).
    public init(testTimestamp timestamp: TimeInterval, acceleration: CMAcceleration) {
        self.acceleration = acceleration
        super.init(testTimestamp: timestamp)
    }
}

/// https://developer.apple.com/documentation/coremotion/cmrotationrate — `struct CMRotationRate { var x, y, z: Double }`
/// (rad/s).
public struct CMRotationRate: Sendable {
    /// X-axis rotation rate in radians per second.
    public var x: Double
    /// Y-axis rotation rate in radians per second.
    public var y: Double
    /// Z-axis rotation rate in radians per second.
    public var z: Double
    /// https://developer.apple.com/documentation/coremotion/cmrotationrate/init(x:y:z:)
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
}

/// https://developer.apple.com/documentation/coremotion/cmgyrodata — `var rotationRate: CMRotationRate { get }`.
public final class CMGyroData: CMLogItem, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmgyrodata/rotationrate
    public let rotationRate: CMRotationRate
    /// Test hook (not Apple API).
    public init(testTimestamp timestamp: TimeInterval, rotationRate: CMRotationRate) {
        self.rotationRate = rotationRate
        super.init(testTimestamp: timestamp)
    }
}

/// https://developer.apple.com/documentation/coremotion/cmaltitudedata — `var pressure: NSNumber { get }`: "the recorded
/// pressure, in kilopascals".
public final class CMAltitudeData: CMLogItem, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmaltitudedata/pressure
    public let pressure: NSNumber
    /// Test hook (not Apple API).
    public init(testTimestamp timestamp: TimeInterval, pressureKilopascals: Double) {
        pressure = NSNumber(value: pressureKilopascals)
        super.init(testTimestamp: timestamp)
    }
}

/// https://developer.apple.com/documentation/coremotion/cmaccelerometerhandler
public typealias CMAccelerometerHandler = (CMAccelerometerData?, (any Error)?) -> Void
/// https://developer.apple.com/documentation/coremotion/cmgyrohandler
public typealias CMGyroHandler = (CMGyroData?, (any Error)?) -> Void
/// https://developer.apple.com/documentation/coremotion/cmaltitudehandler
public typealias CMAltitudeHandler = (CMAltitudeData?, (any Error)?) -> Void

/// https://developer.apple.com/documentation/coremotion/cmmotionmanager
open class CMMotionManager: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/isaccelerometeravailable
    open var isAccelerometerAvailable: Bool { testAccelerometerAvailable }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/isgyroavailable
    open var isGyroAvailable: Bool { testGyroAvailable }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/accelerometerupdateinterval
    open var accelerometerUpdateInterval: TimeInterval = 0.1
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/gyroupdateinterval
    open var gyroUpdateInterval: TimeInterval = 0.1
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/startaccelerometerupdates(to:withhandler:)
    open func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler) {
        testAccelerometerHandler = handler
    }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/stopaccelerometerupdates()
    open func stopAccelerometerUpdates() { testAccelerometerHandler = nil }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/startgyroupdates(to:withhandler:)
    open func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping CMGyroHandler) { testGyroHandler = handler }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/stopgyroupdates()
    open func stopGyroUpdates() { testGyroHandler = nil }
    /// https://developer.apple.com/documentation/coremotion/cmmotionmanager/init()
    public override init() {}

    /// Test hooks (not Apple API): availability, and the handlers the glue gave (nil while stopped).
    public var testAccelerometerAvailable = true, testGyroAvailable = true
    /// Test hook (not Apple API).
    public private(set) var testAccelerometerHandler: CMAccelerometerHandler?
    /// Test hook (not Apple API).
    public private(set) var testGyroHandler: CMGyroHandler?
}

/// https://developer.apple.com/documentation/coremotion/cmaltimeter
open class CMAltimeter: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/coremotion/cmaltimeter/isrelativealtitudeavailable()
    open class func isRelativeAltitudeAvailable() -> Bool { true }
    /// https://developer.apple.com/documentation/coremotion/cmaltimeter/startrelativealtitudeupdates(to:withhandler:)
    open func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {
        testHandler = handler
    }
    /// https://developer.apple.com/documentation/coremotion/cmaltimeter/stoprelativealtitudeupdates()
    open func stopRelativeAltitudeUpdates() { testHandler = nil }
    /// https://developer.apple.com/documentation/coremotion/cmaltimeter/init()
    public override init() {}

    /// Test hook (not Apple API): the handler the glue gave (nil while stopped).
    public private(set) var testHandler: CMAltitudeHandler?
}

// MARK: CoreLocation

/// https://developer.apple.com/documentation/corelocation/clllocationaccuracy — `typealias CLLocationAccuracy = Double`.
public typealias CLLocationAccuracy = Double
/// https://developer.apple.com/documentation/corelocation/kcllocationaccuracybest
public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
/// https://developer.apple.com/documentation/corelocation/kcllocationaccuracynearesttenmeters
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
/// https://developer.apple.com/documentation/corelocation/kcldistancefilternone
public let kCLDistanceFilterNone: Double = -1

/// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d
public struct CLLocationCoordinate2D: Sendable {
    /// The latitude in degrees.
    public var latitude: Double
    /// The longitude in degrees.
    public var longitude: Double
    /// https://developer.apple.com/documentation/corelocation/cllocationcoordinate2d/init(latitude:longitude:)
    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }
}

/// https://developer.apple.com/documentation/corelocation/cllocationsourceinformation (iOS 15)
public final class CLLocationSourceInformation: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocationsourceinformation/isproducedbyaccessory
    public let isProducedByAccessory: Bool
    /// https://developer.apple.com/documentation/corelocation/cllocationsourceinformation/issimulatedbysoftware
    public let isSimulatedBySoftware: Bool
    /// https://developer.apple.com/documentation/corelocation/cllocationsourceinformation/init(softwaresimulationstate:andexternalaccessorystate:)
    public init(softwareSimulationState isSoftware: Bool, andExternalAccessoryState isAccessory: Bool) {
        isSimulatedBySoftware = isSoftware
        isProducedByAccessory = isAccessory
    }
}

/// https://developer.apple.com/documentation/corelocation/cllocation — the properties the glue reads.
open class CLLocation: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocation/coordinate
    public let coordinate: CLLocationCoordinate2D
    /// https://developer.apple.com/documentation/corelocation/cllocation/altitude (metres above mean sea level)
    public let altitude: Double
    /// https://developer.apple.com/documentation/corelocation/cllocation/horizontalaccuracy
    public let horizontalAccuracy: CLLocationAccuracy
    /// https://developer.apple.com/documentation/corelocation/cllocation/verticalaccuracy
    public let verticalAccuracy: CLLocationAccuracy
    /// https://developer.apple.com/documentation/corelocation/cllocation/speed
    public let speed: Double
    /// https://developer.apple.com/documentation/corelocation/cllocation/speedaccuracy
    public let speedAccuracy: Double
    /// https://developer.apple.com/documentation/corelocation/cllocation/course
    public let course: Double
    /// https://developer.apple.com/documentation/corelocation/cllocation/courseaccuracy
    public let courseAccuracy: Double
    /// https://developer.apple.com/documentation/corelocation/cllocation/timestamp
    public let timestamp: Date
    /// https://developer.apple.com/documentation/corelocation/cllocation/sourceinformation (iOS 15)
    public let sourceInformation: CLLocationSourceInformation?

    /// https://developer.apple.com/documentation/corelocation/cllocation/init(coordinate:altitude:horizontalaccuracy:verticalaccuracy:course:courseaccuracy:speed:speedaccuracy:timestamp:sourceinfo:)
    public init(coordinate: CLLocationCoordinate2D, altitude: Double, horizontalAccuracy: CLLocationAccuracy,
                verticalAccuracy: CLLocationAccuracy, course: Double, courseAccuracy: Double, speed: Double,
                speedAccuracy: Double, timestamp: Date, sourceInfo: CLLocationSourceInformation) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
        sourceInformation = sourceInfo
    }
}

/// https://developer.apple.com/documentation/corelocation/clactivitytype
public enum CLActivityType: Int, Sendable {
    /// https://developer.apple.com/documentation/corelocation/clactivitytype/other
    case other = 1
    /// https://developer.apple.com/documentation/corelocation/clactivitytype/airborne (iOS 12)
    case airborne = 5
}

/// https://developer.apple.com/documentation/corelocation/clauthorizationstatus
public enum CLAuthorizationStatus: Int32, Sendable {
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/notdetermined
    case notDetermined = 0
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/restricted
    case restricted = 1
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/denied
    case denied = 2
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedalways
    case authorizedAlways = 3
    /// https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedwheninuse
    case authorizedWhenInUse = 4
}

/// https://developer.apple.com/documentation/corelocation/clerror-swift.struct — the codes the glue tells apart.
public struct CLError: Error, Sendable {
    /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code
    public enum Code: Int, Sendable {
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/locationunknown
        case locationUnknown = 0
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/denied
        case denied = 1
        /// https://developer.apple.com/documentation/corelocation/clerror-swift.struct/code/network
        case network = 2
    }
    /// The error's code.
    public let code: Code
    /// Test hook (not Apple API): an error with `code`.
    public init(testCode code: Code) { self.code = code }
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate — the three methods the glue
/// implements (optional in Objective-C; defaults here).
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didupdatelocations:)
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanager(_:didfailwitherror:)
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    /// https://developer.apple.com/documentation/corelocation/cllocationmanagerdelegate/locationmanagerdidchangeauthorization(_:)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
}

/// https://developer.apple.com/documentation/corelocation/cllocationmanager — the members the glue uses.
open class CLLocationManager: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/delegate
    open weak var delegate: (any CLLocationManagerDelegate)?
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/desiredaccuracy
    open var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/distancefilter
    open var distanceFilter: Double = kCLDistanceFilterNone
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/activitytype
    open var activityType: CLActivityType = .other
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/pauseslocationupdatesautomatically
    open var pausesLocationUpdatesAutomatically = true
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/allowsbackgroundlocationupdates — needs
    /// `location` in the app's `UIBackgroundModes`.
    open var allowsBackgroundLocationUpdates = false
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/authorizationstatus (iOS 14)
    open var authorizationStatus: CLAuthorizationStatus { testAuthorizationStatus }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/requestwheninuseauthorization()
    open func requestWhenInUseAuthorization() { testAuthorizationRequests += 1 }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/startupdatinglocation()
    open func startUpdatingLocation() { testUpdating = true }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/stopupdatinglocation()
    open func stopUpdatingLocation() { testUpdating = false }
    /// https://developer.apple.com/documentation/corelocation/cllocationmanager/init()
    public override init() {}

    /// Test hooks (not Apple API): the status the system reports, the requests made, whether updates run.
    public var testAuthorizationStatus: CLAuthorizationStatus = .authorizedWhenInUse
    /// Test hook (not Apple API).
    public private(set) var testAuthorizationRequests = 0
    /// Test hook (not Apple API).
    public private(set) var testUpdating = false
}

// MARK: Foundation members missing from swift-corelibs-foundation

/// https://developer.apple.com/documentation/foundation/processinfo/thermalstate-swift.enum
public enum AppleThermalState: Int, Sendable {
    /// nominal, fair, serious, critical
    case nominal, fair, serious, critical
}

extension ProcessInfo {
    /// https://developer.apple.com/documentation/foundation/processinfo/thermalstate-swift.property
    public var thermalState: AppleThermalState { AppleProcessInfoTestState.thermalState.withLock { $0 } }
    /// https://developer.apple.com/documentation/foundation/processinfo/islowpowermodeenabled
    public var isLowPowerModeEnabled: Bool { AppleProcessInfoTestState.lowPowerMode.withLock { $0 } }
}


/// Test hooks (not Apple API): what the `ProcessInfo` stand-ins report.
public enum AppleProcessInfoTestState {
    /// The thermal state `ProcessInfo.thermalState` reports.
    public static let thermalState = Mutex(AppleThermalState.nominal)
    /// What `ProcessInfo.isLowPowerModeEnabled` reports.
    public static let lowPowerMode = Mutex(false)
}
