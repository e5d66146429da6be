import AuthCore
@testable import AuthRuntime
import Foundation
import Testing

/// Where a deployed server has moved on from its document: each contract reads the documented
/// form *and* the deployed one, checked on the fixtures of both (the `.deployed` variants).
@Suite("Deployed forms: what the servers send beside what their documents say")
struct DeployedFormTests {
    static let receivedAt = FixtureTests.receivedAt

    /// What `file` of `backend` decodes to, against the request its sidecar names.
    static func decoded(_ backend: Backend, _ file: String) throws -> Reply {
        let fixture = try FixtureLibrary.fixture(backend, file)
        return try fixture.contract().decode(try fixture.response(), for: try fixture.apiRequest(), receivedAt: receivedAt)
    }

    /// The text a UI shows for the failure `file` decodes to.
    static func shown(_ backend: Backend, _ file: String) throws -> String? {
        guard case .failed(let failure) = try decoded(backend, file) else { return nil }
        return AuthError.server(failure).errorDescription
    }

    // MARK: Subspace

    @Test("the document says register answers {token, user}; the deployed server sends {accessToken, refreshToken, user}; both are read")
    func subspaceGrantKeys() throws {
        for (documented, deployed) in [
            ("auth-register.response.201.json", "auth-register.response.201.deployed.json"),
            ("auth-login.response.200.json", "auth-login.response.200.deployed.json"),
        ] {
            guard case .granted(let old) = try Self.decoded(.subspace, documented),
                case .granted(let new) = try Self.decoded(.subspace, deployed)
            else {
                Issue.record("\(documented) or \(deployed) is not a grant")
                continue
            }
            #expect(old.refreshToken == nil)
            #expect(new.refreshToken == RefreshToken("kq3Jd0zC1m9vR2yXo8Wb4pTgLrNfE6sHuQaVjYcZx5M="))
            #expect(new.accessToken.reveal().hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lk"))
            #expect(new.expiry == .at(.seconds(1_761_486_000)), "the deployed token's exp")
            #expect(old.user.id == new.user.id && old.user.email == new.user.email && old.user.name == new.user.name)
            #expect(old.user.attributes["createdAt"] != nil && new.user.attributes["createdAt"] != nil, "kept, each as its server wrote it")
        }
    }

