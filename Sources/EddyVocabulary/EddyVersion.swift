/// Eddy's one version: the engine's and its sync client's, sent to the server as the client version (session start and
/// the `X-Eddy-Client-Version` header) and in the transport's default `User-Agent: EddySync/<version>`.
public enum EddyVersion {
    /// Semantic version of this build (`MAJOR.MINOR.PATCH`).
    public static let current = "1.0.0"
}
