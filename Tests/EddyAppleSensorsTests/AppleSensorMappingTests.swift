import EddyAppleSensors
import EddyVocabulary
import Testing

@Suite struct BootClockAnchorTests {
    @Test func anchorsOnceKeepsItThroughJitterAndFollowsASleep() {
        var clock = BootClockAnchor()
        #expect(clock.unixSeconds(uptimeSeconds: 100) == nil)
        #expect(clock.observe(uptimeSeconds: 1_000, unixSeconds: 1_764_000_000) == .anchored)
        #expect(clock.unixSeconds(uptimeSeconds: 1_000.5) == 1_764_000_000.5)
        // Two reads a few microseconds apart, NTP slewing by milliseconds: the anchor stays.
        #expect(clock.observe(uptimeSeconds: 2_000, unixSeconds: 1_764_001_000.003) == .kept)
        #expect(clock.unixMinusUptimeSeconds == 1_763_999_000)
        // The device slept 600 s: uptime stood still while Unix time ran on.
        #expect(clock.observe(uptimeSeconds: 2_010, unixSeconds: 1_764_001_610) == .reanchored(stepSeconds: 600))
        #expect(clock.unixSeconds(uptimeSeconds: 2_011) == 1_764_001_611)
        // The wall clock set back by a minute.
        #expect(clock.observe(uptimeSeconds: 2_020, unixSeconds: 1_764_001_560) == .reanchored(stepSeconds: -60))
        #expect(clock.observe(uptimeSeconds: .nan, unixSeconds: 1_764_001_560) == .ignored)
        #expect(clock.unixSeconds(uptimeSeconds: .infinity) == nil)
    }

    @Test func motionAndPressureReadingsLandOnUnixTimeInEddysUnits() throws {
        var clock = BootClockAnchor()
        #expect(AppleMotion.accelerometer(xG: 0, yG: 0, zG: -1, uptimeSeconds: 5, clock: clock) == nil)
        _ = clock.observe(uptimeSeconds: 10, unixSeconds: 1_764_000_010)
        #expect(AppleMotion.accelerometer(xG: 0.01, yG: -0.02, zG: -1, uptimeSeconds: 12.5, clock: clock)
            == .accelerometer(AccelerometerSample(t: 1_764_000_012.5, x: 0.01, y: -0.02, z: -1)))
        #expect(AppleMotion.gyroscope(x: 0.1, y: 0, z: -0.1, uptimeSeconds: 12.5, clock: clock)
            == .gyroscope(GyroscopeSample(t: 1_764_000_012.5, x: 0.1, y: 0, z: -0.1)))
        // CMAltitudeData.pressure is in kPa; Eddy's barometer in hPa.
        let barometer = try #require(AppleMotion.barometer(pressureKilopascals: 101.325, uptimeSeconds: 11, clock: clock))
        guard case .barometer(let b) = barometer else { Issue.record("not a barometer sample: \(barometer)"); return }
        #expect(abs(b.pressureHectopascals - 1013.25) < 1e-9 && b.t == 1_764_000_011)
    }
}

@Suite struct AppleLocationReadingTests {
    static let cruise = AppleLocationReading(
        latitudeDegrees: 47.45, longitudeDegrees: 8.56, altitudeMeters: 10_668, horizontalAccuracyMeters: 4.7,
        verticalAccuracyMeters: 6.1, speedMetersPerSecond: 231.5, speedAccuracyMetersPerSecond: 0.4, courseDegrees: 271.2,
        courseAccuracyDegrees: 0.8, unixSeconds: 1_764_000_000, producedByAccessory: false, simulatedBySoftware: false)

