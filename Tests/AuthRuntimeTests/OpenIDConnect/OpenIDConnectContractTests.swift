import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import Testing

/// The OpenID Connect contract and discovery against `Fixtures/oidc/`: bodies written from the
/// RFCs and OpenID Connect Core's examples (the folder's README says which).
enum OIDCFixtures {
    static let folder = Checkout.fixtures.appendingPathComponent("oidc")
    static let issuer = "https://id.example.com"
    static let redirect = URL(string: "com.example.app:/oauth2redirect")!
    /// 2026-01-01T00:00:00Z, when the fixtures' ID token is fresh.
    static let now = Instant.seconds(1_767_225_600)

    static func bytes(_ file: String) throws -> Data {
        let data = try Data(contentsOf: folder.appendingPathComponent(file))
        // A file holding `null` stands for an empty body.
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "null" ? Data() : data
    }

    static func response(_ file: String) throws -> HTTPResponse {
        let parts = file.split(separator: ".")
        let status = try #require(parts.firstIndex(of: "response").flatMap { Int(parts[$0 + 1]) })
        let body = try bytes(file)
        return HTTPResponse(status: status, headers: body.isEmpty ? [:] : ["Content-Type": "application/json"], body: body)
    }

    /// A request fixture: the form fields the request must carry.
    static func form(_ file: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: bytes(file))
    }

    static func provider() throws -> OpenIDProviderMetadata {
        try OpenIDProviderMetadata(document: bytes("openid-configuration.response.200.json"), issuer: issuer)
    }

    static func contract() throws -> OpenIDConnectContract {
        OpenIDConnectContract(provider: try provider(), clientID: "app-1", redirectURI: redirect, scopes: ["profile", "email"])
    }

    /// The fields of a form-encoded body.
    static func fields(_ request: HTTPRequest) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: request.body ?? Data(), as: UTF8.self)
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }
}

@Suite("OpenID Connect: discovery", .timeLimit(.minutes(15)))
struct OpenIDDiscoveryTests {
    typealias F = OIDCFixtures

    @Test("the discovery document gives the endpoints, the PKCE methods and RFC 9207's flag")
    func readsTheDocument() throws {
        let provider = try F.provider()
        #expect(provider.issuer == F.issuer)
        #expect(provider.authorizationEndpoint.absoluteString == "https://id.example.com/authorize")
        #expect(provider.tokenEndpoint.absoluteString == "https://id.example.com/o/token/")
        #expect(provider.userinfoEndpoint?.absoluteString == "https://id.example.com/userinfo")
        #expect(provider.revocationEndpoint?.absoluteString == "https://id.example.com/o/revoke_token/")
        #expect(provider.endSessionEndpoint?.absoluteString == "https://id.example.com/logout")
        #expect(provider.codeChallengeMethods == ["plain", "S256"])
        #expect(provider.issuerInAuthorizationResponse)
    }

