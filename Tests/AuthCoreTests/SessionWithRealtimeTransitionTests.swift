import Testing
@testable import AuthCore

/// VynqTalk's session with its realtime connection: the connection follows the session (opens at
/// sign-in, follows the token, closes at sign-out) and a refused token signs the session out.
enum SessionWithRealtimeTable {
    typealias Phase = SessionWithRealtime.Phase
    typealias Intent = SessionWithRealtime.Intent
    static let machine = Apps.vynqTalk().session
    static let t0 = Samples.t0
    static let a1 = Samples.access1
    static let credentials = Samples.expiringCredentials
    /// The session in every sample: call1 in flight as r5.
    static let session = SessionLifecycle.Phase.active(
        SessionLifecycle.Active(credentials: credentials, calls: [SessionTable.sent(Samples.call1, 5)]))
    static let timers = SessionTable.timersCancelled

    static let connections: [(String, RealtimeConnection.Phase)] = [
        ("idle", .idle),
        ("connecting", .connecting(a1, Samples.r(1), attempt: 0, flaps: 0)),
        ("connected", .connected(a1, Samples.r(2))),
        ("waitingToReconnect", .waitingToReconnect(a1, retryAt: Samples.at(1), attempt: 0, flaps: 0)),
        ("rejected", .rejected),
        ("gaveUp", .gaveUp(a1)),
        ("settling", .settling(a1, Samples.r(2), stableAt: Samples.at(10), attempt: 0, flaps: 0)),
        ("checkingToken", .checkingToken(a1, Samples.r(3), attempt: 2)),
    ]

    /// What closing each connection asks for when the session signs out.
    static func teardown(_ name: String) -> [AuthEffect] {
        switch name {
        case "connecting": [.cancel(Samples.r(1)), .emit(.realtimeDisconnected)]
        case "connected": [.closeRealtime(Samples.r(2)), .emit(.realtimeDisconnected)]
        case "waitingToReconnect": [.cancelTimer(.reconnect), .emit(.realtimeDisconnected)]
        case "settling": [.cancelTimer(.realtimeStable), .closeRealtime(Samples.r(2)), .emit(.realtimeDisconnected)]
        case "checkingToken": [.cancel(Samples.r(3)), .emit(.realtimeDisconnected)]
        default: []
        }
    }

    /// What the session's end asks for, then the connection's teardown, then the answers to the
    /// waiting call and to `intent` (a composition's answers come last).
    static func ended(_ reason: SignOutReason, _ connection: String, answering intent: Completion? = nil) -> [AuthEffect] {
        [.clearCredentials, .cancel(Samples.r(5))] + timers + [.emit(.signedOut(reason))] + teardown(connection)
            + [.finish(Samples.call1, .sessionEnded)] + (intent.map { [.finish(Samples.intent, $0)] } ?? [])
    }

