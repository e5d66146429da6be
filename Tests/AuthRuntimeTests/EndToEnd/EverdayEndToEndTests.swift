import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("End to end: Everday", .timeLimit(.minutes(15)))
struct EverdayEndToEndTests {
    typealias Do = EverdayIntents
    static let pending = "Account pending approval. A parent must approve this account before sign in."

    @Test("approval gate: registration is pending, sign-in waits in pendingApproval; the parent approves over HTTP, then sign-in works")
    func approvalGate() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let kid = await stack.client(Apps.everday())
            #expect(
                await kid.send(Do.register("newkid", Accounts.password, name: "New Kid", email: "newkid@example.com"))
                    == .pendingApproval("Account request submitted. A parent must approve this account before sign in."))
            guard case .pendingApproval = await kid.phase(of: Registration.Phase.self) else {
                Issue.record("registration did not end pending approval: \(await kid.phase)")
                return
            }
            #expect(await kid.send(Do.signIn("newkid", Accounts.password)) == .pendingApproval(Self.pending))
            guard case .pendingApproval = await kid.phase(of: PasswordSignIn.Phase.self) else {
                Issue.record("sign-in did not wait in pendingApproval: \(await kid.phase)")
                return
            }

            // The parent, on another device, approves through the app's own protected call.
            let parent = await stack.client(Apps.everday())
            await parent.send(Do.signIn("parent", "ParentPassw0rd!"))
            let id = try #require(stack.server.everdayUserID(username: "newkid"))
            let approval = await parent.call(HTTPRequest(method: "PUT", url: try stack.url("/settings/users/\(id)/approve")))
            #expect(approval.status == 200)

            await kid.send(Do.signIn("newkid", Accounts.password))
            #expect(await kid.isActive)
            let credentials = try #require(await kid.credentials)
            #expect(
                credentials.user
                    == UserProfile(
                        id: "newkid", email: "newkid@example.com", name: "New Kid", role: .kid, attributes: ["DiscordHandle": .null]))
            #expect(credentials.refreshToken != nil)
            #expect(credentials.expiresAt == Instant(referenceNow) + .seconds(1800))
            // A kid's token is valid but not a parent's: the server says so with 403, not 401.
            let refused = await kid.call(HTTPRequest(method: "PUT", url: try stack.url("/settings/users/\(id)/approve")))
            #expect(refused.status == 403)
            #expect(await kid.isActive)
            _ = await kid.stop()
            _ = await parent.stop()
        }
    }

    @Test("the client says who is signed in by role: a parent's currentUser is Parent, a kid's is Kid, and the vault keeps it")
    func roles() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let parent = EverdayClient(baseURL: stack.baseURL, vault: vault, clock: stack.clock)
            _ = try await parent.signIn(username: "parent", password: "ParentPassw0rd!")
            #expect(await parent.currentUser?.role == .parent)
            #expect(await parent.currentUser?.role?.rawValue == "Parent")
            #expect(vault.credentials?.user.role == .parent, "persisted with the credentials")

            let kid = EverdayClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock)
            _ = try await kid.register(username: "newkid", password: Accounts.password, email: "newkid@example.com", displayName: "New Kid")
            #expect(stack.server.approve(username: "newkid"))
            _ = try await kid.signIn(username: "newkid", password: Accounts.password)
            #expect(await kid.currentUser?.role == .kid)
            #expect(await kid.currentUser?.role != .parent)
            await kid.stop()
            await parent.stop()
        }
    }

    @Test(
        "logout clears local state at once and ends the server session in the background, retrying a failed revoke: the refresh token no longer refreshes",
        arguments: [nil, Fault.serverError(status: 500), .serverError(status: 503), .dropBeforeCommit, .dropAfterCommit, .malformedJSON])
    func logout(fault: Fault?) async throws {
        try await EndToEndStack.with(.everday, configure: EndToEndStack.shortReadTimeout) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await client.send(Do.signIn("parent", "ParentPassw0rd!"))
            let refresh = try #require(await client.credentials?.refreshToken).reveal()
            let parent = try #require(stack.server.everdayUserID(username: "parent")).description
            if let fault { stack.server.inject(fault, path: "/api/auth/logout", times: 1) }
            await client.logout()
            #expect(await client.session == nil)
            #expect(vault.credentials == nil)
            #expect(await client.waitFor(.signedOut(.userRequested)))
            #expect(await client.waitFor(.serverSessionEnded))
            #expect(stack.server.ledger.requests("POST", "/api/auth/logout") == (fault == nil ? 1 : 2), "a failed revoke is retried")
            #expect(stack.server.refreshTokenStatus(refresh) != .live)
            #expect(stack.server.liveRefreshTokens(of: parent, on: .everday) == 0)
            #expect(await client.call(try Accounts.protectedRequest(stack)).failureValue == .rejected(.notSignedIn))
            _ = await client.stop()
        }
    }

    @Test("forgot → the emailed token resets the password; the old sessions are revoked, the old password refused, the token single-use")
    func resetByToken() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let client = await stack.client(Apps.everday())
            await Accounts.everday(stack, client, username: "newkid")
            await client.send(Do.signIn("newkid", Accounts.password))
            let before = try #require(await client.credentials)
            let other = await stack.client(Apps.everday())  // Left signed in on another device.
            await other.send(Do.signIn("newkid", Accounts.password))
            await client.logout()

            #expect(await client.send(Do.forgot("newkid")).caseName == "passwordResetRequested")
            let token = try stack.lastCode(to: "newkid@example.com")
            #expect(await client.send(Do.reset(token: token, newPassword: "N3wPassw0rd!456")) == .passwordResetCompleted)
            #expect(await client.session == nil, "Everday's reset does not sign in")
            #expect(stack.server.refreshTokenStatus(try #require(before.refreshToken).reveal()) == .revoked)

            // The other device finds out at its next refresh: the server refuses, the session ends.
            let otherCall = await other.call(try Accounts.protectedRequest(stack))
            #expect(otherCall.status == 401 || otherCall.failureValue == .sessionEnded)

            #expect(await client.send(Do.signIn("newkid", Accounts.password)) == .failed(.unauthorized("Invalid username or password.")))
            await client.send(Do.forgot("newkid@example.com"))
            #expect(
                await client.send(Do.reset(token: token, newPassword: "Another0ne!789")) == .failed(.badRequest("Invalid or expired reset token.")))
            await client.send(Do.signIn("newkid", "N3wPassw0rd!456"))
            #expect(await client.isActive)
            _ = await client.stop()
            _ = await other.stop()
        }
    }

    @Test(
        "the document says RequirePasswordChange and has no change endpoint; the deployed server changes it and revokes every refresh token; both work: a wrong current password keeps the session, the change ends it cleanly, the new password signs in",
        arguments: ServerForm.allCases)
    func passwordChangeRequired(form: ServerForm) async throws {
        try await EndToEndStack.with(.everday, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await Accounts.everday(stack, client, username: "newkid")
            stack.server.setRequirePasswordChange(username: "newkid", true)
            await client.send(Do.signIn("newkid", Accounts.password))
            #expect(await client.waitFor(.passwordChangeRequired))
            let old = try #require(await client.credentials?.refreshToken).reveal()
            let request = try Accounts.protectedRequest(stack)
            #expect(await client.call(request).failureValue == .rejected(.passwordChangeRequired))
            let refreshes = stack.server.ledger.requests("POST", "/api/auth/refresh")

            // A wrong current password: 401 `Invalid credentials`; the session and its tokens are kept, nothing renewed.
            #expect(
                await client.send(Do.changePassword("Wr0ng-Passw0rd!", "N3wPassw0rd!456"))
                    == .failed(.incorrectPassword("Invalid credentials")))
            guard case .passwordChangeRequired(let step)? = await client.session, step.pending == nil else {
                Issue.record("a wrong current password did not keep the session waiting: \(await client.phase)")
                return
            }
            #expect(vault.credentials?.refreshToken?.reveal() == old)

            // The change: accepted, every refresh token revoked, the session ended cleanly.
            #expect(await client.send(Do.changePassword(Accounts.password, "N3wPassw0rd!456")) == .passwordChanged)
            #expect(await client.waitFor(.signedOut(.passwordChanged)))
            #expect(await client.session == nil)
            #expect(vault.credentials == nil, "nothing of the revoked pair is kept")
            #expect(stack.server.refreshTokenStatus(old) != .live)
            #expect(stack.server.ledger.requests("POST", "/api/auth/refresh") == refreshes, "the revoked token was never presented")

            // And goes on: the new password signs in, with no change demanded any more.
            await client.send(Do.signIn("newkid", "N3wPassw0rd!456"))
            #expect(await client.isActive)
            #expect(await client.call(request).status == 403, "the bearer is accepted: a kid may not approve, which the server says with 403")
            _ = await client.stop()
        }
    }

    @Test(
        "the document has no account deletion; the deployed server deletes the account with its sessions: the session ends cleanly; a refusal keeps it"
    )
    func deleteAccount() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await Accounts.everday(stack, client, username: "newkid")
            await client.send(Do.signIn("newkid", Accounts.password))
            let refresh = try #require(await client.credentials?.refreshToken).reveal()

            stack.server.inject(.serverError(status: 409), path: "/api/auth/account", times: 1)
            #expect(await client.send(SessionLifecycle.Intent.deleteAccount) == .failed(.conflict(nil)))
            #expect(await client.isActive, "a refused deletion keeps the session")

            #expect(await client.send(SessionLifecycle.Intent.deleteAccount) == .done)
            #expect(await client.waitFor(.signedOut(.accountDeleted)))
            #expect(await client.session == nil)
            #expect(vault.credentials == nil)
            #expect(stack.server.refreshTokenStatus(refresh) != .live)
            #expect(stack.server.everdayUserID(username: "newkid") == nil, "the account is gone")
            #expect(await client.send(Do.signIn("newkid", Accounts.password)) == .failed(.unauthorized("Invalid username or password.")))
            _ = await client.stop()
        }
    }

    @Test("a password change whose bearer the server refuses is told apart from a wrong password: the 401 renews the token, the session is kept")
    func passwordChangeWithARefusedBearer() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let client = await stack.client(Apps.everday())
            await Accounts.everday(stack, client, username: "newkid")
            await client.send(Do.signIn("newkid", Accounts.password))
            let first = try #require(await client.credentials)
            // The server refuses the bearer (a 401 whose detail is not `Invalid credentials`), as it does a token it holds expired.
            stack.server.inject(.serverError(status: 401), path: "/api/auth/change-password", times: 1)
            #expect(await client.send(Do.changePassword(Accounts.password, "N3wPassw0rd!456")) == .failed(.unauthorized(nil)))
            await client.settle()
            #expect(await client.isActive, "the session is kept")
            #expect(await client.credentials?.accessToken != first.accessToken, "the 401 renewed the token for the next try")
            #expect(await client.send(Do.changePassword(Accounts.password, "N3wPassw0rd!456")) == .passwordChanged)
            _ = await client.stop()
        }
    }

    @Test(
        "logout after the access token expired (refresh failing meanwhile, then the server back): signed out at once; the pair is renewed, never stored, and revoked; no refresh token of the session is live"
    )
    func logoutWithExpiredAccessToken() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await client.send(Do.signIn("parent", "ParentPassw0rd!"))
            let refresh = try #require(await client.credentials?.refreshToken).reveal()
            let parent = try #require(stack.server.everdayUserID(username: "parent")).description
            stack.server.inject(.serverError(status: 503), path: "/api/auth/refresh")  // The refresh keeps failing.
            await client.advance(stack.clock, by: .seconds(1740))
            for _ in 0..<3 { await client.advance(stack.clock, by: .seconds(60)) }
            guard case .active(let session)? = await client.session, session.refresh == .offline else {
                Issue.record("the refresh retries did not end offline: \(await client.phase)")
                return
            }
            #expect(await client.waitFor(.offline))
            stack.server.clearFaults()
            let refreshesBefore = stack.server.ledger.requests("POST", "/api/auth/refresh")
            await client.logout()
            #expect(vault.credentials == nil, "cleared at once")
            #expect(await client.waitFor(.serverSessionEnded))
            #expect(stack.server.ledger.requests("POST", "/api/auth/refresh") == refreshesBefore + 1, "renewed once, to revoke")
            #expect(stack.wire.exchanges(to: "/auth/logout").map(\.answer.status) == [200], "revoked with a live access token")
            #expect(stack.server.refreshTokenStatus(refresh) != .live, "consumed by the renewal, its session then revoked")
            #expect(stack.server.liveRefreshTokens(of: parent, on: .everday) == 0)
            #expect(vault.credentials == nil, "the renewed pair was never stored")
            _ = await client.stop()
        }
    }

    @Test("logout while a refresh is in flight: signed out at once; the refresh's successor is revoked; no refresh token of the session is live")
    func logoutDuringRefresh() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.everday(), vault: vault)
            await client.send(Do.signIn("parent", "ParentPassw0rd!"))
            let parent = try #require(stack.server.everdayUserID(username: "parent")).description
            stack.server.inject(.latency(0.3), path: "/api/auth/refresh", times: 1)
            await stack.clock.advance(by: .seconds(1745))  // The proactive refresh starts, and is slow.
            #expect(await client.runner.inFlight.count == 1)
            _ = await client.runner.perform(SessionLifecycle.Intent.logout)
            #expect(vault.credentials == nil, "cleared at once, the refresh still in flight")
            #expect(await client.waitFor(.serverSessionEnded))
            await client.settle()
            #expect(stack.server.ledger.requests("POST", "/api/auth/logout") == 1)
            #expect(stack.server.liveRefreshTokens(of: parent, on: .everday) == 0)
            #expect(vault.credentials == nil, "the successor was never stored")
            _ = await client.stop()
        }
    }

    /// Signs the parent in with Everday's app on `vault`, takes the server down (nothing reaches
    /// it) and logs out, until the app is told the revocation is owed and the client is quiet:
    /// the client, and the credentials it signed out of.
    static func logOutWithTheServerDown(
        _ stack: EndToEndStack, _ vault: MemoryVault
    ) async throws -> (Client<EverdayApp>, Credentials) {
        let client = await stack.client(Apps.everday(), vault: vault)
        await client.send(Do.signIn("parent", "ParentPassw0rd!"))
        let credentials = try #require(await client.credentials)
        stack.server.inject(.dropBeforeCommit)
        await client.logout()
        #expect(await client.outcomes.waitFor { $0.contains { if case .serverSessionEndOwed = $0 { true } else { false } } })
        await client.settle()
        return (client, credentials)
    }

    @Test(
        "logout with the server down: signed out at once; after three attempts the revocation is owed in the vault (the refresh token and nothing else) and reported, with no secret in its text; the server back, a relaunch revokes it and the old refresh token no longer refreshes",
        arguments: ServerForm.allCases)
    func logoutOwedThenRevokedAtRelaunch(form: ServerForm) async throws {
        try await EndToEndStack.with(
            .everday,
            configure: {
                EndToEndStack.shortReadTimeout(&$0); form.configure(&$0)
            }
        ) { stack in
            let vault = MemoryVault()
            let (client, credentials) = try await Self.logOutWithTheServerDown(stack, vault)
            let refresh = try #require(credentials.refreshToken)
            let parent = try #require(stack.server.everdayUserID(username: "parent")).description
            #expect(vault.credentials == nil, "signed out at once")
            #expect(stack.wire.exchanges(to: "/auth/logout").count == 3, "three attempts, then owed")
            #expect(vault.owedRevocations == [OwedRevocation(refreshToken: refresh, rounds: 1)], "only the refresh token is kept")
            #expect(stack.server.refreshTokenStatus(refresh.reveal()) == .live, "the server session lives on while the server is down")
            let texts = await client.stop()
            let reports = texts.filter { $0.contains("serverSessionEndOwed") || $0.contains("owedRevocation") }
            #expect(!reports.isEmpty)
            for text in texts {
                #expect(!text.contains(credentials.accessToken.reveal()) && !text.contains(refresh.reveal()))
            }

            stack.server.clearFaults()  // The server is back; the app launches again.
            let relaunched = await stack.client(Apps.everday(), vault: vault)
            #expect(await relaunched.waitFor(.serverSessionEnded))
            await relaunched.settle()
            #expect(vault.owedRevocations.isEmpty, "settled, and forgotten")
            #expect(vault.credentials == nil, "still signed out: the renewed pair was never stored")
            #expect(stack.server.refreshTokenStatus(refresh.reveal()) != .live, "the old refresh token no longer refreshes")
            #expect(stack.server.liveRefreshTokens(of: parent, on: .everday) == 0)
            _ = await relaunched.stop()
        }
    }

    @Test(
        "logout with the server down, then a sign-in once it is back: the owed revocation goes out with the sign-in and ends the old session; the new session lives",
        arguments: ServerForm.allCases)
    func logoutOwedThenRevokedAtSignIn(form: ServerForm) async throws {
        try await EndToEndStack.with(
            .everday,
            configure: {
                EndToEndStack.shortReadTimeout(&$0); form.configure(&$0)
            }
        ) { stack in
            let vault = MemoryVault()
            let (client, credentials) = try await Self.logOutWithTheServerDown(stack, vault)
            let old = try #require(credentials.refreshToken)
            #expect(vault.owedRevocations.map(\.refreshToken) == [old])
            stack.server.clearFaults()
            await client.send(Do.signIn("parent", "ParentPassw0rd!"))
            #expect(await client.waitFor(.serverSessionEnded))
            await client.settle()
            #expect(vault.owedRevocations.isEmpty)
            #expect(stack.server.refreshTokenStatus(old.reveal()) != .live, "the old session ended on the server")
            let current = try #require(await client.credentials?.refreshToken)
            #expect(current != old && stack.server.refreshTokenStatus(current.reveal()) == .live, "the new session is untouched")
            _ = await client.stop()
        }
    }
}
