/// The Eddy engine's version, sent to the server as the client version.
public enum EddyVersion {
    /// Semantic version of this engine build.
    public static let current = "1.0.0"
}