    static func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10)
        -> Row<SessionWithRealtime>
    {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static let signedOut = Phase(session: .signedOut, connection: .idle)

    static let rows: [Row<SessionWithRealtime>] =
        connections.flatMap { name, connection -> [Row<SessionWithRealtime>] in
            let phase = Phase(session: session, connection: connection)
            let connect: (RealtimeConnection.Phase, [AuthEffect]) =
                switch name {
                case "idle", "rejected", "gaveUp": (.connecting(a1, Samples.r(10), attempt: 0, flaps: 0), [.send(Samples.r(10), .openRealtime(a1))])
                default: (connection, [])
                }
            let disconnect: (RealtimeConnection.Phase, [AuthEffect]) = (.idle, teardown(name))
            let tick: (RealtimeConnection.Phase, [AuthEffect]) =
                name == "waitingToReconnect"
                ? (.connecting(a1, Samples.r(10), attempt: 0, flaps: 0), [.send(Samples.r(10), .openRealtime(a1))]) : (connection, [])
            return [
                row(
                    "\(name) + session call → the call is sent, connection unchanged", phase, .intent(.session(.call), id: Samples.call2, at: t0),
                    Phase(
                        session: .active(
                            SessionLifecycle.Active(
                                credentials: credentials, calls: [SessionTable.sent(Samples.call1, 5), SessionTable.sent(Samples.call2, 10)])),
                        connection: connection),
                    [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
                row(
                    "\(name) + session logout → signedOut, and the connection is closed", phase, .intent(.session(.logout), at: t0), signedOut,
                    ended(.userRequested, name, answering: .signedOut)),
                row(
                    "\(name) + session setPassword → rejected notAvailableNow", phase, .intent(.session(.setPassword(Samples.passwordInput)), at: t0),
                    phase, [.reject(Samples.intent, .notAvailableNow)]),
                row(
                    "\(name) + session changePassword → rejected unsupported", phase,
                    .intent(.session(.changePassword(old: Samples.passwordInput, new: Samples.newPasswordInput)), at: t0), phase,
                    [.reject(Samples.intent, .unsupported)]),
                row(
                    "\(name) + session credentialsRejected → signedOut(tokenRejected), connection closed", phase,
                    .intent(.session(.credentialsRejected), at: t0), signedOut,
                    ended(.tokenRejected, name, answering: .done)),
                row(
                    "\(name) + connection connect → \(connect.0 == connection ? "unchanged" : "connecting")", phase,
                    .intent(.connection(.connect(a1)), at: t0), Phase(session: session, connection: connect.0),
                    connect.1 + [.finish(Samples.intent, .done)]),
                row(
                    "\(name) + connection disconnect → idle", phase, .intent(.connection(.disconnect), at: t0),
                    Phase(session: session, connection: disconnect.0), disconnect.1 + [.finish(Samples.intent, name == "idle" ? .unchanged : .done)]),
                row(
                    "\(name) + reply(call answered) → finishCall answered, connection unchanged", phase,
                    .reply(Samples.r(5), .accepted(nil), at: t0),
                    Phase(session: .active(SessionLifecycle.Active(credentials: credentials)), connection: connection),
                    [.finish(Samples.call1, .answered(Samples.r(5)))]),
                row("\(name) + reply(stale id) → unchanged", phase, .reply(Samples.staleID, .realtimeOpened, at: t0), phase, []),
                row(
                    "\(name) + tick → \(name == "waitingToReconnect" ? "reconnects with the current token" : "unchanged")", phase,
                    .tick(Samples.at(1)),
                    Phase(session: session, connection: tick.0), tick.1),
                row("\(name) + launched → unchanged", phase, .launched(.stored(credentials), at: t0), phase, []),
                row(
                    "\(name) + withdrawn(a call) → the session drops the call, connection unchanged", phase, .withdrawn(Samples.call1, at: t0),
                    Phase(session: .active(SessionLifecycle.Active(credentials: credentials)), connection: connection),
                    [.cancel(Samples.r(5)), .finish(Samples.call1, .cancelled)]),
            ]
        } + [
            row(
                "connecting + reply(opened) → settling, emits realtimeConnected", Phase(session: session, connection: connections[1].1),
                .reply(Samples.r(1), .realtimeOpened, at: t0),
                Phase(session: session, connection: .settling(a1, Samples.r(1), stableAt: Samples.at(10), attempt: 0, flaps: 0)),
                [.schedule(.realtimeStable, at: Samples.at(10)), .emit(.realtimeConnected)]),
            row(
                "settling after a flap + reply(closed) → checkingToken: the composition asks GET /users/me with the session's bearer",
                Phase(session: session, connection: .settling(a1, Samples.r(2), stableAt: Samples.at(10), attempt: 1, flaps: 1)),
                .reply(Samples.r(2), .realtimeClosed, at: t0), Phase(session: session, connection: .checkingToken(a1, Samples.r(10), attempt: 2)),
                [.cancelTimer(.realtimeStable), .send(Samples.r(10), .currentUser(Samples.bearer))]),
            row(
                "the document says nothing of early closes; the deployed server closes a refused token's socket at once: checkingToken + reply(401) → the token is refused, session signed out (tokenRejected)",
                Phase(session: session, connection: connections[7].1), .reply(Samples.r(3), .failed(.unauthorized(nil)), at: t0), signedOut,
                [.emit(.failed(.unauthorized(RealtimeConnection.flappingMessage)))] + ended(.tokenRejected, "idle")),
            row(
                "checkingToken + reply(403) → the token is refused, session signed out (tokenRejected)",
                Phase(session: session, connection: connections[7].1), .reply(Samples.r(3), .failed(.forbidden(nil)), at: t0), signedOut,
                [.emit(.failed(.unauthorized(RealtimeConnection.flappingMessage)))] + ended(.tokenRejected, "idle")),
            row(
                "a flaky mobile network closes sockets early too: checkingToken + reply(user) → the session is kept, reconnect in 4 s",
                Phase(session: session, connection: connections[7].1), .reply(Samples.r(3), .user(Samples.user), at: t0),
                Phase(session: session, connection: .waitingToReconnect(a1, retryAt: Samples.at(4), attempt: 2, flaps: 0)),
                [.schedule(.reconnect, at: Samples.at(4))]),
            row(
                "checkingToken + reply(network) → nothing said of the token: the session is kept, reconnect in 4 s",
                Phase(session: session, connection: connections[7].1), .reply(Samples.r(3), .failed(.network), at: t0),
                Phase(session: session, connection: .waitingToReconnect(a1, retryAt: Samples.at(4), attempt: 2, flaps: 0)),
                [.schedule(.reconnect, at: Samples.at(4))]),
            row(
                "connected + reply(401 from the socket) → session signed out (tokenRejected), connection idle",
                Phase(session: session, connection: connections[2].1), .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0), signedOut,
                [.emit(.failed(.unauthorized(nil)))] + ended(.tokenRejected, "idle")),
            row(
                "connected + reply(closed) → waitingToReconnect", Phase(session: session, connection: connections[2].1),
                .reply(Samples.r(2), .realtimeClosed, at: t0),
                Phase(session: session, connection: .waitingToReconnect(a1, retryAt: Samples.at(1), attempt: 0, flaps: 0)),
                [.schedule(.reconnect, at: Samples.at(1))]),
            row(
                "signedOut + connection connect → rejected notSignedIn", signedOut, .intent(.connection(.connect(a1)), at: t0), signedOut,
                [.reject(Samples.intent, .notSignedIn)]),
            Row(
                "rotating session: refreshing + reply(rotated pair) → the connection follows the new token",
                SessionWithRealtime(session: SessionTable.hero365),
                from: Phase(
                    session: .active(
                        SessionLifecycle.Active(credentials: Samples.rotatingCredentials, refresh: .refreshing(Samples.r(3), attempt: 0))),
                    connection: .connected(a1, Samples.r(2))),
                on: .reply(Samples.r(3), .refreshed(Samples.rotated), at: Samples.at(100)),
                to: Phase(
                    session: .active(SessionLifecycle.Active(credentials: SessionTable.renewed(Samples.rotated))),
                    connection: .connected(Samples.access2, Samples.r(2))),
                effects: [
                    .persist(SessionTable.renewed(Samples.rotated)), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry),
                    .schedule(.proactiveRefresh, at: Samples.at(1840)),
                ], requests: 10),
        ]

    static let phaseCases = connections.map(\.0)
    static let intentCases = [
        "session.call", "session.logout", "session.setPassword", "session.changePassword", "session.credentialsRejected",
        "connection.connect", "connection.disconnect",
    ]

    /// `session.<case>` or `connection.<case>`.
    static func intentCase(_ intent: Intent) -> String {
        switch intent {
        case .session(let inner): "session." + Coverage.caseName(inner)
        case .connection(let inner): "connection." + Coverage.caseName(inner)
        }
    }
}

