import Testing
@testable import AuthCore

/// Password reset in its three styles: code with auto-login (Anonymous Wall), emailed token
/// (Everday), emailed link (Hero365).
enum PasswordResetTable {
    typealias Phase = PasswordReset.Phase
    typealias Intent = PasswordReset.Intent
    typealias Style = PasswordReset.Style
    static let t0 = Samples.t0
    static let resendAt = Samples.at(60)
    static let styles: [Style] = [.emailCodeWithAutoLogin, .emailedToken, .emailLink]

    static func identifierText(_ style: Style) -> String { style == .emailedToken ? Samples.usernameText : Samples.emailText }
    static func identifier(_ style: Style) -> ResetIdentifier {
        style == .emailedToken ? .usernameOrEmail(Samples.usernameText) : .email(Samples.email)
    }

    static func phases(_ style: Style) -> [(String, Phase)] {
        let id = identifier(style)
        return [
            ("enteringIdentifier", .enteringIdentifier),
            ("requesting", .requesting(id, Samples.r(1))),
            ("awaitingProof", .awaitingProof(id, resendAt: resendAt)),
            ("resetting", .resetting(id, Samples.r(2), resendAt: resendAt)),
            ("linkSent", .linkSent),
            ("completed", .completed),
            ("signedIn", .signedIn(Samples.plainGrant)),
            ("requestingAgain", .requestingAgain(id, Samples.r(3))),
        ]
    }

    static let submitCode = Intent.submitCode(Samples.codeInput, newPassword: Samples.newPasswordInput)
    static let submitToken = Intent.submitToken(Samples.resetTokenInput, newPassword: Samples.newPasswordInput)

    static func rows(_ style: Style) -> [Row<PasswordReset>] {
        let machine = PasswordReset(style: style, resendCooldown: .seconds(60))
        let label = "\(style)"
        let id = identifier(style)
        let ph = phases(style)
        func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 1)
            -> Row<PasswordReset>
        {
            Row("\(label): \(name)", machine, from: from, on: event, to: to, effects: effects, requests: requests)
        }
        func intent(_ intent: Intent, at now: Instant = t0) -> AuthEvent<Intent> { .intent(intent, at: now) }
        let requestReset = Intent.requestReset(identifierText(style))
        let codeOutsideProof: Rejection = style == .emailCodeWithAutoLogin ? .notAvailableNow : .unsupported
        let tokenOutsideProof: Rejection = style == .emailedToken ? .notAvailableNow : .unsupported
        let (invalidText, invalidError): (String, ValidationError) =
            style == .emailedToken ? ("new kid", .usernameInvalidCharacters) : (Samples.badEmailText, .emailMalformed)

