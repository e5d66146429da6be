import AuthCore
import Foundation

/// Everday's client: approval-gated registration, sign-in by username (which may find the account
/// pending approval, or demand a new password), reset by an emailed token, and a session with
/// rotating refresh that is restored at launch by refreshing.
///
/// ```swift
/// let auth = EverdayClient(baseURL: URL(string: "https://everday.example/api")!, vault: KeychainVault())
/// switch try await auth.signIn(username: "newkid", password: typed) {
/// case .signedIn(let user): show(user)
/// case .pendingApproval: showWaitingForParent()
/// case .passwordChangeRequired: showChangePassword()  // then `changePassword(old:new:)`
/// case .passwordSetupRequired: break  // Everday never asks to set a first password.
/// }
/// ```
public final class EverdayClient: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<EverdayApp>

    /// A client for the Everday API at `baseURL` (the document's paths are under `/api`), keeping
    /// credentials in `vault`.
    public init(
        baseURL: URL, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        runner = .client(
            Apps.everday(), contract: EverdayContract(baseURL: baseURL), transport: transport, vault: vault, clock: clock, logger: logger)
    }

    /// Registers an account; it awaits a parent's approval before it can sign in. A parent
    /// registering several children calls it once for each, one after the other: a registration
    /// pending approval does not hold back the next.
    public func register(
        username: String, password: String, email: String? = nil, displayName: String? = nil, discordHandle: String? = nil
    ) async throws(AuthError) -> RegistrationResult {
        try await registering(
            Registration.Intent.submit(
                RegistrationInput(
                    name: displayName ?? "", email: email ?? "", username: username, password: PasswordInput(password),
                    discordHandle: discordHandle ?? "")))
    }

    /// Signs in: signed in, pending approval, or signed in with a password change demanded.
    public func signIn(username: String, password: String) async throws(AuthError) -> SignInResult {
        try await signingIn(PasswordSignIn.Intent.submit(identifier: username, password: PasswordInput(password)))
    }

    /// Asks for a reset token by email, for a username or an email address.
    @discardableResult
    public func forgotPassword(identifier: String) async throws(AuthError) -> CodeSent {
        try await sendingCode(PasswordReset.Intent.requestReset(identifier))
    }

    /// Changes the password — while the server demands a new one (`RequirePasswordChange`), or
    /// at any time in a session — then signs in again with the new one.
    ///
    /// Everday ends every session of the user when a password changes (it revokes all their
    /// refresh tokens), so the session ends cleanly once the change is accepted (signed out with
    /// `SignOutReason.passwordChanged`, the vault cleared, the revoked refresh token never sent
    /// again), and this call then signs in with the new password. A wrong current password
    /// throws `AuthError.server(.incorrectPassword(_:))` and keeps the session as it was. When
    /// the change went through but signing in again fails, the password is changed and the user
    /// is signed out; the error is the sign-in's.
    @discardableResult
    public func changePassword(old: String, new: String) async throws(AuthError) -> SignInResult {
        let username = await currentUser?.id
        try await completing(SessionLifecycle.Intent.changePassword(old: PasswordInput(old), new: PasswordInput(new)), expecting: .passwordChanged)
        guard let username else { throw .rejected(.notSignedIn) }  // Never: a change is accepted only in a session.
        return try await signIn(username: username, password: new)
    }

    /// Deletes the signed-in user's account and what it owns on the server, then ends the session
    /// (signed out with `SignOutReason.accountDeleted`, the vault cleared). Irreversible: ask the
    /// user to confirm first. A failure (404, 409, 500, no network) throws and keeps the session.
    public func deleteAccount() async throws(AuthError) {
        try await completing(SessionLifecycle.Intent.deleteAccount, expecting: .done)
    }

    /// Resets the password with the emailed token; sign in with the new one afterwards.
    public func resetPassword(token: String, newPassword: String) async throws(AuthError) {
        try await completing(
            PasswordReset.Intent.submitToken(ResetToken(token), newPassword: PasswordInput(newPassword)), expecting: .passwordResetCompleted)
    }
}
