import Foundation

/// A small OpenID Connect provider (OAuth 2.1 for one public client, as a native app registers),
/// written from the standards, not from the client it tests. Its issuer is its own base URL
/// (`ReferenceServer.baseURL(for: .openIDConnect)`).
///
/// - `GET /.well-known/openid-configuration`: discovery (OpenID Connect Discovery §3, RFC 8414),
///   with `code_challenge_methods_supported: ["S256"]` and `authorization_response_iss_parameter_supported`.
/// - `GET /authorize`: no login page. The request is checked (client, exact redirect URI,
///   `response_type=code`, `scope` with `openid`, a PKCE S256 challenge) and the test user is
///   signed in at once, as if they had a session and consented: `302` to the redirect URI with
///   `code`, `state` and `iss` (RFC 9207), or with `error` (RFC 6749 §4.1.2.1). `login_hint`
///   names another user. An unknown client or redirect URI is a `400` page, never a redirect.
///   `GET /__dev/oidc/authorize` takes the same query and answers `{"redirectURL": …}` instead,
///   for tests playing the browser without following a redirect to an app's scheme.
/// - `POST /token` (form): `authorization_code` with `code_verifier` required and checked
///   (RFC 7636 §4.6), each code once (a second exchange is refused and revokes what the first
///   issued, RFC 6749 §4.1.2); `refresh_token` rotating, a replayed one revoking its family
///   (RFC 9700 §4.14.2). Answers `access_token`, `token_type`, `expires_in`, `refresh_token`,
///   `scope` and, for a code, an HS256 `id_token` (`iss`, `sub`, `aud`, `azp`, `exp`, `iat`,
///   `auth_time`, `nonce`, `sid`).
/// - `GET`/`POST /userinfo` with a bearer (Core §5.3); `401` with `WWW-Authenticate` (RFC 6750 §3).
/// - `POST /revoke` (RFC 7009): `200` whether the token was live or not; revoking either kind of
///   token ends its grant (the session: its access and refresh tokens).
/// - `POST /introspect` (RFC 7662): `{"active": …}` and the token's claims. A public client may
///   call it here with its `client_id`; real providers usually want a confidential client.
/// - `GET /end_session` (RP-Initiated Logout 1.0): `id_token_hint` ends its session;
///   `post_logout_redirect_uri` must be registered.
/// - `GET /jwks`: no keys (the ID tokens are HS256, signed with `Configuration.OpenIDConnect.idTokenSigningKey`).
///
/// Errors are `{"error", "error_description"}` (RFC 6749 §5.2), unknown clients `401 invalid_client`.
struct OpenIDProvider: Contract {
    /// An authorization code, until its exchange and after (to recognise a replay).
    private struct Code {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var nonce: String?
        var scope: String
        var user: Configuration.OpenIDConnect.User
        var authTime: Date
        var expiresAt: Date
        var presented = false
        /// The sessions its exchanges opened: a replay revokes them.
        var sessions: [String] = []
    }

    private struct State {
        var codes: [String: Code] = [:]
        var users: [String: Configuration.OpenIDConnect.User] = [:]
    }

    let backend = ServedBackend.openIDConnect
    private let services: Services
    private let issuerURL: @Sendable () -> String
    private let state = Locked(State())

    /// A provider whose issuer is what `issuer` answers when asked (the server's URL is known once it listens).
    init(services: Services, issuer: @escaping @Sendable () -> String) {
        self.services = services
        issuerURL = issuer
    }

    var routes: [Route] {
        [
            Route("GET", "/.well-known/openid-configuration", discovery),
            Route("GET", "/authorize", authorizeOverHTTP),
            Route("POST", "/token", token),
            Route("GET", "/userinfo", userinfo),
            Route("POST", "/userinfo", userinfo),
            Route("POST", "/revoke", revoke),
            Route("POST", "/introspect", introspect),
            Route("GET", "/end_session", endSession),
            Route("GET", "/jwks", { _ in .json(200, ["keys": []]) }),
        ]
    }

