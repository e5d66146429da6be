import Testing
@testable import AuthCore

/// OpenID Connect sign-in by authorization code with PKCE.
enum OpenIDSignInTable {
    typealias Phase = OpenIDSignIn.Phase
    typealias Intent = OpenIDSignIn.Intent
    static let issuer = "https://id.example"
    static let clientID = "app-1"
    static let machine = OpenIDSignIn(issuer: issuer, clientID: clientID)
    /// A provider advertising `authorization_response_iss_parameter_supported`.
    static let strict = OpenIDSignIn(issuer: issuer, clientID: clientID, requiresIssuerInResponse: true)
    static let t0 = Samples.t0

    static let verifier = CodeVerifier("verifier-1")
    static let attempt = AuthorizationAttempt(state: "state-1", nonce: "nonce-1", verifier: verifier)
    static let code = AuthorizationCode("code-1")
    static let exchange = APIRequest.exchangeCode(CodeExchange(code: code, verifier: verifier))

    static let claims = IDTokenClaims(
        issuer: issuer, subject: Samples.userID, audiences: [clientID], expiresAt: Samples.at(300), issuedAt: t0, nonce: "nonce-1")
    static func grant(_ claims: IDTokenClaims?) -> Grant {
        Grant(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiry: .after(Samples.lifetime), user: Samples.user, idToken: claims)
    }
    static let good = grant(claims)

    static let phases: [(String, Phase)] = [
        ("idle", .idle),
        ("awaitingCallback", .awaitingCallback(attempt)),
        ("exchangingCode", .exchangingCode(nonce: "nonce-1", Samples.r(1))),
        ("signedIn", .signedIn(good)),
    ]
    static let exchanging = phases[2].1

    static func row(
        _ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 1,
        machine: OpenIDSignIn = machine
    ) -> Row<OpenIDSignIn> {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: Intent) -> AuthEvent<Intent> { .intent(intent, at: t0) }
    static func callback(state: String?, issuer: String? = nil) -> Intent { .callback(.code(code, state: state, issuer: issuer)) }
    static let matching = callback(state: "state-1")
    static let foreign = callback(state: "state-0")
    static func granted(_ claims: IDTokenClaims?) -> AuthEvent<Intent> { .reply(Samples.r(1), .granted(grant(claims)), at: t0) }
    static func refused(_ problem: IDTokenProblem) -> [AuthEffect] { [.finish(Samples.pending, .failed(.unauthorized(problem.description)))] }

    static func with(_ change: (inout IDTokenClaims) -> Void) -> IDTokenClaims {
        var changed = claims
        change(&changed)
        return changed
    }

    static let withdrawals = withdrawnRows(
        machine, "withdrawals", phases: phases, abandoned: ["exchangingCode": (.idle, Samples.r(1))])

