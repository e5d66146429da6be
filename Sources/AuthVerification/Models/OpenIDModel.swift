import AuthCore

/// What the OpenID Connect models explore: one provider and client, attempts named `n1` and `n2`
/// in turn (each with its own nonce, verifier and code), callbacks for the pending attempt, for
/// the other one and from another issuer, and a token endpoint answering with an ID token right
/// for `n1`'s attempt, right for `n2`'s, for another client, from another issuer, expired, or none.
///
/// ``Models/openIDSignIn()`` is among ``Models/lifecycles`` and ``Models/openIDConnectApp()``
/// among ``Models/standards``, both checked by `authflow verify`.
public enum OpenIDModel {
    /// The provider's issuer.
    public static let issuer = "https://id.example"
    /// The app's client id.
    public static let clientID = "app"
    /// An ID token's expiry far ahead of every model's clock.
    public static let farFuture = Instant.seconds(4_000_000_000)

    /// The attempt named `name`: its state, and a nonce and a verifier of its own.
    public static func attempt(_ name: String) -> AuthorizationAttempt {
        AuthorizationAttempt(state: name, nonce: "nonce-" + name, verifier: CodeVerifier("verifier-" + name))
    }

    /// The code the provider issues for the attempt named `name`.
    public static func code(_ name: String) -> AuthorizationCode { AuthorizationCode("code-" + name) }

    /// The claims of an ID token for the attempt `name`, as right as can be, then changed by `change`.
    public static func claims(_ name: String, _ change: (inout IDTokenClaims) -> Void = { _ in }) -> IDTokenClaims {
        claims(name, for: signIn, change)
    }

    /// The claims of an ID token `flow`'s provider issues for the attempt `name`, as right as can
    /// be, then changed by `change`.
    static func claims(_ name: String, for flow: OpenIDSignIn, _ change: (inout IDTokenClaims) -> Void = { _ in }) -> IDTokenClaims {
        var claims = IDTokenClaims(
            issuer: flow.issuer, subject: "u1", audiences: [flow.clientID], expiresAt: farFuture, nonce: attempt(name).nonce)
        change(&claims)
        return claims
    }

    /// The ID tokens the token endpoint answers with: right for `n1`, right for `n2` (so wrong
    /// for the other attempt), for another client, from another issuer, expired, and none.
    public static let idTokens: [IDTokenClaims?] = idTokens(for: signIn)

    /// ``idTokens`` as `flow`'s provider issues them, for `flow`'s client.
    static func idTokens(for flow: OpenIDSignIn) -> [IDTokenClaims?] {
        [
            claims("n1", for: flow), claims("n2", for: flow), claims("n1", for: flow) { $0.audiences = ["another-app"] },
            claims("n1", for: flow) { $0.issuer = "https://evil.example" }, claims("n1", for: flow) { $0.expiresAt = .seconds(0) }, nil,
        ]
    }

    /// The sign-in flow the models explore: the provider advertises RFC 9207's `iss`.
    public static let signIn = OpenIDSignIn(issuer: issuer, clientID: clientID, requiresIssuerInResponse: true)
    /// The device sign-in the models explore, at the same provider for the same client.
    public static let deviceSignIn = DeviceSignIn(signIn)
    /// The device sign-in's intents: start, and cancel.
    public static let deviceIntents: [DeviceSignIn.Intent] = [.start, .cancel]
    /// How far back the history's device polling stays exact: longer than any interval a device
    /// code of ``ReplyCatalogue/deviceAuthorization`` (20 seconds) can reach before it expires
    /// (at most 20 seconds: doubled twice after lost polls, or 15 after two `slow_down`s).
    public static let devicePollingHorizon = Interval.seconds(30)

    /// The sign-in intents to try in `snapshot` (see ``OpenIDModel``), for a model of one's own.
    public static func intents<Machine>(in snapshot: Snapshot<Machine>) -> [OpenIDSignIn.Intent] {
        intents(MenuKey(in: snapshot))
    }

