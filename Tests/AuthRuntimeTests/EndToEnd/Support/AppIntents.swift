import AuthCore
import AuthRuntime

/// An app machine whose session phase a test can read, whatever its shape (the detail a test of
/// the runner checks; an app reads ``AuthState``).
protocol EndToEndApp: AuthStateReporting {
    /// The session's phase, `nil` while signed out in the entry flows.
    func sessionPhase(_ phase: Phase) -> SessionLifecycle.Phase?
}

/// A session side whose ``SessionLifecycle`` phase can be read.
protocol SessionPhaseReading: SessionRole {
    /// The session lifecycle's phase inside `phase`.
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase
}

extension SessionLifecycle: SessionPhaseReading {
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase { phase }
}

extension SessionWithRealtime: SessionPhaseReading {
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase { phase.session }
}

extension Handover: EndToEndApp where SessionSide: SessionPhaseReading & AuthStateReporting {
    func sessionPhase(_ phase: Phase) -> SessionLifecycle.Phase? {
        guard case .signedIn(let inner) = phase else { return nil }
        return session.sessionLifecyclePhase(inner)
    }
}

extension Client where Machine: EndToEndApp {
    /// The session's phase, `nil` while signed out.
    var session: SessionLifecycle.Phase? { get async { runner.machine.sessionPhase(await runner.phase) } }

    /// The credentials the session holds, `nil` while signed out.
    var credentials: Credentials? { get async { await session?.credentials } }

    /// Where the user is, as the app sees it.
    var authState: AuthState { get async { runner.machine.authState(await runner.phase) } }

    /// True when the session is usable (active, refreshing, backing off or offline).
    var isActive: Bool {
        get async {
            switch await session {
            case .active?: true
            case .signedOut?, .restoring?, .passwordSetupRequired?, .passwordChangeRequired?, nil: false
            }
        }
    }

    /// Logs out and settles.
    func logout() async { await send(SessionLifecycle.Intent.logout) }
}

// What the user does, as each flow's own intents: the runner routes each to its flow, so no
// test spells a composition's nesting.

/// Anonymous Wall's intents, by what the user does.
enum AnonymousWallIntents {
    static func registerEmail(_ email: String) -> CodeRegistration.Intent { .submitEmail(email) }
    static func registerCode(_ code: String) -> CodeRegistration.Intent { .submitCode(CodeInput(code)) }
    static func signIn(_ email: String, _ password: String) -> PasswordSignIn.Intent {
        .submit(identifier: email, password: PasswordInput(password))
    }
    static func codeSignIn(_ email: String) -> OneTimeCodeSignIn.Intent { .submitDestination(email) }
    static func loginCode(_ code: String) -> OneTimeCodeSignIn.Intent { .submitCode(CodeInput(code)) }
    static func requestReset(_ email: String) -> PasswordReset.Intent { .requestReset(email) }
    static func reset(code: String, newPassword: String) -> PasswordReset.Intent {
        .submitCode(CodeInput(code), newPassword: PasswordInput(newPassword))
    }
    static func setPassword(_ password: String) -> SessionLifecycle.Intent { .setPassword(PasswordInput(password)) }
    static func changePassword(_ old: String, _ new: String) -> SessionLifecycle.Intent {
        .changePassword(old: PasswordInput(old), new: PasswordInput(new))
    }
}

/// VynqTalk's intents.
enum VynqTalkIntents {
    static func signUp(_ name: String, _ email: String, _ password: String) -> Registration.Intent {
        .submit(RegistrationInput(name: name, email: email, password: PasswordInput(password)))
    }
    static func signIn(_ email: String, _ password: String) -> PasswordSignIn.Intent {
        .submit(identifier: email, password: PasswordInput(password))
    }
}

/// Everday's intents.
enum EverdayIntents {
    static func register(_ username: String, _ password: String, name: String = "", email: String = "") -> Registration.Intent {
        .submit(RegistrationInput(name: name, email: email, username: username, password: PasswordInput(password)))
    }
    static func signIn(_ username: String, _ password: String) -> PasswordSignIn.Intent {
        .submit(identifier: username, password: PasswordInput(password))
    }
    static func forgot(_ identifier: String) -> PasswordReset.Intent { .requestReset(identifier) }
    static func reset(token: String, newPassword: String) -> PasswordReset.Intent {
        .submitToken(ResetToken(token), newPassword: PasswordInput(newPassword))
    }
    static func changePassword(_ old: String, _ new: String) -> SessionLifecycle.Intent {
        .changePassword(old: PasswordInput(old), new: PasswordInput(new))
    }
}

/// Subspace's intents.
enum SubspaceIntents {
    static func register(_ name: String, _ email: String, _ password: String) -> Registration.Intent {
        .submit(RegistrationInput(name: name, email: email, password: PasswordInput(password)))
    }
    static func signIn(_ email: String, _ password: String) -> PasswordSignIn.Intent {
        .submit(identifier: email, password: PasswordInput(password))
    }
}

/// Hero365's intents.
enum Hero365Intents {
    static func signUp(email: String = "", phone: String = "", _ password: String, name: String = "") -> Registration.Intent {
        .submit(RegistrationInput(name: name, email: email, phone: phone, password: PasswordInput(password)))
    }
    static func signIn(_ identifier: String, _ password: String) -> PasswordSignIn.Intent {
        .submit(identifier: identifier, password: PasswordInput(password))
    }
    static func sendCode(_ phone: String) -> OneTimeCodeSignIn.Intent { .submitDestination(phone) }
    static let requestNewCode: OneTimeCodeSignIn.Intent = .requestNewCode
    static func verify(_ code: String) -> OneTimeCodeSignIn.Intent { .submitCode(CodeInput(code)) }
    static func oauth(_ provider: String, attempt: String) -> OAuthSignIn.Intent { .begin(provider: provider, attempt: attempt) }
    static func oauthCallback(_ callback: OAuthCallback) -> OAuthSignIn.Intent { .callback(callback) }
    static func recover(_ email: String) -> PasswordReset.Intent { .requestReset(email) }
}

extension Completion {
    /// The case's name (`codeSent`), whatever its payload.
    var caseName: String { String(description.prefix { $0 != "(" }) }
}
