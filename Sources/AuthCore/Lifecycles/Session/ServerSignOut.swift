/// Ending a signed-out session on the server, in the background: the user is signed out (vault
/// cleared, state signed out) before any of this starts, and nothing here is ever written to the
/// vault or attached to a protected call.
///
/// The refresh tokens a session received must not outlive its logout (OWASP ASVS V3.3.1: logout
/// invalidates the session on the server; RFC 7009 revocation; RFC 9700 §4.14: a leaked refresh
/// token is the account). So the revoke is sent with an access token the server still accepts:
/// when the stored one has expired (or is inside the refresh margin) the session refreshes first
/// and revokes with the fresh pair; when a refresh was in flight at logout, its answer is awaited
/// and its successor revoked. Transient failures are retried a bounded number of times
/// (``SessionPolicy/serverSignOutAttempts``); the end
/// is reported either way (``AuthOutcome/serverSessionEnded`` or
/// ``AuthOutcome/serverSessionNotConfirmed(_:)``), never silently dropped.
///
/// It lives in the ``FlowContext`` rather than in the session's phase, because a composition
/// replaces the session's phase with its entry flows at sign-out, and the answers still come.
public struct ServerSignOut: Hashable, Sendable, CustomStringConvertible {
    /// What the background sign-out waits for.
    public enum Stage: Hashable, Sendable, CustomStringConvertible {
        /// A refresh: one in flight at logout (its successor must be revoked), or one sent
        /// because the access token could no longer be attached.
        case refreshing(RequestID)
        /// The revoke of the latest refresh token, with a usable access token.
        case revoking(RequestID)

        /// The request awaited.
        public var request: RequestID {
            switch self {
            case .refreshing(let id), .revoking(let id): id
            }
        }

        /// The stage and its request.
        public var description: String {
            switch self {
            case .refreshing(let id): "refreshing(\(id))"
            case .revoking(let id): "revoking(\(id))"
            }
        }
    }

    /// The ended session's latest refresh token (never persisted).
    public var refreshToken: RefreshToken
    /// The access token (and user) to revoke it with: the session's, or the one a refresh in this
    /// sign-out renewed. Its expiry is not kept: it was decided on when the revoke was first sent.
    /// `nil` in an owed revocation's round until its refresh answers: the vault keeps no access token.
    public var bearer: Bearer?
    /// What it waits for.
    public var stage: Stage
    /// Requests sent for the current stage so far.
    public var attempts: Int
    /// Whether a refresh already renewed the pair in this sign-out (a revoke refused after it
    /// is not refreshed around again).
    public var refreshed: Bool
    /// Which round this is: 1 for the logout's own, then one more for each time an owed
    /// revocation is tried again (``OwedRevocation``).
    public var round: Int

    /// Creates a background sign-out.
    public init(refreshToken: RefreshToken, bearer: Bearer?, stage: Stage, attempts: Int = 1, refreshed: Bool = false, round: Int = 1) {
        self.refreshToken = refreshToken
        self.bearer = bearer
        self.stage = stage
        self.attempts = attempts
        self.refreshed = refreshed
        self.round = round
    }

    /// The stage, the attempt and the round; never a token.
    public var description: String { "serverSignOut(\(stage), attempt \(attempts)\(round > 1 ? ", round \(round)" : ""))" }
}

extension FlowContext {
    /// The background sign-out waiting for `request`, if any.
    public func serverSignOut(awaiting request: RequestID) -> ServerSignOut? {
        serverSignOuts.first { $0.stage.request == request }
    }

    /// Tracks a background sign-out: it now waits for `signOut.stage`.
    public mutating func track(_ signOut: ServerSignOut) {
        serverSignOuts.append(signOut)
    }

    /// Forgets the background sign-out waiting for `request` (it has ended, one way or the other).
    public mutating func forgetServerSignOut(awaiting request: RequestID) {
        serverSignOuts.removeAll { $0.stage.request == request }
    }
}
