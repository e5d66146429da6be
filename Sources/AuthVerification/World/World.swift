import AuthCore

/// A request the reducer sent whose answer has not arrived.
public struct Exchange: Hashable, Sendable, CustomStringConvertible {
    /// The request's id.
    public var id: RequestID
    /// The request.
    public var request: APIRequest
    /// For a realtime connection: it opened and can still drop.
    public var opened: Bool

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(id: RequestID, request: APIRequest, opened: Bool) {
        self.id = id
        self.request = request
        self.opened = opened
    }

    /// `r3 refresh(‹refresh token›)`.
    @inlinable public var description: String { "\(id) \(request)\(opened ? " (open)" : "")" }
}

/// A wake-up the reducer asked for.
public struct PendingTimer: Hashable, Sendable {
    /// Which timer.
    public var id: TimerID
    /// When.
    public var at: Instant

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(id: TimerID, at: Instant) {
        self.id = id
        self.at = at
    }
}

/// What the app's vault holds.
public enum VaultContents: Hashable, Sendable, CustomStringConvertible {
    /// Nothing.
    case empty
    /// Credentials the app can read.
    indirect case holds(Credentials)
    /// Credentials the app cannot read right now (locked device, corrupt file).
    indirect case unreadable(Credentials)

    /// The readable credentials, if any.
    @inlinable public var credentials: Credentials? {
        if case .holds(let credentials) = self { return credentials }
        return nil
    }

    /// `empty`, `holds(credentials(…))` or `unreadable`: readable credentials as they print
    /// themselves (tokens only as their kind); credentials the app cannot read are left out.
    @inlinable public var description: String {
        switch self {
        case .empty: "empty"
        case .holds(let credentials): "holds(\(credentials))"
        case .unreadable: "unreadable"
        }
    }
}

/// History variables (TLA+ style) that invariants about the past need. They travel with the
/// explored state and are canonicalized with it; entries that can no longer matter are dropped so
/// the space stays finite.
public struct History: Hashable, Sendable {
    /// The variables, in one box: a world is copied at every step and its history seldom
    /// changes, so a copy retains the box once instead of each list in it. The box is copied on
    /// the first write to a shared one.
    @usableFromInline var storage: Storage

    /// Refresh tokens whose successor arrived: never to be sent again.
    @inlinable public var retiredRefreshTokens: [RefreshToken] {
        get { storage.fields.retiredRefreshTokens }
        set { unique().fields.retiredRefreshTokens = newValue }
    }
    /// Codes the server confirmed sending, per destination and purpose.
    @inlinable public var codes: [CodeIssue] {
        get { storage.fields.codes }
        set { unique().fields.codes = newValue }
    }
    /// Requests that were in flight when the session last ended, and the requests in flight that
    /// end a logged-out session in the background (``endsLoggedOutSession(_:)``), whenever they
    /// were sent: their answers belong to a session that is over. Only those the state still
    /// refers to or that carry a refresh token are kept: an answer to any other request the state
    /// has let go of must change nothing at all (`staleAnswersChangeNothing`).
    @inlinable public var inFlightAtSignOut: [RequestID] {
        get { storage.fields.inFlightAtSignOut }
        set { unique().fields.inFlightAtSignOut = newValue }
    }
    /// Protected sends per call still pending.
    @inlinable public var callSends: [CallSends] {
        get { storage.fields.callSends }
        set { unique().fields.callSends = newValue }
    }
    /// The password step the server last demanded at sign-in and has not seen done: it outlives
    /// relaunches, as the server's demand does.
    @inlinable public var passwordStepDue: PasswordStep? {
        get { storage.fields.passwordStepDue }
        set { unique().fields.passwordStepDue = newValue }
    }
    /// Intents sent and not finished yet, in send order: their callers still wait.
    @inlinable public var openIntents: [IntentID] {
        get { storage.fields.openIntents }
        set { unique().fields.openIntents = newValue }
    }
    /// Refresh tokens of sessions the user logged out of that the server has not yet shown dead
    /// (consumed by a confirmed rotation, revoked, or refused), on backends that revoke at
    /// logout. A final report that the server session could not be confirmed ended clears them;
    /// a relaunch clears those the vault does not owe (the process that would have ended them is
    /// gone), and keeps the owed ones, which the next process must end.
    @inlinable public var liveAfterLogout: [RefreshToken] {
        get { storage.fields.liveAfterLogout }
        set { unique().fields.liveAfterLogout = newValue }
    }
    /// Endpoints a server answered 429 with a time to wait (`Retry-After`), and until when: no
    /// request to them before then. Forgotten once the time has come, when a session begins (a
    /// new grant starts the limits over) and at a relaunch.
    @inlinable public var rateLimits: [RateLimitWindow] {
        get { storage.fields.rateLimits }
        set { unique().fields.rateLimits = newValue }
    }
    /// Refresh tokens the server revoked when it accepted a password change the client waited
    /// for (``ReplyCatalogue/passwordChangeRevokesRefreshTokens``): never to be sent again, nor
    /// kept in the vault. Forgotten once they appear nowhere; a relaunch keeps them, as the
    /// server does.
    @inlinable public var revokedRefreshTokens: [RefreshToken] {
        get { storage.fields.revokedRefreshTokens }
        set { unique().fields.revokedRefreshTokens = newValue }
    }
    /// The device sign-in's polling as the provider set it (RFC 8628), from what was sent and
    /// answered: the device code it issued last, its interval and when the last poll left. Forgotten
    /// once the codes have expired, when a session begins and at a relaunch.
    @inlinable public var devicePolling: DevicePolling? {
        get { storage.fields.devicePolling }
        set { unique().fields.devicePolling = newValue }
    }
    /// For each refresh token of a logged-out session with a request in flight to end it, the
    /// sends its round has left, that one included (``RoundAttempts``), where the client's policy
    /// gives a round more than one (``ReplyCatalogue/revocationAttempts``): a round ends on a
    /// failure the client tries again (``SourceRules/retriedInRound(_:_:)``) only at its last send
    /// (``SourceRules/endsRound(of:answered:reply:sent:windows:at:attemptsLeft:)``). Forgotten once
    /// no request presents the token any more, with the token, and at a relaunch.
    @inlinable public var roundAttempts: [RoundAttempts] {
        get { storage.fields.roundAttempts }
        set { unique().fields.roundAttempts = newValue }
    }