        var rows: [Row<PasswordReset>] = [
            row(
                "enteringIdentifier + requestReset(valid) → requesting, sends requestPasswordReset", .enteringIdentifier, intent(requestReset),
                .requesting(id, Samples.r(1)), [.send(Samples.r(1), .requestPasswordReset(id))]),
            row(
                "enteringIdentifier + requestReset(invalid) → rejected invalid, nothing sent", .enteringIdentifier,
                intent(.requestReset(invalidText)), .enteringIdentifier, [.reject(Samples.intent, .invalid(invalidError))]),
            row(
                "enteringIdentifier + startOver → unchanged", .enteringIdentifier, intent(.startOver), .enteringIdentifier,
                [.finish(Samples.intent, .unchanged)]),

            // requesting
            row(
                "requesting + reply(404) → enteringIdentifier, fails notFound", ph[1].1, .reply(Samples.r(1), .failed(.notFound(nil)), at: t0),
                .enteringIdentifier, [.finish(Samples.pending, .failed(.notFound(nil)))]),
            row(
                "requesting + reply(refreshed) → enteringIdentifier, fails malformed", ph[1].1,
                .reply(Samples.r(1), .refreshed(Samples.rotated), at: t0), .enteringIdentifier, [.finish(Samples.pending, .failed(.malformed))]),

            // awaitingProof
            row(
                "awaitingProof + requestReset(same) before the cooldown → rejected resendCooldown", ph[2].1, intent(requestReset, at: Samples.at(30)),
                ph[2].1, [.reject(Samples.intent, .resendCooldown(until: resendAt))]),
            row(
                "awaitingProof + requestReset(same) after the cooldown → requesting", ph[2].1, intent(requestReset, at: Samples.at(60)),
                .requesting(id, Samples.r(3)), [.send(Samples.r(3), .requestPasswordReset(id))], requests: 3),
            row(
                "awaitingProof + requestAgain before the cooldown → rejected resendCooldown", ph[2].1, intent(.requestAgain, at: Samples.at(59)),
                ph[2].1, [.reject(Samples.intent, .resendCooldown(until: resendAt))]),
            row(
                "awaitingProof + requestAgain after the cooldown → requestingAgain", ph[2].1, intent(.requestAgain, at: Samples.at(60)),
                .requestingAgain(id, Samples.r(3)), [.send(Samples.r(3), .requestPasswordReset(id))], requests: 3),
            row("awaitingProof + startOver → enteringIdentifier", ph[2].1, intent(.startOver), .enteringIdentifier, [.finish(Samples.intent, .done)]),

            // resetting
            row(
                "resetting + reply(400 invalid code) → awaitingProof, fails badRequest", ph[3].1,
                .reply(Samples.r(2), .failed(.badRequest("Invalid or expired code")), at: t0), ph[2].1,
                [.finish(Samples.pending, .failed(.badRequest("Invalid or expired code")))]),
            row(
                "resetting + reply(pendingApproval) → awaitingProof, fails malformed", ph[3].1,
                .reply(Samples.r(2), .pendingApproval(nil), at: t0), ph[2].1, [.finish(Samples.pending, .failed(.malformed))]),

            // after the reset
            row("linkSent + startOver → enteringIdentifier", .linkSent, intent(.startOver), .enteringIdentifier, [.finish(Samples.intent, .done)]),
            row("completed + startOver → enteringIdentifier", .completed, intent(.startOver), .enteringIdentifier, [.finish(Samples.intent, .done)]),
            row(
                "linkSent + requestReset → requesting again", .linkSent, intent(requestReset), .requesting(id, Samples.r(4)),
                [.send(Samples.r(4), .requestPasswordReset(id))], requests: 4),
            row(
                "completed + requestReset → requesting again", .completed, intent(requestReset), .requesting(id, Samples.r(4)),
                [.send(Samples.r(4), .requestPasswordReset(id))], requests: 4),
        ]

