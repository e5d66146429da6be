import AuthCore
import Foundation

/// VynqTalk's client: sign-up and sign-in by email, a session that ends on a refused token (the
/// document's automatic logout), and the realtime connection that follows the session.
///
/// ```swift
/// let auth = VynqTalkClient(baseURL: URL(string: "https://vynqtalk.example")!, vault: KeychainVault())
/// let user = try await auth.signIn(email: "ada@example.com", password: typed)
/// for await message in await auth.realtimeMessages() { show(message) }
/// ```
public final class VynqTalkClient: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<VynqTalkApp>

    /// A client for the VynqTalk API at `baseURL` (the document's paths are at its root), keeping
    /// credentials in `vault`; `realtime` opens the WebSocket (none: the connection reports it
    /// cannot open).
    public init(
        baseURL: URL, vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(),
        realtime: (any RealtimeConnector)? = URLSessionRealtimeConnector(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        runner = .client(
            Apps.vynqTalk(), contract: VynqTalkContract(baseURL: baseURL), transport: transport, vault: vault, clock: clock,
            realtime: realtime, logger: logger)
    }

    /// Signs up and signs in; the realtime connection opens.
    public func signUp(name: String, email: String, password: String) async throws(AuthError) -> UserProfile {
        let result = try await registering(Registration.Intent.submit(RegistrationInput(name: name, email: email, password: PasswordInput(password))))
        guard case .signedIn(let user) = result else { throw .unexpected("\(result)") }
        return user
    }

    /// Signs in; the realtime connection opens.
    public func signIn(email: String, password: String) async throws(AuthError) -> UserProfile {
        try await signedInUser(PasswordSignIn.Intent.submit(identifier: email, password: PasswordInput(password)))
    }

    /// Opens the realtime connection again (after it gave up, or was closed), with the session's token.
    public func connectRealtime() async throws(AuthError) {
        let placeholder = AccessToken("")  // The composition opens with the session's own token.
        let (completion, _) = await perform(RealtimeConnection.Intent.connect(placeholder))
        guard completion == .done || completion == .unchanged else { throw AuthError(completion, at: runner.clock.now) }
    }

    /// Closes the realtime connection; it stays closed until ``connectRealtime()`` or the next sign-in.
    public func disconnectRealtime() async {
        _ = await perform(RealtimeConnection.Intent.disconnect)
    }

    /// Every message the realtime connection receives from now on.
    public func realtimeMessages() async -> AsyncStream<RealtimeMessage> { await runner.realtimeMessages() }

    /// Sends `message` on the open realtime connection.
    public func sendRealtime(_ message: RealtimeMessage) async throws(RealtimeError) { try await runner.sendRealtime(message) }
}
