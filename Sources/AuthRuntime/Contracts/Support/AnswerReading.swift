import AuthCore
import Foundation

/// A response body as a contract reads it: JSON when it parses, plain text when it is text and
/// not an HTML page, and what the headers claimed it was.
///
/// ```swift
/// guard let object = ResponseBody(response).object, let jwt = object.string("jwt") else {
///     return .failed(.malformed)
/// }
/// ```
public struct ResponseBody: Sendable {
    /// The parsed JSON, when the body is JSON.
    public let json: JSONValue?
    /// The trimmed text, when the body is readable text that is neither JSON nor HTML.
    public let text: String?
    /// True when there was no body (or only whitespace).
    public let isEmpty: Bool
    /// True when `Content-Type` says JSON (`application/json`, `…+json`).
    public let declaredJSON: Bool
    /// True when the body is an HTML page (a captive portal, a proxy's error page).
    public let isHTML: Bool

    /// Reads `response`'s body. Never traps: bytes that are not UTF-8 or not JSON leave ``json``
    /// and ``text`` `nil`.
    public init(_ response: HTTPResponse) {
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        declaredJSON = contentType.contains("/json") || contentType.contains("+json")
        let decoded = String(bytes: response.body, encoding: .utf8)
        let trimmed = decoded?.trimmingCharacters(in: .whitespacesAndNewlines)
        isEmpty = response.body.isEmpty || trimmed?.isEmpty == true
        json = isEmpty ? nil : JSONValue.parse(response.body)
        isHTML = contentType.contains("html") || (json == nil && trimmed?.hasPrefix("<") == true)
        if json == nil, !isEmpty, !isHTML, !declaredJSON, let trimmed,
            !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
        {
            text = trimmed
        } else {
            text = nil
        }
    }

    /// The JSON object, when the body is one.
    public var object: JSONObject? { json?.object }
}

/// Reads answers: success shapes shared by several backends, and error bodies → `AuthFailure`.
enum AnswerReading {
    /// Messages a server gives that only repeat the status's reason phrase (Vapor's and
    /// FastAPI's defaults): they say nothing the status does not, so the API documents' own wording
    /// ("Invalid email or password", "Server error, please try again") is shown instead.
    static let reasonPhrases: Set<String> = [
        "bad request", "unauthorized", "forbidden", "not found", "method not allowed", "request timeout", "conflict",
        "gone", "unprocessable entity", "unprocessable content", "too many requests", "internal server error",
        "not implemented", "bad gateway", "service unavailable", "gateway timeout",
    ]

    /// The longest server message passed on to the user.
    static let maximumMessageLength = 500

    // MARK: Failures

    /// The failure an error status means, with the server's message (see ``message(in:keys:request:)``).
    /// 2xx never reaches here; 1xx/3xx and unknown classes are `.malformed`.
    static func failure(
        _ response: HTTPResponse, body: ResponseBody, keys: [String], request: APIRequest?, receivedAt: Instant
    ) -> AuthFailure {
        failure(
            status: response.status, message: message(in: body, keys: keys, request: request), headers: response.headers,
            receivedAt: receivedAt)
    }

    /// The backends' status taxonomy. A 403 whose message says the account is pending approval
    /// (Everday: "Account pending approval. A parent must approve this account before sign in.")
    /// is `AuthFailure.pendingApproval(_:)`; any other 403 is `AuthFailure.forbidden(_:)`.
    /// 408 is a timeout (Anonymous Wall's `NetworkError.timeout`); 429 carries `Retry-After`.
    static func failure(status: Int, message: String?, headers: HTTPHeaders, receivedAt: Instant) -> AuthFailure {
        switch status {
        case 400: return .badRequest(message)
        case 401: return .unauthorized(message)
        case 403:
            if let message, message.lowercased().contains("pending approval") { return .pendingApproval(message) }
            return .forbidden(message)
        case 404: return .notFound(message)
        case 408: return .timeout
        case 409: return .conflict(message)
        case 429: return .rateLimited(retryAfter: retryAfter(headers["Retry-After"], receivedAt: receivedAt))
        case 402, 405...407, 410...428, 430...499: return .badRequest(message)
        case 500...599: return .server(status: status, message)
        default: return .malformed
        }
    }

