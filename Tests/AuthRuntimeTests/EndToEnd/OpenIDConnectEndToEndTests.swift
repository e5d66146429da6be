import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `OpenIDConnectClient` against the reference backend's OpenID Connect provider: discovery, the
/// browser played through the provider's dev endpoint, and what the server's own records say.
enum OpenIDStack {
    static let redirectURI = URL(string: "com.example.app:/oauth2redirect")!

    /// A stack mounting only the provider; its contract, for `stack.client`, names the provider's endpoints by hand.
    static func with<T>(configure: (inout Configuration) -> Void = { _ in }, _ body: (EndToEndStack) async throws -> T) async throws -> T {
        try await EndToEndStack.with(.openIDConnect, configure: configure, contract: contract) { stack in try await body(stack) }
    }

    static func contract(_ issuer: URL) -> any BackendContract {
        let base = issuer.absoluteString
        let provider = OpenIDProviderMetadata(
            issuer: base, authorizationEndpoint: URL(string: base + "/authorize")!, tokenEndpoint: URL(string: base + "/token")!,
            userinfoEndpoint: URL(string: base + "/userinfo"), revocationEndpoint: URL(string: base + "/revoke"),
            issuerInAuthorizationResponse: true)
        return OpenIDConnectContract(provider: provider, clientID: "app-1", redirectURI: redirectURI)
    }

    /// The app's client, made from the provider's discovery document, on the stack's clock, tap and log;
    /// and the journal of its runner (started).
    static func client(_ stack: EndToEndStack, vault: MemoryVault = MemoryVault()) async throws -> (
        OpenIDConnectClient, Client<OpenIDConnectApp>
    ) {
        let auth = try await OpenIDConnectClient.discover(
            issuer: stack.server.baseURL(for: .openIDConnect), clientID: "app-1", redirectURI: redirectURI, vault: vault,
            transport: TappedTransport(URLSessionTransport(timeout: 10), tap: stack.wire), clock: stack.clock, logger: stack.log)
        return (auth, await Client(auth.runner, openConnection: { _ in nil }))
    }

    /// The user's browser at the reference provider (``ReferenceProviderBrowser``).
    static func browser(_ stack: EndToEndStack) -> @Sendable (URL, String?) async throws -> URL {
        ReferenceProviderBrowser.at(stack.server.rootURL)
    }

    /// What the provider's introspection endpoint says of `token` (RFC 7662 `active`).
    static func active(_ stack: EndToEndStack, _ token: String) async throws -> Bool? {
        var request = URLRequest(url: stack.server.baseURL(for: .openIDConnect).appendingPathComponent("introspect"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(RequestBuilder.formEncoded([("token", token), ("client_id", "app-1")]).utf8)
        let session = URLSession.loopback()
        defer { session.invalidateAndCancel() }
        let (data, _) = try await session.data(for: request)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["active"] as? Bool
    }

    /// A protected call: the provider's userinfo.
    static func userinfo(_ stack: EndToEndStack) -> HTTPRequest {
        HTTPRequest(method: "GET", url: stack.server.baseURL(for: .openIDConnect).appendingPathComponent("userinfo"))
    }
}

@Suite("End to end: OpenID Connect", .timeLimit(.minutes(15)))
struct OpenIDConnectEndToEndTests {
    static let lifetime: Int64 = 3600

    @Test("sign-in by code with PKCE: discovery, the redirect, one token request carrying the verifier, the ID token checked, the user")
    func signIn() async throws {
        try await OpenIDStack.with { stack in
            let vault = MemoryVault()
            let (auth, client) = try await OpenIDStack.client(stack, vault: vault)
            #expect(auth.contract.provider.issuerInAuthorizationResponse)
            let user = try await auth.signIn(browser: OpenIDStack.browser(stack))
            #expect(user.id == "user-1")
            #expect(user.email == "jane@example.com")
            #expect(user.name == "Jane Doe")
            let credentials = try #require(vault.credentials)
            let refresh = try #require(credentials.refreshToken).reveal()
            #expect(stack.server.refreshTokenStatus(refresh) == .live)
            #expect(try await OpenIDStack.active(stack, credentials.accessToken.reveal()) == true)
            let exchange = try #require(stack.wire.exchanges(to: "/token").first)
            #expect(stack.wire.exchanges(to: "/token").count == 1)
            #expect((try? exchange.answer.get())?.status == 200)
            let form = String(decoding: exchange.request.body ?? Data(), as: UTF8.self)
            #expect(form.contains("grant_type=authorization_code") && form.contains("code_verifier="))
            #expect(await client.call(OpenIDStack.userinfo(stack)).status == 200)
            _ = await client.stop()
        }
    }

    @Test("a redirect whose state is not the attempt's is refused without a token request; the attempt's own still signs in")
    func wrongState() async throws {
        try await OpenIDStack.with { stack in
            let (auth, client) = try await OpenIDStack.client(stack)
            let url = try await auth.startSignIn()
            let redirect = try await OpenIDStack.browser(stack)(url, nil)
            var forged = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false))
            forged.queryItems = forged.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
            let forgedURL = try #require(forged.url)
            await #expect(throws: AuthError.rejected(.callbackMismatch)) { try await auth.handleRedirect(forgedURL) }
            #expect(stack.server.ledger.requests("POST", "/token") == 0, "the forged redirect's code was never exchanged")
            #expect(await auth.isSignedIn == false)
            let user = try await auth.handleRedirect(redirect)
            #expect(user.id == "user-1")
            _ = await client.stop()
        }
    }

