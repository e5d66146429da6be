import AuthCore
import AuthRuntime
import Foundation

/// The probe of an OpenID Connect provider, for a native app registered as a public client.
///
/// Without a login it checks what any client relies on before a user signs in: the discovery
/// document (issuer exactly the one given, PKCE S256 offered, the endpoints, https off loopback),
/// RFC 6749 §5.2 error bodies from the token endpoint, and RFC 7009's answer to a token it never
/// issued. The probe cannot log a human in: with `--oauth-command` (the operator's browser: it
/// follows an authorization URL, signed in as a test user, and prints the redirect URL carrying
/// the code) it also checks PKCE enforcement, one-time codes, rotation, reuse detection and
/// revocation, through raw requests and through the real `OpenIDConnectClient`. It creates no
/// account; every grant it obtains is revoked or spent by the end of the run.
struct OpenIDConnectProbe {
    // MARK: The plan

    static let discovery = ProbeStep(
        "read the discovery document", "200 {issuer, authorization_endpoint, token_endpoint, …}; issuer exactly --issuer")
    static let s256 = ProbeStep("PKCE S256 offered", "code_challenge_methods_supported includes S256")
    static let endpoints = ProbeStep(
        "endpoints advertised", "authorization and token (required), userinfo, revocation (the client uses them), introspection")
    static let https = ProbeStep("transport security", "the issuer and every endpoint https (http only on loopback)")
    static let errorBody = ProbeStep("exchange a code never issued", "400 {error: invalid_grant} (RFC 6749 §5.2)")
    static let unknownRefresh = ProbeStep("refresh with a token never issued", "400 {error: invalid_grant}")
    static let revokeUnknown = ProbeStep("revoke a token never issued", "200 (RFC 7009 §2.2: whether or not the token was valid)")
    static let pkce = ProbeStep(
        "exchange a code with a wrong code_verifier", "400 {error: invalid_grant} (RFC 7636 §4.6)", needs: [.oauth])
    static let rotation = ProbeStep(
        "exchange a code, then refresh", "200 with a new refresh_token (rotation, RFC 9700 §4.14.2)", needs: [.oauth])
    static let reuse = ProbeStep("refresh again with the rotated refresh token", "400 {error: invalid_grant}", needs: [.oauth])
    static let family = ProbeStep(
        "refresh with its successor, after that reuse", "400 {error: invalid_grant} (the reuse revoked the family)", needs: [.oauth])
    static let codeReplay = ProbeStep(
        "exchange a spent code again", "400 {error: invalid_grant}; the first exchange's refresh token revoked (RFC 6749 §4.1.2)",
        needs: [.oauth])
    static let signIn = ProbeStep(
        "sign in with the client", "redirect with code, state, iss; 200 with an ID token the client accepts; client: signed in",
        needs: [.oauth])
    static let userinfo = ProbeStep("a userinfo call with the session's bearer", "200 {sub, …}; client: the answer", needs: [.oauth])
    static let revocation = ProbeStep(
        "sign out", "200 from the revocation endpoint (RFC 7009); client: signed out, server session ended", needs: [.oauth])
    static let afterRevocation = ProbeStep(
        "refresh with the revoked refresh token", "400 {error: invalid_grant}; introspection, where offered: {active: false}",
        needs: [.oauth])

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        discovery, s256, endpoints, https, errorBody, unknownRefresh, revokeUnknown, pkce, rotation, reuse, family, codeReplay, signIn,
        userinfo, revocation, afterRevocation,
    ]

    // MARK: A run

    /// The issuer, exactly as its discovery document must name it.
    let issuer: URL
    /// The app's client id.
    let clientID: String
    /// The operator's hooks: `oauth` plays the browser.
    let hooks: ProbeOperator
    /// A redirect URI registered for the client.
    var redirectURI = URL(string: "com.example.app:/oauth2redirect")!
    /// Whether endpoints off this machine may be called (`--i-own-this-server`).
    var allowsRemoteEndpoints = false

    /// Runs the plan against the provider and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: Backend.openIDConnect.id, baseURL: issuer, hooks: hooks, prefix: "") { run in
            await OpenIDConnectSteps(probe: self, run: run).all()
        }
    }
}

