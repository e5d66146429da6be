import Testing
@testable import AuthCore

/// An intent with input the documented validation refuses, in the phase where it would otherwise be sent.
struct InvalidInput: Sendable, CustomTestStringConvertible {
    var name: String
    var error: ValidationError
    /// Steps the lifecycle once and reports whether the phase and counter stayed the same.
    var step: @Sendable () -> (effects: [AuthEffect], unchanged: Bool)
    var testDescription: String { name }

    init<Machine: Lifecycle>(_ name: String, _ machine: Machine, _ phase: Machine.Phase, _ intent: Machine.Intent, _ error: ValidationError) {
        self.name = name
        self.error = error
        self.step = {
            var after = phase
            var ids = FlowContext(next: 7)
            let effects = machine.step(&after, .intent(intent, at: Samples.t0), &ids)
            return (effects, after == phase && ids == FlowContext(next: 7))
        }
    }

    static let all: [InvalidInput] = [
        InvalidInput(
            "CodeRegistration: malformed email", CodeRegistrationTable.machine, .enteringEmail, .submitEmail(Samples.badEmailText), .emailMalformed),
        InvalidInput(
            "CodeRegistration: 5-digit code", CodeRegistrationTable.machine, .awaitingCode(Samples.email, resendAt: Samples.at(60)),
            .submitCode(CodeInput("12345")), .codeNotSixDigits),
        InvalidInput(
            "OneTimeCodeSignIn (email): malformed email", OneTimeCodeSignInTable.email.machine, .enteringDestination,
            .submitDestination(Samples.badEmailText), .emailMalformed),
        InvalidInput(
            "OneTimeCodeSignIn (phone): number without country code", OneTimeCodeSignInTable.phone.machine, .enteringDestination,
            .submitDestination("1234567890"), .phoneMissingCountryCode),
        InvalidInput(
            "OneTimeCodeSignIn (phone): 7-digit code", OneTimeCodeSignInTable.phone.machine,
            .awaitingCode(OneTimeCodeSignInTable.challenge(OneTimeCodeSignInTable.phone)), .submitCode(CodeInput("1234567")), .codeNotSixDigits),
        InvalidInput(
            "PasswordSignIn: 7-character password", PasswordSignInTable.byEmail, .enteringCredentials,
            .submit(identifier: Samples.emailText, password: Samples.shortPasswordInput), .passwordTooShort(minimum: 8)),
        InvalidInput(
            "PasswordSignIn (Everday): username with a space", PasswordSignInTable.byUsername, .enteringCredentials,
            .submit(identifier: "new kid", password: Samples.passwordInput), .usernameInvalidCharacters),
        InvalidInput(
            "PasswordSignIn (Hero365): phone too short", PasswordSignInTable.byEmailOrPhone, .enteringCredentials,
            .submit(identifier: "+1234567", password: Samples.passwordInput), .phoneWrongLength),
        InvalidInput(
            "Registration: malformed email", RegistrationTable.subspace, .editing,
            .submit(RegistrationInput(name: Samples.nameText, email: Samples.badEmailText, password: Samples.passwordInput)), .emailMalformed),
        InvalidInput(
            "Registration (Hero365): phone without country code", RegistrationTable.hero365, .editing,
            .submit(RegistrationInput(phone: "234-567-8900", password: Samples.passwordInput)), .phoneMissingCountryCode),
        InvalidInput(
            "Registration (Everday): 1025-character password", RegistrationTable.everday, .editing,
            .submit(RegistrationInput(username: Samples.usernameText, password: PasswordInput(String(repeating: "p", count: 1025)))),
            .passwordTooLong(maximum: 1024)),
        InvalidInput(
            "PasswordReset: malformed email", PasswordReset(style: .emailCodeWithAutoLogin), .enteringIdentifier,
            .requestReset(Samples.badEmailText), .emailMalformed),
        InvalidInput(
            "PasswordReset: code with a letter", PasswordReset(style: .emailCodeWithAutoLogin),
            .awaitingProof(.email(Samples.email), resendAt: Samples.at(60)),
            .submitCode(Samples.badCodeInput, newPassword: Samples.newPasswordInput), .codeNotSixDigits),
        InvalidInput(
            "PasswordReset: 7-character new password", PasswordReset(style: .emailedToken),
            .awaitingProof(.usernameOrEmail(Samples.usernameText), resendAt: Samples.at(60)),
            .submitToken(Samples.resetTokenInput, newPassword: Samples.shortPasswordInput), .passwordTooShort(minimum: 8)),
        InvalidInput(
            "PasswordReset: blank reset token", PasswordReset(style: .emailedToken),
            .awaitingProof(.usernameOrEmail(Samples.usernameText), resendAt: Samples.at(60)),
            .submitToken(ResetToken(" "), newPassword: Samples.newPasswordInput), .resetTokenEmpty),
        InvalidInput(
            "OAuthSignIn: unsupported provider", OAuthSignInTable.machine, .choosingProvider,
            .begin(provider: "facebook", attempt: "attempt-1"), .unsupportedProvider),
        InvalidInput(
            "SessionLifecycle: 7-character first password", SessionTable.anonymousWall,
            .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: Samples.passwordUnsetCredentials)),
            .setPassword(Samples.shortPasswordInput),
            .passwordTooShort(minimum: 8)),
        InvalidInput(
            "SessionLifecycle: 7-character old password", SessionTable.anonymousWall,
            .active(SessionLifecycle.Active(credentials: Samples.plainCredentials)),
            .changePassword(old: Samples.shortPasswordInput, new: Samples.newPasswordInput), .passwordTooShort(minimum: 8)),
        InvalidInput(
            "SessionLifecycle: 7-character required new password", SessionTable.rotatingWithChange,
            .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: Samples.rotatingCredentials)),
            .changePassword(old: Samples.passwordInput, new: Samples.shortPasswordInput), .passwordTooShort(minimum: 8)),
    ]
}

@Suite("Invalid input is refused before any request")
struct InvalidInputTests {
    @Test("an intent with invalid input emits rejected(invalid) and sends nothing", arguments: InvalidInput.all)
    func refusedLocally(_ input: InvalidInput) {
        let (effects, unchanged) = input.step()
        #expect(effects == [.reject(Samples.intent, .invalid(input.error))])
        #expect(!effects.contains { if case .send = $0 { true } else { false } })
        #expect(unchanged)
    }
}
