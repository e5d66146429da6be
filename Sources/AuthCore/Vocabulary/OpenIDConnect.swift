extension SecretKinds {
    /// A PKCE code verifier (RFC 7636 §4.1): the high-entropy secret an app makes for one
    /// authorization attempt and sends only in the token request.
    public enum CodeVerifier: SecretKind {
        /// `code verifier`.
        public static let label = "code verifier"
        /// Made by the app's runtime, not issued by the server.
        public static let isIssuedByServer = false
    }
}

/// A PKCE code verifier (RFC 7636): made by the runtime for one attempt; it prints redacted.
public typealias CodeVerifier = Secret<SecretKinds.CodeVerifier>

/// One browser sign-in attempt at an OpenID Connect provider, as the runtime made it: the values
/// that bind the authorization request to its callback and to the token that answers it.
///
/// All three are random and come from outside the reducer (the runtime's random number
/// generator), so ``OpenIDSignIn`` stays deterministic. The PKCE challenge (S256 of the verifier)
/// goes in the authorization URL, which the runtime builds; the verifier itself goes only in the
/// token request (``APIRequest/exchangeCode(_:)``).
public struct AuthorizationAttempt: Hashable, Sendable, CustomStringConvertible {
    /// The `state` sent in the authorization request: a callback is accepted only if it carries it.
    public var state: String
    /// The `nonce` sent in the authorization request: the ID token must carry it.
    public var nonce: String
    /// The PKCE code verifier (RFC 7636 §4.1), a secret.
    public var verifier: CodeVerifier

    /// Creates an attempt.
    public init(state: String, nonce: String, verifier: CodeVerifier) {
        self.state = state
        self.nonce = nonce
        self.verifier = verifier
    }

    /// `attempt(state: s1)`: the state only (it travels in the URL anyway); the nonce and the
    /// verifier are left out.
    public var description: String { "attempt(state: \(state))" }
}

/// What came back to the app's redirect URI after the provider's page (RFC 6749 §4.1.2), as the
/// runtime read it from the URL's query.
public enum AuthorizationResponse: Hashable, Sendable, CustomStringConvertible {
    /// The provider issued an authorization `code` (a secret), with the `state` and, where the
    /// provider sends it (RFC 9207), the `iss` of the response.
    case code(AuthorizationCode, state: String?, issuer: String?)
    /// The provider refused or the user declined (RFC 6749 §4.1.2.1): the `error` code, its
    /// `error_description`, the `state` and the `iss`.
    case error(String, description: String?, state: String?, issuer: String?)

    /// The `state` the response carries, if any.
    public var state: String? {
        switch self {
        case .code(_, let state, _), .error(_, _, let state, _): state
        }
    }

    /// The `iss` the response carries, if any (RFC 9207).
    public var issuer: String? {
        switch self {
        case .code(_, _, let issuer), .error(_, _, _, let issuer): issuer
        }
    }

    /// `code(‹authorization code›, state: s1)` or `error(access_denied, state: s1)`: the code only
    /// as its kind; the description and the issuer are left out.
    public var description: String {
        switch self {
        case .code(let code, let state, _): "code(\(code), state: \(state ?? "none"))"
        case .error(let error, _, let state, _): "error(\(error), state: \(state ?? "none"))"
        }
    }
}

/// The token request of the authorization code grant with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.5):
/// the code from the callback and the attempt's verifier. The contract adds the `client_id` and
/// the `redirect_uri` it put in the authorization URL.
public struct CodeExchange: Hashable, Sendable, CustomStringConvertible {
    /// The authorization code from the callback, a secret.
    public var code: AuthorizationCode
    /// The attempt's PKCE code verifier, a secret.
    public var verifier: CodeVerifier

    /// Creates an exchange.
    public init(code: AuthorizationCode, verifier: CodeVerifier) {
        self.code = code
        self.verifier = verifier
    }

    /// `codeExchange(‹authorization code›, ‹code verifier›)`: both only as their kind.
    public var description: String { "codeExchange(\(code), \(verifier))" }
}

/// The claims of an ID token (OpenID Connect Core §2) that a client checks before it accepts a
/// sign-in, read by the contract from the token endpoint's `id_token` (its signature unchecked:
/// it came straight from the token endpoint over TLS, OpenID Connect Core §3.1.3.7 ¶6).
public struct IDTokenClaims: Hashable, Sendable, CustomStringConvertible {
    /// `iss`: the provider that issued the token.
    public var issuer: String
    /// `sub`: the user, as the provider names them.
    public var subject: String
    /// `aud`: the clients the token is for (one string or a list in the token).
    public var audiences: [String]
    /// `azp`: the party the token was issued to, when present.
    public var authorizedParty: String?
    /// `exp`: when the token stops being acceptable.
    public var expiresAt: Instant
    /// `iat`: when it was issued, when present.
    public var issuedAt: Instant?
    /// `nonce`: the value of the authorization request, when present.
    public var nonce: String?

    /// Creates the claims.
    public init(
        issuer: String, subject: String, audiences: [String], authorizedParty: String? = nil, expiresAt: Instant, issuedAt: Instant? = nil,
        nonce: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.authorizedParty = authorizedParty
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.nonce = nonce
    }

    /// `idToken(iss: …, sub: …, exp: …)`; the audiences and the nonce are left out.
    public var description: String { "idToken(iss: \(issuer), sub: \(subject), exp: \(expiresAt))" }
}

/// Why an ID token was not accepted (OpenID Connect Core §3.1.3.7): each case names the claim.
public enum IDTokenProblem: Hashable, Sendable, CustomStringConvertible {
    /// The token endpoint answered without an `id_token`.
    case missing
    /// `iss` is not the configured issuer.
    case issuer
    /// `aud` does not contain the client id.
    case audience
    /// `azp` is not the client id, or is missing while there are several audiences.
    case authorizedParty
    /// `exp` has passed.
    case expired
    /// `iat` is further in the future than the allowed clock skew.
    case issuedInFuture
    /// `nonce` is not the attempt's.
    case nonce

    /// What went wrong, naming the claim (never a token or a nonce).
    public var description: String {
        switch self {
        case .missing: "The identity provider sent no ID token."
        case .issuer: "The ID token was issued by another provider (iss)."
        case .audience: "The ID token is not for this app (aud)."
        case .authorizedParty: "The ID token was issued to another party (azp)."
        case .expired: "The ID token has expired (exp)."
        case .issuedInFuture: "The ID token is issued in the future (iat)."
        case .nonce: "The ID token does not belong to this sign-in (nonce)."
        }
    }
}
