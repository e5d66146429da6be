import Foundation
import ReferenceBackend
import Testing

@Suite("Hero365 contract", .timeLimit(.minutes(15)))
struct Hero365Tests {
    static let phone = "+12345678900"

    /// Sends an OTP and returns it from the outbox.
    private func otp(_ hero: TestClient, _ server: ReferenceServer, phone: String = phone) async throws -> String {
        let sent = try await hero.post("/api/v1/auth/otp/send", ["phone": phone])
        #expect(sent.status == 200)
        return try #require(server.outbox(to: phone).last?.code)
    }

    @Test("email sign-up asks to check the email; sign-in returns snake_case tokens and user")
    func emailSignUpAndSignIn() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let signup = try await hero.post(
                "/api/v1/auth/signup",
                ["email": "user@example.com", "password": "SecurePassword123!", "full_name": "John Doe"])
            #expect(signup.status == 200)
            #expect(signup.string("message") == "User created successfully. Please check your email for verification.")
            let signin = try await hero.post("/api/v1/auth/signin", ["email": "user@example.com", "password": "SecurePassword123!"])
            #expect(signin.status == 200)
            #expect(signin.keys == ["access_token", "refresh_token", "user"])
            #expect(signin.string("user", "user_metadata", "full_name") == "John Doe")
            let claims = try #require(jwtClaims(signin.string("access_token") ?? ""))
            #expect(claims["exp"] is Int)
            #expect(claims["sub"] as? String == signin.string("user", "id"))