    /// Creates an empty history.
    @inlinable public init() { storage = Storage(Fields()) }

    /// The box, copied first if another history shares it.
    @inlinable mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    /// Histories with the same variables are equal, whichever box holds them.
    @inlinable public static func == (a: History, b: History) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    /// Hashes the variables.
    @inlinable public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

    /// The box of a ``History``'s variables. Written only through a history that holds it alone
    /// (``History/unique()``), so sharing it between threads is safe.
    @usableFromInline final class Storage: @unchecked Sendable {
        // Safe without the runtime's exclusivity check (`@exclusivity(unchecked)`): the accessors
        // above only get or set, so no access outlasts one statement and none can overlap
        // another on this thread; and a box another thread can see is shared, hence only read.
        // The check was about 4 % of a fuzz step, made at every read of a history variable.
        @usableFromInline @exclusivity(unchecked) var fields: Fields

        @inlinable init(_ fields: Fields) { self.fields = fields }
    }

    /// A ``History``'s variables, as the properties above document them.
    @usableFromInline struct Fields: Hashable, Sendable {
        @usableFromInline var retiredRefreshTokens: [RefreshToken] = []
        @usableFromInline var codes: [CodeIssue] = []
        @usableFromInline var inFlightAtSignOut: [RequestID] = []
        @usableFromInline var callSends: [CallSends] = []
        @usableFromInline var passwordStepDue: PasswordStep?
        @usableFromInline var openIntents: [IntentID] = []
        @usableFromInline var liveAfterLogout: [RefreshToken] = []
        @usableFromInline var rateLimits: [RateLimitWindow] = []
        @usableFromInline var revokedRefreshTokens: [RefreshToken] = []
        @usableFromInline var devicePolling: DevicePolling?
        @usableFromInline var roundAttempts: [RoundAttempts] = []

        @inlinable init() {}
    }

    /// Whether `request` presents a refresh token of a session the user logged out of: it ends
    /// that session on the server in the background, and is not the current session's.
    @inlinable public func endsLoggedOutSession(_ request: APIRequest) -> Bool {
        guard !liveAfterLogout.isEmpty, let token = request.refreshToken else { return false }
        return liveAfterLogout.contains(token)
    }
}

/// The sends a server sign-out's round has left for one refresh token, the one in flight
/// included (``History/roundAttempts``): the client's policy gives a round
/// ``ReplyCatalogue/revocationAttempts`` sends of one request, and each answer it tries again
/// spends one.
public struct RoundAttempts: Hashable, Sendable {
    /// The refresh token the requests presented.
    public var refreshToken: RefreshToken
    /// Whether they were revocations; otherwise renewals of the pair to revoke with.
    public var revoking: Bool
    /// The sends left, the one in flight included: 1 while the round's last is in flight.
    public var left: Int