@Suite("SessionWithRealtime transitions")
struct SessionWithRealtimeTransitionTests {
    @Test("every SessionWithRealtime row gives the expected phase and effects", arguments: SessionWithRealtimeTable.rows)
    func transition(_ row: Row<SessionWithRealtime>) { row.verify() }

    @Test("signing in to VynqTalk opens the realtime connection with the new token")
    func signInConnects() {
        let app = Apps.vynqTalk()
        var phase = VynqTalkApp.Phase.signedOut(.second(.signingIn(.email(Samples.email), Samples.r(1))))
        var ids = FlowContext(next: 2)
        let effects = app.step(&phase, .reply(Samples.r(1), .granted(Samples.plainGrant), at: Samples.t0), &ids)
        #expect(
            phase
                == .signedIn(
                    SessionWithRealtime.Phase(
                        session: .active(SessionLifecycle.Active(credentials: Samples.plainCredentials)),
                        connection: .connecting(Samples.access1, Samples.r(2), attempt: 0, flaps: 0))))
        #expect(effects == [.persist(Samples.plainCredentials), .emit(.signedIn(Samples.user)), .send(Samples.r(2), .openRealtime(Samples.access1))])
    }

    @Test("a rotating session whose token the socket refused refreshes, then reconnects with the new token")
    func rejectionRefreshesThenReconnects() {
        let machine = SessionWithRealtime(session: SessionTable.hero365)
        let c = Samples.rotatingCredentials
        let run = play(
            machine,
            from: SessionWithRealtime.Phase(
                session: .active(SessionLifecycle.Active(credentials: c)), connection: .connected(Samples.access1, Samples.r(2))),
            requests: 3,
            [
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: Samples.t0),  // refresh r3
                .reply(Samples.r(3), .refreshed(Samples.rotated), at: Samples.at(100)),  // reconnect r4
            ])
        #expect(
            run.effects[0] == [.emit(.failed(.unauthorized(nil))), .cancelTimer(.proactiveRefresh), .send(Samples.r(3), .refresh(Samples.refresh1))])
        let renewed = SessionTable.renewed(Samples.rotated)
        #expect(
            run.effects[1] == [
                .persist(renewed), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry), .schedule(.proactiveRefresh, at: Samples.at(1840)),
                .send(Samples.r(4), .openRealtime(Samples.access2)),
            ])
        #expect(
            run.phase
                == SessionWithRealtime.Phase(
                    session: .active(SessionLifecycle.Active(credentials: renewed)),
                    connection: .connecting(Samples.access2, Samples.r(4), attempt: 0, flaps: 0)))
    }
}