/// One run of ``OpenIDConnectProbe``'s plan.
private struct OpenIDConnectSteps {
    typealias Probe = OpenIDConnectProbe

    /// A raw answer: what was noted, and the body's `error` and token fields (never printed).
    struct Answer {
        var exchange: ProbeExchange
        var object: [String: Any]
        var body: Data

        var error: String? { object["error"] as? String }
        func string(_ key: String) -> String? { object[key] as? String }
        var status: Int? { exchange.status }
        var succeeded: Bool { (200..<300).contains(status ?? 0) }
    }

    let probe: OpenIDConnectProbe
    let run: ProbeRun

    func all() async {
        guard let (provider, introspection) = await discover() else {
            for step in Probe.plan.dropFirst() { run.skip(step, "needs: a readable discovery document") }
            return
        }
        let hosts = [provider.authorizationEndpoint, provider.tokenEndpoint] + [provider.revocationEndpoint].compactMap { $0 }
        if !probe.allowsRemoteEndpoints, let far = hosts.first(where: { !ProbeSettings.isLoopback($0.host ?? "") }) {
            for step in Probe.plan.dropFirst(4) {
                run.skip(step, "the endpoint \(far.host ?? "") is not on this machine: add --i-own-this-server if the provider is yours")
            }
            return
        }
        await refusals(provider)
        guard let browser = probe.hooks.oauth else {
            for step in Probe.plan.dropFirst(7) { run.skip(step, "needs: --oauth-command") }
            return
        }
        await pkce(provider, browser)
        await rotation(provider, browser)
        await codeReplay(provider, browser)
        let vault = run.vault("client")
        let client = OpenIDConnectClient(
            provider: provider, clientID: probe.clientID, redirectURI: probe.redirectURI, vault: vault, transport: run.transport)
        await session(client, provider, introspection: introspection, browser)
        await client.stop()
    }

    // MARK: Without a login

