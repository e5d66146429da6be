import AuthCore
import Foundation

/// Anonymous Wall, as its API document describes it (summarised in `Fixtures/anonymousWall/README.md`,
/// with where the deployed server differs): email codes by purpose, registration that
/// signs in before a password exists, sign-in by code or password, set and change password with
/// `Authorization: Bearer` and `X-User-Id`, reset by code with automatic sign-in. camelCase bodies.
///
/// Where the document contradicts itself, both forms are read:
/// - set and change password answer the whole user (`passwordSet: true`) in one list and
///   "(Success message)" in the other: `.user` and `.accepted` respectively;
/// - send-code and reset-request answer `{"message": …}` or "String or JSON with message";
/// - the header is written `X-User-Id` (and "standardized" so) and `X-User-ID`: one header, since
///   field names ignore case; it is sent as `X-User-Id`;
/// - users carry `passwordSet` or omit it (then `UserProfile.passwordSet` is `nil`, not `false`).
///   The deployed server always omits it, and its access token carries a `passwordSet` claim: a
///   grant whose user lacks the field takes the claim (so "set your password" follows a code
///   registration or code sign-in). The claim is a snapshot taken when the token was issued; it
///   is only read from a grant's fresh token, never trusted over a user that says otherwise;
/// - `createdAt` is `2026-01-28T...` or `2026-01-30T15:17:41-08:00[America/Los_Angeles]`: never
///   needed for a `Reply`, so neither form can make an answer unreadable.
///
/// The document shows no error body; the server's words are read from `error`, `message`,
/// `detail` or `reason`, or a plain-text body. 403 is "wrong school domain", 408 a timeout.
/// The deployed server answers `{"error": "<message>"}`; a wrong email or password on
/// `/login/password` is `400 {"error": "Invalid email or password"}` (never the documented 401),
/// read as invalid credentials (`AuthFailure.unauthorized(_:)`); any other 400 there ("Password
/// not set for this account") stays a bad request. A duplicate registration is 409 with an empty
/// body: a conflict with no message of its own.
public struct AnonymousWallContract: BackendContract {
    /// The path prefix in front of every documented endpoint.
    public static let documentedPrefix = "/api/v1"
    /// `http://localhost:8080/api/v1`, the document's development server.
    public static let development = AnonymousWallContract(server: URL(string: "http://localhost:8080")!)
    /// `https://staging-api.anonymouswall.com/api/v1`.
    public static let staging = AnonymousWallContract(server: URL(string: "https://staging-api.anonymouswall.com")!)
    /// `https://api.anonymouswall.com/api/v1`.
    public static let production = AnonymousWallContract(server: URL(string: "https://api.anonymouswall.com")!)

    /// Always `Backend.anonymousWall`.
    public let backend = Backend.anonymousWall
    /// Where the API lives, `/api/v1` included.
    public let baseURL: URL

    private var build: RequestBuilder { RequestBuilder(baseURL: baseURL) }
    private static let messageKeys = ["error", "message", "detail", "reason"]

    /// A contract for the API at `baseURL`, which already ends in `/api/v1`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// A contract for the server at `server` (the document's "Base URL", e.g. `http://localhost:8080`),
    /// whose documented paths start with `/api/v1`.
    public init(server: URL) { self.init(baseURL: RequestBuilder(baseURL: server).url(Self.documentedPrefix)) }

