import Testing
@testable import AuthCore

/// OpenID Connect sign-in by the device authorization grant (RFC 8628).
enum DeviceSignInTable {
    typealias Phase = DeviceSignIn.Phase
    typealias Intent = DeviceSignIn.Intent
    static let issuer = "https://id.example"
    static let clientID = "tv-1"
    static let machine = DeviceSignIn(issuer: issuer, clientID: clientID)
    static let t0 = Samples.t0

    static let deviceCode = DeviceCode("device-code-1")
    static let prompt = UserCodePrompt(
        userCode: "WDJB-MJHT", verificationURI: "https://id.example/device",
        verificationURIComplete: "https://id.example/device?user_code=WDJB-MJHT")
    /// Issued at t0 for 30 minutes, no `interval`: 5 seconds.
    static let authorization = DeviceAuthorization(deviceCode: deviceCode, prompt: prompt, lifetime: .seconds(1800))
    static let poll = DevicePoll(deviceCode: deviceCode, prompt: prompt, expiresAt: Samples.at(1800), interval: .seconds(5))
    static func poll(every seconds: Int64) -> DevicePoll {
        var changed = poll
        changed.interval = .seconds(seconds)
        return changed
    }
    static let pollRequest = APIRequest.pollDeviceToken(deviceCode)

    static let claims = IDTokenClaims(
        issuer: issuer, subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(300), issuedAt: t0)
    static func grant(_ claims: IDTokenClaims?) -> Grant {
        Grant(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiry: .after(Samples.lifetime), user: Samples.user, idToken: claims)
    }
    static let good = grant(claims)

    static let phases: [(String, Phase)] = [
        ("idle", .idle),
        ("requestingCode", .requestingCode(Samples.r(1))),
        ("waitingToPoll", .waitingToPoll(poll, at: Samples.at(5), next: Samples.r(2))),
        ("polling", .polling(poll, Samples.r(2))),
        ("signedIn", .signedIn(good)),
    ]
    static let requesting = phases[1].1
    static let waiting = phases[2].1
    static let polling = phases[3].1

    static func row(
        _ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 3
    ) -> Row<DeviceSignIn> {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: Intent) -> AuthEvent<Intent> { .intent(intent, at: t0) }
    /// The poll `r2`'s answer, at `seconds` after t0.
    static func answer(_ reply: Reply, at seconds: Int64 = 6) -> AuthEvent<Intent> { .reply(Samples.r(2), reply, at: Samples.at(seconds)) }
    /// Waiting again after the poll's answer at t0 + 6 s: the next poll is `r3`.
    static func waitingAgain(_ poll: DevicePoll, delay: Int64) -> Phase { .waitingToPoll(poll, at: Samples.at(6 + delay), next: Samples.r(3)) }
    static func rescheduled(_ delay: Int64) -> [AuthEffect] { [.schedule(.devicePoll, at: Samples.at(6 + delay))] }

