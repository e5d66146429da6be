import Foundation
import ReferenceBackend
import Testing

@Suite("Everday contract", .timeLimit(.minutes(15)))
struct EverdayTests {
    static let pending = "Account pending approval. A parent must approve this account before sign in."
    static let newKid = [
        "Username": "newkid", "Password": "Passw0rd!123", "FirstName": "New", "LastName": "Kid",
        "Email": "newkid@example.com", "DiscordHandle": "newkid#1234",
    ]

    /// Registers `newkid`, approves it through the test API and signs in.
    private func signedIn(_ everday: TestClient, _ server: ReferenceServer) async throws -> Answer {
        _ = try await everday.post("/api/auth/register", Self.newKid)
        server.approve(username: "newkid")
        return try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
    }

    @Test("registration is pending until a parent approves, then login returns the documented token response")
    func approvalGatedRegistration() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let registered = try await everday.post("/api/auth/register", Self.newKid)
            #expect(registered.status == 200)
            #expect(registered.string("Status") == "PendingApproval")
            #expect(registered.string("Message") == "Account request submitted. A parent must approve this account before sign in.")

            let early = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
            #expect(early.status == 403)
            #expect(early.string("detail") == Self.pending)

            let parent = try await everday.post("/api/auth/login", ["Username": "parent", "Password": "ParentPassw0rd!"])
            #expect(parent.string("Role") == "Parent")
            let id = try #require(server.everdayUserID(username: "newkid"))
            let approved = try await everday.send("PUT", "/api/settings/users/\(id)/approve", bearer: parent.string("AccessToken"))
            #expect(approved.status == 200)
            #expect(approved.bool("IsApproved") == true)

