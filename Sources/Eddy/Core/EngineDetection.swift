import EddyDetection
import EddySupport
import EddyVocabulary

/// Who and what a flight's detection belongs to: the parts of its report-id salt and its configuration that the
/// engine's settings decide (session, flight, aircraft, mount).
struct DetectionIdentity: Sendable, Equatable {
    /// Airline of the session ("" before a start).
    var airline = ""
    /// The host's user id ("" before a start).
    var userId = ""
    /// The host's flight key ("" without a flight, or for a temporary one).
    var flightKey = ""
    /// The aircraft.
    var aircraft: AircraftType
    /// How the device is installed.
    var mount: DeviceMount

    /// The detection configuration of a flight whose time base is `timeBase` (Unix seconds, whole).
    func configuration(timeBase: Double) -> DetectionConfiguration {
        var configuration = DetectionConfiguration(aircraftClass: aircraft.aircraftClass, typeDesignator: aircraft.designator)
        configuration.reportSalt = FNV1a.hash64([airline, userId, flightKey, String(Int(saturating: timeBase)), aircraft.designator])
        configuration.mount = mount
        return configuration
    }
}

/// Detection inside the engine: the 2 s reorder buffer that puts inputs from several threads back into time order,
/// and the current flight's pipeline on its time base (`FlightDetection`). Pure.
///
/// Motion samples, and barometer readings and fixes as navigation took them, reach the pipeline in time order; the
/// events of every input a call released are in `events`, in order, until the next call.
struct EngineDetection: Sendable {
    private var flight = FlightDetection()
    private var reorder = SampleReorderBuffer()
    /// The events of the inputs released by the latest call, in order (in Unix seconds).
    private(set) var events: [DetectionEvent] = []

    /// The source and lag of an input the latest call found late (behind one already measured), if any.
    private(set) var lateInput: (source: SampleSource, lagSeconds: Double)?

    /// Whether a flight's pipeline runs (its first input went through).
    var isFlightRunning: Bool { flight.isRunning }

    /// Takes one input; inputs that waited long enough go through the pipeline. A flight begins at the first, with
    /// `identity`: it must be given while no flight runs (`isFlightRunning`), and is not read while one does.
    mutating func push(_ input: DetectionInput, identity: DetectionIdentity?) {
        events.removeAll(keepingCapacity: true)
        let lateBefore = reorder.lateCount
        reorder.push(input)
        lateInput = reorder.lateCount != lateBefore ? reorder.latestLate : nil
        while let ready = reorder.popReleased() { feed(ready, identity) }
    }

    /// Ends the current flight's detection: every held input goes through, then the open tile crossing is closed.
    mutating func close(identity: DetectionIdentity) {
        events.removeAll(keepingCapacity: true)
        while let held = reorder.popHeld() { feed(held, identity) }
        guard flight.isRunning else { return }
        flight.finish(into: &events)
    }

    /// Forgets held inputs (a demo starts or ends: simulated and real inputs never meet).
    mutating func forgetHeldInputs() {
        reorder = SampleReorderBuffer()
    }

    private mutating func feed(_ input: DetectionInput, _ identity: DetectionIdentity?) {
        if !flight.isRunning {
            guard let identity else { preconditionFailure("EngineDetection: a flight begins only with its identity") }
            let timeBase = FlightDetection.timeBase(forFirstSampleAt: input.t)
            flight.begin(timeBase: timeBase, configuration: identity.configuration(timeBase: timeBase))
        }
        flight.process(input, into: &events)
    }
}
