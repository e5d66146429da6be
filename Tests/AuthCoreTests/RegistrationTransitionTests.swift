import Testing
@testable import AuthCore

/// Registration whose end depends on the answer: session at once (Subspace, VynqTalk), verification
/// required (Hero365), pending approval (Everday), or 409.
enum RegistrationTable {
    typealias Phase = Registration.Phase
    typealias Intent = Registration.Intent
    static let subspace = Registration(forms: [.nameEmailPassword])
    static let hero365 = Registration(forms: [.emailPassword, .phonePassword])
    static let everday = Registration(forms: [.usernamePassword])
    static let t0 = Samples.t0

    static let phases: [(String, Phase)] = [
        ("editing", .editing),
        ("submitting", .submitting(Samples.r(1))),
        ("awaitingVerification", .awaitingVerification),
        ("pendingApproval", .pendingApproval),
        ("registered", .registered(Samples.plainGrant)),
    ]

    static let form = RegistrationInput(name: Samples.nameText, email: Samples.emailText, password: Samples.passwordInput)
    static let details = RegistrationDetails(identifier: .email(Samples.email), password: Samples.password, name: Samples.name)
    static let submit = Intent.submit(form)

    static func row(
        _ name: String, in machine: Registration = subspace, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase,
        _ effects: [AuthEffect], requests: UInt64 = 1
    ) -> Row<Registration> {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func answer(_ reply: Reply) -> AuthEvent<Intent> { .reply(Samples.r(1), reply, at: t0) }

    static let withdrawals = withdrawnRows(subspace, "withdrawals", phases: phases, abandoned: ["submitting": (.editing, Samples.r(1))])

    static let rows: [Row<Registration>] =
        withdrawals + [
            row(
                "editing + submit(name, email, password) → submitting, sends register", .editing, .intent(submit, at: t0),
                .submitting(Samples.r(1)), [.send(Samples.r(1), .register(details))]),
            row(
                "editing + submit(phone form) on Hero365 → submitting, sends register by phone", in: hero365, .editing,
                .intent(.submit(RegistrationInput(phone: Samples.phoneText, password: Samples.passwordInput)), at: t0),
                .submitting(Samples.r(1)),
                [.send(Samples.r(1), .register(RegistrationDetails(identifier: .phone(Samples.phone), password: Samples.password)))]),
            row(
                "editing + submit(username, email) on Everday → submitting, sends register by username", in: everday, .editing,
                .intent(
                    .submit(RegistrationInput(email: Samples.emailText, username: Samples.usernameText, password: Samples.passwordInput)), at: t0),
                .submitting(Samples.r(1)),
                [
                    .send(
                        Samples.r(1),
                        .register(RegistrationDetails(identifier: .username(Samples.username), password: Samples.password, email: Samples.email)))
                ]),
            row(
                "editing + submit(username and Discord handle) on Everday → the handle, trimmed, reaches the register request",
                in: everday, .editing,
                .intent(
                    .submit(RegistrationInput(username: Samples.usernameText, password: Samples.passwordInput, discordHandle: "  newkid#1234 ")),
                    at: t0),
                .submitting(Samples.r(1)),
                [
                    .send(
                        Samples.r(1),
                        .register(
                            RegistrationDetails(
                                identifier: .username(Samples.username), password: Samples.password, discordHandle: "newkid#1234")))
                ]),
            row(
                "editing + submit(without the required name) → rejected nameEmpty, nothing sent", .editing,
                .intent(.submit(RegistrationInput(email: Samples.emailText, password: Samples.passwordInput)), at: t0), .editing,
                [.reject(Samples.intent, .invalid(.nameEmpty))]),
            row(
                "editing + submit(7-character password) → rejected passwordTooShort, nothing sent", .editing,
                .intent(.submit(RegistrationInput(name: Samples.nameText, email: Samples.emailText, password: Samples.shortPasswordInput)), at: t0),
                .editing, [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
            row("editing + startOver → unchanged", .editing, .intent(.startOver, at: t0), .editing, [.finish(Samples.intent, .unchanged)]),
            row("editing + reply(stale id) → unchanged", .editing, answer(.granted(Samples.plainGrant)), .editing, []),

            // submitting
            row("submitting + submit → rejected busy", phases[1].1, .intent(submit, at: t0), phases[1].1, [.reject(Samples.intent, .busy)]),
            row(
                "submitting + startOver → editing, the request becomes stale", phases[1].1, .intent(.startOver, at: t0), .editing,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
            row(
                "submitting + reply(granted) → registered, session at once (Subspace)", phases[1].1, answer(.granted(Samples.plainGrant)),
                .registered(Samples.plainGrant), [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "submitting + reply(verificationRequired) → awaitingVerification (Hero365)", in: hero365, phases[1].1,
                answer(.verificationRequired("Please verify your email.")), .awaitingVerification,
                [.finish(Samples.pending, .verificationRequired("Please verify your email."))]),
            row(
                "submitting + reply(accepted) → awaitingVerification", in: hero365, phases[1].1, answer(.accepted("User created")),
                .awaitingVerification, [.finish(Samples.pending, .verificationRequired("User created"))]),
            row(
                "submitting + reply(pendingApproval) → pendingApproval (Everday)", in: everday, phases[1].1,
                answer(.pendingApproval("A parent must approve this account before sign in.")), .pendingApproval,
                [.finish(Samples.pending, .pendingApproval("A parent must approve this account before sign in."))]),
            row(
                "submitting + reply(409 already exists) → editing, fails conflict", phases[1].1,
                answer(.failed(.conflict("username already exists"))), .editing,
                [.finish(Samples.pending, .failed(.conflict("username already exists")))]),
            row(
                "submitting + reply(400) → editing, fails badRequest", phases[1].1, answer(.failed(.badRequest(nil))), .editing,
                [.finish(Samples.pending, .failed(.badRequest(nil)))]),
            row(
                "submitting + reply(network) → editing, fails network", phases[1].1, answer(.failed(.network)), .editing,
                [.finish(Samples.pending, .failed(.network))]),
            row(
                "submitting + reply(refreshed) → editing, fails malformed", phases[1].1, answer(.refreshed(Samples.rotated)), .editing,
                [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "submitting + reply(stale id) → unchanged", phases[1].1, .reply(Samples.staleID, .granted(Samples.plainGrant), at: t0),
                phases[1].1, []),
        ]
        + rejectedRows(subspace, "account exists, to verify", phases: [phases[2]], intents: [("submit", submit)], .notAvailableNow)
        + [
            // A parent registers several children: a new registration starts over from pending approval.
            row(
                "pendingApproval + submit(username) on Everday → submitting, sends register (another account)", in: everday,
                .pendingApproval,
                .intent(.submit(RegistrationInput(username: Samples.usernameText, password: Samples.passwordInput)), at: t0),
                .submitting(Samples.r(1)),
                [.send(Samples.r(1), .register(RegistrationDetails(identifier: .username(Samples.username), password: Samples.password)))]),
            row(
                "pendingApproval + submit → submitting, sends register, as from editing", .pendingApproval, .intent(submit, at: t0),
                .submitting(Samples.r(1)), [.send(Samples.r(1), .register(details))]),
            row(
                "pendingApproval + submit(7-character password) → rejected passwordTooShort, still pending, nothing sent", .pendingApproval,
                .intent(.submit(RegistrationInput(name: Samples.nameText, email: Samples.emailText, password: Samples.shortPasswordInput)), at: t0),
                .pendingApproval, [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
        ]
        + [phases[2], phases[3]].map { name, phase in
            row("\(name) + startOver → editing", phase, .intent(.startOver, at: t0), .editing, [.finish(Samples.intent, .done)])
        }
        + rejectedRows(
            subspace, "signed in", phases: [phases[4]], intents: [("submit", submit), ("startOver", .startOver)], .alreadySignedIn)
        + unchangedRows(
            subspace, "nothing current", phases: [phases[2], phases[3], phases[4]],
            events: [("reply(stale id)", answer(.granted(Samples.plainGrant)))])
        + unchangedRows(
            subspace, "no deadlines, the vault is the session's", phases: phases,
            events: [("tick", .tick(Samples.at(3600))), ("launched(stored)", .launched(.stored(Samples.plainCredentials), at: t0))])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["submit", "startOver"]
}

@Suite("Registration transitions")
struct RegistrationTransitionTests {
    @Test("every Registration row gives the expected phase and effects", arguments: RegistrationTable.rows)
    func transition(_ row: Row<Registration>) { row.verify() }
}
