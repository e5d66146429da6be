import AuthCore
import Testing

/// A logout the server could not be reached for owes its revocation: the refresh token is kept in
/// the vault, only to be revoked, and tried again at the next launch and sign-in, a bounded
/// number of rounds.
@Suite("Owed revocations")
struct OwedRevocationTests {
    static let everday = Apps.everday().session
    static let hero365 = Apps.hero365().session

    static func owed(_ token: RefreshToken, _ rounds: Int) -> OwedRevocation { OwedRevocation(refreshToken: token, rounds: rounds) }

    @Test(
        "Everday: a logout whose revoke fails three times without a word from the server owes it: the refresh token (and only it) is persisted and the app told once"
    )
    func logoutOwes() {
        var state = LifecycleState(
            phase: SessionLifecycle.Phase.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials)),
            context: FlowContext(next: 4))
        let logout = Self.everday.reduce(&state, .intent(.logout, id: Samples.intent, at: Samples.t0))
        #expect(logout.contains(.send(Samples.r(4), .revoke(Samples.refresh1, Samples.bearer))))
        #expect(logout.contains(.clearCredentials), "signed out at once")
        _ = Self.everday.reduce(&state, .reply(Samples.r(4), .failed(.network), at: Samples.at(1)))
        _ = Self.everday.reduce(&state, .reply(Samples.r(5), .failed(.timeout), at: Samples.at(2)))
        let last = Self.everday.reduce(&state, .reply(Samples.r(6), .failed(.server(status: 503, nil)), at: Samples.at(3)))
        #expect(last == [.persistOwedRevocations([Self.owed(Samples.refresh1, 1)]), .emit(.serverSessionEndOwed(.server(status: 503, nil)))])
        #expect(state.context.owedRevocations == [Self.owed(Samples.refresh1, 1)])
        #expect(state.context.serverSignOuts.isEmpty)
        #expect("\(last)".contains("persistOwedRevocations(1)") && !"\(last)".contains("refresh-1"), "no token in the description")
    }

    @Test("a logout whose revoke the server refuses owes nothing: reported at once, as before")
    func refusedOwesNothing() {
        var state = LifecycleState(
            phase: SessionLifecycle.Phase.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials)),
            context: FlowContext(next: 4))
        _ = Self.everday.reduce(&state, .intent(.logout, id: Samples.intent, at: Samples.t0))
        let refused = Self.everday.reduce(&state, .reply(Samples.r(4), .failed(.forbidden(nil)), at: Samples.at(1)))
        #expect(refused == [.emit(.serverSessionNotConfirmed(.forbidden(nil)))])
        #expect(state.context.owedRevocations.isEmpty)
    }

    @Test(
        "the next launch tries again: the pair is renewed (the vault keeps no access token), the successor is owed instead, revoked with the renewed access token, then forgotten"
    )
    func launchRevokes() {
        var state = Self.everday.initial
        let launch = Self.everday.reduce(&state, .launched(.none, owed: [Self.owed(Samples.refresh1, 1)], at: Samples.t0))
        #expect(launch == [.send(Samples.r(1), .refresh(Samples.refresh1))])
        #expect(state.phase == .signedOut, "signed out meanwhile")
        let renewed = Self.everday.reduce(&state, .reply(Samples.r(1), .refreshed(Samples.rotated), at: Samples.at(1)))
        let bearer = Bearer(token: Samples.access2, userID: "")
        #expect(renewed == [.persistOwedRevocations([Self.owed(Samples.refresh2, 1)]), .send(Samples.r(2), .revoke(Samples.refresh2, bearer))])
        #expect(!renewed.contains { if case .persist = $0 { true } else { false } }, "the renewed pair is never stored as credentials")
        let revoked = Self.everday.reduce(&state, .reply(Samples.r(2), .accepted(nil), at: Samples.at(2)))
        #expect(revoked == [.persistOwedRevocations([]), .emit(.serverSessionEnded)])
        #expect(state.context.owedRevocations.isEmpty && state.phase == .signedOut)
    }

    @Test("a launch whose renewal the server refuses learns the token is dead: settled and forgotten")
    func launchRefusedRefresh() {
        var state = Self.everday.initial
        _ = Self.everday.reduce(&state, .launched(.none, owed: [Self.owed(Samples.refresh1, 1)], at: Samples.t0))
        let refused = Self.everday.reduce(&state, .reply(Samples.r(1), .failed(.unauthorized(nil)), at: Samples.at(1)))
        #expect(refused == [.persistOwedRevocations([]), .emit(.serverSessionEnded)])
    }

    @Test(
        "each round that cannot reach the server counts; the round after the last reports it, finally, and forgets the token",
        arguments: [(2, 1), (3, 1), (3, 2)])
    func roundsAreBounded(rounds: Int, failedBefore: Int) {
        var app = Apps.everday()
        app.session.policy.revocationRounds = rounds
        let session = app.session
        var state = session.initial
        _ = session.reduce(&state, .launched(.none, owed: [Self.owed(Samples.refresh1, failedBefore)], at: Samples.t0))
        _ = session.reduce(&state, .reply(Samples.r(1), .failed(.network), at: Samples.at(1)))
        _ = session.reduce(&state, .reply(Samples.r(2), .failed(.network), at: Samples.at(2)))
        let third = session.reduce(&state, .reply(Samples.r(3), .failed(.network), at: Samples.at(3)))
        if failedBefore + 1 < rounds {
            #expect(third == [.persistOwedRevocations([Self.owed(Samples.refresh1, failedBefore + 1)])], "counted, not reported again")
        } else {
            #expect(third == [.persistOwedRevocations([]), .emit(.serverSessionNotConfirmed(.network))])
        }
    }

    @Test("launched with a stored session too: the owed revocation and the restore both go out (Everday revokes one token)")
    func launchBesideRestore() {
        var state = Self.everday.initial
        let launch = Self.everday.reduce(
            &state, .launched(.stored(Samples.rotatingCredentials), owed: [Self.owed(Samples.refresh2, 1)], at: Samples.t0))
        #expect(launch.contains(.send(Samples.r(1), .refresh(Samples.refresh2))))
        #expect(launch.contains(.send(Samples.r(2), .refresh(Samples.refresh1))), "the stored session is restored by its own refresh")
    }

    @Test("a sign-in shows the server reachable: Everday's owed revocation goes out with it, after the session is persisted")
    func signInRevokes() {
        var context = FlowContext(next: 7, owedRevocations: [Self.owed(Samples.refresh2, 1)])
        let (phase, effects) = Self.everday.begin(Samples.rotatingGrant, at: Samples.t0, &context)
        guard case .active = phase else {
            Issue.record("not signed in: \(phase)")
            return
        }
        #expect(effects.first == .persist(Samples.rotatingCredentials))
        #expect(effects.last == .send(Samples.r(7), .refresh(Samples.refresh2)))
        var inFlight = context
        let (_, again) = Self.everday.begin(Samples.rotatingGrant, at: Samples.t0, &inFlight)
        #expect(!again.contains { if case .send = $0 { true } else { false } }, "a round under way is not doubled")
    }

    @Test(
        "Hero365 revokes every session of the user: an owed revocation never goes out beside a session (a sign-in gives it up and reports it; a stored session makes it wait) and goes out at a launch that finds none"
    )
    func hero365Waits() {
        var context = FlowContext(next: 7, owedRevocations: [Self.owed(Samples.refresh2, 1)])
        let (_, signIn) = Self.hero365.begin(Samples.rotatingGrant, at: Samples.t0, &context)
        #expect(!signIn.contains { if case .send = $0 { true } else { false } }, "it would end the new session too")
        #expect(Array(signIn.suffix(2)) == [.persistOwedRevocations([]), .emit(.serverSessionNotConfirmed(.network))], "given up, and reported")
        #expect(context.owedRevocations.isEmpty)
        var restoring = Self.hero365.initial
        let stored = Self.hero365.reduce(
            &restoring, .launched(.stored(Samples.rotatingCredentials), owed: [Self.owed(Samples.refresh2, 1)], at: Samples.t0))
        #expect(!stored.contains(.send(Samples.r(1), .refresh(Samples.refresh2))))
        #expect(restoring.context.owedRevocations == [Self.owed(Samples.refresh2, 1)], "still owed")
        var empty = Self.hero365.initial
        let none = Self.hero365.reduce(&empty, .launched(.none, owed: [Self.owed(Samples.refresh2, 1)], at: Samples.t0))
        #expect(none == [.send(Samples.r(1), .refresh(Samples.refresh2))])
    }

    @Test(
        "Hero365 revokes every session of the user: a logout's round under way sends nothing more once the user signs in again, or while a sign-in may be under way; Everday's goes on",
        arguments: [true, false])
    func roundHeldBesideNewSession(signedInAgain: Bool) {
        for (session, endsEverySession) in [(Self.hero365, true), (Self.everday, false)] {
            var state = LifecycleState(
                phase: SessionLifecycle.Phase.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials)),
                context: FlowContext(next: 4))
            _ = session.reduce(&state, .intent(.logout, id: Samples.intent, at: Samples.t0))
            if signedInAgain {
                let (phase, _) = session.begin(Samples.rotatingGrant, at: Samples.at(1), &state.context)
                state.phase = phase
            } else {
                _ = state.context.issue(for: IntentID(9))  // An entry flow's sign-in, sent.
            }
            let lost = session.reduce(&state, .reply(Samples.r(4), .failed(.network), at: Samples.at(2)))
            if endsEverySession {
                #expect(lost == [.emit(.serverSessionNotConfirmed(.network))], "given up, and reported")
                #expect(state.context.serverSignOuts.isEmpty && state.context.owedRevocations.isEmpty)
            } else {
                #expect(lost.contains { if case .send(_, .revoke(Samples.refresh1, _)) = $0 { true } else { false } }, "sent again: \(lost)")
            }
        }
    }

    @Test("a backend that does not revoke at logout ignores what a vault owes")
    func nonRevokingIgnores() {
        let subspace = Apps.subspace().session
        var state = subspace.initial
        #expect(subspace.reduce(&state, .launched(.none, owed: [Self.owed(Samples.refresh1, 1)], at: Samples.t0)).isEmpty)
    }
}