    @Test("when both keys are sent, the deployed accessToken is the one read; a grant with neither is malformed")
    func subspaceKeyPrecedence() throws {
        let request = APIRequest.signIn(.email(try Email("john@example.com")), try Password(PasswordInput("password123")))
        let user = #""user": {"id": "u1", "email": "john@example.com", "name": "John"}"#
        func decode(_ body: String) -> Reply {
            SubspaceContract.development.decode(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)), for: request,
                receivedAt: Self.receivedAt)
        }
        guard case .granted(let both) = decode(#"{"token": "old", "accessToken": "new", \#(user)}"#) else {
            Issue.record("not a grant")
            return
        }
        #expect(both.accessToken == AccessToken("new"))
        #expect(decode(#"{"refreshToken": "r1", \#(user)}"#) == .failed(.malformed))
        #expect(decode(#"{"accessToken": "", \#(user)}"#) == .failed(.malformed))
    }

    @Test(
        "the document says errors are {error: <message>}; the deployed server sends {error: <status text>, message: <detail>}; both reach errorDescription"
    )
    func subspaceErrorEnvelope() throws {
        #expect(try Self.shown(.subspace, "auth-register.response.400.password-too-short.json") == "password must be at least 8 characters")
        #expect(try Self.shown(.subspace, "auth-register.response.400.deployed.json") == "password must be at least 8 characters")
        #expect(try Self.shown(.subspace, "auth-register.response.409.json") == "email already exists")
        #expect(try Self.shown(.subspace, "auth-register.response.409.deployed.json") == "email already registered")
        #expect(try Self.shown(.subspace, "auth-login.response.401.json") == "invalid credentials")
        #expect(try Self.shown(.subspace, "auth-login.response.401.deployed.json") == "invalid email or password")
        #expect(try Self.shown(.subspace, "auth-me.response.401.json") == "token has expired")
        #expect(try Self.shown(.subspace, "auth-me.response.401.deployed.json") == "Token has expired", "plain text from the middleware")
    }

    @Test(
        "the document has no refresh; the deployed refresh answers a new pair with the user; the user is kept in TokenRefresh.user, as Everday's is"
    )
    func subspaceRefreshUser() throws {
        guard case .refreshed(let tokens) = try Self.decoded(.subspace, "auth-refresh.response.200.deployed.json"),
            case .granted(let login) = try Self.decoded(.subspace, "auth-login.response.200.deployed.json")
        else {
            Issue.record("the deployed refresh or login fixture is not read")
            return
        }
        #expect(tokens.user == login.user, "the refresh answer's user, as the login answer's")
        #expect(tokens.user?.attributes["createdAt"] == .string("2025-10-25T13:57:26.123456Z"))
        let bare = SubspaceContract.development.decode(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"accessToken": "a2", "refreshToken": "r2"}"#.utf8)),
            for: .refresh(RefreshToken("r1")), receivedAt: Self.receivedAt)
        guard case .refreshed(let withoutUser) = bare else {
            Issue.record("a refresh without a user is not read: \(bare)")
            return
        }
        #expect(withoutUser.user == nil, "no user in the answer: the stored one is kept")
    }

    @Test(
        "the document has no native sign-in; the deployed server signs in at /auth/apple and /auth/google with {userId, identityToken, authorizationCode, email, fullName}; both work: the request is sent there, and either grant form is read as login's"
    )
    func subspaceNativeSignIn() throws {
        let contract = SubspaceContract.development
        let payload = Data(#"{"iss":"https://appleid.apple.com","sub":"001234.5678abcd.1234"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let token = "eyJhbGciOiJSUzI1NiJ9.\(payload).signature"
        let first = try contract.encode(
            .signInNatively(
                NativeSignIn(
                    provider: .apple, identityToken: IdentityToken(token), authorizationCode: AuthorizationCode("code-1"), givenName: "John",
                    email: "user@privaterelay.appleid.com")))
        #expect(first.method == "POST" && first.url.path == "/api/v1/auth/apple" && first.url.query == nil)
        #expect(
            try TestJSON.parse(try #require(first.body))
                == .object([
                    "userId": .string("001234.5678abcd.1234"), "identityToken": .string(token), "authorizationCode": .string("code-1"),
                    "email": .string("user@privaterelay.appleid.com"), "fullName": .object(["givenName": .string("John")]),
                ]),
            "the user id from the token's sub; only the name part shared")
        let later = try contract.encode(.signInNatively(NativeSignIn(provider: .google, identityToken: IdentityToken(token), userIdentifier: "g-1")))
        #expect(later.url.path == "/api/v1/auth/google")
        #expect(
            try TestJSON.parse(try #require(later.body)) == .object(["userId": .string("g-1"), "identityToken": .string(token)]),
            "nothing shared: no email, no fullName, no code")
        #expect(throws: ContractError.self) {
            try contract.encode(.signInNatively(NativeSignIn(provider: .github, identityToken: IdentityToken(token))))
        }
        // Answered as login is, in either grant form.
        let request = APIRequest.signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(token)))
        let user = #""user": {"id": "u1", "email": "user@privaterelay.appleid.com", "name": "John"}"#
        for body in [#"{"token": "t1", \#(user)}"#, #"{"accessToken": "t1", "refreshToken": "r1", \#(user)}"#] {
            let reply = contract.decode(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)), for: request,
                receivedAt: Self.receivedAt)
            #expect(reply.grant()?.accessToken == AccessToken("t1") && reply.grant()?.user.name == "John", "\(body)")
        }
        guard case .granted(let deployed) = try Self.decoded(.subspace, "auth-apple.response.200.deployed.json") else {
            Issue.record("the deployed native sign-in answer is not a grant")
            return
        }
        #expect(deployed.refreshToken != nil && deployed.user.email == "user@privaterelay.appleid.com")
        #expect(try Self.shown(.subspace, "auth-apple.response.401.deployed.json") == "invalid apple identity token")
    }

    // MARK: Hero365

    @Test(
        "the document says POST /auth/signout, which ends nothing on the server; the deployed server revokes every refresh token of the user at POST /revoke-tokens/{user_id}; revoke is sent there, and a 200 with a message or a bare 204 is done"
    )
    func hero365RevokeTokens() throws {
        let contract = Hero365Contract(server: URL(string: "https://hero365.example")!, prefix: Hero365Contract.productionPrefix)
        let token = AccessToken("h-access")
        let revoke = APIRequest.revoke(RefreshToken("h-refresh"), Bearer(token: token, userID: "3f2b6c1e-7f0a-4a51-9d0e-2b1b6d9f1a11"))
        let request = try contract.encode(revoke)
        #expect(request.method == "POST")
        #expect(request.url.path == "/v1/revoke-tokens/3f2b6c1e-7f0a-4a51-9d0e-2b1b6d9f1a11", "under the configured prefix")
        #expect(request.headers["Authorization"] == "Bearer h-access")
        #expect(request.body == nil, "the refresh token is never sent: the server revokes every one of the user")
        #expect(!request.url.path.contains("signout"))

        #expect(try Self.decoded(.hero365, "revoke-tokens.response.200.deployed.json") == .accepted("All tokens revoked for user"))
        #expect(contract.decode(HTTPResponse(status: 204, body: Data()), for: revoke, receivedAt: Self.receivedAt) == .accepted(nil))
        #expect(
            try Self.decoded(.hero365, "revoke-tokens.response.403.deployed.json")
                == .failed(.forbidden("Not authorized to revoke tokens for this user")))

        // An OAuth callback's user without an id: the access token's `sub` names the same user.
        let claims = Data(#"{"sub":"7d1e0c9a","exp":1767312000}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let jwt = AccessToken("eyJhbGciOiJIUzI1NiJ9.\(claims).sig")
        let unnamed = try contract.encode(.revoke(RefreshToken("h-refresh"), Bearer(token: jwt, userID: "")))
        #expect(unnamed.url.path == "/v1/revoke-tokens/7d1e0c9a")
        #expect(throws: ContractError.self) { try contract.encode(.revoke(RefreshToken("h-refresh"), Bearer(token: token, userID: ""))) }
    }

    @Test("the document says password recovery sends {email} as a body; the deployed server reads ?email=; both are sent, the query percent-encoded")
    func hero365RecoveryQuery() throws {
        let contract = Hero365Contract.development
        for (address, query) in [
            ("user@example.com", "email=user%40example.com"), ("a+b@example.com", "email=a%2Bb%40example.com"),
            ("o'neil&co=x@example.com", "email=o%27neil%26co%3Dx%40example.com"),
        ] {
            guard let email = try? Email(address) else { continue }
            let request = try contract.encode(.requestPasswordReset(.email(email)))
            #expect(request.method == "POST")
            #expect(request.url.path == "/api/v1/auth/password-recovery")
            #expect(request.url.query == query)
            let body = try TestJSON.parse(try #require(request.body))
            #expect(body == .object(["email": .string(address)]), "the documented body alongside")
        }
    }

    @Test(
        "the document says GET /auth/oauth/{provider} answers {url, provider}; the deployed server sends {message, endpoints} and no url; both are read"
    )
    func hero365OAuthForms() throws {
        #expect(
            try Self.decoded(.hero365, "auth-oauth-google.response.200.json")
                == .authorizationURL("https://your-project.supabase.co/auth/v1/authorize?provider=google"))
        #expect(try Self.decoded(.hero365, "auth-oauth-google.response.200.deployed.json") == .nativeSignInRequired)
        let fixture = try FixtureLibrary.fixture(.hero365, "auth-oauth-google.response.200.deployed.json")
        // The same answer for a provider its endpoints do not name is unreadable, not a native sign-in.
        #expect(
            Hero365Contract.development.decode(try fixture.response(), for: .oauthURL(.github), receivedAt: Self.receivedAt) == .failed(.malformed))
    }

    @Test(
        "native sign-in posts the identity token in the body only; Apple's required user_identifier is the one given, else the token's sub; Google needs none; GitHub has no native sign-in"
    )
    func hero365NativeSignIn() throws {
        let contract = Hero365Contract.development
        let payload = Data(#"{"iss":"https://appleid.apple.com","sub":"001234.5678abcd.1234"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let token = "eyJhbGciOiJSUzI1NiJ9.\(payload).signature"
        for (given, sent) in [(nil, "001234.5678abcd.1234"), ("001234.given", "001234.given")] {
            let request = try contract.encode(
                .signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(token), userIdentifier: given)))
            #expect(request.method == "POST" && request.url.path == "/api/v1/auth/apple/signin" && request.url.query == nil)
            #expect(try TestJSON.parse(try #require(request.body)) == .object(["id_token": .string(token), "user_identifier": .string(sent)]))
        }
        let google = try contract.encode(.signInNatively(NativeSignIn(provider: .google, identityToken: IdentityToken(token))))
        #expect(google.url.path == "/api/v1/auth/google/signin")
        #expect(try TestJSON.parse(try #require(google.body)) == .object(["id_token": .string(token)]))
        #expect(throws: ContractError.self) {
            try contract.encode(.signInNatively(NativeSignIn(provider: .github, identityToken: IdentityToken(token))))
        }
        #expect(throws: ContractError.self, "an opaque Apple token names no user: refused before sending") {
            try contract.encode(.signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken("opaque"))))
        }
        #expect(
            try Self.shown(.hero365, "auth-apple-signin.response.400.deployed.json")
                == "Apple Sign-In failed: Failed to sign in with apple: Invalid ID token")
    }

    @Test(
        "the document has no native sign-in; the deployed server takes full_name and email at Apple's first authorization and answers is_new_user; both work: they are sent when shared, and is_new_user is read into isNewUser"
    )
    func hero365NativeFirstAuthorization() throws {
        let contract = Hero365Contract.development
        let token = "eyJhbGciOiJSUzI1NiJ9.e30.signature"
        let first = try contract.encode(
            .signInNatively(
                NativeSignIn(
                    provider: .apple, identityToken: IdentityToken(token), userIdentifier: "001234.a", givenName: "John", familyName: "Doe",
                    email: "user@privaterelay.appleid.com")))
        #expect(
            try TestJSON.parse(try #require(first.body))
                == .object([
                    "id_token": .string(token), "user_identifier": .string("001234.a"), "full_name": .string("John Doe"),
                    "email": .string("user@privaterelay.appleid.com"),
                ]))
        let familyOnly = try contract.encode(
            .signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(token), userIdentifier: "001234.a", familyName: "Doe")))
        #expect(try TestJSON.parse(try #require(familyOnly.body))["full_name"] == .string("Doe"))
        let google = try contract.encode(
            .signInNatively(NativeSignIn(provider: .google, identityToken: IdentityToken(token), givenName: "John", email: "j@example.com")))
        #expect(try TestJSON.parse(try #require(google.body)) == .object(["id_token": .string(token)]), "Google's token carries them itself")

        #expect(try Self.decoded(.hero365, "auth-apple-signin.response.200.deployed.json").grant()?.user.isNewUser == true)
        #expect(try Self.decoded(.hero365, "auth-apple-signin.response.200.deployed-returning.json").grant()?.user.isNewUser == false)
        let fixture = try FixtureLibrary.fixture(.hero365, "auth-apple-signin.response.200.deployed.json")
        var unsaid = try fixture.response()
        var body = try #require(try JSONSerialization.jsonObject(with: unsaid.body) as? [String: Any])
        body["is_new_user"] = nil
        unsaid.body = try JSONSerialization.data(withJSONObject: body)
        #expect(contract.decode(unsaid, for: try fixture.apiRequest(), receivedAt: Self.receivedAt).grant()?.user.isNewUser == nil, "not said: nil")
        #expect(
            try Self.decoded(.hero365, "auth-signin.response.200.deployed.json").grant()?.user.isNewUser == nil, "a password sign-in says nothing")
    }

    @Test("the document serves /api/v1; production serves /v1: the prefix is configuration")
    func hero365Prefix() throws {
        let server = try #require(URL(string: "https://api.hero365.ai"))
        let production = Hero365Contract(server: server, prefix: Hero365Contract.productionPrefix)
        #expect(production.baseURL.absoluteString == "https://api.hero365.ai/v1")
        #expect(try production.encode(.oauthURL(.google)).url.absoluteString == "https://api.hero365.ai/v1/auth/oauth/google")
        #expect(Hero365Contract(server: server).baseURL.absoluteString == "https://api.hero365.ai/api/v1")
    }

    @Test(
        "the document's refresh carries no lifetime; the deployed server sends expires_in 3600 beside a 24 h JWT; the JWT's exp decides, expires_in only without one"
    )
    func hero365ExpWins() throws {
        guard case .refreshed(let documented) = try Self.decoded(.hero365, "auth-refresh.response.200.json"),
            case .refreshed(let deployed) = try Self.decoded(.hero365, "auth-refresh.response.200.deployed.json")
        else {
            Issue.record("not refreshed")
            return
        }
        #expect(documented.expiry == .unknown)
        #expect(deployed.expiry == .at(.seconds(1_767_312_000)))
        let request = APIRequest.refresh(RefreshToken("r0"))
        let opaque = Hero365Contract.development.decode(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"access_token": "opaque", "refresh_token": "r1", "expires_in": 3600}"#.utf8)),
            for: request, receivedAt: Self.receivedAt)
        guard case .refreshed(let fallback) = opaque else {
            Issue.record("\(opaque)")
            return
        }
        #expect(fallback.expiry == .after(.seconds(3600)), "a token without exp keeps expires_in")
    }

    @Test(
        "the document's errors are {detail}; the deployed validation error is {error: {type, message, details}}; the message reaches errorDescription, a detail's input never"
    )
    func hero365ValidationEnvelope() throws {
        #expect(try Self.shown(.hero365, "auth-password-recovery.response.422.deployed.json") == "Request validation failed")
        #expect(try Self.shown(.hero365, "auth-signin.response.401.json") == "Invalid credentials")
        let request = APIRequest.signIn(.email(try Email("user@example.com")), try Password(PasswordInput("Sup3r-secret!")))
        let echoed = Data(
            #"{"error": {"type": "validation_error", "message": "Request validation failed", "details": [{"field": "body.password", "message": "too weak", "type": "value_error", "input": "Sup3r-secret!"}]}}"#
                .utf8)
        let reply = Hero365Contract.development.decode(
            HTTPResponse(status: 422, headers: ["Content-Type": "application/json"], body: echoed), for: request, receivedAt: Self.receivedAt)
        guard case .failed(let failure) = reply else {
            Issue.record("\(reply)")
            return
        }
        #expect(failure == .badRequest("Request validation failed"))
        #expect(!(AuthError.server(failure).errorDescription ?? "").contains("Sup3r-secret!"))
    }

    // MARK: Anonymous Wall

    @Test("the document says the user carries passwordSet; the deployed server omits it and sends a passwordSet claim; both are read")
    func anonymousWallPasswordSetClaim() throws {
        guard case .granted(let documented) = try Self.decoded(.anonymousWall, "auth-register-email.response.201.json"),
            case .granted(let deployed) = try Self.decoded(.anonymousWall, "auth-register-email.response.201.deployed.json"),
            case .granted(let codeLogin) = try Self.decoded(.anonymousWall, "auth-login-email.response.200.deployed.json")
        else {
            Issue.record("not grants")
            return
        }
        #expect(documented.user.passwordSet == false)
        #expect(deployed.user.passwordSet == false, "from the claim")
        #expect(codeLogin.user.passwordSet == false, "from the claim")
        let request = APIRequest.signInWithEmailCode(try Email("student@harvard.edu"), try VerificationCode(CodeInput("123456")))
        func grant(_ claims: String, user: String) -> Grant? {
            let token = JWTClaimsTests.jwt(claims)
            let body = Data(#"{"accessToken": "\#(token)", "user": \#(user)}"#.utf8)
            let reply = AnonymousWallContract.development.decode(
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body), for: request, receivedAt: Self.receivedAt)
            if case .granted(let grant) = reply { return grant }
            return nil
        }
        #expect(grant(#"{"sub":"u1","passwordSet":true}"#, user: #"{"id":"u1"}"#)?.user.passwordSet == true)
        #expect(
            grant(#"{"sub":"u1","passwordSet":true}"#, user: #"{"id":"u1","passwordSet":false}"#)?.user.passwordSet == false,
            "the user's own field wins")
        #expect(grant(#"{"sub":"u1"}"#, user: #"{"id":"u1"}"#)?.user.passwordSet == nil, "neither says")
        #expect(
            grant(#"{"sub":"u1","passwordSet":"false"}"#, user: #"{"id":"u1"}"#)?.user.passwordSet == nil,
            "a claim that is not a Boolean says nothing")
    }

    @Test(
        "the document says a wrong password is 401; the deployed server sends 400 {error: Invalid email or password} on password login; both are invalid credentials"
    )
    func anonymousWallWrongPassword() throws {
        #expect(try Self.decoded(.anonymousWall, "auth-login-password.response.401.json") == .failed(.unauthorized(nil)))
        #expect(
            try Self.decoded(.anonymousWall, "auth-login-password.response.400.deployed.json") == .failed(.unauthorized("Invalid email or password")))
        #expect(try Self.shown(.anonymousWall, "auth-login-password.response.400.deployed.json") == "Invalid email or password")
        #expect(
            try Self.decoded(.anonymousWall, "auth-login-password.response.400.deployed-password-not-set.json")
                == .failed(.badRequest("Password not set for this account")), "any other 400 stays a bad request")
        // Only on the password-login endpoint: the same body elsewhere is a bad request.
        let elsewhere = AnonymousWallContract.development.decode(
            HTTPResponse(status: 400, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"Invalid email or password"}"#.utf8)),
            for: .sendEmailCode(try Email("student@harvard.edu"), .login), receivedAt: Self.receivedAt)
        #expect(elsewhere == .failed(.badRequest("Invalid email or password")))
    }

    @Test("the document gives a duplicate registration no body; the deployed server sends 409 with an empty body; errorDescription still says why")
    func anonymousWallEmptyConflict() throws {
        for file in ["auth-register-email.response.409.json", "auth-register-email.response.409.deployed.json"] {
            #expect(try Self.decoded(.anonymousWall, file) == .failed(.conflict(nil)))
            #expect(try Self.shown(.anonymousWall, file) == "That account already exists.")
        }
    }

    // MARK: Everday

    @Test(
        "the document says a login 403 is pending approval or access denied; the deployed server also locks an account after five failures (403 Account locked); both work"
    )
    func everdayLockout() throws {
        let locked = try Self.decoded(.everday, "auth-login.response.403.deployed.json")
        #expect(locked == .failed(.forbidden("Account locked. Try again later.")))
        guard case .failed(let failure) = locked else { return }
        #expect(!failure.isTransient, "a lockout is not retried")
        #expect(try Self.shown(.everday, "auth-login.response.403.deployed.json") == "Account locked. Try again later.")
        #expect(try Self.decoded(.everday, "auth-login.response.403.json") == .failed(.pendingApproval(EverdayCrossCheckTests.pending)))
        #expect(try Self.decoded(.everday, "auth-login.response.403.access-denied.json") == .failed(.forbidden("access denied")))
        // A sign-in refused with it finishes failed and stays signed out: no session is begun or ended.
        let signIn = PasswordSignIn(identifiers: .username)
        var phase = PasswordSignIn.Phase.enteringCredentials
        var context = FlowContext()
        let at = Instant.seconds(0)
        let sent = signIn.step(&phase, .intent(Sample.everdaySignIn(), id: IntentID(1), at: at), &context)
        guard case .send(let request, _)? = sent.first else {
            Issue.record("no request: \(sent)")
            return
        }
        let effects = signIn.step(&phase, .reply(request, locked, at: at), &context)
        #expect(phase == .enteringCredentials)
        #expect(effects == [.finish(IntentID(1), .failed(.forbidden("Account locked. Try again later.")))])
    }

    // MARK: VynqTalk

    @Test(
        "the document says a refused login is 401 in the envelope; the deployed server answers HTTP 200 with success false and no data; both are a refusal, never a grant"
    )
    func vynqTalkRefusedLogin() throws {
        let documented = try Self.decoded(.vynqTalk, "auth-login.response.401.success-false.json")
        let deployed = try Self.decoded(.vynqTalk, "auth-login.response.200.deployed-incorrect-password.json")
        #expect(documented == .failed(.unauthorized("Invalid email or password")))
        #expect(deployed == .failed(.unauthorized("Incorrect Password.")))
        let fixture = try FixtureLibrary.fixture(.vynqTalk, "auth-login.response.200.deployed-incorrect-password.json")
        #expect(try fixture.response().status == 200, "the refusal comes under 200")
    }

    @Test("the document's token would carry exp; the deployed token carries expiration (fractional seconds) and no exp; both are read")
    func vynqTalkExpiration() throws {
        guard case .granted(let deployed) = try Self.decoded(.vynqTalk, "auth-login.response.200.deployed.json") else {
            Issue.record("not a grant")
            return
        }
        #expect(deployed.expiry == .at(Instant(milliseconds: 1_771_234_567_123)))
        #expect(deployed.user.id == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        let both = JWTClaimsTests.jwt(#"{"exp":1767229200,"expiration":1999999999}"#)
        #expect(JWTClaims.expiry(of: both, claims: VynqTalkContract.expiryClaims) == .at(.seconds(1_767_229_200)), "exp first")
        let neither = JWTClaimsTests.jwt(#"{"userId":"u1"}"#)
        #expect(JWTClaims.expiry(of: neither, claims: VynqTalkContract.expiryClaims) == .unknown)
        #expect(JWTClaims.expiry(of: JWTClaimsTests.jwt(#"{"expiration":1771234567}"#)) == .unknown, "other contracts read exp only")
        #expect(try Self.shown(.vynqTalk, "auth-login.response.200.deployed-incorrect-password.json") == "Incorrect Password.")
    }
}
