import AuthCore
import AuthRuntime
import AuthVerification
import Foundation
import Testing

/// One abstract request of every shape, with marker secrets.
enum SampleRequests {
    static let email = try! Email("student@mit.edu")
    static let password = try! Password(PasswordInput("MARKER-PW-1"))
    static let newPassword = try! Password(PasswordInput("MARKER-PW-2"))
    static let code = try! VerificationCode(CodeInput("987654"))
    static let phone = try! PhoneNumber("+1234567890")
    static let username = try! Username("newkid")
    static let name = try! PersonName("New Kid")
    static let bearer = Bearer(token: AccessToken("MARKER-AT-1"), userID: "u1")
    static let refresh = RefreshToken("MARKER-RT-1")
    static let proof = try! ResetProof(ResetToken("MARKER-RESET"))
    static let exchange = CodeExchange(code: AuthorizationCode("MARKER-CODE-1"), verifier: CodeVerifier("MARKER-CV-1"))
    static let markers = ["MARKER-PW-1", "MARKER-PW-2", "987654", "MARKER-AT-1", "MARKER-RT-1", "MARKER-RESET", "MARKER-CODE-1", "MARKER-CV-1"]

    static let all: [(String, APIRequest)] = [
        ("sendEmailCode", .sendEmailCode(email, .login)),
        ("registerWithEmailCode", .registerWithEmailCode(email, code)),
        ("signInWithEmailCode", .signInWithEmailCode(email, code)),
        ("sendPhoneCode", .sendPhoneCode(phone)),
        ("signInWithPhoneCode", .signInWithPhoneCode(phone, code)),
        ("signIn(email)", .signIn(.email(email), password)),
        ("signIn(username)", .signIn(.username(username), password)),
        ("signIn(phone)", .signIn(.phone(phone), password)),
        ("register(email)", .register(RegistrationDetails(identifier: .email(email), password: password, name: name))),
        ("register(username)", .register(RegistrationDetails(identifier: .username(username), password: password, name: name))),
        ("register(phone)", .register(RegistrationDetails(identifier: .phone(phone), password: password))),
        ("requestPasswordReset(email)", .requestPasswordReset(.email(email))),
        ("requestPasswordReset(usernameOrEmail)", .requestPasswordReset(.usernameOrEmail("newkid"))),
        ("resetPassword(emailCode)", .resetPassword(.emailCode(email, code), newPassword: newPassword)),
        ("resetPassword(token)", .resetPassword(.token(proof), newPassword: newPassword)),
        ("setPassword", .setPassword(password, bearer)),
        ("changePassword", .changePassword(old: password, new: newPassword, bearer)),
        ("oauthURL", .oauthURL(.google)),
        ("exchangeCode", .exchangeCode(exchange)),
        ("refresh", .refresh(refresh)),
        ("currentUser", .currentUser(bearer)),
        ("revoke", .revoke(refresh, bearer)),
        ("deleteAccount", .deleteAccount(bearer)),
        ("protected", .protected(IntentID(1), bearer)),
        ("openRealtime", .openRealtime(bearer.token)),
    ]

    /// What each backend's API document describes, written from the documents (not from the contracts).
    static let documented: [Backend: Set<String>] = [
        .anonymousWall: [
            "sendEmailCode", "registerWithEmailCode", "signInWithEmailCode", "signIn(email)", "requestPasswordReset(email)",
            "resetPassword(emailCode)", "setPassword", "changePassword",
        ],
        .vynqTalk: ["signIn(email)", "register(email)", "currentUser"],  // `/users/me`, which its deployed server has.
        .everday: [
            "signIn(username)", "register(username)", "requestPasswordReset(email)", "requestPasswordReset(usernameOrEmail)",
            "resetPassword(token)", "refresh", "revoke", "changePassword", "deleteAccount",
        ],
        .subspace: ["signIn(email)", "register(email)", "currentUser", "refresh"],
        .hero365: [
            "signIn(email)", "signIn(phone)", "register(email)", "register(phone)", "sendPhoneCode", "signInWithPhoneCode", "oauthURL",
            "refresh", "requestPasswordReset(email)", "currentUser", "revoke",
        ],
    ]

    /// The documented backend's contract (`BackendContracts` registers every one: a test checks it).
    static func contract(_ backend: Backend) -> any BackendContract {
        BackendContracts.contract(for: backend, server: URL(string: "http://127.0.0.1:8080")!)!
    }
}