        // The request's answer and the proof steps differ by style.
        switch style {
        case .emailCodeWithAutoLogin:
            let email = Samples.email
            rows += [
                row(
                    "requesting + reply(accepted) → awaitingProof with cooldown, emits passwordResetRequested", ph[1].1,
                    .reply(Samples.r(1), .accepted("Password reset code sent to email"), at: t0), ph[2].1,
                    [.schedule(.resendAvailable, at: resendAt), .finish(Samples.pending, .passwordResetRequested(resendAt: resendAt))]),
                row(
                    "awaitingProof + submitCode(valid, valid) → resetting, sends resetPassword(emailCode)", ph[2].1, intent(submitCode),
                    .resetting(id, Samples.r(2), resendAt: resendAt),
                    [.send(Samples.r(2), .resetPassword(.emailCode(email, Samples.code), newPassword: Samples.newPassword))], requests: 2),
                row(
                    "awaitingProof + submitCode(12a456) → rejected codeNotSixDigits, nothing sent", ph[2].1,
                    intent(.submitCode(Samples.badCodeInput, newPassword: Samples.newPasswordInput)), ph[2].1,
                    [.reject(Samples.intent, .invalid(.codeNotSixDigits))]),
                row(
                    "awaitingProof + submitCode(7-character password) → rejected passwordTooShort, nothing sent", ph[2].1,
                    intent(.submitCode(Samples.codeInput, newPassword: Samples.shortPasswordInput)), ph[2].1,
                    [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
                row(
                    "awaitingProof + submitToken → rejected unsupported", ph[2].1, intent(submitToken), ph[2].1,
                    [.reject(Samples.intent, .unsupported)]),
                row(
                    "resetting + reply(granted) → signedIn with the reset's grant (auto-login)", ph[3].1,
                    .reply(Samples.r(2), .granted(Samples.plainGrant), at: t0), .signedIn(Samples.plainGrant),
                    [.finish(Samples.pending, .signedIn(Samples.user))]),
            ]
        case .emailedToken:
            rows += [
                row(
                    "requesting + reply(accepted) → awaitingProof with cooldown, emits passwordResetRequested", ph[1].1,
                    .reply(Samples.r(1), .accepted(nil), at: t0), ph[2].1,
                    [.schedule(.resendAvailable, at: resendAt), .finish(Samples.pending, .passwordResetRequested(resendAt: resendAt))]),
                row(
                    "awaitingProof + submitToken(valid, valid) → resetting, sends resetPassword(token)", ph[2].1, intent(submitToken),
                    .resetting(id, Samples.r(2), resendAt: resendAt),
                    [.send(Samples.r(2), .resetPassword(.token(Samples.resetProof), newPassword: Samples.newPassword))], requests: 2),
                row(
                    "awaitingProof + submitToken(blank) → rejected resetTokenEmpty, nothing sent", ph[2].1,
                    intent(.submitToken(ResetToken("  "), newPassword: Samples.newPasswordInput)), ph[2].1,
                    [.reject(Samples.intent, .invalid(.resetTokenEmpty))]),
                row(
                    "awaitingProof + submitCode → rejected unsupported", ph[2].1, intent(submitCode), ph[2].1,
                    [.reject(Samples.intent, .unsupported)]),
                row(
                    "resetting + reply(accepted) → completed, emits passwordResetCompleted (sign in next)", ph[3].1,
                    .reply(Samples.r(2), .accepted(nil), at: t0), .completed, [.finish(Samples.pending, .passwordResetCompleted)]),
            ]
        case .emailLink:
            rows += [
                row(
                    "requesting + reply(accepted) → linkSent, emits passwordResetRequested, schedules resendAvailable", ph[1].1,
                    .reply(Samples.r(1), .accepted("Password recovery email sent"), at: t0), .linkSent,
                    [
                        .schedule(.resendAvailable, at: t0 + machine.resendCooldown),
                        .finish(Samples.pending, .passwordResetRequested(resendAt: t0 + machine.resendCooldown)),
                    ]),
                row(
                    "awaitingProof + submitCode → rejected unsupported", ph[2].1, intent(submitCode), ph[2].1,
                    [.reject(Samples.intent, .unsupported)]),
                row(
                    "awaitingProof + submitToken → rejected unsupported", ph[2].1, intent(submitToken), ph[2].1,
                    [.reject(Samples.intent, .unsupported)]),
                row(
                    "resetting + reply(user) → completed, emits passwordResetCompleted", ph[3].1, .reply(Samples.r(2), .user(Samples.user), at: t0),
                    .completed, [.finish(Samples.pending, .passwordResetCompleted)]),
            ]
        }

        let resting = [ph[0], ph[4], ph[5]]
        rows += rejectedRows(machine, "\(label): nothing to act on", phases: resting, intents: [("requestAgain", .requestAgain)], .notAvailableNow)
        rows += rejectedRows(machine, "\(label): no proof requested", phases: resting, intents: [("submitCode", submitCode)], codeOutsideProof)
        rows += rejectedRows(machine, "\(label): no proof requested", phases: resting, intents: [("submitToken", submitToken)], tokenOutsideProof)
        rows += rejectedRows(
            machine, "\(label): busy", phases: [ph[1], ph[3], ph[7]],
            intents: [("requestReset", requestReset), ("requestAgain", .requestAgain), ("submitCode", submitCode), ("submitToken", submitToken)],
            .busy)
        rows += [
            row(
                "requestingAgain + reply(network) → awaitingProof: the proof already emailed still works", ph[7].1,
                .reply(Samples.r(3), .failed(.network), at: Samples.at(70)), .awaitingProof(id, resendAt: Samples.at(70)),
                [.finish(Samples.pending, .failed(.network))])
        ]
        if style != .emailLink {
            rows.append(
                row(
                    "requestingAgain + reply(accepted) → awaitingProof with a new cooldown", ph[7].1,
                    .reply(Samples.r(3), .accepted(nil), at: t0), ph[2].1,
                    [.schedule(.resendAvailable, at: resendAt), .finish(Samples.pending, .passwordResetRequested(resendAt: resendAt))]))
        }
        rows += [ph[1], ph[3], ph[7]].map { name, phase in
            row(
                "\(name) + startOver → enteringIdentifier, the request becomes stale", phase, intent(.startOver), .enteringIdentifier,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)])
        }
        rows += rejectedRows(
            machine, "\(label): signed in", phases: [ph[6]],
            intents: [
                ("requestReset", requestReset), ("requestAgain", .requestAgain), ("submitCode", submitCode), ("submitToken", submitToken),
                ("startOver", .startOver),
            ], .alreadySignedIn)
        rows += unchangedRows(
            machine, "\(label): an answer no one waits for changes nothing", phases: ph,
            events: [("reply(stale id)", .reply(Samples.staleID, .granted(Samples.plainGrant), at: t0))])
        rows += unchangedRows(
            machine, "\(label): cooldowns are checked on intents, the vault is the session's", phases: ph,
            events: [("tick", .tick(Samples.at(3600))), ("launched(stored)", .launched(.stored(Samples.plainCredentials), at: t0))])
        // A withdrawn request is abandoned as a failed one is: a proof already emailed stays usable.
        rows += withdrawnRows(
            machine, "\(label): withdrawals", phases: ph,
            abandoned: [
                "requesting": (.enteringIdentifier, Samples.r(1)), "requestingAgain": (.awaitingProof(id, resendAt: Samples.t0), Samples.r(3)),
                "resetting": (.awaitingProof(id, resendAt: resendAt), Samples.r(2)),
            ])
        return rows
    }

    static let codeRows = rows(.emailCodeWithAutoLogin)
    static let tokenRows = rows(.emailedToken)
    static let linkRows = rows(.emailLink)
    static let phaseCases = phases(.emailLink).map(\.0)
    static let intentCases = ["requestReset", "requestAgain", "submitCode", "submitToken", "startOver"]
}

