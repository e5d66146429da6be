import AuthCore
import AuthSupport
import Foundation
import Testing
@testable import AuthRuntime

/// A provider played by a scripted transport: it checks the PKCE verifier against the challenge
/// of the page the client opened, answers the code once, rotates refresh tokens and records
/// revocations.
final class ScriptedProvider: Sendable {
    struct Page: Sendable {
        var state: String
        var nonce: String
        var challenge: String
    }
    struct Storage: Sendable {
        var page: Page?
        var nonceOverride: String?
        var codesSpent: Set<String> = []
        var revoked: [[String: String]] = []
        var tokenRequests: [[String: String]] = []
    }

    static let issuer = "https://id.example.com"
    static let now = Instant.seconds(1_767_225_600)
    static let provider = OpenIDProviderMetadata(
        issuer: issuer, authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
        tokenEndpoint: URL(string: "https://id.example.com/o/token/")!, userinfoEndpoint: URL(string: "https://id.example.com/userinfo")!,
        revocationEndpoint: URL(string: "https://id.example.com/o/revoke_token/")!, issuerInAuthorizationResponse: true)
    static let redirect = URL(string: "com.example.app:/oauth2redirect")!

    let storage: Locked<Storage>
    let transport: ScriptedTransport

    init() {
        let storage = Locked(Storage())
        self.storage = storage
        transport = ScriptedTransport { request in .success(Self.answer(request, storage)) }
    }

    /// The page the client opened.
    func opened(_ url: URL) {
        let query = OIDCFixtures.query(url)
        storage.withLock {
            $0.page = Page(state: query["state"] ?? "", nonce: query["nonce"] ?? "", challenge: query["code_challenge"] ?? "")
        }
    }

    /// The redirect for the opened page, with `code`, its state (or `state`) and the issuer.
    func redirect(code: String = "code-1", state: String? = nil, issuer: String = ScriptedProvider.issuer) -> URL {
        let state = state ?? storage.withLock { $0.page?.state } ?? ""
        return URL(string: "com.example.app:/oauth2redirect?code=\(code)&state=\(state)&iss=\(RequestBuilder.queryValue(issuer))")!
    }

    static func jwt(_ claims: [String: Any]) -> String {
        func part(_ object: [String: Any]) -> String {
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            return PKCE.base64URL(Array(data))
        }
        return part(["alg": "RS256", "typ": "JWT"]) + "." + part(claims) + ".c2ln"
    }

