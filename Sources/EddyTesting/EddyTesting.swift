import Eddy

/// Helpers for host apps' own tests: synthetic sensor streams and a local `eddy-server` launcher.
public enum EddyTesting {
    /// The engine version these helpers were built with.
    public static let engineVersion = EddyVersion.current
}
