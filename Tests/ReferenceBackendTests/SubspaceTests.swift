import Foundation
import ReferenceBackend
import Testing

@Suite("Subspace contract", .timeLimit(.minutes(15)))
struct SubspaceTests {
    static let john = ["name": "John Doe", "email": "john@example.com", "password": "password123"]

    @Test("register answers 201 with a token at once; login and /auth/me restore the session")
    func registerLoginMe() async throws {
        try await withServer([.subspace]) { server in
            let subspace = client(server, .subspace)
            let registered = try await subspace.post("/api/v1/auth/register", Self.john)
            #expect(registered.status == 201)
            #expect(registered.keys == ["token", "user"])
            #expect(registered.string("user", "email") == "john@example.com")
            #expect(registered.string("user", "createdAt")?.hasSuffix("Z") == true)
            #expect(registered.string("user", "updatedAt") != nil)
            let token = try #require(registered.string("token"))
            let claims = try #require(jwtClaims(token))
            #expect(claims["user_id"] as? String == registered.string("user", "id"))
            #expect(claims["email"] as? String == "john@example.com")
            let exp = try #require(claims["exp"] as? Int)
            let iat = try #require(claims["iat"] as? Int)
            #expect(exp - iat == 24 * 3600)

            let login = try await subspace.post("/api/v1/auth/login", ["email": "john@example.com", "password": "password123"])
            #expect(login.status == 200)
            let me = try await subspace.get("/api/v1/auth/me", bearer: login.string("token"))
            #expect(me.status == 200)
            #expect(me.string("name") == "John Doe")
        }
    }

    @Test(
        "documented errors come in the {error} envelope",
        arguments: [
            (["name": "A", "email": "not-an-email", "password": "password123"], 400, "invalid email format"),
            (["name": "A", "email": "a@example.com", "password": "short"], 400, "password must be at least 8 characters"),
            (["name": "Admin", "email": "admin@subspace.dev", "password": "password123"], 409, "email already exists"),
        ])
    func registerErrors(body: [String: String], status: Int, message: String) async throws {
        try await withServer([.subspace]) { server in
            let answer = try await client(server, .subspace).post("/api/v1/auth/register", body)
            #expect(answer.status == status)
            #expect(answer.string("error") == message)
        }
    }

    @Test("wrong credentials are 401 invalid credentials; the seeded test account signs in")
    func credentials() async throws {
        try await withServer([.subspace]) { server in
            let subspace = client(server, .subspace)
            let wrong = try await subspace.post("/api/v1/auth/login", ["email": "admin@subspace.dev", "password": "nope"])
            #expect(wrong.status == 401)
            #expect(wrong.string("error") == "invalid credentials")
            let seeded = try await subspace.post("/api/v1/auth/login", ["email": "test@subspace.dev", "password": "admin123"])
            #expect(seeded.status == 200)
        }
    }

    @Test("/auth/me answers 401 without a token, with a forged one, and after 24 hours")
    func meRefusals() async throws {
        try await withServer([.subspace]) { server in
            let subspace = client(server, .subspace)
            let missing = try await subspace.get("/api/v1/auth/me")
            #expect(missing.status == 401)
            let forged = try await subspace.get("/api/v1/auth/me", bearer: "eyJ.eyJ.sig")
            #expect(forged.status == 401)
            let registered = try await subspace.post("/api/v1/auth/register", Self.john)
            server.advanceClock(by: 24 * 3600 + 1)
            let expired = try await subspace.get("/api/v1/auth/me", bearer: registered.string("token"))
            #expect(expired.status == 401)
            #expect(expired.string("error") == "token has expired")
        }
    }

    @Test("/health answers healthy with a timestamp")
    func health() async throws {
        try await withServer([.subspace]) { server in
            let health = try await client(server, .subspace).get("/health")
            #expect(health.status == 200)
            #expect(health.string("status") == "healthy")
            #expect(health.string("timestamp") != nil)
        }
    }

