import AuthCore
import Foundation

/// Subspace's client: registration that signs in at once, sign-in by email, and a session whose
/// stored token is confirmed with `/auth/me` at launch.
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
        case .granted, .refreshed, .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .realtimeOpened,
            .realtimeClosed:
            throw .server(.malformed)
        }
    }
}