            let login = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
            #expect(login.status == 200)
            #expect(
                login.keys == [
                    "AccessToken", "DiscordHandle", "Email", "ExpiresIn", "FirstName", "LastName",
                    "RefreshToken", "RequirePasswordChange", "Role", "TokenType", "Username",
                ])
            #expect(login.string("TokenType") == "bearer")
            #expect(login.int("ExpiresIn") == 1800)
            #expect(login.string("Role") == "Kid")
            #expect(login.bool("RequirePasswordChange") == false)
            #expect(login.string("DiscordHandle") == "newkid#1234")
            let claims = try #require(jwtClaims(login.string("AccessToken") ?? ""))
            #expect(claims["exp"] is Int)
            #expect(claims["iat"] is Int)
        }
    }

    @Test("the dev endpoints approve a pending account and withdraw the approval again; an unknown username is 404")
    func devApproval() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let dev = TestClient(server.rootURL)
            _ = try await everday.post("/api/auth/register", Self.newKid)
            let login = ["Username": "newkid", "Password": "Passw0rd!123"]
            #expect(try await dev.post("/__dev/everday/approve", ["username": "newkid"]).status == 200)
            let signedIn = try await everday.post("/api/auth/login", login)
            #expect(signedIn.status == 200)
            #expect(try await dev.post("/__dev/everday/unapprove", ["username": "newkid"]).bool("approved") == false)
            let refresh = try await everday.post("/api/auth/refresh", ["RefreshToken": signedIn.string("RefreshToken") ?? ""])
            #expect(refresh.status == 403)
            #expect(refresh.string("detail") == Self.pending)
            #expect(try await everday.post("/api/auth/login", login).status == 403)
            #expect(try await dev.post("/__dev/everday/unapprove", ["username": "nobody"]).status == 404)
        }
    }

    @Test("approval needs a Parent's bearer token and an existing user")
    func approvalErrors() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let kid = try await signedIn(everday, server)
            let id = try #require(server.everdayUserID(username: "newkid"))
            let anonymous = try await everday.send("PUT", "/api/settings/users/\(id)/approve")
            #expect(anonymous.status == 401)
            let byKid = try await everday.send("PUT", "/api/settings/users/\(id)/approve", bearer: kid.string("AccessToken"))
            #expect(byKid.status == 403)
            let parent = try await everday.post("/api/auth/login", ["Username": "parent", "Password": "ParentPassw0rd!"])
            let missing = try await everday.send("PUT", "/api/settings/users/999/approve", bearer: parent.string("AccessToken"))
            #expect(missing.status == 404)
            #expect(missing.string("detail") == "User not found.")
        }
    }

    @Test(
        "registration and login refusals use the documented statuses",
        arguments: [
            ("/api/auth/register", ["Username": "x"], 400),
            ("/api/auth/register", ["Username": "parent", "Password": "whatever1"], 409),
            ("/api/auth/login", ["Username": "parent", "Password": "wrong"], 401),
            ("/api/auth/login", ["Username": "nobody", "Password": "wrong"], 401),
            ("/api/auth/refresh", ["RefreshToken": "never-issued"], 401),
        ])
    func refusals(path: String, body: [String: String], status: Int) async throws {
        try await withServer([.everday]) { server in
            let answer = try await client(server, .everday).post(path, body)
            #expect(answer.status == status)
            #expect(answer.string("detail") != nil)
        }
    }

    @Test("refresh rotates: the presented token is consumed and a new pair returned")
    func refreshRotates() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let login = try await signedIn(everday, server)
            let first = try #require(login.string("RefreshToken"))
            let rotated = try await everday.post("/api/auth/refresh", ["RefreshToken": first])
            #expect(rotated.status == 200)
            let second = try #require(rotated.string("RefreshToken"))
            #expect(second != first)
            #expect(rotated.string("AccessToken") != login.string("AccessToken"))
            #expect(rotated.string("Username") == "newkid")
            let again = try await everday.post("/api/auth/refresh", ["RefreshToken": second])
            #expect(again.status == 200)
            #expect(server.ledger.refreshTokensPresented == [first, second])
            #expect(server.ledger.reuseDetections.isEmpty)
        }
    }

    @Test("replaying a consumed refresh token revokes the whole family, and the ledger shows it")
    func reuseDetection() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let login = try await signedIn(everday, server)
            let first = try #require(login.string("RefreshToken"))
            let rotated = try await everday.post("/api/auth/refresh", ["RefreshToken": first])
            let second = try #require(rotated.string("RefreshToken"))

            let replay = try await everday.post("/api/auth/refresh", ["RefreshToken": first])
            #expect(replay.status == 401)
            let descendant = try await everday.post("/api/auth/refresh", ["RefreshToken": second])
            #expect(descendant.status == 401)
            let access = try await everday.post("/api/auth/logout", ["RefreshToken": second], bearer: rotated.string("AccessToken"))
            #expect(access.status == 401)

            let ledger = server.ledger
            #expect(ledger.refreshTokensPresented == [first, first, second])
            #expect(ledger.reuseDetections.count == 1)
            #expect(ledger.familiesRevoked == ledger.reuseDetections)
            #expect(ledger.requests("POST", "/api/auth/refresh", on: .everday) == 3)
            #expect(!ledger.description.contains(first))

            let otherSession = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
            let unaffected = try await everday.post("/api/auth/refresh", ["RefreshToken": otherSession.string("RefreshToken") ?? ""])
            #expect(unaffected.status == 200)
        }
    }

    @Test("logout revokes the refresh token's session and needs a bearer token")
    func logout() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            let login = try await signedIn(everday, server)
            let refresh = try #require(login.string("RefreshToken"))
            let anonymous = try await everday.post("/api/auth/logout", ["RefreshToken": refresh])
            #expect(anonymous.status == 401)
            let out = try await everday.post("/api/auth/logout", ["RefreshToken": refresh], bearer: login.string("AccessToken"))
            #expect(out.status == 200)
            let after = try await everday.post("/api/auth/refresh", ["RefreshToken": refresh])
            #expect(after.status == 401)
            #expect(server.ledger.sessionsRevoked.count == 1)
        }
    }

    @Test("forgot delivers a reset token to the outbox; reset-password sets the password once")
    func passwordReset() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            _ = try await signedIn(everday, server)
            server.setRequirePasswordChange(username: "newkid", true)
            let forgot = try await everday.post("/api/auth/forgot", ["Identifier": "newkid"])
            #expect(forgot.status == 200)
            let message = try #require(server.outbox(to: "newkid@example.com").last)
            #expect(message.kind == .passwordResetToken)
            let token = try #require(message.code)
            #expect(!message.description.contains(token))

            let reset = try await everday.post("/api/auth/reset-password", ["Token": token, "NewPassword": "N3wPassw0rd!"])
            #expect(reset.status == 200)
            let replay = try await everday.post("/api/auth/reset-password", ["Token": token, "NewPassword": "Other1234!"])
            #expect(replay.status == 400)
            let old = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
            #expect(old.status == 401)
            let fresh = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "N3wPassw0rd!"])
            #expect(fresh.status == 200)
            #expect(fresh.bool("RequirePasswordChange") == false)

            let byEmail = try await everday.post("/api/auth/forgot", ["Identifier": "NEWKID@example.com"])
            #expect(byEmail.status == 200)
            #expect(server.outbox(to: "newkid@example.com").count == 2)
        }
    }

    @Test("RequirePasswordChange is settable per user and reported by login")
    func requirePasswordChange() async throws {
        try await withServer([.everday]) { server in
            let everday = client(server, .everday)
            _ = try await signedIn(everday, server)
            #expect(server.setRequirePasswordChange(username: "newkid", true))
            let login = try await everday.post("/api/auth/login", ["Username": "newkid", "Password": "Passw0rd!123"])
            #expect(login.bool("RequirePasswordChange") == true)
            #expect(!server.setRequirePasswordChange(username: "ghost", true))
        }
    }

    @Test("access tokens expire by the server clock; ExpiresIn follows the configuration")
    func accessTokenExpiry() async throws {
        var configuration = Configuration()
        configuration.everday.tokens.accessTokenLifetime = 60
        try await withServer([.everday], configuration: configuration) { server in
            let everday = client(server, .everday)
            let login = try await signedIn(everday, server)
            #expect(login.int("ExpiresIn") == 60)
            server.advanceClock(by: 61)
            let out = try await everday.post(
                "/api/auth/logout", ["RefreshToken": login.string("RefreshToken") ?? ""],
                bearer: login.string("AccessToken"))
            #expect(out.status == 401)
            let refreshed = try await everday.post("/api/auth/refresh", ["RefreshToken": login.string("RefreshToken") ?? ""])
            #expect(refreshed.status == 200)
        }
    }

    @Test("tokens can be issued without an exp claim so clients face an unknown expiry")
    func noExpiryClaim() async throws {
        var configuration = Configuration()
        configuration.everday.tokens.includesExpiryClaim = false
        try await withServer([.everday], configuration: configuration) { server in
            let login = try await signedIn(client(server, .everday), server)
            let claims = try #require(jwtClaims(login.string("AccessToken") ?? ""))
            #expect(claims["exp"] == nil)
            #expect(claims["sub"] is String)
        }
    }
}
