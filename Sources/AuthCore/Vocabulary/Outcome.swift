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
    /// The backend does not offer this.
    case unsupported

    /// A message the UI can show.
    public var description: String {
        switch self {
        case .invalid(let error): error.description
        case .busy: "Please wait for the current request to finish."
        case .resendCooldown(let until): "You can request a new code at \(until)."
        case .codeExpired: "This code has expired. Request a new one."
        case .attemptsExhausted: "Too many wrong codes. Request a new one."
        case .rateLimited(let until): "Too many requests. Try again at \(until)."
        case .notAvailableNow: "That is not available right now."
        case .notSignedIn: "You are not signed in."
        case .alreadySignedIn: "You are already signed in."
        case .passwordSetupRequired: "Set your password first."
        case .passwordChangeRequired: "Change your password first."
        case .callbackMismatch: "That sign-in link does not belong to this attempt."
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

    /// The case name.
    public var description: String {
        switch self {
        case .userRequested: "userRequested"
        case .sessionExpired: "sessionExpired"
        case .tokenRejected: "tokenRejected"
        case .tokenExpired: "tokenExpired"
        }
    }
}

/// Something the UI (and the runner's outcome stream) should learn about.
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
    /// A code was sent.
    case codeSent
    /// The account awaits a parent's approval (Everday).
    case pendingApproval(String?)
    /// Check your email or phone to verify the new account (Hero365).
    case verificationRequired(String?)
    /// Signed in, but the password must be set before anything else.
    case passwordSetupRequired
    /// Signed in, but the password must be changed before anything else.
    case passwordChangeRequired
    /// The first password was set.
    case passwordSet
    /// The password was changed.
    case passwordChanged
    /// A reset code, token or link was sent.
    case passwordResetRequested
    /// The password was reset; sign in with it (backends without auto-login).
    case passwordResetCompleted
    /// Open this URL to continue OAuth sign-in.
    case openAuthorizationURL(String)
    /// The realtime connection is open.
    case realtimeConnected
    /// The realtime connection is closed and will not reconnect by itself.
    case realtimeDisconnected
    /// The vault could not be read; nothing was deleted.
    case vaultUnreadable
    /// A user intent was refused locally.
    case rejected(Rejection)
    /// The server refused, or could not be reached.
    case failed(AuthFailure)

    /// Redacted summary.
    public var description: String {
        switch self {
        case .signedIn(let user): "signedIn(\(user))"
        case .signedOut(let reason): "signedOut(\(reason))"
        case .tokenRefreshed: "tokenRefreshed"
        case .refreshRetryScheduled(let at): "refreshRetryScheduled(\(at))"
        case .offline: "offline"
        case .codeSent: "codeSent"
        case .pendingApproval: "pendingApproval"
        case .verificationRequired: "verificationRequired"
        case .passwordSetupRequired: "passwordSetupRequired"
        case .passwordChangeRequired: "passwordChangeRequired"
        case .passwordSet: "passwordSet"
        case .passwordChanged: "passwordChanged"
        case .passwordResetRequested: "passwordResetRequested"
        case .passwordResetCompleted: "passwordResetCompleted"
        case .openAuthorizationURL: "openAuthorizationURL"
        case .realtimeConnected: "realtimeConnected"
        case .realtimeDisconnected: "realtimeDisconnected"
        case .vaultUnreadable: "vaultUnreadable"
        case .rejected(let rejection): "rejected(\(rejection))"
        case .failed(let failure): "failed(\(failure))"
        }
    }
}

/// How a protected call ends, for the caller waiting in the runner's `authorized(_:)`.
public enum CallResult: Hashable, Sendable, CustomStringConvertible {
    /// Deliver the server's answer to this request (success or an error other than a replayable 401).
    case answered(RequestID)
    /// The call was refused before sending.
    case rejected(Rejection)
    /// The session ended (logout, refresh refused) while the call waited.
    case sessionEnded
    /// The token could not be refreshed for a transient reason.
    case failed(AuthFailure)

    /// The case.
    public var description: String {
        switch self {
        case .answered(let request): "answered(\(request))"
        case .rejected(let rejection): "rejected(\(rejection))"
        case .sessionEnded: "sessionEnded"
        case .failed(let failure): "failed(\(failure))"
        }
    }
}
