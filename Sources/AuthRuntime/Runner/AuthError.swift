import AuthCore
import Foundation

/// Why an operation did not give what it asked for: the one error every app-facing call throws.
///
/// Its `errorDescription` (what `localizedDescription` shows) is the text a UI can put in front of
/// the user: the server's own message where it sent one ("Email already registered"), the API documents'
/// defaults otherwise ("Invalid email or password", "Cannot connect to server"), and waits as
/// durations from now ("Try again in 45 s"). No description names a password, code or token.
public enum AuthError: Error, LocalizedError, Hashable, Sendable, CustomStringConvertible {
    /// Refused before any request: invalid input, a request already under way, nobody signed in,
    /// a password step first, not offered by this backend…
    case rejected(Rejection)
    /// Refused before any request because it is too soon: a new code during the resend cooldown,
    /// a sign-in during the server's rate limit. `retryIn` is the time left when it was refused.
    case tooSoon(Rejection, retryIn: Duration)
    /// The server refused, or could not be reached.
    case server(AuthFailure)
    /// The session ended (logout, refresh refused, token expired) while the operation waited.
    case sessionEnded
    /// A newer operation took over before this one was answered (the user started over or
    /// switched to another way of signing in); its late answer changes nothing.
    case superseded
    /// The caller's task was cancelled (or the client stopped); a request under way was abandoned.
    case cancelled
    /// The backend answered in a way this operation cannot use: a composition error, not the user's.
    case unexpected(String)
    /// This server offers no browser sign-in with the provider: sign in natively with the
    /// identity token its SDK gives (Hero365's deployed server; see `Hero365Client.startOAuth(with:)`).
    case nativeSignInRequired(OAuthProvider)

    /// The error for a refusal at `now`: a wait becomes a duration from now.
    public init(_ rejection: Rejection, at now: Instant) {
        switch rejection {
        case .resendCooldown(let until), .rateLimited(let until):
            self = .tooSoon(rejection, retryIn: .milliseconds(max(0, (until - now).milliseconds)))
        case .invalid, .busy, .codeExpired, .attemptsExhausted, .notAvailableNow, .notSignedIn, .alreadySignedIn,
            .passwordSetupRequired, .passwordChangeRequired, .callbackMismatch, .signInDeclined, .deviceCodeExpired, .unsupported:
            self = .rejected(rejection)
        }
    }

    /// The text a UI shows.
    public var errorDescription: String? {
        switch self {
        case .rejected(let rejection): rejection.description
        case .tooSoon(.resendCooldown, let wait): "You can request a new code in \(Self.spoken(wait))."
        case .tooSoon(_, let wait): "Too many requests. Try again in \(Self.spoken(wait))."
        case .server(.rateLimited(let retryAfter?)):
            "Too many requests. Try again in \(Self.spoken(.milliseconds(retryAfter.milliseconds)))."
        case .server(let failure): failure.userMessage
        case .sessionEnded: "Your session has ended. Please sign in again."
        case .superseded: "A newer request took the place of this one."
        case .cancelled: "The request was cancelled."
        case .unexpected: "Server error, please try again"
        case .nativeSignInRequired(let provider): "Sign in with \(provider.displayName) in the app."
        }
    }

    /// The case, never a secret (the server's message is left out: it is for the user).
    public var description: String {
        switch self {
        case .rejected(let rejection): "rejected(\(rejection))"
        case .tooSoon(let rejection, let wait): "tooSoon(\(rejection), retryIn: \(Self.spoken(wait)))"
        case .server(let failure): "server(\(failure))"
        case .sessionEnded: "sessionEnded"
        case .superseded: "superseded"
        case .cancelled: "cancelled"
        case .unexpected(let what): "unexpected(\(what))"
        case .nativeSignInRequired(let provider): "nativeSignInRequired(\(provider))"
        }
    }

    /// A wait as people say it: `45 s`, `2 min`, `1 h 5 min`, rounded up to the second.
    static func spoken(_ wait: Duration) -> String {
        let (seconds, attoseconds) = wait.components
        let total = max(0, seconds + (attoseconds > 0 ? 1 : 0))
        if total < 60 { return "\(total) s" }
        let minutes = (total + 59) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension AuthError {
    /// The error for a completion that is not the operation's success, at `now`.
    init(_ completion: Completion, at now: Instant) {
        switch completion {
        case .rejected(let rejection): self.init(rejection, at: now)
        case .failed(let failure): self = .server(failure)
        case .sessionEnded: self = .sessionEnded
        case .superseded: self = .superseded
        case .cancelled: self = .cancelled
        case .nativeSignInRequired(let provider): self = .nativeSignInRequired(provider)
        case .signedIn, .pendingApproval, .verificationRequired, .codeSent, .passwordSet, .passwordChanged,
            .passwordResetRequested, .passwordResetCompleted, .authorizationURL, .signedOut, .done, .unchanged, .answered:
            self = .unexpected("\(completion)")
        }
    }
}

extension OAuthProvider {
    /// `Apple`, `Google`, `GitHub`: the name a user reads.
    var displayName: String {
        switch self {
        case .apple: "Apple"
        case .google: "Google"
        case .github: "GitHub"
        }
    }
}
