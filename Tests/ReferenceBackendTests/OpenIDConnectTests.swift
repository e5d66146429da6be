import AuthTestSupport
import Foundation
@testable import ReferenceBackend
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the reference OpenID Connect provider, playing both the app and the browser.
struct Provider: Sendable {
    static let redirectURI = "com.example.app:/oauth2redirect"
    /// RFC 7636 appendix B's verifier and its S256 challenge.
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let server: ReferenceServer
    let http: TestClient
    let root: TestClient

    init(_ server: ReferenceServer) {
        self.server = server
        http = client(server, .openIDConnect)
        root = TestClient(server.rootURL)
    }

    var issuer: String { server.baseURL(for: .openIDConnect).absoluteString }

    /// An authorization request's query, as an app would build it.
    static func query(_ overrides: [String: String?] = [:]) -> String {
        var fields: [String: String?] = [
            "response_type": "code", "client_id": "app-1", "redirect_uri": redirectURI, "scope": "openid profile email",
            "state": "s-1", "nonce": "n-1", "code_challenge": challenge, "code_challenge_method": "S256",
        ]
        for (name, value) in overrides { fields[name] = value }
        return fields.sorted { $0.key < $1.key }.compactMap { name, value in value.map { "\(name)=\(encode($0))" } }
            .joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
            ?? text
    }

    /// The redirect the browser would follow, from the dev endpoint.
    func redirect(_ overrides: [String: String?] = [:]) async throws -> URLComponents {
        let answer = try await root.get("/__dev/oidc/authorize?" + Self.query(overrides))
        let redirect = try #require(answer.string("redirectURL"))
        return try #require(URLComponents(string: redirect))
    }

    /// A fresh code for the RFC 7636 appendix B challenge.
    func code(_ overrides: [String: String?] = [:]) async throws -> String {
        let items = try await redirect(overrides).queryItems ?? []
        return try #require(items.first { $0.name == "code" }?.value)
    }