    @Test("a document naming another issuer is refused with a typed error, as is one differing by a trailing slash")
    func issuerMustMatchExactly() throws {
        let other = try F.bytes("openid-configuration.response.200.other-issuer.json")
        #expect(throws: OpenIDDiscoveryError.issuerMismatch(expected: F.issuer, found: "https://evil.example.com")) {
            try OpenIDProviderMetadata(document: other, issuer: F.issuer)
        }
        let good = try F.bytes("openid-configuration.response.200.json")
        #expect(throws: OpenIDDiscoveryError.issuerMismatch(expected: F.issuer + "/", found: F.issuer)) {
            try OpenIDProviderMetadata(document: good, issuer: F.issuer + "/")
        }
    }

    @Test("a provider listing PKCE methods without S256 is refused; unreadable documents are malformed, never a crash")
    func refusals() throws {
        #expect(throws: OpenIDDiscoveryError.pkceUnsupported) {
            try OpenIDProviderMetadata(document: F.bytes("openid-configuration.response.200.plain-pkce-only.json"), issuer: F.issuer)
        }
        for body in ["", "[]", "<html>", #"{"issuer": "https://id.example.com"}"#, #"{"issuer": 1}"#] {
            #expect(throws: OpenIDDiscoveryError.self) { try OpenIDProviderMetadata(document: Data(body.utf8), issuer: F.issuer) }
        }
        let noToken = #"{"issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/a"}"#
        #expect(throws: OpenIDDiscoveryError.malformed("no token_endpoint")) {
            try OpenIDProviderMetadata(document: Data(noToken.utf8), issuer: F.issuer)
        }
    }

    @Test("discovery fetches <issuer>/.well-known/openid-configuration, a trailing slash removed")
    func discoveryURL() async throws {
        #expect(
            OpenIDProviderMetadata.discoveryURL(issuer: URL(string: "https://id.example.com/realms/app/")!).absoluteString
                == "https://id.example.com/realms/app/.well-known/openid-configuration")
        let document = try F.bytes("openid-configuration.response.200.json")
        let transport = ScriptedTransport { request in
            guard request.url.absoluteString == "https://id.example.com/.well-known/openid-configuration" else {
                return .success(HTTPResponse(status: 404))
            }
            return .success(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: document))
        }
        let provider = try await OpenIDProviderMetadata.discover(issuer: URL(string: F.issuer)!, transport: transport)
        #expect(provider == (try F.provider()))
        let down = ScriptedTransport { _ in .success(HTTPResponse(status: 503)) }
        await #expect(throws: OpenIDDiscoveryError.unreachable(.server(status: 503, nil))) {
            try await OpenIDProviderMetadata.discover(issuer: URL(string: F.issuer)!, transport: down)
        }
        let offline = ScriptedTransport { _ in .failure(.network) }
        await #expect(throws: OpenIDDiscoveryError.unreachable(.network)) {
            try await OpenIDProviderMetadata.discover(issuer: URL(string: F.issuer)!, transport: offline)
        }
    }
}

extension OpenIDDiscoveryTests {
    /// A discovery document for `issuer` without a `revocation_endpoint`, as django-oauth-toolkit
    /// writes it (its revocation endpoint is only in its RFC 8414 metadata).
    static func withoutRevocation(_ issuer: String) -> Data {
        Data(
            """
            {"issuer": "\(issuer)", "authorization_endpoint": "\(issuer)/authorize/", "token_endpoint": "\(issuer)/token/",
             "code_challenge_methods_supported": ["S256"]}
            """.utf8)
    }