    static let rows: [Row<DeviceSignIn>] = [
        // idle
        row(
            "idle + start → requestingCode, asks for the codes", .idle, intent(.start), .requestingCode(Samples.r(3)),
            [
                .send(Samples.r(3), .requestDeviceCode)
            ]),
        row("idle + cancel → unchanged", .idle, intent(.cancel), .idle, [.finish(Samples.intent, .unchanged)]),
        row("idle + reply(stale) → unchanged", .idle, .reply(Samples.r(1), .device(.slowDown), at: t0), .idle, []),
        row("idle + tick → unchanged", .idle, .tick(Samples.at(5)), .idle, []),
        row("idle + launched → unchanged", .idle, .launched(.none, at: t0), .idle, []),
        row("idle + withdrawn → unchanged", .idle, .withdrawn(Samples.pending, at: t0), .idle, []),

        // requestingCode
        row(
            "requestingCode + reply(codeIssued, no interval) → waitingToPoll 5 s, the intent now waits for the next poll",
            requesting, .reply(Samples.r(1), .device(.codeIssued(authorization)), at: t0),
            .waitingToPoll(poll, at: Samples.at(5), next: Samples.r(3)),
            [.schedule(.deviceCodeExpiry, at: Samples.at(1800)), .schedule(.devicePoll, at: Samples.at(5))]),
        row(
            "requestingCode + reply(codeIssued, interval 7 s) → waitingToPoll 7 s", requesting,
            .reply(
                Samples.r(1),
                .device(.codeIssued(DeviceAuthorization(deviceCode: deviceCode, prompt: prompt, lifetime: .seconds(1800), interval: .seconds(7)))),
                at: t0),
            .waitingToPoll(poll(every: 7), at: Samples.at(7), next: Samples.r(3)),
            [.schedule(.deviceCodeExpiry, at: Samples.at(1800)), .schedule(.devicePoll, at: Samples.at(7))]),
        row(
            "requestingCode + reply(codeIssued, interval 0) → waitingToPoll at the default 5 s", requesting,
            .reply(
                Samples.r(1),
                .device(.codeIssued(DeviceAuthorization(deviceCode: deviceCode, prompt: prompt, lifetime: .seconds(1800), interval: .zero))),
                at: t0),
            .waitingToPoll(poll, at: Samples.at(5), next: Samples.r(3)),
            [.schedule(.deviceCodeExpiry, at: Samples.at(1800)), .schedule(.devicePoll, at: Samples.at(5))]),
        row(
            "requestingCode + reply(failed 400 invalid_client) → idle, fails", requesting,
            .reply(Samples.r(1), .failed(.badRequest("invalid_client")), at: t0),
            .idle, [.finish(Samples.pending, .failed(.badRequest("invalid_client")))]),
        row(
            "requestingCode + reply(failed network) → idle, fails network", requesting, .reply(Samples.r(1), .failed(.network), at: t0), .idle,
            [.finish(Samples.pending, .failed(.network))]),
        row(
            "requestingCode + reply(another shape) → idle, fails malformed", requesting, .reply(Samples.r(1), .accepted(nil), at: t0), .idle,
            [.finish(Samples.pending, .failed(.malformed))]),
        row("requestingCode + reply(stale) → unchanged", requesting, .reply(Samples.r(9), .device(.slowDown), at: t0), requesting, []),
        row("requestingCode + start → rejected busy", requesting, intent(.start), requesting, [.reject(Samples.intent, .busy)]),
        row(
            "requestingCode + cancel → idle, the request dropped, its intent superseded", requesting, intent(.cancel), .idle,
            [.cancel(Samples.r(1)), .finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
        row("requestingCode + tick → unchanged", requesting, .tick(Samples.at(5)), requesting, []),
        row("requestingCode + launched → unchanged", requesting, .launched(.none, at: t0), requesting, []),
        row(
            "requestingCode + withdrawn(its intent) → idle, the request dropped, cancelled", requesting, .withdrawn(Samples.pending, at: t0), .idle,
            [.cancel(Samples.r(1)), .finish(Samples.pending, .cancelled)]),
        row("requestingCode + withdrawn(another intent) → unchanged", requesting, .withdrawn(unknownIntent, at: t0), requesting, []),

        // waitingToPoll
        row(
            "waitingToPoll + tick at the poll's time → polling, sends the device code", waiting, .tick(Samples.at(5)), polling,
            [.send(Samples.r(2), pollRequest)]),
        row("waitingToPoll + tick before the poll's time → unchanged, nothing sent", waiting, .tick(Samples.at(4)), waiting, []),
        row(
            "waitingToPoll + tick at the codes' expiry → idle, rejected deviceCodeExpired, no poll", waiting, .tick(Samples.at(1800)), .idle,
            [.cancelTimer(.devicePoll), .cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .rejected(.deviceCodeExpired))]),
        row("waitingToPoll + reply(stale) → unchanged", waiting, .reply(Samples.r(1), .device(.slowDown), at: t0), waiting, []),
        row(
            "waitingToPoll + reply(to its next id, never sent) → unchanged", waiting, .reply(Samples.r(2), .granted(good), at: t0), waiting, []),
        row("waitingToPoll + start → rejected busy", waiting, intent(.start), waiting, [.reject(Samples.intent, .busy)]),
        row(
            "waitingToPoll + cancel → idle, timers dropped, its intent superseded", waiting, intent(.cancel), .idle,
            [.cancelTimer(.devicePoll), .cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
        row("waitingToPoll + launched → unchanged", waiting, .launched(.none, at: t0), waiting, []),
        row(
            "waitingToPoll + withdrawn(its intent) → idle, timers dropped, cancelled", waiting, .withdrawn(Samples.pending, at: t0), .idle,
            [.cancelTimer(.devicePoll), .cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .cancelled)]),
        row("waitingToPoll + withdrawn(another intent) → unchanged", waiting, .withdrawn(unknownIntent, at: t0), waiting, []),

        // polling
        row(
            "polling + reply(granted, a good ID token) → signedIn, the expiry dropped", polling, answer(.granted(good)), .signedIn(good),
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .signedIn(Samples.user))]),
        row(
            "polling + reply(granted, an ID token with a nonce) → signedIn: no nonce was sent, none is compared", polling,
            answer(
                .granted(grant(IDTokenClaims(issuer: issuer, subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(300), nonce: "n")))
            ),
            .signedIn(grant(IDTokenClaims(issuer: issuer, subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(300), nonce: "n"))),
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .signedIn(Samples.user))]),
        row(
            "polling + reply(granted, no ID token) → idle, fails unauthorized (missing)", polling, answer(.granted(grant(nil))), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .failed(.unauthorized(IDTokenProblem.missing.description)))]),
        row(
            "polling + reply(granted, another audience) → idle, fails unauthorized (aud)", polling,
            answer(.granted(grant(IDTokenClaims(issuer: issuer, subject: Samples.userID, audiences: ["other"], expiresAt: Samples.at(300))))), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .failed(.unauthorized(IDTokenProblem.audience.description)))]),
        row(
            "polling + reply(granted, another issuer) → idle, fails unauthorized (iss)", polling,
            answer(
                .granted(
                    grant(IDTokenClaims(issuer: "https://evil.example", subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(300))))),
            .idle, [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .failed(.unauthorized(IDTokenProblem.issuer.description)))]),
        row(
            "polling + reply(granted, expired ID token) → idle, fails unauthorized (exp)", polling,
            answer(.granted(grant(IDTokenClaims(issuer: issuer, subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(1))))), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .failed(.unauthorized(IDTokenProblem.expired.description)))]),
        row(
            "polling + reply(authorization_pending) → waitingToPoll the same interval after the answer", polling,
            answer(.device(.authorizationPending)),
            waitingAgain(poll, delay: 5), rescheduled(5)),
        row(
            "polling + reply(slow_down) → waitingToPoll, the interval 5 s longer from now on", polling, answer(.device(.slowDown)),
            waitingAgain(poll(every: 10), delay: 10), rescheduled(10)),
        row(
            "polling + reply(access_denied) → idle, rejected signInDeclined", polling, answer(.device(.accessDenied)), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .rejected(.signInDeclined))]),
        row(
            "polling + reply(expired_token) → idle, rejected deviceCodeExpired", polling, answer(.device(.expiredToken)), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .rejected(.deviceCodeExpired))]),
        row(
            "polling + reply(failed network) → waitingToPoll, the interval doubled", polling, answer(.failed(.network)),
            waitingAgain(poll(every: 10), delay: 10), rescheduled(10)),
        row(
            "polling + reply(failed timeout) → waitingToPoll, the interval doubled", polling, answer(.failed(.timeout)),
            waitingAgain(poll(every: 10), delay: 10), rescheduled(10)),
        row(
            "polling + reply(failed 503) → waitingToPoll the interval", polling, answer(.failed(.server(status: 503, nil))),
            waitingAgain(poll, delay: 5),
            rescheduled(5)),
        row(
            "polling + reply(failed 429, Retry-After 30 s) → waitingToPoll 30 s, the interval kept", polling,
            answer(.failed(.rateLimited(retryAfter: .seconds(30)))), waitingAgain(poll, delay: 30), rescheduled(30)),
        row(
            "polling + reply(failed malformed) → waitingToPoll the interval", polling, answer(.failed(.malformed)), waitingAgain(poll, delay: 5),
            rescheduled(5)),
        row(
            "polling + reply(another shape) → waitingToPoll the interval (unreadable)", polling, answer(.accepted(nil)), waitingAgain(poll, delay: 5),
            rescheduled(5)),
        row(
            "polling + reply(failed 400 invalid_grant) → idle, fails", polling, answer(.failed(.badRequest("invalid_grant"))), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .failed(.badRequest("invalid_grant")))]),
        row(
            "polling + reply(authorization_pending) after the codes' expiry → idle, rejected deviceCodeExpired", polling,
            answer(.device(.authorizationPending), at: 1800), .idle,
            [.cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .rejected(.deviceCodeExpired))]),
        row("polling + reply(stale) → unchanged", polling, .reply(Samples.r(1), .device(.slowDown), at: t0), polling, []),
        row("polling + start → rejected busy", polling, intent(.start), polling, [.reject(Samples.intent, .busy)]),
        row(
            "polling + cancel → idle, the poll dropped, its intent superseded", polling, intent(.cancel), .idle,
            [.cancel(Samples.r(2)), .cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
        row("polling + tick at the codes' expiry → unchanged: the poll's answer decides", polling, .tick(Samples.at(1800)), polling, []),
        row("polling + launched → unchanged", polling, .launched(.none, at: t0), polling, []),
        row(
            "polling + withdrawn(its intent) → idle, the poll dropped, cancelled", polling, .withdrawn(Samples.pending, at: t0), .idle,
            [.cancel(Samples.r(2)), .cancelTimer(.deviceCodeExpiry), .finish(Samples.pending, .cancelled)]),
        row("polling + withdrawn(another intent) → unchanged", polling, .withdrawn(unknownIntent, at: t0), polling, []),

        // signedIn
        row("signedIn + start → rejected alreadySignedIn", phases[4].1, intent(.start), phases[4].1, [.reject(Samples.intent, .alreadySignedIn)]),
        row("signedIn + cancel → rejected alreadySignedIn", phases[4].1, intent(.cancel), phases[4].1, [.reject(Samples.intent, .alreadySignedIn)]),
        row("signedIn + reply(stale) → unchanged", phases[4].1, .reply(Samples.r(2), .device(.slowDown), at: t0), phases[4].1, []),
        row("signedIn + tick → unchanged", phases[4].1, .tick(Samples.at(1800)), phases[4].1, []),
        row("signedIn + launched → unchanged", phases[4].1, .launched(.none, at: t0), phases[4].1, []),
        row("signedIn + withdrawn → unchanged", phases[4].1, .withdrawn(Samples.pending, at: t0), phases[4].1, []),
    ]

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["start", "cancel"]
}