    /// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), relative to `receivedAt`;
    /// `nil` when absent or unreadable. A date in the past is a zero wait.
    static func retryAfter(_ value: String?, receivedAt: Instant) -> Interval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit) {
            guard let seconds = Int64(value) else { return .seconds(Int64.max / 1000) }
            return .seconds(min(seconds, Int64.max / 1000))
        }
        guard let date = ServerDate.parse(value) else { return nil }
        let wait = date - receivedAt
        return wait < .zero ? .zero : wait
    }

    /// The server's own words in an error (or `success: false`) body, looked up under `keys` in
    /// order: a string member, an object member's own `message` (Hero365's deployed
    /// `{"error": {"type", "message", "details"}}`), FastAPI's validation list (`detail: [{msg}]`),
    /// or a plain-text body. A reason phrase never hides a better message: when a key holds only
    /// the status text (Subspace's deployed `{"error": "Bad Request", "message": "<detail>"}`) the
    /// next key is read. Secrets the request carried are masked, and very long text is cut.
    static func message(in body: ResponseBody, keys: [String], request: APIRequest?) -> String? {
        var found: String?
        if let object = body.object {
            for key in keys {
                guard let value = object[key] else { continue }
                if let text = value.string {
                    found = text
                } else if let nested = value.object {
                    found = nested["message"]?.string  // Hero365 deployed: {"error": {"type", "message", "details"}}
                } else if let first = value.array?.first {
                    found = first["msg"]?.string ?? first.string  // FastAPI 422: [{"loc", "msg", "type"}]
                }
                if let candidate = found?.trimmingCharacters(in: .whitespacesAndNewlines), !candidate.isEmpty,
                    !reasonPhrases.contains(candidate.lowercased())
                {
                    break
                }
                found = nil
            }
        } else if let string = body.json?.string {
            found = string
        } else {
            found = body.text
        }
        guard var message = found?.trimmingCharacters(in: .whitespacesAndNewlines), !message.isEmpty else { return nil }
        guard !reasonPhrases.contains(message.lowercased()) else { return nil }
        if let request { message = mask(request.secretsOnTheWire, in: message) }
        if message.count > maximumMessageLength { message = String(message.prefix(maximumMessageLength)) + "…" }
        return message
    }

    /// `text` with every occurrence of each secret replaced by `‹redacted›`, so a server that
    /// echoes a password or code cannot put it in front of the user or into a log.
    static func mask(_ secrets: [String], in text: String) -> String {
        var masked = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            masked = masked.replacingOccurrences(of: secret, with: "‹redacted›")
        }
        return masked
    }

    // MARK: Success shapes

    /// A "String or JSON with message" answer (Anonymous Wall's send-code, reset-request, set and
    /// change password): an empty body, a JSON string, any JSON object (its message under `keys`),
    /// or plain text are all `.accepted`; an HTML page or a body that claims JSON and is not is
    /// `.malformed` (a captive portal's 200 is not "code sent").
    static func acknowledgement(_ body: ResponseBody, keys: [String], request: APIRequest?) -> Reply {
        if body.isEmpty { return .accepted(nil) }
        if body.json != nil || body.text != nil { return .accepted(message(in: body, keys: keys, request: request)) }
        return .failed(.malformed)
    }

    /// The answer to one of the app's protected requests: `.accepted(nil)` for 2xx, else the
    /// failure the status taxonomy and the body's message (under `keys`) give.
    static func protected(_ response: HTTPResponse, keys: [String], receivedAt: Instant) -> Reply {
        guard (200..<300).contains(response.status) else {
            return .failed(failure(response, body: ResponseBody(response), keys: keys, request: nil, receivedAt: receivedAt))
        }
        return .accepted(nil)
    }

    /// A non-empty string member, trimmed.
    static func string(_ value: JSONValue?) -> String? {
        guard let text = value?.string?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// An identifier sent as a string (`"550e8400-…"`) or as an integer (`42`).
    static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string: return string(value)
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: return String(Int64(number))
        case .number, .null, .bool, .array, .object, .none: return nil
        }
    }

    /// A Boolean member, `nil` when absent or not a Boolean.
    static func bool(_ value: JSONValue?) -> Bool? { value?.bool }

    /// A role member as the server spelled it (trimmed), `nil` when absent, empty or not a string.
    static func role(_ value: JSONValue?) -> UserRole? { string(value).map { UserRole($0) } }

    /// The server's other user fields: every member of `object` except the keys in `read` (those
    /// the contract read into `UserProfile`'s own fields, and an answer's token members) and any
    /// key that names a secret (`password`, `…token…`, `secret`, `…hash…`: VynqTalk's deployed
    /// user carries its stored password hash), which is never kept.
    static func attributes(_ object: JSONObject, except read: Set<String>) -> [String: UserAttribute] {
        var attributes: [String: UserAttribute] = [:]
        for key in object.keys where !read.contains(key) && !namesSecret(key) {
            if let value = object[key] { attributes[key] = attribute(value) }
        }
        return attributes
    }

    /// `value` as a user attribute.
    static func attribute(_ value: JSONValue) -> UserAttribute {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(attribute))
        case .object(let members): .object(attributes(members, except: []))
        }
    }

    /// Whether a user key names a secret, which is never kept as an attribute.
    static func namesSecret(_ key: String) -> Bool {
        let key = key.lowercased()
        return ["password", "token", "secret", "hash"].contains { key.contains($0) }
    }

    /// A token's expiry when the token itself is the authority: its JWT `exp` when it has one,
    /// else `expiresIn` (Hero365's deployed refresh answers Supabase's `expires_in: 3600` beside a
    /// 24 h business token: the server accepts the token until its `exp`, whatever the number says).
    static func expiry(accessToken: String, otherwise expiresIn: JSONValue?) -> TokenExpiry {
        let claimed = JWTClaims.expiry(of: accessToken)
        if case .at = claimed { return claimed }
        return expiry(expiresIn: expiresIn, accessToken: accessToken)
    }

    /// A token's expiry: `expiresIn` seconds when the server sent a positive number (Everday
    /// `ExpiresIn`, Supabase `expires_in`), else the JWT `exp` claim, else unknown.
    static func expiry(expiresIn: JSONValue?, accessToken: String) -> TokenExpiry {
        let seconds: Double? =
            switch expiresIn {
            case .number(let value): value
            case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
            case .null, .bool, .array, .object, .none: nil
            }
        if let seconds, seconds.isFinite, seconds > 0, seconds < 9.2e15 {
            return .after(Interval(milliseconds: Int64((seconds * 1000).rounded())))
        }
        return JWTClaims.expiry(of: accessToken)
    }
}

