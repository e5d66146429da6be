import AuthCore
import Foundation

/// Anonymous Wall's client: an emailed code registers (signed in, password not yet set) or signs
/// in; a password is set, used, changed and reset by code with automatic sign-in.
///
/// ```swift
/// let auth = AnonymousWallClient(baseURL: URL(string: "https://wall.example/api/v1")!, vault: KeychainVault())
/// try await auth.sendCode(to: "student@harvard.edu", for: .register)
/// if case .passwordSetupRequired = try await auth.register(code: typedCode) {
///     try await auth.setPassword(newPassword)
/// }
/// ```
public final class AnonymousWallClient: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<AnonymousWallApp>

    /// A client for the Anonymous Wall API at `baseURL` (the document's paths are under
    /// `/api/v1`), keeping credentials in `vault`.
    public init(
        baseURL: URL, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        runner = .client(
            Apps.anonymousWall(), contract: AnonymousWallContract(baseURL: baseURL), transport: transport, vault: vault, clock: clock,
            logger: logger)
    }

    /// Emails a code to `email`: to register, to sign in, or to reset the password. The next
    /// ``register(code:)``, ``signIn(code:)`` or ``resetPassword(code:newPassword:)`` uses it.
    @discardableResult
    public func sendCode(to email: String, for purpose: CodePurpose) async throws(AuthError) -> CodeSent {
        switch purpose {
        case .register: try await sendingCode(CodeRegistration.Intent.submitEmail(email))
        case .login: try await sendingCode(OneTimeCodeSignIn.Intent.submitDestination(email))
        case .resetPassword: try await sendingCode(PasswordReset.Intent.requestReset(email))
        }
    }

    /// Registers with the code emailed for registration: signed in, usually with the password still to set.
    public func register(code: String) async throws(AuthError) -> SignInResult {
        try await signingIn(CodeRegistration.Intent.submitCode(CodeInput(code)))
    }

    /// Sets the first password (after a code registration or code sign-in that left it unset).
    public func setPassword(_ password: String) async throws(AuthError) {
        try await completing(SessionLifecycle.Intent.setPassword(PasswordInput(password)), expecting: .passwordSet)
    }

    /// Signs in with email and password.
    public func signIn(email: String, password: String) async throws(AuthError) -> SignInResult {
        try await signingIn(PasswordSignIn.Intent.submit(identifier: email, password: PasswordInput(password)))
    }

    /// Signs in with the code emailed for signing in.
    public func signIn(code: String) async throws(AuthError) -> SignInResult {
        try await signingIn(OneTimeCodeSignIn.Intent.submitCode(CodeInput(code)))
    }

    /// Changes the password of the signed-in user.
    public func changePassword(old: String, new: String) async throws(AuthError) {
        try await completing(SessionLifecycle.Intent.changePassword(old: PasswordInput(old), new: PasswordInput(new)), expecting: .passwordChanged)
    }

    /// Asks for a password-reset code by email (``sendCode(to:for:)`` with `.resetPassword`).
    @discardableResult
    public func requestPasswordReset(email: String) async throws(AuthError) -> CodeSent {
        try await sendCode(to: email, for: .resetPassword)
    }

    /// Resets the password with the emailed code, and signs in with it at once.
    public func resetPassword(code: String, newPassword: String) async throws(AuthError) -> SignInResult {
        try await signingIn(PasswordReset.Intent.submitCode(CodeInput(code), newPassword: PasswordInput(newPassword)))
    }
}
