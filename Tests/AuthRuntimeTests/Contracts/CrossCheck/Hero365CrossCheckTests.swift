import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Cross-check against the reference server: Hero365", .timeLimit(.minutes(15)))
struct Hero365CrossCheckTests {
    static let lifetime: Int64 = 8 * 24 * 3600

    @Test(
        "email sign-up asks to verify, sign-in grants with a refresh token and exp, /users/me, recovery, a sign-out that revokes every refresh token")
    func emailLifecycle() async throws {
        try await withReference(.hero365) { hero in
            let email = try Typed.email("user@example.com")
            let password = try Typed.password("SecurePassword123!")
            let signup = try await hero.send(
                .register(RegistrationDetails(identifier: .email(email), password: password, name: try Typed.name("John Doe"))))
            #expect(signup == .verificationRequired("User created successfully. Please check your email for verification."))
            guard let grant = try await hero.send(.signIn(.email(email), password)).grant() else { return }
            #expect(grant.refreshToken != nil)
            #expect(grant.expiry == .at(.afterReferenceNow(Self.lifetime)))
            #expect(grant.user.email == "user@example.com" && grant.user.name == "John Doe")

            let bearer = Bearer(token: grant.accessToken, userID: grant.user.id)
            #expect(
                try await hero.send(.currentUser(bearer)).withoutUserAttributes
                    == .user(UserProfile(id: grant.user.id, email: "user@example.com", name: "John Doe")))
            #expect(try await hero.send(.requestPasswordReset(.email(email))) == .accepted("Password recovery email sent"))
            #expect(
                try await hero.send(.signIn(.email(email), try Typed.password("WrongPassword1"))) == .failed(.unauthorized("Invalid credentials")))
            #expect(
                try await hero.send(.revoke(try #require(grant.refreshToken), bearer))
                    == .accepted("All tokens revoked for user"))
            #expect(try await hero.send(.refresh(try #require(grant.refreshToken))) == .failed(.unauthorized("Invalid refresh token")))
            #expect(
                try await hero.send(.currentUser(Bearer(token: AccessToken("forged"), userID: "x")))
                    == .failed(.unauthorized("Could not validate credentials")))
        }
    }

    @Test("phone sign-up and sign-in send the E.164 number, however it was typed")
    func phonePassword() async throws {
        try await withReference(.hero365) { hero in
            let phone = try Typed.phone("+1 (234) 567-8900")
            let password = try Typed.password("SecurePassword123!")
            #expect(
                try await hero.send(.register(RegistrationDetails(identifier: .phone(phone), password: password)))
                    == .verificationRequired("User created successfully. Please verify your phone number."))
            let grant = try await hero.send(.signIn(.phone(try Typed.phone("+12345678900")), password)).grant()
            #expect(grant?.user.phone == "+12345678900")
        }
    }

    @Test("OTP: send, a resend inside the cooldown is the documented 400 'Failed to send OTP', a wrong code 401 Invalid OTP, the texted code grants")
    func phoneOTP() async throws {
        try await withReference(.hero365) { hero in
            let phone = try Typed.phone("+1234567890")
            #expect(try await hero.send(.sendPhoneCode(phone)) == .accepted("OTP sent successfully to your phone number."))
            #expect(
                try await hero.send(.sendPhoneCode(phone))
                    == .failed(.badRequest("Failed to send OTP: For security purposes, you can only request this after 30 seconds.")))
            let code = try hero.lastCode(to: "+1234567890")
            let wrong = try Typed.code(code == "000000" ? "111111" : "000000")
            #expect(try await hero.send(.signInWithPhoneCode(phone, wrong)) == .failed(.unauthorized("Invalid OTP")))
            let grant = try await hero.send(.signInWithPhoneCode(phone, try Typed.code(code))).grant()
            #expect(grant?.user.phone == "+1234567890")
            #expect(grant?.refreshToken != nil)
        }
    }

    @Test("OAuth: the URL for each provider, and the callback's tokens (or cancellation) read back for the same state")
    func oauth() async throws {
        try await withReference(.hero365) { hero in
            for provider in OAuthProvider.allCases {
                guard case .authorizationURL(let text) = try await hero.send(.oauthURL(provider)) else {
                    Issue.record("no URL for \(provider)")
                    continue
                }
                let url = try #require(URLComponents(string: text))
                let state = try #require(url.queryItems?.first { $0.name == "state" }?.value)
                #expect(url.queryItems?.first { $0.name == "provider" }?.value == provider.rawValue)
                let cancel = provider == .github
                var complete = try #require(
                    URLComponents(url: hero.server.rootURL.appendingPathComponent("__dev/oauth/complete"), resolvingAgainstBaseURL: false))
                complete.queryItems = [URLQueryItem(name: "state", value: state)] + (cancel ? [URLQueryItem(name: "cancel", value: "true")] : [])
                let answer = try await hero.raw("GET", try #require(complete.url))
                let callback = try #require(answer.json?["callbackURL"]?.string.flatMap(URL.init(string:)))
                let contract = try #require(hero.contract as? Hero365Contract)
                switch contract.oauthCallback(callback) {
                case .tokens(let attempt, let grant)?:
                    #expect(!cancel && attempt == state)
                    #expect(grant.user.email == "\(provider.rawValue).user@example.com")
                    #expect(grant.expiry == .at(.afterReferenceNow(Self.lifetime)), "the token's exp (expires_in agrees here)")
                    #expect(try await hero.send(.currentUser(Bearer(token: grant.accessToken, userID: grant.user.id))).failure == nil)
                case .failure(let attempt, let message)?:
                    #expect(cancel && attempt == state && message == "User cancelled")
                case nil:
                    Issue.record("the callback for \(provider) was not read")
                }
            }
        }
    }

    @Test("refresh rotates with snake_case tokens; the consumed one is refused")
    func refresh() async throws {
        try await withReference(.hero365) { hero in
            let email = try Typed.email("user@example.com")
            let password = try Typed.password("SecurePassword123!")
            _ = try await hero.send(.register(RegistrationDetails(identifier: .email(email), password: password)))
            guard let grant = try await hero.send(.signIn(.email(email), password)).grant(), let first = grant.refreshToken else { return }
            hero.server.advanceClock(by: 60)
            guard let rotated = try await hero.send(.refresh(first)).tokens() else { return }
            #expect(rotated.refreshToken != nil && rotated.refreshToken != first)
            #expect(rotated.expiry == .at(.afterReferenceNow(60 + Self.lifetime)))
            #expect(try await hero.send(.refresh(first)) == .failed(.unauthorized("Invalid refresh token")))
        }
    }

    @Test(
        "the document has no native sign-in; the deployed server keeps the full_name and email Apple shares at the first authorization and answers is_new_user true, then false; both work"
    )
    func nativeSignInFirstAuthorization() async throws {
        try await withReference(.hero365, configure: { $0.hero365.deployed = true }) { hero in
            let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.h")
            let first = APIRequest.signInNatively(
                NativeSignIn(
                    provider: .apple, identityToken: IdentityToken(token), userIdentifier: "001234.h", givenName: "John", familyName: "Doe",
                    email: "user@privaterelay.appleid.com"))
            guard let grant = try await hero.send(first).grant() else { return }
            #expect(grant.user.isNewUser == true)
            #expect(grant.user.name == "John Doe" && grant.user.email == "user@privaterelay.appleid.com")
            let later = APIRequest.signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(token)))
            guard let again = try await hero.send(later).grant() else { return }
            #expect(again.user.isNewUser == false && again.user.id == grant.user.id)
            #expect(again.user.name == "John Doe" && again.user.email == "user@privaterelay.appleid.com", "kept by the server")
            let me = try await hero.send(.currentUser(Bearer(token: again.accessToken, userID: again.user.id)))
            #expect(me.withoutUserAttributes == .user(UserProfile(id: grant.user.id, email: "user@privaterelay.appleid.com", name: "John Doe")))
        }
    }
}
