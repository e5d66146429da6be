import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation
import Testing

/// `authorized(_:)` through the real app machines: the reducer decides, the runner follows.
@Suite("Authorized calls", .timeLimit(.minutes(15)))
struct AuthorizedCallTests {
    let clock = ManualClock(now: .seconds(1_700_000_000))

    /// An Everday runner signed in through password sign-in with tokens `access-1`/`refresh-1`
    /// that expire `expiresIn` seconds after the answer (0: already expired).
    func signedInEverday(
        expiresIn: Int, vault: MemoryVault = MemoryVault(), _ handler: @escaping ScriptedTransport.Handler
    ) async -> (AuthRunner<EverdayApp>, ScriptedTransport) {
        let transport = ScriptedTransport { request in
            if request.url.lastPathComponent == "signIn" { return Answers.tokens(access: "access-1", refresh: "refresh-1", expiresIn: expiresIn) }
            return await handler(request)
        }
        let runner = Sample.runner(Apps.everday(), transport: transport, vault: vault, clock: clock)
        let states = await runner.states()
        await runner.send(Sample.everdaySignIn())
        _ = await states.first { if case .signedIn = $0.phase { true } else { false } }
        return (runner, transport)
    }

    /// The protected calls the Everday session holds, when it is refreshing.
    static func waitingCalls(_ state: EverdayApp.State) -> Int? {
        guard case .signedIn(.active(let session)) = state.phase, case .refreshing = session.refresh else { return nil }
        return session.calls.count
    }

