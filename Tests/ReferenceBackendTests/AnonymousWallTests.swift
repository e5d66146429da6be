import Foundation
import ReferenceBackend
import Testing

@Suite("Anonymous Wall contract", .timeLimit(.minutes(15)))
struct AnonymousWallTests {
    static let email = "student@harvard.edu"

    /// Sends a code for `purpose` and returns it from the outbox.
    private func code(_ wall: TestClient, _ server: ReferenceServer, _ email: String, purpose: String) async throws -> String {
        let sent = try await wall.post("/api/v1/auth/email/send-code", ["email": email, "purpose": purpose])
        #expect(sent.status == 200)
        return try #require(server.outbox(to: email).last?.code)
    }

    /// Registers `email` by code and returns the answer.
    private func register(_ wall: TestClient, _ server: ReferenceServer, _ email: String = email) async throws -> Answer {
        let code = try await code(wall, server, email, purpose: "register")
        return try await wall.post("/api/v1/auth/register/email", ["email": email, "code": code])
    }

    @Test("registration by code signs in with passwordSet false, then the password is set and used")
    func registerThenSetPassword() async throws {
        try await withServer([.anonymousWall]) { server in
            let wall = client(server, .anonymousWall)
            let registered = try await register(wall, server)
            #expect(registered.status == 201)
            #expect(registered.bool("user", "passwordSet") == false)
            #expect(registered.bool("user", "isVerified") == true)
            #expect(registered.string("user", "createdAt")?.hasSuffix("[America/Los_Angeles]") == true)
            let token = try #require(registered.string("accessToken"))
            let id = try #require(registered.string("user", "id"))

            let set = try await wall.post(
                "/api/v1/auth/password/set", ["password": "mySecurePassword123"],
                bearer: token, headers: ["X-User-ID": id])
            #expect(set.status == 200)
            #expect(set.bool("passwordSet") == true)

            let login = try await wall.post("/api/v1/auth/login/password", ["email": Self.email, "password": "mySecurePassword123"])
            #expect(login.status == 200)
            #expect(login.string("user", "id") == id)
        }
    }

    @Test("password set and change need the bearer token and a matching X-User-Id")
    func protectedPasswordEndpoints() async throws {
        try await withServer([.anonymousWall]) { server in
            let wall = client(server, .anonymousWall)
            let registered = try await register(wall, server)
            let token = try #require(registered.string("accessToken"))
            let id = try #require(registered.string("user", "id"))
            let noToken = try await wall.post("/api/v1/auth/password/set", ["password": "longenough1"], headers: ["X-User-Id": id])
            #expect(noToken.status == 401)
            let otherUser = try await wall.post(
                "/api/v1/auth/password/set", ["password": "longenough1"],
                bearer: token, headers: ["X-User-Id": "someone-else"])
            #expect(otherUser.status == 403)
            let short = try await wall.post("/api/v1/auth/password/set", ["password": "short"], bearer: token, headers: ["x-user-id": id])
            #expect(short.status == 400)
            _ = try await wall.post("/api/v1/auth/password/set", ["password": "firstPassw0rd"], bearer: token, headers: ["X-User-Id": id])

            let wrongOld = try await wall.post(
                "/api/v1/auth/password/change", ["oldPassword": "nope", "newPassword": "secondPassw0rd"],
                bearer: token, headers: ["X-User-Id": id])
            #expect(wrongOld.status == 400)
            let changed = try await wall.post(
                "/api/v1/auth/password/change",
                ["oldPassword": "firstPassw0rd", "newPassword": "secondPassw0rd"],
                bearer: token, headers: ["X-User-Id": id])
            #expect(changed.status == 200)
            let old = try await wall.post("/api/v1/auth/login/password", ["email": Self.email, "password": "firstPassw0rd"])
            #expect(old.status == 401)
            #expect(old.string("error") != nil)
        }
    }

    @Test("login by code works for a known email and creates the account for an unknown one")
    func loginByCode() async throws {
        try await withServer([.anonymousWall]) { server in
            let wall = client(server, .anonymousWall)
            let code = try await code(wall, server, "new@mit.edu", purpose: "login")
            let login = try await wall.post("/api/v1/auth/login/email", ["email": "new@mit.edu", "code": code])
            #expect(login.status == 200)
            #expect(login.bool("user", "passwordSet") == false)
            let reused = try await wall.post("/api/v1/auth/login/email", ["email": "new@mit.edu", "code": code])
            #expect(reused.status == 400)
        }
    }

    @Test("reset by code sets the new password and signs in automatically")
    func resetAutoLogin() async throws {
        try await withServer([.anonymousWall]) { server in
            let wall = client(server, .anonymousWall)
            _ = try await register(wall, server)
            let requested = try await wall.post("/api/v1/auth/password/reset-request", ["email": Self.email])
            #expect(requested.status == 200)
            let message = try #require(server.outbox(to: Self.email).last)
            #expect(message.kind == .passwordResetCode)
            let reset = try await wall.post(
                "/api/v1/auth/password/reset",
                ["email": Self.email, "code": message.code ?? "", "newPassword": "myNewPassword789"])
            #expect(reset.status == 200)
            #expect(reset.string("accessToken") != nil)
            #expect(reset.string("user", "email") == Self.email)
            let login = try await wall.post("/api/v1/auth/login/password", ["email": Self.email, "password": "myNewPassword789"])
            #expect(login.status == 200)
        }
    }

    @Test("documented refusals: 409 re-registration, 403 non-school domain, 400 wrong or expired code")
    func refusals() async throws {
        try await withServer([.anonymousWall]) { server in
            let wall = client(server, .anonymousWall)
            _ = try await register(wall, server)
            let again = try await wall.post("/api/v1/auth/email/send-code", ["email": Self.email, "purpose": "register"])
            #expect(again.status == 409)
            let gmail = try await wall.post("/api/v1/auth/email/send-code", ["email": "me@gmail.com", "purpose": "register"])
            #expect(gmail.status == 403)
            #expect(gmail.string("error") != nil)
            let badPurpose = try await wall.post("/api/v1/auth/email/send-code", ["email": "x@nyu.edu", "purpose": "party"])
            #expect(badPurpose.status == 400)

            let code = try await code(wall, server, "late@nyu.edu", purpose: "register")
            let wrong = try await wall.post("/api/v1/auth/register/email", ["email": "late@nyu.edu", "code": code == "000000" ? "111111" : "000000"])
            #expect(wrong.status == 400)
            server.advanceClock(by: 601)
            let expired = try await wall.post("/api/v1/auth/register/email", ["email": "late@nyu.edu", "code": code])
            #expect(expired.status == 400)
        }
    }

    @Test("the school allow-list and the date style are configurable")
    func configuration() async throws {
        var configuration = Configuration()
        configuration.anonymousWall.schoolEmailSuffixes = [".ac.uk"]
        configuration.anonymousWall.dateStyle = .iso8601
        try await withServer([.anonymousWall], configuration: configuration) { server in
            let wall = client(server, .anonymousWall)
            let edu = try await wall.post("/api/v1/auth/email/send-code", ["email": "a@harvard.edu", "purpose": "register"])
            #expect(edu.status == 403)
            let registered = try await register(wall, server, "a@ox.ac.uk")
            #expect(registered.status == 201)
            #expect(registered.string("user", "createdAt")?.hasSuffix("Z") == true)
        }
    }
}
