import AuthCore
@testable import AuthflowKit
import AuthSupport
import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A reference server mounting one backend (Everday unless told), and the operator's hooks
/// answered from it: the approval as the seeded parent, codes from the outbox, the clock moved in process.
final class ProbedServer: Sendable {
    let server: ReferenceServer
    let backend: ServedBackend
    let baseURL: URL

    init(_ backend: ServedBackend = .everday, _ configure: (inout Configuration) -> Void = { _ in }) throws {
        var configuration = Configuration()
        configure(&configuration)
        server = ReferenceServer(backends: [backend], configuration: configuration)
        try server.start()
        self.backend = backend
        let root = server.baseURL(for: backend)
        switch backend {
        case .everday: baseURL = root.appendingPathComponent("api")
        case .subspace, .anonymousWall, .hero365: baseURL = root.appendingPathComponent("api/v1")
        case .vynqTalk, .openIDConnect: baseURL = root
        }
    }

    /// Every hook the backend's probe uses: an approval only where the reference backend has one
    /// (Everday's parent; it lets Hero365's unverified accounts sign in), the OAuth callback as the
    /// provider would send it.
    var hooks: ProbeOperator {
        let server = server
        let backend = backend
        return ProbeOperator(
            code: { recipient in server.outbox(to: recipient).last?.code },
            approve: backend == .everday ? { @Sendable username in server.approve(username: username) } : nil,
            advanceClock: { seconds in
                server.advanceClock(by: TimeInterval(seconds))
                return true
            },
            oauth: { url in
                if backend == .openIDConnect { return await ProbedServer.redirect(server.rootURL, authorization: url) }
                let state = URLComponents(string: url)?.queryItems?.first { $0.name == "state" }?.value ?? ""
                return await ProbedServer.callback(server.rootURL, state: state)
            },
            withdrawApproval: backend == .everday ? { @Sendable username in server.withdrawApproval(username: username) } : nil)
    }

