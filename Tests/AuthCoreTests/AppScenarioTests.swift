import Testing
@testable import AuthCore

/// Multi-step behaviours through the composed apps, where a single row cannot show them.
@Suite("App scenarios")
struct AppScenarioTests {
    /// A way into Anonymous Wall's session, stopped just before the server's grant arrives as r1.
    struct AnonymousWallEntry: Sendable, CustomTestStringConvertible {
        var name: String
        var phase: AnonymousWallApp.Phase
        var entryEffects: [AuthEffect]
        var testDescription: String { name }

        static let all: [AnonymousWallEntry] = [
            AnonymousWallEntry(
                name: "code registration",
                phase: Apps.anonymousWall().at(CodeRegistration.Phase.registering(Samples.email, Samples.r(1), resendAt: Samples.at(60))),
                entryEffects: []),
            AnonymousWallEntry(
                name: "password sign-in", phase: Apps.anonymousWall().at(PasswordSignIn.Phase.signingIn(.email(Samples.email), Samples.r(1))),
                entryEffects: []),
            AnonymousWallEntry(
                name: "email code sign-in",
                phase: Apps.anonymousWall().at(
                    OneTimeCodeSignIn.Phase.verifying(
                        CodeChallenge(destination: .email(Samples.email), expiresAt: Samples.at(300), resendAt: Samples.at(60), attemptsLeft: 2),
                        Samples.r(1))),
                entryEffects: [.cancelTimer(.codeExpiry), .cancelTimer(.resendAvailable)]),
            AnonymousWallEntry(
                name: "reset with auto-login",
                phase: Apps.anonymousWall().at(PasswordReset.Phase.resetting(.email(Samples.email), Samples.r(1), resendAt: Samples.at(60))),
                entryEffects: []),
        ]
    }

    @Test(
        "Anonymous Wall: passwordSet false in any sign-in answer lands in passwordSetupRequired; absent or true does not",
        arguments: AnonymousWallEntry.all, [false, nil, true] as [Bool?])
    func passwordSetupAfterAnySignIn(_ entry: AnonymousWallEntry, passwordSet: Bool?) {
        let user = UserProfile(id: Samples.userID, email: Samples.emailText, passwordSet: passwordSet)
        let grant = Grant(accessToken: Samples.access2, user: user)
        let credentials = Credentials(accessToken: Samples.access2, user: user)
        var phase = entry.phase
        var ids = FlowContext(next: 2)
        let effects = Apps.anonymousWall().step(&phase, .reply(Samples.r(1), .granted(grant), at: Samples.t0), &ids)
        if passwordSet == false {
            #expect(phase == .signedIn(.passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: credentials))))
            #expect(effects == entry.entryEffects + [.persist(credentials), .emit(.signedIn(user)), .emit(.passwordSetupRequired)])
        } else {
            #expect(phase == .signedIn(.active(SessionLifecycle.Active(credentials: credentials))))
            #expect(effects == entry.entryEffects + [.persist(credentials), .emit(.signedIn(user))])
        }
    }

