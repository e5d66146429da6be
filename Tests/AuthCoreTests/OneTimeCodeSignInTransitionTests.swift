import Testing
@testable import AuthCore

/// One-time code sign-in, for Anonymous Wall's email codes and Hero365's phone OTP.
enum OneTimeCodeSignInTable {
    typealias Phase = OneTimeCodeSignIn.Phase
    typealias Intent = OneTimeCodeSignIn.Intent

    /// What differs between the two channels.
    struct ChannelSamples: Sendable {
        var label: String
        var machine: OneTimeCodeSignIn
        var destinationText: String
        var destination: CodeDestination
        var otherDestinationText: String
        var otherDestination: CodeDestination
        var invalidDestinationText: String
        var invalidError: ValidationError

        func sendCode(_ destination: CodeDestination) -> APIRequest {
            switch destination {
            case .email(let email): .sendEmailCode(email, .login)
            case .phone(let phone): .sendPhoneCode(phone)
            }
        }

        func verify(_ destination: CodeDestination) -> APIRequest {
            switch destination {
            case .email(let email): .signInWithEmailCode(email, Samples.code)
            case .phone(let phone): .signInWithPhoneCode(phone, Samples.code)
            }
        }
    }

    static let email = ChannelSamples(
        label: "email", machine: OneTimeCodeSignIn(channel: .email, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3),
        destinationText: Samples.emailText, destination: .email(Samples.email), otherDestinationText: Samples.otherEmailText,
        otherDestination: .email(Samples.otherEmail), invalidDestinationText: Samples.badEmailText, invalidError: .emailMalformed)
    static let phone = ChannelSamples(
        label: "phone", machine: OneTimeCodeSignIn(channel: .phone, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3),
        destinationText: Samples.phoneText, destination: .phone(Samples.phone), otherDestinationText: Samples.otherPhoneText,
        otherDestination: .phone(Samples.otherPhone), invalidDestinationText: Samples.badPhoneText, invalidError: .phoneMissingCountryCode)

    static let t0 = Samples.t0

    /// A challenge issued at t0: expires at t0+300 s, resend from t0+30 s.
    static func challenge(_ channel: ChannelSamples, attemptsLeft: Int = 3) -> CodeChallenge {
        CodeChallenge(destination: channel.destination, expiresAt: Samples.at(300), resendAt: Samples.at(30), attemptsLeft: attemptsLeft)
    }

    static func phases(_ c: ChannelSamples) -> [(String, Phase)] {
        [
            ("enteringDestination", .enteringDestination),
            ("requestingCode", .requestingCode(c.destination, Samples.r(1))),
            ("awaitingCode", .awaitingCode(challenge(c))),
            ("resendingCode", .resendingCode(challenge(c), Samples.r(2))),
            ("verifying", .verifying(challenge(c, attemptsLeft: 2), Samples.r(3))),
            ("codeExpired", .codeExpired(challenge(c))),
            ("attemptsExhausted", .attemptsExhausted(challenge(c, attemptsLeft: 0))),
            ("signedIn", .signedIn(Samples.rotatingGrant)),
        ]
    }

    static let intentCases = ["submitDestination", "requestNewCode", "submitCode", "startOver"]

    static let cancelTimers: [AuthEffect] = [.cancelTimer(.codeExpiry), .cancelTimer(.resendAvailable)]

    /// Starting over ends the challenge; the resend cooldown lives in the context, so its timer runs on.
    static let startOverTimers: [AuthEffect] = [.cancelTimer(.codeExpiry)]

    static func rows(_ c: ChannelSamples) -> [Row<OneTimeCodeSignIn>] {
        let m = c.machine
        let ph = phases(c)
        func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 1)
            -> Row<OneTimeCodeSignIn>
        {
            Row("\(c.label): \(name)", m, from: from, on: event, to: to, effects: effects, requests: requests)
        }
        func intent(_ intent: Intent, at now: Instant = t0) -> AuthEvent<Intent> { .intent(intent, at: now) }
        let fresh = challenge(c)
        let issued: [AuthEffect] = [
            .schedule(.codeExpiry, at: Samples.at(300)), .schedule(.resendAvailable, at: Samples.at(30)),
            .finish(Samples.pending, .codeSent(resendAt: Samples.at(30), expiresAt: Samples.at(300))),
        ]
        let issuedLater = CodeChallenge(destination: c.destination, expiresAt: Samples.at(340), resendAt: Samples.at(70), attemptsLeft: 3)

