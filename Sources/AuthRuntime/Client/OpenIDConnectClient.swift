import AuthCore
import Foundation

/// Any OpenID Connect provider's client, for a native app registered as a public client:
/// sign-in by authorization code with PKCE in the system browser (RFC 8252), a session that
/// refreshes with rotation, asks the userinfo endpoint at launch and revokes its refresh token at
/// sign-out.
///
/// ```swift
/// let auth = try await OpenIDConnectClient.discover(
///     issuer: URL(string: "https://id.example.com")!, clientID: "app-1",
///     redirectURI: URL(string: "com.example.app:/oauth2redirect")!, vault: KeychainVault())
/// // SwiftUI's WebAuthenticationSession, or any browser that hands back the redirect:
/// let user = try await auth.signIn { url, scheme in
///     try await webAuthenticationSession.authenticate(using: url, callbackURLScheme: scheme ?? "com.example.app")
/// }
/// ```
///
/// Or in two steps, where the redirect reaches the app some other way (a universal link, a
/// loopback server): ``startSignIn()`` gives the URL to open, ``handleRedirect(_:)`` finishes.
///
/// On a device without a browser (a TV, a command-line tool), where the provider offers it
/// (``offersDeviceSignIn``), the user enters a code on their phone instead (RFC 8628):
///
/// ```swift
/// let user = try await auth.signInOnDevice { prompt in
///     screen.show("Go to \(prompt.verificationURI) and enter \(prompt.userCode)")
/// }
/// ```
///
/// Each attempt's `state`, `nonce` and PKCE verifier come from the system's secure random number
/// generator; the verifier leaves the device only in the token request, a redirect whose `state`
/// is not the attempt's is refused, and the ID token's `iss`, `aud`, `azp`, `exp`, `iat` and
/// `nonce` are checked before the user is signed in. The ID token's signature is not checked: it
/// comes straight from the token endpoint over TLS (OpenID Connect Core §3.1.3.7 ¶6).
public final class OpenIDConnectClient: BackendClient {
    /// The runner underneath.
    public let runner: AuthRunner<OpenIDConnectApp>
    /// The provider's contract: its endpoints, the client id, the redirect URI and the scopes.
    public let contract: OpenIDConnectContract

    /// A client for `provider` (read with `OpenIDProviderMetadata.discover(issuer:transport:)`, or
    /// kept by the app), as the public client `clientID` redirected to `redirectURI`, asking for
    /// `scopes` (`openid` is always added), keeping credentials in `vault`.
    public init(
        provider: OpenIDProviderMetadata, clientID: String, redirectURI: URL, scopes: [String] = ["openid", "profile", "email"],
        vault: any TokenVault, transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(),
        logger: (any HTTPLogger)? = nil
    ) {
        contract = OpenIDConnectContract(provider: provider, clientID: clientID, redirectURI: redirectURI, scopes: scopes)
        let signIn = OpenIDSignIn(
            issuer: provider.issuer, clientID: clientID, requiresIssuerInResponse: provider.issuerInAuthorizationResponse)
        // Without a userinfo endpoint there is nobody to ask at launch: the stored session is used
        // as it is, and a refused token ends it later.
        let app = Apps.openIDConnect(signIn, restore: provider.userinfoEndpoint == nil ? .trustStored : .fetchCurrentUser)
        runner = .client(app, contract: contract, transport: transport, vault: vault, clock: clock, logger: logger)
    }

    /// Reads `issuer`'s discovery document (its `issuer` must be exactly `issuer`; the revocation
    /// endpoint, when it names none, from the provider's RFC 8414 metadata, as
    /// `OpenIDProviderMetadata.discover(issuer:transport:)` says), then makes the client as ``init(provider:clientID:redirectURI:scopes:vault:transport:clock:logger:)`` does.
    ///
    /// - Throws: `OpenIDDiscoveryError`: the document could not be fetched, is unreadable, names
    ///   another issuer, or offers no PKCE S256.
    public static func discover(
        issuer: URL, clientID: String, redirectURI: URL, scopes: [String] = ["openid", "profile", "email"], vault: any TokenVault,
        transport: any HTTPTransport = URLSessionTransport(), clock: any RuntimeClock = SystemClock(), logger: (any HTTPLogger)? = nil
    ) async throws(OpenIDDiscoveryError) -> OpenIDConnectClient {
        let provider = try await OpenIDProviderMetadata.discover(issuer: issuer, transport: transport)
        return OpenIDConnectClient(
            provider: provider, clientID: clientID, redirectURI: redirectURI, scopes: scopes, vault: vault, transport: transport, clock: clock,
            logger: logger)
    }

    /// The redirect URI's scheme, for a browser session that waits for it
    /// (`ASWebAuthenticationSession`'s `callbackURLScheme`).
    public var callbackURLScheme: String? { contract.redirectURI.scheme }