    /// A form POST.
    func form(_ path: String, _ fields: [String: String]) async throws -> Answer {
        let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await http.send(
            "POST", path, raw: Data(body.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    func exchange(_ code: String, verifier: String? = Provider.verifier, clientID: String = "app-1") async throws -> Answer {
        var fields = ["grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirectURI, "client_id": clientID]
        fields["code_verifier"] = verifier
        return try await form("/token", fields)
    }

    func refresh(_ token: String) async throws -> Answer {
        try await form("/token", ["grant_type": "refresh_token", "refresh_token": token, "client_id": "app-1"])
    }

    func introspect(_ token: String) async throws -> Bool? {
        try await form("/introspect", ["token": token, "client_id": "app-1"]).bool("active")
    }

    /// Signs in and returns the token answer.
    func signIn() async throws -> Answer {
        try await exchange(try await code())
    }
}

/// Does not follow redirects: the 302 itself is the answer.
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

@Suite("OpenID Connect provider", .timeLimit(.minutes(15)))
struct OpenIDConnectTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-256 gives FIPS 180-4's digests, HMAC-SHA256 RFC 4231's, and S256 RFC 7636 appendix B's challenge")
    func hashVectors() {
        #expect(Self.hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(SHA256.digest([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(
            Self.hex(SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Self.hex(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(OpenIDProvider.challenge(of: Provider.verifier) == Provider.challenge)
    }

    @Test("discovery names the provider's base URL as issuer, its endpoints under it, S256 only and iss in the redirect", arguments: [true, false])
    func discovery(alone: Bool) async throws {
        try await withServer(alone ? [.openIDConnect] : ServedBackend.allCases, configuration: .stillClock) { server in
            let provider = Provider(server)
            let answer = try await provider.http.get("/.well-known/openid-configuration")
            #expect(answer.status == 200)
            let issuer = provider.issuer
            #expect(issuer.hasSuffix(alone ? "\(server.port ?? 0)" : "/oidc"))
            #expect(answer.string("issuer") == issuer)
            for (key, path) in [
                ("authorization_endpoint", "/authorize"), ("token_endpoint", "/token"), ("userinfo_endpoint", "/userinfo"),
                ("revocation_endpoint", "/revoke"), ("introspection_endpoint", "/introspect"), ("end_session_endpoint", "/end_session"),
            ] {
                #expect(answer.string(key) == issuer + path)
            }
            #expect(answer.value("code_challenge_methods_supported") as? [String] == ["S256"])
            #expect(answer.bool("authorization_response_iss_parameter_supported") == true)
        }
    }

    @Test("the authorization endpoint redirects with code, state and iss; it never redirects to an unregistered URI")
    func authorization() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            let url = try #require(URL(string: provider.issuer + "/authorize?" + Provider.query()))
            let (_, response) = try await session.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 302)
            let header = try #require(http.value(forHTTPHeaderField: "Location"))
            let location = try #require(URLComponents(string: header))
            #expect(location.scheme == "com.example.app")
            #expect(location.path == "/oauth2redirect")
            let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(items["state"] == "s-1")
            #expect(items["iss"] == provider.issuer)
            #expect(!(items["code"] ?? "").isEmpty)

            let elsewhere = try await provider.http.get("/authorize?" + Provider.query(["redirect_uri": "https://evil.example/cb"]))
            #expect(elsewhere.status == 400)
            #expect(elsewhere.headers["location"] == nil)
            #expect(elsewhere.string("error") == "invalid_request")
        }
    }

    @Test(
        "an authorization request without S256 PKCE, openid or response_type=code is refused in the redirect",
        arguments: [
            (["code_challenge": nil], "invalid_request"), (["code_challenge_method": "plain"], "invalid_request"),
            (["code_challenge_method": nil], "invalid_request"), (["scope": "profile"], "invalid_scope"),
            (["response_type": "token"], "unsupported_response_type"),
        ] as [([String: String?], String)])
    func authorizationRefusals(overrides: [String: String?], error: String) async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let items = try await provider.redirect(overrides).queryItems ?? []
            #expect(items.first { $0.name == "error" }?.value == error)
            #expect(items.first { $0.name == "state" }?.value == "s-1")
            #expect(items.first { $0.name == "iss" }?.value == provider.issuer)
            #expect(items.first { $0.name == "code" } == nil)
        }
    }

    @Test("a code with RFC 7636's verifier answers the tokens and an HS256 ID token for this client, its nonce and the user")
    func exchange() async throws {
        var configuration = Configuration.stillClock
        configuration.openIDConnect.idTokenSigningKey = Array("reference-key".utf8)
        try await withServer([.openIDConnect], configuration: configuration) { server in
            let provider = Provider(server)
            let answer = try await provider.signIn()
            #expect(answer.status == 200)
            #expect(answer.headers["cache-control"] == "no-store")
            #expect(answer.keys == ["access_token", "expires_in", "id_token", "refresh_token", "scope", "token_type"])
            #expect(answer.string("token_type") == "Bearer")
            #expect(answer.int("expires_in") == 3600)
            let idToken = try #require(answer.string("id_token"))
            #expect(JWT.hasValidSignature(idToken, key: Array("reference-key".utf8)))
            #expect(!JWT.hasValidSignature(idToken, key: Array("another-key".utf8)))
            let claims = try #require(jwtClaims(idToken))
            #expect(claims["iss"] as? String == provider.issuer)
            #expect(claims["aud"] as? String == "app-1")
            #expect(claims["azp"] as? String == "app-1")
            #expect(claims["nonce"] as? String == "n-1")
            #expect(claims["sub"] as? String == "user-1")
            #expect(claims["email"] as? String == "jane@example.com")
            let issuedAt = try #require(claims["iat"] as? Int)
            #expect(claims["exp"] as? Int == issuedAt + 600)
            let refresh = try #require(answer.string("refresh_token"))
            #expect(server.refreshTokenStatus(refresh) == .live)

            let user = try await provider.http.get("/userinfo", bearer: answer.string("access_token"))
            #expect(user.status == 200)
            #expect(user.string("sub") == "user-1")
            #expect(user.string("name") == "Jane Doe")
            let hinted = try await provider.exchange(try await provider.code(["login_hint": "bob"]))
            #expect(jwtClaims(hinted.string("id_token") ?? "")?["sub"] as? String == "bob")
        }
    }

