import AuthCore
import Foundation

/// Hero365, as its API document describes it (summarised in `Fixtures/hero365/README.md`, with
/// where the deployed server differs): FastAPI over Supabase at `http://localhost:8000`, every
/// endpoint under `/api/v1`: email and phone sign-up and sign-in, phone OTP send/verify,
/// OAuth URL per provider, refresh, password recovery, `GET /users/me`. snake_case bodies; errors
/// `{"detail": …}` (FastAPI's validation list `{"detail": [{"msg"}]}` too).
///
/// Every request carries `Content-Type: application/json` ("All requests should use…"), protected
/// ones `Authorization: Bearer {access_token}`. The access token's own `exp` claim says when it
/// ends; `expires_in` counts only for a token without one. (The deployed server answers refresh
/// with Supabase's `expires_in: 3600` beside a 24-hour business token: trusting the number would
/// refresh hourly for nothing; the token is accepted until its `exp`.)
///
/// Where the deployed server differs from the document, both forms are read or sent:
/// - the API lives under `/api/v1` in development and `/v1` in production: the prefix is
///   configuration (``init(server:prefix:)``, ``productionPrefix``), not a constant;
/// - password recovery reads the email from the query string (`?email=…`, FastAPI's bare scalar),
///   not from the documented JSON body; both are sent, so either server form is answered. An
///   email address is not a secret (no password, code or token ever goes in a URL here); it is
///   percent-encoded in full, so `+` and `&` reach the server as written;
/// - `/auth/otp/verify` answers Supabase's own access token, which the deployed server's protected
///   routes refuse (401) until `/auth/refresh` exchanges it for a business token. An OTP grant that
///   carries a refresh token is therefore read as due for refresh at once (expiry: now): the
///   rotating session exchanges it before the first protected call, single-flight and persisted,
///   instead of failing that call once. Against a server whose OTP token works (the document's),
///   this costs one refresh;
/// - `GET /auth/oauth/{provider}` answers no `url` but `{"message", "endpoints": {"apple":
///   "/auth/apple/signin", "google": "/auth/google/signin"}}`: the documented `{url, provider}` is
///   read as `Reply.authorizationURL(_:)`, the deployed form as `Reply.nativeSignInRequired`, and
///   native sign-in (`APIRequest.signInNatively(_:)`) posts the provider's `id_token` (with
///   Apple's required `user_identifier`: the one given, else the identity token's `sub`, which is
///   the same Apple user id, and the `full_name` and `email` Apple shares at the first
///   authorization) to that endpoint under this contract's base path; it answers
///   `{access_token, refresh_token, expires_in, token_type, user, is_new_user}`, `is_new_user` read
///   into `UserProfile.isNewUser`. The identity token goes in the body, never in a URL;
/// - the document's `POST /auth/signout` ends nothing on the server (the refresh token would stay
///   valid after logout); the deployed server's `POST /revoke-tokens/{user_id}` (bearer: the user
///   or an admin) is Supabase's global sign-out, which revokes every refresh token of the user.
///   `APIRequest.revoke(_:_:)` is sent there, with the Supabase user id the session holds in the
///   path and no body, so signing out signs the user out on every device; any 2xx (a 200 with a
///   message, a 204) is done;
/// - errors are `{"detail": …}` for `HTTPException` and `{"error": {"type", "message", "details"}}`
///   for validation: the message is read from either (a validation detail's `input` is never
///   shown: it may echo what the user typed).
/// Sign-up answers "check your email/phone" (`Reply.verificationRequired(_:)`), or a session
/// when the server has confirmation turned off and answers tokens.
public struct Hero365Contract: BackendContract {
    /// The path prefix in front of every documented endpoint.
    public static let documentedPrefix = "/api/v1"
    /// `http://localhost:8000/api/v1`, the document's development server.
    public static let development = Hero365Contract(server: URL(string: "http://localhost:8000")!)

    /// Always `Backend.hero365`.
    public let backend = Backend.hero365
    /// Where the API lives, `/api/v1` included.
    public let baseURL: URL

    private var build: RequestBuilder { RequestBuilder(baseURL: baseURL) }
    private static let messageKeys = ["detail", "message", "error_description", "error", "msg"]
    private static let contentType = ("Content-Type", "application/json")

