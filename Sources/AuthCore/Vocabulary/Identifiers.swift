/// Names one request the reducer asked for; its answer comes back tagged with it.
///
/// Ids come from a counter in state (``FlowContext``), never from randomness, and are never reused,
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

/// What every flow of a composition shares, threaded through all of them by the combinators: the
/// counter that names requests (so ids never collide across flows), the intents waiting for the
/// answers to those requests, and the code cooldowns learned from the server (so starting over,
/// or switching to another flow and back, never asks for a new code before the server's cooldown
/// ends).
///
/// The waiters live here rather than in each flow's phase because the combinators finish them
/// too: a flow the user leaves for another (``OneOf``), or that a restored session replaces
/// (``Handover``), no longer answers its intent, and the combinator finishes it as superseded
/// without knowing the flow's phases. While signed out only the active flow sends requests on an
/// intent's behalf, and while signed in only the session: the waiters are always that side's.
public struct FlowContext: Hashable, Sendable {
    /// The id the next request gets.
    public private(set) var next: UInt64
    /// Intents waiting for the answer to a request, in issue order.
    public private(set) var waiters: [Waiter]
    /// Codes the server confirmed sending whose cooldown still runs, oldest first.
    public private(set) var codeCooldowns: [CodeCooldown]
    /// Signed-out sessions still being ended on the server, in the background (see ``ServerSignOut``).
    public internal(set) var serverSignOuts: [ServerSignOut]
    /// Endpoints the server asked not to call again before a time (429 with `Retry-After`).
    public private(set) var serverWaits: [ServerWait]
    /// Revocations a logout could not complete, kept in the vault and retried (see ``OwedRevocation``).
    public internal(set) var owedRevocations: [OwedRevocation]

    /// A context whose counter starts at `next`.
    public init(
        next: UInt64 = 1, waiters: [Waiter] = [], codeCooldowns: [CodeCooldown] = [], serverSignOuts: [ServerSignOut] = [],
        serverWaits: [ServerWait] = [], owedRevocations: [OwedRevocation] = []
    ) {
        self.next = next
        self.waiters = waiters
        self.codeCooldowns = codeCooldowns
        self.serverSignOuts = serverSignOuts
        self.serverWaits = serverWaits
        self.owedRevocations = owedRevocations
    }

    /// Issues the next id, for a request no intent waits for (a refresh, a restore, a revoke).
    public mutating func issue() -> RequestID {
        defer { next &+= 1 }
        return RequestID(next)
    }

    /// Issues the next id, for a request whose answer finishes `intent`.
    public mutating func issue(for intent: IntentID) -> RequestID {
        let request = issue()
        waiters.append(Waiter(request: request, intent: intent))
        return request
    }

    /// Moves the intent waiting for `request` on to a new request, issued now, for the next step
    /// of the same work (a device sign-in's next poll): the intent keeps waiting, for the new id.
    /// `nil` when no intent waits for `request`.
    public mutating func continueWaiting(after request: RequestID) -> RequestID? {
        guard let index = waiters.firstIndex(where: { $0.request == request }) else { return nil }
        return issue(for: waiters.remove(at: index).intent)
    }

    /// The intent waiting for `request`, if any (it keeps waiting).
    public func intent(waitingFor request: RequestID) -> IntentID? {
        waiters.first { $0.request == request }?.intent
    }

    /// The request `intent` waits for, if any.
    public func request(awaitedBy intent: IntentID) -> RequestID? {
        waiters.first { $0.intent == intent }?.request
    }

    /// Finishes the intent waiting for `request` with `completion`, if one waits: the effect, and
    /// the waiter forgotten. Nothing when no intent waits (an answer nobody asked for).
    public mutating func finish(waitingFor request: RequestID, _ completion: Completion) -> [AuthEffect] {
        guard let index = waiters.firstIndex(where: { $0.request == request }) else { return [] }
        return [.finish(waiters.remove(at: index).intent, completion)]
    }

    /// Finishes every waiting intent with `completion` (a flow abandoned, a session ended).
    public mutating func finishAll(_ completion: Completion) -> [AuthEffect] {
        guard !waiters.isEmpty else { return [] }
        defer { waiters = [] }
        return waiters.map { .finish($0.intent, completion) }
    }

    /// When another code for `target` may be requested, if its cooldown still runs at `now`.
    public func cooldown(for target: CodeTarget, at now: Instant) -> Instant? {
        codeCooldowns.first { $0.target == target && now < $0.resendAt }?.resendAt
    }

    /// Remembers that the server sent a code for `target`; another may be requested from `resendAt`.
    public mutating func codeSent(to target: CodeTarget, resendAt: Instant) {
        codeCooldowns.removeAll { $0.target == target }
        codeCooldowns.append(CodeCooldown(target: target, resendAt: resendAt))
    }

    /// Forgets every cooldown: a session beginning or ending clears the code flows' context.
    public mutating func forgetAllCooldowns() {
        if !codeCooldowns.isEmpty { codeCooldowns = [] }
    }

    /// Forgets the cooldowns that have ended at `now`.
    public mutating func forgetCooldowns(endedBy now: Instant) {
        if codeCooldowns.contains(where: { $0.resendAt <= now }) { codeCooldowns.removeAll { $0.resendAt <= now } }
    }

    // MARK: The server's waits

    /// Until when the server asked not to call `endpoint`, if that time is still ahead of `now`.
    public func serverWait(for endpoint: ServerEndpoint, at now: Instant) -> Instant? {
        serverWaits.first { $0.endpoint == endpoint && now < $0.until }?.until
    }

