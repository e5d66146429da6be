/// The realtime connection (VynqTalk `ws://…/ws?token=<auth_token>`): connect only with an access
/// token, reconnect after a drop with bounded exponential backoff and the *current* token, stop
/// after a bounded number of failed attempts (the user reconnects), and report a rejected token so
/// the session can refresh or sign out.
///
/// A server may refuse a token *after* accepting the upgrade: VynqTalk's deployed server answers
/// 101, then closes at once when the token is missing, invalid or its user suspended. So an open
/// connection counts as established only once it stayed open for ``stableAfter`` (a timer the
/// reducer schedules when it opens: no clock is read). Until then it is ``Phase/settling(_:_:stableAt:attempt:flaps:)``,
/// and a close there is a *flap*: it is a failed attempt (the backoff grows instead of starting
/// over). A flaky mobile network closes sockets early too, so ``maxFlaps`` flaps in a row do not
/// by themselves refuse the token: the server is asked (``Phase/checkingToken(_:_:attempt:)``,
/// the current-user endpoint with the session's bearer, which ``SessionWithRealtime`` sends).
/// 401 or 403 there is a refused token, reported as one; a user (the token is good: the network
/// flaps) or a failure that says nothing of the token backs off and reconnects, the flaps counted
/// afresh, so ``maxAttempts`` still bounds the whole.
public struct RealtimeConnection: Lifecycle {
    /// The first reconnect delay; each failed attempt doubles it.
    public var initialDelay: Interval
    /// The longest reconnect delay.
    public var maximumDelay: Interval
    /// Failed connection attempts in a row before giving up until the user reconnects.
    public var maxAttempts: Int
    /// How long an open connection must stay open before it counts as established: a close
    /// before then is a flap, and only an established connection starts its backoff over.
    public var stableAfter: Interval
    /// Flaps in a row (opens closed before ``stableAfter``) after which the server is asked
    /// whether it still accepts the token. At least 1; keep it at most ``maxAttempts`` so a refused
    /// token is found out before the connection gives up.
    public var maxFlaps: Int

    /// A connection policy.
    public init(
        initialDelay: Interval = .seconds(1), maximumDelay: Interval = .seconds(30), maxAttempts: Int = 5, stableAfter: Interval = .seconds(10),
        maxFlaps: Int = 2
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maxAttempts = maxAttempts
        self.stableAfter = stableAfter
        self.maxFlaps = max(1, maxFlaps)
    }

    /// What the app is told when the server, asked after flapping, refused the token.
    public static let flappingMessage = "The server closed the realtime connection right after opening it."

