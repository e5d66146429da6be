import Foundation
import ReferenceBackend
import Testing

@Suite("Fault injection", .timeLimit(.minutes(15)))
struct FaultTests {
    static let login = "/api/v1/auth/login"
    static let credentials = ["email": "admin@subspace.dev", "password": "admin123"]

    /// An approved Everday user's first refresh token.
    private func everdayRefreshToken(_ server: ReferenceServer) async throws -> String {
        let everday = client(server, .everday)
        _ = try await everday.post("/api/auth/register", ["Username": "kid", "Password": "Passw0rd!123"])
        server.approve(username: "kid")
        let login = try await everday.post("/api/auth/login", ["Username": "kid", "Password": "Passw0rd!123"])
        return try #require(login.string("RefreshToken"))
    }

    @Test("latency delays the answer, then the request is handled")
    func latency() async throws {
        try await withServer([.subspace]) { server in
            server.inject(.latency(0.3), path: Self.login, times: 1)
            let started = Date()
            let answer = try await client(server, .subspace).post(Self.login, Self.credentials)
            #expect(answer.status == 200)
            #expect(Date().timeIntervalSince(started) >= 0.3)
        }
    }

    @Test("dropping before commit loses the request: the refresh token is still unused")
    func dropBeforeCommit() async throws {
        try await withServer([.everday]) { server in
            let token = try await everdayRefreshToken(server)
            server.inject(.dropBeforeCommit, path: "/api/auth/refresh", times: 1)
            await #expect(throws: (any Error).self) {
                try await client(server, .everday).post("/api/auth/refresh", ["RefreshToken": token])
            }
            let retry = try await client(server, .everday).post("/api/auth/refresh", ["RefreshToken": token])
            #expect(retry.status == 200)
            #expect(server.ledger.reuseDetections.isEmpty)
        }
    }

    @Test(
        "dropping after commit rotates the token but loses the answer, so the retry is reuse",
        arguments: [
            Fault.dropAfterCommit, Fault.truncatedBody,
        ])
    func answerLostAfterCommit(fault: Fault) async throws {
        try await withServer([.everday]) { server in
            let token = try await everdayRefreshToken(server)
            server.inject(fault, path: "/api/auth/refresh", times: 1)
            await #expect(throws: (any Error).self) {
                try await client(server, .everday).post("/api/auth/refresh", ["RefreshToken": token])
            }
            let retry = try await client(server, .everday).post("/api/auth/refresh", ["RefreshToken": token])
            #expect(retry.status == 401)
            #expect(server.ledger.reuseDetections.count == 1)
            #expect(server.ledger.requests("POST", "/api/auth/refresh") == 2)
        }
    }

    @Test("server errors answer the status in the backend's envelope", arguments: [500, 502, 503])
    func serverError(status: Int) async throws {
        try await withServer([.subspace]) { server in
            server.inject(.serverError(status: status), path: Self.login, times: 1)
            let subspace = client(server, .subspace)
            let faulted = try await subspace.post(Self.login, Self.credentials)
            #expect(faulted.status == status)
            #expect(faulted.string("error") != nil)
            #expect(try await subspace.post(Self.login, Self.credentials).status == 200)
        }
    }

    @Test("rateLimited answers 429 with Retry-After")
    func rateLimited() async throws {
        try await withServer([.hero365]) { server in
            server.inject(.rateLimited(retryAfter: 7), path: nil, times: 1)
            let answer = try await client(server, .hero365).post("/api/v1/auth/signin", ["email": "a@b.co", "password": "x"])
            #expect(answer.status == 429)
            #expect(answer.headers["retry-after"] == "7")
            #expect(answer.string("detail") != nil)
        }
    }

    @Test("malformedJSON answers 200 with a JSON content type and a body that does not parse")
    func malformedJSON() async throws {
        try await withServer([.subspace]) { server in
            server.inject(.malformedJSON, path: Self.login, times: 1)
            let answer = try await client(server, .subspace).post(Self.login, Self.credentials)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(answer.json == nil)
        }
    }

    @Test("wrongContentType answers an HTML page")
    func wrongContentType() async throws {
        try await withServer([.subspace]) { server in
            server.inject(.wrongContentType, path: Self.login, times: 1)
            let answer = try await client(server, .subspace).post(Self.login, Self.credentials)
            #expect(answer.status == 200)
            #expect(answer.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(answer.text.contains("<html>"))
        }
    }

    @Test("a slow trickle past the client's timeout makes it give up; a quick one arrives whole")
    func slowTrickle() async throws {
        try await withServer([.subspace]) { server in
            server.inject(.slowTrickle(interval: 1), path: "/health", times: 1)
            await #expect(throws: (any Error).self) {
                try await client(server, .subspace, timeout: 0.3).get("/health")
            }
            server.inject(.slowTrickle(interval: 0.002), path: "/health", times: 1)
            let whole = try await client(server, .subspace).get("/health")
            #expect(whole.string("status") == "healthy")
        }
    }

    @Test("a fault without a count applies to every matching request until cleared")
    func persistentFault() async throws {
        try await withServer([.subspace]) { server async throws in
            server.inject(.serverError(status: 503), path: "/health")
            let subspace = client(server, .subspace)
            for _ in 0..<3 {
                #expect(try await subspace.get("/health").status == 503)
            }
            #expect(try await subspace.post(Self.login, Self.credentials).status == 200)
            server.clearFaults()
            #expect(try await subspace.get("/health").status == 200)
        }
    }

    @Test("faults are installed and cleared over HTTP at /__dev/faults, paths with the backend prefix")
    func faultsOverHTTP() async throws {
        try await withServer { server in
            let dev = TestClient(server.rootURL)
            let installed = try await dev.send(
                "POST", "/__dev/faults",
                raw: Data(#"{"fault":"serverError","status":503,"path":"/subspace/health","times":2}"#.utf8))
            #expect(installed.status == 200)
            let subspace = client(server, .subspace)
            #expect(try await subspace.get("/health").status == 503)
            _ = try await dev.send("DELETE", "/__dev/faults")
            #expect(try await subspace.get("/health").status == 200)
            let unknown = try await dev.send("POST", "/__dev/faults", raw: Data(#"{"fault":"gremlins"}"#.utf8))
            #expect(unknown.status == 400)
        }
    }
}
