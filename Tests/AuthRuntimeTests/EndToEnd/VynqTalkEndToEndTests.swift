import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// VynqTalk over HTTP end to end. Its realtime connection is tested with the scripted connector:
/// on this Linux toolchain FoundationNetworking's libcurl cannot open WebSockets, so
/// `URLSessionRealtimeConnector` reports `.unsupported` (the first test pins what then happens).
@Suite("End to end: VynqTalk", .timeLimit(.minutes(15)))
struct VynqTalkEndToEndTests {
    typealias Do = VynqTalkIntents

    enum Refusal: String, CaseIterable, CustomTestStringConvertible {
        case expiredToken, forbidden
        var testDescription: String { rawValue }
    }

    @Test(
        "a protected call answered 401 (token expired on the server, unknown to the client) or 403 logs the user out; the caller gets sessionEnded",
        arguments: Refusal.allCases)
    func automaticLogout(refusal: Refusal) async throws {
        try await EndToEndStack.with(.vynqTalk, configure: { $0.vynqTalk.tokens.includesExpiryClaim = false }) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.vynqTalk(), vault: vault, realtime: ScriptedRealtime(), openConnection: VynqTalkConnection.open)
            await client.send(Do.signUp("Alice", "alice@example.com", Accounts.password))
            #expect(await client.waitFor(.realtimeConnected))
            let users = HTTPRequest(method: "GET", url: try stack.url("/users"))
            #expect(await client.call(users).status == 200)
            switch refusal {
            case .expiredToken: await client.advance(stack.clock, by: .seconds(3601))
            case .forbidden: stack.server.inject(.serverError(status: 403), path: "/users", times: 1)
            }
            #expect(await client.isActive, "the client cannot know before it asks")
            #expect(await client.call(users).failureValue == .sessionEnded)
            #expect(await client.waitFor(.signedOut(.tokenRejected)))
            #expect(await client.waitFor(.realtimeDisconnected))
            #expect(vault.credentials == nil)
            #expect(await client.session == nil)
            _ = await client.stop()
        }
    }

    @Test(
        "the document's token carries exp; the deployed server's carries expiration and no exp; both give the session its expiry",
        arguments: ServerForm.allCases)
    func tokenExpiryInEitherForm(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.vynqTalk, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.vynqTalk(), vault: vault, realtime: ScriptedRealtime(), openConnection: VynqTalkConnection.open)
            await client.send(Do.signUp("Alice", "alice@example.com", Accounts.password))
            let credentials = try #require(await client.credentials)
            let payload = try #require(JWTClaims.payload(of: credentials.accessToken.reveal()))
            #expect((payload["exp"] == nil) == (form == .deployed), "the deployed token has no exp")
            #expect(credentials.expiresAt == Instant(referenceNow) + .seconds(3600))
            await client.advance(stack.clock, by: .seconds(3600))
            #expect(await client.waitFor(.signedOut(.tokenExpired)), "the session knew when its token ended")
            #expect(vault.credentials == nil)
            _ = await client.stop()
        }
    }

    @Test("an answer with success false at HTTP 200 is a failure with the server's message, not a session")
    func successFalse() async throws {
        try await EndToEndStack.with(.vynqTalk) { stack in
            let client = await stack.client(Apps.vynqTalk(), realtime: ScriptedRealtime(), openConnection: VynqTalkConnection.open)
            await Accounts.vynqTalk(client, email: "alice@example.com")
            stack.server.inject(.successFalse(message: "Account locked"), path: "/auth/login", times: 1)
            let refused = await client.send(Do.signIn("alice@example.com", Accounts.password))
            guard case .failed(let failure) = refused else {
                Issue.record("not a failure: \(refused)")
                return
            }
            #expect(failure.userMessage == "Account locked")
            #expect(await client.session == nil)
            await client.send(Do.signIn("alice@example.com", Accounts.password))
            #expect(await client.isActive)
            _ = await client.stop()
        }
    }

    @Test("realtime with the platform's URLSession connector: opened where the platform can; otherwise an issue says why, and HTTP goes on")
    func platformRealtime() async throws {
        try await EndToEndStack.with(.vynqTalk) { stack in
            let client = await stack.client(
                Apps.vynqTalk(), realtime: URLSessionRealtimeConnector(timeout: 5), openConnection: VynqTalkConnection.open)
            await client.send(Do.signUp("Alice", "alice@example.com", Accounts.password))
            let unsupported = RuntimeIssue.realtimeUnavailable(reason: "this platform cannot open WebSockets")
            // The first attempt ends one way or the other: opened, or waiting to try again.
            #expect(
                await client.states.waitFor { states in
                    guard case .signedIn(let phase)? = states.last?.phase else { return false }
                    switch phase.connection {
                    case .settling, .connected, .waitingToReconnect, .gaveUp: return true
                    case .idle, .connecting, .checkingToken, .rejected: return false
                    }
                })
            #expect(client.outcomes.elements.contains(.realtimeConnected) || client.issues.elements.contains(unsupported))
            if client.issues.elements.contains(unsupported) {
                // Linux without WebSocket support in libcurl: the connection retries with backoff and gives up.
                #expect(await client.isActive, "the session does not depend on the connection")
                let users = HTTPRequest(method: "GET", url: try stack.url("/users"))
                #expect(await client.call(users).status == 200)
                for _ in 0..<5 { await client.advance(stack.clock, by: .seconds(30)) }
                #expect(await client.waitFor(.realtimeDisconnected))
                guard case .signedIn(let phase) = await client.phase, case .gaveUp = phase.connection else {
                    Issue.record("the connection did not give up: \(await client.phase)")
                    return
                }
            }
            _ = await client.stop()
        }
    }

    @Test(
        "a suspended user: the document's server refuses the handshake (403); the deployed one opens and closes at once, every time; both stop the connection and end the session, reported",
        arguments: ServerForm.allCases)
    func suspendedUserStopsTheConnection(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.vynqTalk, configure: form.configure) { stack in
            let connector = LoopbackWebSocketConnector()
            let vault = MemoryVault()
            let client = await stack.client(Apps.vynqTalk(), vault: vault, realtime: connector, openConnection: VynqTalkConnection.open)
            await client.send(Do.signUp("Alice", "alice@example.com", Accounts.password))
            #expect(await client.waitFor(.realtimeConnected))
            await client.advance(stack.clock, by: .seconds(10))  // It stayed open: established.
            guard case .signedIn(let established) = await client.phase, case .connected = established.connection else {
                Issue.record("not established: \(await client.phase)")
                return
            }
            #expect(stack.server.suspendVynqTalkUser(email: "alice@example.com"))
            stack.server.disconnectWebSockets()
            // Each reconnect waits on the shared clock: move it on whenever the connection waits, until the session ends.
            for _ in 0..<10 {
                let waitingOrEnded = await client.states.waitFor { states in
                    guard case .signedIn(let phase)? = states.last?.phase else { return true }
                    if case .waitingToReconnect = phase.connection { return true }
                    return false
                }
                guard waitingOrEnded, await client.isActive else { break }
                await client.advance(stack.clock, by: .seconds(30))
            }
            #expect(await client.waitFor(.signedOut(.tokenRejected)), "the refused connection ended the session (no refresh on VynqTalk)")
            #expect(vault.credentials == nil)
            switch form {
            case .documented:
                #expect(connector.acceptedHandshakes == 1, "the reconnect was refused at the handshake")
            case .deployed:
                #expect(connector.acceptedHandshakes == 3, "the first open, then two opens closed at once: the bound")
                #expect(client.outcomes.elements.contains(.failed(.unauthorized(RealtimeConnection.flappingMessage))))
                #expect(client.outcomes.elements.filter { $0 == .realtimeConnected }.count == 3)
            }
            await client.advance(stack.clock, by: .seconds(120))
            #expect(connector.acceptedHandshakes == (form == .deployed ? 3 : 1), "nothing reconnects after the session ended")
            _ = await client.stop()
        }
    }

    @Test(
        "realtime (scripted connector): opens with the token the server issued, reconnects after an established connection drops on the shared clock, closes at logout"
    )
    func realtimeLifecycle() async throws {
        try await EndToEndStack.with(.vynqTalk) { stack in
            let connector = ScriptedRealtime()
            let client = await stack.client(Apps.vynqTalk(), realtime: connector, openConnection: VynqTalkConnection.open)
            await client.send(Do.signUp("Alice", "alice@example.com", Accounts.password))
            #expect(await client.waitFor(.realtimeConnected))
            let token = try #require(await client.credentials?.accessToken)
            let url = try #require(connector.urls.first)
            #expect(url.path == "/ws" && url.query == "token=" + token.reveal())
            #expect(stack.server.accessTokenStatus(token.reveal()) == .live)
            #expect(stack.log.lines.contains { $0.contains("/ws?token=‹redacted› → opened") })
            await client.advance(stack.clock, by: .seconds(10))  // It stayed open: established, so a drop starts the backoff over.

            connector.channels.first?.drop()
            #expect(
                await client.states.waitFor { states in
                    guard case .signedIn(let phase)? = states.last?.phase, case .waitingToReconnect = phase.connection else { return false }
                    return true
                })
            await client.advance(stack.clock, by: .seconds(1))
            #expect(await client.waitFor(.realtimeConnected, count: 2))
            #expect(connector.urls.count == 2)

            await client.logout()
            #expect(connector.channels.last?.isClosedByClient == true)
            #expect(await client.waitFor(.realtimeDisconnected))
            _ = await client.stop()
        }
    }
}
