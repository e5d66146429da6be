import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Cross-check against the reference server: VynqTalk", .timeLimit(.minutes(15)))
struct VynqTalkCrossCheckTests {
    static func signup(_ vynq: ContractClient, email: String = "ada@example.com") async throws -> Reply {
        try await vynq.send(
            .register(
                RegistrationDetails(
                    identifier: .email(try Typed.email(email)), password: try Typed.password("analytical-engine"),
                    name: try Typed.name("Ada Lovelace"))))
    }

    @Test("signup and login answer the envelope with an accessToken and a user; protected calls carry the bearer")
    func signupLoginAndCalls() async throws {
        try await withReference(.vynqTalk) { vynq in
            guard let signedUp = try await Self.signup(vynq).grant() else { return }
            #expect(signedUp.user.name == "Ada Lovelace" && signedUp.user.email == "ada@example.com")
            #expect(signedUp.expiry == .at(.afterReferenceNow(3600)))
            let login = try await vynq.send(.signIn(.email(try Typed.email("ada@example.com")), try Typed.password("analytical-engine")))
            guard let grant = login.grant() else { return }
            #expect(grant.user.id == signedUp.user.id)

            let bearer = Bearer(token: grant.accessToken, userID: grant.user.id)
            #expect(try await vynq.protected("GET", "/users", bearer) == .accepted(nil))
            #expect(try await vynq.protected("GET", "/users/search?query=ada", bearer) == .accepted(nil))
            #expect(try await vynq.protected("GET", "/users", Bearer(token: AccessToken("dead"), userID: "x")) == .failed(.unauthorized(nil)))
        }
    }

    @Test(
        "the document says a refused login is 401 in the envelope; the deployed server answers 200 with success false; both are a refusal with the server's words",
        arguments: [false, true])
    func refusedLoginInEitherForm(_ deployed: Bool) async throws {
        try await withReference(.vynqTalk, configure: { if deployed { $0.answerAsDeployed() } }) { vynq in
            _ = try await Self.signup(vynq)
            let http = try vynq.contract.encode(.signIn(.email(try Typed.email("ada@example.com")), try Typed.password("wrong-password")))
            let raw = try await vynq.transport.send(http)
            #expect(raw.status == (deployed ? 200 : 401))
            for email in ["ada@example.com", "nobody@example.com"] {
                let refused = try await vynq.send(.signIn(.email(try Typed.email(email)), try Typed.password("wrong-password")))
                #expect(refused == .failed(.unauthorized(deployed ? "Incorrect Password." : "Invalid email or password")), "\(email)")
            }
            let right = try await vynq.send(.signIn(.email(try Typed.email("ada@example.com")), try Typed.password("analytical-engine")))
            #expect(right.grant() != nil)
        }
    }

    @Test(
        "a wrong password and a taken email (the envelope under 401 and 409), and a 200 carrying success false, are failures with the server's words")
    func refusals() async throws {
        try await withReference(.vynqTalk) { vynq in
            _ = try await Self.signup(vynq)
            let signIn = APIRequest.signIn(.email(try Typed.email("ada@example.com")), try Typed.password("wrong-password"))
            #expect(try await vynq.send(signIn) == .failed(.unauthorized("Invalid email or password")))
            #expect(try await Self.signup(vynq).failure == .conflict("A user with this email already exists"))

            vynq.server.inject(.successFalse(message: "Maintenance in progress"), path: "/auth/login", times: 1)
            let right = APIRequest.signIn(.email(try Typed.email("ada@example.com")), try Typed.password("analytical-engine"))
            #expect(try await vynq.send(right) == .failed(.unauthorized("Maintenance in progress")))
            vynq.server.inject(.serverError(status: 500), path: "/auth/login", times: 1)
            let crashed = try await vynq.send(right)
            #expect(crashed == .failed(.server(status: 500, nil)))
            #expect(crashed.failure?.userMessage == "Server error, please try again")
        }
    }

    /// `ws://…` as `http://…`.
    static func plainHTTP(_ url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.scheme = "http"
        return try #require(components.url)
    }

    @Test("the realtime URL's ?token= is what the server checks: a live token reaches the upgrade, a dead one is 401")
    func realtimeToken() async throws {
        try await withReference(.vynqTalk) { vynq in
            guard let grant = try await Self.signup(vynq).grant() else { return }
            let url = try #require(vynq.contract.realtimeURL(token: grant.accessToken))
            #expect(url.scheme == "ws")
            #expect(url.path == "/ws")
            // Plain HTTP to the same place, without the upgrade headers: a valid token gets as far as 426.
            #expect(try await vynq.raw("GET", try Self.plainHTTP(url)).status == 426)
            let dead = try #require(vynq.contract.realtimeURL(token: AccessToken("dead")))
            #expect(try await vynq.raw("GET", try Self.plainHTTP(dead)).status == 401)
        }
    }
}
