/// Why the server (or the way to it) said no: the backends' status taxonomy, backend-neutral.
public enum AuthFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// 400: invalid input, invalid or expired code, invalid grant. The server's message, if any.
    case badRequest(String?)
    /// 401: invalid credentials or token.
    case unauthorized(String?)
    /// The password the user typed to prove who they are was refused, while the session's token
    /// was accepted (Everday's password change answers 401 `Invalid credentials` for a wrong
    /// current password, and 401 with another detail for an expired bearer). It says nothing
    /// about the session: it neither ends it nor calls for a refresh.
    case incorrectPassword(String?)
    /// 403 whose message says the account awaits approval (Everday).
    case pendingApproval(String?)
    /// 403 for any other reason: wrong school domain, locked, insufficient rights.
    case forbidden(String?)
    /// 404.
    case notFound(String?)
    /// 409: already registered / exists.
    case conflict(String?)
    /// 429, with `Retry-After` when the server sent one.
    case rateLimited(retryAfter: Interval?)
    /// 5xx (503 "not configured" included).
    case server(status: Int, String?)
    /// The server could not be reached.
    case network
    /// No answer within the timeout.
    case timeout
    /// An answer that could not be read (bad JSON, missing fields, wrong content type).
    case malformed

    /// True for failures that say nothing about the credentials and may succeed on a later try:
    /// network, timeout, 5xx, 429, unreadable answers, and the odd 404/409.
    public var isTransient: Bool {
        switch self {
        case .network, .timeout, .server, .rateLimited, .malformed, .notFound, .conflict: true
        case .badRequest, .unauthorized, .incorrectPassword, .pendingApproval, .forbidden: false
        }
    }

    /// The message the backends' API documents ask the UI to show: the server's own text where
    /// present, otherwise "Invalid email or password", "Cannot connect to server", "Server error,
    /// please try again"…
    public var userMessage: String {
        switch self {
        case .badRequest(let message): message ?? "Please check what you entered."
        case .unauthorized(let message): message ?? "Invalid email or password"
        case .incorrectPassword: "The current password is incorrect."
        case .pendingApproval(let message):
            message ?? "Account pending approval. A parent must approve this account before sign in."
        case .forbidden(let message): message ?? "Access denied."
        case .notFound(let message): message ?? "Not found."
        case .conflict(let message): message ?? "That account already exists."
        case .rateLimited: "Too many requests. Please wait a moment and try again."
        case .server(_, let message): message ?? "Server error, please try again"
        case .network: "Cannot connect to server"
        case .timeout: "The server took too long to answer. Please try again."
        case .malformed: "Server error, please try again"
        }
    }

    /// The case name and status, never a secret.
    public var description: String {
        switch self {
        case .badRequest: "badRequest(400)"
        case .unauthorized: "unauthorized(401)"
        case .incorrectPassword: "incorrectPassword(401)"
        case .pendingApproval: "pendingApproval(403)"
        case .forbidden: "forbidden(403)"
        case .notFound: "notFound(404)"
        case .conflict: "conflict(409)"
        case .rateLimited(let retryAfter): "rateLimited(429, retryAfter: \(retryAfter.map(\.description) ?? "none"))"
        case .server(let status, _): "server(\(status))"
        case .network: "network"
        case .timeout: "timeout"
        case .malformed: "malformed"
        }
    }
}

/// New tokens from a refresh. A missing refresh token means "keep the one you have".
public struct TokenRefresh: Hashable, Sendable, CustomStringConvertible {
    /// The new access token.
    public var accessToken: AccessToken
    /// The rotated refresh token, when the server sent one.
    public var refreshToken: RefreshToken?
    /// When the new access token expires.
    public var expiry: TokenExpiry
    /// The user as the refresh answer describes them, when it does (Everday's answer carries the
    /// user's `Role` and names again): the renewed credentials take it, so a changed role is seen.
    public var user: UserProfile?

    /// Creates a refresh answer.
    public init(accessToken: AccessToken, refreshToken: RefreshToken?, expiry: TokenExpiry = .unknown, user: UserProfile? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiry = expiry
        self.user = user
    }

    /// `tokens(access: ‹access token›, refresh: ‹refresh token›, expiry: …)`: the tokens only as
    /// their kind (`none` when no refresh token came) and the expiry; the user is left out.
    public var description: String {
        "tokens(access: \(accessToken), refresh: \(refreshToken.map(\.description) ?? "none"), expiry: \(expiry))"
    }
}

/// A server's answer to one request, decoded by the backend contract.
///
/// Cases with large payloads are `indirect`: copying the value is then one reference count, not
/// a retain of every string inside it (reducers, the explorer and the fuzzer copy these values
/// on every step). Matching and equality are unchanged.
public enum Reply: Hashable, Sendable, CustomStringConvertible {
    /// Signed in: tokens and user.
    indirect case granted(Grant)
    /// A refresh succeeded.
    indirect case refreshed(TokenRefresh)
    /// Done, with the server's message if any (code sent, reset requested, password set…).
    case accepted(String?)
    /// The current user (Subspace `/auth/me`, Hero365 `/users/me`, Anonymous Wall password answers).
    indirect case user(UserProfile)
    /// Registered, awaiting a parent's approval (Everday `Status: PendingApproval`).
    case pendingApproval(String?)
    /// Registered, awaiting email or phone verification (Hero365 sign-up).
    case verificationRequired(String?)
    /// The provider's authorization URL (Hero365 `/oauth/{provider}`).
    case authorizationURL(String)
    /// No authorization URL: this server signs in with the provider only natively, with an
    /// identity token from the provider's SDK (Hero365's deployed `/auth/oauth/{provider}`, which
    /// names its `/auth/{provider}/signin` endpoints instead).
    case nativeSignInRequired
    /// A device authorization grant's answer short of tokens (RFC 8628): codes issued, or a poll
    /// still pending, asked to slow down, declined or expired.
    indirect case device(DeviceGrantReply)
    /// The realtime connection opened.
    case realtimeOpened
    /// The realtime connection closed or dropped after it had opened.
    case realtimeClosed
    /// The request failed.
    case failed(AuthFailure)

    /// The case with what a trace needs: a grant or refresh as it prints itself (tokens only as
    /// their kind), a user's id and `passwordSet`, a failure by its status. The server's messages
    /// and the authorization URL are left out.
    public var description: String {
        switch self {
        case .granted(let grant): "granted(\(grant))"
        case .refreshed(let refresh): "refreshed(\(refresh))"
        case .accepted: "accepted"
        case .user(let user): "user(\(user.id), passwordSet: \(user.passwordSet.map(String.init) ?? "absent"))"
        case .pendingApproval: "pendingApproval"
        case .verificationRequired: "verificationRequired"
        case .authorizationURL: "authorizationURL"
        case .nativeSignInRequired: "nativeSignInRequired"
        case .device(let answer): "device(\(answer))"
        case .realtimeOpened: "realtimeOpened"
        case .realtimeClosed: "realtimeClosed"
        case .failed(let failure): "failed(\(failure))"
        }
    }
}
