import AuthCore

/// The answers a backend can give, per request: success shapes and failures. Tokens in answers
/// are symbolic (`at3`, `rt4`), fresh for each world.
public struct ReplyCatalogue: Hashable, Sendable {
    /// A sign-in answer's shape.
    public struct GrantShape: Hashable, Sendable {
        /// `passwordSet` in the user: `false`, `true`, or absent.
        public var passwordSet: Bool?
        /// Everday's `RequirePasswordChange`.
        public var requiresPasswordChange: Bool
        /// Whether a refresh token comes with it.
        public var withRefreshToken: Bool

        /// Creates a shape.
        @inlinable public init(passwordSet: Bool? = nil, requiresPasswordChange: Bool = false, withRefreshToken: Bool = false) {
            self.passwordSet = passwordSet
            self.requiresPasswordChange = requiresPasswordChange
            self.withRefreshToken = withRefreshToken
        }
    }

    /// What a successful registration answers.
    public enum RegistrationOutcome: Hashable, Sendable {
        /// A session at once.
        case session
        /// Verify by email or phone first.
        case verificationRequired
        /// A parent must approve first.
        case pendingApproval
    }

    /// Sign-in answer shapes.
    public var grants: [GrantShape]
    /// Registration answers.
    public var registration: [RegistrationOutcome]
    /// Failures any request can meet.
    public var failures: [AuthFailure]
    /// Failures a protected call can meet.
    public var callFailures: [AuthFailure]
    /// The access token's lifetime, or `nil` for "unknown".
    public var accessLifetime: Interval?
    /// Refresh answers may omit the refresh token (keep the old one).
    public var refreshMayOmitToken: Bool
    /// Failures the requests that end a logged-out session on the server (its refresh and
    /// revoke) can meet: one refusal and one transient failure, the two classes the background
    /// sign-out treats differently; every class is explored on the session's own requests.
    public var backgroundFailures: [AuthFailure] = [.unauthorized(nil), .network]
    /// The OAuth URL request may also answer "sign in natively" instead of a URL (Hero365's
    /// deployed server), so both answers are explored.
    public var oauthAnswersNativeSignIn = true
    /// Failures a password step (set or change) can meet besides ``failures``: Everday's change
    /// answers a wrong current password with `AuthFailure.incorrectPassword(_:)`.
    public var passwordStepFailures: [AuthFailure] = []
    /// A password step that succeeds answers the user (Anonymous Wall's profile); otherwise a bare
    /// acknowledgement (Everday's deployed change-password, `{"status":"ok"}`).
    public var passwordStepAnswersUser = true
    /// The server revokes every refresh token of the user when it accepts a password change
    /// (Everday): the kit then holds the session's refresh token dead from that answer on
    /// (``Catalogue/noRevokedRefreshTokenUsed()``).
    public var passwordChangeRevokesRefreshTokens = false
    /// The server's revocation ends every session of the user, not only the one whose refresh
    /// token it presents (Hero365's `/revoke-tokens/{user_id}`): a client may then give up a
    /// revocation it owes when a new session of the user begins, and a round under way once a
    /// session is held or an intent waits (a sign-in may be under way), since the revocation
    /// would end that session too (``Catalogue/noOrphanedServerSession()``); and it must never
    /// send one beside them (``Catalogue/noRevocationBesideSession()``, in the model's invariants
    /// when this is set before the model is made).
    public var revocationEndsEverySession = false
    /// The rounds the client's policy gives a revocation it owes before it reports the server
    /// session unconfirmed (`SessionPolicy.revocationRounds`; 2, its least and its default, unless
    /// the lifecycle says otherwise): the kit lets a logged-out token go with a dropped debt only
    /// at the last of them (``Catalogue/noOrphanedServerSession()``), each round counted
    /// where it ended (``Catalogue/owedRoundsCounted()``). Not the server's answer, but what the
    /// kit holds the client's answers to.
    public var revocationRounds = 2
    /// The sends the client's policy gives each round of a server sign-out before the round counts
    /// as failed (`SessionPolicy.serverSignOutAttempts`; 1, the fewest, unless the lifecycle says
    /// otherwise): a round whose request met a failure the client tries again (a lost request, a
    /// timeout, a 5xx, a malformed answer) ends only when that many answers in a row were such
    /// failures (``SourceRules/endsRound(of:answered:reply:sent:windows:at:attemptsLeft:)``), or at
    /// the server's 429. A client that gives up after fewer spends its rounds on one lost request.
    public var revocationAttempts = 1
    /// The ID tokens an OpenID Connect token endpoint answers a code exchange with, each in a
    /// grant of its own (`nil`: a grant without one). By default none: a model of OpenID Connect
    /// sign-in names the claims, right for one attempt and wrong in each way the client must
    /// refuse (``OpenIDModel/idTokens``).
    public var idTokens: [IDTokenClaims?] = [nil]
    /// What a device authorization endpoint issues (RFC 8628 §3.2): by default a device code
    /// working for 20 seconds and no `interval` (so 5 seconds), which leaves room for three
    /// polls, a `slow_down` or a lost poll among them.
    public var deviceAuthorization = DeviceAuthorization(
        deviceCode: DeviceCode("dc1"), prompt: UserCodePrompt(userCode: "WDJB-MJHT", verificationURI: "https://id.example/device"),
        lifetime: .seconds(20))

