import AuthCore
import AuthRuntime
import Foundation
import Testing

/// Plants marker secrets in every request and answer the runner handles, in each JSON casing,
/// and checks that none of them reaches a log line, a description, an error or an outcome.
@Suite("Secret markers", .timeLimit(.minutes(15)))
struct SecretMarkerTests {
    static let password = "Pw-MARKER-7731x"
    static let newPassword = "NewPw-MARKER-5512"
    static let resetToken = "ResetTok-MARKER-8890"
    static let code = "482913"
    static let access1 = "AccessTok-MARKER-A1"
    static let access2 = "AccessTok-MARKER-A2"
    static let refresh1 = "RefreshTok-MARKER-R1"
    static let refresh2 = "RefreshTok-MARKER-R2"
    static let cookie = "Cookie-MARKER-C1"
    static let jwt = "eyJhbGciOiJub25lIn0.eyJNQVJLRVIiOjF9.MARKERsig"
    static let all = [password, newPassword, resetToken, code, access1, access2, refresh1, refresh2, cookie, jwt, "MARKER"]

    /// Answers in `casing`, VynqTalk-style envelope included: tokens (`access1`, expiring after
    /// the seconds given) on the `grants` paths and `access2` on refresh, tokens and a JWT in every
    /// other answer's body as well, and a cookie.
    static func transport(_ casing: KeyCasing, grants: [String: Int]) -> ScriptedTransport {
        ScriptedTransport { request in
            func answer(_ data: [String: Any]) -> Result<HTTPResponse, TransportError> {
                var object: [String: Any] = ["success": true, "message": "ok \(jwt)", "data": data]
                for other in KeyCasing.allCases { object[other.key("refreshToken")] = refresh1 }
                guard case .success(var response) = Answers.json(200, object) else { return .failure(.network) }
                response.headers["Set-Cookie"] = "session=\(cookie); HttpOnly"
                return .success(response)
            }
            func tokens(_ access: String, _ refresh: String, expiresIn: Int) -> [String: Any] {
                var object: [String: Any] = ["token": access, "Token": access, "access_token": access]
                object[casing.key("accessToken")] = access
                object[casing.key("refreshToken")] = refresh
                object[casing.key("expiresIn")] = expiresIn
                object[casing.key("userId")] = "user-1"
                return object
            }
            let path = request.url.lastPathComponent
            if let expiresIn = grants[path] { return answer(tokens(access1, refresh1, expiresIn: expiresIn)) }
            switch path {
            case "refresh": return answer(tokens(access2, refresh2, expiresIn: 3600))
            case "register": return answer(["Status": "PendingApproval"])
            default: return answer(["items": [["owner": "user-1", "accessToken": access2, "nested": ["Password": password]]]])
            }
        }
    }

    /// Everything a run left behind that someone could read.
    struct Observed {
        var texts: [String] = []
        var logLines: [String] = []

        mutating func collect<Machine: Lifecycle>(
            _ runner: AuthRunner<Machine>, states: AsyncStream<Machine.State>,
            outcomes: AsyncStream<AuthOutcome>, issues: AsyncStream<RuntimeIssue>
        ) async {
            await runner.stop()
            texts.append(runner.description)
            for await state in states { texts += ["\(state)", String(reflecting: state)] }
            for await outcome in outcomes { texts += ["\(outcome)", String(reflecting: outcome)] }
            for await issue in issues { texts.append("\(issue)") }
        }

        func leaks() -> [String] {
            (texts + logLines).flatMap { text in SecretMarkerTests.all.filter { text.contains($0) }.map { "\($0) in \(text)" } }
        }
    }

