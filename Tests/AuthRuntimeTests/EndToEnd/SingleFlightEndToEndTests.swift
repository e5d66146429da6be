import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// Issue 5's single-flight promise, against the real server: however many protected calls meet
/// an expired access token, the server sees exactly one refresh, and every call is answered
/// with the new token.
@Suite("End to end: single-flight refresh", .timeLimit(.minutes(15)))
struct SingleFlightEndToEndTests {
    static let calls = 1000

    /// How many calls the session holds, all waiting for a token, while one refresh is in flight.
    static func waitingForToken(_ session: SessionLifecycle.Phase?) -> Int {
        guard case .active(let held)? = session, case .refreshing = held.refresh, held.calls.allSatisfy({ $0.stage == .waitingForToken }) else {
            return 0
        }
        return held.calls.count
    }

    /// Makes `count` concurrent calls; once the session holds all of them waiting for the one
    /// refresh (held at the tap until then), lets the refresh go; returns every answer.
    static func concurrentCalls<App: EndToEndApp>(
        _ client: Client<App>, _ request: HTTPRequest, count: Int, release gate: Gate
    ) async -> [Result<HTTPResponse, AuthError>] {
        await withTaskGroup(of: Result<HTTPResponse, AuthError>.self) { group in
            for _ in 0..<count {
                group.addTask { await client.call(request) }
            }
            let machine = client.runner.machine
            let allWaiting = await client.states.waitFor(hangGuard: 60) { states in
                Self.waitingForToken(states.last.map { machine.sessionPhase($0.phase) } ?? nil) == count
            }
            #expect(allWaiting, "every call joins the one refresh")
            gate.open()
            var answers: [Result<HTTPResponse, AuthError>] = []
            for await answer in group { answers.append(answer) }
            return answers
        }
    }

    /// The bearer tokens the protected requests to `path` carried, counted.
    static func bearers(_ stack: EndToEndStack, _ path: String) -> [String: Int] {
        stack.wire.exchanges(to: path).reduce(into: [:]) { counts, exchange in
            counts[exchange.request.headers["Authorization"] ?? "none", default: 0] += 1
        }
    }

    @Test(
        "Everday: 1,000 concurrent calls made with an expired access token wait for the one refresh; the ledger shows exactly one; all are answered with the new token"
    )
    func everday() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let client = await stack.client(Apps.everday(), keepingStates: 1)
            await client.send(EverdayIntents.signIn("parent", "ParentPassw0rd!"))
            let old = try #require(await client.credentials)
            let gate = Gate()
            stack.wire.hold("/auth/refresh", until: gate)
            // The app sleeps through the token's life: on waking, the proactive refresh leaves (and
            // is held) while the access token is expired on both clocks.
            await stack.clock.advance(by: .seconds(1801))
            #expect(stack.server.accessTokenStatus(old.accessToken.reveal()) == .expired)

            let request = try Accounts.protectedRequest(stack)
            let answers = await Self.concurrentCalls(client, request, count: Self.calls, release: gate)
            await client.settle()
            let renewed = try #require(await client.credentials)
            #expect(answers.count == Self.calls)
            #expect(answers.allSatisfy { $0.status == 200 })
            let ledger = stack.server.ledger
            #expect(ledger.requests("POST", "/api/auth/refresh") == 1)
            #expect(ledger.refreshTokensPresented == [try #require(old.refreshToken).reveal()])
            #expect(ledger.requests("PUT", "/api/settings/users/{user_id}/approve") == Self.calls)
            #expect(Self.bearers(stack, request.url.path) == ["Bearer " + renewed.accessToken.reveal(): Self.calls])
            _ = await client.stop()
        }
    }

    @Test(
        "Hero365: 1,000 concurrent calls sent with a token expired on the server (no exp claim) are all refused 401, join one refresh and are replayed once each with the new token"
    )
    func hero365() async throws {
        try await EndToEndStack.with(.hero365, configure: { $0.hero365.tokens.includesExpiryClaim = false }) { stack in
            let client = await stack.client(Apps.hero365(), keepingStates: 1)
            await Accounts.hero365(client, email: "hero@example.com")
            await client.send(Hero365Intents.signIn("hero@example.com", Accounts.password))
            let old = try #require(await client.credentials)
            #expect(old.expiresAt == nil, "expiry unknown: only a 401 tells")
            await client.advance(stack.clock, by: .seconds(8 * 24 * 3600 + 1))
            #expect(stack.server.accessTokenStatus(old.accessToken.reveal()) == .expired)
            let gate = Gate()
            stack.wire.hold("/auth/refresh", until: gate)

            let request = try Accounts.protectedRequest(stack)
            let answers = await Self.concurrentCalls(client, request, count: Self.calls, release: gate)
            await client.settle()
            let renewed = try #require(await client.credentials)
            #expect(answers.count == Self.calls)
            #expect(answers.allSatisfy { $0.status == 200 })
            let ledger = stack.server.ledger
            #expect(ledger.requests("POST", "/api/v1/auth/refresh") == 1)
            #expect(ledger.refreshTokensPresented == [try #require(old.refreshToken).reveal()])
            #expect(ledger.requests("GET", "/api/v1/users/me") == 2 * Self.calls)
            #expect(
                Self.bearers(stack, request.url.path) == [
                    "Bearer " + old.accessToken.reveal(): Self.calls, "Bearer " + renewed.accessToken.reveal(): Self.calls,
                ])
            _ = await client.stop()
        }
    }
}