    /// Discovery's rows; the metadata when the client can use it, and the introspection endpoint if any.
    private func discover() async -> (OpenIDProviderMetadata, URL?)? {
        let url = OpenIDProviderMetadata.discoveryURL(issuer: probe.issuer)
        let answer = await send(HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
        let found = answer.string("issuer")
        let provider = try? OpenIDProviderMetadata(document: answer.body, issuer: probe.issuer.absoluteString)
        guard answer.succeeded, let provider else {
            let why =
                !answer.succeeded
                ? "answered \(answer.status.map(String.init) ?? "nothing")"
                : found != probe.issuer.absoluteString
                    ? "its issuer is \(found.map { "'\($0)'" } ?? "missing"), not '\(probe.issuer.absoluteString)': the client refuses it"
                    : "the client cannot read it (an endpoint missing, or S256 not offered)"
            run.record(Probe.discovery, exchange: answer.exchange, verdict: .breaks, note: why)
            return nil
        }
        run.record(Probe.discovery, exchange: answer.exchange, verdict: .conforms)

        let methods = provider.codeChallengeMethods
        run.rows.append(
            ProbeRow(
                Probe.s256, observed: methods.isEmpty ? "not listed" : methods.joined(separator: ", "),
                verdict: methods.contains("S256") ? .conforms : .copes,
                note: methods.contains("S256") ? "" : "the document does not say; the client sends S256 anyway"))

        let introspection = answer.string("introspection_endpoint").flatMap(URL.init(string:))
        let optional: [(String, URL?)] = [
            ("userinfo_endpoint", provider.userinfoEndpoint), ("revocation_endpoint", provider.revocationEndpoint),
            ("introspection_endpoint", introspection),
        ]
        let missing = optional.filter { $0.1 == nil }.map(\.0)
        run.rows.append(
            ProbeRow(
                Probe.endpoints, observed: "authorization, token" + optional.filter { $0.1 != nil }.map { ", " + $0.0 }.joined(),
                verdict: missing.isEmpty ? .conforms : .copes,
                note: missing.isEmpty
                    ? ""
                    : "no \(missing.joined(separator: ", ")): the client skips what it needs them for (userinfo at launch, revocation at sign-out)"
            ))

        let all = [probe.issuer, provider.authorizationEndpoint, provider.tokenEndpoint] + optional.compactMap(\.1)
        let plain = all.filter { $0.scheme?.lowercased() != "https" && !ProbeSettings.isLoopback($0.host ?? "") }
        run.rows.append(
            ProbeRow(
                Probe.https, observed: plain.isEmpty ? "https, or loopback" : "http: " + plain.map(\.path).joined(separator: ", "),
                verdict: plain.isEmpty ? .conforms : .breaks,
                note: plain.isEmpty ? "" : "tokens and codes would cross the network in the clear"))
        return (provider, introspection)
    }

    /// The refusals any client may meet: an unknown code, an unknown refresh token, revoking an unknown token.
    private func refusals(_ provider: OpenIDProviderMetadata) async {
        let verifier = ProbeSecrets.password() + ProbeSecrets.password()
        let exchange = await post(
            provider.tokenEndpoint,
            [
                ("grant_type", "authorization_code"), ("code", "probe-never-issued"), ("redirect_uri", probe.redirectURI.absoluteString),
                ("client_id", probe.clientID), ("code_verifier", verifier),
            ])
        recordRefusal(Probe.errorBody, exchange)
        let refresh = await post(
            provider.tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", "probe-never-issued"), ("client_id", probe.clientID)])
        recordRefusal(Probe.unknownRefresh, refresh)
        guard let endpoint = provider.revocationEndpoint else {
            run.skip(Probe.revokeUnknown, "needs: a revocation_endpoint")
            return
        }
        let revoked = await post(
            endpoint, [("token", "probe-never-issued"), ("token_type_hint", "refresh_token"), ("client_id", probe.clientID)])
        run.record(
            Probe.revokeUnknown, exchange: revoked.exchange, verdict: revoked.status == 200 ? .conforms : .copes,
            note: revoked.status == 200 ? "" : "answered \(revoked.status.map(String.init) ?? "nothing"); the client ends the session anyway")
    }

    // MARK: With the operator's browser

    /// A wrong verifier must not buy tokens.
    private func pkce(_ provider: OpenIDProviderMetadata, _ browser: @Sendable (String) async -> String?) async {
        guard let (code, _) = await authorize(provider, browser) else {
            run.skip(Probe.pkce, "--oauth-command gave no redirect to --redirect-uri with this attempt's code and state")
            return
        }
        let wrong = PKCE.attempt().verifier.reveal()
        let answer = await exchange(provider, code: code, verifier: wrong)
        if answer.succeeded {
            await revoke(provider, answer.string("refresh_token") ?? answer.string("access_token"))
            run.record(
                Probe.pkce, exchange: answer.exchange, verdict: .breaks,
                note: "PKCE is not enforced: an intercepted code is enough to get tokens without the verifier")
        } else {
            recordRefusal(Probe.pkce, answer)
        }
    }

    /// Rotation, then reuse detection, on a grant of the probe's own.
    private func rotation(_ provider: OpenIDProviderMetadata, _ browser: @Sendable (String) async -> String?) async {
        guard let (code, attempt) = await authorize(provider, browser) else {
            for step in [Probe.rotation, Probe.reuse, Probe.family] {
                run.skip(step, "--oauth-command gave no redirect to --redirect-uri with this attempt's code and state")
            }
            return
        }
        let tokens = await exchange(provider, code: code, verifier: attempt.verifier.reveal())
        guard tokens.succeeded, let first = tokens.string("refresh_token") else {
            run.record(
                Probe.rotation, exchange: tokens.exchange, verdict: .breaks,
                note: tokens.succeeded ? "no refresh_token: the session cannot outlive its access token" : "the exchange was refused")
            for step in [Probe.reuse, Probe.family] { run.skip(step, "needs: a refresh token") }
            return
        }
        let mark = run.transport.mark
        let refreshed = await refresh(provider, first)
        let second = refreshed.string("refresh_token")
        let exchanges = run.transport.exchanges(since: mark)
        guard refreshed.succeeded else {
            run.rows.append(
                ProbeRow(
                    step: Probe.rotation.name, expected: Probe.rotation.expected, observed: exchanges.map(\.description).joined(separator: "; "),
                    verdict: .breaks, note: "a fresh refresh token was refused", exchanges: exchanges))
            for step in [Probe.reuse, Probe.family] { run.skip(step, "needs: a refresh (it failed)") }
            return
        }
        guard let second, second != first else {
            run.rows.append(
                ProbeRow(
                    step: Probe.rotation.name, expected: Probe.rotation.expected, observed: exchanges.map(\.description).joined(separator: "; "),
                    verdict: .copes,
                    note: second == nil
                        ? "no refresh_token in the answer: the client keeps the old one" : "the same refresh_token again: no rotation",
                    exchanges: exchanges))
            await revoke(provider, first)
            for step in [Probe.reuse, Probe.family] { run.skip(step, "needs: rotation (the provider does not rotate)") }
            return
        }
        run.record(Probe.rotation, exchange: refreshed.exchange, verdict: .conforms)

        let replay = await refresh(provider, first)
        if replay.succeeded {
            run.record(
                Probe.reuse, exchange: replay.exchange, verdict: .breaks,
                note: "a consumed refresh token was accepted: a stolen copy lives on (RFC 9700 §4.14.2)")
            await revoke(provider, replay.string("refresh_token"))
        } else {
            recordRefusal(Probe.reuse, replay)
        }
        let successor = await refresh(provider, second)
        if successor.succeeded {
            run.record(
                Probe.family, exchange: successor.exchange, verdict: .copes,
                note: "the reuse did not revoke the family: the client's session goes on, a thief's too")
            await revoke(provider, successor.string("refresh_token"))
        } else {
            recordRefusal(Probe.family, successor)
        }
    }

    /// A code exchanged twice: the second refused, and the first's tokens revoked.
    private func codeReplay(_ provider: OpenIDProviderMetadata, _ browser: @Sendable (String) async -> String?) async {
        guard let (code, attempt) = await authorize(provider, browser) else {
            run.skip(Probe.codeReplay, "--oauth-command gave no redirect to --redirect-uri with this attempt's code and state")
            return
        }
        let mark = run.transport.mark
        let first = await exchange(provider, code: code, verifier: attempt.verifier.reveal())
        let second = await exchange(provider, code: code, verifier: attempt.verifier.reveal())
        let refresh = first.string("refresh_token")
        let check = refresh == nil ? nil : await self.refresh(provider, refresh ?? "")
        let exchanges = run.transport.exchanges(since: mark)
        let observed = exchanges.map(\.description).joined(separator: "; ")
        let (verdict, note): (ProbeVerdict, String)
        if !first.succeeded {
            (verdict, note) = (.breaks, "the first exchange was refused")
        } else if second.succeeded {
            (verdict, note) = (.breaks, "the code was exchanged twice: a code is single-use (RFC 6749 §4.1.2)")
            await revoke(provider, second.string("refresh_token"))
        } else if second.error == nil {
            (verdict, note) = (.copes, "the refusal has no RFC 6749 §5.2 error code")
        } else if check?.succeeded == true {
            (verdict, note) = (.copes, "the first exchange's tokens were not revoked (RFC 6749 §4.1.2 says they should be)")
            await revoke(provider, check?.string("refresh_token"))
        } else {
            (verdict, note) = (.conforms, "")
        }
        run.rows.append(
            ProbeRow(
                step: Probe.codeReplay.name, expected: Probe.codeReplay.expected, observed: observed, verdict: verdict, note: note,
                exchanges: exchanges))
    }

    /// The real client: sign-in, a userinfo call, sign-out with revocation, then the revoked token.
    private func session(
        _ client: OpenIDConnectClient, _ provider: OpenIDProviderMetadata, introspection: URL?,
        _ browser: @escaping @Sendable (String) async -> String?
    ) async {
        var mark = run.transport.mark
        let signedIn = await outcome {
            try await client.signIn { url, _ in
                guard let text = await browser(url.absoluteString), let redirect = URL(string: text) else { throw AuthError.cancelled }
                return redirect
            }
        }
        guard signedIn.isSuccess, let credentials = run.credentials("client") else {
            run.record(Probe.signIn, since: mark, client: signedIn.brief, verdict: .breaks, note: "the client could not sign in: \(signedIn.brief)")
            for step in [Probe.userinfo, Probe.revocation, Probe.afterRevocation] { run.skip(step, "needs: a session (sign-in failed)") }
            return
        }
        run.record(Probe.signIn, since: mark, client: "signed in", verdict: run.statusVerdict(since: mark, expected: [200], keys: ["id_token"]))

        if let endpoint = provider.userinfoEndpoint {
            mark = run.transport.mark
            let answer = await outcome { try await client.authorized(HTTPRequest(method: "GET", url: endpoint)) }
            let status = answer.value?.status
            run.record(
                Probe.userinfo, since: mark, client: status.map { "answered \($0)" } ?? answer.brief,
                verdict: status == 200 ? run.statusVerdict(since: mark, expected: [200], keys: ["sub"]) : .breaks,
                note: status == 200 ? run.statusNote(since: mark, expected: [200], keys: ["sub"]) : "the session's bearer was refused")
        } else {
            run.skip(Probe.userinfo, "needs: a userinfo_endpoint")
        }

        guard provider.revocationEndpoint != nil else {
            run.skip(Probe.revocation, "needs: a revocation_endpoint")
            run.skip(Probe.afterRevocation, "needs: a revocation_endpoint")
            await client.signOut()
            return
        }
        mark = run.transport.mark
        let ended = await client.signOutAndEndServerSession()
        let confirmed = ended == .ended
        run.record(
            Probe.revocation, since: mark, client: ended.map { ProbeRun.brief($0) } ?? "signed out",
            verdict: confirmed ? run.statusVerdict(since: mark, expected: [200]) : .copes,
            note: confirmed ? run.statusNote(since: mark, expected: [200]) : "the revocation was not confirmed")

        guard let refreshToken = credentials.refreshToken?.reveal() else {
            run.skip(Probe.afterRevocation, "needs: a refresh token (none was granted)")
            return
        }
        mark = run.transport.mark
        let after = await refresh(provider, refreshToken)
        var inactive: Bool?
        if let introspection {
            let answer = await post(introspection, [("token", refreshToken), ("token_type_hint", "refresh_token"), ("client_id", probe.clientID)])
            inactive = answer.succeeded ? (answer.object["active"] as? Bool).map(!) : nil
        }
        let exchanges = run.transport.exchanges(since: mark)
        let (verdict, note): (ProbeVerdict, String)
        if after.succeeded {
            (verdict, note) = (.breaks, "the revoked refresh token still refreshes: sign-out did not end the session")
            await revoke(provider, after.string("refresh_token"))
        } else if inactive == false {
            (verdict, note) = (.breaks, "introspection says the revoked token is still active")
        } else if after.error != "invalid_grant" {
            (verdict, note) = (.copes, "refused without RFC 6749 §5.2's invalid_grant")
        } else {
            (verdict, note) = (.conforms, inactive == nil ? "no introspection to ask (or it refused a public client)" : "")
        }
        run.rows.append(
            ProbeRow(
                step: Probe.afterRevocation.name, expected: Probe.afterRevocation.expected,
                observed: exchanges.map(\.description).joined(separator: "; "), verdict: verdict, note: note, exchanges: exchanges))
    }

    // MARK: Requests

    /// An authorization attempt of the probe's own, through the operator's browser: the code and the attempt.
    private func authorize(
        _ provider: OpenIDProviderMetadata, _ browser: @Sendable (String) async -> String?
    ) async -> (String, AuthorizationAttempt)? {
        let contract = OpenIDConnectContract(provider: provider, clientID: probe.clientID, redirectURI: probe.redirectURI)
        let attempt = PKCE.attempt()
        guard let text = await browser(contract.authorizationURL(for: attempt).absoluteString), let url = URL(string: text),
            case .code(let code, let state, _)? = contract.authorizationResponse(from: url), state == attempt.state
        else { return nil }
        return (code.reveal(), attempt)
    }

    private func exchange(_ provider: OpenIDProviderMetadata, code: String, verifier: String) async -> Answer {
        await post(
            provider.tokenEndpoint,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", probe.redirectURI.absoluteString),
                ("client_id", probe.clientID), ("code_verifier", verifier),
            ])
    }

    private func refresh(_ provider: OpenIDProviderMetadata, _ token: String) async -> Answer {
        await post(provider.tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", probe.clientID)])
    }

    /// Revokes a grant the probe obtained where a check let it live (cleaning up after a difference).
    private func revoke(_ provider: OpenIDProviderMetadata, _ token: String?) async {
        guard let token, let endpoint = provider.revocationEndpoint else { return }
        _ = await post(endpoint, [("token", token), ("client_id", probe.clientID)])
    }

    /// A form POST (RFC 6749 §4.1.3), through the run's transport.
    private func post(_ url: URL, _ fields: [(String, String)]) async -> Answer {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(RequestBuilder.formEncoded(fields).utf8))
        return await send(request)
    }

    /// Sends `request` through the run's transport (counted, noted); what came back.
    private func send(_ request: HTTPRequest) async -> Answer {
        let mark = run.transport.mark
        let response = try? await run.transport.send(request)
        let exchange =
            run.transport.exchanges(since: mark).last
            ?? ProbeExchange(method: request.method, path: request.url.path, status: nil, keys: [], failure: "not sent")
        let body = response?.body ?? Data()
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        return Answer(exchange: exchange, object: object, body: body)
    }

    /// A refusal the document asks for: `400 {error: invalid_grant}` conforms; another 4xx, or no
    /// `error`, copes (the client reads the status); a success breaks.
    private func recordRefusal(_ step: ProbeStep, _ answer: Answer) {
        let status = answer.status ?? 0
        let (verdict, note): (ProbeVerdict, String)
        if answer.succeeded {
            (verdict, note) = (.breaks, "accepted where a refusal was due")
        } else if !(400..<500).contains(status) {
            (verdict, note) = (
                .copes,
                "answered \(answer.status.map(String.init) ?? "nothing (\(answer.exchange.failure ?? "network"))") where the standard says 400"
            )
        } else if answer.error == nil {
            (verdict, note) = (.copes, "the \(status) has no RFC 6749 §5.2 error code (keys: \(answer.exchange.keys.joined(separator: ", ")))")
        } else if answer.error != "invalid_grant" || status != 400 {
            (verdict, note) = (.copes, "answered \(status) \(answer.error ?? "") where the standard says 400 invalid_grant")
        } else {
            (verdict, note) = (.conforms, "")
        }
        run.record(step, exchange: answer.exchange, verdict: verdict, note: note)
    }
}