    static let rows: [Row<OpenIDSignIn>] =
        withdrawals + [
            // idle
            row(
                "idle + begin → awaitingCallback, finished done", .idle, intent(.begin(attempt)), .awaitingCallback(attempt),
                [
                    .finish(Samples.intent, .done)
                ]),
            row(
                "idle + callback → rejected callbackMismatch (no attempt pending)", .idle, intent(matching), .idle,
                [.reject(Samples.intent, .callbackMismatch)]),
            row("idle + cancel → unchanged", .idle, intent(.cancel), .idle, [.finish(Samples.intent, .unchanged)]),

            // awaitingCallback
            row(
                "awaitingCallback + callback(code, this state) → exchangingCode, sends the code with the verifier", phases[1].1,
                intent(matching), exchanging, [.send(Samples.r(1), exchange)]),
            row(
                "awaitingCallback + callback(code, another state) → unchanged, rejected callbackMismatch", phases[1].1, intent(foreign),
                phases[1].1, [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "awaitingCallback + callback(code, no state) → unchanged, rejected callbackMismatch", phases[1].1,
                intent(callback(state: nil)), phases[1].1, [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "awaitingCallback + callback(error, another state) → unchanged, rejected callbackMismatch", phases[1].1,
                intent(.callback(.error("access_denied", description: nil, state: "state-0", issuer: nil))), phases[1].1,
                [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "awaitingCallback + callback(code, this state, this iss) → exchangingCode", phases[1].1,
                intent(callback(state: "state-1", issuer: issuer)), exchanging, [.send(Samples.r(1), exchange)]),
            row(
                "awaitingCallback + callback(code, this state, another iss) → idle, rejected callbackMismatch (mix-up), nothing sent",
                phases[1].1, intent(callback(state: "state-1", issuer: "https://evil.example")), .idle,
                [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "awaitingCallback (iss required) + callback(code, this state, no iss) → idle, rejected callbackMismatch, nothing sent",
                phases[1].1, intent(matching), .idle, [.reject(Samples.intent, .callbackMismatch)], machine: strict),
            row(
                "awaitingCallback (iss required) + callback(code, this state, this iss) → exchangingCode", phases[1].1,
                intent(callback(state: "state-1", issuer: issuer)), exchanging, [.send(Samples.r(1), exchange)], machine: strict),
            row(
                "awaitingCallback + callback(error access_denied, this state) → idle, fails unauthorized with the description",
                phases[1].1, intent(.callback(.error("access_denied", description: "The user declined", state: "state-1", issuer: nil))),
                .idle, [.finish(Samples.intent, .failed(.unauthorized("The user declined")))]),
            row(
                "awaitingCallback + callback(error without description) → idle, fails unauthorized with the error code", phases[1].1,
                intent(.callback(.error("server_error", description: nil, state: "state-1", issuer: nil))), .idle,
                [.finish(Samples.intent, .failed(.unauthorized("server_error")))]),
            row(
                "awaitingCallback + begin(a new attempt) → awaitingCallback for it, the old state no longer accepted", phases[1].1,
                intent(.begin(AuthorizationAttempt(state: "state-2", nonce: "nonce-2", verifier: CodeVerifier("verifier-2")))),
                .awaitingCallback(AuthorizationAttempt(state: "state-2", nonce: "nonce-2", verifier: CodeVerifier("verifier-2"))),
                [.finish(Samples.intent, .done)]),
            row("awaitingCallback + cancel → idle", phases[1].1, intent(.cancel), .idle, [.finish(Samples.intent, .done)]),

            // exchangingCode
            row(
                "exchangingCode + reply(granted, a good ID token) → signedIn with the grant", exchanging, granted(claims), .signedIn(good),
                [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "exchangingCode + reply(granted, several audiences and azp = client) → signedIn", exchanging,
                granted(
                    with {
                        $0.audiences = [clientID, "api"]; $0.authorizedParty = clientID
                    }),
                .signedIn(
                    grant(
                        with {
                            $0.audiences = [clientID, "api"]; $0.authorizedParty = clientID
                        })),
                [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "exchangingCode + reply(granted, no ID token) → idle, refused", exchanging, granted(nil), .idle, refused(.missing)),
            row(
                "exchangingCode + reply(granted, wrong nonce) → idle, refused", exchanging, granted(with { $0.nonce = "nonce-0" }), .idle,
                refused(.nonce)),
            row(
                "exchangingCode + reply(granted, no nonce) → idle, refused", exchanging, granted(with { $0.nonce = nil }), .idle, refused(.nonce)),
            row(
                "exchangingCode + reply(granted, wrong iss) → idle, refused", exchanging, granted(with { $0.issuer = "https://evil.example" }),
                .idle, refused(.issuer)),
            row(
                "exchangingCode + reply(granted, iss with a trailing slash) → idle, refused (compared exactly)", exchanging,
                granted(with { $0.issuer = issuer + "/" }), .idle, refused(.issuer)),
            row(
                "exchangingCode + reply(granted, aud without the client) → idle, refused", exchanging,
                granted(with { $0.audiences = ["other-app"] }), .idle, refused(.audience)),
            row(
                "exchangingCode + reply(granted, several audiences, no azp) → idle, refused", exchanging,
                granted(with { $0.audiences = [clientID, "api"] }), .idle, refused(.authorizedParty)),
            row(
                "exchangingCode + reply(granted, azp another party) → idle, refused", exchanging,
                granted(with { $0.authorizedParty = "other-app" }), .idle, refused(.authorizedParty)),
            row(
                "exchangingCode + reply(granted, exp now) → idle, refused", exchanging, granted(with { $0.expiresAt = t0 }), .idle,
                refused(.expired)),
            row(
                "exchangingCode + reply(granted, iat beyond the clock skew) → idle, refused", exchanging,
                granted(with { $0.issuedAt = Samples.at(601) }), .idle, refused(.issuedInFuture)),
            row(
                "exchangingCode + reply(granted, iat within the clock skew) → signedIn", exchanging,
                granted(with { $0.issuedAt = Samples.at(600) }), .signedIn(grant(with { $0.issuedAt = Samples.at(600) })),
                [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "exchangingCode + reply(400 invalid_grant) → idle, fails, the code never sent again", exchanging,
                .reply(Samples.r(1), .failed(.badRequest("invalid_grant")), at: t0), .idle,
                [.finish(Samples.pending, .failed(.badRequest("invalid_grant")))]),
            row(
                "exchangingCode + reply(network) → idle, fails, not retried", exchanging, .reply(Samples.r(1), .failed(.network), at: t0), .idle,
                [.finish(Samples.pending, .failed(.network))]),
            row(
                "exchangingCode + reply(accepted) → idle, fails malformed", exchanging, .reply(Samples.r(1), .accepted(nil), at: t0), .idle,
                [.finish(Samples.pending, .failed(.malformed))]),
            row("exchangingCode + reply(stale id) → unchanged", exchanging, .reply(Samples.staleID, .granted(good), at: t0), exchanging, []),
            row("exchangingCode + begin → rejected busy", exchanging, intent(.begin(attempt)), exchanging, [.reject(Samples.intent, .busy)]),
            row(
                "exchangingCode + callback(the same code again) → rejected callbackMismatch, not exchanged twice", exchanging, intent(matching),
                exchanging, [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "exchangingCode + cancel → idle, the exchange becomes stale", exchanging, intent(.cancel), .idle,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),

            // signedIn
            row(
                "signedIn + begin → rejected alreadySignedIn", phases[3].1, intent(.begin(attempt)), phases[3].1,
                [
                    .reject(Samples.intent, .alreadySignedIn)
                ]),
            row(
                "signedIn + cancel → rejected alreadySignedIn", phases[3].1, intent(.cancel), phases[3].1,
                [
                    .reject(Samples.intent, .alreadySignedIn)
                ]),
            row(
                "signedIn + callback → rejected callbackMismatch", phases[3].1, intent(matching), phases[3].1,
                [.reject(Samples.intent, .callbackMismatch)]),
        ]
        + unchangedRows(
            machine, "nothing current", phases: [phases[0], phases[1], phases[3]],
            events: [("reply(stale id)", .reply(Samples.r(1), .granted(good), at: t0))])
        + unchangedRows(
            machine, "no deadlines, the vault is the session's", phases: phases,
            events: [("tick", .tick(Samples.at(3600))), ("launched(stored)", .launched(.stored(Samples.rotatingCredentials), at: t0))])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["begin", "callback", "cancel"]
}

@Suite("OpenIDSignIn transitions")
struct OpenIDSignInTransitionTests {
    @Test("each row", arguments: OpenIDSignInTable.rows)
    func row(_ row: Row<OpenIDSignIn>) { row.verify() }

    @Test("a code is exchanged at most once: the callback replayed after a failed exchange is refused")
    func codeExchangedOnce() {
        typealias T = OpenIDSignInTable
        let (phase, effects, _) = play(
            T.machine, from: .idle,
            [
                T.intent(.begin(T.attempt)), T.intent(T.matching), .reply(Samples.r(1), .failed(.network), at: T.t0), T.intent(T.matching),
            ])
        let sends = effects.flatMap { $0 }.filter { if case .send = $0 { true } else { false } }
        #expect(sends == [.send(Samples.r(1), T.exchange)])
        #expect(phase == .idle)
        #expect(effects.last == [.reject(Samples.intent, .callbackMismatch)])
    }

    @Test("the verifier is sent only in the token request")
    func verifierOnlyInTokenRequest() {
        typealias T = OpenIDSignInTable
        for row in T.rows {
            for effect in row.run().effects {
                guard case .send(_, let request) = effect else { continue }
                guard case .exchangeCode(let exchange) = request else {
                    Issue.record("\(row.name) sends \(request)")
                    continue
                }
                #expect(exchange.verifier == T.verifier)
            }
        }
    }

    @Test("composed with the session: a good exchange hands the grant over and the session persists it")
    func handsOverToTheSession() {
        typealias T = OpenIDSignInTable
        let app = Apps.openIDConnect(T.machine)
        var state = app.initial
        _ = app.reduce(&state, .intent(app.intent(OpenIDSignIn.Intent.begin(T.attempt)), id: IntentID(1), at: T.t0))
        let sent = app.reduce(&state, .intent(app.intent(T.matching), id: IntentID(2), at: T.t0))
        guard case .send(let request, .exchangeCode)? = sent.first else {
            Issue.record("no exchange sent: \(sent)")
            return
        }
        let effects = app.reduce(&state, .reply(request, .granted(T.good), at: T.t0))
        #expect(effects.contains(.persist(Credentials(T.good, receivedAt: T.t0))))
        #expect(effects.contains(.finish(IntentID(2), .signedIn(Samples.user))))
    }
}
