import AuthSupport
import AuthCore
import Foundation

/// Hero365's client: sign-up and sign-in by email or phone, a one-time code by SMS, OAuth (through
/// the browser where the server hands out a URL, natively with the provider's identity token where
/// it does not), password recovery by an emailed link, and a session with rotating refresh.
///
/// Signing out (``BackendClient/signOut()``) signs the user out on every device: the user is
/// signed out here at once, then the server session is ended in the background at the deployed
/// server's `POST /revoke-tokens/{user_id}`, Supabase's global sign-out, which revokes every
/// refresh token of the user (the document's `/auth/signout` ends nothing on the server).
/// ``BackendClient/serverSignOutReports()`` tells whether the server confirmed it.
///
/// ```swift
/// let auth = Hero365Client(baseURL: URL(string: "https://hero365.example/api/v1")!, vault: KeychainVault())
/// try await auth.sendOTP(to: "+1 234 567 8900")
/// let user = try await auth.verifyOTP(code: typedCode)
/// ```
public final class Hero365Client: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<Hero365App>
    private let contract: Hero365Contract
    /// The OAuth attempt begun last and the URL it opened, to read its callback by.
    private let oauth = OAuthAttempts()

    /// A client for the Hero365 API at `baseURL` (the document's paths are under `/api/v1`),
    /// keeping credentials in `vault`.
    public init(
        baseURL: URL, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        contract = Hero365Contract(baseURL: baseURL)
        runner = .client(Apps.hero365(), contract: contract, transport: transport, vault: vault, clock: clock, logger: logger)
    }

    /// Signs up with an email, or a phone number when `identifier` has no `@`; the account is
    /// usually verified by email or SMS before it can sign in.
    public func signUp(identifier: String, password: String, fullName: String? = nil) async throws(AuthError) -> RegistrationResult {
        let isEmail = identifier.contains("@")
        let input = RegistrationInput(
            name: fullName ?? "", email: isEmail ? identifier : "", phone: isEmail ? "" : identifier, password: PasswordInput(password))
        return try await registering(Registration.Intent.submit(input))
    }

    /// Signs in with an email, or a phone number when `identifier` has no `@`.
    public func signIn(identifier: String, password: String) async throws(AuthError) -> UserProfile {
        try await signedInUser(PasswordSignIn.Intent.submit(identifier: identifier, password: PasswordInput(password)))
    }

    /// Texts a one-time code to `phone` (E.164, or typed with spaces and dashes).
    @discardableResult
    public func sendOTP(to phone: String) async throws(AuthError) -> CodeSent {
        try await sendingCode(OneTimeCodeSignIn.Intent.submitDestination(phone))
    }

    /// Another code to the same phone, once the cooldown ended.
    @discardableResult
    public func resendOTP() async throws(AuthError) -> CodeSent {
        try await sendingCode(OneTimeCodeSignIn.Intent.requestNewCode)
    }

    /// Signs in with the texted code.
    public func verifyOTP(code: String) async throws(AuthError) -> UserProfile {
        try await signedInUser(OneTimeCodeSignIn.Intent.submitCode(CodeInput(code)))
    }

    /// The provider's authorization URL to open in a browser; its callback goes to
    /// ``completeOAuth(callback:)``. Throws ``AuthError/nativeSignInRequired(_:)`` when the server
    /// signs in with `provider` only natively (``startOAuth(with:)`` says which way, without throwing).
    public func oauthURL(for provider: OAuthProvider) async throws(AuthError) -> URL {
        switch try await startOAuth(with: provider) {
        case .browser(let url): return url
        case .nativeSignIn(let provider): throw .nativeSignInRequired(provider)
        }
    }

    /// How sign-in with `provider` goes on with this server: in a browser at the URL the
    /// document's server hands out (its callback goes to ``completeOAuth(callback:)``), or natively,
    /// as the deployed server asks: get an identity token from the provider's SDK and call
    /// ``signIn(with:identityToken:userIdentifier:)``.
    public func startOAuth(with provider: OAuthProvider) async throws(AuthError) -> OAuthStart {
        let attempt = UUID().uuidString
        let (completion, _) = await perform(OAuthSignIn.Intent.begin(provider: provider.rawValue, attempt: attempt))
        switch completion {
        case .authorizationURL(let text):
            guard let url = URL(string: text) else { throw .server(.malformed) }
            oauth.began(attempt, opening: text)
            return .browser(url)
        case .nativeSignInRequired(let provider):
            return .nativeSignIn(provider)
        case .signedIn, .pendingApproval, .verificationRequired, .codeSent, .passwordSet, .passwordChanged, .passwordResetRequested,
            .passwordResetCompleted, .signedOut, .done, .unchanged, .answered, .rejected, .failed, .superseded, .cancelled, .sessionEnded:
            throw AuthError(completion, at: runner.clock.now)
        }
    }

    /// Signs in natively with the identity token `provider`'s SDK gave the app (Sign in with
    /// Apple's `identityToken`, Google Sign-In's `idToken`) and, for Apple, the credential's
    /// `user` (when omitted, the identity token's `sub`, which carries the same id). The token is
    /// sent in the request body only and never printed. The user's `UserProfile.isNewUser` says
    /// whether this sign-in created the account (the deployed server's `is_new_user`).
    ///
    /// For Sign in with Apple, ``signIn(withApple:userIdentifier:fullName:email:)`` also passes the
    /// name and email Apple shares at the first authorization.
    public func signIn(with provider: OAuthProvider, identityToken: String, userIdentifier: String? = nil) async throws(AuthError)
        -> UserProfile
    {
        try await signedInNatively(provider, identityToken: identityToken, userIdentifier: userIdentifier)
    }

    /// Signs in with Apple natively, with what `ASAuthorizationAppleIDCredential` gave the app:
    /// its `identityToken` (as text), `user`, and the `fullName` and `email` Apple shares only at
    /// the first authorization (`nil` afterwards), which the server keeps as the account's
    /// `full_name` and `email`. The returned user's `UserProfile.isNewUser` is `true` when this
    /// sign-in created the account: show the onboarding then.
    ///
    /// ```swift
    /// let user = try await auth.signIn(
    ///     withApple: String(decoding: credential.identityToken!, as: UTF8.self), userIdentifier: credential.user,
    ///     fullName: credential.fullName, email: credential.email)
    /// if user.isNewUser == true { showOnboarding() }
    /// ```
    public func signIn(
        withApple identityToken: String, userIdentifier: String? = nil, fullName: PersonNameComponents? = nil, email: String? = nil
    ) async throws(AuthError) -> UserProfile {
        try await signedInNatively(.apple, identityToken: identityToken, userIdentifier: userIdentifier, fullName: fullName, email: email)
    }

    /// Signs in with the callback URL the provider redirected to (tokens or an error in its
    /// query or fragment), for the attempt ``oauthURL(for:)`` began.
    public func completeOAuth(callback url: URL) async throws(AuthError) -> UserProfile {
        guard let (attempt, opened) = oauth.pending,
            let callback = contract.oauthCallback(url, attempt: attempt, authorizationURL: opened)
        else { throw .rejected(.callbackMismatch) }
        return try await signedInUser(OAuthSignIn.Intent.callback(callback))
    }

    /// Emails a recovery link; the password is reset in the browser.
    @discardableResult
    public func recoverPassword(email: String) async throws(AuthError) -> CodeSent {
        try await sendingCode(PasswordReset.Intent.requestReset(email))
    }

    /// The signed-in user as the server knows them now (`/users/me`).
    public func fetchCurrentUser() async throws(AuthError) -> UserProfile {
        try await currentUserFromServer()
    }
}

/// How OAuth sign-in goes on with a provider (``Hero365Client/startOAuth(with:)``).
public enum OAuthStart: Hashable, Sendable {
    /// Open this URL in a browser; its callback goes to ``Hero365Client/completeOAuth(callback:)``.
    case browser(URL)
    /// The server signs in with this provider only natively: get an identity token from the
    /// provider's SDK and call ``Hero365Client/signIn(with:identityToken:userIdentifier:)``.
    case nativeSignIn(OAuthProvider)
}

/// The OAuth attempt a client began last, and the URL it opened.
private final class OAuthAttempts: Sendable {
    private let last = Locked<(attempt: String, opened: String)?>(nil)

    var pending: (attempt: String, opened: String)? { last.withLock { $0 } }

    func began(_ attempt: String, opening url: String) { last.withLock { $0 = (attempt, url) } }
}