    @Test(
        "the token endpoint refuses a wrong or missing verifier with invalid_grant, and the code is spent",
        arguments: [Optional("wrong-verifier-0123456789-0123456789-0123456789"), nil])
    func verifierRequired(verifier: String?) async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let code = try await provider.code()
            let refused = try await provider.exchange(code, verifier: verifier)
            #expect(refused.status == 400)
            #expect(refused.string("error") == "invalid_grant")
            #expect(refused.string("error_description") != nil)
            #expect(try await provider.exchange(code).string("error") == "invalid_grant", "a code is presented once")
        }
    }

    @Test("a second exchange of a code is refused and revokes the tokens the first one issued (RFC 6749 §4.1.2)")
    func codeReplay() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let code = try await provider.code()
            let first = try await provider.exchange(code)
            let access = try #require(first.string("access_token"))
            let refresh = try #require(first.string("refresh_token"))
            #expect(try await provider.introspect(refresh) == true)
            let second = try await provider.exchange(code)
            #expect(second.status == 400)
            #expect(second.string("error") == "invalid_grant")
            #expect(server.refreshTokenStatus(refresh) == .revoked)
            #expect(server.accessTokenStatus(access) == .revoked)
            #expect(try await provider.introspect(access) == false)
            #expect(server.ledger.familiesRevoked.count == 1)
        }
    }

    @Test("a refresh rotates; replaying the consumed token is invalid_grant and revokes its successor")
    func rotationAndReuse() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let signedIn = try await provider.signIn()
            let first = try #require(signedIn.string("refresh_token"))
            let rotated = try await provider.refresh(first)
            #expect(rotated.status == 200)
            let second = try #require(rotated.string("refresh_token"))
            #expect(second != first)
            #expect(rotated.string("id_token") == nil)
            #expect(server.refreshTokenStatus(first) == .consumed)
            let replay = try await provider.refresh(first)
            #expect(replay.status == 400)
            #expect(replay.string("error") == "invalid_grant")
            #expect(server.refreshTokenStatus(second) == .revoked)
            #expect(try await provider.refresh(second).string("error") == "invalid_grant")
            #expect(server.ledger.reuseDetections.count == 1)
        }
    }

    @Test("revocation answers 200 for any token, ends the grant of a live one whatever its hint; introspection then says inactive")
    func revocation() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let answer = try await provider.signIn()
            let access = try #require(answer.string("access_token"))
            let refresh = try #require(answer.string("refresh_token"))
            let live = try await provider.form("/introspect", ["token": access, "client_id": "app-1"])
            #expect(live.bool("active") == true)
            #expect(live.string("sub") == "user-1")
            #expect(live.string("client_id") == "app-1")
            #expect(live.string("token_type") == "Bearer")

            let revoked = try await provider.form("/revoke", ["token": refresh, "token_type_hint": "access_token", "client_id": "app-1"])
            #expect(revoked.status == 200)
            #expect(try await provider.introspect(refresh) == false)
            #expect(try await provider.introspect(access) == false)
            #expect(try await provider.refresh(refresh).string("error") == "invalid_grant")
            #expect(try await provider.http.get("/userinfo", bearer: access).status == 401)
            #expect(try await provider.form("/revoke", ["token": "never-issued", "client_id": "app-1"]).status == 200)
            let missing = try await provider.form("/revoke", ["client_id": "app-1"])
            #expect(missing.status == 400)
            #expect(missing.string("error") == "invalid_request")
            let stranger = try await provider.form("/revoke", ["token": access, "client_id": "someone-else"])
            #expect(stranger.status == 401)
            #expect(stranger.string("error") == "invalid_client")
        }
    }

    @Test("errors are RFC 6749 §5.2 bodies: a grant type, a body that is not a form, a dead bearer, a fault")
    func errorBodies() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let grant = try await provider.form("/token", ["grant_type": "password", "client_id": "app-1"])
            #expect(grant.status == 400)
            #expect(grant.string("error") == "unsupported_grant_type")
            let json = try await provider.http.post("/token", ["grant_type": "refresh_token"])
            #expect(json.string("error") == "invalid_request")
            let bearer = try await provider.http.get("/userinfo", bearer: "not-a-token")
            #expect(bearer.status == 401)
            #expect(bearer.headers["www-authenticate"]?.hasPrefix("Bearer error=\"invalid_token\"") == true)
            server.inject(.serverError(status: 503), path: "/token", times: 1)
            let fault = try await provider.refresh("anything")
            #expect(fault.status == 503)
            #expect(fault.string("error") == "temporarily_unavailable")
        }
    }

    @Test("the end-session endpoint ends the session its ID token names and sends the browser back to a registered URI")
    func endSession() async throws {
        try await withServer([.openIDConnect], configuration: .stillClock) { server in
            let provider = Provider(server)
            let answer = try await provider.signIn()
            let refresh = try #require(answer.string("refresh_token"))
            let hint = try #require(answer.string("id_token"))
            let back = Provider.encode("com.example.app:/signedout")
            let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            let url = try #require(URL(string: provider.issuer + "/end_session?id_token_hint=\(hint)&post_logout_redirect_uri=\(back)&state=z"))
            let (_, response) = try await session.data(from: url)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 302)
            #expect(http.value(forHTTPHeaderField: "Location") == "com.example.app:/signedout?state=z")
            #expect(server.refreshTokenStatus(refresh) == .revoked)
            let unregistered = try await provider.http.get("/end_session?post_logout_redirect_uri=https%3A%2F%2Fevil.example")
            #expect(unregistered.status == 400)
        }
    }

    @Test("each deviation changes what the provider answers")
    func deviations() async throws {
        var configuration = Configuration.stillClock
        configuration.openIDConnect.deviations.ignoresCodeVerifier = true
        configuration.openIDConnect.deviations.keepsRefreshToken = true
        configuration.openIDConnect.deviations.keepsTokensAtRevocation = true
        configuration.openIDConnect.deviations.errorsWithoutCode = true
        try await withServer([.openIDConnect], configuration: configuration) { server in
            let provider = Provider(server)
            let answer = try await provider.exchange(try await provider.code(), verifier: nil)
            #expect(answer.status == 200, "PKCE not enforced")
            let refresh = try #require(answer.string("refresh_token"))
            #expect(try await provider.refresh(refresh).string("refresh_token") == refresh, "no rotation")
            _ = try await provider.form("/revoke", ["token": refresh, "client_id": "app-1"])
            #expect(try await provider.introspect(refresh) == true, "revocation kept the token")
            let refused = try await provider.form("/token", ["grant_type": "password", "client_id": "app-1"])
            #expect(refused.status == 400)
            #expect(refused.string("error") == nil)
            #expect(refused.string("message") != nil)
        }
        var reuse = Configuration.stillClock
        reuse.openIDConnect.deviations.reusableCodes = true
        reuse.openIDConnect.deviations.acceptsConsumedRefreshTokens = true
        try await withServer([.openIDConnect], configuration: reuse) { server in
            let provider = Provider(server)
            let code = try await provider.code()
            let exchanged = try await provider.exchange(code)
            let first = try #require(exchanged.string("refresh_token"))
            #expect(try await provider.exchange(code).status == 200, "the code exchanged twice")
            #expect(try await provider.refresh(first).status == 200)
            #expect(try await provider.refresh(first).status == 200, "a consumed token rotated again")
            #expect(server.ledger.reuseDetections.isEmpty)
        }
    }
}
