import AuthCore
import Foundation

/// Subspace, as its API document describes it (summarised in `Fixtures/subspace/README.md`, with
/// where the deployed server differs): `http://localhost:8080`, API version v1 under
/// `/api/v1`; register answers a token at once (201), login, `GET /auth/me` to restore a session;
/// a 24 h JWT (claims `user_id`, `email`, `exp`, `iat`) and no refresh. camelCase bodies; errors
/// `{"error": …}`; 429 when the rate limit (100 requests a minute) is exceeded, with `Retry-After`
/// when the server sends one.
///
/// The deployed server has moved on from the document, and both forms are read:
/// - register (201) and login (200) answer `{"accessToken", "refreshToken", "user"}` where the
///   document says `{"token", "user"}`; either key names the access token (`accessToken` first), and
///   a refresh token, when sent, is kept in the grant;
/// - errors are `{"error": "<HTTP status text>", "message": "<detail>"}`: the status text says
///   nothing the status does not, so the detail under `message` is the one shown;
/// - `POST /auth/refresh` with `{"refreshToken"}` answers a new pair and revokes the old token
///   (a revoked, expired or unknown one is 401). It is asked only with a refresh token, which only
///   the deployed grant carries, so the documented form behaves as before: no refresh. The server
///   neither detects reuse nor rotates atomically (two refreshes with one token can both succeed),
///   so the client's single flight, persist-before-use and never presenting a token twice are the
///   only protection: `RefreshPolicy.rotatingWhenGranted(margin:retryLimit:backoff:)`
///   gives this backend every guarantee the other rotating backends have. The answer's `user` is
///   kept (`TokenRefresh.user`), so the renewed credentials describe the user as the server does now;
/// - native sign-in, which the document does not have: `POST /auth/apple` and `POST /auth/google`
///   (`APIRequest.signInNatively(_:)`) with `{"userId", "identityToken", "authorizationCode"?,
///   "email"?, "fullName"?: {"givenName"?, "familyName"?}}` (the user id given, else the identity
///   token's `sub`; the name and email only when the provider shared them: Apple does at the first
///   authorization only), answered as login is. The token and the code go in the body only.
///
/// Every request carries `Content-Type: application/json`, as the document's "Base Configuration" and
/// its own Swift client (which sets it on `GET` too) do.
public struct SubspaceContract: BackendContract {
    /// The path prefix in front of every documented endpoint.
    public static let documentedPrefix = "/api/v1"
    /// `http://localhost:8080/api/v1`, the document's development server.
    public static let development = SubspaceContract(server: URL(string: "http://localhost:8080")!)

    /// Always `Backend.subspace`.
    public let backend = Backend.subspace
    /// Where the API lives, `/api/v1` included (the document's client `baseURL`).
    public let baseURL: URL

    private var build: RequestBuilder { RequestBuilder(baseURL: baseURL) }
    private static let messageKeys = ["error", "message", "detail"]
    private static let contentType = ("Content-Type", "application/json")

    /// A contract for the API at `baseURL`, which already ends in `/api/v1`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// A contract for the server at `server` (`http://localhost:8080`), whose API is under `/api/v1`.
    public init(server: URL) { self.init(baseURL: RequestBuilder(baseURL: server).url(Self.documentedPrefix)) }

