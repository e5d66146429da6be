/// One of the app's protected calls that has not been answered to its caller yet.
public struct PendingCall: Hashable, Sendable, CustomStringConvertible {
    /// Where the call is.
    public enum Stage: Hashable, Sendable {
        /// Sent as this request, with this access token.
        case sent(RequestID, with: AccessToken)
        /// Waiting for the one refresh in flight (or due) to give it a usable token.
        case waitingForToken
    }

    /// The caller's id.
    public var id: CallID
    /// Where the call is.
    public var stage: Stage
    /// True once the call was replayed after a 401: a second 401 goes to the caller, never loops.
    public var replayed: Bool

    /// Creates a pending call.
    public init(id: CallID, stage: Stage, replayed: Bool) {
        self.id = id
        self.stage = stage
        self.replayed = replayed
    }

    /// Redacted summary.
    public var description: String {
        switch stage {
        case .sent(let request, _): "\(id)(sent \(request)\(replayed ? ", replayed" : ""))"
        case .waitingForToken: "\(id)(waiting\(replayed ? ", replayed" : ""))"
        }
    }
}

/// A signed-in session: the credentials, the protected calls not yet answered to their callers,
/// and a password change in flight, if any.
public struct Session: Hashable, Sendable, CustomStringConvertible {
    /// What the vault holds.
    public var credentials: Credentials
    /// Unanswered protected calls, in call order.
    public var calls: [PendingCall]
    /// A password change in flight.
    public var passwordChange: RequestID?

    /// Creates a session.
    public init(credentials: Credentials, calls: [PendingCall] = [], passwordChange: RequestID? = nil) {
        self.credentials = credentials
        self.calls = calls
        self.passwordChange = passwordChange
    }

    /// The bearer for protected requests.
    public var bearer: Bearer { Bearer(token: credentials.accessToken, userID: credentials.user.id) }

    /// Redacted summary.
    public var description: String {
        "session(\(credentials)\(calls.isEmpty ? "" : ", calls: \(calls)")\(passwordChange.map { ", changingPassword: \($0)" } ?? ""))"
    }
}

/// How a backend keeps a session alive.
public enum RefreshPolicy: Hashable, Sendable {
    /// No refresh token (Anonymous Wall, Subspace, VynqTalk): when the token is known to have
    /// expired, or a protected call is refused, the session ends.
    case none
    /// Rotating refresh (Everday, Hero365): refresh `margin` before expiry and on a 401; transient
    /// failures are retried up to `retryLimit` times, waiting `backoff`, then twice as long, and so on.
    case rotating(margin: Interval, retryLimit: Int, backoff: Interval)
}

/// What to do with stored credentials at launch.
public enum RestorePolicy: Hashable, Sendable {
    /// Use them as they are (Anonymous Wall, VynqTalk); a 401 later ends the session.
    case trustStored
    /// Ask the server who the token belongs to (Subspace `/auth/me`, Hero365 `/users/me`).
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
    /// Revoke the refresh token at logout (Everday `/auth/logout`), best effort.
    public var revokesOnLogout: Bool
    /// A 403 on a protected call ends the session too (VynqTalk: "WHEN the token expires (401/403)
    /// THEN log the user out"); elsewhere a 403 is only that call's answer.
    public var forbiddenEndsSession: Bool
    /// The backend can set a first password (Anonymous Wall `/password/set`).
    public var supportsPasswordSetup: Bool
    /// The backend can change a password (Anonymous Wall `/password/change`). Without it a
    /// demanded change (Everday's `RequirePasswordChange`) is refused as unsupported and the user
    /// logs out to reset the password instead.
    public var supportsPasswordChange: Bool

    /// Creates a policy.
    public init(
        refresh: RefreshPolicy, restore: RestorePolicy, revokesOnLogout: Bool = false, forbiddenEndsSession: Bool = false,
        supportsPasswordSetup: Bool = false, supportsPasswordChange: Bool = false
    ) {
        self.refresh = refresh
        self.restore = restore
        self.revokesOnLogout = revokesOnLogout
        self.forbiddenEndsSession = forbiddenEndsSession
        self.supportsPasswordSetup = supportsPasswordSetup
        self.supportsPasswordChange = supportsPasswordChange
    }
}