    /// Memberwise.
    @inlinable public init(refreshToken: RefreshToken, revoking: Bool, left: Int) {
        self.refreshToken = refreshToken
        self.revoking = revoking
        self.left = left
    }
}

/// A device code's polling as the provider set it (RFC 8628 §3.2, §3.5): the rule the device's
/// polls must keep, learned from the answers alone.
public struct DevicePolling: Hashable, Sendable {
    /// The device code the provider issued last.
    public var deviceCode: DeviceCode
    /// When it expires (issued + `expires_in`): no poll for it after then.
    public var expiresAt: Instant
    /// The least time between two polls: the `interval` the provider sent (5 seconds when it sent
    /// none), 5 seconds more for each `slow_down` it answered.
    public var interval: Interval
    /// When the last poll for it left, or, before the first, when it was issued.
    public var since: Instant

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(deviceCode: DeviceCode, expiresAt: Instant, interval: Interval, since: Instant) {
        self.deviceCode = deviceCode
        self.expiresAt = expiresAt
        self.interval = interval
        self.since = since
    }
}

extension History {
    /// Learns what `reply` to `request`, answered at `now`, says of a device's polling: codes
    /// issued start it (the provider's `interval`, or 5 seconds), a `slow_down` to a poll for the
    /// code makes its interval 5 seconds longer (``SourceRules/deviceInterval(_:)``,
    /// ``SourceRules/slowDownIncrement``).
    @inlinable public mutating func learnDevicePolling(_ reply: Reply, to request: APIRequest, at now: Instant) {
        switch (request, reply) {
        case (.requestDeviceCode, .device(.codeIssued(let authorization))):
            devicePolling = DevicePolling(
                deviceCode: authorization.deviceCode, expiresAt: now + authorization.lifetime,
                interval: SourceRules.deviceInterval(authorization.interval), since: now)
        case (.pollDeviceToken(let code), .device(.slowDown)):
            guard var polling = devicePolling, polling.deviceCode == code else { return }
            polling.interval = polling.interval + SourceRules.slowDownIncrement
            devicePolling = polling
        default:
            break
        }
    }
}

/// An endpoint a server asked not to be called again before `until` (429 with `Retry-After`).
public struct RateLimitWindow: Hashable, Sendable {
    /// The endpoint, by the request's kind (`APIRequest.rateLimitedEndpoint`).
    public var endpoint: String
    /// When requests to it may be sent again.
    public var until: Instant

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(endpoint: String, until: Instant) {
        self.endpoint = endpoint
        self.until = until
    }
}

/// A password step a server demands before anything else.
public enum PasswordStep: Hashable, Sendable {
    /// Set the first password (Anonymous Wall `passwordSet: false`).
    case set
    /// Change the password (Everday `RequirePasswordChange`).
    case change
}

/// A code the server confirmed sending.
public struct CodeIssue: Hashable, Sendable {
    /// `email:…` or `phone:…` plus the purpose.
    public var destination: String
    /// When the server confirmed it.
    public var issuedAt: Instant
    /// Verifications sent for it.
    public var verifications: Int

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(destination: String, issuedAt: Instant, verifications: Int) {
        self.destination = destination
        self.issuedAt = issuedAt
        self.verifications = verifications
    }
}

/// How often a protected call was sent.
public struct CallSends: Hashable, Sendable {
    /// The call.
    public var call: IntentID
    /// Sends so far.
    public var sends: Int

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(call: IntentID, sends: Int) {
        self.call = call
        self.sends = sends
    }
}

/// A lifecycle together with its environment: the clock, the network, the timers, the vault and
/// the history. The verification kit explores worlds, not bare states, so that concurrency
/// (several answers in flight, in any order), time and relaunches are explored too.
public struct World<Machine: Lifecycle>: Hashable, Sendable {
    /// The lifecycle's state.
    public var state: Machine.State
    /// The current time.
    public var now: Instant
    /// Requests sent and not answered, in send order.
    public var network: [Exchange]
    /// Pending wake-ups, in `TimerID` order.
    public var timers: [PendingTimer]
    /// What the vault holds.
    public var vault: VaultContents
    /// The revocations the vault owes the server (`OwedRevocation`): they outlive a relaunch.
    public var owedRevocations: [OwedRevocation]
    /// History variables.
    public var history: History
    /// The id the next intent gets (the sender's counter: left out of the fingerprint, as request
    /// counters are).
    public var nextIntent: UInt64

