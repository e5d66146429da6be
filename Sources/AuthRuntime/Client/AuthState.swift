import AuthCore
import Foundation

/// A signed-in session as the app sees it: who, and until when the access token works. Tokens
/// are not part of it; protected requests go through `authorized(_:)`.
public struct AuthSession: Hashable, Sendable, CustomStringConvertible {
    /// The signed-in user.
    public let user: UserProfile
    /// When the access token expires, when the server said (a refresh moves it on).
    public let expiresAt: Date?

    /// Creates a session view.
    public init(user: UserProfile, expiresAt: Date?) {
        self.user = user
        self.expiresAt = expiresAt
    }

    /// `session(user(<id>))`.
    public var description: String { "session(\(user))" }
}

/// Where the user is, as an app shows it: signed out, restoring a stored session, signed in, or
/// a step before the session can be used. Not the reducer's phases: a refresh in flight, a call
/// waiting for a token or a sign-in form half filled are the client's business, not the screen's.
public enum AuthState: Hashable, Sendable, CustomStringConvertible {
    /// Nobody is signed in.
    case signedOut
    /// Nobody is signed in; the account just registered or signing in awaits a parent's approval (Everday).
    case pendingApproval
    /// A stored session is being confirmed with the server (at launch).
    case restoring
    /// Signed in and usable.
    case signedIn(AuthSession)
    /// Signed in, but the server could not be reached to renew the token: the session is kept,
    /// and the next protected request tries again.
    case offline(AuthSession)
    /// Signed in, but the first password must be set before anything else (Anonymous Wall).
    case passwordSetupRequired(UserProfile)
    /// Signed in, but the password must be changed before anything else (Everday).
    case passwordChangeRequired(UserProfile)

    /// The signed-in user, in any state that has one.
    public var user: UserProfile? {
        switch self {
        case .signedIn(let session), .offline(let session): session.user
        case .passwordSetupRequired(let user), .passwordChangeRequired(let user): user
        case .signedOut, .pendingApproval, .restoring: nil
        }
    }

    /// Whether a session can make protected requests now (signed in, or offline and trying again).
    public var isSignedIn: Bool {
        switch self {
        case .signedIn, .offline: true
        case .signedOut, .pendingApproval, .restoring, .passwordSetupRequired, .passwordChangeRequired: false
        }
    }

    /// The case and the user's id.
    public var description: String {
        switch self {
        case .signedOut: "signedOut"
        case .pendingApproval: "pendingApproval"
        case .restoring: "restoring"
        case .signedIn(let session): "signedIn(\(session.user))"
        case .offline(let session): "offline(\(session.user))"
        case .passwordSetupRequired(let user): "passwordSetupRequired(\(user))"
        case .passwordChangeRequired(let user): "passwordChangeRequired(\(user))"
        }
    }
}

/// A lifecycle that can say what the app shows for each of its phases.
public protocol AuthStateReporting: Lifecycle {
    /// What the app shows in `phase`.
    func authState(_ phase: Phase) -> AuthState
}

extension SessionLifecycle: AuthStateReporting {
    /// The session's phase as the app shows it.
    public func authState(_ phase: Phase) -> AuthState {
        switch phase {
        case .signedOut: .signedOut
        case .restoring: .restoring
        case .active(let active):
            switch active.refresh {
            case .offline: .offline(AuthSession(active.credentials))
            case .idle, .refreshing, .backingOff: .signedIn(AuthSession(active.credentials))
            }
        case .passwordSetupRequired(let step): .passwordSetupRequired(step.credentials.user)
        case .passwordChangeRequired(let step): .passwordChangeRequired(step.credentials.user)
        }
    }
}

extension SessionWithRealtime: AuthStateReporting {
    /// The session half's state (the connection is not the session).
    public func authState(_ phase: Phase) -> AuthState { session.authState(phase.session) }
}

extension Handover: AuthStateReporting where SessionSide: AuthStateReporting {
    /// Signed out (or awaiting approval) in the entry flows; the session's state once signed in.
    public func authState(_ phase: Phase) -> AuthState {
        switch phase {
        case .signedOut(let inner): entry.awaitsApproval(inner) ? .pendingApproval : .signedOut
        case .signedIn(let inner): session.authState(inner)
        }
    }
}

extension AuthSession {
    /// The app's view of `credentials`.
    init(_ credentials: Credentials) {
        self.init(user: credentials.user, expiresAt: credentials.expiresAt.map(Date.init))
    }
}

extension Date {
    /// The date of `instant` (both count from the Unix epoch).
    init(_ instant: Instant) { self.init(timeIntervalSince1970: Double(instant.milliseconds) / 1000) }
}