        var rows: [Row<OneTimeCodeSignIn>] = [
            // enteringDestination
            row(
                "enteringDestination + submitDestination(valid) → requestingCode, sends the code request", .enteringDestination,
                intent(.submitDestination(c.destinationText)), .requestingCode(c.destination, Samples.r(1)),
                [.send(Samples.r(1), c.sendCode(c.destination))]),
            row(
                "enteringDestination + submitDestination(invalid) → unchanged, rejected invalid, nothing sent", .enteringDestination,
                intent(.submitDestination(c.invalidDestinationText)), .enteringDestination, [.reject(Samples.intent, .invalid(c.invalidError))]),
            row(
                "enteringDestination + requestNewCode → rejected notAvailableNow", .enteringDestination, intent(.requestNewCode),
                .enteringDestination, [.reject(Samples.intent, .notAvailableNow)]),
            row(
                "enteringDestination + submitCode → rejected notAvailableNow (no code outstanding)", .enteringDestination,
                intent(.submitCode(Samples.codeInput)), .enteringDestination, [.reject(Samples.intent, .notAvailableNow)]),
            row(
                "enteringDestination + startOver → enteringDestination, cancels the code expiry, the resend timer runs on", .enteringDestination,
                intent(.startOver),
                .enteringDestination, startOverTimers + [.finish(Samples.intent, .unchanged)]),

            // requestingCode
            row(
                "requestingCode + reply(accepted) → awaitingCode with lifetime, cooldown and attempts, emits codeSent",
                ph[1].1, .reply(Samples.r(1), .accepted("OTP sent successfully"), at: t0), .awaitingCode(fresh), issued),
            row(
                "requestingCode + reply(400 SMS failed) → enteringDestination, fails badRequest", ph[1].1,
                .reply(Samples.r(1), .failed(.badRequest("Failed to send OTP")), at: t0), .enteringDestination,
                [.finish(Samples.pending, .failed(.badRequest("Failed to send OTP")))]),
            row(
                "requestingCode + reply(stale id) → unchanged", ph[1].1, .reply(Samples.staleID, .accepted(nil), at: t0), ph[1].1, []),

            // awaitingCode
            row(
                "awaitingCode + submitCode(valid) → verifying with one attempt used, sends the verification", ph[2].1,
                intent(.submitCode(Samples.codeInput), at: Samples.at(10)), .verifying(challenge(c, attemptsLeft: 2), Samples.r(3)),
                [.send(Samples.r(3), c.verify(c.destination))], requests: 3),
            row(
                "awaitingCode + submitCode(12345) → unchanged, rejected invalid, no attempt used", ph[2].1,
                intent(.submitCode(CodeInput("12345")), at: Samples.at(10)), ph[2].1, [.reject(Samples.intent, .invalid(.codeNotSixDigits))]),
            row(
                "awaitingCode + submitCode after the lifetime → codeExpired, rejected codeExpired, nothing sent", ph[2].1,
                intent(.submitCode(Samples.codeInput), at: Samples.at(300)), .codeExpired(fresh), [.reject(Samples.intent, .codeExpired)]),
            row(
                "awaitingCode + requestNewCode before the cooldown → rejected resendCooldown", ph[2].1,
                intent(.requestNewCode, at: Samples.at(29)), ph[2].1, [.reject(Samples.intent, .resendCooldown(until: Samples.at(30)))]),
            row(
                "awaitingCode + requestNewCode at the cooldown's end → resendingCode, sends the code request", ph[2].1,
                intent(.requestNewCode, at: Samples.at(30)), .resendingCode(fresh, Samples.r(2)),
                [.send(Samples.r(2), c.sendCode(c.destination))], requests: 2),
            row(
                "awaitingCode + submitDestination(same) before the cooldown → rejected resendCooldown", ph[2].1,
                intent(.submitDestination(c.destinationText), at: Samples.at(5)), ph[2].1,
                [.reject(Samples.intent, .resendCooldown(until: Samples.at(30)))]),
            row(
                "awaitingCode + submitDestination(other) → requestingCode for it, the old challenge dropped", ph[2].1,
                intent(.submitDestination(c.otherDestinationText), at: Samples.at(5)), .requestingCode(c.otherDestination, Samples.r(2)),
                [.send(Samples.r(2), c.sendCode(c.otherDestination))], requests: 2),
            row(
                "awaitingCode + startOver → enteringDestination, cancels the code expiry, the resend timer runs on", ph[2].1, intent(.startOver),
                .enteringDestination,
                startOverTimers + [.finish(Samples.intent, .done)]),
            row(
                "awaitingCode + tick before expiry → unchanged", ph[2].1, .tick(Samples.at(299)), ph[2].1, []),
            row(
                "awaitingCode + tick at expiry → codeExpired, no effects", ph[2].1, .tick(Samples.at(300)), .codeExpired(fresh), []),
            row(
                "awaitingCode + reply(stale id) → unchanged", ph[2].1, .reply(Samples.r(1), .accepted(nil), at: t0), ph[2].1, []),

            // resendingCode: only the latest challenge counts
            row(
                "resendingCode + reply(accepted) → awaitingCode with a fresh challenge and attempts", ph[3].1,
                .reply(Samples.r(2), .accepted(nil), at: Samples.at(40)), .awaitingCode(issuedLater),
                [
                    .schedule(.codeExpiry, at: Samples.at(340)), .schedule(.resendAvailable, at: Samples.at(70)),
                    .finish(Samples.pending, .codeSent(resendAt: Samples.at(70), expiresAt: Samples.at(340))),
                ]),
            row(
                "resendingCode + reply(network) → awaitingCode with the old challenge, fails network", ph[3].1,
                .reply(Samples.r(2), .failed(.network), at: Samples.at(40)), .awaitingCode(fresh), [.finish(Samples.pending, .failed(.network))]),
            row(
                "resendingCode + reply(network) after the old code's lifetime → codeExpired", ph[3].1,
                .reply(Samples.r(2), .failed(.network), at: Samples.at(301)), .codeExpired(fresh), [.finish(Samples.pending, .failed(.network))]),
            row(
                "resendingCode + reply(stale id) → unchanged", ph[3].1, .reply(Samples.r(1), .accepted(nil), at: t0), ph[3].1, []),
            row("resendingCode + tick after the lifetime → unchanged", ph[3].1, .tick(Samples.at(400)), ph[3].1, []),

            // verifying: at most one in flight, never retried
            row(
                "verifying + reply(granted) → signedIn, cancels code timers", ph[4].1,
                .reply(Samples.r(3), .granted(Samples.rotatingGrant), at: Samples.at(20)), .signedIn(Samples.rotatingGrant),
                cancelTimers + [.finish(Samples.pending, .signedIn(Samples.rotatingGrant.user))]),
            row(
                "verifying + reply(401 invalid OTP) → awaitingCode with the attempt counted, fails unauthorized", ph[4].1,
                .reply(Samples.r(3), .failed(.unauthorized("Invalid OTP")), at: Samples.at(20)), .awaitingCode(challenge(c, attemptsLeft: 2)),
                [.finish(Samples.pending, .failed(.unauthorized("Invalid OTP")))]),
            row(
                "verifying + reply(401) on the last attempt → attemptsExhausted", .verifying(challenge(c, attemptsLeft: 0), Samples.r(3)),
                .reply(Samples.r(3), .failed(.unauthorized("Invalid OTP")), at: Samples.at(20)),
                .attemptsExhausted(challenge(c, attemptsLeft: 0)), [.finish(Samples.pending, .failed(.unauthorized("Invalid OTP")))]),
            row(
                "verifying + reply(network) → awaitingCode, fails network, not retried by itself", ph[4].1,
                .reply(Samples.r(3), .failed(.network), at: Samples.at(20)), .awaitingCode(challenge(c, attemptsLeft: 2)),
                [.finish(Samples.pending, .failed(.network))]),
            row(
                "verifying + reply(400) after the lifetime → codeExpired", ph[4].1,
                .reply(Samples.r(3), .failed(.badRequest(nil)), at: Samples.at(300)), .codeExpired(challenge(c, attemptsLeft: 2)),
                [.finish(Samples.pending, .failed(.badRequest(nil)))]),
            row(
                "verifying + reply(accepted without tokens) → awaitingCode, fails malformed", ph[4].1,
                .reply(Samples.r(3), .accepted(nil), at: Samples.at(20)), .awaitingCode(challenge(c, attemptsLeft: 2)),
                [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "verifying + reply(stale id from an earlier verification) → unchanged", ph[4].1,
                .reply(Samples.r(2), .granted(Samples.rotatingGrant), at: Samples.at(20)), ph[4].1, []),
            row(
                "verifying + tick after the lifetime → unchanged, the server judges the code in flight", ph[4].1, .tick(Samples.at(400)),
                ph[4].1, []),

            // codeExpired
            row(
                "codeExpired + submitCode → unchanged, rejected codeExpired", ph[5].1, intent(.submitCode(Samples.codeInput), at: Samples.at(301)),
                ph[5].1, [.reject(Samples.intent, .codeExpired)]),
            row(
                "codeExpired + requestNewCode → resendingCode, sends the code request", ph[5].1, intent(.requestNewCode, at: Samples.at(301)),
                .resendingCode(fresh, Samples.r(4)), [.send(Samples.r(4), c.sendCode(c.destination))], requests: 4),
            row(
                "codeExpired + submitDestination(same) after the cooldown → requestingCode", ph[5].1,
                intent(.submitDestination(c.destinationText), at: Samples.at(301)), .requestingCode(c.destination, Samples.r(4)),
                [.send(Samples.r(4), c.sendCode(c.destination))], requests: 4),
            row(
                "codeExpired + startOver → enteringDestination, cancels the code expiry, the resend timer runs on", ph[5].1, intent(.startOver),
                .enteringDestination,
                startOverTimers + [.finish(Samples.intent, .done)]),
            row("codeExpired + reply(stale id) → unchanged", ph[5].1, .reply(Samples.r(3), .failed(.network), at: t0), ph[5].1, []),

            // attemptsExhausted
            row(
                "attemptsExhausted + submitCode → unchanged, rejected attemptsExhausted, nothing sent", ph[6].1,
                intent(.submitCode(Samples.codeInput), at: Samples.at(40)), ph[6].1, [.reject(Samples.intent, .attemptsExhausted)]),
            row(
                "attemptsExhausted + requestNewCode before the cooldown → rejected resendCooldown", ph[6].1,
                intent(.requestNewCode, at: Samples.at(20)), ph[6].1, [.reject(Samples.intent, .resendCooldown(until: Samples.at(30)))]),
            row(
                "attemptsExhausted + requestNewCode after the cooldown → resendingCode", ph[6].1, intent(.requestNewCode, at: Samples.at(40)),
                .resendingCode(challenge(c, attemptsLeft: 0), Samples.r(4)), [.send(Samples.r(4), c.sendCode(c.destination))], requests: 4),
            row(
                "attemptsExhausted + submitDestination(other) → requestingCode for it", ph[6].1,
                intent(.submitDestination(c.otherDestinationText), at: Samples.at(5)), .requestingCode(c.otherDestination, Samples.r(4)),
                [.send(Samples.r(4), c.sendCode(c.otherDestination))], requests: 4),
            row(
                "attemptsExhausted + startOver → enteringDestination, cancels the code expiry, the resend timer runs on", ph[6].1, intent(.startOver),
                .enteringDestination,
                startOverTimers + [.finish(Samples.intent, .done)]),
            row(
                "attemptsExhausted + reply(stale id) → unchanged", ph[6].1, .reply(Samples.r(3), .granted(Samples.rotatingGrant), at: t0),
                ph[6].1, []),

            // signedIn
            row(
                "signedIn + reply(stale id) → unchanged", ph[7].1, .reply(Samples.r(3), .failed(.network), at: t0), ph[7].1, []),
            row(
                "enteringDestination + reply(stale id) → unchanged", .enteringDestination, .reply(Samples.r(1), .accepted(nil), at: t0),
                .enteringDestination, []),
        ]
        let busy = [ph[1], ph[3], ph[4]]
        rows += rejectedRows(
            m, "\(c.label): busy, at most one request in flight", phases: busy,
            intents: [
                ("submitDestination", .submitDestination(c.destinationText)), ("requestNewCode", .requestNewCode),
                ("submitCode", .submitCode(Samples.codeInput)),
            ], .busy)
        rows += busy.map { name, phase in
            row(
                "\(name) + startOver → enteringDestination, cancels the code expiry, the request becomes stale", phase, intent(.startOver),
                .enteringDestination, startOverTimers + [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)])
        }
        rows += rejectedRows(
            m, "\(c.label): signed in", phases: [ph[7]],
            intents: [
                ("submitDestination", .submitDestination(c.destinationText)), ("requestNewCode", .requestNewCode),
                ("submitCode", .submitCode(Samples.codeInput)), ("startOver", .startOver),
            ], .alreadySignedIn)
        rows += unchangedRows(
            m, "\(c.label): nothing due", phases: [ph[0], ph[1], ph[5], ph[6], ph[7]], events: [("tick", .tick(Samples.at(400)))])
        rows += unchangedRows(
            m, "\(c.label): the vault is the session's", phases: ph,
            events: [("launched(stored)", .launched(.stored(Samples.rotatingCredentials), at: t0))])
        // A withdrawn request is abandoned as a failed one is: the challenge it was for stays.
        rows += withdrawnRows(
            m, "\(c.label): withdrawals", phases: ph,
            abandoned: [
                "requestingCode": (.enteringDestination, Samples.r(1)), "resendingCode": (.awaitingCode(challenge(c)), Samples.r(2)),
                "verifying": (.awaitingCode(challenge(c, attemptsLeft: 2)), Samples.r(3)),
            ])
        return rows
    }

    static let emailRows = rows(email)
    static let phoneRows = rows(phone)
    static let phaseCases = phases(email).map(\.0)
}