    /// A contract for the API at `baseURL`, which already ends in `/api/v1`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// The path prefix the production server serves under (`ENVIRONMENT=production`): `/v1`.
    public static let productionPrefix = "/v1"

    /// A contract for the server at `server` (`http://localhost:8000`), whose API is under `prefix`:
    /// the documented `/api/v1` unless said otherwise (production serves ``productionPrefix``).
    public init(server: URL, prefix: String = documentedPrefix) { self.init(baseURL: RequestBuilder(baseURL: server).url(prefix)) }

    /// The documented request for `request`.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .register(let details):
            var body: JSONObject
            let path: String
            switch details.identifier {
            case .email(let email):
                body = ["email": .string(email.rawValue), "password": .string(details.password.secret.reveal())]
                path = "/auth/signup"
            case .phone(let phone):
                body = ["phone": .string(phone.e164), "password": .string(details.password.secret.reveal())]
                path = "/auth/signup/phone"
            case .username: throw .unsupported("registration by username")
            }
            if let name = details.name { body["full_name"] = .string(name.rawValue) }
            return build.json("POST", path, body)
        case .signIn(.email(let email), let password):
            return build.json("POST", "/auth/signin", ["email": .string(email.rawValue), "password": .string(password.secret.reveal())])
        case .signIn(.phone(let phone), let password):
            return build.json("POST", "/auth/signin/phone", ["phone": .string(phone.e164), "password": .string(password.secret.reveal())])
        case .sendPhoneCode(let phone):
            return build.json("POST", "/auth/otp/send", ["phone": .string(phone.e164)])
        case .signInWithPhoneCode(let phone, let code):
            return build.json("POST", "/auth/otp/verify", ["phone": .string(phone.e164), "token": .string(code.secret.reveal())])
        case .oauthURL(let provider):
            return build.bodiless("GET", "/auth/oauth/" + provider.rawValue, headers: [Self.contentType])
        case .signInNatively(let details):
            let token = details.identityToken.reveal()
            var body: JSONObject = ["id_token": .string(token)]
            switch details.provider {
            case .apple:
                // Required by the server: Apple's user id, which the identity token's `sub` also carries.
                let identifier = details.userIdentifier ?? JWTClaims.payload(of: token).flatMap { AnswerReading.string($0["sub"]) }
                guard let identifier else { throw .unsupported("Apple sign-in without a user identifier") }
                body["user_identifier"] = .string(identifier)
                // Apple shares the name and email at the first authorization only: the server keeps them.
                if let name = details.fullName { body["full_name"] = .string(name) }
                if let email = details.email { body["email"] = .string(email) }
            case .google:  // Google's identity token carries the name and email itself.
                break
            case .github:
                throw .unsupported("native sign-in with GitHub")
            }
            return build.json("POST", "/auth/\(details.provider.rawValue)/signin", body)
        case .refresh(let token):
            return build.json("POST", "/auth/refresh", ["refresh_token": .string(token.reveal())])
        case .requestPasswordReset(.email(let email)):
            // Deployed: `?email=`; documented: the JSON body. A body alongside the query is harmless.
            return build.json(
                "POST", "/auth/password-recovery?email=" + RequestBuilder.queryValue(email.rawValue), ["email": .string(email.rawValue)])
        case .currentUser(let bearer):
            return build.bodiless("GET", "/users/me", headers: [Self.contentType, RequestBuilder.bearer(bearer.token)])
        case .revoke(_, let bearer):
            // Deployed: the document's `/auth/signout` ends nothing; `/revoke-tokens/{user_id}` is
            // Supabase's global sign-out of the user (every refresh token, every device). No body.
            // The user id is Supabase's, as the session holds it; an OAuth callback's user without
            // one is named by the access token's `sub`, which is the same id.
            let userID =
                bearer.userID.isEmpty
                ? JWTClaims.payload(of: bearer.token.reveal()).flatMap { AnswerReading.identifier($0["sub"]) } ?? "" : bearer.userID
            guard !userID.isEmpty else { throw .unsupported("revoking the tokens of a user whose id is unknown") }
            return build.bodiless(
                "POST", "/revoke-tokens/" + RequestBuilder.queryValue(userID), headers: [Self.contentType, RequestBuilder.bearer(bearer.token)])
        case .signIn(.username, _): throw .unsupported("sign-in by username")
        case .requestPasswordReset(.usernameOrEmail): throw .unsupported("password recovery by username")
        case .resetPassword: throw .unsupported("completing a reset in the app (the recovery email's link does it)")
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode: throw .unsupported("email codes")
        case .setPassword, .changePassword: throw .unsupported("password management")
        case .deleteAccount: throw .unsupported("account deletion")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("a realtime connection")
        case .exchangeCode: throw .unsupported("an authorization code exchange")
        case .requestDeviceCode, .pollDeviceToken: throw .unsupported("the device authorization grant")
        }
    }

    /// Reads the answer to `request`.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        guard Self.isSuccess(response.status) else {
            return .failed(AnswerReading.failure(response, body: body, keys: Self.messageKeys, request: request, receivedAt: receivedAt))
        }
        switch request {
        case .register:
            guard let object = body.object else { return .failed(.malformed) }
            if object["access_token"] != nil { return Self.session(object).map(Reply.granted) ?? .failed(.malformed) }
            return .verificationRequired(AnswerReading.string(object["message"]))
        case .signIn:
            return body.object.flatMap(Self.session).map(Reply.granted) ?? .failed(.malformed)
        case .signInWithPhoneCode:
            guard var grant = body.object.flatMap(Self.session) else { return .failed(.malformed) }
            // Deployed: OTP verify answers Supabase's own token, which protected routes refuse until
            // `/auth/refresh` exchanges it: due for refresh at once, so the session exchanges it first.
            if grant.refreshToken != nil { grant.expiry = .after(.zero) }
            return .granted(grant)
        case .sendPhoneCode, .requestPasswordReset, .revoke:
            return AnswerReading.acknowledgement(body, keys: Self.messageKeys, request: request)
        case .oauthURL(let provider):
            if let url = AnswerReading.string(body.object?["url"]), URL(string: url)?.scheme != nil { return .authorizationURL(url) }
            // Deployed: no URL, the native endpoints instead; this provider must be among them.
            guard body.object?["endpoints"]?[provider.rawValue] != nil else { return .failed(.malformed) }
            return .nativeSignInRequired
        case .signInNatively:
            // Deployed: `is_new_user` says whether this sign-in created the account.
            guard let object = body.object, var grant = Self.session(object) else { return .failed(.malformed) }
            grant.user.isNewUser = AnswerReading.bool(object["is_new_user"])
            return .granted(grant)
        case .refresh:
            guard let object = body.object, let access = AnswerReading.string(object["access_token"]) else { return .failed(.malformed) }
            return .refreshed(
                TokenRefresh(
                    accessToken: AccessToken(access), refreshToken: AnswerReading.string(object["refresh_token"]).map(RefreshToken.init),
                    expiry: AnswerReading.expiry(accessToken: access, otherwise: object["expires_in"])))
        case .currentUser:
            return body.object.flatMap(Self.user).map(Reply.user) ?? .failed(.malformed)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .resetPassword, .setPassword, .changePassword,
            .deleteAccount, .protected, .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    /// 2xx is `.accepted(nil)`; anything else by the status taxonomy.
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        AnswerReading.protected(response, keys: Self.messageKeys, receivedAt: receivedAt)
    }

    /// Reads the app's OAuth callback URL ("App extracts tokens from callback URL parameters"):
    /// parameters in the fragment (Supabase's implicit flow) or the query, named by their `state`.
    /// `access_token` (with `refresh_token`, `expires_in`) gives `OAuthCallback.tokens(attempt:_:)`,
    /// the user named by the token's `sub`, `email` and `phone` claims (an empty id when the token
    /// names no `sub`: `/users/me` tells who it is); `error` gives
    /// `OAuthCallback.failure(attempt:_:)` with `error_description`. `nil` when the URL names no
    /// `state`, or carries neither tokens nor an error.
    ///
    /// The callback is named by the *server's* `state`; to hand it to `OAuthSignIn`, which waits
    /// for the app's own attempt, use ``oauthCallback(_:attempt:authorizationURL:)``.
    public func oauthCallback(_ url: URL) -> OAuthCallback? {
        guard let parameters = Self.callbackParameters(url), let attempt = parameters["state"], !attempt.isEmpty else { return nil }
        return Self.callback(parameters, attempt: attempt)
    }

    /// Reads the app's OAuth callback URL for the attempt the app has pending (the `attempt` it
    /// began `OAuthSignIn` with), opened at `authorizationURL` (the URL of
    /// `AuthOutcome.openAuthorizationURL(_:)`).
    ///
    /// The app cannot choose the `state`: `GET /auth/oauth/{provider}` takes no parameter and the
    /// server puts its own in the URL, so a callback read by its `state` alone never names the
    /// app's attempt and the reducer refuses it. Here the callback must carry the `state` the
    /// authorization URL carried (when it carried one: the document's example URL has none, and then
    /// neither has the callback), and it is named by `attempt`. `nil` when the states differ, or
    /// the URL carries neither tokens nor an error.
    public func oauthCallback(_ url: URL, attempt: String, authorizationURL: String) -> OAuthCallback? {
        guard let parameters = Self.callbackParameters(url) else { return nil }
        let opened = URLComponents(string: authorizationURL)?.queryItems?.first { $0.name == "state" }?.value
        guard parameters["state"] == opened else { return nil }
        return Self.callback(parameters, attempt: attempt)
    }

    /// The query and fragment parameters of a callback URL (fragment wins).
    private static func callbackParameters(_ url: URL) -> [String: String]? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value }
        if let fragment = components.percentEncodedFragment {
            var fragmentOnly = URLComponents()
            fragmentOnly.percentEncodedQuery = fragment
            for item in fragmentOnly.queryItems ?? [] { parameters[item.name] = item.value }
        }
        return parameters
    }

    /// Tokens or an error from a callback's parameters, named by `attempt`.
    private static func callback(_ parameters: [String: String], attempt: String) -> OAuthCallback? {
        if let error = parameters["error"] {
            return .failure(attempt: attempt, parameters["error_description"] ?? error)
        }
        guard let access = parameters["access_token"], !access.isEmpty else { return nil }
        let claims = JWTClaims.payload(of: access)
        let user = UserProfile(
            id: AnswerReading.identifier(claims?["sub"]) ?? "", email: AnswerReading.string(claims?["email"]),
            phone: AnswerReading.string(claims?["phone"]))
        let expiresIn = parameters["expires_in"].map(JSONValue.string)
        let grant = Grant(
            accessToken: AccessToken(access), refreshToken: parameters["refresh_token"].flatMap { $0.isEmpty ? nil : RefreshToken($0) },
            expiry: AnswerReading.expiry(accessToken: access, otherwise: expiresIn), user: user)
        return .tokens(attempt: attempt, grant)
    }

    /// A user object (`/users/me`'s answer, a sign-in's `user`): `id`, `email`, `phone`, the name
    /// under `user_metadata.full_name` or `full_name`; every other key (the deployed server's
    /// `onboarding_completed`, `completed_steps`, `is_active`…, and `user_metadata` itself) is an
    /// attribute. `nil` without an id.
    private static func user(_ object: JSONObject) -> UserProfile? {
        guard let id = AnswerReading.identifier(object["id"]) else { return nil }
        return UserProfile(
            id: id, email: AnswerReading.string(object["email"]), phone: AnswerReading.string(object["phone"]),
            name: AnswerReading.string(object["user_metadata"]?["full_name"]) ?? AnswerReading.string(object["full_name"]),
            attributes: AnswerReading.attributes(object, except: ["id", "email", "phone", "full_name"]))
    }

    /// `{"access_token", "refresh_token", "user": {"id", "email"?, "phone"?, "user_metadata": {"full_name"?}}}`; native
    /// sign-in's user has `full_name` at its top level.
    private static func session(_ object: JSONObject) -> Grant? {
        guard let access = AnswerReading.string(object["access_token"]), let profile = object["user"]?.object.flatMap(user) else {
            return nil
        }
        return Grant(
            accessToken: AccessToken(access), refreshToken: AnswerReading.string(object["refresh_token"]).map(RefreshToken.init),
            expiry: AnswerReading.expiry(accessToken: access, otherwise: object["expires_in"]), user: profile)
    }
}
