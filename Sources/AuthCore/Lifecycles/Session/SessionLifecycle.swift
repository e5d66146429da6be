/// The signed-in session: rotating refresh (single flight, proactive and on 401, replay once),
/// restore on launch, logout that always reaches signed-out, and the password steps a session
/// may demand before anything else (set it, Anonymous Wall; change it, Everday).
///
/// Only definitive refresh answers (400/401/403) end a session; network errors, timeouts, 5xx,
/// 429 and unreadable answers keep it and retry a bounded number of times with the same token,
/// then wait for the user. A rotated pair is persisted before the new access token is used, and
/// an old refresh token is never sent once its successor arrived.
///
/// The reducer is split by event family, as swift-nio-http2 splits its connection state machine:
/// intents (`SessionLifecycle+Intents.swift`), server answers (`+Replies`), time and launch
/// (`+Time`), and logout with the server sign-out that follows it (`+SignOut`); this file holds
/// the states and what every family shares (beginning, entering and ending a session). The types
/// the session uses have files of their own beside it: `SessionPolicy`, `PendingCall` and
/// `ServerSignOut`.
public struct SessionLifecycle: Lifecycle {
    /// How this backend's session behaves.
    public var policy: SessionPolicy

    /// A session lifecycle with `policy`.
    public init(policy: SessionPolicy) { self.policy = policy }

    /// Where the user is. Each case carries one value that says what is true in it.
    ///
    /// The cases holding credentials are `indirect`: copying a phase is then one reference count,
    /// not a retain of every token and string in the session.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["signedOut", "restoring", "active", "passwordSetupRequired", "passwordChangeRequired"]

        /// Nobody is signed in; nothing is stored.
        case signedOut
        /// The app launched with stored credentials and asked the server whether they still hold;
        /// protected calls made meanwhile wait for the answer.
        indirect case restoring(Restoring)
        /// Signed in and usable; protected calls may be in flight, and the token may be being renewed.
        indirect case active(Active)
        /// Signed in with the password not yet set (Anonymous Wall): only setting it, or logging out, is allowed.
        indirect case passwordSetupRequired(PasswordStep)
        /// Signed in, but the server demands a new password (Everday): only changing it, or logging out, is allowed.
        indirect case passwordChangeRequired(PasswordStep)

        /// The credentials the phase holds, if signed in (or restoring).
        public var credentials: Credentials? {
            switch self {
            case .signedOut: nil
            case .restoring(let restoring): restoring.credentials
            case .active(let active): active.credentials
            case .passwordSetupRequired(let step), .passwordChangeRequired(let step): step.credentials
            }
        }