    /// A world at `now` with nothing in flight.
    @inlinable public init(state: Machine.State, now: Instant = .seconds(1_000_000), vault: VaultContents = .empty) {
        self.state = state
        self.now = now
        self.network = []
        self.timers = []
        self.vault = vault
        self.owedRevocations = []
        self.history = History()
        self.nextIntent = 1
    }
}

extension World {
    /// `a == b`, comparing what tells worlds apart cheaply first: the time, the next intent's id
    /// (an intent always moves it on, so a world an intent made is told from the one before at
    /// once), how many requests and timers are pending and which requests, then the lifecycle
    /// state (where siblings mostly differ, and an unequal state most often differs in its outer
    /// case), then the rest in full.
    @inlinable static func same(_ a: World, _ b: World) -> Bool {
        guard a.now == b.now, a.nextIntent == b.nextIntent, a.network.count == b.network.count, a.timers.count == b.timers.count else {
            return false
        }
        for index in a.network.indices where a.network[index].id != b.network[index].id { return false }
        return a.state == b.state && a.network == b.network && a.timers == b.timers && a.vault == b.vault && a.owedRevocations == b.owedRevocations
            && a.history == b.history
    }
}

extension Exchange: Surveyable {
    /// Id, request, whether it opened.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(id)
        s.visit(request)
        s.plain(opened)
    }
}

/// A request in flight as the survey of the network sees it: in full, or, when the state no
/// longer refers to it, as what can answer it (``Survey/visit(network:)``).
@usableFromInline struct InFlight: Surveyable {
    @usableFromInline let exchange: Exchange
    @usableFromInline let answeredOnly: Bool

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(exchange: Exchange, answeredOnly: Bool) {
        self.exchange = exchange
        self.answeredOnly = answeredOnly
    }

    /// The exchange, or its id and what can answer it.
    @inlinable func survey(_ s: inout Survey) {
        guard answeredOnly else { return s.visit(exchange) }
        s.visit(exchange.id)
        s.tag("answeredOnly")
        s.plain(ReplyCatalogue.AnswerKey.Kind(exchange))
    }
}

extension PendingTimer: Surveyable {
    /// Which timer, when.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(id.description)  // The case name, a literal: its bytes, no hasher.
        s.visit(at)
    }
}

extension CodeIssue: Surveyable {
    /// The destination, when it was issued, the verifications sent for it.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(destination)
        s.visit(issuedAt)
        s.number(verifications)
    }
}

extension CallSends: Surveyable {
    /// The call, then how often it was sent.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(call)
        s.number(sends)
    }
}

extension OwedRevocation: Surveyable {
    /// The token, then the rounds failed.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(refreshToken)
        s.number(rounds)
    }
}

extension RoundAttempts: Surveyable {
    /// The token, the kind of request, the sends left.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(refreshToken)
        s.plain(revoking)
        s.number(left)
    }
}

extension VaultContents: Surveyable {
    /// The case and the credentials.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .empty: s.tag("empty")
        case .holds(let credentials):
            s.tag("holds")
            s.visit(credentials)
        case .unreadable(let credentials):
            s.tag("unreadable")
            s.visit(credentials)
        }
    }
}

extension History: Surveyable {
    /// Every history variable.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(tokenSet: retiredRefreshTokens)
        s.visit(unordered: codes)  // One code a destination, looked up by its destination.
        s.visit(requestSet: inFlightAtSignOut)
        s.visit(unordered: callSends)
        s.visit(intentSet: openIntents)
        s.visit(tokenSet: liveAfterLogout)
        s.visit(tokenSet: revokedRefreshTokens)
        s.visit(unordered: roundAttempts)
        if let polling = devicePolling {
            s.tag("devicePolling")
            s.visit(polling.deviceCode)
            s.visit(polling.expiresAt)
            s.number(Int(polling.interval.milliseconds))
            s.visit(polling.since)
        } else {
            s.tag("none")
        }
        s.number(rateLimits.count)
        for window in rateLimits.sorted(by: { $0.endpoint < $1.endpoint }) {  // One window an endpoint; their order says nothing.
            s.plain(window.endpoint)
            s.visit(window.until)
        }
        switch passwordStepDue {
        case nil: s.tag("none")
        case .set?: s.tag("set")
        case .change?: s.tag("change")
        }
    }
}
