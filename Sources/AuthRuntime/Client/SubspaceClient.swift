import AuthCore
import Foundation

/// Subspace's client: registration that signs in at once, sign-in by email or natively with Apple
/// or Google (the deployed server's `/auth/apple`, `/auth/google`), and a session whose stored
/// token is confirmed with `/auth/me` at launch.
///
/// ```swift
/// let auth = SubspaceClient(baseURL: URL(string: "https://subspace.example/api/v1")!, vault: KeychainVault())
/// let user = try await auth.signIn(email: "kirk@starfleet.example", password: typed)
/// ```
public final class SubspaceClient: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<SubspaceApp>

    /// A client for the Subspace API at `baseURL` (the document's paths are under `/api/v1`),
    /// keeping credentials in `vault`.
    public init(
        baseURL: URL, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        runner = .client(
            Apps.subspace(), contract: SubspaceContract(baseURL: baseURL), transport: transport, vault: vault, clock: clock, logger: logger)
    }

    /// Registers and signs in.
    public func register(name: String, email: String, password: String) async throws(AuthError) -> UserProfile {
        let result = try await registering(Registration.Intent.submit(RegistrationInput(name: name, email: email, password: PasswordInput(password))))
        guard case .signedIn(let user) = result else { throw .unexpected("\(result)") }
        return user
    }

    /// Signs in.
    public func signIn(email: String, password: String) async throws(AuthError) -> UserProfile {
        try await signedInUser(PasswordSignIn.Intent.submit(identifier: email, password: PasswordInput(password)))
    }

    /// Signs in with Apple natively (the deployed server's `POST /auth/apple`), with what
    /// `ASAuthorizationAppleIDCredential` gave the app: its `identityToken` (as text), `user`,
    /// `authorizationCode` (as text), and the `fullName` and `email` Apple shares only at the
    /// first authorization (`nil` afterwards), which the server keeps for the account. The token
    /// and the code are sent in the request body only and never printed.
    ///
    /// ```swift
    /// let user = try await auth.signIn(
    ///     withApple: String(decoding: credential.identityToken!, as: UTF8.self), userIdentifier: credential.user,
    ///     authorizationCode: credential.authorizationCode.map { String(decoding: $0, as: UTF8.self) },
    ///     fullName: credential.fullName, email: credential.email)
    /// ```
    public func signIn(
        withApple identityToken: String, userIdentifier: String? = nil, authorizationCode: String? = nil,
        fullName: PersonNameComponents? = nil, email: String? = nil
    ) async throws(AuthError) -> UserProfile {
        try await signedInNatively(
            .apple, identityToken: identityToken, userIdentifier: userIdentifier, authorizationCode: authorizationCode, fullName: fullName,
            email: email)
    }

    /// Signs in with Google natively (the deployed server's `POST /auth/google`) with the
    /// `idToken` Google Sign-In gave the app; its `sub` is sent as the user id unless
    /// `userIdentifier` is given. The token is sent in the request body only and never printed.
    public func signIn(withGoogle identityToken: String, userIdentifier: String? = nil) async throws(AuthError) -> UserProfile {
        try await signedInNatively(.google, identityToken: identityToken, userIdentifier: userIdentifier)
    }

    /// The signed-in user as the server knows them now (`/auth/me`).
    public func fetchCurrentUser() async throws(AuthError) -> UserProfile {
        try await currentUserFromServer()
    }
}

extension BackendClient {
    /// Asks the backend's current-user endpoint who the session belongs to, as a protected call.
    func currentUserFromServer() async throws(AuthError) -> UserProfile {
        let placeholder = Bearer(token: AccessToken(""), userID: "")  // `authorized` attaches the session's own.
        let request: HTTPRequest
        do throws(ContractError) {
            request = try runner.contract.encode(.currentUser(placeholder))
        } catch {
            throw .rejected(.unsupported)
        }
        let response = try await authorized(request)
        switch runner.contract.decode(response, for: .currentUser(placeholder), receivedAt: runner.clock.now) {
        case .user(let user): return user
        case .failed(let failure): throw .server(failure)
        case .granted, .refreshed, .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
            .realtimeOpened, .realtimeClosed:
            throw .server(.malformed)
        }
    }
}