    /// The documented request for `request`.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .register(let details):
            guard case .email(let email) = details.identifier else { throw .unsupported("registration without an email") }
            guard let name = details.name else { throw .unsupported("registration without a name") }
            return build.json(
                "POST", "/auth/register",
                ["name": .string(name.rawValue), "email": .string(email.rawValue), "password": .string(details.password.secret.reveal())])
        case .signIn(.email(let email), let password):
            return build.json("POST", "/auth/login", ["email": .string(email.rawValue), "password": .string(password.secret.reveal())])
        case .currentUser(let bearer):
            return build.bodiless("GET", "/auth/me", headers: [Self.contentType, RequestBuilder.bearer(bearer.token)])
        case .signIn(.username, _), .signIn(.phone, _): throw .unsupported("sign-in other than by email")
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode: throw .unsupported("email codes")
        case .sendPhoneCode, .signInWithPhoneCode: throw .unsupported("phone codes")
        case .requestPasswordReset, .resetPassword: throw .unsupported("password reset")
        case .setPassword, .changePassword: throw .unsupported("password management")
        case .oauthURL: throw .unsupported("OAuth sign-in")
        case .refresh(let token):
            // Deployed only: the document has no refresh, and a refresh token comes only from the deployed grant.
            return build.json("POST", "/auth/refresh", ["refreshToken": .string(token.reveal())])
        case .revoke: throw .unsupported("server-side logout")
        case .deleteAccount: throw .unsupported("account deletion")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("a realtime connection")
        case .exchangeCode: throw .unsupported("an authorization code exchange")
        case .requestDeviceCode, .pollDeviceToken: throw .unsupported("the device authorization grant")
        case .signInNatively(let details):
            // Deployed only: `/auth/apple` and `/auth/google`, camelCase, answered like login.
            guard details.provider != .github else { throw .unsupported("native sign-in with GitHub") }
            let token = details.identityToken.reveal()
            var body: JSONObject = ["identityToken": .string(token)]
            // The provider's user id: the one given, else the identity token's `sub`, which is the same id.
            if let user = details.userIdentifier ?? JWTClaims.payload(of: token).flatMap({ AnswerReading.string($0["sub"]) }) {
                body["userId"] = .string(user)
            }
            if let code = details.authorizationCode { body["authorizationCode"] = .string(code.reveal()) }
            if let email = details.email { body["email"] = .string(email) }
            if details.givenName != nil || details.familyName != nil {
                var name = JSONObject()
                if let given = details.givenName { name["givenName"] = .string(given) }
                if let family = details.familyName { name["familyName"] = .string(family) }
                body["fullName"] = .object(name)
            }
            return build.json("POST", "/auth/\(details.provider.rawValue)", body)
        }
    }

    /// Reads the answer to `request`.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        guard Self.isSuccess(response.status) else {
            return .failed(AnswerReading.failure(response, body: body, keys: Self.messageKeys, request: request, receivedAt: receivedAt))
        }
        switch request {
        case .register, .signIn, .signInNatively:
            // Deployed: `accessToken` (+ `refreshToken`); documented: `token`. Native sign-in
            // (deployed only) answers as login does.
            guard let object = body.object,
                let token = AnswerReading.string(object["accessToken"]) ?? AnswerReading.string(object["token"]),
                let user = object["user"]?.object.flatMap(Self.user)
            else { return .failed(.malformed) }
            return .granted(
                Grant(
                    accessToken: AccessToken(token), refreshToken: AnswerReading.string(object["refreshToken"]).map(RefreshToken.init),
                    expiry: JWTClaims.expiry(of: token), user: user))
        case .currentUser:
            return body.object.flatMap(Self.user).map(Reply.user) ?? .failed(.malformed)
        case .refresh:
            // `{"accessToken", "refreshToken", "user"}`: a new pair (the old refresh token is revoked),
            // and the user as the server knows them now, which the renewed credentials take.
            guard let object = body.object, let token = AnswerReading.string(object["accessToken"]) else { return .failed(.malformed) }
            return .refreshed(
                TokenRefresh(
                    accessToken: AccessToken(token), refreshToken: AnswerReading.string(object["refreshToken"]).map(RefreshToken.init),
                    expiry: JWTClaims.expiry(of: token), user: object["user"]?.object.flatMap(Self.user)))
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode,
            .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .revoke, .deleteAccount, .protected,
            .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    /// 2xx is `.accepted(nil)`; anything else by the status taxonomy (401 "token has expired", 429…).
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        AnswerReading.protected(response, keys: Self.messageKeys, receivedAt: receivedAt)
    }

    /// `{"id", "name", "email", "createdAt", "updatedAt"}`.
    /// Keys other than the id, email and name are attributes.
    private static func user(_ object: JSONObject) -> UserProfile? {
        guard let id = AnswerReading.identifier(object["id"]) else { return nil }
        return UserProfile(
            id: id, email: AnswerReading.string(object["email"]), name: AnswerReading.string(object["name"]),
            attributes: AnswerReading.attributes(object, except: ["id", "email", "name"]))
    }
}
