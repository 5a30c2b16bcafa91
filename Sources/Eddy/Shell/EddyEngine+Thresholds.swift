import EddyProtocol
import Foundation
import Logging

extension EddyEngine {
    /// The thresholds in force (flight phase, low power, accuracy limits): the server's where the session's server
    /// sent them (persisted with the session for offline restarts), the configuration's local defaults otherwise.
    public var thresholds: EddyThresholds { core.withLock { $0.thresholds } }

    /// A new session's settings (first start or a transparent restart): its thresholds go to the core and are
    /// persisted with the session; a server that sends none (older than them) brings the local defaults back.
    func serverSettingsReceived(_ settings: ServerSettings) {
        core.withLock { $0.setServerThresholds(settings.thresholds) }
        logger?.info("session: thresholds \(settings.thresholds == nil ? "not sent by the server: local defaults" : "from the server")")
        do {
            try EngineSettings.persist(serverThresholds: settings.thresholds, in: store)
        } catch {
            // Not persisted: the values hold until the app quits (an offline restart falls back to the local defaults).
            logger?.warning("session: thresholds not persisted: \(error)")
        }
    }
}
