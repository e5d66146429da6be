import Foundation
import ReferenceBackend
import Testing

@Suite("Token status inspection", .timeLimit(.minutes(15)))
struct TokenStatusTests {
    @Test("a refresh token is live, then consumed by rotation, revoked by reuse; access tokens expire and die with their session")
    func lifecycleOfTokens() async throws {
        let clock = ManualClock()
        var configuration = Configuration()
        configuration.clock = { clock.now }
        try await withServer([.everday], configuration: configuration) { server in
            let everday = client(server, .everday)
            let parent = try await everday.post("/api/auth/login", ["Username": "parent", "Password": "ParentPassw0rd!"])
            let access = try #require(parent.string("AccessToken"))
            let first = try #require(parent.string("RefreshToken"))
            #expect(server.refreshTokenStatus(first) == .live)
            #expect(server.accessTokenStatus(access) == .live)
            #expect(server.refreshTokenStatus("never-issued") == .unknown)

            let rotated = try await everday.post("/api/auth/refresh", ["RefreshToken": first])
            let second = try #require(rotated.string("RefreshToken"))
            #expect(server.refreshTokenStatus(first) == .consumed)
            #expect(server.refreshTokenStatus(second) == .live)
            #expect(server.ledger.refreshTokensPresented.count == 1, "inspecting presents nothing")

            clock.advance(1801)
            #expect(server.accessTokenStatus(access) == .expired)

            _ = try await everday.post("/api/auth/refresh", ["RefreshToken": first])  // Reuse.
            #expect(server.refreshTokenStatus(first) == .revoked)
            #expect(server.refreshTokenStatus(second) == .revoked)
            #expect(server.accessTokenStatus(access) == .revoked)
        }
    }
}
