import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Cross-check against the reference server: Subspace", .timeLimit(.minutes(15)))
struct SubspaceCrossCheckTests {
    static func register(_ subspace: ContractClient) async throws -> Reply {
        try await subspace.send(
            .register(
                RegistrationDetails(
                    identifier: .email(try Typed.email("john@example.com")), password: try Typed.password("password123"),
                    name: try Typed.name("John Doe"))))
    }

    @Test("register answers a 24 h token at once (201), login another, /auth/me restores the user")
    func registerLoginMe() async throws {
        try await withReference(.subspace) { subspace in
            guard let registered = try await Self.register(subspace).grant() else { return }
            #expect(registered.expiry == .at(.afterReferenceNow(24 * 3600)))
            #expect(registered.user.name == "John Doe" && registered.user.email == "john@example.com")
            #expect(registered.refreshToken == nil)
            let login = try await subspace.send(.signIn(.email(try Typed.email("john@example.com")), try Typed.password("password123")))
            guard let grant = login.grant() else { return }
            let me = try await subspace.send(.currentUser(Bearer(token: grant.accessToken, userID: grant.user.id)))
            #expect(me == .user(registered.user))
            let seeded = try await subspace.send(.signIn(.email(try Typed.email("admin@subspace.dev")), try Typed.password("admin123")))
            #expect(seeded.grant()?.user.email == "admin@subspace.dev")
        }
    }

    @Test("the documented error bodies: invalid credentials, email already exists, an invalid token, a token past its 24 hours")
    func errors() async throws {
        try await withReference(.subspace) { subspace in
            guard let grant = try await Self.register(subspace).grant() else { return }
            #expect(try await Self.register(subspace).failure == .conflict("email already exists"))
            #expect(
                try await subspace.send(.signIn(.email(try Typed.email("john@example.com")), try Typed.password("wrong-password")))
                    == .failed(.unauthorized("invalid credentials")))
            #expect(
                try await subspace.send(.currentUser(Bearer(token: AccessToken("forged"), userID: "x"))) == .failed(.unauthorized("invalid token")))
            subspace.server.advanceClock(by: 24 * 3600 + 1)
            #expect(
                try await subspace.send(.currentUser(Bearer(token: grant.accessToken, userID: grant.user.id)))
                    == .failed(.unauthorized("token has expired")))
        }
    }

    @Test("past the rate limit the answer is 429 with the server's Retry-After")
    func rateLimit() async throws {
        try await withReference(.subspace, configure: { $0.subspace.rateLimit = 2 }) { subspace in
            let signIn = APIRequest.signIn(.email(try Typed.email("admin@subspace.dev")), try Typed.password("admin123"))
            _ = try await subspace.send(signIn)
            _ = try await subspace.send(signIn)
            #expect(try await subspace.send(signIn) == .failed(.rateLimited(retryAfter: .seconds(60))))
            subspace.server.advanceClock(by: 60)
            #expect(try await subspace.send(signIn).grant() != nil)
        }
    }

    @Test("faults the API documents warn about: a 500 in the error envelope, a body that is not JSON, a captive portal's page")
    func faults() async throws {
        try await withReference(.subspace) { subspace in
            let signIn = APIRequest.signIn(.email(try Typed.email("admin@subspace.dev")), try Typed.password("admin123"))
            subspace.server.inject(.serverError(status: 503), path: "/api/v1/auth/login", times: 1)
            let unavailable = try await subspace.send(signIn)
            #expect(unavailable == .failed(.server(status: 503, nil)))
            #expect(unavailable.failure?.userMessage == "Server error, please try again")
            subspace.server.inject(.malformedJSON, path: "/api/v1/auth/login", times: 1)
            #expect(try await subspace.send(signIn) == .failed(.malformed))
            subspace.server.inject(.wrongContentType, path: "/api/v1/auth/login", times: 1)
            #expect(try await subspace.send(signIn) == .failed(.malformed))
            subspace.server.inject(.rateLimited(retryAfter: 7), path: "/api/v1/auth/login", times: 1)
            #expect(try await subspace.send(signIn) == .failed(.rateLimited(retryAfter: .seconds(7))))
        }
    }

    @Test(
        "the document has no native sign-in (404); the deployed server signs in at /auth/apple with the shared name and email, the same account again without them, and its refresh answer's user is kept; both work"
    )
    func nativeSignInAndRefreshedUser() async throws {
        let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.s", email: "user@privaterelay.appleid.com")
        let first = APIRequest.signInNatively(
            NativeSignIn(
                provider: .apple, identityToken: IdentityToken(token), userIdentifier: "001234.s", authorizationCode: AuthorizationCode("code-1"),
                givenName: "John", familyName: "Doe", email: "user@privaterelay.appleid.com"))
        try await withReference(.subspace) { subspace in
            let refused = try await subspace.send(first)
            guard case .failed(.notFound) = refused else {
                Issue.record("the document's server has no such route: \(refused)")
                return
            }
            let password = try await subspace.send(.signIn(.email(try Typed.email("admin@subspace.dev")), try Typed.password("admin123")))
            #expect(password.grant() != nil)
        }
        try await withReference(.subspace, configure: { $0.subspace.deployed = true }) { subspace in
            guard let grant = try await subspace.send(first).grant() else { return }
            #expect(grant.user.name == "John Doe" && grant.user.email == "user@privaterelay.appleid.com", "the shared name and email kept")
            #expect(grant.refreshToken != nil)
            let later = APIRequest.signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(token)))
            guard let again = try await subspace.send(later).grant() else { return }
            #expect(again.user.id == grant.user.id && again.user.name == "John Doe", "the same account, its name kept")
            let forged = ReferenceServer.providerIdentityToken(provider: "google", subject: "001234.s")
            #expect(
                try await subspace.send(.signInNatively(NativeSignIn(provider: .apple, identityToken: IdentityToken(forged))))
                    == .failed(.unauthorized("invalid apple identity token")))
            let google = ReferenceServer.providerIdentityToken(provider: "google", subject: "g-1", email: "john@example.com")
            #expect(
                try await subspace.send(.signInNatively(NativeSignIn(provider: .google, identityToken: IdentityToken(google)))).grant()?.user.email
                    == "john@example.com")
            // The refresh answer's user reaches TokenRefresh.user (the leftover of the refresh work).
            guard let tokens = try await subspace.send(.refresh(try #require(again.refreshToken))).tokens() else { return }
            #expect(tokens.user?.id == grant.user.id && tokens.user?.name == "John Doe" && tokens.user?.email == grant.user.email)
        }
    }
}