@Suite("OneTimeCodeSignIn transitions")
struct OneTimeCodeSignInTransitionTests {
    @Test("every email-code sign-in row gives the expected phase and effects", arguments: OneTimeCodeSignInTable.emailRows)
    func emailTransition(_ row: Row<OneTimeCodeSignIn>) { row.verify() }

    @Test("every phone OTP sign-in row gives the expected phase and effects", arguments: OneTimeCodeSignInTable.phoneRows)
    func phoneTransition(_ row: Row<OneTimeCodeSignIn>) { row.verify() }

    @Test("three wrong codes exhaust the challenge and a fourth is refused locally")
    func attemptsAreBounded() {
        let machine = OneTimeCodeSignInTable.phone.machine
        let wrong = AuthEvent<OneTimeCodeSignIn.Intent>.intent(.submitCode(Samples.codeInput), at: Samples.at(10))
        let start = OneTimeCodeSignIn.Phase.awaitingCode(OneTimeCodeSignInTable.challenge(OneTimeCodeSignInTable.phone))
        let run = play(
            machine, from: start, requests: 10,
            [
                wrong, .reply(Samples.r(10), .failed(.unauthorized(nil)), at: Samples.at(11)),
                wrong, .reply(Samples.r(11), .failed(.unauthorized(nil)), at: Samples.at(12)),
                wrong, .reply(Samples.r(12), .failed(.unauthorized(nil)), at: Samples.at(13)),
                wrong,
            ])
        #expect(run.phase == .attemptsExhausted(OneTimeCodeSignInTable.challenge(OneTimeCodeSignInTable.phone, attemptsLeft: 0)))
        #expect(run.effects.last == [.reject(Samples.intent, .attemptsExhausted)])
        #expect(run.effects.flatMap { $0 }.filter { if case .send = $0 { true } else { false } }.count == 3)
    }

    @Test("an answer to the previous challenge's verification after a resend changes nothing")
    func onlyLatestChallenge() {
        let machine = OneTimeCodeSignInTable.phone.machine
        let challenge = OneTimeCodeSignInTable.challenge(OneTimeCodeSignInTable.phone)
        let run = play(
            machine, from: .awaitingCode(challenge), requests: 5,
            [
                .intent(.submitCode(Samples.codeInput), at: Samples.at(31)),  // r5
                .intent(.startOver, at: Samples.at(32)),
                .intent(.submitDestination(Samples.phoneText), at: Samples.at(33)),  // r6
                .reply(Samples.r(5), .granted(Samples.rotatingGrant), at: Samples.at(34)),
            ])
        #expect(run.phase == .requestingCode(.phone(Samples.phone), Samples.r(6)))
        #expect(run.effects.last == [])
    }
}
