// The code of Sources/Eddy/Eddy.docc/GettingStarted.md, compiled and run. Each `// snippet` … `// end` region is one
// of the article's ```swift blocks, character for character (indentation removed); `DocSnippetTests` checks that
// every block of the article is here, so the article cannot show code that does not compile.
import Eddy
import EddyAlerts
import EddyVocabulary
import Foundation
import Testing

// snippet
final class Listener: EddyDelegate {
    func didUpdateRecordingStatus(to recording: Bool) {}
    func didReceiveNewTurbulenceData(areaType: DataAreaType) {}
    func didChangeDevicePosition(_ inPosition: Bool, horizontal: Bool) {}
    func detectedTurbulence(_ report: DetectedTurbulence) { print(report.severity, report.isSimulated) }
    func didReceiveAlert(_ alert: EddyAlert) { print(alert.items.count, "tiles ahead") }
}
// end

/// Runs the article's snippets in order against an offline engine in a temporary directory.
func gettingStarted(storeDirectory: String, apiKey: String, delegate: Listener, now: Double) async throws -> (EddyEngine, EddyThresholds, URL) {
    // snippet
    let configuration = EddyConfiguration(storePath: storeDirectory + "/eddy.sqlite")
    let engine = try EddyEngine(configuration: configuration)
    engine.delegate = delegate
    // end
    // snippet
    try await engine.start(apiKey: apiKey, airline: "DAL", userId: "pilot-42", environment: .offline)
    try engine.setAircraft(designator: "B738")
    engine.setFlight(Flight(flightNumber: "DAL123", departure: "KJFK", destination: "EGLL"))
    try engine.startMonitoringAlerts(with: AlertQuery())
    // end
    // snippet
    engine.push(.location(LocationSample(t: now, latitudeDegrees: 40.64, longitudeDegrees: -73.78, altitudeMeters: 10_668,
                                         horizontalAccuracyMeters: 5, verticalAccuracyMeters: 8,
                                         speedMetersPerSecond: 230, courseDegrees: 50)))
    engine.push(.accelerometer(AccelerometerSample(t: now, x: 0.01, y: -0.02, z: -1.0)))
    // end
    // snippet
    try engine.startDemo(.turbulence(.moderate))
    engine.stopDemo()
    // end
    // snippet
    let thresholds = engine.thresholds
    let logFile = try engine.exportLogs()
    // end
    return (engine, thresholds, logFile)
}
