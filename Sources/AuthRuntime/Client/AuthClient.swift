import AuthCore
import Foundation

/// The client of any app machine and any contract: a server of one's own gets what the five
/// documented backends' clients give — ``signIn(_:password:)``, ``BackendClient/authorized(_:)``,
/// ``BackendClient/authStateChanges``, ``BackendClient/signOut()``, `AuthModel` — without writing
/// a client class.
///
/// ```swift
/// let auth = AuthClient(
///     contract: MyContract(baseURL: apiURL), signIn: .username,
///     session: SessionPolicy(refresh: .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)), restore: .refresh),
///     vault: KeychainVault())
/// let user = try await auth.signIn("ada", password: typed).user
/// let profile = try await auth.authorized(HTTPRequest(method: "GET", url: apiURL.appending(path: "me")))
/// ```
///
/// `App` is any composition of the shipped lifecycles whose session reports an `AuthState`; an
/// operation whose flow the app does not compose throws `AuthError.rejected(.unsupported)`.
public final class AuthClient<App: AuthStateReporting>: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<App>

    /// A client running `app` against the server `contract` maps requests to, keeping credentials
    /// in `vault`. `realtime` opens the realtime connection of an app that has one.
    public init(
        app: App, contract: any BackendContract, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(),
        clock: any RuntimeClock = SystemClock(), realtime: (any RealtimeConnector)? = nil, logger: (any HTTPLogger)? = nil
    ) {
        runner = .client(app, contract: contract, transport: transport, vault: vault, clock: clock, realtime: realtime, logger: logger)
    }

    /// Signs in with an identifier (an email, a username or a phone number, as the app's
    /// `PasswordSignIn` names accounts) and a password: signed in, or what the server demands
    /// first.
    ///
    /// - Throws: ``AuthError``: the input is invalid, the server refused, the network failed.
    public func signIn(_ identifier: String, password: String) async throws(AuthError) -> SignInResult {
        try await signingIn(PasswordSignIn.Intent.submit(identifier: identifier, password: PasswordInput(password)))
    }

    /// Registers with the app's `Registration` flow: signed in at once, or what the server needs first.
    public func register(_ input: RegistrationInput) async throws(AuthError) -> RegistrationResult {
        try await registering(Registration.Intent.submit(input))
    }

    /// Sends any intent of a flow the app composes (`PasswordReset.Intent.request(…)`,
    /// `OneTimeCodeSignIn.Intent.…`) and returns how the flow finished it, failures included: the
    /// way to the operations this client has no method for.
    public func send<Intent: Sendable>(_ intent: Intent) async -> Completion {
        await perform(intent).0
    }
}

extension AuthClient where App == PasswordSessionApp {
    /// A client for a server of one's own that signs in with a password (accounts named as
    /// `signIn` says) and keeps the session as `session` says.
    public convenience init(
        contract: any BackendContract, signIn identifiers: PasswordSignIn.IdentifierKind, session: SessionPolicy, vault: any TokenVault,
        transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(), logger: (any HTTPLogger)? = nil
    ) {
        self.init(
            app: Apps.passwordSession(identifiers: identifiers, policy: session), contract: contract, vault: vault, transport: transport,
            clock: clock, logger: logger)
    }
}
