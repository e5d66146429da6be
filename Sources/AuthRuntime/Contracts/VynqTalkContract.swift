import AuthCore
import Foundation

/// VynqTalk, as its API document describes it (summarised in `Fixtures/vynqTalk/README.md`, with
/// where the deployed server differs): a Vapor server at `http://localhost:8080`, no path prefix;
/// `POST /auth/signup` with name, email and password, `POST /auth/login` with email and password;
/// every answer in the `APIResponse` envelope `{"success", "data", "message"}`, where
/// `success: false` is a failure *whatever the HTTP status*, 200 included (Requirement 4), and
/// Vapor's own errors in its default body `{"error": true, "reason": …}`. The realtime connection
/// is `ws://localhost:8080/ws?token=<auth_token>` (Requirement 9).
///
/// `GET /users/me` with the bearer answers the signed-in user in the envelope: AuthCore asks it at
/// launch, to check stored credentials, and when the realtime socket keeps closing right after
/// opening, to tell a refused token (401 or 403: the session ends) from a network that flaps (the
/// user: back off and reconnect).
///
/// The user-facing messages follow Requirement 7: a refused sign-in without a message of its own
/// reads "Invalid email or password", and any 5xx "Server error, please try again" (the server's
/// text is not shown for a 500). User ids are read as a UUID string or an integer (Requirement 6
/// allows both).
///
/// The deployed server's token payload is `{"expiration", "userId", "email", "role"}`: no `exp`,
/// no `sub`. Its `expiration` (seconds since 1970, usually fractional; tokens live 7 days) is read
/// when `exp` is absent, so the session knows when the token ends.
public struct VynqTalkContract: BackendContract {
    /// The path prefix in front of every documented endpoint: none.
    public static let documentedPrefix = ""
    /// `http://localhost:8080`, the document's development server.
    public static let development = VynqTalkContract(baseURL: URL(string: "http://localhost:8080")!)

    /// Always `Backend.vynqTalk`.
    public let backend = Backend.vynqTalk
    /// Where the API lives.
    public let baseURL: URL

    private var build: RequestBuilder { RequestBuilder(baseURL: baseURL) }
    private static let messageKeys = ["message", "reason", "error", "detail"]
    /// The standard `exp`, else the deployed server's `expiration` (jwt-kit's `SessionPayload`).
    static let expiryClaims = ["exp", "expiration"]

    /// A contract for the API at `baseURL` (`http://localhost:8080` in the document).
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// A contract for the server at `server`: VynqTalk's paths have no prefix, so this is
    /// ``init(baseURL:)`` without a trailing slash.
    public init(server: URL) { self.init(baseURL: RequestBuilder(baseURL: server).url(Self.documentedPrefix)) }

    /// The documented request for `request`.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .register(let details):
            guard case .email(let email) = details.identifier else { throw .unsupported("signup without an email") }
            guard let name = details.name else { throw .unsupported("signup without a name") }
            return build.json(
                "POST", "/auth/signup",
                ["name": .string(name.rawValue), "email": .string(email.rawValue), "password": .string(details.password.secret.reveal())])
        case .signIn(.email(let email), let password):
            return build.json("POST", "/auth/login", ["email": .string(email.rawValue), "password": .string(password.secret.reveal())])
        case .signIn(.username, _), .signIn(.phone, _): throw .unsupported("sign-in other than by email")
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode: throw .unsupported("email codes")
        case .sendPhoneCode, .signInWithPhoneCode: throw .unsupported("phone codes")
        case .requestPasswordReset, .resetPassword: throw .unsupported("password reset")
        case .setPassword, .changePassword: throw .unsupported("password management")
        case .oauthURL: throw .unsupported("OAuth sign-in")
        case .refresh: throw .unsupported("token refresh")
        case .currentUser(let bearer):
            return build.bodiless("GET", "/users/me", headers: [RequestBuilder.bearer(bearer.token)])
        case .revoke: throw .unsupported("server-side logout")
        case .deleteAccount: throw .unsupported("account deletion")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("the realtime connection through encode (use realtimeURL)")
        case .signInNatively: throw .unsupported("native sign-in with an identity token")
        case .exchangeCode: throw .unsupported("an authorization code exchange")
        case .requestDeviceCode, .pollDeviceToken: throw .unsupported("the device authorization grant")
        }
    }

    /// Reads the answer to `request`: the envelope first, then the status.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        if let refusal = refusal(response, body, request: request, receivedAt: receivedAt) { return .failed(refusal) }
        guard let envelope = body.object, envelope["success"]?.bool == true else { return .failed(.malformed) }
        switch request {
        case .register, .signIn:
            guard let data = envelope["data"]?.object, let token = AnswerReading.string(data["accessToken"]),
                let user = data["user"]?.object.flatMap(Self.user)
            else { return .failed(.malformed) }
            return .granted(Grant(accessToken: AccessToken(token), expiry: JWTClaims.expiry(of: token, claims: Self.expiryClaims), user: user))
        case .currentUser:
            return envelope["data"]?.object.flatMap(Self.user).map(Reply.user) ?? .failed(.malformed)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode,
            .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .refresh, .revoke, .deleteAccount,
            .protected, .openRealtime, .signInNatively, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    /// `success: false` or an error status is a failure (401/403 end the session, Requirement 5.5);
    /// any other answer is `.accepted` with the envelope's message.
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        if let refusal = refusal(response, body, request: nil, receivedAt: receivedAt) { return .failed(refusal) }
        return .accepted(AnswerReading.message(in: body, keys: ["message"], request: nil))
    }

    /// `ws://<host>/ws?token=<token>` (`wss` under `https`), the token percent-encoded.
    public func realtimeURL(token: AccessToken) -> URL? {
        guard var components = URLComponents(url: build.url("/ws"), resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme?.lowercased() == "https" ? "wss" : "ws"
        components.percentEncodedQuery = "token=" + Self.queryEncoded(token.reveal())
        return components.url
    }

    // MARK: Reading

    /// The failure in `response`, or `nil` when it is a success: `success: false` at any status,
    /// or an error status with the envelope's `message` or Vapor's `reason`.
    private func refusal(_ response: HTTPResponse, _ body: ResponseBody, request: APIRequest?, receivedAt: Instant) -> AuthFailure? {
        let refusedByEnvelope = body.object?["success"]?.bool == false
        guard refusedByEnvelope || !Self.isSuccess(response.status) else { return nil }
        let message = AnswerReading.message(in: body, keys: Self.messageKeys, request: request)
        if !Self.isSuccess(response.status) {
            switch AnswerReading.failure(status: response.status, message: message, headers: response.headers, receivedAt: receivedAt) {
            case .server(let status, _): return .server(status: status, nil)  // Requirement 7.4.
            case let failure: return failure
            }
        }
        // `success: false` under a 2xx status: a refused sign-in is bad credentials (Requirement 7.2).
        if case .signIn = request { return .unauthorized(message) }
        return .badRequest(message)
    }

    /// `{"id", "name", "email", "role", "status", …}`; the id a UUID string or an integer. The role
    /// is `role`, or the deployed server's `userRole`; `status` and every other key are attributes
    /// (the deployed `password` hash never is).
    private static func user(_ object: JSONObject) -> UserProfile? {
        guard let id = AnswerReading.identifier(object["id"]) else { return nil }
        return UserProfile(
            id: id, email: AnswerReading.string(object["email"]), name: AnswerReading.string(object["name"]),
            role: AnswerReading.role(object["role"]) ?? AnswerReading.role(object["userRole"]),
            attributes: AnswerReading.attributes(object, except: ["id", "email", "name", "role", "userRole"]))
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    private static func queryEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