        /// The protected calls the phase has not answered yet, in call order.
        public var pendingCalls: [IntentID] {
            switch self {
            case .restoring(let restoring): restoring.waiting
            case .active(let active): active.calls.map(\.id)
            case .signedOut, .passwordSetupRequired, .passwordChangeRequired: []
            }
        }
    }

    /// What is true while a stored session is being confirmed.
    public struct Restoring: Hashable, Sendable, CustomStringConvertible {
        /// What the vault held.
        public var credentials: Credentials
        /// The refresh or current-user request asking the server.
        public var request: RequestID
        /// Which of the two it is: a 429 to it holds for that endpoint.
        public var endpoint: ServerEndpoint
        /// Protected calls made meanwhile, in call order; sent once the session is confirmed.
        public var waiting: [IntentID]

        /// Creates the restoring state.
        public init(credentials: Credentials, request: RequestID, asking endpoint: ServerEndpoint, waiting: [IntentID] = []) {
            self.credentials = credentials
            self.request = request
            self.endpoint = endpoint
            self.waiting = waiting
        }

        /// The credentials as they print themselves (tokens only as their kind, the user only by id),
        /// the request asking the server, and the calls waiting for its answer.
        public var description: String {
            "\(credentials), \(request)\(waiting.isEmpty ? "" : ", waiting: \(waiting)")"
        }
    }

    /// What is true in a usable session: the credentials, the protected calls not yet answered to
    /// their callers, a password change or an account deletion in flight, and where the renewal of
    /// the token is.
    public struct Active: Hashable, Sendable, CustomStringConvertible {
        /// What the vault holds.
        public var credentials: Credentials
        /// Unanswered protected calls, in call order.
        public var calls: [PendingCall]
        /// A password change in flight.
        public var passwordChange: RequestID?
        /// An account deletion in flight.
        public var accountDeletion: RequestID?
        /// Where the renewal of the access token is.
        public var refresh: Refresh

        /// Creates an active session.
        public init(
            credentials: Credentials, calls: [PendingCall] = [], passwordChange: RequestID? = nil, accountDeletion: RequestID? = nil,
            refresh: Refresh = .idle
        ) {
            self.credentials = credentials
            self.calls = calls
            self.passwordChange = passwordChange
            self.accountDeletion = accountDeletion
            self.refresh = refresh
        }

        /// The bearer for protected requests.
        public var bearer: Bearer { credentials.bearer }

        /// The credentials as they print themselves (tokens only as their kind, the user only by
        /// id), where the refresh is, the calls not yet answered and a password change in flight
        /// (its request only: the passwords are not part of the state).
        public var description: String {
            "\(credentials), \(refresh)\(calls.isEmpty ? "" : ", calls: \(calls)")"
                + "\(passwordChange.map { ", changingPassword: \($0)" } ?? "")\(accountDeletion.map { ", deletingAccount: \($0)" } ?? "")"
        }
    }

    /// Where the renewal of an active session's access token is.
    public enum Refresh: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["idle", "refreshing", "backingOff", "offline"]

        /// No refresh is in flight or due.
        case idle
        /// Exactly one refresh is in flight, carrying the session's refresh token; calls that need a token wait.
        case refreshing(RequestID, attempt: Int)
        /// A refresh failed transiently and is retried at `retryAt` with the same token.
        case backingOff(retryAt: Instant, attempt: Int)
        /// Refresh attempts are exhausted: the session is kept; the next protected call tries again.
        case offline

        /// Whether no refresh is under way: none due (`idle`), or given up for now (`offline`).
        var isIdleOrOffline: Bool {
            switch self {
            case .idle, .offline: true
            case .refreshing, .backingOff: false
            }
        }
    }

    /// What is true while a password step the server demanded comes first.
    public struct PasswordStep: Hashable, Sendable, CustomStringConvertible {
        /// What the vault holds.
        public var credentials: Credentials
        /// The request setting or changing the password, while one is in flight.
        public var pending: RequestID?

        /// Creates the state.
        public init(credentials: Credentials, pending: RequestID? = nil) {
            self.credentials = credentials
            self.pending = pending
        }

        /// The credentials as they print themselves (tokens only as their kind, the user only by
        /// id) and the request setting or changing the password while one is in flight (the
        /// password itself is not part of the state).
        public var description: String { "\(credentials)\(pending.map { ", pending: \($0)" } ?? "")" }
    }

    /// What the user (or the app on their behalf) can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["call", "logout", "setPassword", "changePassword", "credentialsRejected", "deleteAccount"]

        /// Make a protected call (the runner's `authorized(_:)`); the intent's id names the call.
        case call
        /// Log out: always reaches signed-out with the vault cleared, whatever the server says.
        case logout
        /// Set the first password.
        case setPassword(PasswordInput)
        /// Change the password.
        case changePassword(old: PasswordInput, new: PasswordInput)
        /// Another channel (the realtime connection) was refused with the current token.
        case credentialsRejected
        /// Delete the account: once the server confirms, the session ends (``SignOutReason/accountDeleted``).
        case deleteAccount
    }

    /// Starts signed out.
    public var initialPhase: Phase { .signedOut }

    /// The proactive refresh, the refresh retry and the expiry of a session without refresh.
    public var timers: [TimerID] { [.proactiveRefresh, .refreshRetry, .sessionExpiry] }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, let now): handle(intent, id, at: now, &phase, &requests)
        case .withdrawn(let intent, _): withdraw(intent, &phase, &requests)
        case .reply(let id, let reply, let now): handle(reply, to: id, at: now, &phase, &requests)
        case .tick(let now): tick(at: now, &phase, &requests)
        case .launched(let stored, let owed, let now): launch(stored, owed: owed, at: now, &phase, &requests)
        }
    }

    // MARK: Starting and ending

    /// Begins a session from a sign-in answer received at `now`: persist (with the password
    /// change the answer demands, if any), tell the UI, and land in the phase the answer demands
    /// (password to set or change, or active). The server answered, so it can be reached again:
    /// an owed revocation not under way gets its next round (``OwedRevocation``). Where the
    /// backend's revocation would end this new session too
    /// (``SessionPolicy/revocationEndsEverySession``), the owed revocations are given up instead
    /// and reported: the new session must not be ended, and a later logout of the same user ends
    /// the old sessions with it.
    public func begin(_ grant: Grant, at now: Instant, _ requests: inout FlowContext) -> (Phase, [AuthEffect]) {
        var credentials = Credentials(grant, receivedAt: now)
        if grant.requiresPasswordChange { credentials.user.passwordChangeRequired = true }
        let (phase, effects) = enter(credentials, at: now, [.persist(credentials), .emit(.signedIn(credentials.user))])
        guard !requests.owedRevocations.isEmpty else { return (phase, effects) }
        guard policy.revocationEndsEverySession else { return (phase, effects + resumeOwedRevocations(&requests)) }
        let idle = idleOwedRevocations(requests)
        guard !idle.isEmpty else { return (phase, effects) }
        for owed in idle { requests.settleOwed(owed.refreshToken) }
        return (phase, effects + [.persistOwedRevocations(requests.owedRevocations), .emit(.serverSessionNotConfirmed(.network))])
    }

    /// Lands in the phase stored, restored or refreshed credentials call for: a password step the
    /// server demanded comes first, whichever way the session began.
    func enter(_ credentials: Credentials, at now: Instant, _ effects: [AuthEffect]) -> (Phase, [AuthEffect]) {
        var effects = effects
        if credentials.user.passwordChangeRequired {
            effects.append(.emit(.passwordChangeRequired))
            effects += credentials.expiresAt.map { [.schedule(.sessionExpiry, at: $0)] } ?? []
            return (.passwordChangeRequired(PasswordStep(credentials: credentials)), effects)
        }
        if policy.supportsPasswordSetup, credentials.user.passwordSet == false {
            effects.append(.emit(.passwordSetupRequired))
            effects += credentials.expiresAt.map { [.schedule(.sessionExpiry, at: $0)] } ?? []
            return (.passwordSetupRequired(PasswordStep(credentials: credentials)), effects)
        }
        effects += deadlines(for: credentials, at: now)
        return (.active(Active(credentials: credentials)), effects)
    }

    /// The wake-up for the next proactive refresh, or for the end of a session without refresh.
    func deadlines(for credentials: Credentials, at now: Instant) -> [AuthEffect] {
        guard let expiresAt = credentials.expiresAt else { return [] }
        switch policy.refresh.applied(to: credentials) {
        case .none: return [.schedule(.sessionExpiry, at: expiresAt)]
        case .rotating(let margin, _, let backoff):
            return [.schedule(.proactiveRefresh, at: refreshDue(expiresAt, margin: margin, pause: backoff, now: now))]
        }
    }

    /// When to refresh: `margin` before expiry (a margin already fitted to the token's lifetime,
    /// ``RefreshPolicy/applied(to:)``), or, when the time left is shorter than the margin
    /// (credentials restored without their lifetime), one `pause` (the policy's backoff) from now
    /// or at expiry if that comes first: a short-lived token never makes a refresh loop without
    /// pause, and the pause does not shrink at each relaunch, as halving the time left did.
    func refreshDue(_ expiresAt: Instant, margin: Interval, pause: Interval, now: Instant) -> Instant {
        let due = expiresAt - margin
        return due > now ? due : min(expiresAt, now + pause)
    }

    /// Whether the access token may be attached at `now`: never once expired, and, with refresh,
    /// not inside the margin either.
    func tokenUsable(_ credentials: Credentials, at now: Instant) -> Bool {
        guard let expiresAt = credentials.expiresAt else { return true }
        switch policy.refresh.applied(to: credentials) {
        case .none: return now < expiresAt
        case .rotating(let margin, _, _): return now < expiresAt - margin
        }
    }

    /// Ends the session: clear the vault first, stop everything in flight, answer every waiting
    /// caller, tell the UI. Whatever the server says, the result is signed-out.
    func end(_ phase: inout Phase, reason: SignOutReason, _ requests: inout FlowContext) -> [AuthEffect] {
        var effects: [AuthEffect] = [.clearCredentials]
        var inFlight: [RequestID] = []
        var calls: [IntentID] = []
        switch phase {
        case .signedOut: break
        case .restoring(let restoring):
            calls = restoring.waiting
            inFlight.append(restoring.request)
        case .passwordSetupRequired(let step), .passwordChangeRequired(let step):
            inFlight += step.pending.map { [$0] } ?? []
        case .active(let active):
            calls = active.calls.map(\.id)
            if case .refreshing(let refresh, _) = active.refresh { inFlight.append(refresh) }
            inFlight += active.passwordChange.map { [$0] } ?? []
            inFlight += active.accountDeletion.map { [$0] } ?? []
            inFlight += active.calls.compactMap(\.request)
        }
        effects += inFlight.map(AuthEffect.cancel)
        effects += [.cancelTimer(.proactiveRefresh), .cancelTimer(.refreshRetry), .cancelTimer(.sessionExpiry)]
        effects += calls.map { .finish($0, .sessionEnded) }
        effects += requests.finishAll(.sessionEnded)  // A password step in flight: every waiter is the session's.
        effects.append(.emit(.signedOut(reason)))
        phase = .signedOut
        return effects
    }
}
