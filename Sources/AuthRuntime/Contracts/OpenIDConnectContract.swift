import AuthCore
import Foundation

/// Any OpenID Connect provider, for a native app registered as a public client (a `client_id`,
/// no secret; RFC 8252), written with the same public toolkit as a contract of one's own. The
/// endpoints and the sections of the standards it follows are listed in
/// `Fixtures/oidc/README.md`, beside the bodies its tests read.
///
/// - The authorization URL (``authorizationURL(for:)``) asks for `response_type=code` with
///   `state`, `nonce` and the PKCE S256 challenge (RFC 7636); ``authorizationResponse(from:)``
///   reads the redirect back.
/// - `APIRequest.exchangeCode(_:)` posts the code and its verifier to the token endpoint
///   (`grant_type=authorization_code`, form-encoded, RFC 6749 §4.1.3); the answer's `id_token`
///   claims travel in the grant (`Grant.idToken`) for `OpenIDSignIn` to check. The token's
///   signature is not checked: it came straight from the token endpoint over TLS (OpenID Connect
///   Core §3.1.3.7 ¶6).
/// - `APIRequest.refresh(_:)` is `grant_type=refresh_token` (RFC 6749 §6); a rotated refresh
///   token replaces the old one (RFC 9700 §4.14.2).
/// - `APIRequest.revoke(_:_:)` revokes the refresh token at the revocation endpoint with
///   `token_type_hint=refresh_token` (RFC 7009).
/// - `APIRequest.currentUser(_:)` asks the userinfo endpoint (OpenID Connect Core §5.3).
/// - `APIRequest.requestDeviceCode` posts the `client_id` and the scopes to the device
///   authorization endpoint (RFC 8628 §3.1) and reads the codes it issues (§3.2);
///   `APIRequest.pollDeviceToken(_:)` polls the token endpoint with the device code
///   (`grant_type=urn:ietf:params:oauth:grant-type:device_code`, §3.4), its grant read as a code
///   exchange's, and `authorization_pending`, `slow_down`, `access_denied` and `expired_token`
///   (§3.5) as the device grant's own answers (`Reply.device(_:)`).
/// - Errors are read as RFC 6749 §5.2 writes them (`error`, `error_description`): `invalid_grant`
///   and the other 400s are definitive, 5xx and the network transient.
public struct OpenIDConnectContract: BackendContract {
    /// OpenID Connect, by that name: `Backend.openIDConnect`.
    public static let backend = Backend.openIDConnect

    /// The provider's endpoints and capabilities.
    public let provider: OpenIDProviderMetadata
    /// The app's client id.
    public let clientID: String
    /// Where the provider sends the browser back (a claimed `https` URL, a private-use scheme such
    /// as `com.example.app:/oauth2redirect`, or a loopback address: RFC 8252 §7).
    public let redirectURI: URL
    /// The scopes asked for; `openid` is always among them.
    public let scopes: [String]

    /// A contract for `provider`, as the client `clientID` redirected to `redirectURI`, asking for
    /// `scopes` (`openid` is added first when missing).
    public init(provider: OpenIDProviderMetadata, clientID: String, redirectURI: URL, scopes: [String] = ["openid", "profile", "email"]) {
        self.provider = provider
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes.contains("openid") ? scopes : ["openid"] + scopes
    }

    /// ``backend``.
    public var backend: Backend { Self.backend }
    /// The issuer.
    public var baseURL: URL { URL(string: provider.issuer) ?? provider.tokenEndpoint }

