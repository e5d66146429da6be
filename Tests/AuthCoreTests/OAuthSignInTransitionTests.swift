import Testing
@testable import AuthCore

/// OAuth sign-in (Hero365 `/oauth/{provider}`).
enum OAuthSignInTable {
    typealias Phase = OAuthSignIn.Phase
    typealias Intent = OAuthSignIn.Intent
    static let machine = OAuthSignIn(providers: [.google, .apple])
    static let t0 = Samples.t0

    static let phases: [(String, Phase)] = [
        ("choosingProvider", .choosingProvider),
        ("fetchingURL", .fetchingURL(.google, attempt: "attempt-1", Samples.r(1))),
        ("awaitingCallback", .awaitingCallback(.google, attempt: "attempt-1")),
        ("signedIn", .signedIn(Samples.rotatingGrant)),
        ("signingInNatively", .signingInNatively(.apple, Samples.r(1))),
    ]

    static func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 1)
        -> Row<OAuthSignIn>
    {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: Intent) -> AuthEvent<Intent> { .intent(intent, at: t0) }
    static let begin = Intent.begin(provider: "google", attempt: "attempt-1")
    static let matching = Intent.callback(.tokens(attempt: "attempt-1", Samples.rotatingGrant))
    static let foreign = Intent.callback(.tokens(attempt: "attempt-0", Samples.rotatingGrant))
    static let identityToken = IdentityToken("apple-identity-token")
    static let native = Intent.signInNatively(provider: "apple", identityToken: identityToken, userIdentifier: "apple-user-1")
    static let nativeRequest = APIRequest.signInNatively(
        NativeSignIn(provider: .apple, identityToken: identityToken, userIdentifier: "apple-user-1"))

    static let withdrawals = withdrawnRows(
        machine, "withdrawals", phases: phases,
        abandoned: [
            "fetchingURL": (.choosingProvider, Samples.r(1)), "signingInNatively": (.choosingProvider, Samples.r(1)),
        ])

    static let rows: [Row<OAuthSignIn>] =
        withdrawals + [
            row(
                "choosingProvider + begin(google) → fetchingURL, sends oauthURL", .choosingProvider, intent(begin),
                .fetchingURL(.google, attempt: "attempt-1", Samples.r(1)), [.send(Samples.r(1), .oauthURL(.google))]),
            row(
                "choosingProvider + begin(\" Apple \") → fetchingURL for apple, name trimmed and lowercased", .choosingProvider,
                intent(.begin(provider: " Apple ", attempt: "attempt-2")), .fetchingURL(.apple, attempt: "attempt-2", Samples.r(1)),
                [.send(Samples.r(1), .oauthURL(.apple))]),
            row(
                "choosingProvider + begin(github, not offered here) → rejected unsupportedProvider, nothing sent", .choosingProvider,
                intent(.begin(provider: "github", attempt: "attempt-1")), .choosingProvider, [.reject(Samples.intent, .invalid(.unsupportedProvider))]
            ),
            row(
                "choosingProvider + begin(facebook) → rejected unsupportedProvider, nothing sent", .choosingProvider,
                intent(.begin(provider: "facebook", attempt: "attempt-1")), .choosingProvider,
                [.reject(Samples.intent, .invalid(.unsupportedProvider))]),
            row(
                "choosingProvider + callback → rejected callbackMismatch (no attempt pending)", .choosingProvider, intent(matching),
                .choosingProvider, [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "choosingProvider + cancel → unchanged", .choosingProvider, intent(.cancel), .choosingProvider, [.finish(Samples.intent, .unchanged)]),
            row(
                "choosingProvider + signInNatively(apple, identity token, user) → signingInNatively, sends the token", .choosingProvider,
                intent(native), .signingInNatively(.apple, Samples.r(1)), [.send(Samples.r(1), nativeRequest)]),
            row(
                "choosingProvider + signInNatively(\" Google \", no user identifier) → signingInNatively for google, name trimmed",
                .choosingProvider, intent(.signInNatively(provider: " Google ", identityToken: identityToken, userIdentifier: nil)),
                .signingInNatively(.google, Samples.r(1)),
                [.send(Samples.r(1), .signInNatively(NativeSignIn(provider: .google, identityToken: identityToken)))]),
            row(
                "choosingProvider + signInNatively(apple, with the first authorization's code, name and email) → sends them, trimmed",
                .choosingProvider,
                intent(
                    .signInNatively(
                        provider: "apple", identityToken: identityToken, userIdentifier: "apple-user-1", authorizationCode: AuthorizationCode("c1"),
                        givenName: " Ada ", familyName: "Lovelace", email: " ada@privaterelay.appleid.com ")),
                .signingInNatively(.apple, Samples.r(1)),
                [
                    .send(
                        Samples.r(1),
                        .signInNatively(
                            NativeSignIn(
                                provider: .apple, identityToken: identityToken, userIdentifier: "apple-user-1",
                                authorizationCode: AuthorizationCode("c1"),
                                givenName: "Ada", familyName: "Lovelace", email: "ada@privaterelay.appleid.com")))
                ]),
            row(
                "choosingProvider + signInNatively(apple, a blank code, name and email) → sends none of them", .choosingProvider,
                intent(
                    .signInNatively(
                        provider: "apple", identityToken: identityToken, userIdentifier: "apple-user-1", authorizationCode: AuthorizationCode(" "),
                        givenName: " ", familyName: "", email: "\t")),
                .signingInNatively(.apple, Samples.r(1)), [.send(Samples.r(1), nativeRequest)]),
            row(
                "choosingProvider + signInNatively(github, no native sign-in) → rejected unsupportedProvider, nothing sent", .choosingProvider,
                intent(.signInNatively(provider: "github", identityToken: identityToken, userIdentifier: nil)), .choosingProvider,
                [.reject(Samples.intent, .invalid(.unsupportedProvider))]),
            row(
                "choosingProvider + signInNatively(apple, a blank identity token) → rejected identityTokenEmpty, nothing sent",
                .choosingProvider, intent(.signInNatively(provider: "apple", identityToken: IdentityToken(" "), userIdentifier: nil)),
                .choosingProvider, [.reject(Samples.intent, .invalid(.identityTokenEmpty))]),

            // fetchingURL
            row(
                "fetchingURL + reply(authorizationURL) → awaitingCallback, emits openAuthorizationURL", phases[1].1,
                .reply(Samples.r(1), .authorizationURL("https://accounts.example/auth?state=attempt-1"), at: t0),
                .awaitingCallback(.google, attempt: "attempt-1"),
                [.finish(Samples.pending, .authorizationURL("https://accounts.example/auth?state=attempt-1"))]),
            row(
                "fetchingURL + reply(nativeSignInRequired) → choosingProvider, finishes begin with nativeSignInRequired(google)", phases[1].1,
                .reply(Samples.r(1), .nativeSignInRequired, at: t0), .choosingProvider,
                [.finish(Samples.pending, .nativeSignInRequired(.google))]),
            row(
                "fetchingURL + reply(400 unsupported provider) → choosingProvider, fails badRequest", phases[1].1,
                .reply(Samples.r(1), .failed(.badRequest("Unsupported OAuth provider")), at: t0), .choosingProvider,
                [.finish(Samples.pending, .failed(.badRequest("Unsupported OAuth provider")))]),
            row(
                "fetchingURL + reply(accepted) → choosingProvider, fails malformed", phases[1].1, .reply(Samples.r(1), .accepted(nil), at: t0),
                .choosingProvider, [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "fetchingURL + reply(stale id) → unchanged", phases[1].1, .reply(Samples.staleID, .authorizationURL("https://x.example"), at: t0),
                phases[1].1, []),
            row("fetchingURL + begin → rejected busy", phases[1].1, intent(begin), phases[1].1, [.reject(Samples.intent, .busy)]),
            row("fetchingURL + signInNatively → rejected busy", phases[1].1, intent(native), phases[1].1, [.reject(Samples.intent, .busy)]),
            row(
                "fetchingURL + callback → rejected callbackMismatch", phases[1].1, intent(matching), phases[1].1,
                [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "fetchingURL + cancel → choosingProvider, the request becomes stale", phases[1].1, intent(.cancel), .choosingProvider,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),

            // awaitingCallback
            row(
                "awaitingCallback + callback(tokens, this attempt) → signedIn with the grant", phases[2].1, intent(matching),
                .signedIn(Samples.rotatingGrant), [.finish(Samples.intent, .signedIn(Samples.user))]),
            row(
                "awaitingCallback + callback(tokens, another attempt) → unchanged, rejected callbackMismatch", phases[2].1, intent(foreign),
                phases[2].1, [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "awaitingCallback + callback(failure, this attempt) → choosingProvider, fails unauthorized", phases[2].1,
                intent(.callback(.failure(attempt: "attempt-1", "access_denied"))), .choosingProvider,
                [.finish(Samples.intent, .failed(.unauthorized("access_denied")))]),
            row(
                "awaitingCallback + begin(apple) → fetchingURL for a new attempt", phases[2].1,
                intent(.begin(provider: "apple", attempt: "attempt-2")), .fetchingURL(.apple, attempt: "attempt-2", Samples.r(2)),
                [.send(Samples.r(2), .oauthURL(.apple))], requests: 2),
            row("awaitingCallback + cancel → choosingProvider", phases[2].1, intent(.cancel), .choosingProvider, [.finish(Samples.intent, .done)]),
            row(
                "awaitingCallback + signInNatively → signingInNatively, the browser attempt abandoned", phases[2].1, intent(native),
                .signingInNatively(.apple, Samples.r(2)),
                [.send(Samples.r(2), .signInNatively(NativeSignIn(provider: .apple, identityToken: identityToken, userIdentifier: "apple-user-1")))],
                requests: 2),

            // signingInNatively
            row(
                "signingInNatively + reply(granted) → signedIn with the grant", phases[4].1,
                .reply(Samples.r(1), .granted(Samples.rotatingGrant), at: t0),
                .signedIn(Samples.rotatingGrant), [.finish(Samples.pending, .signedIn(Samples.user))]),
            row(
                "signingInNatively + reply(400 invalid ID token) → choosingProvider, fails with the server's message", phases[4].1,
                .reply(Samples.r(1), .failed(.badRequest("Apple Sign-In failed")), at: t0), .choosingProvider,
                [.finish(Samples.pending, .failed(.badRequest("Apple Sign-In failed")))]),
            row(
                "signingInNatively + reply(accepted) → choosingProvider, fails malformed", phases[4].1, .reply(Samples.r(1), .accepted(nil), at: t0),
                .choosingProvider, [.finish(Samples.pending, .failed(.malformed))]),
            row(
                "signingInNatively + reply(stale id) → unchanged", phases[4].1,
                .reply(Samples.staleID, .granted(Samples.rotatingGrant), at: t0), phases[4].1, []),
            row("signingInNatively + begin → rejected busy", phases[4].1, intent(begin), phases[4].1, [.reject(Samples.intent, .busy)]),
            row("signingInNatively + signInNatively → rejected busy", phases[4].1, intent(native), phases[4].1, [.reject(Samples.intent, .busy)]),
            row(
                "signingInNatively + callback → rejected callbackMismatch", phases[4].1, intent(matching), phases[4].1,
                [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "signingInNatively + cancel → choosingProvider, the request becomes stale", phases[4].1, intent(.cancel), .choosingProvider,
                [.finish(Samples.pending, .superseded), .finish(Samples.intent, .done)]),

            // signedIn
            row("signedIn + begin → rejected alreadySignedIn", phases[3].1, intent(begin), phases[3].1, [.reject(Samples.intent, .alreadySignedIn)]),
            row(
                "signedIn + cancel → rejected alreadySignedIn", phases[3].1, intent(.cancel), phases[3].1, [.reject(Samples.intent, .alreadySignedIn)]
            ),
            row(
                "signedIn + callback → rejected callbackMismatch", phases[3].1, intent(matching), phases[3].1,
                [.reject(Samples.intent, .callbackMismatch)]),
            row(
                "signedIn + signInNatively → rejected alreadySignedIn", phases[3].1, intent(native), phases[3].1,
                [.reject(Samples.intent, .alreadySignedIn)]),
        ]
        + unchangedRows(
            machine, "nothing current", phases: [phases[0], phases[2], phases[3]],
            events: [("reply(stale id)", .reply(Samples.r(1), .authorizationURL("https://x.example"), at: t0))])
        + unchangedRows(
            machine, "no deadlines, the vault is the session's", phases: phases,
            events: [("tick", .tick(Samples.at(3600))), ("launched(stored)", .launched(.stored(Samples.rotatingCredentials), at: t0))])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["begin", "callback", "cancel", "signInNatively"]
}

@Suite("OAuthSignIn transitions")
struct OAuthSignInTransitionTests {
    @Test("every OAuthSignIn row gives the expected phase and effects", arguments: OAuthSignInTable.rows)
    func transition(_ row: Row<OAuthSignIn>) { row.verify() }
}