    static func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"], body: try! JSONSerialization.data(withJSONObject: object))
    }

    static func answer(_ request: HTTPRequest, _ storage: Locked<Storage>) -> HTTPResponse {
        let fields = OIDCFixtures.fields(request)
        switch request.url.absoluteString.replacingOccurrences(of: "https://id.example.com", with: "") {
        case "/o/token/":
            return storage.withLock { storage -> HTTPResponse in
                storage.tokenRequests.append(fields)
                switch fields["grant_type"] {
                case "authorization_code":
                    guard let page = storage.page, let code = fields["code"], !storage.codesSpent.contains(code),
                        PKCE.challenge(for: CodeVerifier(fields["code_verifier"] ?? "")) == page.challenge,
                        fields["redirect_uri"] == redirect.absoluteString, fields["client_id"] == "app-1"
                    else { return json(400, ["error": "invalid_grant"]) }
                    storage.codesSpent.insert(code)
                    let idToken = jwt([
                        "iss": issuer, "sub": "user-42", "aud": "app-1", "exp": 1_767_229_200, "iat": 1_767_225_600,
                        "nonce": storage.nonceOverride ?? page.nonce, "email": "ada@example.com",
                    ])
                    return json(
                        200,
                        ["access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1", "id_token": idToken])
                case "refresh_token":
                    return json(200, ["access_token": "at-2", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-2"])
                default:
                    return json(400, ["error": "unsupported_grant_type"])
                }
            }
        case "/o/revoke_token/":
            storage.withLock { $0.revoked.append(fields) }
            return HTTPResponse(status: 200)
        case "/userinfo":
            return json(200, ["sub": "user-42", "email": "ada@example.com"])
        default:
            return HTTPResponse(status: 404)
        }
    }

    func client(vault: MemoryVault = MemoryVault()) -> OpenIDConnectClient {
        OpenIDConnectClient(
            provider: Self.provider, clientID: "app-1", redirectURI: Self.redirect, vault: vault, transport: transport,
            clock: ManualClock(now: Self.now))
    }
}

@Suite("Client: OpenID Connect", .timeLimit(.minutes(15)))
struct OpenIDConnectClientTests {
    @Test("code + PKCE: the page carries the S256 challenge, the code is exchanged with its verifier, and the user is signed in")
    func signsIn() async throws {
        let provider = ScriptedProvider()
        let vault = MemoryVault()
        let auth = provider.client(vault: vault)
        let page = try await auth.startSignIn()
        provider.opened(page)
        let user = try await auth.handleRedirect(provider.redirect())
        #expect(user.id == "user-42" && user.email == "ada@example.com")
        #expect(await auth.isSignedIn)
        #expect(vault.credentials?.refreshToken == RefreshToken("rt-1"))
        let exchange = try #require(provider.storage.withLock { $0.tokenRequests.first })
        #expect(exchange["grant_type"] == "authorization_code" && exchange["code"] == "code-1")
        #expect(!page.absoluteString.contains(exchange["code_verifier"] ?? "-"))
        await auth.stop()
    }

    @Test("signIn(browser:) opens the page and finishes with the redirect; a browser that throws cancels the attempt")
    func browser() async throws {
        let provider = ScriptedProvider()
        let auth = provider.client()
        let cancelled = await authError {
            try await auth.signIn { _, _ in throw CancellationError() }
        }
        #expect(cancelled == .cancelled)
        let user = try await auth.signIn { url, scheme in
            #expect(scheme == "com.example.app")
            provider.opened(url)
            return provider.redirect()
        }
        #expect(user.id == "user-42")
        await auth.stop()
    }

    @Test("a redirect with another state, another iss or for another URL is refused and no code is exchanged")
    func refusedRedirects() async throws {
        let provider = ScriptedProvider()
        let auth = provider.client()
        provider.opened(try await auth.startSignIn())
        #expect(await authError { try await auth.handleRedirect(provider.redirect(state: "forged")) } == .rejected(.callbackMismatch))
        #expect(
            await authError { try await auth.handleRedirect(URL(string: "https://evil.example/cb?code=x&state=y")!) } == .rejected(.callbackMismatch))
        #expect(provider.storage.withLock { $0.tokenRequests.isEmpty })
        // The attempt is still pending after a forged state; a mix-up (another iss) ends it.
        #expect(
            await authError { try await auth.handleRedirect(provider.redirect(issuer: "https://evil.example")) } == .rejected(.callbackMismatch))
        #expect(await authError { try await auth.handleRedirect(provider.redirect()) } == .rejected(.callbackMismatch))
        #expect(provider.storage.withLock { $0.tokenRequests.isEmpty })
        #expect(await auth.isSignedIn == false)
        await auth.stop()
    }

    @Test("an ID token with another nonce never signs in, and the code is not exchanged again")
    func wrongNonce() async throws {
        let provider = ScriptedProvider()
        provider.storage.withLock { $0.nonceOverride = "someone-elses" }
        let auth = provider.client()
        provider.opened(try await auth.startSignIn())
        let error = await authError { try await auth.handleRedirect(provider.redirect()) }
        #expect(error == .server(.unauthorized(IDTokenProblem.nonce.description)))
        #expect(await auth.isSignedIn == false)
        #expect(await authError { try await auth.handleRedirect(provider.redirect()) } == .rejected(.callbackMismatch))
        #expect(provider.storage.withLock { $0.tokenRequests.count } == 1)
        await auth.stop()
    }

    @Test("sign-out clears the vault at once and revokes the refresh token with its type hint")
    func signOut() async throws {
        let provider = ScriptedProvider()
        let vault = MemoryVault()
        let auth = provider.client(vault: vault)
        _ = try await auth.signIn { url, _ in
            provider.opened(url)
            return provider.redirect()
        }
        #expect(await auth.signOutAndEndServerSession() == .ended)
        #expect(vault.credentials == nil)
        #expect(
            provider.storage.withLock { $0.revoked } == [["token": "rt-1", "token_type_hint": "refresh_token", "client_id": "app-1"]])
        await auth.stop()
    }

    @Test("discovery makes the client; a document naming another issuer is refused")
    func discovery() async throws {
        let document = try OIDCFixtures.bytes("openid-configuration.response.200.json")
        let transport = ScriptedTransport { _ in .success(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: document)) }
        let auth = try await OpenIDConnectClient.discover(
            issuer: URL(string: OIDCFixtures.issuer)!, clientID: "app-1", redirectURI: ScriptedProvider.redirect, vault: MemoryVault(),
            transport: transport)
        #expect(auth.contract.provider.tokenEndpoint.absoluteString == "https://id.example.com/o/token/")
        await #expect(throws: OpenIDDiscoveryError.issuerMismatch(expected: "https://other.example.com", found: OIDCFixtures.issuer)) {
            try await OpenIDConnectClient.discover(
                issuer: URL(string: "https://other.example.com")!, clientID: "app-1", redirectURI: ScriptedProvider.redirect,
                vault: MemoryVault(), transport: transport)
        }
        await auth.stop()
    }
}