    /// Creates a catalogue.
    @inlinable public init(
        grants: [GrantShape] = [GrantShape()], registration: [RegistrationOutcome] = [.session],
        failures: [AuthFailure] = ReplyCatalogue.standardFailures,
        callFailures: [AuthFailure] = [.unauthorized(nil), .forbidden(nil), .network],
        accessLifetime: Interval? = nil, refreshMayOmitToken: Bool = true
    ) {
        self.grants = grants
        self.registration = registration
        self.failures = failures
        self.callFailures = callFailures
        self.accessLifetime = accessLifetime
        self.refreshMayOmitToken = refreshMayOmitToken
    }

    /// Every documented status class: 400, 401, 403 (pending and other), 409, 429, 500, no
    /// network, timeout, unreadable body.
    public static let standardFailures: [AuthFailure] = [
        .badRequest(nil), .unauthorized(nil), .forbidden(nil), .pendingApproval(nil), .conflict(nil),
        .rateLimited(retryAfter: .seconds(30)), .server(status: 500, nil), .network, .timeout, .malformed,
    ]

    /// The user every grant names.
    @inlinable static func user(passwordSet: Bool?) -> UserProfile {
        UserProfile(id: "u1", email: "student@harvard.edu", passwordSet: passwordSet)
    }

    /// All the answers to a request depend on in a world: what the request asks, and the indices
    /// new tokens take. Worlds with one key get the same answers, so they are built once.
    @usableFromInline struct AnswerKey: Hashable, Sendable {
        /// The answers, by what the request asks.
        @usableFromInline enum Kind: Hashable, Sendable {
            case accepted, granted, codeExchange, registration, passwordStep, authorizationURL(OAuthProvider), refreshed, currentUser
            case deviceCode, devicePoll
            case protected, realtime(opened: Bool)
        }

        @usableFromInline let kind: Kind
        @usableFromInline let symbols: SymbolCounts
        /// Whether the request ends a logged-out session in the background.
        @usableFromInline let background: Bool

        @inlinable init(_ exchange: Exchange, symbols: SymbolCounts, background: Bool = false) {
            self.symbols = symbols
            self.background = background
            kind = Kind(exchange)
        }
    }
}

extension ReplyCatalogue.AnswerKey.Kind {
    /// What `exchange`'s request asks, as far as its answers go.
    @inlinable init(_ exchange: Exchange) {
        self =
            switch exchange.request {
            case .sendEmailCode, .sendPhoneCode, .requestPasswordReset, .revoke, .deleteAccount, .resetPassword(.token, _): .accepted
            case .registerWithEmailCode, .signInWithEmailCode, .signInWithPhoneCode, .signIn, .signInNatively, .resetPassword(.emailCode, _):
                .granted
            case .exchangeCode: .codeExchange
            case .requestDeviceCode: .deviceCode
            case .pollDeviceToken: .devicePoll
            case .register: .registration
            case .setPassword, .changePassword: .passwordStep
            case .oauthURL(let provider): .authorizationURL(provider)
            case .refresh: .refreshed
            case .currentUser: .currentUser
            case .protected: .protected
            case .openRealtime: .realtime(opened: exchange.opened)
            }
    }
}