    @Test("the proactive refresh rotates the pair; the consumed token is never presented again")
    func rotation() async throws {
        try await OpenIDStack.with { stack in
            let (auth, client) = try await OpenIDStack.client(stack)
            _ = try await auth.signIn(browser: OpenIDStack.browser(stack))
            let first = try #require(await client.credentials)
            await client.advance(stack.clock, by: .seconds(Self.lifetime - 60))
            #expect(await client.waitFor(.tokenRefreshed))
            let second = try #require(await client.credentials)
            let r1 = try #require(first.refreshToken).reveal()
            let r2 = try #require(second.refreshToken).reveal()
            #expect(r1 != r2)
            #expect(stack.server.refreshTokenStatus(r1) == .consumed)
            #expect(stack.server.refreshTokenStatus(r2) == .live)
            await client.advance(stack.clock, by: .seconds(Self.lifetime - 60))
            #expect(await client.waitFor(.tokenRefreshed, count: 2))
            #expect(stack.server.ledger.refreshTokensPresented == [r1, r2])
            #expect(stack.server.ledger.reuseDetections.isEmpty)
            #expect(await client.isActive)
            _ = await client.stop()
        }
    }

    @Test("100 concurrent calls with an expired access token wait for one refresh; all are answered with the new token")
    func singleFlight() async throws {
        try await OpenIDStack.with { stack in
            let (auth, client) = try await OpenIDStack.client(stack)
            _ = try await auth.signIn(browser: OpenIDStack.browser(stack))
            let old = try #require(await client.credentials)
            let gate = Gate()
            stack.wire.hold("/token", until: gate)
            await stack.clock.advance(by: .seconds(Self.lifetime + 1))
            #expect(stack.server.accessTokenStatus(old.accessToken.reveal()) == .expired)
            let request = OpenIDStack.userinfo(stack)
            let answers = await SingleFlightEndToEndTests.concurrentCalls(client, request, count: 100, release: gate)
            await client.settle()
            let renewed = try #require(await client.credentials)
            #expect(answers.count == 100)
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(stack.server.ledger.refreshTokensPresented == [try #require(old.refreshToken).reveal()])
            #expect(stack.server.ledger.requests("POST", "/token") == 2, "the code exchange, then one refresh")
            #expect(SingleFlightEndToEndTests.bearers(stack, request.url.path) == ["Bearer " + renewed.accessToken.reveal(): 100])
            _ = await client.stop()
        }
    }

    @Test("a relaunch over a stale vault presents the consumed token: the provider revokes the family, the client signs out cleanly")
    func reuseEndsSession() async throws {
        try await OpenIDStack.with { stack in
            let (auth, current) = try await OpenIDStack.client(stack)
            _ = try await auth.signIn(browser: OpenIDStack.browser(stack))
            let stale = try #require(await current.credentials)
            await current.advance(stack.clock, by: .seconds(Self.lifetime - 60))
            #expect(await current.waitFor(.tokenRefreshed))
            let rotated = try #require(await current.credentials)
            _ = await current.stop()

            await stack.clock.advance(by: .seconds(61))  // The stale access token has expired too.
            let restored = MemoryVault(stale)
            let (_, replaying) = try await OpenIDStack.client(stack, vault: restored)
            #expect(await replaying.waitFor(.signedOut(.sessionExpired)))
            #expect(restored.credentials == nil)
            let r1 = try #require(stale.refreshToken).reveal()
            let ledger = stack.server.ledger
            #expect(ledger.refreshTokensPresented == [r1, r1])
            #expect(ledger.reuseDetections.count == 1)
            #expect(stack.server.refreshTokenStatus(try #require(rotated.refreshToken).reveal()) == .revoked)
            #expect(try await OpenIDStack.active(stack, rotated.accessToken.reveal()) == false)
            #expect(await replaying.call(OpenIDStack.userinfo(stack)).failureValue == .rejected(.notSignedIn))
            _ = await replaying.stop()
        }
    }

    @Test("sign-out revokes the refresh token at the provider (RFC 7009): introspection says inactive, the ledger shows the revocation")
    func signOutRevokes() async throws {
        try await OpenIDStack.with { stack in
            let vault = MemoryVault()
            let (auth, client) = try await OpenIDStack.client(stack, vault: vault)
            _ = try await auth.signIn(browser: OpenIDStack.browser(stack))
            let credentials = try #require(await client.credentials)
            let refresh = try #require(credentials.refreshToken).reveal()
            let result = await auth.signOutAndEndServerSession()
            #expect(result == .ended)
            #expect(vault.credentials == nil)
            #expect(stack.server.ledger.requests("POST", "/revoke") == 1)
            #expect(stack.server.ledger.sessionsRevoked.count == 1)
            #expect(stack.server.refreshTokenStatus(refresh) == .revoked)
            #expect(try await OpenIDStack.active(stack, refresh) == false)
            #expect(try await OpenIDStack.active(stack, credentials.accessToken.reveal()) == false)
            _ = await client.stop()
        }
    }

    @Test(
        "a transient failure of the refresh does not end the session: the refresh is retried and rotates",
        arguments: [Fault.serverError(status: 503), .serverError(status: 500), .dropBeforeCommit, .rateLimited(retryAfter: 1)])
    func transientFault(fault: Fault) async throws {
        try await OpenIDStack.with(configure: EndToEndStack.shortReadTimeout) { stack in
            let (auth, client) = try await OpenIDStack.client(stack)
            _ = try await auth.signIn(browser: OpenIDStack.browser(stack))
            let first = try #require(await client.credentials)
            stack.server.inject(fault, path: "/token", times: 1)
            await client.advance(stack.clock, by: .seconds(Self.lifetime - 60))
            await client.advance(stack.clock, by: .seconds(10))  // Past the retry's backoff.
            #expect(await client.waitFor(.tokenRefreshed))
            #expect(await client.isActive)
            let second = try #require(await client.credentials)
            #expect(second.refreshToken != first.refreshToken)
            #expect(stack.server.ledger.requests("POST", "/token") == 3, "the exchange, the failed refresh, the retry")
            #expect(stack.server.ledger.reuseDetections.isEmpty)
            #expect(await client.call(OpenIDStack.userinfo(stack)).status == 200)
            _ = await client.stop()
        }
    }
}
