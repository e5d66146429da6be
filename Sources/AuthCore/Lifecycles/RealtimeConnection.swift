/// The realtime connection (VynqTalk `ws://…/ws?token=<auth_token>`): connect only with an access
/// token, reconnect after a drop with bounded exponential backoff and the *current* token, stop
/// after a bounded number of failed attempts (the user reconnects), and report a rejected token so
/// the session can refresh or sign out.
public struct RealtimeConnection: Lifecycle {
    /// The first reconnect delay; each failed attempt doubles it.
    public var initialDelay: Interval
    /// The longest reconnect delay.
    public var maximumDelay: Interval
    /// Failed connection attempts in a row before giving up until the user reconnects.
    public var maxAttempts: Int

    /// A connection policy.
    public init(initialDelay: Interval = .seconds(1), maximumDelay: Interval = .seconds(30), maxAttempts: Int = 5) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maxAttempts = maxAttempts
    }

    /// Where the connection is.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["idle", "connecting", "connected", "waitingToReconnect", "rejected", "gaveUp"]

        /// Not connected and not asked to be.
        case idle
        /// Opening with this token; `attempt` failed attempts came before.
        case connecting(AccessToken, RequestID, attempt: Int)
        /// Open; reconnects will use this token.
        case connected(AccessToken, RequestID)
        /// Dropped; the next attempt, with this token, is at `retryAt`.
        case waitingToReconnect(AccessToken, retryAt: Instant, attempt: Int)
        /// The server refused the token; the session must refresh or sign out before connecting again.
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
            case .connecting(let token, let current, let attempt) where current == id:
                switch reply {
                case .realtimeOpened:
                    phase = .connected(token, id)
                    return [.emit(.realtimeConnected)]
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected
                    return [.fail(.unauthorized(nil))]
                case .failed, .realtimeClosed, .granted, .refreshed, .accepted, .user, .pendingApproval,
                    .verificationRequired, .authorizationURL:
                    return dropped(token, attempt: attempt + 1, at: now, &phase)
                }
            case .connected(let token, let current) where current == id:
                switch reply {
                case .failed(.unauthorized), .failed(.forbidden), .failed(.pendingApproval):
                    phase = .rejected
                    return [.fail(.unauthorized(nil))]
                case .realtimeClosed, .failed:
                    return dropped(token, attempt: 0, at: now, &phase)
                case .realtimeOpened, .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired,
                    .authorizationURL:
                    return []  // Nothing new about an open connection.
                }
            case .idle, .connecting, .connected, .waitingToReconnect, .rejected, .gaveUp:
                return []  // An answer about a connection that is no longer current changes nothing.
            }
        case .tick(let now):
            switch phase {
            case .waitingToReconnect(let token, let retryAt, let attempt) where now >= retryAt:
                let id = requests.issue()
                phase = .connecting(token, id, attempt: attempt)
                return [.send(id, .openRealtime(token))]
            case .idle, .connecting, .connected, .waitingToReconnect, .rejected, .gaveUp:
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
            phase = .connecting(token, id, attempt: 0)
            return [.send(id, .openRealtime(token))]
        case .connecting(_, let id, let attempt):
            phase = .connecting(token, id, attempt: attempt)  // The open under way used the old token; later ones use this.
            return []
        case .connected(_, let id):
            phase = .connected(token, id)
            return []
        case .waitingToReconnect(_, let retryAt, let attempt):
            phase = .waitingToReconnect(token, retryAt: retryAt, attempt: attempt)
            return []
        }
    }

    /// Closes the connection, or stops trying to open it.
    func disconnect(_ phase: inout Phase) -> [AuthEffect] {
        switch phase {
        case .idle, .rejected, .gaveUp:
            phase = .idle
            return []
        case .connecting(_, let id, _):
            phase = .idle
            return [.cancel(id), .emit(.realtimeDisconnected)]
        case .connected(_, let id):
            phase = .idle
            return [.closeRealtime(id), .emit(.realtimeDisconnected)]
        case .waitingToReconnect:
            phase = .idle
            return [.cancelTimer(.reconnect), .emit(.realtimeDisconnected)]
        }
    }

    private func dropped(_ token: AccessToken, attempt: Int, at now: Instant, _ phase: inout Phase) -> [AuthEffect] {
        guard attempt < maxAttempts else {
            phase = .gaveUp(token)
            return [.emit(.realtimeDisconnected)]
        }
        let retryAt = now + delay(afterAttempt: attempt)
        phase = .waitingToReconnect(token, retryAt: retryAt, attempt: attempt)
        return [.schedule(.reconnect, at: retryAt)]
    }
}