/// The signed-in session: rotating refresh (single flight, proactive and on 401, replay once),
/// restore on launch, logout that always reaches signed-out, and the password steps a session
/// may demand before anything else (set it, Anonymous Wall; change it, Everday).
///
/// Only definitive refresh answers (400/401/403) end a session; network errors, timeouts, 5xx,
/// 429 and unreadable answers keep it and retry a bounded number of times with the same token,
/// then wait for the user. A rotated pair is persisted before the new access token is used, and
/// an old refresh token is never sent once its successor arrived.
public struct SessionLifecycle: Lifecycle {
    /// How this backend's session behaves.
    public var policy: SessionPolicy

    /// A session lifecycle with `policy`.
    public init(policy: SessionPolicy) { self.policy = policy }

    /// Where the user is.
    ///
    /// The cases holding a session or credentials are `indirect`: copying a phase is then one
    /// reference count, not a retain of every token and string in the session.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["signedOut", "restoring", "active", "refreshing", "refreshBackoff", "offline", "passwordSetupRequired", "passwordChangeRequired"]

        /// Nobody is signed in; nothing is stored.
        case signedOut
        /// The app launched with stored credentials and asked the server whether they still hold;
        /// protected calls made meanwhile wait in the session for the answer.
        indirect case restoring(Session, RequestID)
        /// Signed in and usable; protected calls may be in flight.
        indirect case active(Session)
        /// Signed in; exactly one refresh is in flight, carrying the session's refresh token; calls that need a token wait.
        indirect case refreshing(Session, RequestID, attempt: Int)
        /// Signed in; a refresh failed transiently and is retried at `retryAt` with the same token.
        indirect case refreshBackoff(Session, retryAt: Instant, attempt: Int)
        /// Signed in, refresh attempts exhausted: the session is kept; the next protected call tries again.
        indirect case offline(Session)
        /// Signed in with the password not yet set (Anonymous Wall): only setting it, or logging out, is allowed.
        indirect case passwordSetupRequired(Credentials, pending: RequestID?)
        /// Signed in, but the server demands a new password (Everday): only changing it, or logging out, is allowed.
        indirect case passwordChangeRequired(Credentials, pending: RequestID?)
    }

    /// What the user (or the app on their behalf) can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["call", "logout", "setPassword", "changePassword", "credentialsRejected"]

        /// Make a protected call (the runner's `authorized(_:)`).
        case call(CallID)
        /// Log out: always reaches signed-out with the vault cleared, whatever the server says.
        case logout
        /// Set the first password.
        case setPassword(PasswordInput)
        /// Change the password.
        case changePassword(old: PasswordInput, new: PasswordInput)
        /// Another channel (the realtime connection) was refused with the current token.
        case credentialsRejected
    }

    /// Starts signed out.
    public var initialPhase: Phase { .signedOut }

    /// The credentials the phase holds, if signed in (or restoring).
    public static func credentials(in phase: Phase) -> Credentials? {
        switch phase {
        case .signedOut: nil
        case .passwordSetupRequired(let credentials, _), .passwordChangeRequired(let credentials, _):
            credentials
        case .restoring(let session, _), .active(let session), .refreshing(let session, _, _), .refreshBackoff(let session, _, _),
            .offline(let session):
            session.credentials
        }
    }

    /// The protected calls the phase has not answered yet.
    public static func calls(in phase: Phase) -> [PendingCall] {
        switch phase {
        case .restoring(let session, _), .active(let session), .refreshing(let session, _, _), .refreshBackoff(let session, _, _),
            .offline(let session):
            session.calls
        case .signedOut, .passwordSetupRequired, .passwordChangeRequired:
            []
        }
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let now): handle(intent, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): handle(reply, to: id, at: now, &phase, &requests)
        case .tick(let now): tick(at: now, &phase, &requests)
        case .launched(let stored, let now): launch(stored, at: now, &phase, &requests)
        }
    }

    // MARK: Starting and ending

    /// Begins a session from a sign-in answer received at `now`: persist (with the password
    /// change the answer demands, if any), tell the UI, and land in the phase the answer demands
    /// (password to set or change, or active).
    public func begin(_ grant: Grant, at now: Instant, _ requests: inout FlowContext) -> (Phase, [AuthEffect]) {
        var credentials = Credentials(grant, receivedAt: now)
        if grant.requiresPasswordChange { credentials.user.passwordChangeRequired = true }
        return enter(credentials, at: now, [.persist(credentials), .emit(.signedIn(credentials.user))])
    }

    /// Lands in the phase stored, restored or refreshed credentials call for: a password step the
    /// server demanded comes first, whichever way the session began.
    private func enter(_ credentials: Credentials, at now: Instant, _ effects: [AuthEffect]) -> (Phase, [AuthEffect]) {
        var effects = effects
        if credentials.user.passwordChangeRequired {
            effects.append(.emit(.passwordChangeRequired))
            effects += credentials.expiresAt.map { [.schedule(.sessionExpiry, at: $0)] } ?? []
            return (.passwordChangeRequired(credentials, pending: nil), effects)
        }
        if policy.supportsPasswordSetup, credentials.user.passwordSet == false {
            effects.append(.emit(.passwordSetupRequired))
            effects += credentials.expiresAt.map { [.schedule(.sessionExpiry, at: $0)] } ?? []
            return (.passwordSetupRequired(credentials, pending: nil), effects)
        }
        effects += deadlines(for: credentials, at: now)
        return (.active(Session(credentials: credentials)), effects)
    }

    /// The wake-up for the next proactive refresh, or for the end of a session without refresh.
    private func deadlines(for credentials: Credentials, at now: Instant) -> [AuthEffect] {
        guard let expiresAt = credentials.expiresAt else { return [] }
        switch policy.refresh {
        case .none: return [.schedule(.sessionExpiry, at: expiresAt)]
        case .rotating(let margin, _, _): return [.schedule(.proactiveRefresh, at: refreshDue(expiresAt, margin: margin, now: now))]
        }
    }

    /// When to refresh: `margin` before expiry, or halfway there when the token lives shorter than
    /// the margin (so a short-lived token never makes a refresh loop without pause).
    private func refreshDue(_ expiresAt: Instant, margin: Interval, now: Instant) -> Instant {
        let due = expiresAt - margin
        return due > now ? due : now + Interval(milliseconds: max(0, (expiresAt - now).milliseconds / 2))
    }

    /// Whether the access token may be attached at `now`: never once expired, and, with refresh,
    /// not inside the margin either.
    private func tokenUsable(_ credentials: Credentials, at now: Instant) -> Bool {
        guard let expiresAt = credentials.expiresAt else { return true }
        switch policy.refresh {
        case .none: return now < expiresAt
        case .rotating(let margin, _, _): return now < expiresAt - margin
        }
    }

    /// Ends the session: clear the vault first, stop everything in flight, answer every waiting
    /// caller, tell the UI. Whatever the server says, the result is signed-out.
    private func end(_ phase: inout Phase, reason: SignOutReason) -> [AuthEffect] {
        var effects: [AuthEffect] = [.clearCredentials]
        var inFlight: [RequestID] = []
        var calls: [PendingCall] = []
        switch phase {
        case .signedOut: break
        case .restoring(let session, let id):
            calls = session.calls
            inFlight.append(id)
        case .passwordSetupRequired(_, let pending), .passwordChangeRequired(_, let pending):
            inFlight += pending.map { [$0] } ?? []
        case .active(let session), .refreshBackoff(let session, _, _), .offline(let session):
            calls = session.calls
            inFlight += session.passwordChange.map { [$0] } ?? []
        case .refreshing(let session, let id, _):
            calls = session.calls
            inFlight.append(id)
            inFlight += session.passwordChange.map { [$0] } ?? []
        }
        for call in calls { if case .sent(let id, _) = call.stage { inFlight.append(id) } }
        effects += inFlight.map(AuthEffect.cancel)
        effects += [.cancelTimer(.proactiveRefresh), .cancelTimer(.refreshRetry), .cancelTimer(.sessionExpiry)]
        effects += calls.map { .finishCall($0.id, .sessionEnded) }
        effects.append(.emit(.signedOut(reason)))
        phase = .signedOut
        return effects
    }

    // MARK: Launch

    private func launch(_ stored: StoredCredentials, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            switch stored {
            case .none: return []
            case .unreadable: return [.emit(.vaultUnreadable)]  // Not "no session": nothing is deleted.
            case .stored(let credentials): return restore(credentials, at: now, &phase, &requests)
            }
        case .restoring, .active, .refreshing, .refreshBackoff, .offline, .passwordSetupRequired, .passwordChangeRequired:
            return []  // The app launches once; a session in memory already knows more than the vault.
        }
    }

    private func restore(_ credentials: Credentials, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        let expired = credentials.expiresAt.map { now >= $0 } ?? false
        let canRefresh = credentials.refreshToken != nil && policy.refresh != .none
        switch policy.restore {
        case .refresh where canRefresh, .fetchCurrentUser where expired && canRefresh:
            let id = requests.issue()
            phase = .restoring(Session(credentials: credentials), id)
            return [.send(id, .refresh(credentials.refreshToken!))]
        case .fetchCurrentUser where !expired:
            let id = requests.issue()
            phase = .restoring(Session(credentials: credentials), id)
            return [.send(id, .currentUser(Bearer(token: credentials.accessToken, userID: credentials.user.id)))]
        case .trustStored where !expired:
            let (next, effects) = enter(credentials, at: now, [.emit(.signedIn(credentials.user))])
            phase = next
            return effects
        case .refresh, .fetchCurrentUser, .trustStored:
            return [.clearCredentials, .emit(.signedOut(.tokenExpired))]  // Nothing left that could work.
        }
    }

    // MARK: Intents

    private func handle(_ intent: Intent, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch intent {
        case .logout: return logout(&phase, &requests)
        case .call(let call): return startCall(call, at: now, &phase, &requests)
        case .setPassword(let raw): return setPassword(raw, at: now, &phase, &requests)
        case .changePassword(let old, let new): return changePassword(old: old, new: new, at: now, &phase, &requests)
        case .credentialsRejected: return credentialsRejected(at: now, &phase, &requests)
        }
    }

    private func logout(_ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            return [.clearCredentials, .emit(.signedOut(.userRequested))]  // Idempotent, and safe if the vault held something unread.
        case .restoring, .active, .refreshing, .refreshBackoff, .offline, .passwordSetupRequired, .passwordChangeRequired:
            let credentials = Self.credentials(in: phase)
            var effects = end(&phase, reason: .userRequested)
            if policy.revokesOnLogout, let credentials, let refreshToken = credentials.refreshToken {
                // Best effort, after the vault is cleared: its answer arrives signed-out and changes nothing.
                let bearer = Bearer(token: credentials.accessToken, userID: credentials.user.id)
                effects.insert(.send(requests.issue(), .revoke(refreshToken, bearer)), at: effects.count - 1)
            }
            return effects
        }
    }

    private func startCall(_ call: CallID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        if Self.calls(in: phase).contains(where: { $0.id == call }) {
            // A second call under a pending call's id: refused without finishing it, so the one
            // answer still reaches the one caller waiting for it.
            return [.reject(.busy)]
        }
        switch phase {
        case .signedOut:
            return [.finishCall(call, .rejected(.notSignedIn))]
        case .restoring(var session, let id):
            session.calls.append(PendingCall(id: call, stage: .waitingForToken, replayed: false))
            phase = .restoring(session, id)
            return []  // Answered once the server has said whether the stored session holds.
        case .passwordSetupRequired:
            return [.finishCall(call, .rejected(.passwordSetupRequired))]
        case .passwordChangeRequired:
            return [.finishCall(call, .rejected(.passwordChangeRequired))]
        case .refreshing(var session, let id, let attempt):
            session.calls.append(PendingCall(id: call, stage: .waitingForToken, replayed: false))
            phase = .refreshing(session, id, attempt: attempt)
            return []
        case .refreshBackoff(var session, let retryAt, let attempt):
            session.calls.append(PendingCall(id: call, stage: .waitingForToken, replayed: false))
            phase = .refreshBackoff(session, retryAt: retryAt, attempt: attempt)
            return []
        case .active(var session), .offline(var session):
            if tokenUsable(session.credentials, at: now) {
                let id = requests.issue()
                session.calls.append(PendingCall(id: call, stage: .sent(id, with: session.credentials.accessToken), replayed: false))
                phase = reattach(session, to: phase)
                return [.send(id, .protected(call, session.bearer))]
            }
            guard case .rotating = policy.refresh else {
                return end(&phase, reason: .tokenExpired) + [.finishCall(call, .sessionEnded)]
            }
            session.calls.append(PendingCall(id: call, stage: .waitingForToken, replayed: false))
            return startRefresh(session, attempt: 0, &phase, &requests)
        }
    }

    /// The same phase case holding an updated session (for phases that hold one).
    private func reattach(_ session: Session, to phase: Phase) -> Phase {
        switch phase {
        case .active: .active(session)
        case .offline: .offline(session)
        case .refreshing(_, let id, let attempt): .refreshing(session, id, attempt: attempt)
        case .refreshBackoff(_, let retryAt, let attempt): .refreshBackoff(session, retryAt: retryAt, attempt: attempt)
        case .restoring(_, let id): .restoring(session, id)
        case .signedOut, .passwordSetupRequired, .passwordChangeRequired: phase
        }
    }

    private func startRefresh(_ session: Session, attempt: Int, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        guard let refreshToken = session.credentials.refreshToken else {
            phase = .active(session)
            return end(&phase, reason: .sessionExpired)
        }
        let id = requests.issue()
        phase = .refreshing(session, id, attempt: attempt)
        return [.cancelTimer(.proactiveRefresh), .send(id, .refresh(refreshToken))]
    }

    private func setPassword(_ raw: PasswordInput, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .passwordSetupRequired(let credentials, nil):
            guard tokenUsable(credentials, at: now) else { return end(&phase, reason: .tokenExpired) }
            var effects: [AuthEffect] = []
            guard let password = Password.validate(raw).valueOrReject(into: &effects) else { return effects }
            let id = requests.issue()
            phase = .passwordSetupRequired(credentials, pending: id)
            return [.send(id, .setPassword(password, Bearer(token: credentials.accessToken, userID: credentials.user.id)))]
        case .passwordSetupRequired, .passwordChangeRequired(_, .some):
            return [.reject(.busy)]
        case .passwordChangeRequired(_, nil):
            return [.reject(.passwordChangeRequired)]
        case .signedOut, .restoring:
            return [.reject(.notSignedIn)]
        case .active, .refreshing, .refreshBackoff, .offline:
            return [.reject(.notAvailableNow)]  // The password is already set.
        }
    }

    private func changePassword(old rawOld: PasswordInput, new rawNew: PasswordInput, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        guard policy.supportsPasswordChange else { return [.reject(.unsupported)] }
        var effects: [AuthEffect] = []
        func validated() -> (Password, Password)? {
            guard let old = Password.validate(rawOld).valueOrReject(into: &effects),
                let new = Password.validate(rawNew).valueOrReject(into: &effects)
            else { return nil }
            return (old, new)
        }
        switch phase {
        case .passwordChangeRequired(let credentials, nil):
            guard tokenUsable(credentials, at: now) else { return end(&phase, reason: .tokenExpired) }
            guard let (old, new) = validated() else { return effects }
            let id = requests.issue()
            phase = .passwordChangeRequired(credentials, pending: id)
            return [.send(id, .changePassword(old: old, new: new, Bearer(token: credentials.accessToken, userID: credentials.user.id)))]
        case .active(var session) where session.passwordChange == nil && tokenUsable(session.credentials, at: now):
            guard let (old, new) = validated() else { return effects }
            let id = requests.issue()
            session.passwordChange = id
            phase = .active(session)
            return [.send(id, .changePassword(old: old, new: new, session.bearer))]
        case .passwordChangeRequired(_, .some), .active, .refreshing, .refreshBackoff, .offline:
            return [.reject(.busy)]  // A change in flight, or the token is being (or must first be) renewed.
        case .passwordSetupRequired:
            return [.reject(.passwordSetupRequired)]
        case .signedOut, .restoring:
            return [.reject(.notSignedIn)]
        }
    }

    private func credentialsRejected(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut, .restoring, .refreshing, .refreshBackoff:
            return []  // Nothing to reject, or a refresh is already on its way.
        case .active(let session), .offline(let session):
            guard case .rotating = policy.refresh else { return end(&phase, reason: .tokenRejected) }
            return startRefresh(session, attempt: 0, &phase, &requests)
        case .passwordSetupRequired, .passwordChangeRequired:
            guard case .rotating = policy.refresh else { return end(&phase, reason: .tokenRejected) }
            return []  // The password step's own answer decides.
        }
    }

    // MARK: Answers

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .restoring(let session, let current) where current == id:
            return restored(session, reply, at: now, &phase, &requests)
        case .refreshing(let session, let current, let attempt) where current == id:
            return refreshed(session, reply, attempt: attempt, at: now, &phase, &requests)
        case .passwordSetupRequired(let credentials, let pending) where pending == id:
            switch reply.acceptedOrFailure {
            case .success:
                var updated = credentials
                updated.user.passwordSet = true
                if case .user(let user) = reply { updated.user = user; updated.user.passwordSet = true }
                let (next, effects) = enter(updated, at: now, [.persist(updated), .emit(.passwordSet)])
                phase = next
                return effects
            case .failure(let failure):
                phase = .passwordSetupRequired(credentials, pending: nil)
                return passwordStepFailed(failure, &phase)
            }
        case .passwordChangeRequired(let credentials, let pending) where pending == id:
            switch reply.acceptedOrFailure {
            case .success:
                var updated = credentials
                updated.user.passwordChangeRequired = false
                let (next, effects) = enter(updated, at: now, [.persist(updated), .emit(.passwordChanged)])
                phase = next
                return effects
            case .failure(let failure):
                phase = .passwordChangeRequired(credentials, pending: nil)
                return passwordStepFailed(failure, &phase)
            }
        case .active(var session) where session.passwordChange == id:
            session.passwordChange = nil
            phase = .active(session)
            switch reply.acceptedOrFailure {
            case .success: return [.emit(.passwordChanged)]
            case .failure(let failure): return passwordStepFailed(failure, &phase)
            }
        case .active(let session), .refreshing(let session, _, _), .refreshBackoff(let session, _, _), .offline(let session):
            guard let index = session.calls.firstIndex(where: { if case .sent(id, _) = $0.stage { true } else { false } }) else {
                return []  // An answer to a request that is no longer current changes nothing.
            }
            return callAnswered(session, index, reply, at: now, &phase, &requests)
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    private func passwordStepFailed(_ failure: AuthFailure, _ phase: inout Phase) -> [AuthEffect] {
        switch failure {
        case .unauthorized where policy.refresh == .none:
            return [.fail(failure)] + end(&phase, reason: .tokenRejected)
        case .badRequest, .unauthorized, .pendingApproval, .forbidden, .notFound, .conflict, .rateLimited, .server,
            .network, .timeout, .malformed:
            return [.fail(failure)]
        }
    }

    private func restored(_ session: Session, _ reply: Reply, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        let credentials = session.credentials
        switch reply {
        case .refreshed(let tokens):
            let renewed = renew(credentials, with: tokens, at: now)
            let (next, effects) = enter(renewed, at: now, [.persist(renewed), .emit(.signedIn(renewed.user)), .emit(.tokenRefreshed)])
            phase = next
            return effects + release(session.calls, &phase, &requests)
        case .user(let user):
            var confirmed = credentials
            confirmed.user = user
            // What the server answers for `/me` does not lift a password change it demanded at sign-in.
            confirmed.user.passwordChangeRequired = user.passwordChangeRequired || credentials.user.passwordChangeRequired
            let (next, effects) = enter(confirmed, at: now, [.persist(confirmed), .emit(.signedIn(confirmed.user))])
            phase = next
            return effects + release(session.calls, &phase, &requests)
        case .failed(let failure) where !failure.isTransient:
            return end(&phase, reason: .sessionExpired)
        case .failed(let failure):
            return keep(session, unconfirmed: failure, at: now, &phase, &requests)
        case .granted, .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .realtimeOpened, .realtimeClosed:
            return keep(session, unconfirmed: .malformed, at: now, &phase, &requests)
        }
    }

    /// Keeps a stored session the server could not confirm (no network, 5xx, 429, an unreadable
    /// answer): offline, so a later call or the next launch tries again — unless it owes a password
    /// step, which still comes first. Calls that waited fail with the reason.
    private func keep(
        _ session: Session, unconfirmed failure: AuthFailure, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let credentials = session.credentials
        let stepDue = credentials.user.passwordChangeRequired || (policy.supportsPasswordSetup && credentials.user.passwordSet == false)
        if stepDue {
            let (next, effects) = enter(credentials, at: now, [.emit(.signedIn(credentials.user)), .fail(failure)])
            phase = next
            return effects + release(session.calls, &phase, &requests)
        }
        phase = .offline(Session(credentials: credentials))
        return [.emit(.signedIn(credentials.user)), .fail(failure), .emit(.offline)]
            + session.calls.map { .finishCall($0.id, .failed(failure)) }
    }

    /// Sends the calls that waited for a restore with the session's token, or refuses them when
    /// the restored session must first set or change its password.
    private func release(_ waiting: [PendingCall], _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        guard !waiting.isEmpty else { return [] }
        switch phase {
        case .active(var session):
            var effects: [AuthEffect] = []
            for call in waiting {
                let id = requests.issue()
                session.calls.append(PendingCall(id: call.id, stage: .sent(id, with: session.credentials.accessToken), replayed: false))
                effects.append(.send(id, .protected(call.id, session.bearer)))
            }
            phase = .active(session)
            return effects
        case .passwordSetupRequired:
            return waiting.map { .finishCall($0.id, .rejected(.passwordSetupRequired)) }
        case .passwordChangeRequired:
            return waiting.map { .finishCall($0.id, .rejected(.passwordChangeRequired)) }
        case .signedOut, .restoring, .refreshing, .refreshBackoff, .offline:
            return waiting.map { .finishCall($0.id, .sessionEnded) }  // `enter` lands in none of these.
        }
    }

    /// The credentials after a refresh: a new access token and expiry, the rotated refresh token
    /// or, when the answer carried none, the one already held.
    private func renew(_ credentials: Credentials, with tokens: TokenRefresh, at now: Instant) -> Credentials {
        Credentials(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? credentials.refreshToken,
            expiresAt: tokens.expiry.deadline(receivedAt: now), user: credentials.user)
    }

    private func refreshed(_ session: Session, _ reply: Reply, attempt: Int, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch reply {
        case .refreshed(let tokens):
            var renewed = session
            renewed.credentials = renew(session.credentials, with: tokens, at: now)
            // Persist first: the new pair is stored before the new access token is used.
            var effects: [AuthEffect] = [.persist(renewed.credentials), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry)]
            for index in renewed.calls.indices where renewed.calls[index].stage == .waitingForToken {
                let id = requests.issue()
                renewed.calls[index].stage = .sent(id, with: renewed.credentials.accessToken)
                effects.append(.send(id, .protected(renewed.calls[index].id, renewed.bearer)))
            }
            effects += deadlines(for: renewed.credentials, at: now)
            phase = .active(renewed)
            return effects
        case .failed(let failure) where !failure.isTransient:
            return end(&phase, reason: .sessionExpired)
        case .failed(let failure):
            return refreshFailedTransiently(session, failure, attempt: attempt, at: now, &phase)
        case .granted, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .realtimeOpened, .realtimeClosed:
            return refreshFailedTransiently(session, .malformed, attempt: attempt, at: now, &phase)
        }
    }

    private func refreshFailedTransiently(_ session: Session, _ failure: AuthFailure, attempt: Int, at now: Instant, _ phase: inout Phase) -> [AuthEffect] {
        guard case .rotating(_, let retryLimit, let backoff) = policy.refresh, attempt + 1 < retryLimit else {
            var kept = session
            let waiting = kept.calls.filter { $0.stage == .waitingForToken }
            kept.calls.removeAll { $0.stage == .waitingForToken }
            phase = .offline(kept)
            return waiting.map { .finishCall($0.id, .failed(failure)) } + [.emit(.offline)]
        }
        var delay = backoff * (1 << Int64(min(attempt, 16)))
        if case .rateLimited(let retryAfter?) = failure, retryAfter > delay { delay = retryAfter }
        let retryAt = now + delay
        phase = .refreshBackoff(session, retryAt: retryAt, attempt: attempt + 1)
        return [.schedule(.refreshRetry, at: retryAt), .emit(.refreshRetryScheduled(at: retryAt))]
    }

    private func callAnswered(_ session: Session, _ index: Int, _ reply: Reply, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        var session = session
        let call = session.calls[index]
        guard case .sent(let id, let token) = call.stage else { return [] }
        let refused: Bool =
            switch reply {
            case .failed(.unauthorized): true
            case .failed(.forbidden), .failed(.pendingApproval): policy.forbiddenEndsSession
            case .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL,
                .realtimeOpened, .realtimeClosed, .failed:
                false
            }
        guard refused, !call.replayed else {
            session.calls.remove(at: index)
            phase = reattach(session, to: phase)
            return [.finishCall(call.id, .answered(id))]
        }
        guard case .rotating = policy.refresh else {
            // No refresh: the token is dead (VynqTalk's automatic logout).
            return end(&phase, reason: .tokenRejected)
        }
        session.calls[index].replayed = true
        if token != session.credentials.accessToken, tokenUsable(session.credentials, at: now) {
            // Sent before a refresh finished: replay at once with the new token, no second refresh.
            let replay = requests.issue()
            session.calls[index].stage = .sent(replay, with: session.credentials.accessToken)
            phase = reattach(session, to: phase)
            return [.send(replay, .protected(call.id, session.bearer))]
        }
        session.calls[index].stage = .waitingForToken
        switch phase {
        case .refreshing, .refreshBackoff:
            phase = reattach(session, to: phase)  // Join the refresh already under way.
            return []
        case .active, .offline:
            return startRefresh(session, attempt: 0, &phase, &requests)
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired:
            return []
        }
    }

    // MARK: Time

    private func tick(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .active(let session):
            guard let expiresAt = session.credentials.expiresAt else { return [] }
            switch policy.refresh {
            case .none:
                return now >= expiresAt ? end(&phase, reason: .tokenExpired) : []
            case .rotating(let margin, _, _):
                return now >= expiresAt - margin ? startRefresh(session, attempt: 0, &phase, &requests) : []
            }
        case .refreshBackoff(let session, let retryAt, let attempt) where now >= retryAt:
            return startRefresh(session, attempt: attempt, &phase, &requests)
        case .passwordSetupRequired(let credentials, nil), .passwordChangeRequired(let credentials, nil):
            // These phases allow nothing else, refresh included: once the token is dead, sign in again.
            guard let expiresAt = credentials.expiresAt, now >= expiresAt else { return [] }
            return end(&phase, reason: .tokenExpired)
        case .signedOut, .restoring, .refreshing, .refreshBackoff, .offline, .passwordSetupRequired, .passwordChangeRequired:
            return []  // Nothing is due; offline waits for the user; a password step in flight is the server's to judge.
        }
    }
}
