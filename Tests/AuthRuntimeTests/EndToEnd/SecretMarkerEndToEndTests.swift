import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// Issue 5's marker-secret test through the real contracts and the real server: marker
/// passwords are typed into every backend's main lifecycles, the server issues real codes and
/// tokens, and none of them (nor any other secret that crossed the wire) may appear in a log
/// line (recorder or line logger), a state description, an outcome, an issue or an error message.
@Suite("End to end: no secret in logs, descriptions or errors", .timeLimit(.minutes(15)))
struct SecretMarkerEndToEndTests {
    /// Passwords nobody would type by chance, so a leak cannot hide behind a coincidence.
    struct Markers {
        let password = "Pw-MARKER-7731x"
        let newPassword = "NewPw-MARKER-5512"
        let resetPassword = "ResetPw-MARKER-8890"
        let wrongPassword = "WrongPw-MARKER-0042"
        var all: [String] { [password, newPassword, resetPassword, wrongPassword] }
    }

    static let markers = Markers()

    @Test("every backend's main lifecycles leak no marker password, code or server-issued token", arguments: Backend.documented)
    func noLeaks(backend: Backend) async throws {
        try await EndToEndStack.with(backend) { stack in
            var texts: [String]
            switch backend {
            case .anonymousWall: texts = try await Self.anonymousWall(stack)
            case .vynqTalk: texts = try await Self.vynqTalk(stack)
            case .everday: texts = try await Self.everday(stack)
            case .subspace: texts = try await Self.subspace(stack)
            case .hero365: texts = try await Self.hero365(stack)
            default: throw UnregisteredBackend(backend: backend)
            }
            texts += stack.log.lines
            let httpEntries = stack.log.recorder.entries.filter { !$0.url.hasPrefix("ws") }  // Realtime handshakes are logged too.
            #expect(httpEntries.count == stack.wire.exchanges.count, "every exchange was logged")

            let wire = stack.wire.secrets()
            for marker in Self.markers.all where !Self.typedOnly(backend).contains(marker) {
                #expect(wire.contains(marker), "\(marker.prefix(8))… never reached the wire: the test would prove nothing")
            }
            for marker in Self.typedOnly(backend) {
                #expect(!wire.contains(marker))
            }
            #expect(wire.contains { $0.hasPrefix("eyJ") }, "server-issued JWTs crossed the wire")
            let leaks = Leaks.find(wire.union(Self.markers.all), in: texts)
            #expect(leaks.isEmpty, "\(leaks.count) leaks:\n\(leaks.prefix(10).joined(separator: "\n"))")
        }
    }

    /// Markers typed into the app that have nowhere to go on this backend (VynqTalk has no
    /// reset): they must not show up anywhere either.
    static func typedOnly(_ backend: Backend) -> [String] {
        switch backend {
        case .vynqTalk: [markers.resetPassword]
        default: []  // Anonymous Wall, Everday, Subspace and Hero365 take every marker.
        }
    }

    /// Every text a failed call shows.
    static func texts(_ result: Result<HTTPResponse, AuthError>) -> [String] {
        switch result {
        case .success(let response): [response.description, String(reflecting: response)]
        case .failure(let error): [error.description, (error.errorDescription ?? ""), String(reflecting: error)]
        }
    }

    /// Every text the outcomes' failures show to a user.
    static func messages(_ outcomes: [AuthOutcome]) -> [String] {
        outcomes.compactMap { outcome in
            if case .failed(let failure) = outcome { failure.userMessage } else { nil }
        }
    }

    static func anonymousWall(_ stack: EndToEndStack) async throws -> [String] {
        typealias Do = AnonymousWallIntents
        let m = markers
        let email = "kid@school.edu"
        let client = await stack.client(Apps.anonymousWall())
        try await Accounts.anonymousWall(stack, client, email: email, password: m.password)
        await client.send(Do.signIn(email, m.wrongPassword))
        await client.send(Do.signIn(email, m.password))
        await client.send(Do.changePassword(m.password, m.newPassword))
        await client.send(Do.changePassword(m.wrongPassword, m.password))
        var texts = Self.texts(await client.call(try Accounts.protectedRequest(stack, password: m.newPassword)))
        await client.logout()
        await client.send(Do.codeSignIn(email))
        await client.send(Do.loginCode("000000"))
        await client.send(Do.loginCode(try stack.lastCode(to: email)))
        await client.logout()
        await client.send(Do.requestReset(email))
        await client.send(Do.reset(code: try stack.lastCode(to: email), newPassword: m.resetPassword))
        #expect(await client.isActive)
        await client.logout()
        texts += Self.messages(client.outcomes.elements)
        return texts + (await client.stop())
    }

