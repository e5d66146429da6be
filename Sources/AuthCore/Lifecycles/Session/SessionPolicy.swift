/// How a backend keeps a session alive.
public enum RefreshPolicy: Hashable, Sendable {
    /// No refresh token (Anonymous Wall, Subspace, VynqTalk): when the token is known to have
    /// expired, or a protected call is refused, the session ends.
    case none
    /// Rotating refresh (Everday, Hero365): refresh `margin` before expiry and on a 401; transient
    /// failures are retried up to `retryLimit` times, waiting `backoff`, then twice as long, and so on.
    case rotating(margin: Interval, retryLimit: Int, backoff: Interval)
    /// Rotating refresh when the server gave a refresh token, none when it did not (Subspace: its
    /// document grants `{token, user}` and no refresh, its deployed server `{accessToken,
    /// refreshToken, user}` and a rotating `/auth/refresh`). Decided per session by the credentials
    /// it holds: with a refresh token, everything ``rotating(margin:retryLimit:backoff:)`` does
    /// (single flight, persist before use, no reuse); without one, everything ``none`` does.
    case rotatingWhenGranted(margin: Interval, retryLimit: Int, backoff: Interval)

    /// The refresh a session holding `credentials` applies: never ``rotatingWhenGranted(margin:retryLimit:backoff:)``.
    ///
    /// The margin applied is never more than half the lifetime the server granted the access
    /// token (``Credentials/lifetime``): with a 60 s margin, a token granted for 60 s refreshes
    /// after 30 s and a token granted for 30 s after 15 s — not before every call — while a token
    /// granted for 30 minutes refreshes 60 s before it ends.
    public func applied(to credentials: Credentials) -> AppliedRefresh {
        switch self {
        case .none: .none
        case .rotating(let margin, let retryLimit, let backoff):
            .rotating(margin: Self.margin(margin, fitting: credentials), retryLimit: retryLimit, backoff: backoff)
        case .rotatingWhenGranted(let margin, let retryLimit, let backoff):
            credentials.refreshToken == nil
                ? .none : .rotating(margin: Self.margin(margin, fitting: credentials), retryLimit: retryLimit, backoff: backoff)
        }
    }

    /// `margin`, or half the granted lifetime when that is shorter.
    static func margin(_ margin: Interval, fitting credentials: Credentials) -> Interval {
        guard let lifetime = credentials.lifetime else { return margin }
        let half = Interval(milliseconds: max(0, lifetime.milliseconds / 2))
        return half < margin ? half : margin
    }
}

/// The refresh a session applies to the credentials it holds (``RefreshPolicy/applied(to:)``).
public enum AppliedRefresh: Hashable, Sendable {
    /// No refresh: the session ends when its token is known to be dead.
    case none
    /// Rotating refresh, as ``RefreshPolicy/rotating(margin:retryLimit:backoff:)``, with the
    /// margin that fits the credentials' lifetime.
    case rotating(margin: Interval, retryLimit: Int, backoff: Interval)
}

/// What to do with stored credentials at launch.
public enum RestorePolicy: Hashable, Sendable {
    /// Use them as they are (Anonymous Wall); a 401 later ends the session.
    case trustStored
    /// Ask the server who the token belongs to (Subspace `/auth/me`, Hero365 and VynqTalk `/users/me`).
    case fetchCurrentUser
    /// Refresh at once (Everday: "if refresh token exists, call `/auth/refresh`").
    case refresh
}

