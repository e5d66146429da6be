import Testing
@testable import AuthCore

/// Two signed-out flows side by side, one active at a time.
enum OneOfTable {
    typealias Flows = OneOf<CodeRegistration, PasswordSignIn>
    typealias Phase = Flows.Phase
    static let machine = OneOf(CodeRegistration(resendCooldown: .seconds(60)), PasswordSignIn(identifiers: .email))
    static let t0 = Samples.t0
    static let emailID = SignInIdentifier.email(Samples.email)
    static let submitEmail = Either<CodeRegistration.Intent, PasswordSignIn.Intent>.first(.submitEmail(Samples.emailText))
    static let signIn = Either<CodeRegistration.Intent, PasswordSignIn.Intent>.second(
        .submit(identifier: Samples.emailText, password: Samples.passwordInput))

    static func row(_ name: String, _ from: Phase, _ event: AuthEvent<Flows.Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 1)
        -> Row<Flows>
    {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static let sending = Phase.first(.sendingCode(Samples.email, Samples.r(1)))
    static let signingIn = Phase.second(.signingIn(emailID, Samples.r(2)))

    static let rows: [Row<Flows>] = [
        row(
            "first + withdrawn(its intent) → routed to the first flow, which abandons the request", sending,
            .withdrawn(Samples.pending, at: t0), .first(.enteringEmail), [.cancel(Samples.r(1)), .finish(Samples.pending, .cancelled)]),
        row("second + withdrawn(an intent it does not wait for) → unchanged", signingIn, .withdrawn(unknownIntent, at: t0), signingIn, []),
        row(
            "first + first intent → routed to the first flow", .first(.enteringEmail), .intent(submitEmail, at: t0), sending,
            [.send(Samples.r(1), .sendEmailCode(Samples.email, .register))]),
        row(
            "first + second intent → the second flow starts from its beginning, the first's request becomes stale, its timers are cancelled",
            sending, .intent(signIn, at: t0), .second(.signingIn(emailID, Samples.r(2))),
            [
                .finish(Samples.pending, .superseded), .cancelTimer(.resendAvailable),
                .send(Samples.r(2), .signIn(emailID, Samples.password)),
            ],
            requests: 2),
        row(
            "first + reply(current) → routed to the first flow", sending, .reply(Samples.r(1), .accepted(nil), at: t0),
            .first(.awaitingCode(Samples.email, resendAt: Samples.at(60))),
            [.schedule(.resendAvailable, at: Samples.at(60)), .finish(Samples.pending, .codeSent(resendAt: Samples.at(60), expiresAt: nil))]),
        row("first + reply(stale id) → unchanged", sending, .reply(Samples.staleID, .accepted(nil), at: t0), sending, []),
        row("first + tick → routed to the first flow, nothing due", sending, .tick(Samples.at(60)), sending, []),
        row("first + launched → routed to the first flow, ignored", sending, .launched(.unreadable, at: t0), sending, []),
        row(
            "second + second intent → routed to the second flow", signingIn, .intent(.second(.startOver), at: t0), .second(.enteringCredentials),
            [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
        row(
            "second + first intent → the first flow starts from its beginning, the second's timers are cancelled", signingIn,
            .intent(submitEmail, at: t0), .first(.sendingCode(Samples.email, Samples.r(3))),
            [
                .finish(Samples.pending, .superseded), .cancelTimer(.rateLimitEnds),
                .send(Samples.r(3), .sendEmailCode(Samples.email, .register)),
            ], requests: 3),
        row(
            "second + reply(current) → routed to the second flow", signingIn, .reply(Samples.r(2), .granted(Samples.plainGrant), at: t0),
            .second(.signedIn(Samples.plainGrant)), [.finish(Samples.pending, .signedIn(Samples.user))]),
        row(
            "second + reply(the abandoned first flow's request) → unchanged", signingIn, .reply(Samples.r(1), .accepted(nil), at: t0), signingIn, []),
        row(
            "second + tick → routed to the second flow (rate limit ends)", .second(.rateLimited(until: Samples.at(60))), .tick(Samples.at(60)),
            .second(.enteringCredentials), []),
        row("second + launched → ignored", signingIn, .launched(.stored(Samples.plainCredentials), at: t0), signingIn, []),
    ]

    static let phaseCases = ["first", "second"]
    static let intentCases = ["first", "second"]
}

@Suite("OneOf transitions")
struct OneOfTransitionTests {
    @Test("every OneOf row gives the expected phase and effects", arguments: OneOfTable.rows)
    func transition(_ row: Row<OneOfTable.Flows>) { row.verify() }

    @Test("a OneOf's timers are both flows' once each, nested OneOfs and Handover included")
    func timers() {
        #expect(OneOfTable.machine.timers == [.resendAvailable, .rateLimitEnds])
        let nested = OneOf(
            OneTimeCodeSignIn(channel: .email, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3), OneOfTable.machine)
        #expect(nested.timers == [.resendAvailable, .codeExpiry, .rateLimitEnds])
        let app = Handover(entry: OneOfTable.machine, session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored)))
        #expect(app.timers == [.resendAvailable, .rateLimitEnds, .proactiveRefresh, .refreshRetry, .sessionExpiry])
    }

    @Test("the active flow's grant is the one handed over")
    func handover() {
        #expect(OneOfTable.machine.handover(.second(.signedIn(Samples.plainGrant))) == Samples.plainGrant)
        #expect(OneOfTable.machine.handover(.first(.registered(Samples.passwordUnsetGrant))) == Samples.passwordUnsetGrant)
        #expect(OneOfTable.machine.handover(OneOfTable.signingIn) == nil)
    }
}
