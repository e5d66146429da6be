/// A session with a realtime connection beside it (VynqTalk): the connection opens when the
/// session signs in, follows the current token, closes at sign-out, and a token the connection's
/// server refused is reported to the session, which refreshes or signs out. When opens keep being
/// closed at once, the connection asks the server about the token
/// (``RealtimeConnection/Phase/checkingToken(_:_:attempt:)``): this composition sends that
/// request, the current-user endpoint with the session's bearer.
///
/// The glue reacts to *changes* only (the connection became rejected, the token changed, the
/// session signed in or out), so no timer or failure can make it loop.
public struct SessionWithRealtime: SessionRole {
    /// The session.
    public var session: SessionLifecycle
    /// The connection.
    public var connection: RealtimeConnection

    /// Composes a session and a connection.
    public init(session: SessionLifecycle, connection: RealtimeConnection = RealtimeConnection()) {
        self.session = session
        self.connection = connection
    }

    /// Both halves.
    public struct Phase: LifecyclePhase, CustomStringConvertible {
        /// A product of two phases has no cases of its own: its halves declare theirs.
        public static let declaredCases: [String] = []

        /// Where the session is.
        public var session: SessionLifecycle.Phase
        /// Where the connection is.
        public var connection: RealtimeConnection.Phase

        /// Creates a phase.
        public init(session: SessionLifecycle.Phase, connection: RealtimeConnection.Phase) {
            self.session = session
            self.connection = connection
        }

        /// Both halves.
        public var description: String { "\(session) + \(connection)" }
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// `session` and `connection`.
        public static let declaredCases = ["session", "connection"]
        /// For the session.
        case session(SessionLifecycle.Intent)
        /// For the connection (connect again after giving up, or disconnect).
        case connection(RealtimeConnection.Intent)
    }

    /// `intent` routed to the session, or else to the connection.
    public func route<Leaf: Sendable>(_ intent: Leaf) -> Intent? {
        if let own = intent as? Intent { return own }
        if let inner = session.route(intent) { return .session(inner) }
        return connection.route(intent).map(Intent.connection)
    }

    /// Signed out, idle.
    public var initialPhase: Phase { Phase(session: .signedOut, connection: .idle) }

    /// The session's timers and the connection's.
    public var timers: [TimerID] { TimerID.union(session.timers, connection.timers) }

    /// Signed out, idle.
    public var signedOutPhase: Phase { initialPhase }
    /// Whether the session is signed out.
    public func isSignedOut(_ phase: Phase) -> Bool { phase.session == .signedOut }

    /// Begins the session and opens the connection.
    public func begin(_ grant: Grant, at now: Instant, _ requests: inout FlowContext) -> (Phase, [AuthEffect]) {
        let (sessionPhase, begun) = session.begin(grant, at: now, &requests)
        var phase = Phase(session: sessionPhase, connection: .idle)
        let glued = reconcile(&phase, before: initialPhase, at: now, &requests)
        return (phase, begun + glued)
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        let before = phase
        var effects: [AuthEffect]
        switch event {
        case .intent(.session(let intent), let id, let at):
            effects = session.step(&phase.session, .intent(intent, id: id, at: at), &requests)
        case .intent(.connection(let intent), let id, let at):
            guard let token = Self.usableToken(phase.session) else { return [.finish(id, .rejected(.notSignedIn))] }
            // The connection always opens with the session's current token, whatever the intent carried.
            let current: RealtimeConnection.Intent =
                switch intent {
                case .connect: .connect(token)
                case .disconnect: .disconnect
                }
            effects = connection.step(&phase.connection, .intent(current, id: id, at: at), &requests)
        case .withdrawn(let intent, let at):
            effects = session.step(&phase.session, .withdrawn(intent, at: at), &requests)  // Only the session's intents wait.
        case .reply(let id, let reply, let at):
            // Ids are unique across both halves: only the owner of `id` reacts.
            effects = session.step(&phase.session, .reply(id, reply, at: at), &requests)
            effects += connection.step(&phase.connection, .reply(id, reply, at: at), &requests)
        case .tick(let now):
            effects = session.step(&phase.session, .tick(now), &requests)
            effects += connection.step(&phase.connection, .tick(now), &requests)
        case .launched(let stored, let owed, let at):
            effects = session.step(&phase.session, .launched(stored, owed: owed, at: at), &requests)
        }
        let all = effects + reconcile(&phase, before: before, at: event.instant, &requests)
        return all.filter { !$0.isFinish } + all.filter(\.isFinish)  // The intent's answer comes once the connection followed.
    }

    /// The access token a signed-in, usable session holds.
    static func usableToken(_ phase: SessionLifecycle.Phase) -> AccessToken? {
        usableBearer(phase)?.token
    }

    /// The bearer of a signed-in, usable session.
    static func usableBearer(_ phase: SessionLifecycle.Phase) -> Bearer? {
        switch phase {
        case .active(let active): active.bearer
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired: nil
        }
    }

    private func reconcile(_ phase: inout Phase, before: Phase, at now: Instant, _ requests: inout FlowContext) -> [AuthEffect] {
        var effects: [AuthEffect] = []
        if phase.connection == .rejected, before.connection != .rejected {
            effects += session.tokenRefused(at: now, &phase.session, &requests)
        }
        let bearer = Self.usableBearer(phase.session)
        let previous = Self.usableToken(before.session)
        // The connection asks about its token from now on: the request is this composition's to send.
        var checkToSend: RequestID?
        if case .checkingToken(_, let id, _) = phase.connection {
            if case .checkingToken(_, id, _) = before.connection {} else { checkToSend = id }
        }
        switch (bearer, phase.connection) {
        case (nil, .idle), (nil, .rejected), (nil, .gaveUp):
            if phase.connection != .idle { phase.connection = .idle }
        case (nil, .checkingToken) where checkToSend != nil:
            phase.connection = .idle  // Never sent: nothing to cancel.
            effects.append(.emit(.realtimeDisconnected))
        case (nil, .connecting), (nil, .settling), (nil, .connected), (nil, .checkingToken), (nil, .waitingToReconnect):
            effects += connection.disconnect(&phase.connection)
        case (let bearer?, .checkingToken(_, let id, _)):
            if id == checkToSend { effects.append(.send(id, .currentUser(bearer))) }
            if bearer.token != previous {
                effects += connection.connect(bearer.token, &phase.connection, &requests)
            }
        case (let bearer?, .idle), (let bearer?, .rejected), (let bearer?, .gaveUp):
            let signedInNow = previous == nil
            let rejectedThenRenewed = phase.connection == .rejected && bearer.token != previous
            if signedInNow || rejectedThenRenewed {
                effects += connection.connect(bearer.token, &phase.connection, &requests)
            }
        case (let bearer?, .connecting), (let bearer?, .settling), (let bearer?, .connected), (let bearer?, .waitingToReconnect):
            if bearer.token != previous {
                effects += connection.connect(bearer.token, &phase.connection, &requests)
            }
        }
        return effects
    }
}
