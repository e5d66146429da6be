import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// Rotating refresh on the two backends that have it, against the server's real rotation.
@Suite("End to end: rotating refresh", .timeLimit(.minutes(15)))
struct RefreshEndToEndTests {
    static let rotating: [Backend] = [.everday, .hero365]

    /// How many seconds the backend's access tokens live on the reference server.
    static func lifetime(_ backend: Backend) -> Int64 {
        backend == .everday ? 1800 : 8 * 24 * 3600
    }

    /// A signed-in client of a rotating backend (Everday's parent, a fresh Hero365 user).
    static func signedIn(_ stack: EndToEndStack, vault: MemoryVault = MemoryVault()) async throws -> AnyRotatingClient {
        switch stack.backend {
        case .everday:
            let client = await stack.client(Apps.everday(), vault: vault)
            await client.send(EverdayIntents.signIn("parent", "ParentPassw0rd!"))
            return AnyRotatingClient(client)
        case .hero365:
            let client = await stack.client(Apps.hero365(), vault: vault)
            await Accounts.hero365(client, email: "hero@example.com")
            await client.send(Hero365Intents.signIn("hero@example.com", Accounts.password))
            return AnyRotatingClient(client)
        default:  // Anonymous Wall, VynqTalk and Subspace.
            throw Unsupported()
        }
    }

    struct Unsupported: Error {}

    @Test(
        "the proactive refresh fires on the shared clock, rotates the pair and stores it before use; no consumed token is presented again",
        arguments: rotating)
    func proactiveRotation(backend: Backend) async throws {
        try await EndToEndStack.with(backend) { stack in
            let vault = MemoryVault()
            let client = try await Self.signedIn(stack, vault: vault)
            let first = try #require(await client.credentials())
            let r1 = try #require(first.refreshToken).reveal()
            await client.advance(by: .seconds(Self.lifetime(backend) - 61))
            #expect(stack.server.ledger.refreshTokensPresented.isEmpty, "nothing is due before the margin")

            await client.advance(by: .seconds(1))
            #expect(await client.waitFor(.tokenRefreshed))
            let second = try #require(await client.credentials())
            let r2 = try #require(second.refreshToken).reveal()
            #expect(r2 != r1 && second.accessToken != first.accessToken)
            #expect(vault.credentials == second)
            #expect(stack.server.refreshTokenStatus(r1) == .consumed)
            #expect(stack.server.refreshTokenStatus(r2) == .live)
            #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200)
            #expect(stack.wire.exchanges.last?.request.headers["Authorization"] == "Bearer " + second.accessToken.reveal())

            await client.advance(by: .seconds(Self.lifetime(backend)))
            #expect(await client.waitFor(.tokenRefreshed, count: 2))
            #expect(stack.server.ledger.refreshTokensPresented == [r1, r2])
            #expect(stack.server.ledger.reuseDetections.isEmpty)
            #expect(await client.isActive())
            _ = await client.stop()
        }
    }

    @Test(
        "a protected call answered 401 refreshes once and is replayed once with the new token",
        arguments: rotating)
    func unauthorizedThenRefreshThenReplay(backend: Backend) async throws {
        try await EndToEndStack.with(
            backend,
            configure: { configuration in
                configuration.hero365.tokens.includesExpiryClaim = false  // Hero365: expiry unknown, rely on the 401.
            }
        ) { stack in
            let client = try await Self.signedIn(stack)
            let old = try #require(await client.credentials())
            switch backend {
            case .hero365:
                // The token dies on both clocks; the client cannot know (no exp), so no wake-up fires.
                await client.advance(by: .seconds(Self.lifetime(backend) + 1))
            default:
                // The server's clock runs ahead of the client's: the token the client trusts is expired there.
                stack.server.advanceClock(by: 1801)
            }
            #expect(stack.server.accessTokenStatus(old.accessToken.reveal()) == .expired)
            let request = try Accounts.protectedRequest(stack)
            let before = stack.wire.exchanges.count
            #expect(await client.call(request).status == 200)
            let renewed = try #require(await client.credentials())
            let sent = stack.wire.exchanges.dropFirst(before)
            #expect(sent.map { $0.request.url.lastPathComponent } == [request.url.lastPathComponent, "refresh", request.url.lastPathComponent])
            #expect(sent.first?.answer.status == 401)
            #expect(sent.first?.request.headers["Authorization"] == "Bearer " + old.accessToken.reveal())
            #expect(sent.last?.request.headers["Authorization"] == "Bearer " + renewed.accessToken.reveal())
            #expect(stack.server.ledger.refreshTokensPresented == [try #require(old.refreshToken).reveal()])
            _ = await client.stop()
        }
    }