    static func json(_ text: String) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(text.utf8)))
    }

    @Test("RFC 8414's metadata address puts the well-known name before the issuer's path")
    func authorizationServerMetadataURL() {
        let url = OpenIDProviderMetadata.authorizationServerMetadataURL
        #expect(url(URL(string: "https://id.example.com")!).absoluteString == "https://id.example.com/.well-known/oauth-authorization-server")
        #expect(
            url(URL(string: "http://127.0.0.1:8000/o/")!).absoluteString == "http://127.0.0.1:8000/.well-known/oauth-authorization-server/o")
    }

    @Test(
        "a discovery document without revocation_endpoint: discover reads it from the RFC 8414 metadata of the same issuer, at the standard address or the appended one"
    )
    func revocationFromOAuthMetadata() async throws {
        let issuer = "http://127.0.0.1:8000/o"
        for metadataPath in ["/.well-known/oauth-authorization-server/o", "/o/.well-known/oauth-authorization-server"] {
            let transport = ScriptedTransport { request in
                switch request.url.path {
                case "/o/.well-known/openid-configuration": .success(HTTPResponse(status: 200, body: Self.withoutRevocation(issuer)))
                case metadataPath: Self.json(#"{"issuer": "\#(issuer)", "revocation_endpoint": "\#(issuer)/revoke_token/"}"#)
                default: .success(HTTPResponse(status: 404))
                }
            }
            let provider = try await OpenIDProviderMetadata.discover(issuer: URL(string: issuer)!, transport: transport)
            #expect(provider.revocationEndpoint?.absoluteString == issuer + "/revoke_token/", "metadata at \(metadataPath)")
        }
    }

    @Test(
        "the RFC 8414 metadata is read only when discovery names no revocation endpoint, and used only when its issuer is exactly the issuer"
    )
    func revocationFromOAuthMetadataRefusals() async throws {
        let issuer = "https://id.example.com"
        let otherIssuer = ScriptedTransport { request in
            request.url.path == "/.well-known/openid-configuration"
                ? .success(HTTPResponse(status: 200, body: Self.withoutRevocation(issuer)))
                : Self.json(#"{"issuer": "https://evil.example.com", "revocation_endpoint": "https://evil.example.com/revoke"}"#)
        }
        let refused = try await OpenIDProviderMetadata.discover(issuer: URL(string: issuer)!, transport: otherIssuer)
        #expect(refused.revocationEndpoint == nil)
        #expect(otherIssuer.received.count == 2, "one discovery, one metadata address (the issuer has no path)")
        let unreadable = ScriptedTransport { request in
            request.url.path == "/.well-known/openid-configuration"
                ? .success(HTTPResponse(status: 200, body: Self.withoutRevocation(issuer))) : .failure(.network)
        }
        #expect(try await OpenIDProviderMetadata.discover(issuer: URL(string: issuer)!, transport: unreadable).revocationEndpoint == nil)
        let named = try F.bytes("openid-configuration.response.200.json")
        let once = ScriptedTransport { _ in .success(HTTPResponse(status: 200, body: named)) }
        _ = try await OpenIDProviderMetadata.discover(issuer: URL(string: issuer)!, transport: once)
        #expect(once.received.count == 1, "discovery named it: no second request")
    }
}

@Suite("OpenID Connect: the contract")
struct OpenIDConnectContractTests {
    typealias F = OIDCFixtures
    static let verifier = CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    static let attempt = AuthorizationAttempt(state: "af0ifjsldkj", nonce: "n-0S6_WzA2Mj", verifier: verifier)
    static let exchange = APIRequest.exchangeCode(CodeExchange(code: AuthorizationCode("SplxlOBeZQQYbYS6WxSbIA"), verifier: verifier))
    static let bearer = Bearer(token: AccessToken("SlAV32hkKG"), userID: "248289761001")

    @Test("the authorization URL asks for a code with state, nonce and the S256 challenge, and never carries the verifier")
    func authorizationURL() throws {
        let url = try F.contract().authorizationURL(for: Self.attempt)
        #expect(url.absoluteString.hasPrefix("https://id.example.com/authorize?"))
        #expect(
            F.query(url) == [
                "response_type": "code", "client_id": "app-1", "redirect_uri": "com.example.app:/oauth2redirect",
                "scope": "openid profile email", "state": "af0ifjsldkj", "nonce": "n-0S6_WzA2Mj",
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256",
            ])
        #expect(!url.absoluteString.contains(Self.verifier.reveal()))
    }

    @Test("the end-session URL names the client, and the post-logout redirect and state when given; none without the endpoint")
    func endSessionURL() throws {
        let contract = try F.contract()
        let bare = try #require(contract.endSessionURL())
        #expect(bare.absoluteString.hasPrefix("https://id.example.com/logout?"))
        #expect(F.query(bare) == ["client_id": "app-1"])
        let back = try #require(contract.endSessionURL(postLogoutRedirectURI: URL(string: "com.example.app:/signed-out")!, state: "s1&2"))
        #expect(F.query(back) == ["client_id": "app-1", "post_logout_redirect_uri": "com.example.app:/signed-out", "state": "s1&2"])
        var provider = try F.provider()
        provider.endSessionEndpoint = nil
        let without = OpenIDConnectContract(provider: provider, clientID: "app-1", redirectURI: F.redirect)
        #expect(without.endSessionURL(postLogoutRedirectURI: F.redirect) == nil)
    }

    @Test("the redirect is read for its code, state and iss, or its error; another URL is not a response")
    func authorizationResponse() throws {
        let contract = try F.contract()
        let code = URL(string: "com.example.app:/oauth2redirect?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=https%3A%2F%2Fid.example.com")!
        #expect(
            contract.authorizationResponse(from: code)
                == .code(AuthorizationCode("SplxlOBeZQQYbYS6WxSbIA"), state: "af0ifjsldkj", issuer: "https://id.example.com"))
        let denied = URL(string: "com.example.app:/oauth2redirect?error=access_denied&error_description=The+user+said+no&state=af0ifjsldkj")!
        #expect(
            contract.authorizationResponse(from: denied)
                == .error("access_denied", description: "The user said no", state: "af0ifjsldkj", issuer: nil))
        #expect(contract.authorizationResponse(from: URL(string: "com.example.app:/other?code=x&state=s")!) == nil)
        #expect(contract.authorizationResponse(from: URL(string: "https://id.example.com/oauth2redirect?code=x")!) == nil)
        #expect(contract.authorizationResponse(from: URL(string: "com.example.app:/oauth2redirect")!) == nil)
    }

    @Test("the code exchange is a form POST to the token endpoint with the verifier, as the fixture")
    func encodesTheExchange() throws {
        let request = try F.contract().encode(Self.exchange)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://id.example.com/o/token/")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Authorization"] == nil)
        #expect(F.fields(request) == (try F.form("token.request.authorization-code.json")))
    }

    @Test("refresh and revocation are form POSTs as the fixtures; userinfo a GET with the bearer")
    func encodesTheSession() throws {
        let contract = try F.contract()
        let refresh = try contract.encode(.refresh(RefreshToken("8xLOxBtZp8")))
        #expect(refresh.url.absoluteString == "https://id.example.com/o/token/")
        #expect(F.fields(refresh) == (try F.form("token.request.refresh.json")))
        let revoke = try contract.encode(.revoke(RefreshToken("8xLOxBtZp8"), Self.bearer))
        #expect(revoke.url.absoluteString == "https://id.example.com/o/revoke_token/")
        #expect(F.fields(revoke) == (try F.form("revoke.request.json")))
        let userinfo = try contract.encode(.currentUser(Self.bearer))
        #expect(userinfo.method == "GET" && userinfo.url.absoluteString == "https://id.example.com/userinfo")
        #expect(userinfo.headers["Authorization"] == "Bearer SlAV32hkKG")
        #expect(userinfo.body == nil)
    }

    @Test("without a revocation or userinfo endpoint those requests are unsupported; the other requests always are")
    func unsupported() throws {
        var provider = try F.provider()
        provider.revocationEndpoint = nil
        provider.userinfoEndpoint = nil
        let contract = OpenIDConnectContract(provider: provider, clientID: "app-1", redirectURI: F.redirect)
        #expect(throws: ContractError.self) { try contract.encode(.revoke(RefreshToken("r"), Self.bearer)) }
        #expect(throws: ContractError.self) { try contract.encode(.currentUser(Self.bearer)) }
        #expect(throws: ContractError.self) { try contract.encode(.oauthURL(.google)) }
        #expect(contract.scopes == ["openid", "profile", "email"])
    }

    @Test("the token answer is a grant with the ID token's claims and the user they describe")
    func decodesTheGrant() throws {
        let reply = try F.contract().decode(F.response("token.response.200.authorization-code.json"), for: Self.exchange, receivedAt: F.now)
        guard case .granted(let grant) = reply else {
            Issue.record("not a grant: \(reply)")
            return
        }
        #expect(grant.accessToken == AccessToken("SlAV32hkKG"))
        #expect(grant.refreshToken == RefreshToken("8xLOxBtZp8"))
        #expect(grant.expiry == .after(.seconds(3600)))
        #expect(grant.user.id == "248289761001" && grant.user.email == "janedoe@example.com" && grant.user.name == "Jane Doe")
        #expect(grant.user.attributes.isEmpty)
        #expect(
            grant.idToken
                == IDTokenClaims(
                    issuer: F.issuer, subject: "248289761001", audiences: ["app-1"], expiresAt: .seconds(1_767_229_200),
                    issuedAt: .seconds(1_767_225_600), nonce: "n-0S6_WzA2Mj"))
        // The sign-in flow accepts it for the attempt's nonce, and for no other.
        let signIn = OpenIDSignIn(issuer: F.issuer, clientID: "app-1", requiresIssuerInResponse: true)
        let claims = try #require(grant.idToken)
        #expect(signIn.check(claims, nonce: "n-0S6_WzA2Mj", at: F.now) == nil)
        #expect(signIn.check(claims, nonce: "another", at: F.now) == .nonce)
        #expect(signIn.check(claims, nonce: "n-0S6_WzA2Mj", at: .seconds(1_767_229_200)) == .expired)
    }

    @Test("a token answer without an ID token is a grant without claims (the flow refuses it); a broken one is malformed")
    func oddGrants() throws {
        let contract = try F.contract()
        func decode(_ json: String) -> Reply {
            contract.decode(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(json.utf8)), for: Self.exchange,
                receivedAt: F.now)
        }
        guard case .granted(let grant) = decode(#"{"access_token": "a", "token_type": "bearer"}"#) else {
            Issue.record("not a grant")
            return
        }
        #expect(grant.idToken == nil)
        #expect(decode(#"{"access_token": "a", "id_token": "not-a-jwt"}"#) == .failed(.malformed))
        #expect(decode(#"{"access_token": "a", "token_type": "DPoP"}"#) == .failed(.malformed))
        #expect(decode(#"{"token_type": "Bearer"}"#) == .failed(.malformed))
        #expect(decode("<html>") == .failed(.malformed))
    }

    @Test("RFC 6749 §5.2 errors: invalid_grant is a definitive bad request with its description or a sentence; 5xx is transient")
    func errors() throws {
        let contract = try F.contract()
        let invalid = contract.decode(try F.response("token.response.400.invalid-grant.json"), for: Self.exchange, receivedAt: F.now)
        #expect(invalid == .failed(.badRequest("The authorization code is invalid or has expired.")))
        let bare = contract.decode(try F.response("token.response.400.no-description.json"), for: .refresh(RefreshToken("r")), receivedAt: F.now)
        #expect(bare == .failed(.badRequest("The sign-in has expired or was revoked. Please sign in again.")))
        if case .failed(let failure) = bare { #expect(!failure.isTransient) }
        let down = contract.decode(try F.response("token.response.503.json"), for: .refresh(RefreshToken("r")), receivedAt: F.now)
        #expect(down == .failed(.server(status: 503, nil)))
        if case .failed(let failure) = down { #expect(failure.isTransient) }
    }

    @Test("a rotated refresh, a revocation, userinfo and its 401 decode as the session expects")
    func decodesTheSession() throws {
        let contract = try F.contract()
        #expect(
            contract.decode(try F.response("token.response.200.refresh.json"), for: .refresh(RefreshToken("8xLOxBtZp8")), receivedAt: F.now)
                == .refreshed(
                    TokenRefresh(accessToken: AccessToken("TlBN45jURg"), refreshToken: RefreshToken("9yMPyCuAq9"), expiry: .after(.seconds(3600)))))
        #expect(
            contract.decode(try F.response("revoke.response.200.json"), for: .revoke(RefreshToken("8xLOxBtZp8"), Self.bearer), receivedAt: F.now)
                == .accepted(nil))
        let user = contract.decode(try F.response("userinfo.response.200.json"), for: .currentUser(Self.bearer), receivedAt: F.now)
        guard case .user(let profile) = user else {
            Issue.record("not a user: \(user)")
            return
        }
        #expect(profile.id == "248289761001" && profile.name == "Jane Doe" && profile.email == "janedoe@example.com")
        #expect(profile.attributes["given_name"] == .string("Jane"))
        #expect(
            contract.decode(try F.response("userinfo.response.401.json"), for: .currentUser(Self.bearer), receivedAt: F.now)
                == .failed(.unauthorized(nil)))
    }

    @Test("the logged token requests and answers mask the code, the verifier and the tokens")
    func logsMaskSecrets() throws {
        let contract = try F.contract()
        let exchange = LogRedaction.body(try contract.encode(Self.exchange).body) ?? ""
        #expect(!exchange.contains("SplxlOBeZQQYbYS6WxSbIA") && !exchange.contains(Self.verifier.reveal()), "\(exchange)")
        #expect(exchange.contains("grant_type=authorization_code") && exchange.contains("client_id=app-1"))
        let revoke = LogRedaction.body(try contract.encode(.revoke(RefreshToken("8xLOxBtZp8"), Self.bearer)).body) ?? ""
        #expect(!revoke.contains("8xLOxBtZp8"), "\(revoke)")
        let answer = LogRedaction.body(try F.bytes("token.response.200.authorization-code.json")) ?? ""
        for secret in ["SlAV32hkKG", "8xLOxBtZp8", "eyJ"] { #expect(!answer.contains(secret), "\(answer)") }
    }

    @Test("no secret of a request is named by a refusal or echoed in an error message")
    func noSecretsInMessages() throws {
        let contract = try F.contract()
        let echo =
            #"{"error": "invalid_grant", "error_description": "code SplxlOBeZQQYbYS6WxSbIA with verifier dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}"#
        let reply = contract.decode(
            HTTPResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(echo.utf8)), for: Self.exchange, receivedAt: F.now)
        guard case .failed(.badRequest(let message?)) = reply else {
            Issue.record("not a bad request: \(reply)")
            return
        }
        #expect(!message.contains("SplxlOBeZQQYbYS6WxSbIA") && !message.contains(Self.verifier.reveal()))
        #expect(!String(describing: try contract.encode(Self.exchange)).contains("SplxlOBeZQQYbYS6WxSbIA"))
    }
}