    /// Notes the server's 429 with `Retry-After` to `request`: when an intent waits for it, the
    /// endpoint it went to waits until then.
    @usableFromInline
    mutating func rateLimited(_ request: RequestID, until: Instant) {
        guard let endpoint = waiters.first(where: { $0.request == request })?.endpoint else { return }
        serverAsksToWait(for: endpoint, until: until)
    }

    /// Remembers that the server asked not to call `endpoint` before `until`. Nothing wakes at its
    /// end: a request held back is answered at once, so nothing waits for it; the wait is
    /// forgotten by the first event after it.
    public mutating func serverAsksToWait(for endpoint: ServerEndpoint, until: Instant) {
        serverWaits.removeAll { $0.endpoint == endpoint }
        serverWaits.append(ServerWait(endpoint: endpoint, until: until))
    }

    /// Forgets every wait: a session beginning starts the server's limits over (the sign-in that
    /// was limited has succeeded, the code flows have ended, the refresh token is new).
    public mutating func forgetAllServerWaits() {
        if !serverWaits.isEmpty { serverWaits = [] }
    }

    /// Forgets the waits that have ended at `now`.
    @usableFromInline
    mutating func forgetServerWaits(endedBy now: Instant) {
        if serverWaits.contains(where: { $0.until <= now }) { serverWaits.removeAll { $0.until <= now } }
    }

    /// Remembers that `request` went to `endpoint`, on its waiter when an intent waits for it.
    @usableFromInline
    mutating func sending(_ request: RequestID, to endpoint: ServerEndpoint) {
        guard let index = waiters.firstIndex(where: { $0.request == request }) else { return }
        waiters[index].endpoint = endpoint
    }
}

/// An endpoint the server asked not to call again before `until` (a 429 with `Retry-After`).
public struct ServerWait: Hashable, Sendable {
    /// The endpoint.
    public var endpoint: ServerEndpoint
    /// When it may be called again.
    public var until: Instant

    /// A wait the server asked for.
    public init(endpoint: ServerEndpoint, until: Instant) {
        self.endpoint = endpoint
        self.until = until
    }
}

/// What a code is sent for: a destination with a purpose, or a password reset for an identifier.
public enum CodeTarget: Hashable, Sendable, CustomStringConvertible {
    /// An email or SMS code (Anonymous Wall `send-code` with its purpose, Hero365 `/otp/send`).
    case destination(CodeDestination, CodePurpose)
    /// A reset code, token or link for this identifier.
    case reset(ResetIdentifier)

    /// The target (not a secret).
    public var description: String {
        switch self {
        case .destination(let destination, let purpose): "\(destination) for \(purpose.rawValue)"
        case .reset(let identifier): "reset for \(identifier)"
        }
    }
}

/// A code the server sent, and when another may be requested for the same target.
public struct CodeCooldown: Hashable, Sendable {
    /// What the code was for.
    public var target: CodeTarget
    /// From when another may be requested.
    public var resendAt: Instant

    /// Creates a cooldown.
    public init(target: CodeTarget, resendAt: Instant) {
        self.target = target
        self.resendAt = resendAt
    }
}

/// Names one intent the app sent: a sign-in, a code request, a protected call, a logout. The
/// reducer finishes every intent exactly once (``AuthEffect/finish(_:_:)``), so the caller that
/// sent it always gets an answer; a protected call is an intent too, and its id names the call.
///
/// Ids come from the sender (the runner's counter, the explorer's), never from the reducer.
public struct IntentID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The sender's counter value.
    public let rawValue: UInt64
    /// Wraps a counter value.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// Orders intents by issue.
    public static func < (lhs: IntentID, rhs: IntentID) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `#<n>`.
    public var description: String { "#\(rawValue)" }
}

/// An intent waiting for the answer to the request sent on its behalf.
public struct Waiter: Hashable, Sendable, CustomStringConvertible {
    /// The request whose answer finishes the intent.
    public var request: RequestID
    /// The intent.
    public var intent: IntentID
    /// The server endpoint the request went to, once sent (`nil` for the app's protected calls and
    /// the realtime connection): a 429 to it names the endpoint the server asks to wait for.
    public var endpoint: ServerEndpoint?

    /// Creates a waiter.
    public init(request: RequestID, intent: IntentID, endpoint: ServerEndpoint? = nil) {
        self.request = request
        self.intent = intent
        self.endpoint = endpoint
    }

    /// `#3 ← r5`.
    public var description: String { "\(intent) ← \(request)" }
}

/// A wake-up the reducer asks for. When it fires the runner sends `.tick(now)`; scheduling the
/// same id again replaces the earlier deadline.
public enum TimerID: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `first`, then the timers of `second` not in it: a composition's timers, each once.
    static func union(_ first: [TimerID], _ second: [TimerID]) -> [TimerID] { first + second.filter { !first.contains($0) } }

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
    /// The realtime connection opened long enough ago to count as established.
    case realtimeStable
    /// The access token of a session without refresh expires.
    case sessionExpiry
    /// A device sign-in may poll the token endpoint again.
    case devicePoll
    /// A device sign-in's codes expire.
    case deviceCodeExpiry

    /// The case name.
    public var description: String {
        switch self {
        case .proactiveRefresh: "proactiveRefresh"
        case .refreshRetry: "refreshRetry"
        case .resendAvailable: "resendAvailable"
        case .codeExpiry: "codeExpiry"
        case .rateLimitEnds: "rateLimitEnds"
        case .reconnect: "reconnect"
        case .realtimeStable: "realtimeStable"
        case .sessionExpiry: "sessionExpiry"
        case .devicePoll: "devicePoll"
        case .deviceCodeExpiry: "deviceCodeExpiry"
        }
    }
}