    /// The documented request for `request`.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .sendEmailCode(let email, let purpose):
            return build.json("POST", "/auth/email/send-code", ["email": .string(email.rawValue), "purpose": .string(purpose.rawValue)])
        case .registerWithEmailCode(let email, let code):
            return build.json("POST", "/auth/register/email", ["email": .string(email.rawValue), "code": .string(code.secret.reveal())])
        case .signInWithEmailCode(let email, let code):
            return build.json("POST", "/auth/login/email", ["email": .string(email.rawValue), "code": .string(code.secret.reveal())])
        case .signIn(.email(let email), let password):
            return build.json(
                "POST", "/auth/login/password", ["email": .string(email.rawValue), "password": .string(password.secret.reveal())])
        case .setPassword(let password, let bearer):
            return build.json("POST", "/auth/password/set", ["password": .string(password.secret.reveal())], headers: credentials(bearer))
        case .changePassword(let old, let new, let bearer):
            return build.json(
                "POST", "/auth/password/change",
                ["oldPassword": .string(old.secret.reveal()), "newPassword": .string(new.secret.reveal())], headers: credentials(bearer))
        case .requestPasswordReset(.email(let email)):
            return build.json("POST", "/auth/password/reset-request", ["email": .string(email.rawValue)])
        case .resetPassword(.emailCode(let email, let code), let newPassword):
            return build.json(
                "POST", "/auth/password/reset",
                [
                    "email": .string(email.rawValue), "code": .string(code.secret.reveal()),
                    "newPassword": .string(newPassword.secret.reveal()),
                ])
        case .signIn(.username, _): throw .unsupported("sign-in by username")
        case .signIn(.phone, _): throw .unsupported("sign-in by phone")
        case .register: throw .unsupported("registration without an email code")
        case .requestPasswordReset(.usernameOrEmail): throw .unsupported("password reset by username")
        case .resetPassword(.token, _): throw .unsupported("password reset by token")
        case .sendPhoneCode, .signInWithPhoneCode: throw .unsupported("phone codes")
        case .oauthURL: throw .unsupported("OAuth sign-in")
        case .refresh: throw .unsupported("token refresh")
        case .currentUser: throw .unsupported("a current-user endpoint")
        case .revoke: throw .unsupported("server-side logout")
        case .deleteAccount: throw .unsupported("account deletion")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("a realtime connection")
        case .signInNatively: throw .unsupported("native sign-in with an identity token")
        case .exchangeCode: throw .unsupported("an authorization code exchange")
        case .requestDeviceCode, .pollDeviceToken: throw .unsupported("the device authorization grant")
        }
    }

    /// Reads the answer to `request`.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        guard Self.isSuccess(response.status) else {
            let failure = AnswerReading.failure(response, body: body, keys: Self.messageKeys, request: request, receivedAt: receivedAt)
            // Deployed: a wrong password on /login/password is 400 "Invalid email or password", never 401.
            if case .signIn = request, case .badRequest(let message?) = failure,
                message.lowercased().trimmingCharacters(in: .punctuationCharacters) == "invalid email or password"
            {
                return .failed(.unauthorized(message))
            }
            return .failed(failure)
        }
        switch request {
        case .sendEmailCode, .requestPasswordReset:
            return AnswerReading.acknowledgement(body, keys: Self.messageKeys, request: request)
        case .registerWithEmailCode, .signInWithEmailCode, .signIn, .resetPassword:
            return grant(body)
        case .setPassword, .changePassword:
            if let object = body.object, object["id"] != nil {
                return Self.user(object).map(Reply.user) ?? .failed(.malformed)
            }
            return AnswerReading.acknowledgement(body, keys: Self.messageKeys, request: request)
        case .register, .sendPhoneCode, .signInWithPhoneCode, .oauthURL, .signInNatively, .refresh, .currentUser, .revoke, .deleteAccount, .protected,
            .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    /// Adds `Authorization: Bearer …` and `X-User-Id`, as the set and change password endpoints want.
    public func authorize(_ request: HTTPRequest, with bearer: Bearer) -> HTTPRequest {
        var authorized = request
        for (name, value) in credentials(bearer) { authorized.headers[name] = value }
        return authorized
    }

    /// 2xx is `.accepted(nil)`; anything else by the status taxonomy.
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        AnswerReading.protected(response, keys: Self.messageKeys, receivedAt: receivedAt)
    }

    // MARK: Reading

    private func credentials(_ bearer: Bearer) -> [(String, String)] {
        [RequestBuilder.bearer(bearer.token), ("X-User-Id", bearer.userID)]
    }

    /// `{"accessToken", "user"}`, keys in either order.
    private func grant(_ body: ResponseBody) -> Reply {
        guard let object = body.object, let token = AnswerReading.string(object["accessToken"]),
            var user = object["user"]?.object.flatMap(Self.user)
        else { return .failed(.malformed) }
        // Deployed: the user omits `passwordSet` (never filled, nulls dropped); the token's claim says it.
        if user.passwordSet == nil { user.passwordSet = AnswerReading.bool(JWTClaims.payload(of: token)?["passwordSet"]) }
        return .granted(Grant(accessToken: AccessToken(token), expiry: JWTClaims.expiry(of: token), user: user))
    }

    /// `{"id", "email", "isVerified", "passwordSet"?, "createdAt"}`.
    /// Keys other than the id, email and `passwordSet` are attributes.
    private static func user(_ object: JSONObject) -> UserProfile? {
        guard let id = AnswerReading.identifier(object["id"]) else { return nil }
        return UserProfile(
            id: id, email: AnswerReading.string(object["email"]), passwordSet: AnswerReading.bool(object["passwordSet"]),
            attributes: AnswerReading.attributes(object, except: ["id", "email", "passwordSet"]))
    }
}
