@testable import AnonymousWallExample
import AuthCore
import AuthRuntime
import AuthTestSupport
@testable import CustomServerExample
@testable import EverdayExample
import Foundation
@testable import Hero365Example
@testable import OpenIDConnectExample
import ReferenceBackend
@testable import SubspaceExample
import Testing
@testable import VynqTalkExample

/// Each example app, run against the reference backend in process, does what it says: sign up or
/// in, an authorized call, sign out — any failure throws its `AuthError`.
@Suite("Example apps against the reference backend", .timeLimit(.minutes(15)))
struct ExamplesTests {
    /// A started server mounting `backend` alone (the documented paths at its root).
    static func server(_ backend: ServedBackend) throws -> ReferenceServer {
        let server = ReferenceServer(backends: [backend])
        try server.start()
        return server
    }

    /// The documented API base under `server`.
    static func api(_ server: ReferenceServer, _ backend: ServedBackend, _ prefix: String) throws -> URL {
        try #require(URL(string: server.baseURL(for: backend).absoluteString + prefix))
    }

    /// The latest code the server sent `recipient`.
    static func code(_ server: ReferenceServer, to recipient: String) -> String {
        server.outbox(to: recipient).last?.code ?? ""
    }

    @Test("SubspaceExample: register, sign in (the README's snippet), GET /auth/me, sign out")
    func subspace() async throws {
        let server = try Self.server(.subspace)
        defer { server.stop() }
        let url = try Self.api(server, .subspace, "/api/v1")
        try await SubspaceExample.Example.register(baseURL: url, email: "ada@example.com", password: "Passw0rd!123")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SubspaceExample.Example.run(baseURL: url, directory: directory.url, email: "ada@example.com", password: "Passw0rd!123")
        #expect(server.ledger.requests("GET", "/api/v1/auth/me") == 1)
    }

    @Test("Hero365Example: sign up, sign in, /users/me, sign out; an SMS code signs in again; GET /users/me; sign out")
    func hero365() async throws {
        let server = try Self.server(.hero365)
        defer { server.stop() }
        try await Hero365Example.Example.run(
            baseURL: try Self.api(server, .hero365, "/api/v1"), email: "hero@example.com", phone: "+15551234567"
        ) { phone in Self.code(server, to: phone) }
        #expect(server.ledger.requests("GET", "/api/v1/users/me") == 2)
    }

    @Test("EverdayExample: a kid registers pending approval; the parent signs in, makes an authorized call, signs out")
    func everday() async throws {
        let server = try Self.server(.everday)
        defer { server.stop() }
        let parent = server.configuration.everday.parent
        try await EverdayExample.Example.run(
            baseURL: try Self.api(server, .everday, "/api"), kid: "newkid", parent: parent.username, parentPassword: parent.password)
        #expect(server.ledger.requests("PUT", "/api/settings/users/{user_id}/approve") == 1)
        #expect(server.ledger.requests("POST", "/api/auth/logout") == 1)
    }

    @Test("AnonymousWallExample: register by code, set the password, sign in with it, change it, sign out")
    func anonymousWall() async throws {
        let server = try Self.server(.anonymousWall)
        defer { server.stop() }
        try await AnonymousWallExample.Example.run(baseURL: try Self.api(server, .anonymousWall, "/api/v1"), email: "kid@harvard.edu") {
            email in Self.code(server, to: email)
        }
        #expect(server.ledger.requests("POST", "/api/v1/auth/password/change") == 1)
    }

    @Test("VynqTalkExample: sign up, GET /users, sign out, sign in again, sign out")
    func vynqTalk() async throws {
        let server = try Self.server(.vynqTalk)
        defer { server.stop() }
        try await VynqTalkExample.Example.run(baseURL: server.baseURL(for: .vynqTalk), email: "alice@example.com", realtime: nil)
        #expect(server.ledger.requests("GET", "/users") == 1)
    }