@Suite("DeviceSignIn transitions")
struct DeviceSignInTransitionTests {
    typealias T = DeviceSignInTable

    @Test("each row", arguments: DeviceSignInTable.rows)
    func row(_ row: Row<DeviceSignIn>) { row.verify() }

    @Test("the interval rule over a whole sign-in: 5 s, then 10 s after slow_down, then 20 s after a lost poll")
    func pacing() {
        let answers: [Reply] = [.device(.authorizationPending), .device(.slowDown), .device(.authorizationPending), .failed(.network)]
        var events: [AuthEvent<T.Intent>] = [T.intent(.start), .reply(Samples.r(1), .device(.codeIssued(T.authorization)), at: T.t0)]
        var now = T.t0
        var phase: T.Phase = .idle
        var context = FlowContext()
        var sent: [Instant] = []
        for event in events { _ = T.machine.step(&phase, event, &context) }
        for answer in answers + [.granted(T.good)] {
            guard case .waitingToPoll(_, let at, _) = phase else {
                Issue.record("not waiting: \(phase)")
                return
            }
            now = at
            let effects = T.machine.step(&phase, .tick(now), &context)
            guard case .send(let id, .pollDeviceToken)? = effects.first, case .polling = phase else {
                Issue.record("no poll at \(now): \(effects)")
                return
            }
            sent.append(now)
            now = now + .seconds(1)
            events.append(.reply(id, answer, at: now))
            _ = T.machine.step(&phase, .reply(id, answer, at: now), &context)
        }
        let gaps = zip(sent.dropFirst(), sent).map { ($0 - $1).milliseconds / 1000 }
        #expect(gaps == [6, 11, 11, 21])  // Each the interval after the answer, which came 1 s after the poll.
        #expect(phase == .signedIn(T.good))
        #expect(context.waiters.isEmpty)
    }

