import Foundation
import ReferenceBackend
import Testing

@Suite("VynqTalk contract", .timeLimit(.minutes(15)))
struct VynqTalkTests {
    static let alice = ["name": "Alice", "email": "alice@example.com", "password": "password123"]

    @Test("signup and login answer the {success,data,message} envelope with accessToken and user")
    func signupAndLogin() async throws {
        try await withServer([.vynqTalk]) { server in
            let vynq = client(server, .vynqTalk)
            let signup = try await vynq.post("/auth/signup", Self.alice)
            #expect(signup.status == 200)
            #expect(signup.keys == ["data", "message", "success"])
            #expect(signup.bool("success") == true)
            #expect(signup.string("data", "user", "email") == "alice@example.com")
            let login = try await vynq.post("/auth/login", ["email": "alice@example.com", "password": "password123"])
            #expect(login.status == 200)
            let token = try #require(login.string("data", "accessToken"))
            let users = try await vynq.get("/users", bearer: token)
            #expect(users.status == 200)
            #expect((users.value("data") as? [Any])?.count == 1)
            let search = try await vynq.get("/users/search?query=ali", bearer: token)
            #expect((search.value("data") as? [Any])?.count == 1)
        }
    }

    @Test(
        "the app's own refusals answer the envelope with success false, the HTTP status and the message to show",
        arguments: [
            ("/auth/login", ["email": "alice@example.com", "password": "wrong"], 401, "Invalid email or password"),
            (
                "/auth/signup", ["name": "Alice", "email": "alice@example.com", "password": "password123"], 409,
                "A user with this email already exists"
            ),
        ])
    func refusals(path: String, body: [String: String], status: Int, message: String) async throws {
        try await withServer([.vynqTalk]) { server in
            let vynq = client(server, .vynqTalk)
            _ = try await vynq.post("/auth/signup", Self.alice)
            let answer = try await vynq.post(path, body)
            #expect(answer.status == status)
            #expect(answer.keys == ["data", "message", "success"])
            #expect(answer.bool("success") == false)
            #expect(answer.value("data") is NSNull)
            #expect(answer.string("message") == message)
        }
    }

    @Test(
        "framework errors (input validation) use Vapor's {error: true, reason} body with the HTTP status",
        arguments: [
            ("/auth/signup", ["name": "Bob", "email": "bob@example.com", "password": "short"], 400),
            ("/auth/signup", ["email": "bob@example.com"], 400),
        ])
    func errors(path: String, body: [String: String], status: Int) async throws {
        try await withServer([.vynqTalk]) { server in
            let vynq = client(server, .vynqTalk)
            _ = try await vynq.post("/auth/signup", Self.alice)
            let answer = try await vynq.post(path, body)
            #expect(answer.status == status)
            #expect(answer.bool("error") == true)
            #expect(answer.string("reason") != nil)
        }
    }

    @Test("a protected endpoint answers 401 for a missing, forged or expired token")
    func protectedEndpoint() async throws {
        try await withServer([.vynqTalk]) { server in
            let vynq = client(server, .vynqTalk)
            #expect(try await vynq.get("/users").status == 401)
            #expect(try await vynq.get("/users", bearer: "forged").status == 401)
            let signup = try await vynq.post("/auth/signup", Self.alice)
            server.advanceClock(by: 3601)
            let expired = try await vynq.get("/users", bearer: signup.string("data", "accessToken"))
            #expect(expired.status == 401)
            #expect(expired.string("reason") == "Token expired")
        }
    }

    @Test("the successFalse fault answers HTTP 200 with success false and a message")
    func successFalse() async throws {
        try await withServer([.vynqTalk]) { server in
            server.inject(.successFalse(message: "Something went wrong"), path: "/auth/login", times: 1)
            let vynq = client(server, .vynqTalk)
            let answer = try await vynq.post("/auth/login", ["email": "a@example.com", "password": "password123"])
            #expect(answer.status == 200)
            #expect(answer.bool("success") == false)
            #expect(answer.value("data") is NSNull)
            #expect(answer.string("message") == "Something went wrong")
        }
    }
}
