/// OpenID Connect sign-in by authorization code with PKCE, for native apps (OpenID Connect Core
/// §3.1, RFC 7636 S256, RFC 8252): the app opens the provider's authorization URL in a browser,
/// the provider redirects back with a code, and the code is exchanged once, with the attempt's
/// PKCE verifier, for tokens and an ID token whose claims are checked before the grant is handed
/// to the session.
///
/// The rules it keeps:
/// - a callback whose `state` is not the pending attempt's is never accepted (RFC 6749 §10.12);
/// - a callback's `iss`, when present or when the provider advertises
///   `authorization_response_iss_parameter_supported` (``requiresIssuerInResponse``), must be the
///   issuer (RFC 9207, the mix-up defence); a wrong one abandons the attempt;
/// - a code is exchanged at most once: the attempt ends when its callback is taken, and a failed
///   exchange is never retried;
/// - the verifier leaves only in the token request (``APIRequest/exchangeCode(_:)``);
/// - the ID token's `iss`, `aud`, `azp`, `exp`, `iat` and `nonce` are checked (``check(_:nonce:at:)``)
///   before a grant is accepted: a wrong one never signs in. Its signature is not checked: it came
///   straight from the token endpoint over TLS (OpenID Connect Core §3.1.3.7 ¶6).
///
/// `state`, `nonce` and the verifier are data from outside (``AuthorizationAttempt``, made by the
/// runtime's random number generator), and the authorization URL is built by the runtime's
/// contract, so the reducer stays deterministic and imports no cryptography.
public struct OpenIDSignIn: EntryFlow {
    /// The provider's issuer identifier, exactly as its discovery document names it.
    public var issuer: String
    /// The app's client id at the provider.
    public var clientID: String
    /// Whether the provider advertises `authorization_response_iss_parameter_supported` (RFC 9207):
    /// a callback without `iss` is then refused.
    public var requiresIssuerInResponse: Bool
    /// How far in the future an ID token's `iat` may lie, for clocks that disagree.
    public var maximumClockSkew: Interval

    /// A sign-in at `issuer` for the client `clientID`; `requiresIssuerInResponse` as the
    /// provider's discovery document says.
    public init(issuer: String, clientID: String, requiresIssuerInResponse: Bool = false, maximumClockSkew: Interval = .seconds(600)) {
        self.issuer = issuer
        self.clientID = clientID
        self.requiresIssuerInResponse = requiresIssuerInResponse
        self.maximumClockSkew = maximumClockSkew
    }

    /// Where the user is in OpenID Connect sign-in.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["idle", "awaitingCallback", "exchangingCode", "signedIn"]