    /// Where the connection is.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = [
            "idle", "connecting", "settling", "connected", "checkingToken", "waitingToReconnect", "rejected", "gaveUp",
        ]

        /// Not connected and not asked to be.
        case idle
        /// Opening with this token; `attempt` failed attempts came before, `flaps` of them opens
        /// closed at once.
        case connecting(AccessToken, RequestID, attempt: Int, flaps: Int)
        /// Open, but not yet for ``RealtimeConnection/stableAfter``: a close before `stableAt` is a
        /// flap. `attempt` and `flaps` are still the failed attempts before this open.
        case settling(AccessToken, RequestID, stableAt: Instant, attempt: Int, flaps: Int)
        /// Open and established; reconnects will use this token.
        case connected(AccessToken, RequestID)
        /// ``RealtimeConnection/maxFlaps`` opens in a row were closed at once: the server is asked
        /// (request `id`, the current-user endpoint) whether it still accepts the token, a flaky
        /// network and a refused token looking alike from the socket. `attempt` failed attempts
        /// came before. The composition sends the request, with the session's bearer.
        case checkingToken(AccessToken, RequestID, attempt: Int)
        /// Dropped; the next attempt, with this token, is at `retryAt`.
        case waitingToReconnect(AccessToken, retryAt: Instant, attempt: Int, flaps: Int)
        /// The server refused the token (at the handshake, or asked after opens closed at once);
        /// the session must refresh or sign out before connecting again.
        case rejected
        /// Too many failed attempts; waits for the user to reconnect.
        case gaveUp(AccessToken)
    }

    /// What the app can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["connect", "disconnect"]

        /// Connect with this token, or use it for every later reconnect if already connected.
        case connect(AccessToken)
        /// Close and stay closed (logout, or the user left the chat).
        case disconnect
    }

    /// Starts idle.
    public var initialPhase: Phase { .idle }

    /// The reconnection and the moment an open connection counts as established.
    public var timers: [TimerID] { [.reconnect, .realtimeStable] }

    private func delay(afterAttempt attempt: Int) -> Interval {
        let doubled = initialDelay * (1 << Int64(min(attempt, 16)))
        return doubled < maximumDelay ? doubled : maximumDelay
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(.connect(let token), let id, _):
            let effects = connect(token, &phase, &requests)
            return effects + [.finish(id, .done)]  // Opening goes on by itself; `realtimeConnected` tells when it opened.
        case .intent(.disconnect, let id, _):
            let wasIdle = phase == .idle
            let effects = disconnect(&phase)
            return effects + [.finish(id, wasIdle ? .unchanged : .done)]
        case .withdrawn:
            return []  // Every intent here is finished at once: nothing waits.
        case .reply(let id, let reply, let now):
            switch phase {
            case .connecting(let token, let current, let attempt, let flaps) where current == id:
                switch reply {
                case .realtimeOpened:
                    let stableAt = now + stableAfter
                    phase = .settling(token, id, stableAt: stableAt, attempt: attempt, flaps: flaps)
                    return [.schedule(.realtimeStable, at: stableAt), .emit(.realtimeConnected)]
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected
                    return [.fail(.unauthorized(nil))]
                case .failed, .realtimeClosed, .granted, .refreshed, .accepted, .user, .pendingApproval,
                    .verificationRequired, .authorizationURL, .nativeSignInRequired, .device:
                    return dropped(token, attempt: attempt + 1, flaps: flaps, at: now, &phase)
                }
            case .settling(let token, let current, _, let attempt, let flaps) where current == id:
                switch reply {
                case .realtimeClosed:
                    // Closed before it was established: a server accepting the upgrade only to
                    // refuse the token, or a network that flaps. After `maxFlaps`, ask the server.
                    guard flaps + 1 < maxFlaps else {
                        phase = .checkingToken(token, requests.issue(), attempt: attempt + 1)
                        return [.cancelTimer(.realtimeStable)]
                    }
                    return [.cancelTimer(.realtimeStable)] + dropped(token, attempt: attempt + 1, flaps: flaps + 1, at: now, &phase)
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected
                    return [.cancelTimer(.realtimeStable), .fail(.unauthorized(nil))]
                case .failed:
                    return [.cancelTimer(.realtimeStable)] + dropped(token, attempt: attempt + 1, flaps: flaps, at: now, &phase)
                case .realtimeOpened, .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired,
                    .authorizationURL, .nativeSignInRequired, .device:
                    return []  // Nothing new about an open connection.
                }
            case .connected(let token, let current) where current == id:
                switch reply {
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected
                    return [.fail(.unauthorized(nil))]
                case .realtimeClosed, .failed:
                    return dropped(token, attempt: 0, flaps: 0, at: now, &phase)  // It was established: start over.
                case .realtimeOpened, .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired,
                    .authorizationURL, .nativeSignInRequired, .device:
                    return []  // Nothing new about an open connection.
                }
            case .checkingToken(let token, let current, let attempt) where current == id:
                switch reply {
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected  // The server refuses the token: the flaps were its refusal.
                    return [.fail(.unauthorized(Self.flappingMessage))]
                case .user, .accepted:
                    // The server knows the token: the network flaps. Back off and reconnect.
                    return dropped(token, attempt: attempt, flaps: 0, at: now, &phase)
                case .failed, .realtimeOpened, .realtimeClosed, .granted, .refreshed, .pendingApproval, .verificationRequired,
                    .authorizationURL, .nativeSignInRequired, .device:
                    // Nothing said about the token (no network, a 5xx, an answer that is no user):
                    // back off and reconnect, as for any failed attempt.
                    return dropped(token, attempt: attempt, flaps: 0, at: now, &phase)
                }
            case .idle, .connecting, .settling, .connected, .checkingToken, .waitingToReconnect, .rejected, .gaveUp:
                return []  // An answer about a connection that is no longer current changes nothing.
            }
        case .tick(let now):
            switch phase {
            case .waitingToReconnect(let token, let retryAt, let attempt, let flaps) where now >= retryAt:
                let id = requests.issue()
                phase = .connecting(token, id, attempt: attempt, flaps: flaps)
                return [.send(id, .openRealtime(token))]
            case .settling(let token, let id, let stableAt, _, _) where now >= stableAt:
                phase = .connected(token, id)  // It stayed open: established, the failed attempts are forgotten.
                return []
            case .idle, .connecting, .settling, .connected, .checkingToken, .waitingToReconnect, .rejected, .gaveUp:
                return []  // Nothing is due.
            }
        case .launched:
            return []  // Connecting is the session's decision, made once it is signed in.
        }
    }

    /// Opens the connection with `token`, or makes the one under way use it from now on.
    func connect(_ token: AccessToken, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .idle, .rejected, .gaveUp:
            let id = requests.issue()
            phase = .connecting(token, id, attempt: 0, flaps: 0)
            return [.send(id, .openRealtime(token))]
        case .connecting(_, let id, let attempt, let flaps):
            phase = .connecting(token, id, attempt: attempt, flaps: flaps)  // The open under way used the old token; later ones use this.
            return []
        case .settling(_, let id, let stableAt, let attempt, let flaps):
            phase = .settling(token, id, stableAt: stableAt, attempt: attempt, flaps: flaps)
            return []
        case .connected(_, let id):
            phase = .connected(token, id)
            return []
        case .checkingToken(_, let id, let attempt):
            phase = .checkingToken(token, id, attempt: attempt)  // The reconnect after the check uses this one.
            return []
        case .waitingToReconnect(_, let retryAt, let attempt, let flaps):
            phase = .waitingToReconnect(token, retryAt: retryAt, attempt: attempt, flaps: flaps)
            return []
        }
    }

    /// Closes the connection, or stops trying to open it.
    func disconnect(_ phase: inout Phase) -> [AuthEffect] {
        switch phase {
        case .idle, .rejected, .gaveUp:
            phase = .idle
            return []
        case .connecting(_, let id, _, _):
            phase = .idle
            return [.cancel(id), .emit(.realtimeDisconnected)]
        case .settling(_, let id, _, _, _):
            phase = .idle
            return [.cancelTimer(.realtimeStable), .closeRealtime(id), .emit(.realtimeDisconnected)]
        case .connected(_, let id):
            phase = .idle
            return [.closeRealtime(id), .emit(.realtimeDisconnected)]
        case .checkingToken(_, let id, _):
            phase = .idle
            return [.cancel(id), .emit(.realtimeDisconnected)]
        case .waitingToReconnect:
            phase = .idle
            return [.cancelTimer(.reconnect), .emit(.realtimeDisconnected)]
        }
    }

    private func dropped(_ token: AccessToken, attempt: Int, flaps: Int, at now: Instant, _ phase: inout Phase) -> [AuthEffect] {
        guard attempt < maxAttempts else {
            phase = .gaveUp(token)
            return [.emit(.realtimeDisconnected)]
        }
        let retryAt = now + delay(afterAttempt: attempt)
        phase = .waitingToReconnect(token, retryAt: retryAt, attempt: attempt, flaps: flaps)
        return [.schedule(.reconnect, at: retryAt)]
    }
}