    @Test("the intent waits for the whole sign-in and is finished once")
    func oneAnswer() {
        let (_, effects, context) = play(
            T.machine, from: .idle,
            [
                T.intent(.start), .reply(Samples.r(1), .device(.codeIssued(T.authorization)), at: T.t0), .tick(Samples.at(5)),
                .reply(Samples.r(2), .device(.authorizationPending), at: Samples.at(5)), .tick(Samples.at(10)),
                .reply(Samples.r(3), .device(.accessDenied), at: Samples.at(10)),
            ])
        let finishes = effects.flatMap { $0 }.filter(\.isFinish)
        #expect(finishes == [.finish(Samples.intent, .rejected(.signInDeclined))])
        #expect(context.waiters.isEmpty)
    }

    @Test("the prompt is readable while polling, and only then")
    func prompt() {
        #expect(T.machine.prompt(in: T.waiting) == T.prompt)
        #expect(T.machine.prompt(in: T.polling) == T.prompt)
        #expect(T.machine.prompt(in: T.requesting) == nil)
        #expect(T.machine.prompt(in: .idle) == nil)
    }

    @Test("composed: an app offers both sign-ins, a device grant hands over to the session, switching to the browser stops polling")
    func composed() {
        let app = Apps.openIDConnect(OpenIDSignIn(issuer: T.issuer, clientID: T.clientID))
        var state = app.initial
        let start = app.reduce(&state, .intent(app.intent(DeviceSignIn.Intent.start), id: IntentID(1), at: T.t0))
        guard case .send(let code, .requestDeviceCode)? = start.first else {
            Issue.record("no device authorization sent: \(start)")
            return
        }
        _ = app.reduce(&state, .reply(code, .device(.codeIssued(T.authorization)), at: T.t0))
        let tick = app.reduce(&state, .tick(Samples.at(5)))
        guard case .send(let poll, .pollDeviceToken(T.deviceCode))? = tick.first else {
            Issue.record("no poll sent: \(tick)")
            return
        }
        var other = state
        let granted = app.reduce(&state, .reply(poll, .granted(T.good), at: Samples.at(6)))
        #expect(granted.contains(.persist(Credentials(T.good, receivedAt: Samples.at(6)))))
        #expect(granted.contains(.finish(IntentID(1), .signedIn(Samples.user))))

        // The browser sign-in started instead while a poll is in flight: the device sign-in stops.
        let switched = app.reduce(
            &other, .intent(app.intent(OpenIDSignIn.Intent.begin(OpenIDSignInTable.attempt)), id: IntentID(2), at: Samples.at(5)))
        #expect(switched.contains(.finish(IntentID(1), .superseded)))
        #expect(switched.contains(.cancelTimer(.devicePoll)) && switched.contains(.cancelTimer(.deviceCodeExpiry)))
        #expect(app.reduce(&other, .reply(poll, .granted(T.good), at: Samples.at(6))).isEmpty)  // The stale poll's grant changes nothing.
    }
}