    /// The callback URL the reference backend's OAuth dev endpoint gives for `state`.
    static func callback(_ root: URL, state: String) async -> String? {
        guard var components = URLComponents(url: root.appendingPathComponent("__dev/oauth/complete"), resolvingAgainstBaseURL: false) else {
            return nil
        }
        components.queryItems = [URLQueryItem(name: "state", value: state)]
        guard let url = components.url else { return nil }
        let session = URLSession.loopback()
        defer { session.invalidateAndCancel() }
        guard let (data, _) = try? await session.data(from: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["callbackURL"] as? String
    }

    /// Where the reference OpenID Connect provider sends the browser for the authorization URL
    /// `authorization`, as its dev endpoint answers it (the user signed in without a page).
    static func redirect(_ root: URL, authorization: String) async -> String? {
        let query = URLComponents(string: authorization)?.percentEncodedQuery ?? ""
        guard let url = URL(string: root.absoluteString + "/__dev/oidc/authorize?" + query) else { return nil }
        let session = URLSession.loopback()
        defer { session.invalidateAndCancel() }
        guard let (data, _) = try? await session.data(from: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["redirectURL"] as? String
    }

    /// Probes the server with every hook.
    func probe(password: @escaping @Sendable () -> String = ProbeSecrets.password) async -> ProbeReport {
        let prefix = ProbeSecrets.accountPrefix()
        switch backend {
        case .everday:
            var probe = EverdayProbe(baseURL: baseURL, hooks: hooks, prefix: prefix)
            probe.makePassword = password
            return await probe.run()
        case .subspace:
            var probe = SubspaceProbe(baseURL: baseURL, hooks: hooks, prefix: prefix)
            probe.makePassword = password
            return await probe.run()
        case .vynqTalk:
            var probe = VynqTalkProbe(baseURL: baseURL, hooks: hooks, prefix: prefix)
            probe.makePassword = password
            return await probe.run()
        case .anonymousWall:
            var probe = AnonymousWallProbe(baseURL: baseURL, hooks: hooks, prefix: prefix)
            probe.makePassword = password
            return await probe.run()
        case .hero365:
            var probe = Hero365Probe(baseURL: baseURL, hooks: hooks, prefix: prefix)
            probe.phone = "+15555550123"
            probe.makePassword = password
            return await probe.run()
        case .openIDConnect:
            return await OpenIDConnectProbe(issuer: baseURL, clientID: "app-1", hooks: hooks).run()
        }
    }

    /// The plan the probe of this backend follows.
    var plan: [ProbeStep] {
        switch backend {
        case .everday: EverdayProbe.plan
        case .subspace: SubspaceProbe.plan
        case .vynqTalk: VynqTalkProbe.plan
        case .anonymousWall: AnonymousWallProbe.plan
        case .hero365: Hero365Probe.plan
        case .openIDConnect: OpenIDConnectProbe.plan
        }
    }

    deinit { server.stop() }
}

/// One way a server may differ from Everday's document, and the row and verdict the probe must give it.
enum Deviation: String, CaseIterable, Sendable {
    case keepsSessionAtLogout, acceptsConsumedRefreshTokens, registrationAnswers201, renamedTokenKeys, stricterPasswordRule, lockout

    func apply(_ configuration: inout Configuration) {
        switch self {
        case .keepsSessionAtLogout: configuration.everday.deviations.keepsSessionAtLogout = true
        case .acceptsConsumedRefreshTokens: configuration.everday.deviations.acceptsConsumedRefreshTokens = true
        case .registrationAnswers201: configuration.everday.deviations.registrationStatus = 201
        case .renamedTokenKeys: configuration.everday.deviations.renamedTokenKeys = ["AccessToken": "access_token", "RefreshToken": "refresh_token"]
        case .stricterPasswordRule: configuration.everday.deviations.minimumPasswordLength = 12
        case .lockout: configuration.everday.deviations.lockoutAfterFailures = 5
        }
    }

    /// The row that must name the deviation.
    var step: ProbeStep {
        switch self {
        case .keepsSessionAtLogout: EverdayProbe.refreshAfterSignOut
        case .acceptsConsumedRefreshTokens: EverdayProbe.consumedRefresh
        case .registrationAnswers201: EverdayProbe.register
        case .renamedTokenKeys: EverdayProbe.signIn
        case .stricterPasswordRule: EverdayProbe.shortestPassword
        case .lockout: EverdayProbe.lockout
        }
    }

    /// Its verdict there.
    var verdict: ProbeVerdict {
        switch self {
        case .keepsSessionAtLogout, .acceptsConsumedRefreshTokens, .renamedTokenKeys: .breaks
        case .registrationAnswers201, .stricterPasswordRule, .lockout: .copes
        }
    }
}

/// One way the reference OpenID Connect provider may differ from the standards, and the row and verdict the probe gives it.
enum OpenIDDeviation: String, CaseIterable, Sendable {
    case noPKCE, reusableCodes, noRotation, acceptsConsumedRefreshTokens, keepsRevokedTokens, errorsWithoutCode

    func apply(_ configuration: inout Configuration) {
        switch self {
        case .noPKCE: configuration.openIDConnect.deviations.ignoresCodeVerifier = true
        case .reusableCodes: configuration.openIDConnect.deviations.reusableCodes = true
        case .noRotation: configuration.openIDConnect.deviations.keepsRefreshToken = true
        case .acceptsConsumedRefreshTokens: configuration.openIDConnect.deviations.acceptsConsumedRefreshTokens = true
        case .keepsRevokedTokens: configuration.openIDConnect.deviations.keepsTokensAtRevocation = true
        case .errorsWithoutCode: configuration.openIDConnect.deviations.errorsWithoutCode = true
        }
    }

    /// The row that notices it.
    var step: ProbeStep {
        switch self {
        case .noPKCE: OpenIDConnectProbe.pkce
        case .reusableCodes: OpenIDConnectProbe.codeReplay
        case .noRotation: OpenIDConnectProbe.rotation
        case .acceptsConsumedRefreshTokens: OpenIDConnectProbe.reuse
        case .keepsRevokedTokens: OpenIDConnectProbe.afterRevocation
        case .errorsWithoutCode: OpenIDConnectProbe.errorBody
        }
    }

    /// Its verdict there.
    var verdict: ProbeVerdict {
        switch self {
        case .noPKCE, .reusableCodes, .acceptsConsumedRefreshTokens, .keepsRevokedTokens: .breaks
        case .noRotation, .errorsWithoutCode: .copes
        }
    }
}

@Suite("authflow probe", .timeLimit(.minutes(15)))
struct ProbeTests {
    @Test(
        "against the reference backend, every step of the backend's plan runs and conforms, and the exit status is 0",
        arguments: ServedBackend.allCases)
    func referenceConforms(_ backend: ServedBackend) async throws {
        let served = try ProbedServer(backend)
        let report = await served.probe()
        #expect(report.rows.map(\.step) == served.plan.map(\.name))
        // Hero365's e-mail verification needs no hook here: the reference backend lets unverified accounts sign in.
        let unneeded = backend == .hero365 ? [Hero365Probe.verification.name] : []
        for row in report.rows where row.verdict != .conforms && !(row.verdict == .skipped && unneeded.contains(row.step)) {
            Issue.record("\(row.step): \(row.verdict.rawValue) — \(row.note) [\(row.observed)]")
        }
        #expect(report.status == 0)
        #expect(report.requests <= RequestBudget.limit)
    }

    @Test(
        "Subspace answering as deployed ({accessToken, refreshToken, user}, not {token, user}; an undocumented refresh) differs on its rows, and the client copes"
    )
    func subspaceDeployed() async throws {
        let served = try ProbedServer(.subspace) { $0.answerAsDeployed() }
        let report = await served.probe()
        let register = try #require(report.rows.first { $0.step == SubspaceProbe.register.name })
        #expect(register.verdict == .copes)
        #expect(register.note.contains("lacks token"), "\(register.note)")
        let relaunch = try #require(report.rows.first { $0.step == SubspaceProbe.expiredRelaunch.name })
        #expect(relaunch.verdict == .copes)
        #expect(relaunch.note.contains("an endpoint the document does not mention"), "\(relaunch.note)")
        #expect(report.status == 0, "\(report.text)")
    }

    @Test(
        "Everday: the document says nothing of change-password or a lockout; the deployed server changes passwords (revoking every refresh token) and locks after five failures; the probe covers both, the client copes"
    )
    func everdayDeployed() async throws {
        let served = try ProbedServer(.everday) { $0.answerAsDeployed() }
        let report = await served.probe()
        func row(_ step: ProbeStep) throws -> ProbeRow { try #require(report.rows.first { $0.step == step.name }) }
        for step in [EverdayProbe.wrongCurrentPassword, EverdayProbe.changePassword, EverdayProbe.refreshAfterChange, EverdayProbe.pendingRefresh] {
            let found = try row(step)
            #expect(found.verdict == .conforms, "\(step.name): \(found.observed) — \(found.note)")
        }
        let lockout = try row(EverdayProbe.lockout)
        #expect(lockout.verdict == .copes, "\(lockout.observed) — \(lockout.note)")
        #expect(lockout.exchanges.map(\.status) == [401, 401, 401, 401, 401, 403], "five failures, then the lockout's 403")
        let register = try row(EverdayProbe.register)
        #expect(register.verdict == .copes, "the 201")
        #expect(report.rows.filter { $0.verdict == .breaks }.isEmpty, "\(report.text)")
        #expect(report.status == 0)
        #expect(report.requests <= RequestBudget.limit)
    }

    @Test("Everday's pending-approval refresh needs the operator's withdrawal: without --unapprove-command its row is skipped, saying so")
    func pendingRefreshNeedsWithdrawal() async throws {
        let served = try ProbedServer(.everday)
        var hooks = served.hooks
        hooks.withdrawApproval = nil
        let report = await EverdayProbe(baseURL: served.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix()).run()
        let row = try #require(report.rows.first { $0.step == EverdayProbe.pendingRefresh.name })
        #expect(row.verdict == .skipped)
        #expect(row.note == "needs: --unapprove-command")
        let lockout = try #require(report.rows.first { $0.step == EverdayProbe.lockout.name })
        #expect(lockout.verdict == .conforms, "the document locks nothing: \(lockout.observed) — \(lockout.note)")
        #expect(served.server.everdayUserID(username: "\(report.accountPrefix)lock") != nil, "the lockout ran on an account of its own")
        #expect(report.status == 0)
    }

    @Test("each deviation switched on in the reference backend is named on its row with its verdict", arguments: Deviation.allCases)
    func deviationCaught(_ deviation: Deviation) async throws {
        let served = try ProbedServer(.everday, deviation.apply)
        let report = await served.probe()
        let row = try #require(report.rows.first { $0.step == deviation.step.name })
        #expect(row.verdict == deviation.verdict, "\(row.observed) — \(row.note)")
        #expect(!row.note.isEmpty, "the row says what differs")
        #expect(report.status == (deviation.verdict == .breaks ? 1 : 0))
        let others = report.rows.filter { $0.verdict == .breaks && $0.step != deviation.step.name }
        if deviation != .renamedTokenKeys {  // Without a session, nothing after sign-in runs.
            #expect(others.isEmpty, "\(others.map(\.step))")
        }
    }

    @Test(
        "no password, code or token reaches the output: planted markers in the passwords, the codes and tokens the server issued",
        arguments: ServedBackend.allCases)
    func noSecretInOutput(_ backend: ServedBackend) async throws {
        let served = try ProbedServer(backend)
        let marker = "PLANTEDmarker"
        let report = await served.probe { marker + ProbeSecrets.password() }
        let output = report.text + "\n" + report.json
        #expect(!output.contains(marker))
        #expect(!output.contains("eyJ"), "no JWT")
        if [.everday, .hero365, .openIDConnect].contains(backend) {  // The backends whose refresh tokens the probe presents itself.
            let presented = served.server.ledger.refreshTokensPresented
            #expect(!presented.isEmpty)
            for token in presented { #expect(!output.contains(token)) }
        }
        let recipients: [ServedBackend: String] = [
            .everday: "\(report.accountPrefix)kid@example.invalid", .anonymousWall: "\(report.accountPrefix)user@example.edu",
            .hero365: "+15555550123",
        ]
        let codes = recipients[backend].map { served.server.outbox(to: $0).compactMap(\.code) } ?? []
        #expect(codes.isEmpty == (recipients[backend] == nil), "codes, OTPs and reset tokens were sent")
        for code in codes { #expect(!output.contains(code)) }
    }

    @Test(
        "a refused command line exits 64 with one line on standard error and sends nothing",
        arguments: [
            ["probe"], ["probe", "--base-url", "http://127.0.0.1:9/everday/api"], ["probe", "nobody", "--base-url", "http://127.0.0.1:9/api"],
            ["probe", "everday"], ["probe", "everday", "--base-url"], ["probe", "everday", "--base-url", "not a url"],
            ["probe", "everday", "--base-url", "ftp://127.0.0.1/api"], ["probe", "everday", "--base-url", "http://me:hunter2@127.0.0.1:9/api"],
            ["probe", "everday", "--base-url", "http://127.0.0.1:9/api?key=hunter2"],
            ["probe", "everday", "--base-url", "ftp://me:hunter2@127.0.0.1/api"], ["probe", "everday", "--base-url", "http://everday.example/api"],
            ["probe", "everday", "subspace", "--base-url", "http://127.0.0.1:9/api"],
            ["probe", "everday", "--base-url", "http://127.0.0.1:9/api", "--code-command", " "],
            ["probe", "everday", "--base-url", "http://127.0.0.1:9/api", "--seed", "1"],
            ["probe", "everday", "--base-url", "http://127.0.0.1:9/api", "--frobnicate"],
            ["probe", "anonymousWall", "--base-url", "http://127.0.0.1:9/api/v1", "--email-domain", "a b"],
            ["probe", "anonymousWall", "--base-url", "http://127.0.0.1:9/api/v1", "--email-domain", "edu"],
            ["probe", "hero365", "--base-url", "http://127.0.0.1:9/api/v1", "--phone", "5550123"],
            ["probe", "hero365", "--base-url", "http://127.0.0.1:9/api/v1", "--oauth-command", ""],
            ["probe", "oidc", "--issuer", "http://127.0.0.1:9/oidc"], ["probe", "oidc", "--client-id", "app-1"],
            ["probe", "oidc", "--base-url", "http://127.0.0.1:9/oidc", "--client-id", "app-1"],
            ["probe", "oidc", "--issuer", "https://id.example.com", "--client-id", "app-1"],
            ["probe", "oidc", "--issuer", "http://me:hunter2@127.0.0.1:9/oidc", "--client-id", "app-1"],
            ["probe", "oidc", "--issuer", "http://127.0.0.1:9/oidc", "--client-id", "app 1"],
            ["probe", "oidc", "--issuer", "http://127.0.0.1:9/oidc", "--client-id", "app-1", "--redirect-uri", "not a uri"],
            ["probe", "everday", "--base-url", "http://127.0.0.1:9/api", "--issuer", "http://127.0.0.1:9/oidc"],
        ])
    func refusedCommandLine(_ words: [String]) {
        let run = CommandRun(words)
        #expect(run.status == 64, "\(words)")
        #expect(run.out.isEmpty)
        #expect(run.err.count == 1)
        #expect(!run.err.joined().contains("hunter2"), "a refusal never echoes a credential")
    }

    @Test("a backend that does not exist is refused, naming the backends")
    func unknownBackend() {
        let run = CommandRun(["probe", "nobody", "--base-url", "http://127.0.0.1:9/api"])
        #expect(run.status == 64)
        #expect(run.err == ["authflow: no backend 'nobody'; backends: \((Backend.documented + [.openIDConnect]).map(\.id).joined(separator: ", "))"])
    }

    @Test("--dry-run prints the plan and what each step needs, without sending; a server elsewhere is allowed with --i-own-this-server")
    func dryRun() {
        let run = CommandRun(["probe", "everday", "--base-url", "https://everday.example/api", "--i-own-this-server", "--dry-run"])
        #expect(run.status == 0)
        let text = run.out.joined(separator: "\n")
        #expect(text.contains("dry run: nothing sent"))
        for step in EverdayProbe.plan { #expect(text.contains(step.name)) }
        #expect(text.contains("skipped, needs: --approve-command"))
        #expect(text.contains("at most \(RequestBudget.limit) requests"))
    }

    @Test("serve --deviate refuses a name it does not know, before listening: exit 64")
    func unknownDeviation() {
        let run = CommandRun(["serve", "--port", "0", "--deviate", "keep-session-at-logout,nonsense"])
        #expect(run.status == 64)
        #expect(run.err.first?.contains("not 'nonsense'") == true, "\(run.err)")
    }

    @Test("serve --deviate switches on each named deviation", arguments: DevServer.deviationNames)
    func namedDeviation(_ name: String) throws {
        let all = try DevServer.deviations(named: name).get()
        let deviations = all.everday
        let oidc = all.openIDConnect
        let switched = [
            deviations.keepsSessionAtLogout, deviations.acceptsConsumedRefreshTokens, deviations.registrationStatus != 200,
            !deviations.renamedTokenKeys.isEmpty, deviations.minimumPasswordLength != nil, deviations.lockoutAfterFailures != nil,
            oidc.ignoresCodeVerifier, oidc.reusableCodes, oidc.keepsRefreshToken, oidc.acceptsConsumedRefreshTokens,
            oidc.keepsTokensAtRevocation, oidc.errorsWithoutCode,
        ]
        #expect(switched.filter { $0 }.count == 1)
    }

    @Test(
        "OpenID Connect: --dry-run lists every check, those needing a login skipped without --oauth-command; a provider elsewhere needs --i-own-this-server"
    )
    func openIDDryRun() {
        let run = CommandRun(["probe", "oidc", "--issuer", "https://id.example.com", "--client-id", "app-1", "--i-own-this-server", "--dry-run"])
        #expect(run.status == 0, "\(run.err)")
        let text = run.out.joined(separator: "\n")
        #expect(text.contains("authflow probe openIDConnect — https://id.example.com (dry run: nothing sent)"))
        for step in OpenIDConnectProbe.plan { #expect(text.contains(step.name)) }
        #expect(text.contains("skipped, needs: --oauth-command"))
        #expect(text.contains("creates no account"))
    }

    @Test("OpenID Connect: without --oauth-command the probe checks what needs no login and skips the rest, saying so")
    func openIDWithoutLogin() async throws {
        let served = try ProbedServer(.openIDConnect)
        var hooks = served.hooks
        hooks.oauth = nil
        let report = await OpenIDConnectProbe(issuer: served.baseURL, clientID: "app-1", hooks: hooks).run()
        let ran = report.rows.filter { $0.verdict != .skipped }.map(\.step)
        #expect(ran == OpenIDConnectProbe.plan.prefix(7).map(\.name))
        #expect(report.rows.allSatisfy { $0.verdict == .conforms || $0.note == "needs: --oauth-command" }, "\(report.text)")
        #expect(report.status == 0)
    }

    @Test("OpenID Connect: a wrong issuer is caught on the discovery row, and nothing else is sent")
    func openIDWrongIssuer() async throws {
        let served = try ProbedServer(.openIDConnect)
        let issuer = try #require(URL(string: served.baseURL.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")))
        let report = await OpenIDConnectProbe(issuer: issuer, clientID: "app-1", hooks: served.hooks).run()
        #expect(report.rows.first?.verdict == .breaks)
        #expect(report.rows.first?.note.contains("not '\(issuer.absoluteString)'") == true, "\(report.rows.first?.note ?? "")")
        #expect(report.requests == 1)
        #expect(report.status == 1)
    }

    @Test("OpenID Connect: each deviation of the reference provider is named on its row with its verdict", arguments: OpenIDDeviation.allCases)
    func openIDDeviationCaught(_ deviation: OpenIDDeviation) async throws {
        let served = try ProbedServer(.openIDConnect, deviation.apply)
        let report = await served.probe()
        let row = try #require(report.rows.first { $0.step == deviation.step.name })
        #expect(row.verdict == deviation.verdict, "\(row.observed) — \(row.note)")
        #expect(!row.note.isEmpty, "the row says what differs")
        #expect(report.status == (deviation.verdict == .breaks ? 1 : 0), "\(report.text)")
    }

    @Test("loopback hosts are recognised; others are not", arguments: ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"])
    func loopback(_ host: String) {
        #expect(ProbeSettings.isLoopback(host))
    }

    @Test(
        "names that only look like loopback are not",
        arguments: ["127.0.0.1.example.com", "localhost.example", "10.0.0.1", "128.0.0.1", "127.0.0.256"])
    func notLoopback(_ host: String) {
        #expect(!ProbeSettings.isLoopback(host))
    }

    @Test("the command line runs the probe: without operator commands the steps that need one are skipped, saying so, and it exits 0")
    func commandLineWithoutHooks() async throws {
        let served = try ProbedServer()
        let url = served.baseURL.absoluteString
        let run = await onOwnThread { CommandRun(["probe", "everday", "--base-url", url, "--json"]) }
        #expect(run.status == 0, "\(run.err)")
        let text = run.out.joined(separator: "\n")
        #expect(text.contains("\"verdict\":\"skipped\",\"note\":\"needs: --approve-command\""))
        #expect(text.contains("\"breaks\":0"))
    }
}
