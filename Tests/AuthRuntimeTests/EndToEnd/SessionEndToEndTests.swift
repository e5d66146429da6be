import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

/// The shape every backend shares, driven through `AuthRunner` with the real contract and
/// `URLSessionTransport` against the reference server.
@Suite("End to end: sessions on every backend", .timeLimit(.minutes(15)))
struct SessionEndToEndTests {
    @Test(
        "password sign-in, a protected call, relaunch restores the session from the file vault, logout clears it",
        arguments: Backend.documented)
    func signInRelaunchLogout(backend: Backend) async throws {
        try await EndToEndStack.with(backend) { stack in
            switch backend {
            case .anonymousWall:
                try await roundTrip(stack, Apps.anonymousWall(), restoreRequests: []) { client in
                    try await Accounts.anonymousWall(stack, client, email: "kid@school.edu")
                    return AnonymousWallIntents.signIn("kid@school.edu", Accounts.password)
                }
            case .vynqTalk:
                try await roundTrip(stack, Apps.vynqTalk(), realtime: URLSessionRealtimeConnector(timeout: 5), restoreRequests: ["/users/me"]) {
                    client in
                    await Accounts.vynqTalk(client, email: "alice@example.com")
                    return VynqTalkIntents.signIn("alice@example.com", Accounts.password)
                }
            case .everday:
                try await roundTrip(stack, Apps.everday(), restoreRequests: ["/auth/refresh"]) { _ in
                    EverdayIntents.signIn("parent", "ParentPassw0rd!")
                }
            case .subspace:
                try await roundTrip(stack, Apps.subspace(), restoreRequests: ["/auth/me"]) { client in
                    await Accounts.subspace(client, email: "ada@example.com")
                    return SubspaceIntents.signIn("ada@example.com", Accounts.password)
                }
            case .hero365:
                try await roundTrip(stack, Apps.hero365(), restoreRequests: ["/users/me"]) { client in
                    await Accounts.hero365(client, email: "hero@example.com")
                    return Hero365Intents.signIn("hero@example.com", Accounts.password)
                }
            default: throw UnregisteredBackend(backend: backend)
            }
        }
    }

    @Test(
        "a launch check answered 401 (an upstream hiccup, a clock ahead of ours) tries the refresh token once: the session is kept; refused there too, it ends"
    )
    func refusedLaunchCheckTriesRefresh() async throws {
        try await EndToEndStack.with(.hero365) { stack in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let first = await stack.client(Apps.hero365(), vault: FileVault(directory: directory.url))
            await Accounts.hero365(first, email: "hero@example.com")
            await first.send(Hero365Intents.signIn("hero@example.com", Accounts.password))
            #expect(await first.isActive)
            _ = await first.stop()  // The app is killed; the vault stays.

            stack.server.inject(.serverError(status: 401), path: "/api/v1/users/me", times: 1)
            var before = stack.wire.exchanges.count
            let second = await stack.client(Apps.hero365(), vault: FileVault(directory: directory.url))
            await second.settle()
            #expect(await second.isActive, "the refresh token renewed the stored session")
            #expect(stack.wire.exchanges.dropFirst(before).map(\.request.url.lastPathComponent) == ["me", "refresh"])
            _ = await second.stop()

            stack.server.inject(.serverError(status: 401), path: "/api/v1/users/me", times: 1)
            stack.server.inject(.serverError(status: 401), path: "/api/v1/auth/refresh", times: 1)
            before = stack.wire.exchanges.count
            let third = await stack.client(Apps.hero365(), vault: FileVault(directory: directory.url))
            await third.settle()
            #expect(await third.session == nil, "refused by the refresh endpoint too: the session is over")
            #expect(try FileVault(directory: directory.url).load() == nil)
            #expect(stack.wire.exchanges.dropFirst(before).map(\.request.url.lastPathComponent) == ["me", "refresh"])
            _ = await third.stop()
        }
    }

    /// Prepares an account, signs in, calls, "kills" the app, relaunches over the same vault
    /// directory (expecting exactly `restoreRequests` on the way), calls again, logs out, and
    /// relaunches once more to find nothing.
    func roundTrip<App: EndToEndApp>(
        _ stack: EndToEndStack, _ app: App, realtime: (any RealtimeConnector)? = nil, restoreRequests: [String],
        prepare: (Client<App>) async throws -> PasswordSignIn.Intent
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let open: @Sendable (App.State) -> RequestID? = { state in
            (state as? VynqTalkApp.State).flatMap(VynqTalkConnection.open)
        }
        let first = await stack.client(app, vault: FileVault(directory: directory.url), realtime: realtime, openConnection: open)
        let signIn = try await prepare(first)
        await first.send(signIn)
        #expect(await first.isActive)
        let credentials = try #require(await first.credentials)
        #expect(try FileVault(directory: directory.url).load() == credentials)
        let request = try Accounts.protectedRequest(stack)
        #expect(await first.call(request).status == 200)
        _ = await first.stop()  // The app is killed; the vault stays.

        let before = stack.wire.exchanges.count
        let second = await stack.client(app, vault: FileVault(directory: directory.url), realtime: realtime, openConnection: open)
        await second.settle()
        #expect(await second.isActive, "the relaunched app is signed in from the vault")
        let restored = try #require(await second.credentials)
        #expect(restored.user.id == credentials.user.id)
        let restoring = stack.wire.exchanges.dropFirst(before).map(\.request.url.path)
            .filter { path in !path.hasSuffix("/ws") }
        #expect(restoring.map { path in restoreRequests.first { path.hasSuffix($0) } ?? path } == restoreRequests)
        #expect(try FileVault(directory: directory.url).load() == restored)
        #expect(await second.call(request).status == 200)

        await second.logout()
        #expect(await second.session == nil)
        #expect(try FileVault(directory: directory.url).load() == nil)
        #expect(await second.call(request).failureValue == .rejected(.notSignedIn))
        #expect(await second.waitFor(.signedOut(.userRequested)))
        _ = await second.stop()

        let third = await stack.client(app, vault: FileVault(directory: directory.url), realtime: realtime, openConnection: open)
        await third.settle()
        #expect(await third.session == nil)
        _ = await third.stop()
    }
}

extension Result {
    /// The error, or `nil` for a success.
    var failureValue: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
