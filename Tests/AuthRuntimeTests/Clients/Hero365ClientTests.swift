import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Client: Hero365", .timeLimit(.minutes(15)))
struct Hero365ClientTests {
    static let password = "Passw0rd!123"
    static let phone = "+15551234567"

    static func client(_ stack: EndToEndStack, vault: MemoryVault = MemoryVault()) -> Hero365Client {
        Hero365Client(baseURL: stack.baseURL, vault: vault, clock: stack.clock)
    }

    @Test("sign up by email (verify first) and by phone; sign in with each; a wrong password throws the server's message; /users/me")
    func signUpAndSignIn() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let auth = Self.client(stack)
            let byEmail = try await auth.signUp(identifier: "hero@example.com", password: Self.password, fullName: "Hero User")
            #expect(byEmail == .verificationRequired(message: "User created successfully. Please check your email for verification."))
            let wrong = await authError { try await auth.signIn(identifier: "hero@example.com", password: "wrong-password") }
            #expect(wrong?.errorDescription == "Invalid credentials")
            #expect(try await auth.signIn(identifier: "hero@example.com", password: Self.password).email == "hero@example.com")
            #expect(try await auth.fetchCurrentUser().email == "hero@example.com")
            await auth.signOut()
            let byPhone = try await auth.signUp(identifier: Self.phone, password: Self.password)
            #expect(byPhone == .verificationRequired(message: "User created successfully. Please verify your phone number."))
            #expect(try await auth.signIn(identifier: Self.phone, password: Self.password).phone == Self.phone)
            await auth.stop()
        }
    }

    @Test(
        "signOut signs out at once and serverSignOutReports() tells how the server session ended: ended when the server revoked every refresh token of the user; owed after the retries when the server keeps failing, then ended at a launch that finds no session once the server is back"
    )
    func serverSignOutReports() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let vault = MemoryVault()
            let auth = Self.client(stack, vault: vault)
            _ = try await auth.signUp(identifier: "hero@example.com", password: Self.password)
            let reports = await auth.serverSignOutReports()
            var next = reports.makeAsyncIterator()

            let user = try await auth.signIn(identifier: "hero@example.com", password: Self.password)
            #expect(stack.server.liveRefreshTokens(of: user.id, on: .hero365) == 1)
            await auth.signOut()
            #expect(await auth.authState == .signedOut, "signed out at once")
            #expect(await next.next() == .ended)
            #expect(stack.server.liveRefreshTokens(of: user.id, on: .hero365) == 0)

            _ = try await auth.signIn(identifier: "hero@example.com", password: Self.password)
            stack.server.inject(.serverError(status: 503), path: "/api/v1/revoke-tokens/\(user.id)")
            await auth.signOut()
            #expect(await auth.authState == .signedOut, "signed out at once, whatever the server does")
            guard case .owed(let error)? = await next.next() else {
                Issue.record("the failed revoke was not reported as owed")
                return
            }
            #expect(error.errorDescription?.isEmpty == false)
            let revokes = stack.server.ledger.requests("POST", "/api/v1/revoke-tokens/{user_id}")
            #expect(revokes == 4, "the first sign-out's, then the second's sent and retried a bounded number of times")
            #expect(stack.server.liveRefreshTokens(of: user.id, on: .hero365) == 1, "the refresh token lives on, and the app was told")
            await auth.stop()

            stack.server.clearFaults()  // The server is back; the app launches with no session.
            let relaunched = Self.client(stack, vault: vault)
            let later = await relaunched.serverSignOutReports()
            var after = later.makeAsyncIterator()
            await relaunched.start()
            #expect(await after.next() == .ended)
            #expect(stack.server.liveRefreshTokens(of: user.id, on: .hero365) == 0, "ended on the server once it could be reached")
            await relaunched.stop()
        }
    }

    @Test("OTP: send, a resend inside the cooldown is refused with the wait, a wrong code throws 'Invalid OTP', the texted one signs in")
    func otp() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let auth = Self.client(stack)
            let sent = try await auth.sendOTP(to: Self.phone)
            #expect(sent.resendAvailableIn == .seconds(30))
            #expect(sent.expiresIn == .seconds(300))
            let tooSoon = await authError { try await auth.resendOTP() }
            #expect(tooSoon?.errorDescription == "You can request a new code in 30 s.")
            let code = try stack.lastCode(to: Self.phone)
            let wrong = await authError { try await auth.verifyOTP(code: code == "000000" ? "111111" : "000000") }
            #expect(wrong?.errorDescription == "Invalid OTP")
            #expect(try await auth.verifyOTP(code: code).phone == Self.phone)
            #expect(await auth.isSignedIn)
            await auth.stop()
        }
    }

    @Test(
        "the document says GET /auth/oauth/{provider} answers {url, provider}; the deployed server sends {message, endpoints}; both are read: a URL to open, or native sign-in, which signs in with the provider's identity token",
        arguments: ServerForm.allCases)
    func oauthInEitherForm(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let auth = Hero365Client(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock, logger: stack.log)
            switch form {
            case .documented:
                guard case .browser(let url) = try await auth.startOAuth(with: .apple) else {
                    Issue.record("the document's server hands out a URL")
                    return
                }
                #expect(url.path.hasSuffix("/__dev/oauth/authorize"))
            case .deployed:
                #expect(try await auth.startOAuth(with: .apple) == .nativeSignIn(.apple))
                #expect(try await auth.startOAuth(with: .google) == .nativeSignIn(.google))
                let thrown = await authError { try await auth.oauthURL(for: .apple) }
                #expect(thrown == .nativeSignInRequired(.apple))
                #expect(thrown?.errorDescription == "Sign in with Apple in the app.")
                let github = await authError { try await auth.startOAuth(with: .github) }
                #expect(github?.errorDescription == "Unsupported OAuth provider")

                let forged = ReferenceServer.providerIdentityToken(provider: "google", subject: "001234.apple", email: "apple.user@example.com")
                let refused = await authError { try await auth.signIn(with: .apple, identityToken: forged) }
                #expect(refused?.errorDescription == "Apple Sign-In failed: Failed to sign in with apple: Invalid ID token")
                #expect(!refused.map { "\($0)" }!.contains(forged), "the identity token is never printed")

                let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.apple", email: "apple.user@example.com")
                // No user identifier given: the identity token's `sub` is sent as Apple's required `user_identifier`.
                let user = try await auth.signIn(with: .apple, identityToken: token)
                #expect(user.email == "apple.user@example.com")
                #expect(try await auth.fetchCurrentUser().id == user.id, "the native grant's token is accepted on protected routes")
                await auth.signOut()
                let again = try await auth.signIn(with: .apple, identityToken: token, userIdentifier: "001234.apple")
                #expect(again.id == user.id, "the same Apple user signs in to the same account")
                #expect(!stack.log.lines.contains { $0.contains(token) }, "the identity token never reaches the log")
            }
            await auth.stop()
        }
    }

    @Test("OAuth: the URL to open, then the callback signs in; a callback without an attempt is refused")
    func oauth() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let auth = Self.client(stack)
            let stray = await authError { try await auth.completeOAuth(callback: URL(string: "hero365://oauth?code=x")!) }
            #expect(stray == .rejected(.callbackMismatch))
            let url = try await auth.oauthURL(for: .google)
            let callback = try await Hero365EndToEndTests.completeInBrowser(stack, url.absoluteString)
            let user = try await auth.completeOAuth(callback: callback)
            #expect(await auth.currentUser == user)
            await auth.stop()
        }
    }

    @Test("password recovery mails a link; the app stays signed out")
    func recovery() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let auth = Self.client(stack)
            _ = try await auth.signUp(identifier: "hero@example.com", password: Self.password)
            _ = try await auth.recoverPassword(email: "hero@example.com")
            #expect(stack.server.outbox(to: "hero@example.com").last?.kind == .passwordRecovery)
            #expect(await auth.authState == .signedOut)
            await auth.stop()
        }
    }

    @Test(
        "the document has no native sign-in; the deployed server keeps the name and email Apple shares at the first authorization and says whether the account is new: isNewUser true, then false; both forms work",
        arguments: ServerForm.allCases)
    func signInWithAppleFirstAuthorization(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.hero365, configure: form.configure) { stack in
            let auth = Hero365Client(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock, logger: stack.log)
            let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.first")
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            switch form {
            case .documented:
                let refused = await authError {
                    try await auth.signIn(withApple: token, userIdentifier: "001234.first", fullName: name, email: "ada@privaterelay.appleid.com")
                }
                guard case .server(.notFound)? = refused else {
                    Issue.record("the document's server has no native endpoint: \(String(describing: refused))")
                    return
                }
                #expect(await auth.authState == .signedOut)
            case .deployed:
                let user = try await auth.signIn(
                    withApple: token, userIdentifier: "001234.first", fullName: name, email: "ada@privaterelay.appleid.com")
                #expect(user.isNewUser == true, "this sign-in created the account")
                #expect(user.name == "Ada Lovelace" && user.email == "ada@privaterelay.appleid.com")
                #expect(try await auth.fetchCurrentUser().name == "Ada Lovelace", "the server kept the shared name")
                await auth.signOut()
                // Apple shares the name and email only once: the next sign-in sends neither.
                let again = try await auth.signIn(withApple: token, userIdentifier: "001234.first")
                #expect(again.isNewUser == false && again.id == user.id)
                #expect(again.name == "Ada Lovelace" && again.email == "ada@privaterelay.appleid.com")
                let body = stack.log.lines.joined(separator: "\n")
                #expect(!body.contains(token), "the identity token never reaches the log")
            }
            await auth.stop()
        }
    }
}