    /// RFC 6749 §5.2: `{"error", "error_description"}`, the code from the rejection or its status.
    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        if settings.deviations.errorsWithoutCode {
            return .json(rejection.status, ["message": .string(rejection.message)], headers: rejection.headers)
        }
        let code: String
        switch rejection.status {
        case _ where rejection.code != nil: code = rejection.code ?? ""
        case 401: code = "invalid_client"
        case 429, 503: code = "temporarily_unavailable"
        case 500...: code = "server_error"
        default: code = "invalid_request"
        }
        return .json(
            rejection.status, ["error": .string(code), "error_description": .string(rejection.message)], headers: rejection.headers)
    }

    private var settings: Configuration.OpenIDConnect { services.configuration.openIDConnect }
    private var issuer: String { issuerURL() }

    // MARK: Discovery

    private func discovery(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let base = issuer
        return .json(
            200,
            [
                "issuer": .string(base),
                "authorization_endpoint": .string(base + "/authorize"),
                "token_endpoint": .string(base + "/token"),
                "userinfo_endpoint": .string(base + "/userinfo"),
                "revocation_endpoint": .string(base + "/revoke"),
                "introspection_endpoint": .string(base + "/introspect"),
                "end_session_endpoint": .string(base + "/end_session"),
                "jwks_uri": .string(base + "/jwks"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["HS256"],
                "scopes_supported": ["openid", "profile", "email", "offline_access"],
                "claims_supported": ["sub", "name", "email", "email_verified", "preferred_username"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "revocation_endpoint_auth_methods_supported": ["none"],
                "introspection_endpoint_auth_methods_supported": ["none"],
                "authorization_response_iss_parameter_supported": true,
            ])
    }

    // MARK: Authorization

    private func authorizeOverHTTP(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let location = try authorize(request.http.query)
        var headers = ServerHeaders()
        headers.set("Location", location)
        headers.set("Cache-Control", "no-store")
        return ServerResponse(status: 302, headers: headers)
    }

    /// Where the authorization endpoint sends the browser for `query`: the redirect URI with a code
    /// or an error. Throws (a `400` page, no redirect) when the client or redirect URI is not registered.
    func authorize(_ query: [String: String]) throws(Rejection) -> String {
        guard let clientID = query["client_id"], clientID == settings.clientID else {
            throw Rejection(400, "Unknown client_id.", code: "invalid_request")
        }
        guard let redirectURI = query["redirect_uri"], settings.redirectURIs.contains(redirectURI) else {
            throw Rejection(400, "The redirect_uri is not registered for this client.", code: "invalid_request")
        }
        func redirect(_ fields: [(String, String?)]) -> String {
            let all = fields + [("state", query["state"]), ("iss", issuer)]
            let pairs = all.compactMap { name, value in value.map { "\(name)=\(Form.encode($0))" } }
            return redirectURI + (redirectURI.contains("?") ? "&" : "?") + pairs.joined(separator: "&")
        }
        func refuse(_ error: String, _ description: String) -> String {
            redirect([("error", error), ("error_description", description)])
        }
        guard query["response_type"] == "code" else {
            return refuse("unsupported_response_type", "Only response_type=code is supported.")
        }
        // The query is form-encoded: a `+` the server's parser keeps is a space.
        let scope = (query["scope"] ?? "").replacingOccurrences(of: "+", with: " ")
        guard scope.split(separator: " ").contains("openid") else { return refuse("invalid_scope", "The scope must include openid.") }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else {
            return refuse("invalid_request", "code_challenge is required (PKCE).")
        }
        guard query["code_challenge_method"] == "S256" else {
            return refuse("invalid_request", "code_challenge_method must be S256.")
        }
        var user = settings.user
        if let hint = query["login_hint"], !hint.isEmpty {
            guard hint.count <= 64, hint.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                return refuse("invalid_request", "login_hint must be letters, digits, '-', '_' or '.'.")
            }
            if hint != user.preferredUsername {
                user = .init(subject: hint, name: hint, email: "\(hint)@example.com", preferredUsername: hint)
            }
        }
        let now = services.clock.now
        let code = Secrets.opaqueToken()
        let record = Code(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge, nonce: query["nonce"], scope: scope, user: user,
            authTime: now, expiresAt: now.addingTimeInterval(settings.codeLifetime))
        state.withLock { state in
            state.codes[code] = record
            state.users[user.subject] = user
        }
        return redirect([("code", code)])
    }

    // MARK: Token

    private func token(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let form = try Form(request)
        try form.checkClient(settings.clientID)
        switch form["grant_type"] {
        case "authorization_code": return try exchange(form)
        case "refresh_token": return try refresh(form)
        case nil: throw Rejection(400, "grant_type is required.", code: "invalid_request")
        default: throw Rejection(400, "Only authorization_code and refresh_token are supported.", code: "unsupported_grant_type")
        }
    }

    private func exchange(_ form: Form) throws(Rejection) -> ServerResponse {
        guard let code = form["code"] else { throw Rejection(400, "code is required.", code: "invalid_request") }
        let now = services.clock.now
        let settings = settings
        let sessions = services.sessions
        // One critical section: two exchanges of one code never both succeed, and a replay
        // revokes the session the first opened, whichever arrives first.
        let issued = try state.withLock { state throws(Rejection) -> (Code, SessionStore.Issued) in
            guard var record = state.codes[code] else { throw Self.invalidGrant("The authorization code is not valid.") }
            if record.presented && !settings.deviations.reusableCodes {
                for session in record.sessions { sessions.revoke(session: session, for: .openIDConnect, becauseOfReuse: true) }
                record.sessions = []
                state.codes[code] = record
                throw Self.invalidGrant("The authorization code was already used; the tokens it issued are revoked.")
            }
            record.presented = true  // Any attempt spends it: a wrong verifier is not retried.
            state.codes[code] = record
            guard record.expiresAt > now else { throw Self.invalidGrant("The authorization code has expired.") }
            guard record.clientID == form["client_id"] else { throw Self.invalidGrant("The code was issued to another client.") }
            guard record.redirectURI == form["redirect_uri"] else {
                throw Self.invalidGrant("redirect_uri is not the one of the authorization request.")
            }
            if !settings.deviations.ignoresCodeVerifier {
                guard let verifier = form["code_verifier"] else { throw Self.invalidGrant("code_verifier is required (PKCE).") }
                guard Self.isVerifier(verifier), Self.challenge(of: verifier) == record.challenge else {
                    throw Self.invalidGrant("The code_verifier does not match the code_challenge.")
                }
            }
            let opened = sessions.open(
                .openIDConnect, subject: record.user.subject, claims: accessClaims(scope: record.scope),
                refreshLifetime: settings.refreshTokenLifetime)
            record.sessions.append(opened.grant.sessionID)
            state.codes[code] = record
            return (record, opened)
        }
        let (record, opened) = issued
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(record.user.subject), "aud": .string(record.clientID),
            "azp": .string(record.clientID), "iat": .int(Int(now.timeIntervalSince1970)),
            "exp": .int(Int(now.addingTimeInterval(settings.idTokenLifetime).timeIntervalSince1970)),
            "auth_time": .int(Int(record.authTime.timeIntervalSince1970)), "sid": .string(opened.grant.sessionID),
        ]
        if let nonce = record.nonce { claims["nonce"] = .string(nonce) }
        let scopes = record.scope.split(separator: " ")
        if scopes.contains("profile") {
            claims["name"] = .string(record.user.name)
            claims["preferred_username"] = .string(record.user.preferredUsername)
        }
        if scopes.contains("email") {
            claims["email"] = .string(record.user.email)
            claims["email_verified"] = true
        }
        return tokenResponse(
            access: opened.accessToken, refresh: opened.refreshToken, scope: record.scope,
            idToken: JWT.signed(claims: claims, key: settings.idTokenSigningKey))
    }

    private func refresh(_ form: Form) throws(Rejection) -> ServerResponse {
        guard let presented = form["refresh_token"] else { throw Rejection(400, "refresh_token is required.", code: "invalid_request") }
        let sessions = services.sessions
        if settings.deviations.keepsRefreshToken {
            guard let record = sessions.record(of: presented, for: backend), !record.isAccessToken, record.status == .live else {
                throw Self.invalidGrant("The refresh token is not valid.")
            }
            let access = sessions.issueAccessToken(for: record.grant, backend: backend)
            return tokenResponse(access: access, refresh: presented, scope: record.claims["scope"]?.string ?? "", idToken: nil)
        }
        let rotation = sessions.rotate(
            presented, for: backend, refreshLifetime: settings.refreshTokenLifetime,
            acceptingConsumed: settings.deviations.acceptsConsumedRefreshTokens)
        switch rotation {
        case let .rotated(grant, next):
            let access = sessions.issueAccessToken(for: grant, backend: backend)
            let scope = sessions.record(of: next, for: backend)?.claims["scope"]?.string ?? ""
            return tokenResponse(access: access, refresh: next, scope: scope, idToken: nil)
        case .reuseDetected:
            throw Self.invalidGrant("The refresh token was already used; every token of this grant is revoked.")
        case .revoked: throw Self.invalidGrant("The refresh token was revoked.")
        case .expired: throw Self.invalidGrant("The refresh token has expired.")
        case .unknown: throw Self.invalidGrant("The refresh token is not valid.")
        }
    }

    /// The claims every access token of a grant carries besides `sub`, `iat`, `jti` and `exp`.
    private func accessClaims(scope: String) -> [String: JSONValue] {
        ["iss": .string(issuer), "aud": .string(settings.clientID), "client_id": .string(settings.clientID), "scope": .string(scope)]
    }

    /// RFC 6749 §5.1: the token answer, never cached.
    private func tokenResponse(access: String, refresh: String?, scope: String, idToken: String?) -> ServerResponse {
        var fields: [String: JSONValue] = [
            "access_token": .string(access), "token_type": "Bearer",
            "expires_in": .int(Int(settings.tokens.accessTokenLifetime)), "scope": .string(scope),
        ]
        if let refresh { fields["refresh_token"] = .string(refresh) }
        if let idToken { fields["id_token"] = .string(idToken) }
        var headers = ServerHeaders()
        headers.set("Cache-Control", "no-store")
        headers.set("Pragma", "no-cache")
        return .json(200, .object(fields), headers: headers)
    }

    private static func invalidGrant(_ description: String) -> Rejection {
        Rejection(400, description, code: "invalid_grant")
    }

    /// RFC 7636 §4.1: 43 to 128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`.
    private static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) }
    }

    /// RFC 7636 §4.2: `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`.
    static func challenge(of verifier: String) -> String {
        JWT.base64URL(Data(SHA256.digest(Array(verifier.utf8))))
    }

    // MARK: Userinfo, revocation, introspection, end of session

    private func userinfo(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        func refused(_ error: String, _ description: String) -> Rejection {
            var headers = ServerHeaders()
            headers.set("WWW-Authenticate", "Bearer error=\"\(error)\", error_description=\"\(description)\"")
            return Rejection(401, description, headers: headers, code: error)
        }
        guard let token = request.bearerToken else {
            var headers = ServerHeaders()
            headers.set("WWW-Authenticate", "Bearer")
            throw Rejection(401, "A bearer token is required.", headers: headers, code: "invalid_token")
        }
        let subject: String
        switch services.sessions.checkAccess(token, for: backend) {
        case let .valid(grant): subject = grant.subject
        case .expired: throw refused("invalid_token", "The access token has expired.")
        case .invalid: throw refused("invalid_token", "The access token is not valid.")
        }
        let user = state.withLock { $0.users[subject] } ?? settings.user
        let scopes = (services.sessions.record(of: token, for: backend)?.claims["scope"]?.string ?? "").split(separator: " ")
        var claims: [String: JSONValue] = ["sub": .string(user.subject)]
        if scopes.contains("profile") {
            claims["name"] = .string(user.name)
            claims["preferred_username"] = .string(user.preferredUsername)
        }
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = true
        }
        return .json(200, .object(claims))
    }

    private func revoke(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let form = try Form(request)
        try form.checkClient(settings.clientID)
        guard let token = form["token"] else { throw Rejection(400, "token is required.", code: "invalid_request") }
        // RFC 7009 §2.1: the hint only speeds the search; an unknown one is ignored, and a token
        // of the other kind is still found.
        if !settings.deviations.keepsTokensAtRevocation, let record = services.sessions.record(of: token, for: backend) {
            services.sessions.revoke(session: record.grant.sessionID, for: backend)
        }
        return ServerResponse(status: 200)  // §2.2: whether or not the token was valid.
    }

    private func introspect(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let form = try Form(request)
        try form.checkClient(settings.clientID)
        guard let token = form["token"] else { throw Rejection(400, "token is required.", code: "invalid_request") }
        guard let record = services.sessions.record(of: token, for: backend), record.status == .live else {
            return .json(200, ["active": false])
        }
        var fields: [String: JSONValue] = [
            "active": true, "client_id": .string(settings.clientID), "sub": .string(record.grant.subject),
            "exp": .int(Int(record.expiresAt.timeIntervalSince1970)), "iss": .string(issuer),
            "token_type": record.isAccessToken ? "Bearer" : "refresh_token",
        ]
        if let scope = record.claims["scope"] { fields["scope"] = scope }
        if let user = state.withLock({ $0.users[record.grant.subject] }) { fields["username"] = .string(user.preferredUsername) }
        return .json(200, .object(fields))
    }

    private func endSession(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let query = request.http.query
        var sessionID: String?
        if let hint = query["id_token_hint"] {
            guard JWT.hasValidSignature(hint, key: settings.idTokenSigningKey), let claims = JWT.claims(of: hint),
                claims["iss"]?.string == issuer
            else { throw Rejection(400, "id_token_hint is not an ID token this provider issued.", code: "invalid_request") }
            sessionID = claims["sid"]?.string
        }
        if let sessionID { services.sessions.revoke(session: sessionID, for: backend) }
        guard let destination = query["post_logout_redirect_uri"] else { return .json(200, ["signedOut": .bool(sessionID != nil)]) }
        guard settings.postLogoutRedirectURIs.contains(destination) else {
            throw Rejection(400, "post_logout_redirect_uri is not registered.", code: "invalid_request")
        }
        var headers = ServerHeaders()
        let state = query["state"].map { (destination.contains("?") ? "&" : "?") + "state=" + Form.encode($0) } ?? ""
        headers.set("Location", destination + state)
        return ServerResponse(status: 302, headers: headers)
    }
}

