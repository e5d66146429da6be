import Testing
@testable import AuthCore

/// Reducer bugs the verification kit's explorer found, each kept as a regression test named after
/// what the search showed (the shortest trace is in the test's comment).
@Suite("Explorer findings")
struct ExplorerFindingsTests {
    /// session models: call(call1), call(call1) → the same call sent twice; a 401 then replays
    /// one of them, and the answers can reach the wrong caller.
    @Test("a second call under a pending call's id is ignored: the one answer still reaches the one caller")
    func duplicateCallIsRefused() {
        let machine = Apps.everday().session
        let session = SessionLifecycle.Active(credentials: Samples.rotatingCredentials)
        let run = play(
            machine, from: .active(session), requests: 3,
            [.intent(.call, id: Samples.call1, at: Samples.t0), .intent(.call, id: Samples.call1, at: Samples.t0)])
        #expect(run.effects[1] == [])
        guard case .active(let after) = run.phase else {
            Issue.record("left active: \(run.phase)")
            return
        }
        #expect(after.calls.map(\.id) == [Samples.call1])
    }

    /// realtimeConnection: sign in, log out, sign in again, disconnect, connect(old token) → the
    /// connection opened with a token the session no longer holds.
    @Test("a connect intent opens the connection with the session's current token, not the one it carried")
    func connectUsesTheSessionToken() {
        let app = SessionWithRealtime(
            session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored, forbiddenEndsSession: true)))
        let current = Credentials(accessToken: Samples.access2, user: Samples.user)
        let run = play(
            app, from: SessionWithRealtime.Phase(session: .active(SessionLifecycle.Active(credentials: current)), connection: .idle), requests: 4,
            [.intent(.connection(.connect(Samples.access1)), at: Samples.t0)])
        #expect(run.effects[0] == [.send(Samples.r(4), .openRealtime(Samples.access2)), .finish(Samples.intent, .done)])
        #expect(run.phase.connection == .connecting(Samples.access2, Samples.r(4), attempt: 0, flaps: 0))
    }
}

/// codeRegistration, oneTimeCodeSignIn, passwordReset: submit → code sent → startOver → submit the
/// same address → a second code requested inside the cooldown. In the apps the same happened by
/// switching to another flow and back.
@Suite("Explorer findings: code cooldowns")
struct CodeCooldownFindingsTests {
    static let cooldown = Interval.seconds(60)

    /// Requests a code, has it sent, starts over, and requests again for the same address.
    static func again<Machine: Lifecycle>(
        _ machine: Machine, request: Machine.Intent, startOver: Machine.Intent, at second: Instant
    ) -> [AuthEffect] {
        var state = machine.initial
        _ = machine.reduce(&state, .intent(request, at: Samples.t0))
        _ = machine.reduce(&state, .reply(RequestID(1), .accepted(nil), at: Samples.t0))
        _ = machine.reduce(&state, .intent(startOver, at: Samples.at(1)))
        return machine.reduce(&state, .intent(request, at: second))
    }