    @Test(
        "Subspace: the document grants no refresh token and the session ends with its token; the deployed server grants one and the session rotates it, single-flight, persisted before use, never reused, and restores",
        arguments: ServerForm.allCases)
    func subspaceRefreshWhenGranted(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.subspace, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.subspace(), vault: vault)
            await Accounts.subspace(client, email: "ada@example.com")
            await client.send(SubspaceIntents.signIn("ada@example.com", Accounts.password))
            let first = try #require(await client.credentials)
            let lifetime: Int64 = 24 * 3600
            guard form == .deployed else {
                #expect(first.refreshToken == nil)
                await client.advance(stack.clock, by: .seconds(lifetime))
                #expect(await client.waitFor(.signedOut(.tokenExpired)), "no refresh token: the session ends with its token")
                #expect(stack.wire.exchanges(to: "/auth/refresh").isEmpty)
                _ = await client.stop()
                return
            }
            let r1 = try #require(first.refreshToken).reveal()
            let gate = Gate()
            stack.wire.hold("/auth/refresh", until: gate)
            await stack.clock.advance(by: .seconds(lifetime - 60))  // Into the margin: the proactive refresh starts, held.
            let request = try Accounts.protectedRequest(stack)
            let answers = await SingleFlightEndToEndTests.concurrentCalls(client, request, count: 20, release: gate)
            await client.settle()
            #expect(answers.allSatisfy { $0.status == 200 })
            #expect(stack.server.ledger.refreshTokensPresented == [r1], "one refresh for twenty calls")
            let second = try #require(await client.credentials)
            let r2 = try #require(second.refreshToken).reveal()
            #expect(r2 != r1 && second.accessToken != first.accessToken)
            #expect(vault.credentials == second, "persisted")
            #expect(SingleFlightEndToEndTests.bearers(stack, "/auth/me")["Bearer " + second.accessToken.reveal()] == 20)
            #expect(stack.server.refreshTokenStatus(r1) == .consumed)
            _ = await client.stop()

            let relaunched = await stack.client(Apps.subspace(), vault: vault)
            await relaunched.settle()
            #expect(await relaunched.isActive, "restored with /auth/me")
            #expect(stack.wire.exchanges(to: "/auth/me").last?.request.headers["Authorization"] == "Bearer " + second.accessToken.reveal())
            await relaunched.advance(stack.clock, by: .seconds(lifetime))
            #expect(await relaunched.waitFor(.tokenRefreshed))
            #expect(stack.server.ledger.refreshTokensPresented == [r1, r2], "each token presented once")
            #expect(stack.server.ledger.reuseDetections.isEmpty)
            #expect(await relaunched.isActive)
            _ = await relaunched.stop()
        }
    }

    @Test("a refresh the server refuses (its session revoked by a password reset elsewhere) ends the session and clears the vault")
    func refusedRefreshEndsSession() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await Accounts.everday(stack, client, username: "newkid")
            await client.send(EverdayIntents.signIn("newkid", Accounts.password))
            let other = await stack.client(Apps.everday())
            await other.send(EverdayIntents.forgot("newkid"))
            await other.send(EverdayIntents.reset(token: try stack.lastCode(to: "newkid@example.com"), newPassword: "N3wPassw0rd!456"))
            await client.advance(stack.clock, by: .seconds(1740))
            #expect(await client.waitFor(.signedOut(.sessionExpired)))
            #expect(vault.credentials == nil)
            #expect(stack.server.ledger.reuseDetections.isEmpty)
            _ = await client.stop()
            _ = await other.stop()
        }
    }

    @Test(
        "with the default 60 s margin, a token granted for L seconds serves sequential calls and refreshes once, after L / 2 or L - 60 s",
        arguments: [(lifetime: 30, refreshAfter: 15), (60, 30), (1800, 1740)])
    func marginFitsTheLifetime(lifetime: Int, refreshAfter: Int64) async throws {
        try await EndToEndStack.with(
            .everday, configure: { $0.everday.tokens.accessTokenLifetime = TimeInterval(lifetime) }
        ) { stack in
            let client = try await Self.signedIn(stack)
            for _ in 0..<2 { #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200) }
            #expect(stack.server.ledger.refreshTokensPresented.isEmpty, "two sequential calls right after sign-in: no refresh")

            await client.advance(by: .seconds(refreshAfter - 1))
            #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200)
            #expect(stack.server.ledger.refreshTokensPresented.isEmpty, "still before the fitted margin")

            await client.advance(by: .seconds(1))
            #expect(await client.waitFor(.tokenRefreshed))
            for _ in 0..<2 { #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200) }
            #expect(stack.server.ledger.refreshTokensPresented.count == 1, "one refresh, not one per call")
            _ = await client.stop()
        }
    }
}

/// A signed-in client of Everday or Hero365, whichever it is.
struct AnyRotatingClient: Sendable {
    let credentials: @Sendable () async -> Credentials?
    let isActive: @Sendable () async -> Bool
    let advance: @Sendable (Interval) async -> Void
    let call: @Sendable (HTTPRequest) async -> Result<HTTPResponse, AuthError>
    let waitFor: @Sendable (AuthOutcome, Int) async -> Bool
    let stop: @Sendable () async -> [String]

    init<App: EndToEndApp>(_ client: Client<App>) {
        credentials = { await client.credentials }
        isActive = { await client.isActive }
        let clock = client.runner.clock
        advance = { interval in
            if let clock = clock as? ManualClock { await client.advance(clock, by: interval) }
        }
        call = { await client.call($0) }
        waitFor = { await client.waitFor($0, count: $1) }
        stop = { await client.stop() }
    }

    func advance(by interval: Interval) async { await advance(interval) }
    func waitFor(_ outcome: AuthOutcome, count: Int = 1) async -> Bool { await waitFor(outcome, count) }
}