@Suite("OpenID Connect: the device authorization grant", .timeLimit(.minutes(15)))
struct OpenIDDeviceContractTests {
    typealias F = OIDCFixtures
    static let deviceCode = DeviceCode("GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS")
    static let poll = APIRequest.pollDeviceToken(deviceCode)

    @Test("the discovery document names the device authorization endpoint; without it the request is unsupported")
    func endpoint() throws {
        #expect(try F.provider().deviceAuthorizationEndpoint?.absoluteString == "https://id.example.com/o/device-authorization/")
        var provider = try F.provider()
        provider.deviceAuthorizationEndpoint = nil
        let contract = OpenIDConnectContract(provider: provider, clientID: "app-1", redirectURI: F.redirect)
        #expect(throws: ContractError.self) { try contract.encode(.requestDeviceCode) }
        #expect(try contract.encode(Self.poll).url == provider.tokenEndpoint)  // The token endpoint is always there.
    }

    @Test("the device authorization request and the poll are form POSTs as the fixtures")
    func encodes() throws {
        let contract = try F.contract()
        let authorize = try contract.encode(.requestDeviceCode)
        #expect(authorize.method == "POST" && authorize.url.absoluteString == "https://id.example.com/o/device-authorization/")
        #expect(authorize.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(F.fields(authorize) == (try F.form("device-authorization.request.json")))
        let poll = try contract.encode(Self.poll)
        #expect(poll.method == "POST" && poll.url.absoluteString == "https://id.example.com/o/token/")
        #expect(F.fields(poll) == (try F.form("token.request.device-code.json")))
    }