    /// What the menu reads of a world: the pending attempt's name.
    public struct MenuKey: Hashable, Sendable {
        let pending: String?
        init<Machine>(in snapshot: Snapshot<Machine>) {
            switch snapshot.phase(OpenIDSignIn.Phase.self) {
            case .awaitingCallback(let attempt)?: pending = attempt.state
            case .idle?, .exchangingCode?, .signedIn?, nil: pending = nil
            }
        }
    }

    /// The sign-in intents: a fresh attempt, a callback carrying the pending attempt's code and
    /// state from the issuer, one for the other attempt, one from another issuer, the provider's
    /// refusal, and cancel.
    static func intents(_ key: MenuKey) -> [OpenIDSignIn.Intent] { intents(key, issuer: issuer) }

    /// ``intents(_:)`` for a provider whose issuer is `issuer`.
    static func intents(_ key: MenuKey, issuer: String) -> [OpenIDSignIn.Intent] {
        let pending = key.pending ?? "n1"
        let other = pending == "n1" ? "n2" : "n1"
        let fresh = key.pending == "n1" ? "n2" : "n1"
        return [
            .begin(attempt(fresh)), .callback(.code(code(pending), state: pending, issuer: issuer)),
            .callback(.code(code(other), state: other, issuer: issuer)),
            .callback(.code(code(pending), state: pending, issuer: "https://evil.example")),
            .callback(.error("access_denied", description: nil, state: pending, issuer: issuer)), .cancel,
        ]
    }

    /// The replies: the ID tokens above in grants with a rotating refresh token; a refused code
    /// (`invalid_grant`), a network failure. A device authorization request gets its codes (the
    /// catalogue's default: 20 seconds, no `interval`) or a failure; a device poll gets each
    /// grant, `authorization_pending`, `slow_down`, `access_denied`, `expired_token`, a failure or
    /// an unreadable answer.
    public static var replies: ReplyCatalogue {
        var replies = ReplyCatalogue(grants: [.init(withRefreshToken: true)], accessLifetime: Models.tokenLifetime)
        replies.idTokens = idTokens
        replies.failures = [.badRequest(nil), .network]
        return replies
    }
}

extension Models {
    /// OpenID Connect sign-in alone (`OpenIDSignIn`).
    public static func openIDSignIn() -> Model<OpenIDSignIn> {
        // The ID tokens follow from the flow's issuer and client; the grants are the provider's.
        Model(of: OpenIDModel.signIn, name: "openIDSignIn") { server in
            server.grants = OpenIDModel.replies.grants
            server.accessLifetime = OpenIDModel.replies.accessLifetime
            server.failures = OpenIDModel.replies.failures
        }
    }

    /// OpenID Connect device sign-in alone (`DeviceSignIn`, RFC 8628): its polls paced by the
    /// interval, slowed down, lost, declined, expired, cancelled and withdrawn.
    public static func deviceSignIn() -> Model<DeviceSignIn> {
        // The ID tokens and the polling horizon follow from the flow; the grants are the provider's.
        Model(of: OpenIDModel.deviceSignIn, name: "deviceSignIn") { server in
            server.grants = OpenIDModel.replies.grants
            server.accessLifetime = OpenIDModel.replies.accessLifetime
            server.failures = OpenIDModel.replies.failures
        }
    }

    /// OpenID Connect sign-in in the browser or by device code, handing over to its session
    /// (`Apps.openIDConnect(_:device:refresh:restore:serverSignOutAttempts:)`): rotating refresh,
    /// the userinfo endpoint asked at launch, revocation at logout.
    /// Explored at 4 requests in flight and 1 answer left over by default, as the other refreshing
    /// apps are (10,767 states with both sign-ins; 976 with the browser's alone); at 4 and 2 it
    /// closes at 47,399 states.
    public static func openIDConnectApp() -> Model<OpenIDConnectApp> {
        var app = Apps.openIDConnect(
            OpenIDModel.signIn, device: OpenIDModel.deviceSignIn, refresh: modelRefresh(retryLimit: 2), serverSignOutAttempts: 2)
        app.session.policy.revocationRounds = modelRevocationRounds
        return Model(of: app, name: "app.openIDConnect", maxInFlight: refreshingBounds.inFlight, maxStale: refreshingBounds.stale) {
            $0.failures = OpenIDModel.replies.failures
        }
    }
}