    /// Signs in: opens the provider's page with `browser` (given the URL and the redirect URI's
    /// scheme; it returns the URL the provider redirected to), then exchanges the code.
    ///
    /// - Throws: ``AuthError``: ``AuthError/cancelled`` when `browser` throws (the user closed
    ///   it); `.rejected(.callbackMismatch)` for a redirect that is not this attempt's; the
    ///   provider's refusal (`access_denied`, `invalid_grant`) or an ID token that is not for
    ///   this sign-in as ``AuthError/server(_:)``.
    public func signIn(browser: (_ url: URL, _ callbackURLScheme: String?) async throws -> URL) async throws(AuthError) -> UserProfile {
        let url = try await startSignIn()
        let redirect: URL
        do {
            redirect = try await browser(url, callbackURLScheme)
        } catch {
            await cancelSignIn()
            throw .cancelled
        }
        return try await handleRedirect(redirect)
    }

    /// Begins a sign-in attempt and returns the provider's page to open in the browser. A pending
    /// attempt is replaced: its redirect will be refused.
    ///
    /// - Throws: ``AuthError``: `.rejected(.alreadySignedIn)`, or `.rejected(.busy)` while a code
    ///   is being exchanged.
    public func startSignIn() async throws(AuthError) -> URL {
        let attempt = PKCE.attempt()
        try await completing(OpenIDSignIn.Intent.begin(attempt), expecting: .done)
        return contract.authorizationURL(for: attempt)
    }

    /// Finishes the attempt ``startSignIn()`` began with the URL the provider redirected to:
    /// exchanges its code (once) and signs in.
    ///
    /// - Throws: ``AuthError``: `.rejected(.callbackMismatch)` for a URL that is not the redirect
    ///   URI, or whose `state` or `iss` is not the attempt's; the provider's refusal or an ID token
    ///   that is not for this sign-in as ``AuthError/server(_:)``.
    public func handleRedirect(_ url: URL) async throws(AuthError) -> UserProfile {
        guard let response = contract.authorizationResponse(from: url) else { throw .rejected(.callbackMismatch) }
        return try await signedInUser(OpenIDSignIn.Intent.callback(response))
    }

    /// The provider's end-session page (RP-initiated logout), for the app to open in the browser
    /// after `signOut()`: signing out ends the app's session and revokes its refresh token, but
    /// the browser may still hold the provider's own session, which would sign the next user in
    /// without asking. `nil` when the provider offers no end-session endpoint. See
    /// ``OpenIDConnectContract/endSessionURL(postLogoutRedirectURI:state:)``.
    public func endSessionURL(postLogoutRedirectURI: URL? = nil, state: String? = nil) -> URL? {
        contract.endSessionURL(postLogoutRedirectURI: postLogoutRedirectURI, state: state)
    }

    /// Gives up on the pending attempt, if any: its redirect will be refused.
    public func cancelSignIn() async {
        _ = await perform(OpenIDSignIn.Intent.cancel)
    }

    // MARK: Devices without a browser

    /// Whether the provider offers sign-in on devices without a browser: its discovery document
    /// names a `device_authorization_endpoint` (RFC 8628 §4).
    public var offersDeviceSignIn: Bool { contract.provider.deviceAuthorizationEndpoint != nil }

    /// Signs in on a device without a browser (RFC 8628): asks the provider for a user code, hands
    /// it to `showCode` with the page where to enter it (`showCode` returns once it is on screen),
    /// then waits while the user approves the sign-in on a phone or a computer, polling the
    /// provider no more often than it allows. The ID token is checked as in ``signIn(browser:)``.
    ///
    /// `showCode` is called once per sign-in, as soon as the code is known. Cancelling the task
    /// stops polling (and throws ``AuthError/cancelled``); so does ``cancelDeviceSignIn()`` from
    /// elsewhere (the waiting call throws ``AuthError/superseded``), and starting a browser
    /// sign-in.
    ///
    /// - Throws: ``AuthError``: `.rejected(.unsupported)` before any request when the provider
    ///   has no device authorization endpoint (``offersDeviceSignIn``);
    ///   `.rejected(.signInDeclined)` when the user declined; `.rejected(.deviceCodeExpired)` when
    ///   the code expired first; `.rejected(.busy)` while another device sign-in is under way;
    ///   `.rejected(.alreadySignedIn)`; the provider's refusal (`invalid_client`, an ID token that
    ///   is not for this app) or an unreachable provider for the codes as ``AuthError/server(_:)``.
    public func signInOnDevice(showCode: @escaping @Sendable (UserCodePrompt) async -> Void) async throws(AuthError) -> UserProfile {
        guard offersDeviceSignIn else { throw .rejected(.unsupported) }
        let states = await runner.states()  // Subscribed before the sign-in starts: no prompt is missed.
        let app = runner.machine
        let display = Task {
            var shown: UserCodePrompt?
            for await state in states {
                guard case .signedOut(.second(let device)) = state.phase, let prompt = app.entry.second.prompt(in: device), prompt != shown
                else { continue }
                shown = prompt
                await showCode(prompt)
            }
        }
        defer { display.cancel() }
        return try await signedInUser(DeviceSignIn.Intent.start)
    }

    /// Stops the device sign-in under way, if any: no poll leaves after it, and the waiting
    /// ``signInOnDevice(showCode:)`` throws ``AuthError/superseded``.
    public func cancelDeviceSignIn() async {
        _ = await perform(DeviceSignIn.Intent.cancel)
    }
}
