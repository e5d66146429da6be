import AuthCore
import Foundation

// The reading toolkit a contract of one's own uses, the same the documented backends' contracts
// read their answers with.

extension HTTPResponse {
    /// Whether the status is a success (2xx).
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The failure this error answer means: its status read by the status taxonomy
    /// (`AuthFailure(status:message:headers:receivedAt:)`), with the server's own words
    /// looked up under `messageKeys` (``message(keys:request:)``). `request` is the request the
    /// answer is for: any secret it sent (a password, a code, a token) is masked if the server
    /// echoes it. `receivedAt` is when the answer arrived, from which an HTTP-date `Retry-After`
    /// is measured.
    public func failure(messageKeys: [String], request: APIRequest? = nil, receivedAt: Instant) -> AuthFailure {
        AnswerReading.failure(self, body: ResponseBody(self), keys: messageKeys, request: request, receivedAt: receivedAt)
    }

    /// The server's own words in the body, looked up under `keys` in order: a string member, an
    /// object member's own `message` (`{"error": {"message": …}}`), FastAPI's validation list
    /// (`{"detail": [{"msg": …}]}`), or a plain-text body. A message that only repeats the
    /// status's reason phrase ("Bad Request") is skipped for the next key; very long text is cut
    /// at 500 characters; the secrets `request` sent are masked as `‹redacted›`. `nil` when the
    /// body says nothing.
    public func message(keys: [String], request: APIRequest? = nil) -> String? {
        AnswerReading.message(in: ResponseBody(self), keys: keys, request: request)
    }

    /// How long the server asks the client to wait, from `Retry-After` given as delay-seconds
    /// (`120`) or as an HTTP-date (`Sun, 06 Nov 1994 08:49:37 GMT`, measured from `receivedAt`,
    /// never from the wall clock; a date in the past is no wait). `nil` when absent or unreadable.
    public func retryAfter(receivedAt: Instant) -> Interval? {
        AnswerReading.retryAfter(headers["Retry-After"], receivedAt: receivedAt)
    }

    /// A success that carries nothing the session needs (a code sent, a password changed, a
    /// logout): `.accepted` with the message under `messageKeys` if any, for an empty body, JSON or
    /// plain text; `.failed(.malformed)` for an HTML page or a body that claims JSON and is not one
    /// (a captive portal's 200 is not "done").
    public func acknowledgement(messageKeys: [String], request: APIRequest? = nil) -> Reply {
        AnswerReading.acknowledgement(ResponseBody(self), keys: messageKeys, request: request)
    }

    /// The answer to one of the app's own protected requests as the session sees it:
    /// `.accepted(nil)` for a success, else `.failed` with ``failure(messageKeys:request:receivedAt:)``
    /// (401 unauthorized, 403 forbidden, 429 rate limited, …).
    public func protectedReply(messageKeys: [String], receivedAt: Instant) -> Reply {
        AnswerReading.protected(self, keys: messageKeys, receivedAt: receivedAt)
    }
}

extension AuthFailure {
    /// The failure an HTTP error status means, the taxonomy every shipped contract reads by:
    /// 400 and the other 4xx a bad request, 401 unauthorized, 403 forbidden (pending approval when
    /// `message` says "pending approval"), 404 not found, 408 a timeout, 409 a conflict, 429 rate
    /// limited with `Retry-After` from `headers` (seconds or an HTTP-date measured from
    /// `receivedAt`), 5xx a server error; anything else (1xx, 2xx, 3xx) is `malformed`.
    public init(status: Int, message: String?, headers: HTTPHeaders = [:], receivedAt: Instant) {
        self = AnswerReading.failure(status: status, message: message, headers: headers, receivedAt: receivedAt)
    }
}

extension TokenExpiry {
    /// When an access token stops working as the answer says: after `expiresIn` seconds when it
    /// is a positive number (or a string of one: `expires_in`, `ExpiresIn`, a `ttl`), else at the
    /// token's JWT `exp` claim, else `.unknown`.
    public init(expiresIn: JSONValue?, accessToken: String) {
        self = AnswerReading.expiry(expiresIn: expiresIn, accessToken: accessToken)
    }

    /// When an access token stops working when the token itself is the authority: at its JWT
    /// `exp` claim when it has one, else after `expiresIn` seconds, else `.unknown`.
    public init(jwt accessToken: String, otherwise expiresIn: JSONValue?) {
        self = AnswerReading.expiry(accessToken: accessToken, otherwise: expiresIn)
    }
}

extension JSONObject {
    /// The member `key` as a string, trimmed; `nil` when absent, empty or not a string.
    public func string(_ key: String) -> String? { AnswerReading.string(self[key]) }

    /// The member `key` as an identifier sent as a string (`"550e8400-…"`) or an integer (`42`).
    public func identifier(_ key: String) -> String? { AnswerReading.identifier(self[key]) }

    /// The member `key` as a Boolean; `nil` when absent or not a Boolean.
    public func bool(_ key: String) -> Bool? { AnswerReading.bool(self[key]) }

    /// The user's other fields for `UserProfile.attributes`: every member but the keys in `read`
    /// (those already read into the profile's own fields, and the answer's token members), and never
    /// a member whose key names a secret (`password`, `…token…`, `secret`, `…hash…`).
    public func attributes(except read: Set<String>) -> [String: UserAttribute] {
        AnswerReading.attributes(self, except: read)
    }
}

extension SignInIdentifier {
    /// The identifier as a server takes it: the validated email, username, or phone number in E.164 form.
    public var text: String {
        switch self {
        case .email(let email): email.rawValue
        case .username(let username): username.rawValue
        case .phone(let phone): phone.e164
        }
    }
}
