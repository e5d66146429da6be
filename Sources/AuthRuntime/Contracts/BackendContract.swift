import AuthCore
import Foundation

/// Why a contract cannot build a request.
public enum ContractError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The backend's document offers no endpoint for this request.
    case unsupported(String)

    /// What was asked for (never a secret).
    public var description: String {
        switch self {
        case .unsupported(let what): "this backend does not offer \(what)"
        }
    }
}

/// One backend's API: maps AuthCore's abstract requests to HTTP exactly as the API writes them
/// (paths, headers, JSON key casing, envelopes), and HTTP answers back to `Reply`s (status
/// taxonomy, error envelopes, expiry from `ExpiresIn` or a JWT `exp`).
///
/// A contract is plain configuration (a base URL) plus pure mapping functions, so every mapping can
/// be tested without a network. The five documented backends' contracts are tested against
/// `Fixtures/`; a contract for a server of one's own is written with the same toolkit:
/// ``RequestBuilder`` for requests, and for answers ``ResponseBody``,
/// `HTTPResponse.failure(messageKeys:request:receivedAt:)` (the status taxonomy),
/// `TokenExpiry.init(expiresIn:accessToken:)` and `JSONObject.string(_:)`.
public protocol BackendContract: Sendable {
    /// The backend this contract speaks to: one of the documented ones, or one of the app's own
    /// (`Backend("My API")`).
    var backend: Backend { get }
    /// Where its API lives, with the documented prefix (`http://host:port/api/v1`).
    var baseURL: URL { get }

    /// The HTTP request for `request`. Throws ``ContractError/unsupported(_:)`` for requests the
    /// backend does not document, and for `APIRequest.protected(_:_:)` and
    /// `APIRequest.openRealtime(_:)`, which the runner builds with ``authorize(_:with:)`` and
    /// ``realtimeURL(token:)``.
    func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest

    /// Reads the answer to `request`, received at `receivedAt`. Never throws and never traps: an
    /// answer that cannot be read is `.failed(.malformed)`.
    func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply

    /// One of the app's own protected requests with the bearer attached as the backend wants it
    /// (`Authorization: Bearer …` by default, and Anonymous Wall's `X-User-Id`).
    func authorize(_ request: HTTPRequest, with bearer: Bearer) -> HTTPRequest

    /// The answer to one of the app's protected requests as the session sees it: `.failed(.unauthorized)`
    /// for 401, `.failed(.forbidden)` for 403, and so on; `.accepted(nil)` for any success.
    /// `receivedAt` is when the answer arrived on the runner's clock: an HTTP-date `Retry-After` is
    /// measured from it, never from the wall clock.
    func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply

    /// The realtime connection's URL for `token` (VynqTalk `ws://…/ws?token=`), or `nil` when the
    /// backend has none (the default).
    func realtimeURL(token: AccessToken) -> URL?
}

extension BackendContract {
    /// Adds `Authorization: Bearer …`, as every documented backend wants but Anonymous Wall, which
    /// adds `X-User-Id` too.
    public func authorize(_ request: HTTPRequest, with bearer: Bearer) -> HTTPRequest {
        var authorized = request
        let (name, value) = RequestBuilder.bearer(bearer.token)
        authorized.headers[name] = value
        return authorized
    }

    /// `.accepted(nil)` for a success; otherwise the status taxonomy, with the server's message read
    /// under `message`, `error`, `error_description` or `detail`
    /// (`HTTPResponse.protectedReply(messageKeys:receivedAt:)`).
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        response.protectedReply(messageKeys: ["message", "error", "error_description", "detail"], receivedAt: receivedAt)
    }

    /// No realtime connection: only VynqTalk documents one.
    public func realtimeURL(token: AccessToken) -> URL? { nil }
}