@Suite("Backend contracts: behaviour beyond the fixtures")
struct ContractBehaviourTests {
    static let now = Instant.seconds(1_767_225_600)

    @Test(
        "each contract encodes exactly the requests its API document describes, and refuses the rest without naming a secret",
        arguments: Backend.documented)
    func encodesExactlyTheDocumentedRequests(_ backend: Backend) {
        let contract = SampleRequests.contract(backend)
        var encoded: Set<String> = []
        for (name, request) in SampleRequests.all {
            do {
                let http = try contract.encode(request)
                encoded.insert(name)
                #expect(http.url.absoluteString.hasPrefix(contract.baseURL.absoluteString))
                for marker in SampleRequests.markers {
                    #expect(!http.description.contains(marker) && !String(reflecting: http).contains(marker))
                }
            } catch {
                for marker in SampleRequests.markers { #expect(!error.description.contains(marker)) }
            }
        }
        #expect(encoded == SampleRequests.documented[backend])
    }

    @Test(
        "the server root gets each API document's prefix",
        arguments: [
            (Backend.anonymousWall, "http://h:1/api/v1"), (.vynqTalk, "http://h:1"), (.everday, "http://h:1/api"),
            (.subspace, "http://h:1/api/v1"), (.hero365, "http://h:1/api/v1"),
        ])
    func documentedPrefixes(_ backend: Backend, _ base: String) throws {
        let contract = try #require(BackendContracts.contract(for: backend, server: URL(string: "http://h:1")!))
        #expect(contract.baseURL.absoluteString == base)
        #expect(contract.backend == backend)
        let mounted = try #require(BackendContracts.contract(for: backend, server: URL(string: "http://h:1/mount/")!))
        #expect(mounted.baseURL.absoluteString == base.replacingOccurrences(of: "h:1", with: "h:1/mount"))
    }

    @Test("the documented development servers are the API documents' base URLs")
    func developmentServers() {
        #expect(
            BackendContracts.documented.map(\.baseURL.absoluteString) == [
                "http://localhost:8080/api/v1", "http://localhost:8080", "https://everday-dev.batserver.au/api",
                "http://localhost:8080/api/v1", "http://localhost:8000/api/v1",
            ])
        #expect(BackendContracts.documented.map(\.backend) == Backend.documented)
    }

    @Test("authorize attaches the bearer once, and X-User-Id only for Anonymous Wall", arguments: Backend.documented)
    func authorizeAttachesTheBearer(_ backend: Backend) throws {
        let contract = SampleRequests.contract(backend)
        let call = HTTPRequest(
            method: "GET", url: try #require(URL(string: "http://127.0.0.1:8080/api/v1/posts")), headers: ["authorization": "Bearer stale"])
        let authorized = contract.authorize(call, with: SampleRequests.bearer)
        #expect(authorized.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer MARKER-AT-1"])
        #expect(authorized.headers["X-User-Id"] == (backend == .anonymousWall ? "u1" : nil))
        #expect(authorized.url == call.url && authorized.method == call.method)
    }

    @Test("VynqTalk's realtime URL is ws://host/ws?token= (wss under https); the others have none")
    func realtimeURLs() throws {
        let token = AccessToken("a+b/c=d é")
        #expect(VynqTalkContract.development.realtimeURL(token: token)?.absoluteString == "ws://localhost:8080/ws?token=a%2Bb%2Fc%3Dd%20%C3%A9")
        let secure = VynqTalkContract(baseURL: try #require(URL(string: "https://chat.example/")))
        #expect(secure.realtimeURL(token: AccessToken("t"))?.absoluteString == "wss://chat.example/ws?token=t")
        for backend in Backend.documented where backend != .vynqTalk {
            #expect(SampleRequests.contract(backend).realtimeURL(token: token) == nil)
        }
    }

    @Test(
        "a protected call's answer is accepted on 2xx and classified by the status taxonomy otherwise",
        arguments: Backend.documented)
    func classifyProtected(_ backend: Backend) {
        let contract = SampleRequests.contract(backend)
        func classify(_ status: Int, _ body: String = "", _ headers: HTTPHeaders = [:]) -> Reply {
            contract.classifyProtected(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)), receivedAt: Self.now)
        }
        #expect(classify(204) == .accepted(nil))
        guard case .failed(.unauthorized) = classify(401) else { Issue.record("401"); return }
        guard case .failed(.forbidden) = classify(403) else { Issue.record("403"); return }
        #expect(classify(429, "", ["Retry-After": "7"]) == .failed(.rateLimited(retryAfter: .seconds(7))))
        guard case .failed(.server(status: 502, _)) = classify(502) else { Issue.record("502"); return }
        guard case .failed(.notFound) = classify(404) else { Issue.record("404"); return }
    }

