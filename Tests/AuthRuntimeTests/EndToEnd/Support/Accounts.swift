import AuthCore
import AuthRuntime
import Foundation
import Testing

/// What each backend needs for "a user with a password exists and is signed out", done through
/// the runner itself, and the app's own protected request that answers 200 to a valid token.
enum Accounts {
    static let password = "Passw0rd!123"

    /// Anonymous Wall: email code → register (signed in, password not set) → set password → logout.
    static func anonymousWall(_ stack: EndToEndStack, _ client: Client<AnonymousWallApp>, email: String, password: String = password) async throws {
        await client.send(AnonymousWallIntents.registerEmail(email))
        await client.send(AnonymousWallIntents.registerCode(try stack.lastCode(to: email)))
        #expect(await client.session.map(Self.isPasswordSetup) == true, "registration by code signs in with the password not set")
        await client.send(AnonymousWallIntents.setPassword(password))
        #expect(await client.isActive)
        await client.logout()
    }

    /// VynqTalk: sign up (signed in at once) → logout.
    static func vynqTalk(_ client: Client<VynqTalkApp>, email: String, password: String = password) async {
        await client.send(VynqTalkIntents.signUp("Alice Liddell", email, password))
        #expect(await client.isActive)
        await client.logout()
    }

    /// Everday: register (pending approval) → the parent approves.
    static func everday(_ stack: EndToEndStack, _ client: Client<EverdayApp>, username: String, password: String = password) async {
        let registered = await client.send(EverdayIntents.register(username, password, name: "New Kid", email: "\(username)@example.com"))
        #expect(registered == .pendingApproval("Account request submitted. A parent must approve this account before sign in."))
        #expect(stack.server.approve(username: username))
    }

    /// Subspace: register (signed in at once) → logout.
    static func subspace(_ client: Client<SubspaceApp>, email: String, password: String = password) async {
        await client.send(SubspaceIntents.register("Ada Lovelace", email, password))
        #expect(await client.isActive)
        await client.logout()
    }

    /// Hero365: email sign-up ("check your email").
    static func hero365(_ client: Client<Hero365App>, email: String, password: String = password) async {
        let registered = await client.send(Hero365Intents.signUp(email: email, password, name: "Hero User"))
        #expect(registered == .verificationRequired("User created successfully. Please check your email for verification."))
    }

    static func isPasswordSetup(_ phase: SessionLifecycle.Phase) -> Bool {
        if case .passwordSetupRequired = phase { true } else { false }
    }

    /// A protected request of each backend that answers 200 to a valid bearer (Everday's: the
    /// parent approving itself; Anonymous Wall's: changing the password to itself).
    static func protectedRequest(_ stack: EndToEndStack, password: String = password) throws -> HTTPRequest {
        switch stack.backend {
        case .anonymousWall:
            let body = try JSONSerialization.data(withJSONObject: ["oldPassword": password, "newPassword": password])
            return HTTPRequest(
                method: "POST", url: try stack.url("/auth/password/change"), headers: ["Content-Type": "application/json"], body: body)
        case .vynqTalk: return HTTPRequest(method: "GET", url: try stack.url("/users"))
        case .everday: return HTTPRequest(method: "PUT", url: try stack.url("/settings/users/1/approve"))
        case .subspace: return HTTPRequest(method: "GET", url: try stack.url("/auth/me"))
        case .hero365: return HTTPRequest(method: "GET", url: try stack.url("/users/me"))
        default: throw UnregisteredBackend(backend: stack.backend)
        }
    }
}

/// VynqTalk's realtime connection, which stays in flight for as long as it is open.
enum VynqTalkConnection {
    /// The request id of the open connection, if the state holds one.
    @Sendable static func open(_ state: VynqTalkApp.State) -> RequestID? {
        guard case .signedIn(let phase) = state.phase else { return nil }
        switch phase.connection {
        case .settling(_, let id, _, _, _), .connected(_, let id): return id
        case .idle, .connecting, .checkingToken, .waitingToReconnect, .rejected, .gaveUp: return nil
        }
    }
}

extension Result where Success == HTTPResponse {
    /// The status, or `nil` for an error.
    var status: Int? { (try? get())?.status }
}

/// A test that knows each documented backend was handed another one.
struct UnregisteredBackend: Error, CustomStringConvertible {
    /// The backend the test does not know.
    let backend: Backend
    var description: String { "this test knows no \(backend)" }
}
