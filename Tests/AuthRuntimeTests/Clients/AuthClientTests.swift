import AuthCore
import AuthRuntime
import Foundation
import Testing

/// The generic client, over a composition and a contract it was not written for.
@Suite("Client: AuthClient over any composition and contract", .timeLimit(.minutes(15)))
struct AuthClientTests {
    static let parent = (username: "parent", password: "ParentPassw0rd!")
    static let rotating = SessionPolicy(
        refresh: .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)), restore: .refresh, revokesOnLogout: true)

    @Test("password sign-in and a session of one's own: sign in, a protected call, a relaunch restores, sign-out ends the server session")
    func passwordSession() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let auth = AuthClient(
                contract: EverdayContract(baseURL: stack.baseURL), signIn: .username, session: Self.rotating, vault: vault, clock: stack.clock)
            #expect(await auth.authState == .signedOut)
            let states = await auth.authStateChanges
            let result = try await auth.signIn(Self.parent.username, password: Self.parent.password)
            #expect(result.user?.id == "parent")
            #expect(await auth.isSignedIn)
            var iterator = states.makeAsyncIterator()
            #expect(await iterator.next() == .signedOut, "the stream begins with the state it was made in")
            #expect(await iterator.next()?.isSignedIn == true)

            let approve = HTTPRequest(method: "PUT", url: stack.baseURL.appendingPathComponent("settings/users/1/approve"))
            #expect(try await auth.authorized(approve).status == 200)
            await auth.stop()

            let relaunched = AuthClient(
                contract: EverdayContract(baseURL: stack.baseURL), signIn: .username, session: Self.rotating, vault: vault, clock: stack.clock)
            let restored = await relaunched.authStateChanges.first { $0 != .restoring }
            #expect(restored?.user?.id == "parent", "restored from the vault by a refresh")
            let refresh = try #require(vault.credentials?.refreshToken?.reveal())
            #expect(await relaunched.signOutAndEndServerSession() == .ended)
            #expect(stack.server.refreshTokenStatus(refresh) != .live)
            #expect(vault.credentials == nil)
            await relaunched.stop()
        }
    }

    @Test("any composition: a backend's own app machine runs its flows through register, signIn and send")
    func anyComposition() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let auth = AuthClient(app: Apps.everday(), contract: EverdayContract(baseURL: stack.baseURL), vault: MemoryVault(), clock: stack.clock)
            let registered = try await auth.register(RegistrationInput(username: "newkid", password: PasswordInput("Passw0rd!123")))
            guard case .pendingApproval = registered else {
                Issue.record("not pending approval: \(registered)")
                return
            }
            let reset = await auth.send(PasswordReset.Intent.requestReset("parent"))
            guard case .passwordResetRequested = reset else {
                Issue.record("no reset requested: \(reset)")
                return
            }
            let wrong = await authError { try await auth.signIn("parent", password: "Wr0ngPassword!") }
            #expect(wrong == .server(.unauthorized("Invalid username or password.")))
            await auth.stop()
        }
    }

    @Test("an operation whose flow the app does not compose is refused as unsupported, sending nothing")
    func unsupported() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let auth = AuthClient(
                contract: EverdayContract(baseURL: stack.baseURL), signIn: .username, session: Self.rotating, vault: MemoryVault(),
                clock: stack.clock)
            let error = await authError { try await auth.register(RegistrationInput(username: "newkid", password: PasswordInput("Passw0rd!123"))) }
            #expect(error == .rejected(.unsupported))
            #expect(stack.received("POST", "/auth/register") == 0)
            await auth.stop()
        }
    }

    @Test("the observable model over the generic client follows its state")
    @MainActor
    func model() async throws {
        let stack = try EndToEndStack(.everday)
        defer { stack.server.stop() }
        let model = AuthModel(
            client: AuthClient(
                contract: EverdayContract(baseURL: stack.baseURL), signIn: .username, session: Self.rotating, vault: MemoryVault(),
                clock: stack.clock))
        let observing = Task { await model.observe() }
        let result = await model.perform { try await $0.signIn(Self.parent.username, password: Self.parent.password) }
        #expect(result?.user?.id == "parent")
        for _ in 0..<1_000 where model.user == nil { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.isSignedIn)
        await model.signOut()
        for _ in 0..<1_000 where model.isSignedIn { try await Task.sleep(for: .milliseconds(1)) }
        #expect(model.state == .signedOut)
        let failed = await model.perform { try await $0.signIn("parent", password: "Wr0ngPassword!") }
        #expect(failed == nil)
        #expect(model.lastError == .server(.unauthorized("Invalid username or password.")))
        observing.cancel()
        await model.client.stop()
    }

    @Test("AuthRunner and the client describe a backend of one's own by its name")
    func ownBackendName() {
        struct Mine: BackendContract {
            let backend = Backend("My API")
            let baseURL = URL(string: "http://127.0.0.1:9")!
            func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest { throw .unsupported("\(request)") }
            func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply { .failed(.malformed) }
        }
        let auth = AuthClient(contract: Mine(), signIn: .email, session: Self.rotating, vault: MemoryVault())
        #expect(auth.runner.description == "AuthRunner(My API)")
    }
}
