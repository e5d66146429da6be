/// Why a user intent was refused locally, before any request. Every case has a message the UI
/// can show; none repeats a secret.
public enum Rejection: Hashable, Sendable, CustomStringConvertible {
    /// The input failed validation.
    case invalid(ValidationError)
    /// A request for this step is already in flight.
    case busy
    /// Codes can be requested again at this instant.
    case resendCooldown(until: Instant)
    /// The outstanding code's lifetime is over; request a new one.
    case codeExpired
    /// Too many wrong codes; request a new one.
    case attemptsExhausted
    /// The server asked us to wait until this instant (429).
    case rateLimited(until: Instant)
    /// There is no code outstanding, no session, or nothing to act on in this step.
    case notAvailableNow
    /// Nobody is signed in.
    case notSignedIn
    /// Someone is already signed in.
    case alreadySignedIn
    /// The password must be set before anything else (Anonymous Wall after code registration).
    case passwordSetupRequired
    /// The password must be changed before anything else (Everday `RequirePasswordChange`).
    case passwordChangeRequired
    /// An OAuth callback that does not belong to the pending attempt.
    case callbackMismatch
    /// The user declined the sign-in on the other device (RFC 8628 `access_denied`).
    case signInDeclined
    /// The device sign-in's code expired before the user approved it (RFC 8628 `expired_token`,
    /// or its `expires_in` passed); start again for a new code.
    case deviceCodeExpired
    /// The backend does not offer this.
    case unsupported

    /// A message the UI can show. It names no instant: the reducer's time is not the user's
    /// clock (the app-facing clients say how long to wait, "Try again in 45 s").
    public var description: String {
        switch self {
        case .invalid(let error): error.description
        case .busy: "Please wait for the current request to finish."
        case .resendCooldown: "Please wait before requesting a new code."
        case .codeExpired: "This code has expired. Request a new one."
        case .attemptsExhausted: "Too many wrong codes. Request a new one."
        case .rateLimited: "Too many requests. Please wait a moment and try again."
        case .notAvailableNow: "That is not available right now."
        case .notSignedIn: "You are not signed in."
        case .alreadySignedIn: "You are already signed in."
        case .passwordSetupRequired: "Set your password first."
        case .passwordChangeRequired: "Change your password first."
        case .callbackMismatch: "That sign-in link does not belong to this attempt."
        case .signInDeclined: "The sign-in was declined on the other device."
        case .deviceCodeExpired: "The code expired before the sign-in was approved. Start again for a new code."
        case .unsupported: "This is not supported here."
        }
    }
}

/// Why a session ended.
public enum SignOutReason: Hashable, Sendable, CustomStringConvertible {
    /// The user logged out.
    case userRequested
    /// The server refused the refresh token or the stored session (401/403).
    case sessionExpired
    /// A protected call was answered 401/403 on a backend without refresh (VynqTalk's automatic logout).
    case tokenRejected
    /// The access token's known expiry passed on a backend without refresh.
    case tokenExpired
    /// The password was changed and the server ended every session of the user with it
    /// (Everday revokes every refresh token): sign in again with the new password.
    case passwordChanged
    /// The user deleted their account; the server ended its sessions with it.
    case accountDeleted

    /// The case name.
    public var description: String {
        switch self {
        case .userRequested: "userRequested"
        case .sessionExpired: "sessionExpired"
        case .tokenRejected: "tokenRejected"
        case .tokenExpired: "tokenExpired"
        case .passwordChanged: "passwordChanged"
        case .accountDeleted: "accountDeleted"
        }
    }
}

/// Something that happened to the session that the app (and the runner's outcome stream) should
/// learn about, whoever caused it: a session began or ended, tokens were renewed, the session went
/// offline. What became of one intent is its ``Completion`` instead.
public enum AuthOutcome: Hashable, Sendable, CustomStringConvertible {
    /// A session began.
    case signedIn(UserProfile)
    /// The session ended; credentials are cleared.
    case signedOut(SignOutReason)
    /// New tokens were stored.
    case tokenRefreshed
    /// A refresh failed transiently and will be retried at this instant.
    case refreshRetryScheduled(at: Instant)
    /// Refresh attempts are exhausted; the session is kept and the next protected call tries again.
    case offline
    /// Signed in, but the password must be set before anything else.
    case passwordSetupRequired
    /// Signed in, but the password must be changed before anything else.
    case passwordChangeRequired
    /// The realtime connection is open.
    case realtimeConnected
    /// The realtime connection is closed and will not reconnect by itself.
    case realtimeDisconnected
    /// The vault could not be read; nothing was deleted.
    case vaultUnreadable
    /// A request nobody waits for failed (the server could not confirm a stored session).
    case failed(AuthFailure)
    /// After a logout, the server confirmed the session's refresh token is dead: revoked, or
    /// refused when presented (see ``ServerSignOut``).
    case serverSessionEnded
    /// After a logout, the server could not be reached to end the session (network, timeout, 5xx,
    /// 429 or an unreadable answer, after every attempt): the refresh token is kept in the vault,
    /// only to be revoked, and the revocation is tried again at the next launch and the next
    /// sign-in (``OwedRevocation``). The user is signed out meanwhile.
    case serverSessionEndOwed(AuthFailure)
    /// After a logout, the server session could not be confirmed ended and nothing will try again:
    /// the server refused the revocation, or every round of an owed one failed
    /// (``SessionPolicy/revocationRounds``). Its refresh token may still work until it expires.
    case serverSessionNotConfirmed(AuthFailure)

