import AuthCore
import AuthRuntime

/// An app machine whose session phase a test can read, whatever its shape.
protocol EndToEndApp: AuthorizedCalls {
    /// The session's phase, `nil` while signed out in the entry flows.
    func sessionPhase(_ phase: Phase) -> SessionLifecycle.Phase?
    /// The intent that logs out.
    var logout: Intent { get }
}

/// A session side whose ``SessionLifecycle`` phase can be read.
protocol SessionPhaseReading: SessionRole, AuthorizedCalls {
    /// The session lifecycle's phase inside `phase`.
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase
    /// The intent that logs out.
    var logoutIntent: Intent { get }
}

extension SessionLifecycle: SessionPhaseReading {
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase { phase }
    var logoutIntent: Intent { .logout }
}

extension SessionWithRealtime: SessionPhaseReading {
    func sessionLifecyclePhase(_ phase: Phase) -> SessionLifecycle.Phase { phase.session }
    var logoutIntent: Intent { .session(.logout) }
}

extension Handover: EndToEndApp where SessionSide: SessionPhaseReading {
    func sessionPhase(_ phase: Phase) -> SessionLifecycle.Phase? {
        guard case .signedIn(let inner) = phase else { return nil }
        return session.sessionLifecyclePhase(inner)
    }

    var logout: Intent { .session(session.logoutIntent) }
}

extension Client where Machine: EndToEndApp {
    /// The session's phase, `nil` while signed out.
    var session: SessionLifecycle.Phase? { get async { runner.machine.sessionPhase(await runner.phase) } }

    /// The credentials the session holds, `nil` while signed out.
    var credentials: Credentials? { get async { await session?.credentials } }

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
    func logout() async { await send(runner.machine.logout) }
}

/// Anonymous Wall's intents, by what the user does.
enum AnonymousWallIntents {
    typealias Intent = AnonymousWallApp.Intent
    static func registerEmail(_ email: String) -> Intent { .entry(.first(.submitEmail(email))) }
    static func registerCode(_ code: String) -> Intent { .entry(.first(.submitCode(CodeInput(code)))) }
    static func signIn(_ email: String, _ password: String) -> Intent {
        .entry(.second(.first(.submit(identifier: email, password: PasswordInput(password)))))
    }
    static func codeSignIn(_ email: String) -> Intent { .entry(.second(.second(.first(.submitDestination(email))))) }
    static func loginCode(_ code: String) -> Intent { .entry(.second(.second(.first(.submitCode(CodeInput(code)))))) }
    static func requestReset(_ email: String) -> Intent { .entry(.second(.second(.second(.requestReset(email))))) }
    static func reset(code: String, newPassword: String) -> Intent {
        .entry(.second(.second(.second(.submitCode(CodeInput(code), newPassword: PasswordInput(newPassword))))))
    }
    static func setPassword(_ password: String) -> Intent { .session(.setPassword(PasswordInput(password))) }
    static func changePassword(_ old: String, _ new: String) -> Intent {
        .session(.changePassword(old: PasswordInput(old), new: PasswordInput(new)))
    }
}

/// VynqTalk's intents.
enum VynqTalkIntents {
    typealias Intent = VynqTalkApp.Intent
    static func signUp(_ name: String, _ email: String, _ password: String) -> Intent {
        .entry(.first(.submit(RegistrationInput(name: name, email: email, password: PasswordInput(password)))))
    }
    static func signIn(_ email: String, _ password: String) -> Intent {
        .entry(.second(.submit(identifier: email, password: PasswordInput(password))))
    }
}

/// Everday's intents.
enum EverdayIntents {
    typealias Intent = EverdayApp.Intent
    static func register(_ username: String, _ password: String, name: String = "", email: String = "") -> Intent {
        .entry(.first(.submit(RegistrationInput(name: name, email: email, username: username, password: PasswordInput(password)))))
    }
    static func signIn(_ username: String, _ password: String) -> Intent {
        .entry(.second(.first(.submit(identifier: username, password: PasswordInput(password)))))
    }
    static func forgot(_ identifier: String) -> Intent { .entry(.second(.second(.requestReset(identifier)))) }
    static func reset(token: String, newPassword: String) -> Intent {
        .entry(.second(.second(.submitToken(ResetToken(token), newPassword: PasswordInput(newPassword)))))
    }
    static func changePassword(_ old: String, _ new: String) -> Intent {
        .session(.changePassword(old: PasswordInput(old), new: PasswordInput(new)))
    }
}

/// Subspace's intents.
enum SubspaceIntents {
    typealias Intent = SubspaceApp.Intent
    static func register(_ name: String, _ email: String, _ password: String) -> Intent {
        .entry(.first(.submit(RegistrationInput(name: name, email: email, password: PasswordInput(password)))))
    }
    static func signIn(_ email: String, _ password: String) -> Intent {
        .entry(.second(.submit(identifier: email, password: PasswordInput(password))))
    }
}

/// Hero365's intents.
enum Hero365Intents {
    typealias Intent = Hero365App.Intent
    static func signUp(email: String = "", phone: String = "", _ password: String, name: String = "") -> Intent {
        .entry(.first(.submit(RegistrationInput(name: name, email: email, phone: phone, password: PasswordInput(password)))))
    }
    static func signIn(_ identifier: String, _ password: String) -> Intent {
        .entry(.second(.first(.submit(identifier: identifier, password: PasswordInput(password)))))
    }
    static func sendCode(_ phone: String) -> Intent { .entry(.second(.second(.first(.submitDestination(phone))))) }
    static let requestNewCode: Intent = .entry(.second(.second(.first(.requestNewCode))))
    static func verify(_ code: String) -> Intent { .entry(.second(.second(.first(.submitCode(CodeInput(code)))))) }
    static func oauth(_ provider: String, attempt: String) -> Intent {
        .entry(.second(.second(.second(.first(.begin(provider: provider, attempt: attempt))))))
    }
    static func oauthCallback(_ callback: OAuthCallback) -> Intent { .entry(.second(.second(.second(.first(.callback(callback)))))) }
    static func recover(_ email: String) -> Intent { .entry(.second(.second(.second(.second(.requestReset(email)))))) }
}
