import Foundation
import ReferenceBackend
import Testing

@Suite("Mounting, dev endpoints and ledger", .timeLimit(.minutes(15)))
struct DevAndLayoutTests {
    static let documentedProbe: [(ServedBackend, String, String)] = [
        (.anonymousWall, "POST", "/api/v1/auth/login/password"),
        (.vynqTalk, "POST", "/auth/login"),
        (.everday, "POST", "/api/auth/login"),
        (.subspace, "POST", "/api/v1/auth/login"),
        (.hero365, "POST", "/api/v1/auth/signin"),
    ]

    @Test("mounted together, each backend answers its documented paths under its prefix", arguments: documentedProbe)
    func mountedTogether(backend: ServedBackend, method: String, path: String) async throws {
        try await withServer { server in
            #expect(server.baseURL(for: backend).path == backend.pathPrefix)
            let answer = try await client(server, backend).send(method, path, json: [:])
            #expect(answer.status != 404)
            #expect(answer.status != 405)
            #expect(server.ledger.requests(method, path, on: backend) == 1)
        }
    }

    @Test("mounted alone, a backend answers its documented paths at the root", arguments: documentedProbe)
    func mountedAlone(backend: ServedBackend, method: String, path: String) async throws {
        try await withServer([backend]) { server in
            #expect(server.baseURL(for: backend).path.isEmpty)
            let answer = try await TestClient(server.rootURL).send(method, path, json: [:])
            #expect(answer.status != 404)
            let prefixed = try await TestClient(server.rootURL).send(method, backend.pathPrefix + path, json: [:])
            #expect(prefixed.status == 404)
        }
    }

    @Test("the outbox is readable over HTTP at /__dev/outbox")
    func outboxOverHTTP() async throws {
        try await withServer { server in
            _ = try await client(server, .hero365).post("/api/v1/auth/otp/send", ["phone": "+15550001111"])
            let outbox = try await TestClient(server.rootURL).get("/__dev/outbox?to=%2B15550001111")
            let messages = try #require(outbox.json as? [[String: Any]])
            #expect(messages.count == 1)
            #expect(messages.first?["kind"] as? String == "otp")
            #expect(messages.first?["code"] as? String == server.outbox(to: "+15550001111").first?.code)
            let literalPlus = try await TestClient(server.rootURL).get("/__dev/outbox?to=+15550001111")
            #expect((literalPlus.json as? [[String: Any]])?.count == 1)
        }
    }

    @Test("the clock moves forward over HTTP at /__dev/clock")
    func clockOverHTTP() async throws {
        let clock = ManualClock()
        var configuration = Configuration()
        configuration.clock = { clock.now }
        try await withServer(configuration: configuration) { server in
            let before = server.now
            let moved = try await TestClient(server.rootURL).send("POST", "/__dev/clock", raw: Data(#"{"advanceBy": 90}"#.utf8))
            #expect(moved.status == 200)
            #expect(server.now.timeIntervalSince(before) == 90)
            clock.advance(10)
            #expect(server.now.timeIntervalSince(before) == 100)
        }
    }

    @Test("printing a configuration never shows the seeded parent's password")
    func configurationRedacted() {
        let configuration = Configuration()
        let password = configuration.everday.parent.password
        #expect(!String(describing: configuration).contains(password))
        #expect(!String(reflecting: configuration).contains(password))
    }

    @Test("the ledger counts requests per endpoint template and never prints a token")
    func ledgerCounts() async throws {
        try await withServer { server in
            let everday = client(server, .everday)
            _ = try await everday.send("PUT", "/api/settings/users/7/approve")
            _ = try await everday.send("PUT", "/api/settings/users/8/approve")
            _ = try await everday.post("/api/auth/refresh", ["RefreshToken": "secret-token-value"])
            let ledger = server.ledger
            #expect(ledger.requests("PUT", "/api/settings/users/{user_id}/approve") == 2)
            #expect(ledger.refreshTokensPresented == ["secret-token-value"])
            #expect(!ledger.description.contains("secret-token-value"))
            #expect(!String(reflecting: ledger).contains("secret-token-value"))
        }
    }
}