extension ReplyCatalogue {
    /// The answers for `key`, naming new tokens after the highest symbolic indices in the world.
    @inlinable func replies(to key: AnswerKey) -> [Reply] {
        let access = AccessToken(Symbols.name("at", key.symbols.access + 1))
        let refresh = RefreshToken(Symbols.name("rt", key.symbols.refresh + 1))
        let expiry: TokenExpiry = accessLifetime.map(TokenExpiry.after) ?? .unknown
        let granted = grants.map { shape in
            Reply.granted(
                Grant(
                    accessToken: access, refreshToken: shape.withRefreshToken ? refresh : nil, expiry: expiry,
                    user: Self.user(passwordSet: shape.passwordSet), requiresPasswordChange: shape.requiresPasswordChange))
        }
        let failed = (key.background ? backgroundFailures : failures).map(Reply.failed)
        switch key.kind {
        case .accepted:
            return [.accepted(nil)] + failed
        case .granted:
            return granted + failed
        case .codeExchange, .devicePoll:
            // The token endpoint's answer: a grant with each ID token the catalogue offers (its
            // claims right for one attempt, wrong for another, or none at all).
            let shape = grants.first ?? GrantShape(withRefreshToken: true)
            let tokens = idTokens.map { claims in
                Reply.granted(
                    Grant(
                        accessToken: access, refreshToken: shape.withRefreshToken ? refresh : nil, expiry: expiry,
                        user: Self.user(passwordSet: shape.passwordSet), idToken: claims))
            }
            guard key.kind == .devicePoll else { return tokens + failed }
            // A device's poll may also be pending, asked to slow down, declined, expired, or unreadable (RFC 8628 §3.5).
            let unreadable: [Reply] = failures.contains(.malformed) ? [] : [.failed(.malformed)]
            return tokens + [.device(.authorizationPending), .device(.slowDown), .device(.accessDenied), .device(.expiredToken)] + failed
                + unreadable
        case .deviceCode:
            return [.device(.codeIssued(deviceAuthorization))] + failed
        case .registration:
            let outcomes: [Reply] = registration.flatMap { outcome -> [Reply] in
                switch outcome {
                case .session: granted
                case .verificationRequired: [.verificationRequired(nil)]
                case .pendingApproval: [.pendingApproval(nil)]
                }
            }
            return outcomes + failed
        case .passwordStep:
            let done: Reply = passwordStepAnswersUser ? .user(Self.user(passwordSet: true)) : .accepted(nil)
            return [done] + passwordStepFailures.map(Reply.failed) + failed
        case .authorizationURL(let provider):
            let native: [Reply] = oauthAnswersNativeSignIn ? [.nativeSignInRequired] : []
            return [.authorizationURL("https://auth.example/authorize?provider=\(provider.rawValue)")] + native + failed
        case .refreshed:
            var answers: [Reply] = [.refreshed(TokenRefresh(accessToken: access, refreshToken: refresh, expiry: expiry))]
            if refreshMayOmitToken, !key.background {
                answers.append(.refreshed(TokenRefresh(accessToken: access, refreshToken: nil, expiry: expiry)))
            }
            return answers + failed
        case .currentUser:
            return [.user(Self.user(passwordSet: nil))] + failed
        case .protected:
            return [.accepted(nil)] + callFailures.map(Reply.failed)
        case .realtime(let opened):
            // An open connection may close at any time: before the connection's stability timer
            // fires, that is the deployed VynqTalk server's "open, then closed at once".
            return opened
                ? [.realtimeClosed, .failed(.unauthorized(nil))]
                : [.realtimeOpened, .failed(.unauthorized(nil)), .failed(.network)]
        }
    }
}
