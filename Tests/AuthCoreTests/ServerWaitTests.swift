import Testing
@testable import AuthCore

/// A server's 429 with `Retry-After` holds for every request to that endpoint until its time: the
/// machine answers such a request at once with the server's 429 instead of sending it, and the
/// intent is finished as refused before any request, at the server's time.
@Suite("The server's waits")
struct ServerWaitTests {
    typealias Flow = CodeRegistration

    static let flow = CodeRegistration(resendCooldown: .seconds(60))

    /// The sends among `effects`.
    static func sends(_ effects: [AuthEffect]) -> [APIRequest] {
        effects.compactMap { if case .send(_, let request) = $0 { request } else { nil } }
    }

    /// A code registration whose code request the server answered 429, Retry-After 30 s.
    static func rateLimited() -> (LifecycleState<Flow.Phase>, [AuthEffect]) {
        var state = LifecycleState(phase: flow.initialPhase)
        let sent = flow.reduce(&state, .intent(.submitEmail(Samples.email.rawValue), id: Samples.intent, at: Samples.t0))
        #expect(sends(sent).count == 1)
        let answered = flow.reduce(&state, .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(30))), at: Samples.t0))
        return (state, answered)
    }

    @Test("a 429 with Retry-After starts the endpoint's wait, and nothing is scheduled for its end")
    func waitStarts() {
        let (state, effects) = Self.rateLimited()
        #expect(state.context.serverWait(for: .sendEmailCode, at: Samples.at(29)) == Samples.at(30))
        #expect(state.context.serverWait(for: .sendEmailCode, at: Samples.at(30)) == nil)
        #expect(state.context.serverWait(for: .registerWithEmailCode, at: Samples.at(1)) == nil)
        #expect(!effects.contains { if case .schedule = $0 { true } else { false } })
    }

    @Test("the user's next attempt inside the wait is refused at once with the server's time, and nothing is sent")
    func attemptInsideTheWait() {
        var (state, answered) = Self.rateLimited()
        // The server's own 429 is a failure, with its Retry-After.
        #expect(answered.contains(.finish(Samples.intent, .failed(.rateLimited(retryAfter: .seconds(30))))))
        let effects = Self.flow.reduce(&state, .intent(.submitEmail(Samples.email.rawValue), id: Samples.call1, at: Samples.at(10)))
        #expect(Self.sends(effects).isEmpty)
        // Held back, it never left: a refusal before any request, until the server's time.
        #expect(effects.contains(.finish(Samples.call1, .rejected(.rateLimited(until: Samples.at(30))))))
        #expect(!effects.contains { if case .finish(_, .failed) = $0 { true } else { false } })
    }

    @Test("once the server's time has come, the attempt is sent, and the wait is forgotten")
    func attemptAfterTheWait() {
        var (state, _) = Self.rateLimited()
        let effects = Self.flow.reduce(&state, .intent(.submitEmail(Samples.email.rawValue), id: Samples.call1, at: Samples.at(30)))
        #expect(Self.sends(effects).count == 1)
        #expect(state.context.serverWaits.isEmpty)
    }

    @Test("a 429 to a request nobody waits for any more (the user started over) starts no wait and changes nothing")
    func staleAnswerStartsNoWait() {
        var state = LifecycleState(phase: Self.flow.initialPhase)
        _ = Self.flow.reduce(&state, .intent(.submitEmail(Samples.email.rawValue), id: Samples.intent, at: Samples.t0))
        _ = Self.flow.reduce(&state, .intent(.startOver, id: Samples.call1, at: Samples.t0))
        let before = state
        let effects = Self.flow.reduce(&state, .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(30))), at: Samples.t0))
        #expect(effects.isEmpty && state == before)
    }

    @Test(
        "logout while the refresh endpoint waits and the token can no longer be attached: signed out at once, nothing sent, the revocation owed for later"
    )
    func logoutInsideTheRefreshWait() {
        let session = Apps.everday().session
        var state = LifecycleState(
            phase: SessionLifecycle.Phase.active(
                SessionLifecycle.Active(credentials: Samples.rotatingCredentials, refresh: .refreshing(Samples.r(1), attempt: 0))),
            context: FlowContext(next: 2))
        _ = session.reduce(&state, .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(300))), at: Samples.at(1750)))
        let effects = session.reduce(&state, .intent(.logout, id: Samples.intent, at: Samples.at(1790)))
        #expect(Self.sends(effects).isEmpty)
        #expect(effects.contains(.emit(.signedOut(.userRequested))))
        #expect(effects.contains(.emit(.serverSessionEndOwed(.rateLimited(retryAfter: .seconds(260))))))
        #expect(effects.contains(.persistOwedRevocations([OwedRevocation(refreshToken: Samples.refresh1, rounds: 1)])))
    }

    @Test(
        "a refused token while the refresh endpoint waits: the refresh waits for the server's time, spends no attempt and reports no failure; then it is sent"
    )
    func refreshInsideTheRefreshWait() {
        let session = Apps.everday().session
        var state = LifecycleState(
            phase: SessionLifecycle.Phase.active(SessionLifecycle.Active(credentials: Samples.rotatingCredentials, refresh: .offline)),
            context: FlowContext(next: 2))
        state.context.serverAsksToWait(for: .refresh, until: Samples.at(300))
        let effects = session.reduce(&state, .intent(.credentialsRejected, id: Samples.intent, at: Samples.at(10)))
        #expect(Self.sends(effects).isEmpty)
        #expect(effects.contains(.schedule(.refreshRetry, at: Samples.at(300))))
        #expect(!effects.contains { if case .emit = $0 { true } else { false } }, "\(effects)")
        guard case .active(let active) = state.phase else {
            Issue.record("the session ended: \(state.phase)")
            return
        }
        #expect(active.refresh == .backingOff(retryAt: Samples.at(300), attempt: 0))
        let due = session.reduce(&state, .tick(Samples.at(300)))
        let sent = Self.sends(due)
        #expect(sent.count == 1 && sent.allSatisfy { if case .refresh = $0 { true } else { false } }, "\(sent)")
    }

    @Test("a session beginning starts the server's limits over: a wait left by another flow is forgotten at sign-in")
    func signInForgetsTheWaits() {
        let app = Apps.subspace()
        var state = LifecycleState(phase: app.initialPhase)
        let registering: SubspaceApp.Intent = .entry(
            .first(.submit(RegistrationInput(name: Samples.nameText, email: Samples.emailText, password: Samples.passwordInput))))
        let sent = Self.sends(app.reduce(&state, .intent(registering, id: Samples.intent, at: Samples.t0)))
        #expect(sent.count == 1)
        _ = app.reduce(&state, .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(300))), at: Samples.t0))
        #expect(state.context.serverWait(for: .register, at: Samples.at(1)) == Samples.at(300))
        let signingIn: SubspaceApp.Intent = .entry(.second(.first(.submit(identifier: Samples.emailText, password: Samples.passwordInput))))
        #expect(Self.sends(app.reduce(&state, .intent(signingIn, id: Samples.call1, at: Samples.at(1)))).count == 1)
        let grant = Grant(accessToken: Samples.access1, expiry: .after(Samples.lifetime), user: Samples.user)
        _ = app.reduce(&state, .reply(Samples.r(2), .granted(grant), at: Samples.at(1)))
        #expect(state.context.serverWaits.isEmpty)
    }

    @Test(
        "a 429 to a restore holds the endpoint the restore asked: who-am-I while the token lives, refresh once it has ended",
        arguments: [(Int64(0), ServerEndpoint.currentUser), (Int64(1800), ServerEndpoint.refresh)])
    func restoreWaitsOnItsOwnEndpoint(launchedAt seconds: Int64, asked: ServerEndpoint) {
        let session = Apps.hero365().session
        var state = LifecycleState(phase: session.initialPhase)
        let launch = Samples.at(seconds)
        let sent = Self.sends(session.reduce(&state, .launched(.stored(Samples.rotatingCredentials), at: launch)))
        #expect(sent.count == 1)
        _ = session.reduce(&state, .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(30))), at: launch))
        #expect(state.context.serverWaits == [ServerWait(endpoint: asked, until: launch + .seconds(30))])
    }

    @Test("a code submitted while the server asks to wait is answered at once and costs no attempt: the code never reached the server")
    func heldCodeCostsNoAttempt() {
        let table = OneTimeCodeSignInTable.self
        let flow = table.email.machine
        var state = LifecycleState(phase: OneTimeCodeSignIn.Phase.awaitingCode(table.challenge(table.email, attemptsLeft: 1)))
        state.context.serverAsksToWait(for: .signInWithEmailCode, until: Samples.at(60))
        let held = flow.reduce(&state, .intent(.submitCode(Samples.codeInput), id: Samples.intent, at: Samples.at(10)))
        #expect(held == [.finish(Samples.intent, .rejected(.rateLimited(until: Samples.at(60))))])
        #expect(state.phase == .awaitingCode(table.challenge(table.email, attemptsLeft: 1)))
        let sent = flow.reduce(&state, .intent(.submitCode(Samples.codeInput), id: Samples.call1, at: Samples.at(60)))
        #expect(Self.sends(sent) == [table.email.verify(table.email.destination)])
        #expect(state.phase == .verifying(table.challenge(table.email, attemptsLeft: 0), RequestID(1)))
    }

    /// A broken flow that answers every failure by sending its request again, at once.
    struct Insistent: Lifecycle {
        enum Phase: LifecyclePhase {
            case idle, sending(RequestID)
            static let declaredCases = ["idle", "sending"]
        }
        enum Intent: CaseListing {
            case go
            static let declaredCases = ["go"]
        }
        var initialPhase: Phase { .idle }

        func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
            switch event {
            case .intent(.go, let id, _):
                let request = requests.issue(for: id)
                phase = .sending(request)
                return [.send(request, .sendEmailCode(Samples.email, .register))]
            case .reply(let answered, .failed, _):
                guard case .sending(answered) = phase, let intent = requests.intent(waitingFor: answered) else { return [] }
                _ = requests.finish(waitingFor: answered, .cancelled)
                let again = requests.issue(for: intent)
                phase = .sending(again)
                return [.send(again, .sendEmailCode(Samples.email, .register))]
            case .reply, .withdrawn, .tick, .launched:
                return []
            }
        }
    }

    @Test("a flow that answers the held request's 429 by sending again is told so four times, then let through rather than loop")
    func insistentFlowIsLetThroughAfterFourRounds() {
        let flow = Insistent()
        var state = LifecycleState(phase: flow.initialPhase)
        state.context.serverAsksToWait(for: .sendEmailCode, until: Samples.at(30))
        let effects = flow.reduce(&state, .intent(.go, id: Samples.intent, at: Samples.at(1)))
        // The first request and the four sent again inside the wait are held; the fifth leaves.
        #expect(Self.sends(effects).count == 1)
        #expect(state.context.next == 6)
        #expect(state.phase == .sending(RequestID(5)))
        #expect(state.context.serverWait(for: .sendEmailCode, at: Samples.at(1)) == Samples.at(30))
    }
}