        /// No attempt pending.
        case idle
        /// The provider's page is open for this attempt; only a callback carrying its `state` is
        /// accepted.
        case awaitingCallback(AuthorizationAttempt)
        /// The attempt's code was sent to the token endpoint (once); the ID token must carry
        /// `nonce`.
        case exchangingCode(nonce: String, RequestID)
        /// Signed in: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case.)
        indirect case signedIn(Grant)
    }

    /// What the user (or the system, for the redirect) can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["begin", "callback", "cancel"]

        /// Start an attempt (the runtime made its `state`, `nonce` and verifier, and opens the
        /// authorization URL it builds from them). A pending attempt is replaced: its callback
        /// will not be accepted.
        case begin(AuthorizationAttempt)
        /// The provider redirected to the app.
        /// (Indirect: the largest payload, which would size every intent of a nest of flows.)
        indirect case callback(AuthorizationResponse)
        /// Give up on the pending attempt.
        case cancel
    }

    /// Starts with no attempt.
    public var initialPhase: Phase { .idle }

    /// The grant once signed in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// Checks an ID token's claims against this client and the attempt's `nonce` at `now`
    /// (OpenID Connect Core §3.1.3.7): `nil` when it is acceptable, otherwise the first claim that
    /// is wrong. A `nil` nonce means none was sent (the device grant, ``DeviceSignIn``, has no
    /// authorization request to carry one), so none is compared.
    public func check(_ claims: IDTokenClaims, nonce: String?, at now: Instant) -> IDTokenProblem? {
        guard claims.issuer == issuer else { return .issuer }
        guard claims.audiences.contains(clientID) else { return .audience }
        if let party = claims.authorizedParty {
            guard party == clientID else { return .authorizedParty }
        } else if claims.audiences.count > 1 {
            return .authorizedParty
        }
        guard now < claims.expiresAt else { return .expired }
        if let issuedAt = claims.issuedAt, now + maximumClockSkew < issuedAt { return .issuedInFuture }
        if let nonce { guard claims.nonce == nonce else { return .nonce } }
        return nil
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, _): return handle(intent, id, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, _):
            switch phase {
            case .exchangingCode(_, let request):
                guard requests.intent(waitingFor: request) == intent else { return [] }  // Not waiting here.
                phase = .idle  // The code may be spent: it is never sent again.
                return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
            case .idle, .awaitingCallback, .signedIn:
                return []  // Nobody waits here: `begin` finished at once.
            }
        case .tick, .launched: return []  // No deadlines here; the vault is the session's.
        }
    }

    private func handle(_ intent: Intent, _ id: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .idle, .awaitingCallback:
            switch intent {
            case .begin(let attempt):
                phase = .awaitingCallback(attempt)  // A pending attempt is replaced.
                return [.finish(id, .done)]
            case .callback(let response):
                guard case .awaitingCallback(let attempt) = phase, response.state == attempt.state else {
                    return [.reject(id, .callbackMismatch)]  // Not this attempt's: it may still come.
                }
                if let claimed = response.issuer {
                    guard claimed == issuer else {
                        phase = .idle  // A mix-up: this attempt's state reached another issuer.
                        return [.reject(id, .callbackMismatch)]
                    }
                } else if requiresIssuerInResponse {
                    phase = .idle
                    return [.reject(id, .callbackMismatch)]
                }
                switch response {
                case .code(let code, _, _):
                    let request = requests.issue(for: id)
                    phase = .exchangingCode(nonce: attempt.nonce, request)
                    return [.send(request, .exchangeCode(CodeExchange(code: code, verifier: attempt.verifier)))]
                case .error(let error, let description, _, _):
                    phase = .idle
                    return [.finish(id, .failed(.unauthorized(description ?? error)))]
                }
            case .cancel:
                let changed = phase != .idle
                phase = .idle
                return [.finish(id, changed ? .done : .unchanged)]
            }
        case .exchangingCode(_, let request):
            switch intent {
            case .begin: return [.reject(id, .busy)]
            case .callback: return [.reject(id, .callbackMismatch)]  // The attempt's code is spent.
            case .cancel:
                phase = .idle  // The exchange in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .begin, .cancel: return [.reject(id, .alreadySignedIn)]
            case .callback: return [.reject(id, .callbackMismatch)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext)
        -> [AuthEffect]
    {
        switch phase {
        case .exchangingCode(let nonce, let current) where current == id:
            switch reply {
            case .granted(let grant):
                let problem = grant.idToken.map { check($0, nonce: nonce, at: now) } ?? .missing
                if let problem {
                    phase = .idle
                    return requests.finish(waitingFor: id, .failed(.unauthorized(problem.description)))
                }
                phase = .signedIn(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .failed(let failure):
                phase = .idle  // Never exchanged again: a new attempt starts over.
                return requests.finish(waitingFor: id, .failed(failure))
            case .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
                .realtimeOpened, .realtimeClosed:
                phase = .idle
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .idle, .awaitingCallback, .exchangingCode, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }
}

/// An app signing in with OpenID Connect, in the browser (``OpenIDSignIn``) or, on a device
/// without one, with a user code entered elsewhere (``DeviceSignIn``), and keeping the session
/// with the provider's tokens.
public typealias OpenIDConnectApp = Handover<OneOf<OpenIDSignIn, DeviceSignIn>, SessionLifecycle>

extension Backend {
    /// Any OpenID Connect provider, by that name: the standard rather than a documented backend
    /// (it is not among ``documented``). Its app, ``Apps/openIDConnect(_:device:refresh:restore:serverSignOutAttempts:)``,
    /// signs in with ``OpenIDSignIn`` or ``DeviceSignIn`` and keeps a session that refreshes with
    /// rotation and revokes at logout.
    public static let openIDConnect = Backend(
        id: "openIDConnect", name: "OpenID Connect", lifecycles: [.openIDSignIn, .deviceSignIn, .session, .rotatingRefresh, .logout])
}

extension Apps {
    /// OpenID Connect sign-in in the browser or by device code (`device`; by default at the
    /// provider and for the client of `signIn`), handing over to a session that refreshes with
    /// rotation when the provider granted a refresh token (RFC 9700 §4.14.2), restores a stored
    /// session as `restore` says (by default it asks the userinfo endpoint who the stored token
    /// belongs to), and revokes the refresh token at logout in the background (RFC 7009).
    public static func openIDConnect(
        _ signIn: OpenIDSignIn, device: DeviceSignIn? = nil,
        refresh: RefreshPolicy = .rotatingWhenGranted(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)),
        restore: RestorePolicy = .fetchCurrentUser, serverSignOutAttempts: Int = 3
    ) -> OpenIDConnectApp {
        Handover(
            entry: OneOf(signIn, device ?? DeviceSignIn(signIn)),
            session: SessionLifecycle(
                policy: SessionPolicy(refresh: refresh, restore: restore, revokesOnLogout: true, serverSignOutAttempts: serverSignOutAttempts)))
    }
}