    @Test("starting over does not skip a registration code's cooldown, and it ends when it ends")
    func codeRegistration() {
        let machine = CodeRegistration(resendCooldown: Self.cooldown)
        #expect(
            Self.again(machine, request: .submitEmail(Samples.emailText), startOver: .startOver, at: Samples.at(30)) == [
                .reject(Samples.intent, .resendCooldown(until: Samples.at(60)))
            ])
        #expect(
            Self.again(machine, request: .submitEmail(Samples.emailText), startOver: .startOver, at: Samples.at(60)) == [
                .send(RequestID(2), .sendEmailCode(Samples.email, .register))
            ])
    }

    @Test("starting over does not skip a sign-in code's cooldown", arguments: [OneTimeCodeSignIn.Channel.email, .phone])
    func oneTimeCode(_ channel: OneTimeCodeSignIn.Channel) {
        let machine = OneTimeCodeSignIn(channel: channel, resendCooldown: Self.cooldown)
        let destination = channel == .email ? Samples.emailText : Samples.phoneText
        #expect(
            Self.again(machine, request: .submitDestination(destination), startOver: .startOver, at: Samples.at(30)) == [
                .reject(Samples.intent, .resendCooldown(until: Samples.at(60)))
            ])
    }

    @Test("starting over does not skip a reset's cooldown", arguments: [PasswordReset.Style.emailCodeWithAutoLogin, .emailedToken, .emailLink])
    func passwordReset(_ style: PasswordReset.Style) {
        let machine = PasswordReset(style: style, resendCooldown: Self.cooldown)
        let identifier = style == .emailedToken ? Samples.usernameText : Samples.emailText
        #expect(
            Self.again(machine, request: .requestReset(identifier), startOver: .startOver, at: Samples.at(30)) == [
                .reject(Samples.intent, .resendCooldown(until: Samples.at(60)))
            ])
    }

    @Test("switching to another flow and back does not skip a registration code's cooldown")
    func switchingFlows() {
        let app = Apps.anonymousWall(codeCooldown: Self.cooldown)
        let register = app.intent(CodeRegistration.Intent.submitEmail(Samples.emailText))
        let signIn = app.intent(PasswordSignIn.Intent.startOver)
        // Coming back cancels the timers the flow left may have pending, then refuses the code.
        #expect(
            CodeCooldownFindingsTests.again(app, request: register, startOver: signIn, at: Samples.at(30)) == [
                .cancelTimer(.rateLimitEnds), .cancelTimer(.resendAvailable), .cancelTimer(.codeExpiry),
                .reject(Samples.intent, .resendCooldown(until: Samples.at(60))),
            ])
    }

    @Test("a session beginning or ending clears the code cooldowns with the rest of the code context (Everday's API document, Logout)")
    func sessionClearsCooldowns() {
        let app = Apps.anonymousWall(codeCooldown: Self.cooldown)
        var state = app.initial
        _ = app.reduce(&state, .intent(app.intent(CodeRegistration.Intent.submitEmail(Samples.emailText)), at: Samples.t0))
        _ = app.reduce(&state, .reply(RequestID(1), .accepted(nil), at: Samples.t0))
        #expect(state.context.codeCooldowns.count == 1)
        _ = app.reduce(
            &state,
            .intent(app.intent(PasswordSignIn.Intent.submit(identifier: Samples.emailText, password: Samples.passwordInput)), at: Samples.at(1)))
        _ = app.reduce(&state, .reply(RequestID(2), .granted(Samples.plainGrant), at: Samples.at(2)))
        guard case .signedIn = state.phase else {
            Issue.record("not signed in: \(state.phase)")
            return
        }
        #expect(state.context.codeCooldowns.isEmpty)
        var cooling = state
        cooling.context.codeSent(to: .destination(.email(Samples.email), .register), resendAt: Samples.at(60))
        _ = app.reduce(&cooling, .intent(.session(.logout), at: Samples.at(4)))
        guard case .signedOut = cooling.phase else {
            Issue.record("not signed out: \(cooling.phase)")
            return
        }
        #expect(cooling.context.codeCooldowns.isEmpty)
    }
}

/// session.everday: sign in with RequirePasswordChange, relaunch, the restore's refresh answered
/// 429 → offline, a usable session while the password must still be changed.
@Suite("Explorer findings: password steps")
struct PasswordStepFindingsTests {
    @Test(
        "a restore the server could not confirm still lands in the password change it owes",
        arguments: [
            Reply.failed(.rateLimited(retryAfter: .seconds(30))), .failed(.network), .accepted(nil),
        ])
    func unconfirmedRestoreKeepsTheStep(_ answer: Reply) {
        var credentials = Credentials(Samples.passwordChangeGrant, receivedAt: Samples.t0)
        credentials.user.passwordChangeRequired = true
        let run = play(
            Apps.everday().session, from: .signedOut, requests: 5,
            [.launched(.stored(credentials), at: Samples.at(1)), .reply(Samples.r(5), answer, at: Samples.at(2))])
        #expect(run.phase == .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: credentials)))
    }
}