/// An `application/x-www-form-urlencoded` body (RFC 6749 appendix B): `+` is a space, the rest
/// percent-decoded; a repeated name is refused, as RFC 6749 §3.1 asks.
private struct Form {
    private var fields: [String: String] = [:]

    init(_ request: ContractRequest) throws(Rejection) {
        let type = request.http.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw Rejection(400, "The body must be application/x-www-form-urlencoded.", code: "invalid_request")
        }
        guard let text = String(data: request.http.body, encoding: .utf8) else {
            throw Rejection(400, "The body is not UTF-8.", code: "invalid_request")
        }
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else {
                throw Rejection(400, "The body is not form-encoded.", code: "invalid_request")
            }
            guard fields[name] == nil else { throw Rejection(400, "\(name) is repeated.", code: "invalid_request") }
            if !value.isEmpty { fields[name] = value }
        }
    }

    /// The value of `name`, when present and not empty.
    subscript(_ name: String) -> String? { fields[name] }

    /// A public client names itself with `client_id`; any other is `401 invalid_client` (RFC 6749
    /// §5.2), without `WWW-Authenticate`: the client did not try the `Authorization` header.
    func checkClient(_ registered: String) throws(Rejection) {
        guard fields["client_id"] == registered else { throw Rejection(401, "Unknown client_id.", code: "invalid_client") }
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `value` percent-encoded for a query or form: everything but RFC 3986's unreserved characters.
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
