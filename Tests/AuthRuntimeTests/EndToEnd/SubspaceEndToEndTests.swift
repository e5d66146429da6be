import AuthCore
@testable import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("End to end: Subspace", .timeLimit(.minutes(15)))
struct SubspaceEndToEndTests {
    typealias Do = SubspaceIntents

    @Test("registration signs in at once with a 24 h token; /auth/me answers with it; logout clears the vault")
    func registration() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.subspace(), vault: vault)
            await client.send(Do.register("Ada", "ada@example.com", "Passw0rd!123"))
            let credentials = try #require(await client.credentials)
            #expect(credentials.user.email == "ada@example.com")
            #expect(credentials.refreshToken == nil)
            #expect(credentials.expiresAt == Instant(referenceNow) + .seconds(24 * 3600))
            #expect(vault.credentials == credentials)
            let me = await client.call(HTTPRequest(method: "GET", url: try stack.url("/auth/me")))
            #expect(me.status == 200)
            #expect(await client.send(Do.register("Ada again", "ada@example.com", "Passw0rd!123")) == .rejected(.alreadySignedIn))
            await client.logout()
            #expect(vault.credentials == nil)
            #expect(await client.send(Do.register("Ada again", "ada@example.com", "Passw0rd!123")) == .failed(.conflict("email already exists")))
            _ = await client.stop()
        }
    }

    @Test(
        "the document says register and login answer {token, user}; the deployed server sends {accessToken, refreshToken, user}; both are read, and /auth/me restores",
        arguments: ServerForm.allCases)
    func signInInBothForms(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.subspace, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.subspace(), vault: vault)
            await client.send(Do.register("Ada", "ada@example.com", Accounts.password))
            let registered = try #require(await client.credentials)
            #expect(registered.user.email == "ada@example.com")
            #expect((registered.refreshToken != nil) == (form == .deployed), "the deployed grant carries a refresh token")
            #expect(registered.expiresAt == Instant(referenceNow) + .seconds(24 * 3600))
            await client.logout()
            await client.send(Do.signIn("ada@example.com", Accounts.password))
            #expect(await client.isActive)
            #expect(vault.credentials != nil)
            _ = await client.stop()

            let before = stack.server.ledger.requests("GET", "/api/v1/auth/me")
            let relaunched = await stack.client(Apps.subspace(), vault: vault)
            await relaunched.settle()
            #expect(await relaunched.isActive)
            #expect(stack.server.ledger.requests("GET", "/api/v1/auth/me") == before + 1, "restored with /auth/me")
            #expect(await relaunched.call(HTTPRequest(method: "GET", url: try stack.url("/auth/me"))).status == 200)
            _ = await relaunched.stop()
        }
    }

    @Test(
        "the document says errors are {error: message}; the deployed server sends {error: status text, message}; both reach errorDescription",
        arguments: ServerForm.allCases)
    func errorMessagesInBothForms(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.subspace, configure: form.configure) { stack in
            let client = await stack.client(Apps.subspace())
            await Accounts.subspace(client, email: "ada@example.com")
            let wrong = await client.send(Do.signIn("ada@example.com", "Wrong-passw0rd"))
            let wrongText = form == .deployed ? "invalid email or password" : "invalid credentials"
            #expect(wrong == .failed(.unauthorized(wrongText)))
            #expect(AuthError(wrong, at: Instant(referenceNow)).errorDescription == wrongText)
            let duplicate = await client.send(Do.register("Ada", "ada@example.com", Accounts.password))
            let duplicateText = form == .deployed ? "email already registered" : "email already exists"
            #expect(duplicate == .failed(.conflict(duplicateText)))
            #expect(AuthError(duplicate, at: Instant(referenceNow)).errorDescription == duplicateText)
            _ = await client.stop()
        }
    }

    @Test("429: sign-in waits out Retry-After locally, sending nothing, and works once the shared clock has passed it")
    func rateLimited() async throws {
        try await EndToEndStack.with(.subspace, configure: { $0.subspace.rateLimit = 3 }) { stack in
            let client = await stack.client(Apps.subspace())
            await Accounts.subspace(client, email: "ada@example.com")  // Request 1.
            for _ in 0..<2 {  // Requests 2 and 3.
                await client.send(Do.signIn("ada@example.com", Accounts.password))
                #expect(await client.isActive)
                await client.logout()
            }
            #expect(await client.send(Do.signIn("ada@example.com", Accounts.password)) == .failed(.rateLimited(retryAfter: .seconds(60))))
            let until = Instant(referenceNow) + .seconds(60)
            guard case .rateLimited(until: until) = await client.phase(of: PasswordSignIn.Phase.self) else {
                Issue.record("sign-in is not waiting out the limit: \(await client.phase)")
                return
            }
            let sent = stack.server.ledger.requests("POST", "/api/v1/auth/login")
            #expect(await client.send(Do.signIn("ada@example.com", Accounts.password)) == .rejected(.rateLimited(until: until)))
            #expect(stack.server.ledger.requests("POST", "/api/v1/auth/login") == sent, "refused locally")

            await client.advance(stack.clock, by: .seconds(60))
            guard case .enteringCredentials = await client.phase(of: PasswordSignIn.Phase.self) else {
                Issue.record("the limit did not end on the shared clock: \(await client.phase)")
                return
            }
            await client.send(Do.signIn("ada@example.com", Accounts.password))
            #expect(await client.isActive)
            _ = await client.stop()
        }
    }

    @Test("a relaunch whose /auth/me is answered 429 keeps the session (offline); the next call goes through")
    func restoreRateLimited() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let first = await stack.client(Apps.subspace(), vault: vault)
            await Accounts.subspace(first, email: "ada@example.com")
            await first.send(Do.signIn("ada@example.com", Accounts.password))
            _ = await first.stop()
            stack.server.inject(.rateLimited(retryAfter: 30), path: "/api/v1/auth/me", times: 1)
            let second = await stack.client(Apps.subspace(), vault: vault)
            await second.settle()
            #expect(await second.waitFor(.failed(.rateLimited(retryAfter: .seconds(30)))))
            #expect(await second.waitFor(.offline))
            guard case .active(let session)? = await second.session, session.refresh == .offline else {
                Issue.record("a 429 at restore is not kept offline: \(await second.phase)")
                return
            }
            #expect(vault.credentials != nil, "a rate limit says nothing about the token")
            let request = try Accounts.protectedRequest(stack)
            #expect(await second.call(request).status == 200)
            _ = await second.stop()
        }
    }

    @Test("the 24 h token runs out on the shared clock: the session ends with tokenExpired and the vault is cleared")
    func tokenExpiry() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.subspace(), vault: vault)
            await client.send(Do.register("Ada", "ada@example.com", Accounts.password))
            await client.advance(stack.clock, by: .seconds(24 * 3600))
            #expect(await client.waitFor(.signedOut(.tokenExpired)))
            #expect(vault.credentials == nil)
            _ = await client.stop()
        }
    }

    @Test("a call made at launch while the stored session is being checked waits for the check, then is answered")
    func callDuringRestore() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let first = await stack.client(Apps.subspace(), vault: vault)
            await Accounts.subspace(first, email: "ada@example.com")
            await first.send(Do.signIn("ada@example.com", Accounts.password))
            _ = await first.stop()

            let gate = Gate()
            stack.wire.hold("/auth/me", until: gate)
            let relaunched = await stack.client(Apps.subspace(), vault: vault)
            guard case .restoring? = await relaunched.session else {
                Issue.record("not restoring: \(await relaunched.phase)")
                return
            }
            let request = try Accounts.protectedRequest(stack)
            // Nothing else can happen while /auth/me is held: the next state is the call's.
            var changes = await relaunched.runner.states().makeAsyncIterator()
            _ = await changes.next()
            let call = Task { await relaunched.call(request) }
            _ = await changes.next()
            gate.open()
            let answer = await call.value
            #expect(answer.status == 200)
            await relaunched.settle()
            #expect(await relaunched.isActive)
            _ = await relaunched.stop()
        }
    }
}