    @Test("a VynqTalk protected call answered 200 with success false is a failure, not a success, and does not end the session")
    func vynqTalkProtectedSuccessFalse() {
        let reply = VynqTalkContract.development.classifyProtected(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(#"{"success":false,"data":null,"message":"Request failed"}"#.utf8)), receivedAt: Self.now)
        #expect(reply == .failed(.badRequest("Request failed")))
        let ok = VynqTalkContract.development.classifyProtected(
            HTTPResponse(status: 200, body: Data(#"{"success":true,"data":[],"message":null}"#.utf8)), receivedAt: Self.now)
        #expect(ok == .accepted(nil))
    }

    @Test(
        "a protected call's HTTP-date Retry-After is measured from when the answer arrived on the runner's clock, not the wall clock",
        arguments: Backend.documented)
    func protectedRetryAfterDate(_ backend: Backend) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let arrived = Self.now  // Years away from the wall clock: a wall-clock reading would be far off.
        let header = formatter.string(from: (arrived + .seconds(90)).date)
        let contract = SampleRequests.contract(backend)
        let reply = contract.classifyProtected(HTTPResponse(status: 429, headers: ["Retry-After": header]), receivedAt: arrived)
        #expect(reply == .failed(.rateLimited(retryAfter: .seconds(90))))
    }

    @Test("a pending Everday account's 403 on a protected call is pending approval, not plain forbidden")
    func everdayProtectedPending() {
        let reply = EverdayContract.development.classifyProtected(
            HTTPResponse(status: 403, body: Data(#"{"detail":"Account pending approval. A parent must approve this account before sign in."}"#.utf8)),
            receivedAt: Self.now)
        guard case .failed(.pendingApproval) = reply else { Issue.record("\(reply)"); return }
    }

    @Test(
        "answers that cannot be read are malformed: a captive portal's page, JSON cut short, JSON without the token",
        arguments: Backend.documented)
    func unreadableAnswersAreMalformed(_ backend: Backend) throws {
        let contract = SampleRequests.contract(backend)
        let signIn = try #require(
            SampleRequests.all.first { name, request in
                SampleRequests.documented[backend]!.contains(name) && name.hasPrefix("signIn")
            }?.1)
        let bodies: [(HTTPHeaders, String)] = [
            (["Content-Type": "text/html; charset=utf-8"], "<html><head><title>Network login</title></head><body>Sign in</body></html>"),
            (["Content-Type": "application/json"], #"{"accessToken": "eyJ"#),
            (["Content-Type": "application/json"], #"{"success": true, "data": {"user": {"id": "u1"}}, "message": null}"#),
            (["Content-Type": "application/json"], "[]"),
            ([:], ""),
        ]
        for (headers, body) in bodies {
            let reply = contract.decode(HTTPResponse(status: 200, headers: headers, body: Data(body.utf8)), for: signIn, receivedAt: Self.now)
            #expect(reply == .failed(.malformed), "\(backend) \(body)")
        }
    }

    @Test("a captive portal's 200 page is not 'code sent' either: acknowledgements refuse HTML and broken JSON")
    func acknowledgementsRefuseHTML() {
        let request = APIRequest.sendEmailCode(SampleRequests.email, .register)
        let page = HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>login</html>".utf8))
        #expect(AnonymousWallContract.development.decode(page, for: request, receivedAt: Self.now) == .failed(.malformed))
        let broken = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"message": "#.utf8))
        #expect(AnonymousWallContract.development.decode(broken, for: request, receivedAt: Self.now) == .failed(.malformed))
        let empty = HTTPResponse(status: 200)
        #expect(AnonymousWallContract.development.decode(empty, for: request, receivedAt: Self.now) == .accepted(nil))
    }

    @Test("random bodies under random statuses never trap any contract, for any request", arguments: Backend.documented)
    func randomAnswersNeverTrap(_ backend: Backend) {
        let contract = SampleRequests.contract(backend)
        var generator = SplitMix64(seed: 0xC0FFEE &+ UInt64(Backend.documented.firstIndex(of: backend)!))
        let fragments = [
            "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "1800", "-1", "1e308", "\"success\"", "\"data\"",
            "\"accessToken\"", "\"access_token\"", "\"AccessToken\"", "\"token\"", "\"user\"", "\"id\"", "\"detail\"", "\"error\"",
            "\"Status\"", "\"PendingApproval\"", "\"ExpiresIn\"", "\"url\"", "\"eyJ.eyJleHAiOjF9.x\"", "<html>", "\u{0}", "é",
        ]
        let statuses = [200, 201, 204, 302, 400, 401, 403, 404, 408, 409, 422, 429, 500, 503, 999, -1]
        for _ in 0..<2_000 {
            let body = (0..<Int.random(in: 0..<12, using: &generator)).map { _ in fragments.randomElement(using: &generator)! }.joined()
            let status = statuses.randomElement(using: &generator)!
            let headers: HTTPHeaders = Bool.random(using: &generator) ? ["Content-Type": "application/json", "Retry-After": "3"] : [:]
            let response = HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
            for (_, request) in SampleRequests.all {
                _ = contract.decode(response, for: request, receivedAt: Self.now)
            }
            _ = contract.classifyProtected(response, receivedAt: Self.now)
        }
    }

    @Test("a refused VynqTalk sign-in with no message of its own reads 'Invalid email or password'; a 500 'Server error, please try again'")
    func vynqTalkUserMessages() {
        let signIn = APIRequest.signIn(.email(SampleRequests.email), SampleRequests.password)
        let refused = VynqTalkContract.development.decode(
            HTTPResponse(status: 200, body: Data(#"{"success":false,"data":null,"message":null}"#.utf8)), for: signIn, receivedAt: Self.now)
        guard case .failed(let failure) = refused else { Issue.record("\(refused)"); return }
        #expect(failure.userMessage == "Invalid email or password")
        let crashed = VynqTalkContract.development.decode(
            HTTPResponse(status: 500, body: Data(#"{"error":true,"reason":"Database unreachable at 10.0.0.3"}"#.utf8)), for: signIn,
            receivedAt: Self.now)
        guard case .failed(let serverFailure) = crashed else { Issue.record("\(crashed)"); return }
        #expect(serverFailure.userMessage == "Server error, please try again")
    }

    @Test("Everday's ExpiresIn decides the expiry; without it, the JWT exp does; a refresh without a new refresh token keeps the old one")
    func everdayExpiry() throws {
        let jwt = JWTClaimsTests.jwt(#"{"exp":1767229200}"#)
        func refreshed(_ body: String) -> Reply {
            EverdayContract.development.decode(
                HTTPResponse(status: 200, body: Data(body.utf8)), for: .refresh(SampleRequests.refresh), receivedAt: Self.now)
        }
        #expect(
            refreshed(#"{"AccessToken":"\#(jwt)","RefreshToken":"r2","ExpiresIn":1800}"#)
                == .refreshed(TokenRefresh(accessToken: AccessToken(jwt), refreshToken: RefreshToken("r2"), expiry: .after(.seconds(1800)))))
        #expect(
            refreshed(#"{"AccessToken":"\#(jwt)"}"#)
                == .refreshed(TokenRefresh(accessToken: AccessToken(jwt), refreshToken: nil, expiry: .at(.seconds(1_767_229_200)))))
        #expect(
            refreshed(#"{"AccessToken":"opaque","ExpiresIn":0}"#)
                == .refreshed(TokenRefresh(accessToken: AccessToken("opaque"), refreshToken: nil, expiry: .unknown)))
    }

    @Test("Everday's one display name is sent as FirstName and LastName; a one-word name has no LastName; absent fields are omitted")
    func everdayNames() throws {
        func body(_ name: String?) throws -> TestJSON {
            let details = RegistrationDetails(
                identifier: .username(SampleRequests.username), password: SampleRequests.password, name: try name.map { try PersonName($0) })
            return try TestJSON.parse(try #require(try EverdayContract.development.encode(.register(details)).body))
        }
        #expect(try body("Mary Ann Smith")["FirstName"] == .string("Mary"))
        #expect(try body("Mary Ann Smith")["LastName"] == .string("Ann Smith"))
        #expect(try body("Cher")["LastName"] == nil)
        #expect(try body(nil) == .object(["Username": .string("newkid"), "Password": .string("MARKER-PW-1")]))
    }

    @Test("Hero365 sign-up answers 'check your email', or a session when the server has confirmation turned off")
    func hero365SignupBothWays() throws {
        let request = APIRequest.register(RegistrationDetails(identifier: .email(SampleRequests.email), password: SampleRequests.password))
        let verify = Hero365Contract.development.decode(
            HTTPResponse(status: 200, body: Data(#"{"message":"Check your email"}"#.utf8)), for: request, receivedAt: Self.now)
        #expect(verify == .verificationRequired("Check your email"))
        let session = Hero365Contract.development.decode(
            HTTPResponse(status: 200, body: Data(#"{"access_token":"a1","refresh_token":"r1","expires_in":3600,"user":{"id":"u1"}}"#.utf8)),
            for: request, receivedAt: Self.now)
        #expect(
            session
                == .granted(
                    Grant(
                        accessToken: AccessToken("a1"), refreshToken: RefreshToken("r1"), expiry: .after(.seconds(3600)), user: UserProfile(id: "u1"))
                ))
    }

    @Test("Hero365's OAuth callback is read from the fragment or the query, tokens or error, and needs its state")
    func hero365Callback() throws {
        let contract = Hero365Contract.development
        let jwt = JWTClaimsTests.jwt(#"{"sub":"u9","email":"google.user@example.com","exp":1767229200}"#)
        let tokens = try #require(
            URL(string: "hero365://auth/callback#access_token=\(jwt)&refresh_token=r1&token_type=bearer&expires_in=691200&provider=google&state=s1"))
        #expect(
            contract.oauthCallback(tokens)
                == .tokens(
                    attempt: "s1",
                    Grant(
                        accessToken: AccessToken(jwt), refreshToken: RefreshToken("r1"), expiry: .at(.seconds(1_767_229_200)),
                        user: UserProfile(id: "u9", email: "google.user@example.com"))),
            "the token's own exp decides over expires_in")
        let query = try #require(URL(string: "hero365://auth/callback?access_token=\(jwt)&state=s2"))
        #expect(contract.oauthCallback(query)?.attempt == "s2")
        let cancelled = try #require(URL(string: "hero365://auth/callback#error=access_denied&error_description=User%20cancelled&state=s3"))
        #expect(contract.oauthCallback(cancelled) == .failure(attempt: "s3", "User cancelled"))
        #expect(contract.oauthCallback(try #require(URL(string: "hero365://auth/callback#access_token=\(jwt)"))) == nil)
        #expect(contract.oauthCallback(try #require(URL(string: "hero365://auth/callback#state=s4"))) == nil)
    }

    @Test("Hero365's OAuth callback for the app's attempt: named by the attempt, only with the state the opened URL carried (or none on either side)")
    func hero365CallbackForAttempt() throws {
        let contract = Hero365Contract.development
        let jwt = JWTClaimsTests.jwt(#"{"sub":"u9","exp":1767229200}"#)
        let opened = "http://127.0.0.1:8000/__dev/oauth/authorize?provider=google&state=server-state"
        let callback = try #require(URL(string: "hero365://auth/callback#access_token=\(jwt)&refresh_token=r1&state=server-state"))
        #expect(contract.oauthCallback(callback, attempt: "app-attempt", authorizationURL: opened)?.attempt == "app-attempt")
        let forged = try #require(URL(string: "hero365://auth/callback#access_token=\(jwt)&state=other-state"))
        #expect(contract.oauthCallback(forged, attempt: "app-attempt", authorizationURL: opened) == nil)
        let stateless = try #require(URL(string: "hero365://auth/callback#access_token=\(jwt)"))
        #expect(contract.oauthCallback(stateless, attempt: "app-attempt", authorizationURL: opened) == nil)
        // The document's example URL carries no state; then the callback carries none either.
        let documented = "https://your-project.supabase.co/auth/v1/authorize?provider=google"
        #expect(contract.oauthCallback(stateless, attempt: "app-attempt", authorizationURL: documented)?.attempt == "app-attempt")
        let cancelled = try #require(URL(string: "hero365://auth/callback#error=access_denied&error_description=User%20cancelled&state=server-state"))
        #expect(
            contract.oauthCallback(cancelled, attempt: "app-attempt", authorizationURL: opened) == .failure(attempt: "app-attempt", "User cancelled"))
    }
}