/// What a backend's session offers and how it behaves.
public struct SessionPolicy: Hashable, Sendable {
    /// How the session is kept alive.
    public var refresh: RefreshPolicy
    /// What to do with stored credentials at launch.
    public var restore: RestorePolicy
    /// End the server session at logout, in the background (Everday `/auth/logout` revokes the
    /// refresh token; Hero365's deployed `/revoke-tokens/{user_id}` revokes every refresh token of
    /// the user); `false` where the backend offers no revocation, and the refresh token then lives
    /// on the server until it expires.
    public var revokesOnLogout: Bool
    /// How many times the background sign-out sends each of its requests before it reports that
    /// the server session could not be confirmed ended (the first send and the retries).
    public var serverSignOutAttempts: Int
    /// How many rounds a revocation the server could not be reached for gets, the logout's own
    /// included (at least 2): after the first, the refresh token is kept in the vault
    /// (``OwedRevocation``) and tried again at the next launch, logout and sign-in, each round
    /// with ``serverSignOutAttempts`` sends; after the last, the failure is reported. Since every
    /// logout gives each owed revocation a round, the vault owes at most this many at once.
    ///
    /// Two by default: the logout's own round and one more at the next occasion. Each round more
    /// multiplies the states a verified composition explores: the README's five-flow app at 4 in
    /// flight and 2 left over closes in 50,941 states with two rounds; a third multiplied them
    /// about six times when last measured (102,579 to 649,633, before later changes to the kit).
    public var revocationRounds: Int
    /// The backend's revocation ends every session of the user, not one refresh token (Hero365's
    /// deployed `/revoke-tokens/{user_id}`, Supabase's global sign-out). An owed revocation then
    /// never goes out beside a session, since it could be the same user's: it is tried at logouts
    /// and at launches that find no stored session, and a sign-in gives it up and reports it
    /// (``AuthOutcome/serverSessionNotConfirmed(_:)``); the next logout of the same user ends
    /// the old sessions with the new one. A logout's round under way sends nothing more once a
    /// session is held or a sign-in may be under way (an intent waits for an entry flow's
    /// request): it is given up and reported the same way.
    public var revocationEndsEverySession: Bool
    /// A 403 on a protected call ends the session too (VynqTalk: "WHEN the token expires (401/403)
    /// THEN log the user out"); elsewhere a 403 is only that call's answer.
    public var forbiddenEndsSession: Bool
    /// The backend can set a first password (Anonymous Wall `/password/set`).
    public var supportsPasswordSetup: Bool
    /// The backend can change a password (Anonymous Wall `/password/change`, Everday's deployed
    /// `/auth/change-password`). Without it a demanded change (Everday's `RequirePasswordChange`)
    /// is refused as unsupported and the user logs out to reset the password instead.
    public var supportsPasswordChange: Bool
    /// A changed password ends every session of the user on the server (Everday revokes every
    /// refresh token at a change): the session ends cleanly once the server accepts the change,
    /// with ``SignOutReason/passwordChanged``, and its revoked refresh token is never sent again.
    /// The app signs in with the new password (the Everday client does it in the same call).
    public var passwordChangeEndsSessions: Bool
    /// The backend deletes the signed-in user's account on request (Everday's deployed `DELETE
    /// /auth/account`): the session then ends with ``SignOutReason/accountDeleted``.
    public var supportsAccountDeletion: Bool

    /// Creates a policy.
    public init(
        refresh: RefreshPolicy, restore: RestorePolicy, revokesOnLogout: Bool = false, forbiddenEndsSession: Bool = false,
        supportsPasswordSetup: Bool = false, supportsPasswordChange: Bool = false, passwordChangeEndsSessions: Bool = false,
        supportsAccountDeletion: Bool = false, serverSignOutAttempts: Int = 3, revocationRounds: Int = 2,
        revocationEndsEverySession: Bool = false
    ) {
        self.serverSignOutAttempts = max(1, serverSignOutAttempts)
        self.revocationRounds = max(2, revocationRounds)
        self.revocationEndsEverySession = revocationEndsEverySession
        self.refresh = refresh
        self.restore = restore
        self.revokesOnLogout = revokesOnLogout
        self.forbiddenEndsSession = forbiddenEndsSession
        self.supportsPasswordSetup = supportsPasswordSetup
        self.supportsPasswordChange = supportsPasswordChange
        self.passwordChangeEndsSessions = passwordChangeEndsSessions
        self.supportsAccountDeletion = supportsAccountDeletion
    }
}