    @Test("past the rate limit requests get 429 with Retry-After until the window passes")
    func rateLimit() async throws {
        let clock = ManualClock()
        var configuration = Configuration()
        configuration.clock = { clock.now }
        configuration.subspace.rateLimit = 3
        try await withServer([.subspace], configuration: configuration) { server in
            let subspace = client(server, .subspace)
            for _ in 0..<3 {
                #expect(try await subspace.get("/health").status == 200)
            }
            let limited = try await subspace.get("/health")
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "60")
            #expect(limited.string("error") == "rate limit exceeded")
            server.advanceClock(by: 60)
            #expect(try await subspace.get("/health").status == 200)
        }
    }

    @Test(
        "the document's server serves no native sign-in (404); the deployed one signs in at /auth/apple and /auth/google, creating the account with the shared name and email once, as login answers"
    )
    func nativeSignInAsDeployed() async throws {
        let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.s")
        func body(_ fields: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: fields) }
        let first = try body([
            "userId": "001234.s", "identityToken": token, "authorizationCode": "code-1", "email": "User@PrivateRelay.AppleID.com",
            "fullName": ["givenName": "John", "familyName": "Doe"],
        ])
        try await withServer([.subspace]) { server in
            let answer = try await client(server, .subspace).send("POST", "/api/v1/auth/apple", raw: first)
            #expect(answer.status == 404)
        }
        var configuration = Configuration()
        configuration.subspace.deployed = true
        try await withServer([.subspace], configuration: configuration) { server in
            let subspace = client(server, .subspace)
            let created = try await subspace.send("POST", "/api/v1/auth/apple", raw: first)
            #expect(created.status == 200 && created.keys == ["accessToken", "refreshToken", "user"])
            #expect(created.string("user", "name") == "John Doe" && created.string("user", "email") == "user@privaterelay.appleid.com")
            let again = try await subspace.send("POST", "/api/v1/auth/apple", raw: try body(["identityToken": token]))
            #expect(again.status == 200 && again.string("user", "id") == created.string("user", "id"), "found by the token's sub")
            #expect(again.string("user", "name") == "John Doe")
            let me = try await subspace.get("/api/v1/auth/me", bearer: again.string("accessToken"))
            #expect(me.status == 200 && me.string("email") == "user@privaterelay.appleid.com")

            let mismatched = try await subspace.send("POST", "/api/v1/auth/apple", raw: try body(["userId": "001234.t", "identityToken": token]))
            #expect(mismatched.status == 401 && mismatched.string("message") == "invalid apple identity token")
            let foreign = ReferenceServer.providerIdentityToken(provider: "google", subject: "001234.s", email: "a@example.com")
            #expect(try await subspace.send("POST", "/api/v1/auth/apple", raw: try body(["identityToken": foreign])).status == 401)
            #expect(try await subspace.send("POST", "/api/v1/auth/apple", raw: try body(["userId": "x"])).status == 400)
            let noEmail = ReferenceServer.providerIdentityToken(provider: "google", subject: "g-2")
            #expect(try await subspace.send("POST", "/api/v1/auth/google", raw: try body(["identityToken": noEmail])).status == 400)

            // A Google account found by email: the registered one, whose password still signs in.
            let registered = try await subspace.post("/api/v1/auth/register", Self.john)
            let google = ReferenceServer.providerIdentityToken(provider: "google", subject: "g-1", email: "john@example.com")
            let linked = try await subspace.send("POST", "/api/v1/auth/google", raw: try body(["identityToken": google]))
            #expect(linked.string("user", "id") == registered.string("user", "id") && linked.string("user", "name") == "John Doe")
            // An account made natively has no password: an empty one does not sign in to it.
            let empty = try await subspace.post("/api/v1/auth/login", ["email": "user@privaterelay.appleid.com", "password": ""])
            #expect(empty.status == 401)
        }
    }
}
