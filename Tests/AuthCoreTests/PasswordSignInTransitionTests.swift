import Testing
@testable import AuthCore

/// Password sign-in for all five backends: Everday's pending approval, Subspace's 429.
enum PasswordSignInTable {
    typealias Phase = PasswordSignIn.Phase
    typealias Intent = PasswordSignIn.Intent
    static let byEmail = PasswordSignIn(identifiers: .email, defaultRetryAfter: .seconds(60))
    static let byUsername = PasswordSignIn(identifiers: .username, defaultRetryAfter: .seconds(60))
    static let byEmailOrPhone = PasswordSignIn(identifiers: .emailOrPhone, defaultRetryAfter: .seconds(60))
    static let t0 = Samples.t0
    static let emailID = SignInIdentifier.email(Samples.email)

    static let phases: [(String, Phase)] = [
        ("enteringCredentials", .enteringCredentials),
        ("signingIn", .signingIn(emailID, Samples.r(1))),
        ("pendingApproval", .pendingApproval(emailID)),
        ("rateLimited", .rateLimited(until: Samples.at(60))),
        ("signedIn", .signedIn(Samples.plainGrant)),
    ]

    static func row(
        _ name: String, in machine: PasswordSignIn = byEmail, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase,
        _ effects: [AuthEffect], requests: UInt64 = 1
    ) -> Row<PasswordSignIn> {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static let submit = Intent.submit(identifier: Samples.emailText, password: Samples.passwordInput)
    static let signIn = APIRequest.signIn(emailID, Samples.password)

    static let withdrawals = withdrawnRows(
        byEmail, "withdrawals", phases: phases, abandoned: ["signingIn": (.enteringCredentials, Samples.r(1))])

    static let rows: [Row<PasswordSignIn>] =
        withdrawals + [
            row(
                "enteringCredentials + submit(valid email) → signingIn, sends signIn", .enteringCredentials, .intent(submit, at: t0),
                .signingIn(emailID, Samples.r(1)), [.send(Samples.r(1), signIn)]),
            row(
                "enteringCredentials + submit(username) on Everday → signingIn by username", in: byUsername, .enteringCredentials,
                .intent(.submit(identifier: Samples.usernameText, password: Samples.passwordInput), at: t0),
                .signingIn(.username(Samples.username), Samples.r(1)),
                [.send(Samples.r(1), .signIn(.username(Samples.username), Samples.password))]),
            row(
                "enteringCredentials + submit(phone) on Hero365 → signingIn by phone", in: byEmailOrPhone, .enteringCredentials,
                .intent(.submit(identifier: Samples.phoneText, password: Samples.passwordInput), at: t0),
                .signingIn(.phone(Samples.phone), Samples.r(1)), [.send(Samples.r(1), .signIn(.phone(Samples.phone), Samples.password))]),
            row(
                "enteringCredentials + submit(7-character password) → rejected passwordTooShort, nothing sent", .enteringCredentials,
                .intent(.submit(identifier: Samples.emailText, password: Samples.shortPasswordInput), at: t0), .enteringCredentials,
                [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
            row(
                "enteringCredentials + submit(malformed email) → rejected emailMalformed, nothing sent", .enteringCredentials,
                .intent(.submit(identifier: Samples.badEmailText, password: Samples.passwordInput), at: t0), .enteringCredentials,
                [.reject(Samples.intent, .invalid(.emailMalformed))]),
            row(
                "enteringCredentials + startOver → unchanged", .enteringCredentials, .intent(.startOver, at: t0), .enteringCredentials,
                [.finish(Samples.intent, .unchanged)]),
            row(
                "enteringCredentials + reply(stale id) → unchanged", .enteringCredentials,
                .reply(Samples.r(1), .granted(Samples.plainGrant), at: t0), .enteringCredentials, []),

            // signingIn
            row(
                "signingIn + submit → rejected busy", phases[1].1, .intent(submit, at: t0), phases[1].1, [.reject(Samples.intent, .busy)]),
            row(
                "signingIn + startOver → enteringCredentials, the request becomes stale", phases[1].1, .intent(.startOver, at: t0),
                .enteringCredentials, [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),
            row(
                "signingIn + reply(granted) → signedIn, handed over", phases[1].1, .reply(Samples.r(1), .granted(Samples.plainGrant), at: t0),
                .signedIn(Samples.plainGrant), [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "signingIn + reply(granted with RequirePasswordChange) → signedIn with that grant", phases[1].1,
                .reply(Samples.r(1), .granted(Samples.passwordChangeGrant), at: t0), .signedIn(Samples.passwordChangeGrant),
                [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "signingIn + reply(401) → enteringCredentials, fails unauthorized", phases[1].1,
                .reply(Samples.r(1), .failed(.unauthorized("Invalid email or password")), at: t0), .enteringCredentials,
                [.finish(Samples.pending, .failed(.unauthorized("Invalid email or password")))]),
            row(
                "signingIn + reply(403 pending approval) → pendingApproval, emits pendingApproval", phases[1].1,
                .reply(Samples.r(1), .failed(.pendingApproval("Account pending approval.")), at: t0), .pendingApproval(emailID),
                [.finish(Samples.pending, .pendingApproval("Account pending approval."))]),
            row(
                "signingIn + reply(403 forbidden) → enteringCredentials, fails forbidden, not pending", phases[1].1,
                .reply(Samples.r(1), .failed(.forbidden("Access denied")), at: t0), .enteringCredentials,
                [.finish(Samples.pending, .failed(.forbidden("Access denied")))]),
            row(
                "signingIn + reply(429 Retry-After 30 s) → rateLimited until then, schedules rateLimitEnds", phases[1].1,
                .reply(Samples.r(1), .failed(.rateLimited(retryAfter: .seconds(30))), at: t0), .rateLimited(until: Samples.at(30)),
                [.schedule(.rateLimitEnds, at: Samples.at(30)), .finish(Samples.pending, .failed(.rateLimited(retryAfter: .seconds(30))))]),
            row(
                "signingIn + reply(429 without Retry-After) → rateLimited for the default minute", phases[1].1,
                .reply(Samples.r(1), .failed(.rateLimited(retryAfter: nil)), at: t0), .rateLimited(until: Samples.at(60)),
                [.schedule(.rateLimitEnds, at: Samples.at(60)), .finish(Samples.pending, .failed(.rateLimited(retryAfter: nil)))]),
            row(
                "signingIn + reply(503) → enteringCredentials, fails server", phases[1].1,
                .reply(Samples.r(1), .failed(.server(status: 503, nil)), at: t0), .enteringCredentials,
                [.finish(Samples.pending, .failed(.server(status: 503, nil)))]),
            row(
                "signingIn + reply(user instead of tokens) → enteringCredentials, fails malformed", phases[1].1,
                .reply(Samples.r(1), .user(Samples.user), at: t0), .enteringCredentials, [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "signingIn + reply(stale id) → unchanged", phases[1].1, .reply(Samples.staleID, .granted(Samples.plainGrant), at: t0),
                phases[1].1, []),

            // pendingApproval
            row(
                "pendingApproval + submit → signingIn again (approval may have happened)", phases[2].1, .intent(submit, at: t0),
                .signingIn(emailID, Samples.r(2)), [.send(Samples.r(2), signIn)], requests: 2),
            row(
                "pendingApproval + startOver → enteringCredentials", phases[2].1, .intent(.startOver, at: t0), .enteringCredentials,
                [.finish(Samples.intent, .done)]),
            row(
                "pendingApproval + reply(stale id) → unchanged", phases[2].1, .reply(Samples.r(1), .granted(Samples.plainGrant), at: t0),
                phases[2].1, []),

            // rateLimited
            row(
                "rateLimited + submit before the retry time → rejected rateLimited, nothing sent", phases[3].1,
                .intent(submit, at: Samples.at(59)), phases[3].1, [.reject(Samples.intent, .rateLimited(until: Samples.at(60)))]),
            row(
                "rateLimited + submit at the retry time → signingIn", phases[3].1, .intent(submit, at: Samples.at(60)),
                .signingIn(emailID, Samples.r(2)), [.send(Samples.r(2), signIn)], requests: 2),
            row(
                "rateLimited + startOver before the retry time → rejected rateLimited", phases[3].1, .intent(.startOver, at: Samples.at(10)),
                phases[3].1, [.reject(Samples.intent, .rateLimited(until: Samples.at(60)))]),
            row(
                "rateLimited + startOver after the retry time → enteringCredentials", phases[3].1, .intent(.startOver, at: Samples.at(61)),
                .enteringCredentials, [.finish(Samples.intent, .done)]),
            row("rateLimited + tick before the retry time → unchanged", phases[3].1, .tick(Samples.at(59)), phases[3].1, []),
            row("rateLimited + tick at the retry time → enteringCredentials", phases[3].1, .tick(Samples.at(60)), .enteringCredentials, []),
            row(
                "rateLimited + reply(stale id) → unchanged", phases[3].1, .reply(Samples.r(1), .granted(Samples.plainGrant), at: t0),
                phases[3].1, []),

            // signedIn
            row(
                "signedIn + reply(stale id) → unchanged", phases[4].1, .reply(Samples.r(1), .failed(.network), at: t0), phases[4].1, []),
        ]
        + rejectedRows(byEmail, "signed in", phases: [phases[4]], intents: [("submit", submit), ("startOver", .startOver)], .alreadySignedIn)
        + unchangedRows(byEmail, "nothing due", phases: [phases[0], phases[1], phases[2], phases[4]], events: [("tick", .tick(Samples.at(3600)))])
        + unchangedRows(
            byEmail, "the vault is the session's", phases: phases,
            events: [("launched(stored)", .launched(.stored(Samples.plainCredentials), at: t0))])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["submit", "startOver"]
}

@Suite("PasswordSignIn transitions")
struct PasswordSignInTransitionTests {
    @Test("every PasswordSignIn row gives the expected phase and effects", arguments: PasswordSignInTable.rows)
    func transition(_ row: Row<PasswordSignIn>) { row.verify() }
}