    /// The case with what a trace needs: the signed-in user by id, the sign-out reason, the retry
    /// time, the failure by its status. The user's email and name and the server's messages are
    /// left out.
    public var description: String {
        switch self {
        case .signedIn(let user): "signedIn(\(user))"
        case .signedOut(let reason): "signedOut(\(reason))"
        case .tokenRefreshed: "tokenRefreshed"
        case .refreshRetryScheduled(let at): "refreshRetryScheduled(\(at))"
        case .offline: "offline"
        case .passwordSetupRequired: "passwordSetupRequired"
        case .passwordChangeRequired: "passwordChangeRequired"
        case .realtimeConnected: "realtimeConnected"
        case .realtimeDisconnected: "realtimeDisconnected"
        case .vaultUnreadable: "vaultUnreadable"
        case .failed(let failure): "failed(\(failure))"
        case .serverSessionEnded: "serverSessionEnded"
        case .serverSessionEndOwed(let failure): "serverSessionEndOwed(\(failure))"
        case .serverSessionNotConfirmed(let failure): "serverSessionNotConfirmed(\(failure))"
        }
    }
}

/// What became of one intent: what the reducer hands its caller, exactly once.
public enum Completion: Hashable, Sendable, CustomStringConvertible {
    /// A session began (a sign-in, a registration that signs in, a code verified, a reset with
    /// auto-login, an OAuth callback). The state tells whether a password step comes first.
    case signedIn(UserProfile)
    /// The account exists and awaits a parent's approval (Everday), with the server's message.
    case pendingApproval(String?)
    /// The account exists and must be verified by email or phone first (Hero365), with the server's message.
    case verificationRequired(String?)
    /// A code was sent; another may be requested from `resendAt`, and it works until `expiresAt` when known.
    case codeSent(resendAt: Instant, expiresAt: Instant?)
    /// The first password was set.
    case passwordSet
    /// The password was changed.
    case passwordChanged
    /// A reset code, token or link was sent; another may be requested from `resendAt`.
    case passwordResetRequested(resendAt: Instant)
    /// The password was reset; sign in with it (backends without auto-login).
    case passwordResetCompleted
    /// Open this URL to continue OAuth sign-in.
    case authorizationURL(String)
    /// This server offers no browser sign-in for the provider: get an identity token from the
    /// provider's SDK (AuthenticationServices, Google Sign-In) and sign in natively with it.
    case nativeSignInRequired(OAuthProvider)
    /// The user is signed out (a logout finishes at once, whatever the server later says).
    case signedOut
    /// The intent took effect and there is nothing more to say (start over, cancel, disconnect).
    case done
    /// The intent changed nothing: what it asks for is already so, or is already under way.
    case unchanged
    /// A protected call: the server answered this request (any status).
    case answered(RequestID)
    /// Refused before any request, with a reason the UI can show.
    case rejected(Rejection)
    /// The server refused, or could not be reached.
    case failed(AuthFailure)
    /// A newer intent took over before the answer came (the user started over, switched to
    /// another flow, or a stored session was restored meanwhile); its answer will change nothing.
    case superseded
    /// The caller withdrew the intent; a request sent for it was abandoned.
    case cancelled
    /// The session ended (logout, refresh refused, token expired) while the intent waited.
    case sessionEnded

    /// The case, redacted.
    public var description: String {
        switch self {
        case .signedIn(let user): "signedIn(\(user))"
        case .pendingApproval: "pendingApproval"
        case .verificationRequired: "verificationRequired"
        case .codeSent(let resendAt, let expiresAt): "codeSent(resendAt: \(resendAt)\(expiresAt.map { ", expiresAt: \($0)" } ?? ""))"
        case .passwordSet: "passwordSet"
        case .passwordChanged: "passwordChanged"
        case .passwordResetRequested(let resendAt): "passwordResetRequested(resendAt: \(resendAt))"
        case .passwordResetCompleted: "passwordResetCompleted"
        case .authorizationURL: "authorizationURL"
        case .nativeSignInRequired(let provider): "nativeSignInRequired(\(provider))"
        case .signedOut: "signedOut"
        case .done: "done"
        case .unchanged: "unchanged"
        case .answered(let request): "answered(\(request))"
        case .rejected(let rejection): "rejected(\(rejection))"
        case .failed(let failure): "failed(\(failure))"
        case .superseded: "superseded"
        case .cancelled: "cancelled"
        case .sessionEnded: "sessionEnded"
        }
    }
}
