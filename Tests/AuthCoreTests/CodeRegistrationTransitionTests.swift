import Testing
@testable import AuthCore

/// Anonymous Wall's registration by emailed code (its API document's Registration Flow).
enum CodeRegistrationTable {
    typealias Phase = CodeRegistration.Phase
    static let machine = CodeRegistration(resendCooldown: .seconds(60))
    static let t0 = Samples.t0
    static let email = Samples.email
    static let resendAt = Samples.at(60)

    static let phases: [(String, Phase)] = [
        ("enteringEmail", .enteringEmail),
        ("sendingCode", .sendingCode(email, Samples.r(1))),
        ("awaitingCode", .awaitingCode(email, resendAt: resendAt)),
        ("resendingCode", .resendingCode(email, Samples.r(2))),
        ("registering", .registering(email, Samples.r(3), resendAt: resendAt)),
        ("registered", .registered(Samples.passwordUnsetGrant)),
    ]

    static func row(
        _ name: String, _ from: Phase, _ event: AuthEvent<CodeRegistration.Intent>, _ to: Phase, _ effects: [AuthEffect],
        requests: UInt64 = 1
    ) -> Row<CodeRegistration> {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: CodeRegistration.Intent, at now: Instant = Samples.t0) -> AuthEvent<CodeRegistration.Intent> {
        .intent(intent, at: now)
    }

    /// A withdrawn request for a code leaves the one already sent usable (another may be asked at
    /// once), as a failed one does; a withdrawn registration goes back to typing the code.
    static let withdrawals = withdrawnRows(
        machine, "withdrawals", phases: phases,
        abandoned: [
            "sendingCode": (.enteringEmail, Samples.r(1)), "resendingCode": (.awaitingCode(email, resendAt: Samples.t0), Samples.r(2)),
            "registering": (.awaitingCode(email, resendAt: resendAt), Samples.r(3)),
        ])

