/// Where a token the server issued stands, as `ReferenceServer.refreshTokenStatus(_:)` and
/// `accessTokenStatus(_:)` report it.
public enum TokenStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// Accepted if presented now.
    case live
    /// A refresh token already exchanged for its successor: presenting it again is reuse.
    case consumed
    /// Its session was revoked (logout, reuse detection, password reset).
    case revoked
    /// Past its lifetime.
    case expired
    /// Never issued by this server.
    case unknown

    /// The case name.
    public var description: String { rawValue }
}
