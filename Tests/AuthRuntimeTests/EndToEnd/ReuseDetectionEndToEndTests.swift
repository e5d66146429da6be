import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// Reuse detection proven through the contract and the runner: a runner made to present a
/// consumed refresh token (an app that restored an old copy of its vault) makes the server
/// revoke the whole family, and is signed out by it. The randomized runs show the other half:
/// the client never triggers it unless an answer was lost after the server rotated.
@Suite("End to end: refresh-token reuse detection", .timeLimit(.minutes(15)))
struct ReuseDetectionEndToEndTests {
    @Test(
        "a runner relaunched over a stale vault presents the consumed token: the server revokes the family, the client signs out",
        arguments: RefreshEndToEndTests.rotating)
    func staleVaultRevokesFamily(backend: Backend) async throws {
        try await EndToEndStack.with(backend) { stack in
            let vault = MemoryVault()
            let current = try await RefreshEndToEndTests.signedIn(stack, vault: vault)
            let stale = try #require(await current.credentials())
            let lifetime = RefreshEndToEndTests.lifetime(backend)
            await current.advance(by: .seconds(lifetime - 60))
            #expect(await current.waitFor(.tokenRefreshed))
            let rotated = try #require(await current.credentials())
            let r1 = try #require(stale.refreshToken).reveal()
            let r2 = try #require(rotated.refreshToken).reveal()
            #expect(stack.server.refreshTokenStatus(r1) == .consumed)
            _ = await current.stop()

            // The app comes back with an old copy of its vault, once the stale access token has
            // expired too (so Hero365 refreshes at launch rather than asking /users/me).
            await stack.clock.advance(by: .seconds(61))
            let restored = MemoryVault(stale)
            let replaying: AnyRotatingClient =
                backend == .everday
                ? AnyRotatingClient(await stack.client(Apps.everday(), vault: restored))
                : AnyRotatingClient(await stack.client(Apps.hero365(), vault: restored))
            #expect(await replaying.waitFor(.signedOut(.sessionExpired)))
            #expect(restored.credentials == nil)
            let ledger = stack.server.ledger
            #expect(ledger.refreshTokensPresented == [r1, r1])
            #expect(ledger.reuseDetections.count == 1)
            #expect(ledger.familiesRevoked == ledger.reuseDetections)
            #expect(stack.server.refreshTokenStatus(r2) == .revoked, "the successor dies with its family")
            #expect(stack.server.accessTokenStatus(rotated.accessToken.reveal()) == .revoked)
            _ = await replaying.stop()
        }
    }

    @Test("the device that held the live successor finds out at its next call: refused, its refresh refused, signed out")
    func survivorIsSignedOut() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let vault = MemoryVault()
            let survivor = await stack.client(Apps.everday(), vault: vault)
            await survivor.send(EverdayIntents.signIn("parent", "ParentPassw0rd!"))
            let stale = try #require(await survivor.credentials)
            await survivor.advance(stack.clock, by: .seconds(1740))
            #expect(await survivor.waitFor(.tokenRefreshed))

            let replaying = await stack.client(Apps.everday(), vault: MemoryVault(stale))
            await replaying.settle()
            #expect(stack.server.ledger.reuseDetections.count == 1)

            let request = try Accounts.protectedRequest(stack)
            #expect(await survivor.call(request).failureValue == .sessionEnded)
            #expect(await survivor.waitFor(.signedOut(.sessionExpired)))
            #expect(vault.credentials == nil)
            _ = await survivor.stop()
            _ = await replaying.stop()
        }
    }
}