@Suite("PasswordReset transitions")
struct PasswordResetTransitionTests {
    @Test("every reset-by-code-with-auto-login row gives the expected phase and effects", arguments: PasswordResetTable.codeRows)
    func codeWithAutoLogin(_ row: Row<PasswordReset>) { row.verify() }

    @Test("every reset-by-emailed-token row gives the expected phase and effects", arguments: PasswordResetTable.tokenRows)
    func emailedToken(_ row: Row<PasswordReset>) { row.verify() }

    @Test("every reset-by-emailed-link row gives the expected phase and effects", arguments: PasswordResetTable.linkRows)
    func emailLink(_ row: Row<PasswordReset>) { row.verify() }

    @Test("a failed request for another code keeps the code already emailed usable, as CodeRegistration and OneTimeCodeSignIn do")
    func failedRequestAgainKeepsProof() {
        // Found by this table: a failed re-request used to drop the proof already emailed (now `requestingAgain`).
        let machine = PasswordReset(style: .emailCodeWithAutoLogin, resendCooldown: .seconds(60))
        let identifier = ResetIdentifier.email(Samples.email)
        let run = play(
            machine, from: .awaitingProof(identifier, resendAt: Samples.at(60)), requests: 5,
            [
                .intent(.requestAgain, at: Samples.at(61)),
                .reply(Samples.r(5), .failed(.network), at: Samples.at(62)),
            ])
        #expect(run.phase == .awaitingProof(identifier, resendAt: Samples.at(62)))
        #expect(run.effects[1] == [.finish(Samples.intent, .failed(.network))])
    }
}