    @Test("the codes issued decode with the prompt, the lifetime and the interval, or no interval when absent")
    func decodesTheCodes() throws {
        let contract = try F.contract()
        let prompt = UserCodePrompt(
            userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device",
            verificationURIComplete: "https://id.example.com/device?user_code=WDJB-MJHT")
        #expect(
            contract.decode(try F.response("device-authorization.response.200.json"), for: .requestDeviceCode, receivedAt: F.now)
                == .device(
                    .codeIssued(DeviceAuthorization(deviceCode: Self.deviceCode, prompt: prompt, lifetime: .seconds(1800), interval: .seconds(5)))))
        #expect(
            contract.decode(try F.response("device-authorization.response.200.minimal.json"), for: .requestDeviceCode, receivedAt: F.now)
                == .device(
                    .codeIssued(
                        DeviceAuthorization(
                            deviceCode: Self.deviceCode,
                            prompt: UserCodePrompt(userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device"),
                            lifetime: .seconds(1800)))))
        #expect(
            contract.decode(try F.response("device-authorization.response.401.invalid-client.json"), for: .requestDeviceCode, receivedAt: F.now)
                == .failed(.unauthorized("Client authentication failed.")))
    }

    @Test("codes without a required member or with unreadable times are malformed; verification_url is read as the URI")
    func oddCodes() throws {
        let contract = try F.contract()
        func decode(_ json: String) -> Reply {
            contract.decode(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(json.utf8)), for: .requestDeviceCode,
                receivedAt: F.now)
        }
        #expect(decode(#"{"user_code": "A", "verification_uri": "https://x", "expires_in": 600}"#) == .failed(.malformed))
        #expect(decode(#"{"device_code": "d", "verification_uri": "https://x", "expires_in": 600}"#) == .failed(.malformed))
        #expect(decode(#"{"device_code": "d", "user_code": "A", "expires_in": 600}"#) == .failed(.malformed))
        #expect(decode(#"{"device_code": "d", "user_code": "A", "verification_uri": "https://x"}"#) == .failed(.malformed))
        #expect(decode(#"{"device_code": "d", "user_code": "A", "verification_uri": "https://x", "expires_in": 0}"#) == .failed(.malformed))
        #expect(
            decode(#"{"device_code": "d", "user_code": "A", "verification_uri": "https://x", "expires_in": 600, "interval": -5}"#)
                == .failed(.malformed))
        #expect(decode(#"not json"#) == .failed(.malformed))
        #expect(
            decode(#"{"device_code": "d", "user_code": "A", "verification_url": "https://x", "expires_in": "600", "interval": null}"#)
                == .device(
                    .codeIssued(
                        DeviceAuthorization(
                            deviceCode: DeviceCode("d"), prompt: UserCodePrompt(userCode: "A", verificationURI: "https://x"), lifetime: .seconds(600))
                    )))
    }

    @Test("a poll's RFC 8628 §3.5 errors are the grant's own answers; another error is a failure; a grant decodes as a code exchange's")
    func decodesThePolls() throws {
        let contract = try F.contract()
        for (file, answer) in [
            ("token.response.400.authorization-pending.json", DeviceGrantReply.authorizationPending),
            ("token.response.400.slow-down.json", .slowDown), ("token.response.400.access-denied.json", .accessDenied),
            ("token.response.400.expired-token.json", .expiredToken),
        ] {
            #expect(contract.decode(try F.response(file), for: Self.poll, receivedAt: F.now) == .device(answer), "\(file)")
        }
        #expect(
            contract.decode(try F.response("token.response.400.invalid-grant.json"), for: Self.poll, receivedAt: F.now)
                == .failed(.badRequest("The authorization code is invalid or has expired.")))
        #expect(contract.decode(try F.response("token.response.503.json"), for: Self.poll, receivedAt: F.now) == .failed(.server(status: 503, nil)))
        // Outside a poll, access_denied is a plain refusal.
        let exchange = APIRequest.exchangeCode(CodeExchange(code: AuthorizationCode("c"), verifier: CodeVerifier("v")))
        #expect(
            contract.decode(try F.response("token.response.400.access-denied.json"), for: exchange, receivedAt: F.now)
                == .failed(.badRequest("Access was denied.")))
        let grant = contract.decode(try F.response("token.response.200.authorization-code.json"), for: Self.poll, receivedAt: F.now)
        guard case .granted(let granted) = grant else {
            Issue.record("not a grant: \(grant)")
            return
        }
        #expect(granted.idToken?.issuer == F.issuer && granted.accessToken == AccessToken("SlAV32hkKG"))
    }

    @Test("the logged device requests and answers mask the device code")
    func logsMaskSecrets() throws {
        let contract = try F.contract()
        let poll = LogRedaction.body(try contract.encode(Self.poll).body) ?? ""
        #expect(!poll.contains(Self.deviceCode.reveal()), "\(poll)")
        #expect(poll.contains("client_id=app-1"))
        let answer = LogRedaction.body(try F.bytes("device-authorization.response.200.json")) ?? ""
        #expect(!answer.contains(Self.deviceCode.reveal()), "\(answer)")
        #expect(!String(describing: try contract.encode(Self.poll)).contains(Self.deviceCode.reveal()))
    }
}
