extension SecretKinds {
    /// A device code (RFC 8628 §3.2): the secret a device polls the token endpoint with while the
    /// user approves the sign-in elsewhere. Unlike the user code, it is never shown.
    public enum DeviceCode: SecretKind {
        /// `device code`.
        public static let label = "device code"
        /// Issued by the authorization server.
        public static let isIssuedByServer = true
    }
}

/// A device code (RFC 8628 §3.2): issued by the provider, sent only in the polling token
/// requests; it prints redacted.
public typealias DeviceCode = Secret<SecretKinds.DeviceCode>

/// What a device without a browser shows its user (RFC 8628 §3.3): the user code and the page
/// where to enter it, on a phone or a computer.
///
/// ```swift
/// Text("Go to \(prompt.verificationURI) and enter \(prompt.userCode)")
/// // or a QR code of prompt.verificationURIComplete, when the provider sends one
/// ```
public struct UserCodePrompt: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The code the user types on the other device (`user_code`), e.g. `WDJB-MJHT`.
    public var userCode: String
    /// The page where the user enters it (`verification_uri`).
    public var verificationURI: String
    /// The same page with the code already in it (`verification_uri_complete`), for a QR code or
    /// a link, when the provider sends one.
    public var verificationURIComplete: String?

    /// Creates a prompt.
    public init(userCode: String, verificationURI: String, verificationURIComplete: String? = nil) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
    }

    /// `userCode(at: https://id.example/device)`: the page only; the user code (which would let
    /// someone else's approval reach this device) and the complete URI holding it are left out.
    public var description: String { "userCode(at: \(verificationURI))" }

    /// A mirror with the page only, so `dump` leaves the user code out as `description` does.
    public var customMirror: Mirror { Mirror(self, children: ["verificationURI": verificationURI], displayStyle: .struct) }
}

/// The device authorization endpoint's answer (RFC 8628 §3.2): the device code to poll with, what
/// to show the user, how long the codes work and how often the token endpoint may be asked.
public struct DeviceAuthorization: Hashable, Sendable, CustomStringConvertible {
    /// `device_code`, a secret.
    public var deviceCode: DeviceCode
    /// `user_code`, `verification_uri` and `verification_uri_complete`.
    public var prompt: UserCodePrompt
    /// `expires_in`: how long the device code and the user code work.
    public var lifetime: Interval
    /// `interval`: the least time between two polls, when the provider says (5 seconds when it
    /// does not, RFC 8628 §3.2).
    public var interval: Interval?

    /// Creates an answer.
    public init(deviceCode: DeviceCode, prompt: UserCodePrompt, lifetime: Interval, interval: Interval? = nil) {
        self.deviceCode = deviceCode
        self.prompt = prompt
        self.lifetime = lifetime
        self.interval = interval
    }

    /// `deviceAuthorization(‹device code›, userCode(at: …), expiresIn: 1800s, interval: 5s)`: the
    /// device code only as its kind, the prompt as it prints itself.
    public var description: String {
        "deviceAuthorization(\(deviceCode), \(prompt), expiresIn: \(lifetime), interval: \(interval.map(\.description) ?? "default"))"
    }
}

/// The device authorization grant's answers short of tokens (RFC 8628): the device code issued
/// (§3.2), or the token endpoint's answer to a poll that is not a grant (§3.5).
public enum DeviceGrantReply: Hashable, Sendable, CustomStringConvertible {
    /// The device authorization endpoint issued codes (§3.2).
    case codeIssued(DeviceAuthorization)
    /// `authorization_pending`: the user has not finished yet; poll again after the interval.
    case authorizationPending
    /// `slow_down`: still pending, and the interval grows by 5 seconds for this and every later poll.
    case slowDown
    /// `access_denied`: the user declined.
    case accessDenied
    /// `expired_token`: the device code expired; a new sign-in must start over.
    case expiredToken

    /// The case; an issued authorization as it prints itself.
    public var description: String {
        switch self {
        case .codeIssued(let authorization): "codeIssued(\(authorization))"
        case .authorizationPending: "authorizationPending"
        case .slowDown: "slowDown"
        case .accessDenied: "accessDenied"
        case .expiredToken: "expiredToken"
        }
    }
}

/// A device sign-in's polling, once the codes were issued: the device code, what the user is
/// shown, when the codes expire and the interval in force.
public struct DevicePoll: Hashable, Sendable, CustomStringConvertible {
    /// The device code the token endpoint is polled with, a secret.
    public var deviceCode: DeviceCode
    /// What the user is shown.
    public var prompt: UserCodePrompt
    /// When the codes stop working (issued + `expires_in`).
    public var expiresAt: Instant
    /// The least time between two polls: the provider's `interval` (5 seconds by default), 5
    /// seconds more after each `slow_down`, doubled after each poll the network lost.
    public var interval: Interval

    /// Creates a poll state.
    public init(deviceCode: DeviceCode, prompt: UserCodePrompt, expiresAt: Instant, interval: Interval) {
        self.deviceCode = deviceCode
        self.prompt = prompt
        self.expiresAt = expiresAt
        self.interval = interval
    }

    /// `poll(userCode(at: …), expires: …, every: 5s)`: the device code left out.
    public var description: String { "poll(\(prompt), expires: \(expiresAt), every: \(interval))" }
}
