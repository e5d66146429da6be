import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation
import Testing

/// What every client promises beyond its operations: a completion that cannot be missed, a
/// cancellation that leaves nothing behind, an auth-state stream that starts with the present,
/// and an observable model for SwiftUI.
@Suite("Clients: completions, cancellation, the auth-state stream, the model", .timeLimit(.minutes(15)))
struct ClientBehaviourTests {
    static let password = "Passw0rd!123"

    @Test("the race: a completion is returned even when the answer arrives before anyone subscribes to a stream (100 runs)")
    func completionWithoutSubscriber() async {
        for run in 0..<100 {
            let transport = ScriptedTransport { _ in Answers.tokens(access: "access-\(run)", refresh: "refresh-\(run)") }
            let runner = Sample.runner(Apps.everday(), transport: transport)
            await runner.start()
            let completion = await runner.perform(Sample.everdaySignIn())
            guard case .signedIn = completion else {
                Issue.record("run \(run): \(completion)")
                return
            }
            await runner.stop()
        }
    }

    @Test("cancelling a pending sign-in: the caller gets .cancelled at once, the user stays signed out, the late answer changes nothing")
    func cancelledSignIn() async throws {
        let gate = Gate()
        let transport = ScriptedTransport { _ in
            _ = await gate.wait()
            return Answers.tokens(access: "access-late", refresh: "refresh-late")
        }
        let vault = MemoryVault()
        let runner = Sample.runner(Apps.everday(), transport: transport, vault: vault)
        await runner.start()
        let caller = Task { await runner.perform(Sample.everdaySignIn()) }
        await transport.waitFor("signIn")
        caller.cancel()
        #expect(await caller.value == .cancelled)
        #expect(Apps.everday().authState(await runner.phase) == .signedOut)
        gate.open()
        // A second sign-in goes through the same runner after the abandoned answer had every
        // chance to arrive: had it been taken, this one would be refused as already signed in.
        let again = await runner.perform(Sample.everdaySignIn())
        guard case .signedIn = again else {
            Issue.record("the late answer of the cancelled sign-in was taken: \(again)")
            return
        }
        #expect(transport.count("signIn") == 2)
        #expect(vault.credentials?.accessToken == AccessToken("access-late"))
        await runner.stop()
    }

    @Test("the auth-state stream begins with the current state and emits each change once: signed out → signed in → refreshed → signed out")
    func authStateStream() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let registering = EverdayClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock)
            _ = try await registering.register(username: "newkid", password: Self.password)
            await registering.stop()
            #expect(stack.server.approve(username: "newkid"))
            let auth = EverdayClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock)
            let seen = Locked<[AuthState]>([])
            let changes = await auth.authStateChanges
            let watcher = Task {
                for await state in changes {
                    seen.withLock { $0.append(state) }
                    if state == .signedOut, seen.withLock({ $0.count }) > 1 { return }
                }
            }
            let signedIn = try await auth.signIn(username: "newkid", password: Self.password)
            let user = try #require(signedIn.user)
            await stack.clock.advance(by: .seconds(1_790))  // Past the refresh margin of a 1,800 s token.
            for _ in 0..<2_000 where stack.server.ledger.requests("POST", stack.baseURL.path + "/auth/refresh") == 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
            try await Task.sleep(for: .milliseconds(50))
            await auth.signOut()
            await watcher.value
            let states = seen.withLock { $0 }
            #expect(states.count == 4, "\(states)")
            #expect(states.first == .signedOut)
            #expect(states.last == .signedOut)
            guard states.count == 4, case .signedIn(let first) = states[1], case .signedIn(let refreshed) = states[2] else {
                Issue.record("not signed in, then refreshed: \(states)")
                return
            }
            #expect(first.user == user && refreshed.user == user)
            #expect((refreshed.expiresAt ?? .distantPast) > (first.expiresAt ?? .distantFuture), "a refresh shows as a later expiry")
            await auth.stop()
        }
    }

    @Test("a new subscriber to the auth-state stream gets the present state first")
    func streamStartsWithThePresent() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let auth = SubspaceClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock)
            let user = try await auth.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password)
            var iterator = await auth.authStateChanges.makeAsyncIterator()
            #expect(await iterator.next()?.user == user)
            await auth.stop()
        }
    }

    @Test("the observable model: state and user follow the client; a failure sets lastError with its message; isBusy while an operation runs")
    @MainActor
    func model() async throws {
        let stack = try EndToEndStack(.subspace)
        defer { stack.server.stop() }
        let model = AuthModel(client: SubspaceClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock))
        let observing = Task { await model.observe() }
        let user = await model.perform { try await $0.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password) }
        #expect(user?.email == "ada@example.com")
        #expect(model.isBusy == false)
        #expect(model.lastError == nil)
        for _ in 0..<1_000 where model.user == nil { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.user == user)
        #expect(model.isSignedIn)
        await model.signOut()
        for _ in 0..<1_000 where model.isSignedIn { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.state == .signedOut)
        let failed = await model.perform { try await $0.signIn(email: "ada@example.com", password: "Wr0ngPassword!") }
        #expect(failed == nil)
        #expect(model.lastError?.errorDescription == "invalid credentials")
        observing.cancel()
        await model.client.stop()
    }
}