    /// The page to open in the browser for `attempt`: the authorization endpoint with
    /// `response_type=code`, `client_id`, `redirect_uri`, `scope`, `state`, `nonce`,
    /// `code_challenge` (S256 of the attempt's verifier) and `code_challenge_method=S256`. The
    /// verifier itself is not in it.
    public func authorizationURL(for attempt: AuthorizationAttempt) -> URL {
        let query = RequestBuilder.formEncoded([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI.absoluteString),
            ("scope", scopes.joined(separator: " ")), ("state", attempt.state), ("nonce", attempt.nonce),
            ("code_challenge", PKCE.challenge(for: attempt.verifier)), ("code_challenge_method", "S256"),
        ])
        let endpoint = provider.authorizationEndpoint.absoluteString
        return URL(string: endpoint + (endpoint.contains("?") ? "&" : "?") + query) ?? provider.authorizationEndpoint
    }

    /// The provider's end-session page (OpenID Connect RP-Initiated Logout 1.0), to open in the
    /// browser after signing out so that the provider's own session (its cookie in the browser)
    /// ends too: `client_id`, and `post_logout_redirect_uri` and `state` when given (the URI must
    /// be registered with the provider). `nil` when the provider offers no end-session endpoint.
    ///
    /// No `id_token_hint` is sent: AuthCore keeps an ID token's checked claims, not the token
    /// itself, which carries the user's personal data and is not needed for anything else. A
    /// provider that wants the hint may ask the user to confirm the sign-out on its page.
    public func endSessionURL(postLogoutRedirectURI: URL? = nil, state: String? = nil) -> URL? {
        guard let endpoint = provider.endSessionEndpoint?.absoluteString else { return nil }
        var fields = [("client_id", clientID)]
        if let postLogoutRedirectURI { fields.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
        if let state { fields.append(("state", state)) }
        return URL(string: endpoint + (endpoint.contains("?") ? "&" : "?") + RequestBuilder.formEncoded(fields))
    }

    /// The authorization response in `url`, when `url` is this client's redirect URI (same scheme,
    /// host, port and path) carrying a `code` or an `error` in its query (RFC 6749 §4.1.2); `nil`
    /// otherwise.
    public func authorizationResponse(from url: URL) -> AuthorizationResponse? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == expected.scheme?.lowercased(), components.host?.lowercased() == expected.host?.lowercased(),
            components.port == expected.port, components.path == expected.path
        else { return nil }
        // Form-encoded (`+` for a space), as providers write their redirects.
        let items = components.percentEncodedQueryItems ?? []
        func value(_ name: String) -> String? {
            guard let raw = items.first(where: { $0.name == name })?.value,
                let value = raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, !value.isEmpty
            else { return nil }
            return value
        }
        if let code = value("code") {
            return .code(AuthorizationCode(code), state: value("state"), issuer: value("iss"))
        }
        if let error = value("error") {
            return .error(error, description: value("error_description"), state: value("state"), issuer: value("iss"))
        }
        return nil
    }

    /// The `grant_type` of a device's polls (RFC 8628 §3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The token, revocation, userinfo and device authorization requests; anything else is
    /// unsupported.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .exchangeCode(let exchange):
            return form(
                provider.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", exchange.code.reveal()), ("redirect_uri", redirectURI.absoluteString),
                    ("client_id", clientID), ("code_verifier", exchange.verifier.reveal()),
                ])
        case .refresh(let token):
            return form(provider.tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", token.reveal()), ("client_id", clientID)])
        case .requestDeviceCode:
            guard let endpoint = provider.deviceAuthorizationEndpoint else {
                throw .unsupported("the device authorization grant (no device_authorization_endpoint)")
            }
            return form(endpoint, [("client_id", clientID), ("scope", scopes.joined(separator: " "))])
        case .pollDeviceToken(let code):
            return form(
                provider.tokenEndpoint, [("grant_type", Self.deviceCodeGrantType), ("device_code", code.reveal()), ("client_id", clientID)])
        case .revoke(let token, _):
            guard let endpoint = provider.revocationEndpoint else { throw .unsupported("token revocation (no revocation_endpoint)") }
            return form(endpoint, [("token", token.reveal()), ("token_type_hint", "refresh_token"), ("client_id", clientID)])
        case .currentUser(let bearer):
            guard let endpoint = provider.userinfoEndpoint else { throw .unsupported("userinfo (no userinfo_endpoint)") }
            return HTTPRequest(
                method: "GET", url: endpoint, headers: HTTPHeaders([("Accept", "application/json"), RequestBuilder.bearer(bearer.token)]))
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode: throw .unsupported("email codes")
        case .sendPhoneCode, .signInWithPhoneCode: throw .unsupported("phone codes")
        case .signIn: throw .unsupported("password sign-in (the provider's own page signs in)")
        case .register: throw .unsupported("registration (the provider's own page registers)")
        case .requestPasswordReset, .resetPassword, .setPassword, .changePassword: throw .unsupported("password management")
        case .oauthURL: throw .unsupported("a provider URL from the server (authorizationURL(for:) builds it)")
        case .signInNatively: throw .unsupported("native sign-in with an identity token")
        case .deleteAccount: throw .unsupported("account deletion")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("a realtime connection")
        }
    }

    /// Reads token, revocation, userinfo and device authorization answers; errors as RFC 6749
    /// §5.2 writes them, and a poll's pending, slow-down, denied and expired answers as RFC 8628
    /// §3.5 does.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        guard response.isSuccess else {
            if case .pollDeviceToken = request, let answer = Self.deviceAnswer(response) { return .device(answer) }
            return .failed(Self.failure(response, request: request, receivedAt: receivedAt))
        }
        switch request {
        case .exchangeCode, .pollDeviceToken:
            guard let object = ResponseBody(response).object else { return .failed(.malformed) }
            return Self.granted(object)
        case .requestDeviceCode:
            guard let object = ResponseBody(response).object, let authorization = Self.deviceAuthorization(object) else {
                return .failed(.malformed)
            }
            return .device(.codeIssued(authorization))
        case .refresh:
            guard let object = ResponseBody(response).object, let tokens = Self.tokens(object) else { return .failed(.malformed) }
            return .refreshed(TokenRefresh(accessToken: tokens.access, refreshToken: tokens.refresh, expiry: tokens.expiry))
        case .revoke:
            return .accepted(nil)  // RFC 7009 §2.2: 200 whether the token was revoked or already invalid.
        case .currentUser:
            guard let object = ResponseBody(response).object, let user = Self.user(object) else { return .failed(.malformed) }
            return .user(user)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode, .signIn, .register,
            .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .signInNatively, .deleteAccount, .protected,
            .openRealtime:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    // MARK: Reading

    /// A token endpoint's grant: the tokens, and the ID token's claims and user when it sent one.
    static func granted(_ object: JSONObject) -> Reply {
        guard let tokens = Self.tokens(object) else { return .failed(.malformed) }
        var claims: IDTokenClaims?
        var user: UserProfile?
        if let idToken = object.string("id_token") {
            guard let payload = JWTClaims.payload(of: idToken), let read = Self.claims(payload) else { return .failed(.malformed) }
            claims = read
            user = Self.user(payload)
        }
        return .granted(
            Grant(
                accessToken: tokens.access, refreshToken: tokens.refresh, expiry: tokens.expiry, user: user ?? UserProfile(id: ""),
                idToken: claims))
    }

    /// The device authorization endpoint's answer (RFC 8628 §3.2): `device_code`, `user_code`,
    /// `verification_uri` (`verification_url` as some providers spell it), `expires_in`, and the
    /// optional `verification_uri_complete` and `interval`; `nil` when a required one is missing
    /// or the times are not positive numbers.
    static func deviceAuthorization(_ object: JSONObject) -> DeviceAuthorization? {
        guard let deviceCode = object.string("device_code"), let userCode = object.string("user_code"),
            let uri = object.string("verification_uri") ?? object.string("verification_url"),
            let lifetime = seconds(object["expires_in"]), lifetime > .zero
        else { return nil }
        var interval: Interval?
        if let sent = object["interval"], sent != .null {
            guard let read = seconds(sent), read >= .zero else { return nil }
            interval = read
        }
        return DeviceAuthorization(
            deviceCode: DeviceCode(deviceCode),
            prompt: UserCodePrompt(userCode: userCode, verificationURI: uri, verificationURIComplete: object.string("verification_uri_complete")),
            lifetime: lifetime, interval: interval)
    }

    /// A number of seconds (a JSON number, or a string of digits as some servers write it).
    private static func seconds(_ value: JSONValue?) -> Interval? {
        switch value {
        case .number(let seconds)? where seconds.isFinite && seconds > -1e9 && seconds < 1e9:
            return Interval(milliseconds: Int64((seconds * 1000).rounded()))
        case .string(let text)?:
            return Int64(text).flatMap { abs($0) < 1_000_000_000 ? Interval.seconds($0) : nil }
        case .number?, .null?, .bool?, .array?, .object?, nil:
            return nil
        }
    }

    /// A device poll's error answer that is the device grant's own (RFC 8628 §3.5): pending, slow
    /// down, denied, expired; `nil` for any other error, read as RFC 6749 §5.2's.
    static func deviceAnswer(_ response: HTTPResponse) -> DeviceGrantReply? {
        switch ResponseBody(response).object?.string("error") {
        case "authorization_pending": .authorizationPending
        case "slow_down": .slowDown
        case "access_denied": .accessDenied
        case "expired_token": .expiredToken
        default: nil
        }
    }

    /// A form-encoded POST to `url` (RFC 6749 §4.1.3), asking for JSON.
    private func form(_ url: URL, _ fields: [(String, String)]) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: url,
            headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]),
            body: Data(RequestBuilder.formEncoded(fields).utf8))
    }

    /// An error answer as RFC 6749 §5.2 writes it: the status by the taxonomy, and the message the
    /// `error_description`, or a sentence for the `error` code when there is none.
    static func failure(_ response: HTTPResponse, request: APIRequest, receivedAt: Instant) -> AuthFailure {
        let code = ResponseBody(response).object?.string("error")
        let message =
            response.message(keys: ["error_description"], request: request) ?? code.map(Self.sentence)
            ?? response.message(keys: ["message", "detail"], request: request)
        return AuthFailure(status: response.status, message: message, headers: response.headers, receivedAt: receivedAt)
    }

    /// A sentence for an RFC 6749 §5.2 (and RFC 6750 §3.1) error code; the code itself when unknown.
    static func sentence(_ code: String) -> String {
        switch code {
        case "invalid_grant": "The sign-in has expired or was revoked. Please sign in again."
        case "invalid_request": "The identity provider refused the request as malformed."
        case "invalid_client": "The identity provider does not know this app."
        case "unauthorized_client": "This app may not sign in this way."
        case "unsupported_grant_type": "The identity provider does not support this way of signing in."
        case "invalid_scope": "The identity provider refused the requested access."
        case "invalid_token": "The session is no longer valid."
        case "access_denied": "Access was denied."
        case "expired_token": "The sign-in code has expired. Please start again."
        default: code
        }
    }

    /// `access_token` (a `token_type`, when sent, must be `Bearer`), `refresh_token`, and the
    /// expiry from `expires_in`, else the token's JWT `exp`.
    static func tokens(_ object: JSONObject) -> (access: AccessToken, refresh: RefreshToken?, expiry: TokenExpiry)? {
        guard let access = object.string("access_token") else { return nil }
        if let type = object.string("token_type"), type.lowercased() != "bearer" { return nil }
        return (
            AccessToken(access), object.string("refresh_token").map(RefreshToken.init),
            TokenExpiry(expiresIn: object["expires_in"], accessToken: access)
        )
    }

    /// The ID token's claims; `nil` when `iss`, `sub`, `aud` or `exp` is missing or unreadable.
    static func claims(_ payload: JSONObject) -> IDTokenClaims? {
        guard let issuer = payload.string("iss"), let subject = payload.string("sub"), let expiresAt = instant(payload["exp"]) else {
            return nil
        }
        let audiences: [String]
        switch payload["aud"] {
        case .string(let one): audiences = [one]
        case .array(let many): audiences = many.compactMap(\.string)
        case .null, .bool, .number, .object, .none: return nil
        }
        guard !audiences.isEmpty else { return nil }
        return IDTokenClaims(
            issuer: issuer, subject: subject, audiences: audiences, authorizedParty: payload.string("azp"), expiresAt: expiresAt,
            issuedAt: instant(payload["iat"]), nonce: payload["nonce"]?.string)
    }

    /// A NumericDate (seconds since the epoch) as an instant.
    private static func instant(_ value: JSONValue?) -> Instant? {
        guard case .number(let seconds) = value, seconds.isFinite, seconds > 0, seconds < 9.2e15 else { return nil }
        return Instant(milliseconds: Int64((seconds * 1000).rounded()))
    }

    /// The user the claims (an ID token's or userinfo's) describe: `sub` as the id, `email`,
    /// `phone_number`, and `name` (else `preferred_username`); the other standard claims in the
    /// attributes. `nil` without a `sub`.
    static func user(_ claims: JSONObject) -> UserProfile? {
        guard let subject = claims.string("sub") else { return nil }
        let tokenClaims: Set<String> = [
            "sub", "email", "phone_number", "name", "preferred_username", "iss", "aud", "azp", "exp", "iat", "nonce", "auth_time", "at_hash",
            "c_hash", "jti", "sid", "acr", "amr",
        ]
        return UserProfile(
            id: subject, email: claims.string("email"), phone: claims.string("phone_number"),
            name: claims.string("name") ?? claims.string("preferred_username"), attributes: claims.attributes(except: tokenClaims))
    }
}
