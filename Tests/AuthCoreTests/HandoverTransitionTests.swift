import Testing
@testable import AuthCore

/// The app combinator, on Subspace's app: entry flows hand a grant to the session; sign-out
/// restarts the entry flows.
enum HandoverTable {
    typealias App = SubspaceApp
    typealias Phase = App.Phase
    typealias Intent = App.Intent
    static let app = Apps.subspace()
    static let t0 = Samples.t0
    static let emailID = SignInIdentifier.email(Samples.email)
    static let grant = Grant(accessToken: Samples.access1, expiry: .after(Samples.lifetime), user: Samples.user)
    static let credentials = Samples.expiringCredentials
    static let start = Phase.signedOut(.first(.editing))
    static let signingIn = Phase.signedOut(.second(.first(.signingIn(emailID, Samples.r(1)))))
    static let active = Phase.signedIn(.active(SessionLifecycle.Active(credentials: credentials, calls: [SessionTable.sent(Samples.call1, 2)])))
    static let timers = SessionTable.timersCancelled

    static func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10)
        -> Row<App>
    {
        Row(name, app, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static let rows: [Row<App>] = [
        row(
            "signedOut + withdrawn(its intent) → routed to the entry flows, which abandon the sign-in", signingIn,
            .withdrawn(Samples.pending, at: t0), .signedOut(.second(.first(.enteringCredentials))),
            [.cancel(Samples.r(1)), .finish(Samples.pending, .cancelled)]),
        row(
            "signedIn + withdrawn(a call) → routed to the session, which drops the call", active, .withdrawn(Samples.call1, at: t0),
            .signedIn(.active(SessionLifecycle.Active(credentials: credentials))), [.cancel(Samples.r(2)), .finish(Samples.call1, .cancelled)]),
        row(
            "signedOut + entry intent → routed to the entry flows", start,
            .intent(.entry(.second(.first(.submit(identifier: Samples.emailText, password: Samples.passwordInput)))), at: t0),
            .signedOut(.second(.first(.signingIn(emailID, Samples.r(10))))), [.send(Samples.r(10), .signIn(emailID, Samples.password))]),
        row(
            "signedOut + reply(grant) → signedIn, the session begins: persist, signedIn, expiry scheduled", signingIn,
            .reply(Samples.r(1), .granted(grant), at: t0), .signedIn(.active(SessionLifecycle.Active(credentials: credentials))),
            [
                .persist(credentials), .emit(.signedIn(Samples.user)), .schedule(.sessionExpiry, at: Samples.at(1800)),
                .finish(Samples.pending, .signedIn(Samples.user)),
            ]),
        row("signedOut + reply(stale id) → unchanged", signingIn, .reply(Samples.staleID, .granted(grant), at: t0), signingIn, []),
        row(
            "signedOut + tick → routed to the entry flows", .signedOut(.second(.first(.rateLimited(until: Samples.at(60))))), .tick(Samples.at(60)),
            .signedOut(.second(.first(.enteringCredentials))), []),
        row(
            "signedOut + launched(stored) → signedIn, restoring with /auth/me", start, .launched(.stored(credentials), at: t0),
            .signedIn(.restoring(SessionLifecycle.Restoring(credentials: credentials, request: Samples.r(10), asking: .currentUser))),
            [.send(Samples.r(10), .currentUser(Samples.bearer))]),
        row("signedOut + launched(none) → unchanged", signingIn, .launched(.none, at: t0), signingIn, []),
        row(
            "signedOut + launched(unreadable) → unchanged, emits vaultUnreadable", signingIn, .launched(.unreadable, at: t0), signingIn,
            [.emit(.vaultUnreadable)]),
        row(
            "signedOut + session call → unchanged, finishCall rejected notSignedIn", signingIn, .intent(.session(.call), id: Samples.call2, at: t0),
            signingIn, [.finish(Samples.call2, .rejected(.notSignedIn))]),
        row(
            "signedOut + session logout → unchanged, vault cleared anyway", signingIn, .intent(.session(.logout), at: t0), signingIn,
            [.clearCredentials, .emit(.signedOut(.userRequested)), .finish(Samples.intent, .signedOut)]),
        row(
            "signedIn + entry intent → unchanged, rejected alreadySignedIn", active, .intent(.entry(.first(.startOver)), at: t0), active,
            [.reject(Samples.intent, .alreadySignedIn)]),
        row(
            "signedIn + session logout → signedOut at the entry flows' beginning", active, .intent(.session(.logout), at: t0), start,
            [.clearCredentials, .cancel(Samples.r(2))] + timers
                + [.finish(Samples.call1, .sessionEnded), .emit(.signedOut(.userRequested)), .finish(Samples.intent, .signedOut)]),
        row(
            "signedIn + session call → routed to the session", active, .intent(.session(.call), id: Samples.call2, at: t0),
            .signedIn(
                .active(
                    SessionLifecycle.Active(
                        credentials: credentials, calls: [SessionTable.sent(Samples.call1, 2), SessionTable.sent(Samples.call2, 10)]))),
            [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
        row(
            "signedIn + reply(call answered 401) → signedOut at the entry flows' beginning", active,
            .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0), start,
            [.clearCredentials, .cancel(Samples.r(2))] + timers + [.finish(Samples.call1, .sessionEnded), .emit(.signedOut(.tokenRejected))]),
        row("signedIn + reply(stale id) → unchanged", active, .reply(Samples.staleID, .accepted(nil), at: t0), active, []),
        row(
            "signedIn + tick at expiry → signedOut at the entry flows' beginning", active, .tick(Samples.at(1800)), start,
            [.clearCredentials, .cancel(Samples.r(2))] + timers + [.finish(Samples.call1, .sessionEnded), .emit(.signedOut(.tokenExpired))]),
        row("signedIn + tick before expiry → unchanged", active, .tick(Samples.at(10)), active, []),
        row("signedIn + launched → unchanged", active, .launched(.stored(credentials), at: t0), active, []),
    ]

    static let phaseCases = ["signedOut", "signedIn"]
    static let intentCases = ["entry", "session"]
}

@Suite("Handover transitions")
struct HandoverTransitionTests {
    @Test("every Handover row gives the expected phase and effects", arguments: HandoverTable.rows)
    func transition(_ row: Row<HandoverTable.App>) { row.verify() }
}