    @Test(
        "Everday flows: registration, reset by token, sign-in, refresh, protected call, logout, a password change that ends the session",
        arguments: KeyCasing.allCases)
    func everday(casing: KeyCasing) async throws {
        let recorder = HTTPLogRecorder()
        let transport = Self.transport(casing, grants: ["signIn": 0])  // Expired at once: the call refreshes first.
        let runner = Sample.runner(Apps.everday(), transport: transport, contract: StubContract(casing: casing), logger: recorder)
        let (states, outcomes, issues) = (await runner.states(), await runner.outcomes(), await runner.issues())
        var observed = Observed()
        let password = PasswordInput(Self.password)
        let newPassword = PasswordInput(Self.newPassword)
        let rejected = await runner.status()
        #expect(rejected == .failure(.rejected(.notSignedIn)))
        if case .failure(let error) = rejected { observed.texts += [error.description, (error.errorDescription ?? ""), "\(error)"] }
        for intent: any Sendable in [
            Registration.Intent.submit(RegistrationInput(username: "newkid", password: password)),
            PasswordReset.Intent.requestReset("newkid"),
            PasswordReset.Intent.submitToken(ResetToken(Self.resetToken), newPassword: newPassword),
            PasswordSignIn.Intent.submit(identifier: "newkid", password: password),
        ] {
            await runner.send(intent)
            await runner.settled(states)
        }
        let answer = try await runner.authorized(Sample.appRequest)
        #expect(answer.status == 200)
        observed.texts += [answer.description, String(reflecting: answer)]
        await runner.send(.session(.logout))
        await runner.settled(states)
        // Everday's deployed change-password ends the session, so it comes after the logout. The
        // new grant is expired at once: the first try renews the token, the second is sent.
        await runner.send(PasswordSignIn.Intent.submit(identifier: "newkid", password: password))
        await runner.settled(states)
        for _ in 0..<2 {
            await runner.send(.session(.changePassword(old: password, new: newPassword)))
            await runner.settled(states)
        }
        observed.logLines = recorder.lines
        await observed.collect(runner, states: states, outcomes: outcomes, issues: issues)

        // The secrets really were on the wire (requests here; answers carry every token by
        // construction), so a masking bug would show up below.
        let wire = transport.received.map { String(decoding: $0.body ?? Data(), as: UTF8.self) + "\($0.headers.fields)" }.joined()
        for marker in [Self.password, Self.newPassword, Self.resetToken, Self.access2, Self.refresh1, Self.refresh2] {
            #expect(wire.contains(marker), "\(marker) never reached the transport")
        }
        #expect(
            Set(transport.received.map(\.url.lastPathComponent))
                == ["register", "requestPasswordReset", "resetPassword", "signIn", "refresh", "items", "revoke", "changePassword"])
        #expect(recorder.entries.count == transport.received.count)
        #expect(observed.leaks().isEmpty)
    }

    @Test("Anonymous Wall flows: reset by code with auto-login, password change, code sign-in", arguments: KeyCasing.allCases)
    func anonymousWall(casing: KeyCasing) async throws {
        let recorder = HTTPLogRecorder()
        let transport = Self.transport(casing, grants: ["resetPassword": 3600, "signInWithEmailCode": 3600])
        let runner = Sample.runner(
            Apps.anonymousWall(), transport: transport, contract: StubContract(backend: .anonymousWall, casing: casing), logger: recorder)
        let (states, outcomes, issues) = (await runner.states(), await runner.outcomes(), await runner.issues())
        let email = "kid@example.com"
        for intent: any Sendable in [
            PasswordReset.Intent.requestReset(email),
            PasswordReset.Intent.submitCode(CodeInput(Self.code), newPassword: PasswordInput(Self.newPassword)),
            SessionLifecycle.Intent.changePassword(old: PasswordInput(Self.newPassword), new: PasswordInput(Self.password)),
            SessionLifecycle.Intent.logout,
            OneTimeCodeSignIn.Intent.submitDestination(email),
            OneTimeCodeSignIn.Intent.submitCode(CodeInput(Self.code)),
        ] {
            await runner.send(intent)
            await runner.settled(states)
        }
        var observed = Observed()
        observed.logLines = recorder.lines
        await observed.collect(runner, states: states, outcomes: outcomes, issues: issues)
        let wire = transport.received.map { String(decoding: $0.body ?? Data(), as: UTF8.self) }.joined()
        #expect(wire.contains(Self.code) && wire.contains(Self.password) && wire.contains(Self.newPassword))
        #expect(
            transport.received.map(\.url.lastPathComponent)
                == ["requestPasswordReset", "resetPassword", "changePassword", "sendEmailCode", "signInWithEmailCode"])
        #expect(observed.leaks().isEmpty)
    }

    @Test("VynqTalk: the realtime URL's ?token= is masked in the log")
    func vynqTalkRealtime() async throws {
        let recorder = HTTPLogRecorder()
        let connector = ScriptedRealtime()
        let runner = Sample.runner(
            Apps.vynqTalk(), transport: Self.transport(.camel, grants: ["signIn": 3600]), contract: StubContract(backend: .vynqTalk),
            realtime: connector,
            logger: recorder)
        let (states, outcomes, issues) = (await runner.states(), await runner.outcomes(), await runner.issues())
        let connected = await runner.outcomes()
        await runner.send(PasswordSignIn.Intent.submit(identifier: "alice@example.com", password: PasswordInput(Self.password)))
        _ = await connected.first { $0 == .realtimeConnected }
        #expect(connector.urls.first?.absoluteString.contains(Self.access1) == true)
        #expect(recorder.lines.contains { $0.hasPrefix("GET ws://stub.test/ws?token=‹redacted› → opened") })
        var observed = Observed()
        observed.logLines = recorder.lines
        await observed.collect(runner, states: states, outcomes: outcomes, issues: issues)
        #expect(observed.leaks().isEmpty)
    }
}