            let me = try await hero.get("/api/v1/users/me", bearer: signin.string("access_token"))
            #expect(me.status == 200)
            #expect(me.string("full_name") == "John Doe")
            #expect(me.bool("is_active") == true)
            let wrong = try await hero.post("/api/v1/auth/signin", ["email": "user@example.com", "password": "nope"])
            #expect(wrong.status == 401)
            #expect(wrong.string("detail") == "Invalid credentials")
        }
    }

    @Test("phone sign-up and sign-in with a password")
    func phonePassword() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let signup = try await hero.post("/api/v1/auth/signup/phone", ["phone": "+1 (234) 567-8900", "password": "SecurePassword123!"])
            #expect(signup.status == 200)
            #expect(signup.string("message") == "User created successfully. Please verify your phone number.")
            let signin = try await hero.post("/api/v1/auth/signin/phone", ["phone": Self.phone, "password": "SecurePassword123!"])
            #expect(signin.status == 200)
            #expect(signin.string("user", "phone") == Self.phone)
            let invalid = try await hero.post("/api/v1/auth/signup/phone", ["phone": "234-567-8900", "password": "SecurePassword123!"])
            #expect(invalid.status == 400)
        }
    }

    @Test("an OTP delivered to the outbox signs in once")
    func otpSignIn() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let code = try await otp(hero, server)
            #expect(code.count == 6)
            let verified = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            #expect(verified.status == 200)
            #expect(verified.string("user", "phone") == Self.phone)
            let replay = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            #expect(replay.status == 401)
            #expect(replay.string("detail") == "Invalid OTP")
        }
    }

    @Test("a resend inside the cooldown is the API document's failed send (400 'Failed to send OTP: …'); after it a new OTP replaces the old")
    func otpCooldown() async throws {
        let clock = ManualClock()
        var configuration = Configuration()
        configuration.clock = { clock.now }
        try await withServer([.hero365], configuration: configuration) { server in
            let hero = client(server, .hero365)
            let first = try await otp(hero, server)
            let early = try await hero.post("/api/v1/auth/otp/send", ["phone": Self.phone])
            #expect(early.status == 400)
            #expect(early.string("detail") == "Failed to send OTP: For security purposes, you can only request this after 30 seconds.")
            #expect(server.outbox(to: Self.phone).count == 1)
            server.advanceClock(by: 30)
            let second = try await otp(hero, server)
            let stale = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": first])
            #expect(stale.status == (first == second ? 200 : 401))
        }
    }

    @Test("an OTP expires after its lifetime")
    func otpExpiry() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let code = try await otp(hero, server)
            server.advanceClock(by: 301)
            let late = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            #expect(late.status == 401)
        }
    }

    @Test("five wrong guesses burn the OTP, so even the right code then fails")
    func otpAttempts() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let code = try await otp(hero, server)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                let guess = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": wrong])
                #expect(guess.status == 401)
            }
            let burned = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            #expect(burned.status == 401)
        }
    }

    @Test(
        "OAuth URL for supported providers; the dev helper completes the callback with tokens",
        arguments: ["google", "apple", "github"])
    func oauth(provider: String) async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let started = try await hero.get("/api/v1/auth/oauth/\(provider)")
            #expect(started.status == 200)
            #expect(started.string("provider") == provider)
            let url = try #require(started.string("url").flatMap(URLComponents.init(string:)))
            let state = try #require(url.queryItems?.first { $0.name == "state" }?.value)
            let completed = try await TestClient(server.rootURL).get("/__dev/oauth/complete?state=\(state)")
            let callback = try #require(completed.string("callbackURL").flatMap(URLComponents.init(string:)))
            #expect(callback.scheme == "hero365")
            var fragment = URLComponents()
            fragment.query = callback.fragment
            let access = try #require(fragment.queryItems?.first { $0.name == "access_token" }?.value)
            #expect(fragment.queryItems?.contains { $0.name == "refresh_token" } == true)
            let me = try await hero.get("/api/v1/users/me", bearer: access)
            #expect(me.status == 200)
            let reused = try await TestClient(server.rootURL).get("/__dev/oauth/complete?state=\(state)")
            #expect(reused.status == 400)
        }
    }

    @Test("an unsupported OAuth provider is 400")
    func unsupportedProvider() async throws {
        try await withServer([.hero365]) { server in
            let answer = try await client(server, .hero365).get("/api/v1/auth/oauth/myspace")
            #expect(answer.status == 400)
            #expect(answer.string("detail") == "Unsupported OAuth provider")
        }
    }

    @Test(
        "the document's server answers {url, provider} and serves no native sign-in; the deployed one answers {message, endpoints} for google and apple and signs in with an identity token"
    )
    func oauthAsDeployed() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let documented = try await hero.get("/api/v1/auth/oauth/apple")
            #expect(documented.string("url") != nil)
            let token = ReferenceServer.providerIdentityToken(provider: "google", subject: "g-1", email: "g@example.com")
            let native = try await hero.post("/api/v1/auth/google/signin", ["id_token": token])
            #expect(native.status == 404)
        }
        var configuration = Configuration()
        configuration.hero365.deployed = true
        try await withServer([.hero365], configuration: configuration) { server in
            let hero = client(server, .hero365)
            let answer = try await hero.get("/api/v1/auth/oauth/apple")
            #expect(answer.status == 200 && answer.string("url") == nil)
            #expect(answer.string("endpoints", "apple") == "/auth/apple/signin" && answer.string("endpoints", "google") == "/auth/google/signin")
            let github = try await hero.get("/api/v1/auth/oauth/github")
            #expect(github.status == 400, "google and apple only")

            let apple = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.a", email: "a@example.com")
            let missing = try await hero.post("/api/v1/auth/apple/signin", ["id_token": apple])
            #expect(missing.status == 422 && missing.string("error", "type") == "validation_error", "Apple requires user_identifier")
            let mismatched = try await hero.post("/api/v1/auth/apple/signin", ["id_token": apple, "user_identifier": "001234.b"])
            #expect(mismatched.string("detail") == "Apple Sign-In failed: Failed to sign in with apple: Invalid ID token")
            let wrongIssuer = ReferenceServer.providerIdentityToken(provider: "google", subject: "001234.a")
            let foreign = try await hero.post("/api/v1/auth/apple/signin", ["id_token": wrongIssuer, "user_identifier": "001234.a"])
            #expect(foreign.status == 400)

            let first = try await hero.post("/api/v1/auth/apple/signin", ["id_token": apple, "user_identifier": "001234.a"])
            #expect(first.status == 200 && first.bool("is_new_user") == true && first.string("token_type") == "bearer")
            #expect(first.string("user", "email") == "a@example.com" && first.value("expires_in") as? Int == 3600)
            let again = try await hero.post("/api/v1/auth/apple/signin", ["id_token": apple, "user_identifier": "001234.a"])
            #expect(again.bool("is_new_user") == false && again.string("user", "id") == first.string("user", "id"))
            let me = try await hero.get("/api/v1/users/me", bearer: first.string("access_token"))
            #expect(me.status == 200 && me.string("email") == "a@example.com")
        }
    }

    @Test("refresh rotates, and replaying a consumed refresh token revokes the family")
    func refreshReuse() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let code = try await otp(hero, server)
            let signin = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            let first = try #require(signin.string("refresh_token"))
            let rotated = try await hero.post("/api/v1/auth/refresh", ["refresh_token": first])
            #expect(rotated.status == 200)
            #expect(rotated.keys == ["access_token", "refresh_token"])
            let second = try #require(rotated.string("refresh_token"))
            let replay = try await hero.post("/api/v1/auth/refresh", ["refresh_token": first])
            #expect(replay.status == 401)
            #expect(replay.string("detail") == "Invalid refresh token")
            let descendant = try await hero.post("/api/v1/auth/refresh", ["refresh_token": second])
            #expect(descendant.status == 401)
            let me = try await hero.get("/api/v1/users/me", bearer: rotated.string("access_token"))
            #expect(me.status == 401)
            #expect(server.ledger.reuseDetections.count == 1)
        }
    }

    @Test("password recovery and sign-out answer their documented messages")
    func recoveryAndSignOut() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            _ = try await hero.post("/api/v1/auth/signup", ["email": "user@example.com", "password": "SecurePassword123!"])
            let recovery = try await hero.post("/api/v1/auth/password-recovery", ["email": "user@example.com"])
            #expect(recovery.status == 200)
            #expect(recovery.string("message") == "Password recovery email sent")
            #expect(server.outbox(to: "user@example.com").map(\.kind) == [.verification, .passwordRecovery])
            let signout = try await hero.send("POST", "/api/v1/auth/signout")
            #expect(signout.status == 200)
            #expect(signout.string("message") == "Sign out should be handled by the frontend Supabase client")
        }
    }

    @Test(
        "the deployed server's POST /revoke-tokens/{user_id}: the user themself revokes every refresh token of theirs (every device); another user's id is 403; no bearer is 401"
    )
    func revokeTokens() async throws {
        try await withServer([.hero365]) { server in
            let hero = client(server, .hero365)
            let credentials = ["email": "user@example.com", "password": "SecurePassword123!"]
            _ = try await hero.post("/api/v1/auth/signup", credentials)
            _ = try await hero.post("/api/v1/auth/signup", ["email": "other@example.com", "password": "SecurePassword123!"])
            let phone = try await hero.post("/api/v1/auth/signin", credentials)
            let laptop = try await hero.post("/api/v1/auth/signin", credentials)
            let other = try await hero.post("/api/v1/auth/signin", ["email": "other@example.com", "password": "SecurePassword123!"])
            let user = try #require(phone.value("user", "id") as? String)
            let otherUser = try #require(other.value("user", "id") as? String)
            #expect(server.liveRefreshTokens(of: user, on: .hero365) == 2)

            let anonymous = try await hero.send("POST", "/api/v1/revoke-tokens/\(user)")
            #expect(anonymous.status == 401)
            let foreign = try await hero.send("POST", "/api/v1/revoke-tokens/\(user)", bearer: other.string("access_token"))
            #expect(foreign.status == 403)
            #expect(foreign.string("detail") == "Not authorized to revoke tokens for this user")
            #expect(server.liveRefreshTokens(of: user, on: .hero365) == 2, "refused: nothing revoked")

            let revoked = try await hero.send("POST", "/api/v1/revoke-tokens/\(user)", bearer: phone.string("access_token"))
            #expect(revoked.status == 200)
            #expect(revoked.string("message") == "All tokens revoked for user")
            #expect(server.liveRefreshTokens(of: user, on: .hero365) == 0, "every device")
            #expect(server.liveRefreshTokens(of: otherUser, on: .hero365) == 1, "only that user")
            let refresh = try await hero.post("/api/v1/auth/refresh", ["refresh_token": try #require(laptop.string("refresh_token"))])
            #expect(refresh.status == 401)
            #expect(server.hero365UserID("user@example.com") == user)
        }
    }

    @Test("/users/me refuses missing and expired tokens with 401")
    func meRefusals() async throws {
        var configuration = Configuration()
        configuration.hero365.tokens.accessTokenLifetime = 120
        try await withServer([.hero365], configuration: configuration) { server in
            let hero = client(server, .hero365)
            #expect(try await hero.get("/api/v1/users/me").status == 401)
            let code = try await otp(hero, server)
            let signin = try await hero.post("/api/v1/auth/otp/verify", ["phone": Self.phone, "token": code])
            server.advanceClock(by: 121)
            let expired = try await hero.get("/api/v1/users/me", bearer: signin.string("access_token"))
            #expect(expired.status == 401)
            #expect(expired.string("detail") != nil)
        }
    }

    @Test(
        "the deployed native sign-in keeps the full_name and email Apple shares once: a new account takes them, an account without a name takes the name"
    )
    func nativeSignInKeepsTheSharedName() async throws {
        var configuration = Configuration()
        configuration.hero365.deployed = true
        try await withServer([.hero365], configuration: configuration) { server in
            let hero = client(server, .hero365)
            let apple = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.n")
            let first = try await hero.post(
                "/api/v1/auth/apple/signin",
                ["id_token": apple, "user_identifier": "001234.n", "full_name": "Ada Lovelace", "email": "ada@privaterelay.appleid.com"])
            #expect(first.bool("is_new_user") == true && first.string("user", "full_name") == "Ada Lovelace")
            #expect(first.string("user", "email") == "ada@privaterelay.appleid.com")
            let again = try await hero.post("/api/v1/auth/apple/signin", ["id_token": apple, "user_identifier": "001234.n"])
            #expect(again.bool("is_new_user") == false && again.string("user", "full_name") == "Ada Lovelace")

            // An account made by sign-up without a name, found by the shared email, takes the name.
            let signup = try await hero.post("/api/v1/auth/signup", ["email": "grace@example.com", "password": "SecurePassword123!"])
            #expect(signup.status == 200)
            let other = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.g")
            let linked = try await hero.post(
                "/api/v1/auth/apple/signin",
                ["id_token": other, "user_identifier": "001234.g", "full_name": "Grace Hopper", "email": "grace@example.com"])
            #expect(linked.bool("is_new_user") == false && linked.string("user", "full_name") == "Grace Hopper")
            let me = try await hero.get("/api/v1/users/me", bearer: linked.string("access_token"))
            #expect(me.string("full_name") == "Grace Hopper" && me.string("email") == "grace@example.com")
        }
    }
}