    @Test("1,000 concurrent calls with an expired token cause exactly one refresh, and the new pair is stored before use")
    func singleFlightRefresh() async throws {
        let vault = MemoryVault()
        let refreshGate = Gate()
        let (runner, transport) = await signedInEverday(expiresIn: 0, vault: vault) { request in
            switch request.url.lastPathComponent {
            case "refresh":
                _ = await refreshGate.wait()
                return Answers.tokens(access: "access-2", refresh: "refresh-2")
            case "items":
                guard vault.credentials?.accessToken.reveal() == "access-2" else { return Answers.status(500) }  // Used before stored.
                return Answers.status(request.headers["Authorization"] == "Bearer access-2" ? 200 : 401)
            default:
                return Answers.status(404)
            }
        }
        let states = await runner.states()
        let statuses = await withTaskGroup(of: Result<Int, AuthError>.self) { group in
            for _ in 0..<1000 {
                group.addTask { await runner.status() }
            }
            // Hold the refresh until every call waits on it, so all 1,000 meet the single flight.
            _ = await states.first { Self.waitingCalls($0) == 1000 }
            refreshGate.open()
            var statuses: [Result<Int, AuthError>] = []
            for await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == .success(200) })
        #expect(transport.count("refresh") == 1)
        #expect(transport.count("items") == 1000)
        #expect(vault.credentials?.refreshToken?.reveal() == "refresh-2")
    }

    @Test("a call made while signed out fails fast with a typed error and sends nothing")
    func signedOutCall() async throws {
        let transport = ScriptedTransport { _ in Answers.status(200) }
        let runner = Sample.runner(Apps.everday(), transport: transport, clock: clock)
        await runner.start()
        await #expect(throws: AuthError.rejected(.notSignedIn)) { try await runner.authorized(Sample.appRequest) }
        #expect(transport.received.isEmpty)
    }

    @Test(
        "logout while calls wait for a refresh ends them with sessionEnded and clears the vault at once; the refresh is kept, and its successor revoked when it lands"
    )
    func logoutWhileWaiting() async throws {
        let vault = MemoryVault()
        let releaseRefresh = Gate()
        let (runner, transport) = await signedInEverday(expiresIn: 0, vault: vault) { request in
            switch request.url.lastPathComponent {
            case "refresh":
                _ = await releaseRefresh.wait()
                return Answers.tokens(access: "access-2", refresh: "refresh-2")
            default:
                return Answers.status(200)
            }
        }
        let states = await runner.states()
        async let first = runner.status()
        async let second = runner.status()
        _ = await states.first { Self.waitingCalls($0) == 2 }
        await runner.send(.session(.logout))
        #expect(await first == .failure(.sessionEnded))
        #expect(await second == .failure(.sessionEnded))
        #expect(vault.credentials == nil)
        releaseRefresh.open()
        #expect(await runner.serverSignOutsSettled() == .serverSessionEnded)
        let revoke = try #require(transport.received.last { $0.url.lastPathComponent == "revoke" })
        #expect(String(decoding: revoke.body ?? Data(), as: UTF8.self).contains("refresh-2"), "the successor is revoked")
        #expect(vault.credentials == nil, "the successor is never stored")
        #expect(transport.count("items") == 0)
    }

    @Test("a 401 after the replay goes to the caller as it is: one refresh, two sends, no loop")
    func secondUnauthorizedIsReturned() async throws {
        let (runner, transport) = await signedInEverday(expiresIn: 3600) { request in
            request.url.lastPathComponent == "refresh" ? Answers.tokens(access: "access-2", refresh: "refresh-2") : Answers.status(401)
        }
        let response = try await runner.authorized(Sample.appRequest)
        #expect(response.status == 401)
        #expect(transport.count("refresh") == 1)
        #expect(
            transport.received.filter { $0.url.lastPathComponent == "items" }.map { $0.headers["Authorization"] }
                == ["Bearer access-1", "Bearer access-2"])
        #expect(
            await runner.phase
                == .signedIn(
                    .active(
                        SessionLifecycle.Active(
                            credentials: Sample.credentials(
                                access: "access-2", refresh: "refresh-2", expiresAt: clock.now + .seconds(3600), lifetime: .seconds(3600))))))
    }

    @Test("a call inside the expiry margin refreshes first, then sends once with the new token")
    func proactiveRefresh() async throws {
        // A 30 s token: the 60 s margin is fitted to half its lifetime, so it is used for 15 s.
        let (runner, transport) = await signedInEverday(expiresIn: 30) { request in
            request.url.lastPathComponent == "refresh" ? Answers.tokens(access: "access-2", refresh: "refresh-2") : Answers.status(200)
        }
        #expect(try await runner.authorized(Sample.appRequest).status == 200)
        #expect(transport.received.map(\.url.lastPathComponent) == ["signIn", "items"])
        await clock.advance(by: .seconds(14))
        #expect(transport.count("refresh") == 0)
        await clock.advance(by: .seconds(1))
        #expect(try await runner.authorized(Sample.appRequest).status == 200)
        #expect(transport.received.map(\.url.lastPathComponent) == ["signIn", "items", "refresh", "items"])
        #expect(transport.received.last?.headers["Authorization"] == "Bearer access-2")
    }

    @Test("the scheduled proactive refresh fires on the manual clock and rotates the pair")
    func scheduledRefresh() async throws {
        let vault = MemoryVault()
        let (runner, transport) = await signedInEverday(expiresIn: 3600, vault: vault) { _ in
            Answers.tokens(access: "access-2", refresh: "refresh-2")
        }
        let outcomes = await runner.outcomes()
        await clock.advance(by: .seconds(3539))
        #expect(transport.count("refresh") == 0)
        await clock.advance(by: .seconds(1))
        #expect(await outcomes.first { $0 == .tokenRefreshed } == .tokenRefreshed)
        #expect(transport.count("refresh") == 1)
        #expect(vault.credentials?.accessToken.reveal() == "access-2")
        #expect(await runner.scheduledTimers.contains(.proactiveRefresh))
    }

    @Test("errors and network failures: a 500 is returned, no answer is a typed error with a message")
    func failuresOfOneCall() async throws {
        let failNext = Locked(false)
        let (runner, _) = await signedInEverday(expiresIn: 3600) { _ in
            failNext.withLock { $0 } ? .failure(.network) : Answers.status(500)
        }
        #expect(try await runner.authorized(Sample.appRequest).status == 500)
        failNext.withLock { $0 = true }
        do {
            _ = try await runner.authorized(Sample.appRequest)
            Issue.record("expected a network error")
        } catch {
            #expect(error == .server(.network))
            #expect(error.errorDescription == "Cannot connect to server")
        }
    }

    @Test("VynqTalk: a 401 on a protected call logs the user out; the caller gets sessionEnded")
    func automaticLogout() async throws {
        let vault = MemoryVault()
        let transport = ScriptedTransport { request in
            request.url.lastPathComponent == "signIn" ? Answers.tokens(access: "access-1", expiresIn: nil) : Answers.status(401)
        }
        let runner = Sample.runner(
            Apps.vynqTalk(), transport: transport, vault: vault, clock: clock, contract: StubContract(backend: .vynqTalk),
            realtime: ScriptedRealtime())
        let outcomes = await runner.outcomes()
        await runner.send(PasswordSignIn.Intent.submit(identifier: "alice@example.com", password: Sample.password))
        _ = await outcomes.first { $0 == .realtimeConnected }
        await #expect(throws: AuthError.sessionEnded) { try await runner.authorized(Sample.appRequest) }
        #expect(await outcomes.first { $0 == .signedOut(.tokenRejected) } != nil)
        #expect(vault.credentials == nil)
        #expect(await runner.phase == .signedOut(Apps.vynqTalk().entry.initialPhase))
    }

    @Test("a cancelled caller stops waiting at once with .cancelled")
    func cancelledCaller() async throws {
        let gate = Gate()
        let (runner, _) = await signedInEverday(expiresIn: 3600) { _ in
            _ = await gate.wait()
            return Answers.status(200)
        }
        let caller = Task { await runner.status() }
        caller.cancel()
        #expect(await caller.value == .failure(.cancelled))
        gate.open()
    }
}