extension APIRequest {
    /// Every secret this request puts on the wire (passwords, codes, tokens), for masking echoes.
    var secretsOnTheWire: [String] {
        switch self {
        case .sendEmailCode, .sendPhoneCode, .requestPasswordReset, .oauthURL: []
        case .registerWithEmailCode(_, let code), .signInWithEmailCode(_, let code), .signInWithPhoneCode(_, let code):
            [code.secret.reveal()]
        case .signIn(_, let password): [password.secret.reveal()]
        case .register(let details): [details.password.secret.reveal()]
        case .resetPassword(let completion, let newPassword):
            switch completion {
            case .emailCode(_, let code): [code.secret.reveal(), newPassword.secret.reveal()]
            case .token(let proof): [proof.secret.reveal(), newPassword.secret.reveal()]
            }
        case .setPassword(let password, let bearer): [password.secret.reveal(), bearer.token.reveal()]
        case .changePassword(let old, let new, let bearer): [old.secret.reveal(), new.secret.reveal(), bearer.token.reveal()]
        case .refresh(let token): [token.reveal()]
        case .currentUser(let bearer), .deleteAccount(let bearer), .protected(_, let bearer): [bearer.token.reveal()]
        case .revoke(let token, let bearer): [token.reveal(), bearer.token.reveal()]
        case .openRealtime(let token): [token.reveal()]
        case .signInNatively(let details): [details.identityToken.reveal()] + (details.authorizationCode.map { [$0.reveal()] } ?? [])
        case .exchangeCode(let exchange): [exchange.code.reveal(), exchange.verifier.reveal()]
        case .requestDeviceCode: []
        case .pollDeviceToken(let code): [code.reveal()]
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Builds the HTTP requests of one contract: its base URL plus the API's paths, JSON bodies with
/// keys in the order written, `Content-Type: application/json`; or form bodies
/// (`application/x-www-form-urlencoded`, as OAuth token endpoints take them).
///
/// ```swift
/// let build = RequestBuilder(baseURL: baseURL)
/// build.json("POST", "/session", ["user": .string(name), "pass": .string(password.secret.reveal())])
/// build.bodiless("GET", "/me", headers: [RequestBuilder.bearer(bearer.token)])
/// ```
public struct RequestBuilder: Sendable {
    /// The contract's base URL, the API's prefix included (`https://host/api/v1`).
    public let baseURL: URL

    /// A builder for the API at `baseURL`.
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// `baseURL` followed by `path` (which starts with `/`), however many slashes `baseURL` ends with.
    public func url(_ path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? baseURL.appendingPathComponent(path)
    }

    /// A request to `path` with `body` as JSON (its keys in the order written) and
    /// `Content-Type: application/json`, then `headers`.
    public func json(_ method: String, _ path: String, _ body: JSONObject, headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(
            method: method, url: url(path), headers: HTTPHeaders([("Content-Type", "application/json")] + headers),
            body: JSONValue.object(body).encoded)
    }

    /// A request to `path` with `fields` as an `application/x-www-form-urlencoded` body, in the
    /// order given, each name and value percent-encoded as ``queryValue(_:)`` does; then `headers`.
    public func form(_ method: String, _ path: String, _ fields: [(String, String)], headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(
            method: method, url: url(path), headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")] + headers),
            body: Data(Self.formEncoded(fields).utf8))
    }

    /// `fields` as `name=value` pairs joined by `&`, in the order given, each name and value
    /// percent-encoded as ``queryValue(_:)`` does: a form body, or a URL's query.
    public static func formEncoded(_ fields: [(String, String)]) -> String {
        fields.map { queryValue($0.0) + "=" + queryValue($0.1) }.joined(separator: "&")
    }

    /// A request to `path` without a body, with `headers`.
    public func bodiless(_ method: String, _ path: String, headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, url: url(path), headers: HTTPHeaders(headers))
    }

    /// `value` percent-encoded for a query string: everything but RFC 3986's unreserved characters,
    /// so `+` (a space to form decoders), `@`, `&` and `=` reach the server as written.
    public static func queryValue(_ value: String) -> String {
        var unreserved = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        unreserved.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// The header `Authorization: Bearer <token>`, as a name and a value for `headers:`.
    public static func bearer(_ token: AccessToken) -> (String, String) { ("Authorization", "Bearer " + token.reveal()) }
}

extension BackendContract {
    /// Whether `status` is a success (2xx).
    static func isSuccess(_ status: Int) -> Bool { (200..<300).contains(status) }
}