    @Test func aGoodFixMapsFieldForField() throws {
        let fix = try Self.cruise.locationSample().get()
        #expect(fix == LocationSample(t: 1_764_000_000, latitudeDegrees: 47.45, longitudeDegrees: 8.56, altitudeMeters: 10_668,
                                      horizontalAccuracyMeters: 4.7, verticalAccuracyMeters: 6.1, speedMetersPerSecond: 231.5,
                                      courseDegrees: 271.2, source: .device))
    }

    @Test func minusOneMeansUnknownNeverAValue() throws {
        var reading = Self.cruise
        reading.speedMetersPerSecond = -1
        reading.courseDegrees = -1
        reading.verticalAccuracyMeters = -1
        let fix = try reading.locationSample().get()
        #expect(fix.speedMetersPerSecond == nil && fix.courseDegrees == nil)
        #expect(fix.altitudeMeters == nil && fix.verticalAccuracyMeters == nil)
        #expect(fix.latitudeDegrees == 47.45 && fix.horizontalAccuracyMeters == 4.7)
        // The accuracies alone can mark a value invalid, too.
        reading = Self.cruise
        reading.speedAccuracyMetersPerSecond = -1
        reading.courseAccuracyDegrees = -1
        let second = try reading.locationSample().get()
        #expect(second.speedMetersPerSecond == nil && second.courseDegrees == nil && second.altitudeMeters == 10_668)
        // A zero accuracy is "not given", not "exact".
        reading = Self.cruise
        reading.horizontalAccuracyMeters = 0
        #expect(try reading.locationSample().get().horizontalAccuracyMeters == nil)
    }

    @Test func anInvalidPositionOrANumberThatIsNotOneIsRefusedWithItsReason() {
        var reading = Self.cruise
        reading.horizontalAccuracyMeters = -1
        #expect(reading.locationSample() == .failure(.positionInvalid))
        reading = Self.cruise
        reading.latitudeDegrees = .nan
        #expect(reading.locationSample() == .failure(.notANumber(field: "latitude")))
        reading = Self.cruise
        reading.longitudeDegrees = 181
        #expect(reading.locationSample() == .failure(.notANumber(field: "longitude")))
        reading = Self.cruise
        reading.unixSeconds = .infinity
        #expect(reading.locationSample() == .failure(.notANumber(field: "timestamp")))
        #expect(AppleLocationReading.Refusal.positionInvalid.description.contains("negative horizontalAccuracy"))
    }

    @Test func anAccessorysFixIsExternal() throws {
        var reading = Self.cruise
        reading.producedByAccessory = true
        #expect(try reading.locationSample().get().source == .external)
        reading.producedByAccessory = nil
        #expect(try reading.locationSample().get().source == .device)
    }
}

@Suite struct SensorRatePlanTests {
    @Test func ratesFallWithPowerAndHeatButNeverBelowWhatDetectionNeeds() {
        let normal = SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: false, thermal: .nominal)
        #expect(normal == SensorRatePlan(accelerometerHz: 50, gyroscopeHz: 50, bestLocationAccuracy: true))
        #expect(SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: false, thermal: .fair) == normal)
        let saving = SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: true, thermal: .nominal)
        #expect(saving == SensorRatePlan(accelerometerHz: 25, gyroscopeHz: 25, bestLocationAccuracy: true))
        #expect(SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: false, thermal: .serious) == saving)
        let critical = SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: true, thermal: .critical)
        #expect(critical.gyroUpdateIntervalSeconds == nil && critical.accelerometerUpdateIntervalSeconds == 0.04)
        let parked = SensorRatePlan.plan(engineLowPower: true, systemLowPowerMode: false, thermal: .nominal)
        #expect(parked == SensorRatePlan(accelerometerHz: 10, gyroscopeHz: 0, bestLocationAccuracy: false))
        // In flight, every plan keeps at least one sample per 40 ms tick: 2.5 × the light aircraft's 4 Hz band top and more.
        for thermal in SensorRatePlan.Thermal.allCases {
            for lowPower in [false, true] {
                #expect(SensorRatePlan.plan(engineLowPower: false, systemLowPowerMode: lowPower, thermal: thermal).accelerometerHz >= 25)
            }
        }
    }
}