    @Test("CustomServerExample, against a server none of the five: sign in, GET /me, sign out ending the server session")
    func customServer() async throws {
        let server = CustomSessionServer()
        let root = try server.start()
        defer { server.stop() }
        try await CustomServerExample.Example.run(server: root, user: "ada", password: "lovelace-1815")
        #expect(server.requests("POST", "/session") == 1)
        #expect(server.requests("GET", "/me") == 1)
        #expect(server.requests("DELETE", "/session") == 1)
        #expect(server.openSessions == 0, "the server session ended")
        let wrong = await #expect(throws: AuthError.self) {
            try await CustomServerExample.Example.run(server: root, user: "ada", password: "wrong-password")
        }
        #expect(wrong == .server(.unauthorized("wrong user or password")))
    }

    @Test(
        "CustomServerExample's contract renews before the token's ttl runs out, rotating; a relaunch restores by renewing; a reused renew token is refused"
    )
    func customServerRenews() async throws {
        let clock = ManualClock()
        let server = CustomSessionServer(now: { clock.now.date })
        let root = try server.start()
        defer { server.stop() }
        let vault = MemoryVault()
        let policy = SessionPolicy(refresh: .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)), restore: .refresh)
        let auth = AuthClient(contract: SessionAPI(baseURL: root), signIn: .username, session: policy, vault: vault, clock: clock)
        let user = try await auth.signIn("ada", password: "lovelace-1815").user
        #expect(user?.id == "ada", "the user named by the token's sub")
        let first = try #require(vault.credentials?.refreshToken?.reveal())
        #expect(vault.credentials?.expiresAt == clock.now + .seconds(900), "the expiry read from ttl")

        await clock.advance(by: .seconds(850))  // Past the 60 s margin before the 900 s ttl.
        for _ in 0..<1_000 where server.requests("POST", "/session/renew") == 0 || vault.credentials?.refreshToken?.reveal() == first {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(server.requests("POST", "/session/renew") == 1)
        let second = try #require(vault.credentials?.refreshToken?.reveal())
        #expect(second != first && server.isLive(renew: second) && !server.isLive(renew: first))
        await clock.advance(by: .seconds(100))  // The first token's ttl is over; the renewed one lives on.
        #expect(try await auth.authorized(HTTPRequest(method: "GET", url: root.appending(path: "me"))).status == 200)
        await auth.stop()

        let relaunched = AuthClient(contract: SessionAPI(baseURL: root), signIn: .username, session: policy, vault: vault, clock: clock)
        let restored = await relaunched.authStateChanges.first { $0 != .restoring }
        #expect(restored?.user?.id == "ada")
        #expect(server.requests("POST", "/session/renew") == 2, "restored by renewing")
        await relaunched.stop()

        let api = SessionAPI(baseURL: root)
        let live = try #require(vault.credentials?.refreshToken?.reveal())
        let reused = try await URLSessionTransport().send(try api.encode(.refresh(RefreshToken(first))))
        #expect(api.decode(reused, for: .refresh(RefreshToken(first)), receivedAt: clock.now) == .failed(.unauthorized("session ended")))
        #expect(!server.isLive(renew: live), "presenting a consumed renew token ended the session")
    }

    @Test("CustomServerExample's contract offers only what the server has, and an unreadable answer is malformed")
    func customServerContract() throws {
        let api = SessionAPI(baseURL: URL(string: "http://127.0.0.1:9/")!)
        let signIn = try api.encode(.signIn(.username(try Username("ada")), try Password(PasswordInput("lovelace-1815"))))
        #expect(signIn.url.absoluteString == "http://127.0.0.1:9/session")
        #expect(signIn.body.map { String(decoding: $0, as: UTF8.self) } == #"{"user":"ada","pass":"lovelace-1815"}"#)
        #expect(throws: ContractError.self) { try api.encode(.requestPasswordReset(.usernameOrEmail("ada"))) }
        let garbage = HTTPResponse(status: 200, body: Data("<html>portal</html>".utf8))
        #expect(api.decode(garbage, for: .refresh(RefreshToken("r")), receivedAt: .seconds(0)) == .failed(.malformed))
    }

    @Test("OpenIDConnectExample (the README's snippet): discovery, sign-in by code + PKCE, userinfo, sign out with the refresh token revoked")
    func openIDConnect() async throws {
        let server = try Self.server(.openIDConnect)
        defer { server.stop() }
        try await OpenIDConnectExample.Example.run(
            issuer: server.baseURL(for: .openIDConnect), clientID: "app-1", redirectURI: try #require(URL(string: "com.example.app:/oauth2redirect")),
            vault: MemoryVault(), browser: ReferenceProviderBrowser.at(server.rootURL))
        let base = server.baseURL(for: .openIDConnect).path
        #expect(server.ledger.requests("POST", base + "/token") == 1)
        #expect(server.ledger.requests("GET", base + "/userinfo") == 1)
        #expect(server.ledger.requests("POST", base + "/revoke") == 1)
    }

    @Test("the README's embedding example is the SubspaceExample's code, line for line")
    func readmeSnippet() throws {
        let readme = try String(contentsOf: Checkout.root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: Checkout.root.appendingPathComponent("Sources/Examples/SubspaceExample/SubspaceExample.swift"), encoding: .utf8)
        let marked = try #require(Self.between("// README: embedding\n", "// README: end", in: source))
        let lines = marked.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let block = try #require(Self.between("<!-- embedding: Sources/Examples/SubspaceExample -->\n```swift\n", "```", in: readme))
        let shown = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
        #expect(shown == lines)
        #expect(shown.count + 2 <= 10, "the first embedding example fits in ten lines, imports included")
    }

    /// The non-empty lines of `example`'s source between `// README: <marker>` and `// README: end`,
    /// and those of the README's Swift block after `<!-- <marker>: Sources/Examples/<example> -->`
    /// (its imports left out), each trimmed.
    static func readmeBlock(_ marker: String, of example: String) throws -> (source: [String], readme: [String]) {
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
        }
        let readme = try String(contentsOf: Checkout.root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: Checkout.root.appendingPathComponent("Sources/Examples/\(example)/\(example).swift"), encoding: .utf8)
        let marked = try #require(Self.between("// README: \(marker)\n", "// README: end", in: source), "no \(marker) block in \(example)")
        let block = try #require(
            Self.between("<!-- \(marker): Sources/Examples/\(example) -->\n```swift\n", "```", in: readme), "no \(marker) block in the README")
        return (lines(marked), lines(block))
    }

    @Test("the README's \"Your own server\" is CustomServerExample's contract and client, line for line, in at most 60 lines")
    func readmeOwnServer() throws {
        let contract = try Self.readmeBlock("own server", of: "CustomServerExample")
        let client = try Self.readmeBlock("own client", of: "CustomServerExample")
        #expect(contract.readme == contract.source)
        #expect(client.readme == client.source)
        #expect(contract.source.contains { $0.hasPrefix("struct SessionAPI: BackendContract") })
        #expect(contract.source.count + client.source.count <= 60, "a contract of one's own and its client fit in 60 lines")
    }

    @Test("the README's \"Any OpenID Connect server\" is OpenIDConnectExample's code, line for line, in at most ten lines")
    func readmeOpenIDConnect() throws {
        let example = try Self.readmeBlock("openid", of: "OpenIDConnectExample")
        #expect(example.readme == example.source)
        #expect(example.source.first?.hasPrefix("let auth = try await OpenIDConnectClient.discover(") == true)
        #expect(example.source.count + 1 <= 10, "sign-in with any OpenID Connect provider fits in ten lines, the import included")
    }

    /// The text between the first `start` and the next `end`.
    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }
}
