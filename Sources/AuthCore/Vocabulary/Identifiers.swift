/// Names one request the reducer asked for; its answer comes back tagged with it.
///
/// Ids come from a counter in state (``RequestIDs``), never from randomness, and are never reused,
/// so an answer to a request that is no longer current is recognised and changes nothing.
public struct RequestID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The counter value.
    public let rawValue: UInt64
    /// Wraps a counter value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders ids by issue.
    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `r<n>`.
    public var description: String { "r\(rawValue)" }
}

/// The counter that names requests, shared by every lifecycle of a composition so that ids never
/// collide across flows.
public struct RequestIDs: Hashable, Sendable {
    /// The id the next request gets.
    public private(set) var next: UInt64
    /// A counter starting at 1.
    public init(next: UInt64 = 1) { self.next = next }
    /// Issues the next id.
    public mutating func issue() -> RequestID {
        defer { next &+= 1 }
        return RequestID(next)
    }
}

/// Names one protected call the app made through the runner's `authorized(_:)`.
public struct CallID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The app-side counter value.
    public let rawValue: UInt64
    /// Wraps a counter value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders calls by issue.
    public static func < (lhs: CallID, rhs: CallID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `call<n>`.
    public var description: String { "call\(rawValue)" }
}

/// A wake-up the reducer asks for. When it fires the runner sends `.tick(now)`; scheduling the
/// same id again replaces the earlier deadline.
public enum TimerID: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Refresh the access token before it expires.
    case proactiveRefresh
    /// Retry a refresh that failed transiently.
    case refreshRetry
    /// A code may be requested again.
    case resendAvailable
    /// The outstanding code's lifetime ends.
    case codeExpiry
    /// A rate limit (429) ends.
    case rateLimitEnds
    /// Reconnect the realtime connection.
    case reconnect
    /// The access token of a session without refresh expires.
    case sessionExpiry

    /// The case name.
    public var description: String {
        switch self {
        case .proactiveRefresh: "proactiveRefresh"
        case .refreshRetry: "refreshRetry"
        case .resendAvailable: "resendAvailable"
        case .codeExpiry: "codeExpiry"
        case .rateLimitEnds: "rateLimitEnds"
        case .reconnect: "reconnect"
        case .sessionExpiry: "sessionExpiry"
        }
    }
}