    static func vynqTalk(_ stack: EndToEndStack) async throws -> [String] {
        typealias Do = VynqTalkIntents
        let m = markers
        let connector = ScriptedRealtime()
        let client = await stack.client(Apps.vynqTalk(), realtime: connector, openConnection: VynqTalkConnection.open)
        await client.send(Do.signUp("Alice", "alice@example.com", m.password))
        var texts = Self.texts(await client.call(HTTPRequest(method: "GET", url: try stack.url("/users"))))
        await client.logout()
        await client.send(Do.signIn("alice@example.com", m.wrongPassword))
        await client.send(Do.signUp("Alice", "alice@example.com", m.newPassword))
        await client.send(Do.signIn("alice@example.com", m.password))
        #expect(await client.waitFor(.realtimeConnected, count: 2))
        stack.server.inject(.serverError(status: 403), path: "/users", times: 1)
        texts += Self.texts(await client.call(HTTPRequest(method: "GET", url: try stack.url("/users"))))
        #expect(connector.urls.count == 2, "the realtime URL carried a token twice")
        texts += Self.messages(client.outcomes.elements)
        return texts + (await client.stop())
    }

    static func everday(_ stack: EndToEndStack) async throws -> [String] {
        typealias Do = EverdayIntents
        let m = markers
        let client = await stack.client(Apps.everday())
        await client.send(Do.register("newkid", m.password, name: "New Kid", email: "newkid@example.com"))
        await client.send(Do.signIn("newkid", m.password))  // Pending approval.
        stack.server.approve(username: "newkid")
        await client.send(Do.signIn("newkid", m.wrongPassword))
        await client.send(Do.signIn("newkid", m.password))
        await client.advance(stack.clock, by: .seconds(1740))  // Proactive refresh.
        #expect(await client.waitFor(.tokenRefreshed))
        let id = try #require(stack.server.everdayUserID(username: "newkid"))
        var texts = Self.texts(await client.call(HTTPRequest(method: "PUT", url: try stack.url("/settings/users/\(id)/approve"))))
        stack.server.setRequirePasswordChange(username: "newkid", true)
        await client.logout()
        await client.send(Do.signIn("newkid", m.password))
        await client.send(Do.changePassword(m.wrongPassword, m.newPassword))  // 401 `Invalid credentials`: the session is kept.
        await client.send(Do.changePassword(m.password, m.newPassword))  // Accepted: every session of the user ends.
        #expect(await client.waitFor(.signedOut(.passwordChanged)))
        await client.send(Do.forgot("newkid"))
        await client.send(Do.reset(token: try stack.lastCode(to: "newkid@example.com"), newPassword: m.resetPassword))
        await client.send(Do.signIn("newkid", m.resetPassword))
        #expect(await client.isActive)
        await client.logout()
        texts += Self.messages(client.outcomes.elements)
        return texts + (await client.stop())
    }

    static func subspace(_ stack: EndToEndStack) async throws -> [String] {
        typealias Do = SubspaceIntents
        let m = markers
        let client = await stack.client(Apps.subspace())
        await client.send(Do.register("Ada", "ada@example.com", m.password))
        var texts = Self.texts(await client.call(HTTPRequest(method: "GET", url: try stack.url("/auth/me"))))
        await client.logout()
        await client.send(Do.signIn("ada@example.com", m.wrongPassword))
        await client.send(Do.register("Ada", "ada@example.com", m.newPassword))  // 409.
        await client.send(Do.signIn("ada@example.com", m.password))
        await client.advance(stack.clock, by: .seconds(24 * 3600))  // Expired.
        texts += Self.texts(await client.call(HTTPRequest(method: "GET", url: try stack.url("/auth/me"))))
        await client.send(Do.register("Eve", "eve@example.com", m.resetPassword))
        texts += Self.messages(client.outcomes.elements)
        return texts + (await client.stop())
    }

    static func hero365(_ stack: EndToEndStack) async throws -> [String] {
        typealias Do = Hero365Intents
        let m = markers
        let phone = "+15551234567"
        let client = await stack.client(Apps.hero365())
        await client.send(Do.signUp(email: "hero@example.com", m.password))
        await client.send(Do.signIn("hero@example.com", m.wrongPassword))
        await client.send(Do.signIn("hero@example.com", m.password))
        await client.advance(stack.clock, by: .seconds(8 * 24 * 3600 - 60))  // Proactive refresh.
        #expect(await client.waitFor(.tokenRefreshed))
        var texts = Self.texts(await client.call(try Accounts.protectedRequest(stack)))
        await client.logout()
        await client.send(Do.sendCode(phone))
        await client.send(Do.verify("000000"))
        await client.send(Do.verify(try stack.lastCode(to: phone)))
        await client.logout()
        await client.send(Do.signUp(phone: phone, m.newPassword))
        await client.send(Do.signUp(phone: "+15557654321", m.resetPassword))
        await client.send(Do.signIn("+15557654321", m.resetPassword))
        await client.send(Do.recover("hero@example.com"))  // Already signed in: refused locally.
        await client.logout()
        await client.send(Do.recover("hero@example.com"))
        texts += Self.messages(client.outcomes.elements)
        return texts + (await client.stop())
    }
}