    static let rows: [Row<CodeRegistration>] =
        withdrawals + [
            // enteringEmail
            row(
                "enteringEmail + submitEmail(valid) → sendingCode, sends sendEmailCode(register)", .enteringEmail,
                intent(.submitEmail(Samples.emailText)), .sendingCode(email, Samples.r(1)),
                [.send(Samples.r(1), .sendEmailCode(email, .register))]),
            row(
                "enteringEmail + submitEmail(surrounded by spaces) → sendingCode with the trimmed email", .enteringEmail,
                intent(.submitEmail("  \(Samples.emailText) \n")), .sendingCode(email, Samples.r(5)),
                [.send(Samples.r(5), .sendEmailCode(email, .register))], requests: 5),
            row(
                "enteringEmail + submitEmail(malformed) → unchanged, rejected invalid, nothing sent", .enteringEmail,
                intent(.submitEmail(Samples.badEmailText)), .enteringEmail, [.reject(Samples.intent, .invalid(.emailMalformed))]),
            row(
                "enteringEmail + requestNewCode → unchanged, rejected notAvailableNow", .enteringEmail, intent(.requestNewCode),
                .enteringEmail, [.reject(Samples.intent, .notAvailableNow)]),
            row(
                "enteringEmail + submitCode → unchanged, rejected notAvailableNow (no code was sent)", .enteringEmail,
                intent(.submitCode(Samples.codeInput)), .enteringEmail, [.reject(Samples.intent, .notAvailableNow)]),
            row(
                "enteringEmail + startOver → enteringEmail, no effects", .enteringEmail, intent(.startOver), .enteringEmail,
                [.finish(Samples.intent, .unchanged)]),

            // sendingCode
            row(
                "sendingCode + reply(accepted) → awaitingCode with cooldown, emits codeSent, schedules resendAvailable",
                .sendingCode(email, Samples.r(1)), .reply(Samples.r(1), .accepted("Verification code sent to email"), at: t0),
                .awaitingCode(email, resendAt: resendAt),
                [.schedule(.resendAvailable, at: resendAt), .finish(Samples.pending, .codeSent(resendAt: resendAt, expiresAt: nil))]),
            row(
                "sendingCode + reply(400) → enteringEmail, fails badRequest", .sendingCode(email, Samples.r(1)),
                .reply(Samples.r(1), .failed(.badRequest("Invalid email")), at: t0), .enteringEmail,
                [.finish(Samples.pending, .failed(.badRequest("Invalid email")))]),
            row(
                "sendingCode + reply(network) → enteringEmail, fails network", .sendingCode(email, Samples.r(1)),
                .reply(Samples.r(1), .failed(.network), at: t0), .enteringEmail, [.finish(Samples.pending, .failed(.network))]),
            row(
                "sendingCode + reply(stale id) → unchanged, no effects", .sendingCode(email, Samples.r(1)),
                .reply(Samples.staleID, .accepted(nil), at: t0), .sendingCode(email, Samples.r(1)), []),
        ]
        + rejectedRows(
            machine, "busy", phases: [phases[1], phases[3], phases[4]],
            intents: [
                ("submitEmail", .submitEmail(Samples.emailText)), ("requestNewCode", .requestNewCode),
                ("submitCode", .submitCode(Samples.codeInput)),
            ], .busy)
        + [phases[1], phases[3], phases[4]].map { name, phase in
            row(
                "\(name) + startOver → enteringEmail, the request in flight becomes stale", phase, intent(.startOver), .enteringEmail,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)])
        }
        + [
            // awaitingCode
            row(
                "awaitingCode + submitCode(valid) → registering, sends registerWithEmailCode",
                .awaitingCode(email, resendAt: resendAt), intent(.submitCode(Samples.codeInput)),
                .registering(email, Samples.r(4), resendAt: resendAt),
                [.send(Samples.r(4), .registerWithEmailCode(email, Samples.code))], requests: 4),
            row(
                "awaitingCode + submitCode(\" 123456 \") → registering, surrounding whitespace tolerated",
                .awaitingCode(email, resendAt: resendAt), intent(.submitCode(CodeInput(" 123456 "))),
                .registering(email, Samples.r(4), resendAt: resendAt),
                [.send(Samples.r(4), .registerWithEmailCode(email, Samples.code))], requests: 4),
            row(
                "awaitingCode + submitCode(12a456) → unchanged, rejected invalid, nothing sent",
                .awaitingCode(email, resendAt: resendAt), intent(.submitCode(Samples.badCodeInput)),
                .awaitingCode(email, resendAt: resendAt), [.reject(Samples.intent, .invalid(.codeNotSixDigits))]),
            row(
                "awaitingCode + requestNewCode before cooldown → unchanged, rejected resendCooldown",
                .awaitingCode(email, resendAt: resendAt), intent(.requestNewCode, at: Samples.at(59)),
                .awaitingCode(email, resendAt: resendAt), [.reject(Samples.intent, .resendCooldown(until: resendAt))]),
            row(
                "awaitingCode + requestNewCode at cooldown end → resendingCode, sends sendEmailCode(register)",
                .awaitingCode(email, resendAt: resendAt), intent(.requestNewCode, at: resendAt), .resendingCode(email, Samples.r(2)),
                [.send(Samples.r(2), .sendEmailCode(email, .register))], requests: 2),
            row(
                "awaitingCode + submitEmail(other email) → sendingCode for the other email",
                .awaitingCode(email, resendAt: resendAt), intent(.submitEmail(Samples.otherEmailText)),
                .sendingCode(Samples.otherEmail, Samples.r(2)), [.send(Samples.r(2), .sendEmailCode(Samples.otherEmail, .register))],
                requests: 2),
            row(
                "awaitingCode + submitEmail(same email) after cooldown → sendingCode again",
                .awaitingCode(email, resendAt: resendAt), intent(.submitEmail(Samples.emailText), at: Samples.at(61)),
                .sendingCode(email, Samples.r(2)), [.send(Samples.r(2), .sendEmailCode(email, .register))], requests: 2),
            row(
                "awaitingCode + startOver → enteringEmail", .awaitingCode(email, resendAt: resendAt), intent(.startOver),
                .enteringEmail, [.finish(Samples.intent, .done)]),
            row(
                "awaitingCode + reply(stale id) → unchanged", .awaitingCode(email, resendAt: resendAt),
                .reply(Samples.r(1), .accepted(nil), at: t0), .awaitingCode(email, resendAt: resendAt), []),

            // resendingCode
            row(
                "resendingCode + reply(accepted) → awaitingCode with a new cooldown, emits codeSent",
                .resendingCode(email, Samples.r(2)), .reply(Samples.r(2), .accepted(nil), at: Samples.at(70)),
                .awaitingCode(email, resendAt: Samples.at(130)),
                [.schedule(.resendAvailable, at: Samples.at(130)), .finish(Samples.pending, .codeSent(resendAt: Samples.at(130), expiresAt: nil))]),
            row(
                "resendingCode + reply(network) → awaitingCode, another may be requested at once, fails network",
                .resendingCode(email, Samples.r(2)), .reply(Samples.r(2), .failed(.network), at: Samples.at(70)),
                .awaitingCode(email, resendAt: Samples.at(70)), [.finish(Samples.pending, .failed(.network))]),
            row(
                "resendingCode + reply(stale id) → unchanged", .resendingCode(email, Samples.r(2)),
                .reply(Samples.r(1), .accepted(nil), at: t0), .resendingCode(email, Samples.r(2)), []),

            // registering: the error taxonomy of Anonymous Wall's API document
            row(
                "registering + reply(granted) → registered with the grant, handed over", .registering(email, Samples.r(3), resendAt: resendAt),
                .reply(Samples.r(3), .granted(Samples.passwordUnsetGrant), at: t0), .registered(Samples.passwordUnsetGrant),
                [.finish(Samples.pending, .signedIn(Samples.passwordUnsetGrant.user))]),
            row(
                "registering + reply(400 invalid code) → awaitingCode, fails badRequest",
                .registering(email, Samples.r(3), resendAt: resendAt),
                .reply(Samples.r(3), .failed(.badRequest("Invalid or expired code")), at: t0), .awaitingCode(email, resendAt: resendAt),
                [.finish(Samples.pending, .failed(.badRequest("Invalid or expired code")))]),
            row(
                "registering + reply(403 wrong school domain) → enteringEmail, fails forbidden",
                .registering(email, Samples.r(3), resendAt: resendAt), .reply(Samples.r(3), .failed(.forbidden(nil)), at: t0),
                .enteringEmail, [.finish(Samples.pending, .failed(.forbidden(nil)))]),
            row(
                "registering + reply(409 already registered) → enteringEmail, fails conflict",
                .registering(email, Samples.r(3), resendAt: resendAt),
                .reply(Samples.r(3), .failed(.conflict("Email already registered")), at: t0), .enteringEmail,
                [.finish(Samples.pending, .failed(.conflict("Email already registered")))]),
            row(
                "registering + reply(network) → awaitingCode, fails network, not retried",
                .registering(email, Samples.r(3), resendAt: resendAt), .reply(Samples.r(3), .failed(.network), at: t0),
                .awaitingCode(email, resendAt: resendAt), [.finish(Samples.pending, .failed(.network))]),
            row(
                "registering + reply(accepted without tokens) → awaitingCode, fails malformed",
                .registering(email, Samples.r(3), resendAt: resendAt), .reply(Samples.r(3), .accepted(nil), at: t0),
                .awaitingCode(email, resendAt: resendAt), [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "registering + reply(stale id) → unchanged", .registering(email, Samples.r(3), resendAt: resendAt),
                .reply(Samples.r(1), .granted(Samples.plainGrant), at: t0), .registering(email, Samples.r(3), resendAt: resendAt), []),

            // registered
            row(
                "registered + reply(stale id) → unchanged", .registered(Samples.passwordUnsetGrant),
                .reply(Samples.r(3), .failed(.network), at: t0), .registered(Samples.passwordUnsetGrant), []),
            row(
                "enteringEmail + reply(stale id) → unchanged", .enteringEmail, .reply(Samples.r(1), .accepted(nil), at: t0),
                .enteringEmail, []),
        ]
        + rejectedRows(
            machine, "signed in", phases: [phases[5]],
            intents: [
                ("submitEmail", .submitEmail(Samples.emailText)), ("requestNewCode", .requestNewCode),
                ("submitCode", .submitCode(Samples.codeInput)), ("startOver", .startOver),
            ], .alreadySignedIn)
        + unchangedRows(
            machine, "no deadlines here", phases: phases,
            events: [
                ("tick", .tick(Samples.at(3600))), ("launched(stored)", .launched(.stored(Samples.plainCredentials), at: t0)),
            ])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["submitEmail", "requestNewCode", "submitCode", "startOver"]
}

@Suite("CodeRegistration transitions")
struct CodeRegistrationTransitionTests {
    @Test("every CodeRegistration row gives the expected phase and effects", arguments: CodeRegistrationTable.rows)
    func transition(_ row: Row<CodeRegistration>) { row.verify() }

    @Test("submitting the same email again during the cooldown is refused, as requestNewCode is")
    func sameEmailDuringCooldown() {
        // Found by this table (and by the explorer's cooldown invariant): the same address used to bypass the cooldown.
        let row = CodeRegistrationTable.row(
            "awaitingCode + submitEmail(same email) before cooldown → unchanged, rejected resendCooldown",
            .awaitingCode(Samples.email, resendAt: Samples.at(60)), .intent(.submitEmail(Samples.emailText), at: Samples.at(10)),
            .awaitingCode(Samples.email, resendAt: Samples.at(60)), [.reject(Samples.intent, .resendCooldown(until: Samples.at(60)))])
        row.verify()
    }
}
