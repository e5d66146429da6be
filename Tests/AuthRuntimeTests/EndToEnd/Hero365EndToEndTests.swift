import AuthCore
import AuthRuntime
import AuthVerification
import Foundation
import ReferenceBackend
import Testing

@Suite("End to end: Hero365", .timeLimit(.minutes(15)))
struct Hero365EndToEndTests {
    typealias Do = Hero365Intents
    static let phone = "+15551234567"

    /// The OTP challenge the phase holds, if any.
    static func challenge(_ phase: Hero365App.Phase) -> CodeChallenge? {
        guard let otp = phase.firstPhase(OneTimeCodeSignIn.Phase.self) else { return nil }
        switch otp {
        case .awaitingCode(let challenge), .codeExpired(let challenge), .attemptsExhausted(let challenge): return challenge
        case .enteringDestination, .requestingCode, .resendingCode, .verifying, .signedIn: return nil
        }
    }

    @Test("phone OTP: a wrong code is refused and counted, a resend inside the cooldown is refused, the texted code signs in with a refresh token")
    func phoneOTP() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.hero365(), vault: vault)
            #expect(await client.send(Do.sendCode(Self.phone)).caseName == "codeSent")
            let code = try stack.lastCode(to: Self.phone)
            #expect(await client.send(Do.verify(code == "000000" ? "111111" : "000000")) == .failed(.unauthorized("Invalid OTP")))
            #expect(Self.challenge(await client.phase)?.attemptsLeft == 2)

            #expect(await client.send(Do.requestNewCode) == .rejected(.resendCooldown(until: Instant(referenceNow) + .seconds(30))))
            #expect(stack.server.ledger.requests("POST", "/api/v1/auth/otp/send") == 1, "refused locally, never sent")

            await client.send(Do.verify(code))
            #expect(await client.isActive)
            let credentials = try #require(await client.credentials)
            #expect(credentials.user.phone == Self.phone)
            #expect(credentials.refreshToken != nil)
            #expect(vault.credentials == credentials)
            #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200)
            _ = await client.stop()
        }
    }

    @Test(
        "the document's OTP token works at once; the deployed server's is refused until /auth/refresh exchanges it; both are exchanged before the first protected call, which never sees a 401",
        arguments: ServerForm.allCases)
    func otpTokenExchanged(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.hero365(), vault: vault)
            await client.send(Do.sendCode(Self.phone))
            let verified = stack.wire.exchanges.count  // Everything after the code was sent.
            await client.send(Do.verify(try stack.lastCode(to: Self.phone)))
            #expect(await client.isActive)
            let answer = await client.call(try Accounts.protectedRequest(stack))
            #expect(answer.status == 200)
            let paths = stack.wire.exchanges.dropFirst(verified).map { $0.request.url.lastPathComponent }
            #expect(paths == ["verify", "refresh", "me"], "the exchange comes first")
            #expect(stack.wire.exchanges(to: "/users/me").allSatisfy { $0.answer.status == 200 }, "no 401 on the way")
            let credentials = try #require(await client.credentials)
            #expect(vault.credentials == credentials, "the exchanged pair is persisted")
            #expect(stack.server.ledger.refreshTokensPresented.count == 1)
            _ = await client.stop()
        }
    }

    @Test("OTP: after the cooldown a new code replaces the old one; after its lifetime the code is refused locally")
    func otpCooldownAndExpiry() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let client = await stack.client(Apps.hero365())
            await client.send(Do.sendCode(Self.phone))
            let first = try stack.lastCode(to: Self.phone)
            await client.advance(stack.clock, by: .seconds(30))
            #expect(await client.send(Do.requestNewCode).caseName == "codeSent")
            let second = try stack.lastCode(to: Self.phone)
            #expect(stack.server.outbox(to: Self.phone).count == 2)
            if first != second {
                #expect(await client.send(Do.verify(first)) == .failed(.unauthorized("Invalid OTP")), "only the latest code works")
            }
            await client.advance(stack.clock, by: .seconds(300))
            guard case .codeExpired = await client.phase(of: OneTimeCodeSignIn.Phase.self) else {
                Issue.record("the code did not expire on the shared clock: \(await client.phase)")
                return
            }
            let sent = stack.server.ledger.requests("POST", "/api/v1/auth/otp/verify")
            #expect(await client.send(Do.verify(second)) == .rejected(.codeExpired))
            #expect(stack.server.ledger.requests("POST", "/api/v1/auth/otp/verify") == sent)
            _ = await client.stop()
        }
    }

    @Test("email sign-up asks to verify; email sign-in; phone sign-up and sign-in with a password; a wrong password is 401")
    func signUpAndSignIn() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let client = await stack.client(Apps.hero365())
            await Accounts.hero365(client, email: "hero@example.com")
            #expect(stack.server.outbox(to: "hero@example.com").map(\.kind) == [.verification])
            #expect(await client.send(Do.signIn("hero@example.com", "wrong-password")) == .failed(.unauthorized("Invalid credentials")))
            await client.send(Do.signIn("hero@example.com", Accounts.password))
            #expect(await client.credentials?.user.email == "hero@example.com")
            await client.logout()

            #expect(
                await client.send(Do.signUp(phone: Self.phone, Accounts.password))
                    == .verificationRequired("User created successfully. Please verify your phone number."))
            await client.send(Do.signIn(Self.phone, Accounts.password))
            #expect(await client.credentials?.user.phone == Self.phone)
            let request = try Accounts.protectedRequest(stack)
            #expect(await client.call(request).status == 200)
            let user = try #require(await client.credentials?.user.id)
            await client.logout()
            #expect(await client.waitFor(.serverSessionEnded))
            #expect(stack.server.liveRefreshTokens(of: user, on: .hero365) == 0, "sign-out ends the server session")
            _ = await client.stop()
        }
    }

    @Test(
        "the document says /auth/signout, which ends nothing on the server; the deployed server revokes every refresh token of the user at /revoke-tokens/{user_id}; both work: logout is local at once, then no refresh token of the user is live, on any device",
        arguments: ServerForm.allCases)
    func logoutRevokesEverySession(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.hero365(), vault: vault)
            await Accounts.hero365(client, email: "hero@example.com")
            await client.send(Do.signIn("hero@example.com", Accounts.password))
            let other = await stack.client(Apps.hero365())  // The same user on another device.
            await other.send(Do.signIn("hero@example.com", Accounts.password))
            let user = try #require(await client.credentials?.user.id)
            #expect(stack.server.liveRefreshTokens(of: user, on: .hero365) == 2)

            await client.logout()
            #expect(await client.session == nil)
            #expect(vault.credentials == nil, "cleared at once")
            #expect(await client.waitFor(.serverSessionEnded))
            let revokes = stack.wire.exchanges.filter { $0.request.url.path.contains("/revoke-tokens/") }
            #expect(revokes.map(\.request.url.path) == ["/api/v1/revoke-tokens/\(user)"])
            #expect(revokes.map(\.answer.status) == [200])
            #expect(stack.server.ledger.requests("POST", "/api/v1/auth/signout") == 0, "the document's sign-out ends nothing: not sent")
            #expect(stack.server.liveRefreshTokens(of: user, on: .hero365) == 0, "every device is signed out on the server")
            let otherCall = await other.call(try Accounts.protectedRequest(stack))
            #expect(otherCall.status == 401 || otherCall.failureValue == .sessionEnded, "the other device's session is over")
            _ = await client.stop()
            _ = await other.stop()
        }
    }

    @Test(
        "logout after the access token expired (refresh failing meanwhile, then the server back): the pair is renewed, never stored, and revoked; a failed revoke is retried; no refresh token of the user is live"
    )
    func logoutWithExpiredAccessToken() async throws {
        try await EndToEndStack.with(.hero365, configure: ServerForm.deployed.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.hero365(), vault: vault)
            await Accounts.hero365(client, email: "hero@example.com")
            await client.send(Do.signIn("hero@example.com", Accounts.password))
            let user = try #require(await client.credentials?.user.id)
            let lifetime = Int64(stack.server.configuration.hero365.tokens.accessTokenLifetime)
            stack.server.inject(.serverError(status: 503), path: "/api/v1/auth/refresh")  // The refresh keeps failing.
            await client.advance(stack.clock, by: .seconds(lifetime + 1))
            for _ in 0..<3 { await client.advance(stack.clock, by: .seconds(60)) }
            stack.server.clearFaults()
            stack.server.inject(.serverError(status: 503), path: "/api/v1/revoke-tokens/\(user)", times: 1)
            let refreshesBefore = stack.server.ledger.requests("POST", "/api/v1/auth/refresh")
            await client.logout()
            #expect(vault.credentials == nil, "cleared at once")
            #expect(await client.waitFor(.serverSessionEnded))
            #expect(stack.server.ledger.requests("POST", "/api/v1/auth/refresh") == refreshesBefore + 1, "renewed once, to revoke")
            #expect(stack.wire.exchanges(to: "/revoke-tokens/\(user)").map(\.answer.status) == [503, 200], "retried after a 503")
            #expect(stack.server.liveRefreshTokens(of: user, on: .hero365) == 0)
            #expect(vault.credentials == nil, "the renewed pair was never stored")
            _ = await client.stop()
        }
    }

    @Test(
        "the document says password recovery takes a JSON body; the deployed server reads ?email=; both are sent, and either mails a link",
        arguments: ServerForm.allCases)
    func recovery(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let client = await stack.client(Apps.hero365())
            await Accounts.hero365(client, email: "hero@example.com")
            #expect(await client.send(Do.recover("hero@example.com")).caseName == "passwordResetRequested")
            guard case .linkSent = await client.phase(of: PasswordReset.Phase.self) else {
                Issue.record("recovery did not end with the link sent: \(await client.phase)")
                return
            }
            #expect(stack.server.outbox(to: "hero@example.com").last?.kind == .passwordRecovery)
            let sent = try #require(stack.wire.exchanges.last { $0.request.url.path.hasSuffix("/auth/password-recovery") })
            #expect(sent.request.url.query == "email=hero%40example.com")
            _ = await client.stop()
        }
    }

    @Test(
        "the document's refresh answers tokens only; the deployed server adds expires_in 3600 beside a longer-lived JWT; the token's exp decides",
        arguments: ServerForm.allCases)
    func refreshLifetime(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let client = await stack.client(Apps.hero365())
            await Accounts.hero365(client, email: "hero@example.com")
            await client.send(Do.signIn("hero@example.com", Accounts.password))
            let lifetime = Int64(stack.server.configuration.hero365.tokens.accessTokenLifetime)
            let first = try #require(await client.credentials)
            #expect(first.expiresAt == Instant(referenceNow) + .seconds(lifetime))
            await client.advance(stack.clock, by: .seconds(lifetime - 30))  // Inside the refresh margin.
            let refreshed = try #require(await client.credentials)
            #expect(refreshed.accessToken != first.accessToken, "refreshed ahead of expiry")
            #expect(refreshed.expiresAt == Instant(referenceNow) + .seconds(2 * lifetime - 30), "the new token's exp, not expires_in")
            _ = await client.stop()
        }
    }

    /// Plays the provider's page for the authorization URL the app opened: the server completes
    /// the flow for the URL's `state` and answers the app's callback URL.
    static func completeInBrowser(_ stack: EndToEndStack, _ authorizationURL: String, cancel: Bool = false) async throws -> URL {
        let opened = try #require(URLComponents(string: authorizationURL))
        let state = try #require(opened.queryItems?.first { $0.name == "state" }?.value)
        var complete = try #require(
            URLComponents(url: stack.server.rootURL.appendingPathComponent("__dev/oauth/complete"), resolvingAgainstBaseURL: false))
        complete.queryItems = [URLQueryItem(name: "state", value: state)] + (cancel ? [URLQueryItem(name: "cancel", value: "true")] : [])
        let answer = try await LoopbackTransport().send(HTTPRequest(method: "GET", url: try #require(complete.url)))
        let json = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        return try #require((json["callbackURL"] as? String).flatMap(URL.init(string:)))
    }

    @Test("OAuth: the app opens the provider URL, the callback it receives signs in through the reducer; a cancelled one is a failure")
    func oauth() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let contract = try #require(stack.contract as? Hero365Contract)
            let client = await stack.client(Apps.hero365())
            guard case .authorizationURL(let cancelledURL) = await client.send(Do.oauth("github", attempt: "attempt-1")) else {
                Issue.record("no authorization URL")
                return
            }
            let cancelled = try await Self.completeInBrowser(stack, cancelledURL, cancel: true)
            let cancelledCallback = try #require(contract.oauthCallback(cancelled, attempt: "attempt-1", authorizationURL: cancelledURL))
            #expect(await client.send(Do.oauthCallback(cancelledCallback)) == .failed(.unauthorized("User cancelled")))

            guard case .authorizationURL(let url) = await client.send(Do.oauth("google", attempt: "attempt-2")) else {
                Issue.record("no second authorization URL")
                return
            }
            let callback = try await Self.completeInBrowser(stack, url)
            let read = try #require(contract.oauthCallback(callback, attempt: "attempt-2", authorizationURL: url))
            await client.send(Do.oauthCallback(read))
            #expect(await client.isActive)
            #expect(await client.credentials?.user.email == "google.user@example.com")
            let request = try Accounts.protectedRequest(stack)
            #expect(await client.call(request).status == 200)
            let user = try #require(await client.credentials?.user.id)
            await client.logout()
            #expect(await client.waitFor(.serverSessionEnded))
            #expect(stack.server.liveRefreshTokens(of: user, on: .hero365) == 0, "the OAuth session ends on the server too")
            _ = await client.stop()
        }
    }
}