    @Test("Anonymous Wall: reset with auto-login starts the session from the reset's own grant")
    func resetAutoLogin() {
        let app = Apps.anonymousWall()
        let run = play(
            app, from: app.initialPhase,
            [
                .intent(app.intent(PasswordReset.Intent.requestReset(Samples.emailText)), at: Samples.t0),
                .reply(Samples.r(1), .accepted(nil), at: Samples.t0),
                .intent(app.intent(PasswordReset.Intent.submitCode(Samples.codeInput, newPassword: Samples.newPasswordInput)), at: Samples.at(5)),
                .reply(Samples.r(2), .granted(Grant(accessToken: Samples.access3, user: Samples.userPasswordSet)), at: Samples.at(6)),
            ])
        let credentials = Credentials(accessToken: Samples.access3, user: Samples.userPasswordSet)
        #expect(run.effects[2] == [.send(Samples.r(2), .resetPassword(.emailCode(Samples.email, Samples.code), newPassword: Samples.newPassword))])
        #expect(run.phase == .signedIn(.active(SessionLifecycle.Active(credentials: credentials))))
        #expect(
            run.effects[3] == [
                .persist(credentials), .emit(.signedIn(Samples.userPasswordSet)), .finish(Samples.intent, .signedIn(Samples.userPasswordSet)),
            ])
    }

    @Test("Everday: a RequirePasswordChange grant lands in passwordChangeRequired, persisted with the demand, which refuses calls")
    func requirePasswordChange() {
        let app = Apps.everday()
        var credentials = Credentials(Samples.passwordChangeGrant, receivedAt: Samples.t0)
        credentials.user.passwordChangeRequired = true
        let run = play(
            app, from: app.at(PasswordSignIn.Phase.signingIn(.username(Samples.username), Samples.r(1))), requests: 2,
            [
                .reply(Samples.r(1), .granted(Samples.passwordChangeGrant), at: Samples.t0),
                .intent(.session(.call), id: Samples.call1, at: Samples.at(1)),
            ])
        #expect(run.phase == .signedIn(.passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: credentials))))
        #expect(
            run.effects[0] == [
                .persist(credentials), .emit(.signedIn(credentials.user)), .emit(.passwordChangeRequired),
                .schedule(.sessionExpiry, at: Samples.at(1800)),
            ])
        #expect(run.effects[1] == [.finish(Samples.call1, .rejected(.passwordChangeRequired))])
    }

    @Test("Everday: relaunching with a password change due lands back in passwordChangeRequired, whichever way the session is restored")
    func requirePasswordChangeSurvivesRelaunch() {
        var credentials = Credentials(Samples.passwordChangeGrant, receivedAt: Samples.t0)
        credentials.user.passwordChangeRequired = true
        let everday = play(
            Apps.everday(), from: Apps.everday().at(Registration.Phase.editing), requests: 5,
            [
                .launched(.stored(credentials), at: Samples.at(1)),
                .reply(
                    Samples.r(5), .refreshed(TokenRefresh(accessToken: Samples.access3, refreshToken: nil, expiry: .after(.seconds(1800)))),
                    at: Samples.at(2)),
            ])
        guard case .signedIn(.passwordChangeRequired(let step)) = everday.phase, step.pending == nil else {
            Issue.record("restored to \(everday.phase)")
            return
        }
        #expect(step.credentials.user.passwordChangeRequired)
        let trusting = SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored))
        let trusted = play(trusting, from: .signedOut, [.launched(.stored(credentials), at: Samples.at(1))])
        #expect(trusted.phase == .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: credentials)))
        let asking = SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .fetchCurrentUser))
        let asked = play(
            asking, from: .signedOut, requests: 7,
            [
                .launched(.stored(credentials), at: Samples.at(1)), .reply(Samples.r(7), .user(Samples.user), at: Samples.at(2)),
            ])
        #expect(asked.phase == .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: credentials)))
    }

    @Test(
        "Everday: logout while refreshing signs out at once, keeps the refresh, and revokes its successor with the fresh pair (never stored); a failed revoke is retried, then confirmed"
    )
    func logoutDuringRefresh() {
        let app = Apps.everday()
        let session = SessionLifecycle.Active(
            credentials: Samples.rotatingCredentials, calls: [SessionTable.waiting(Samples.call1)], refresh: .refreshing(Samples.r(3), attempt: 0))
        let run = play(
            app, from: .signedIn(.active(session)), requests: 4,
            [
                .intent(.session(.logout), at: Samples.t0),
                .reply(Samples.r(3), .refreshed(Samples.rotated), at: Samples.at(1)),
                .reply(Samples.r(4), .failed(.network), at: Samples.at(2)),
                .reply(Samples.r(5), .accepted(nil), at: Samples.at(3)),
            ])
        #expect(run.phase == app.initialPhase)
        #expect(
            run.effects[0] == [.clearCredentials] + SessionTable.timersCancelled + [
                .finish(Samples.call1, .sessionEnded), .emit(.signedOut(.userRequested)), .finish(Samples.intent, .signedOut),
            ])
        #expect(run.effects[1] == [.send(Samples.r(4), .revoke(Samples.refresh2, Samples.bearer2))], "the successor, with the fresh access token")
        #expect(run.effects[2] == [.send(Samples.r(5), .revoke(Samples.refresh2, Samples.bearer2))], "retried after a network failure")
        #expect(run.effects[3] == [.emit(.serverSessionEnded)])
        #expect(run.effects.joined().allSatisfy { if case .persist = $0 { false } else { true } }, "nothing is stored after logout")
    }

    @Test(
        "Everday: logout after the access token expired refreshes first (never stored) and revokes with the fresh pair; a refused refresh token is already dead"
    )
    func logoutAfterExpiry() {
        let app = Apps.everday()
        let expired = Samples.at(1800) + .seconds(1)  // Past the sample credentials' expiry.
        let session = SessionLifecycle.Active(credentials: Samples.rotatingCredentials, refresh: .offline)
        let run = play(
            app, from: .signedIn(.active(session)), requests: 4,
            [
                .intent(.session(.logout), at: expired),
                .reply(Samples.r(4), .refreshed(Samples.rotated), at: expired + .seconds(1)),
                .reply(Samples.r(5), .accepted(nil), at: expired + .seconds(2)),
            ])
        #expect(
            run.effects[0] == [.clearCredentials] + SessionTable.timersCancelled + [
                .emit(.signedOut(.userRequested)), .send(Samples.r(4), .refresh(Samples.refresh1)), .finish(Samples.intent, .signedOut),
            ])
        #expect(run.effects[1] == [.send(Samples.r(5), .revoke(Samples.refresh2, Samples.bearer2))])
        #expect(run.effects[2] == [.emit(.serverSessionEnded)])
        let refused = play(
            app, from: .signedIn(.active(session)), requests: 4,
            [.intent(.session(.logout), at: expired), .reply(Samples.r(4), .failed(.unauthorized(nil)), at: expired + .seconds(1))])
        #expect(refused.effects[1] == [.emit(.serverSessionEnded)])
    }

    @Test(
        "Everday: a revoke refused 401 renews the pair once and revokes again; refused again it is reported, once; failing three times it is owed, and reported once"
    )
    func revokeRefused() {
        let app = Apps.everday()
        let session = SessionLifecycle.Active(credentials: Samples.rotatingCredentials)
        let refusedTwice = play(
            app, from: .signedIn(.active(session)), requests: 4,
            [
                .intent(.session(.logout), at: Samples.t0),
                .reply(Samples.r(4), .failed(.unauthorized(nil)), at: Samples.at(1)),
                .reply(Samples.r(5), .refreshed(Samples.rotated), at: Samples.at(2)),
                .reply(Samples.r(6), .failed(.unauthorized("Invalid token")), at: Samples.at(3)),
            ])
        #expect(refusedTwice.effects[0].contains(.send(Samples.r(4), .revoke(Samples.refresh1, Samples.bearer))))
        #expect(refusedTwice.effects[1] == [.send(Samples.r(5), .refresh(Samples.refresh1))])
        #expect(refusedTwice.effects[2] == [.send(Samples.r(6), .revoke(Samples.refresh2, Samples.bearer2))])
        #expect(refusedTwice.effects[3] == [.emit(.serverSessionNotConfirmed(.unauthorized("Invalid token")))])
        let offline = play(
            app, from: .signedIn(.active(session)), requests: 4,
            [
                .intent(.session(.logout), at: Samples.t0),
                .reply(Samples.r(4), .failed(.network), at: Samples.at(1)),
                .reply(Samples.r(5), .failed(.timeout), at: Samples.at(2)),
                .reply(Samples.r(6), .failed(.server(status: 503, nil)), at: Samples.at(3)),
            ])
        #expect(offline.effects[1] == [.send(Samples.r(5), .revoke(Samples.refresh1, Samples.bearer))])
        #expect(offline.effects[2] == [.send(Samples.r(6), .revoke(Samples.refresh1, Samples.bearer))])
        #expect(
            offline.effects[3] == [
                .persistOwedRevocations([OwedRevocation(refreshToken: Samples.refresh1, rounds: 1)]),
                .emit(.serverSessionEndOwed(.server(status: 503, nil))),
            ], "three attempts, then owed and reported")
        #expect(offline.effects.joined().filter { if case .emit(.serverSessionEndOwed) = $0 { true } else { false } }.count == 1)
    }

    @Test(
        "Hero365: logout is local at once, then revokes every refresh token of the user in the background (deployed /revoke-tokens), with Everday's guarantees: refreshed first when expired, retried, reported"
    )
    func hero365LogoutRevokes() {
        let app = Apps.hero365()
        let run = play(
            app, from: .signedIn(.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials))), requests: 4,
            [
                .intent(.session(.logout), at: Samples.t0),
                .reply(Samples.r(4), .failed(.network), at: Samples.at(1)),
                .reply(Samples.r(5), .accepted(nil), at: Samples.at(2)),
            ])
        #expect(run.effects[0].contains(.clearCredentials))
        #expect(run.effects[0].contains(.send(Samples.r(4), .revoke(Samples.refresh1, Samples.bearer))))
        #expect(run.effects[0].last == .finish(Samples.intent, .signedOut), "the caller is answered at once")
        #expect(run.effects[1] == [.send(Samples.r(5), .revoke(Samples.refresh1, Samples.bearer))], "a network failure is retried")
        #expect(run.effects[2] == [.emit(.serverSessionEnded)])
        #expect(run.phase == app.initialPhase)

        let expired = Samples.at(1800) + .seconds(1)  // Past the sample credentials' expiry.
        let afterExpiry = play(
            app, from: .signedIn(.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials, refresh: .offline))),
            requests: 4,
            [
                .intent(.session(.logout), at: expired),
                .reply(Samples.r(4), .refreshed(Samples.rotated), at: expired + .seconds(1)),
                .reply(Samples.r(5), .failed(.forbidden("Not authorized to revoke tokens for this user")), at: expired + .seconds(2)),
            ])
        #expect(afterExpiry.effects[0].contains(.send(Samples.r(4), .refresh(Samples.refresh1))), "renewed first, never stored")
        #expect(afterExpiry.effects[1] == [.send(Samples.r(5), .revoke(Samples.refresh2, Samples.bearer2))])
        #expect(
            afterExpiry.effects[2] == [.emit(.serverSessionNotConfirmed(.forbidden("Not authorized to revoke tokens for this user")))],
            "a refusal is reported, not retried")
    }

    @Test("Hero365: two calls answered 401 make one refresh; the rotated pair is persisted before either replay")
    func singleFlightRefresh() {
        let app = Apps.hero365()
        let c = Samples.rotatingCredentials
        let run = play(
            app, from: .signedIn(.active(SessionLifecycle.Active(credentials: c))), requests: 2,
            [
                .intent(.session(.call), id: Samples.call1, at: Samples.t0),  // r2
                .intent(.session(.call), id: Samples.call2, at: Samples.t0),  // r3
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: Samples.at(1)),  // refresh r4
                .reply(Samples.r(3), .failed(.unauthorized(nil)), at: Samples.at(1)),
                .reply(Samples.r(4), .refreshed(Samples.rotated), at: Samples.at(100)),  // replays r5, r6
                .reply(Samples.r(5), .accepted(nil), at: Samples.at(101)),
                .reply(Samples.r(6), .accepted(nil), at: Samples.at(101)),
            ])
        let all = run.effects.flatMap { $0 }
        let refreshes = all.filter { if case .send(_, .refresh) = $0 { true } else { false } }
        #expect(refreshes == [.send(Samples.r(4), .refresh(Samples.refresh1))])
        let renewed = SessionTable.renewed(Samples.rotated)
        let bearer2 = Bearer(token: Samples.access2, userID: Samples.userID)
        #expect(
            run.effects[4] == [
                .persist(renewed), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry),
                .send(Samples.r(5), .protected(Samples.call1, bearer2)), .send(Samples.r(6), .protected(Samples.call2, bearer2)),
                .schedule(.proactiveRefresh, at: Samples.at(1840)),
            ])
        #expect(run.effects[5] == [.finish(Samples.call1, .answered(Samples.r(5)))])
        #expect(run.effects[6] == [.finish(Samples.call2, .answered(Samples.r(6)))])
        #expect(run.phase == .signedIn(.active(SessionLifecycle.Active(credentials: renewed))))
    }

    @Test("Everday: transient refresh failures retry with doubling backoff up to the limit, then offline fails the waiting caller")
    func refreshRetriesThenOffline() {
        let session = SessionTable.everday
        let c = Samples.rotatingCredentials
        let run = play(
            session, from: .active(SessionLifecycle.Active(credentials: c)), requests: 2,
            [
                .intent(.call, id: Samples.call1, at: Samples.at(1740)),  // inside the margin: refresh r2
                .reply(Samples.r(2), .failed(.network), at: Samples.at(1741)),  // retry at +2 s
                .tick(Samples.at(1743)),  // refresh r3
                .reply(Samples.r(3), .failed(.timeout), at: Samples.at(1744)),  // retry at +4 s
                .tick(Samples.at(1748)),  // refresh r4
                .reply(Samples.r(4), .failed(.server(status: 502, nil)), at: Samples.at(1749)),
            ])
        let refreshes = run.effects.flatMap { $0 }.filter { if case .send(_, .refresh(let token)) = $0 { token == Samples.refresh1 } else { false } }
        #expect(refreshes.count == 3)
        #expect(run.effects[1] == [.schedule(.refreshRetry, at: Samples.at(1743)), .emit(.refreshRetryScheduled(at: Samples.at(1743)))])
        #expect(run.effects[3] == [.schedule(.refreshRetry, at: Samples.at(1748)), .emit(.refreshRetryScheduled(at: Samples.at(1748)))])
        #expect(run.effects[5] == [.finish(Samples.call1, .failed(.server(status: 502, nil))), .emit(.offline)])
        #expect(run.phase == .active(SessionLifecycle.Active(credentials: c, refresh: .offline)))
        #expect(!run.effects.flatMap { $0 }.contains(.clearCredentials))
    }
}
