import AuthCore

/// Which of the next possible events a move is, in terms that survive replay: the n-th intent of
/// the model's menu, the k-th answer to the n-th request in flight, the n-th timer, a relaunch.
/// The fuzzer records choices, shrinks them and replays them; a choice that no longer applies is skipped.
public enum Choice: Hashable, Sendable, CustomStringConvertible {
    /// The n-th intent of the model's menu.
    case intent(Int)
    /// Answer `reply` (catalogue index) to the `exchange`-th request in flight.
    case reply(exchange: Int, reply: Int)
    /// Fire the n-th pending timer.
    case timer(Int)
    /// Relaunch the app; 0 reads the vault, 1 finds it unreadable.
    case relaunch(Int)
    /// The caller of the n-th open intent stops waiting (its task was cancelled).
    case withdraw(Int)
    /// Time passes, with no event, to the n-th deadline the menu offers (the session's access
    /// token's expiry): the app was suspended, or nothing happened meanwhile. Timers due by then
    /// stay pending and fire afterwards.
    case wait(Int)

    /// `i3`, `a1.0`, `t0`, `L0`, `W0`, `w0`.
    @inlinable public var description: String {
        switch self {
        case .intent(let n): "i\(n)"
        case .reply(let exchange, let reply): "a\(exchange).\(reply)"
        case .timer(let n): "t\(n)"
        case .relaunch(let n): "L\(n)"
        case .withdraw(let n): "W\(n)"
        case .wait(let n): "w\(n)"
        }
    }

    /// Whether the user (not the server, a timer or the OS) made this move.
    @inlinable public var isUserAction: Bool {
        switch self {
        case .intent, .withdraw: true
        case .reply, .timer, .relaunch, .wait: false
        }
    }

    /// Whether this move only lets time pass.
    @inlinable public var isWait: Bool {
        if case .wait = self { return true }
        return false
    }
}

/// One possible next event in a world.
public struct Move<Machine: Lifecycle>: Hashable, Sendable {
    /// Which one, replayably.
    public var choice: Choice
    /// The event the lifecycle receives.
    public var event: Machine.Event {
        didSet { key = nil }  // The key numbered the payload the move was built with.
    }
    /// The event's payload as the environment numbered it: what per-event memos look up instead
    /// of the payload. `nil` for a tick, for an intent whose list the environment's table had no
    /// room to remember (see ``EventTable``), and once `event` is changed.
    @usableFromInline var key: EventKey?

    @inlinable init(choice: Choice, event: Machine.Event, key: EventKey?) {
        self.choice = choice
        self.event = event
        self.key = key
    }

    /// Equal when choice and event are: the key only names the event's payload.
    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.choice == rhs.choice && lhs.event == rhs.event }

    /// The choice, then the event.
    @inlinable public func hash(into hasher: inout Hasher) {
        hasher.combine(choice)
        hasher.combine(event)
    }
}

/// What the verification kit needs to explore a lifecycle: the lifecycle, which intents to try,
/// which answers the backend can give, and which invariants to check.
///
/// Conform your own composition to explore it with the same checks (see `Models/`).
public protocol LifecycleModel: Sendable {
    /// The lifecycle explored.
    associatedtype Machine: Lifecycle
    /// A short name (`session.everday`).
    var name: String { get }
    /// The lifecycle explored.
    var machine: Machine { get }
    /// The answers the backend can give.
    var replies: ReplyCatalogue { get }
    /// Representative user intents in this world: valid, invalid and edge inputs. The snapshot
    /// gives the world and the facts surveyed from it (the session, symbolic token counts).
    ///
    /// Worlds with one fingerprint — the same world up to the names of ids and tokens and a
    /// shift of time (see ``Survey``) — must be offered as many intents, in the same order, each
    /// renamed alike: the explorer expands one world per fingerprint and rebuilds a trace by
    /// replaying its choices from the initial world, and the fuzzer follows a move it checked
    /// before by its choice. Build the list from the snapshot's facts, not from absolute times.
    /// A break is reported, not trusted: a reported trace that does not replay becomes a
    /// ``Finding/Kind/brokenModelContract`` finding, and a fuzz failure that does not fail again
    /// stepped afresh becomes a ``Fuzzer/brokenContractName`` failure. A break with nothing to
    /// report narrows the search silently: ``ContractCheck/check(_:states:)`` looks for one ahead
    /// of time.
    func intents(in snapshot: Snapshot<Machine>) -> [Machine.Intent]
    /// Whether relaunching the app is a possible move (for lifecycles that read the vault).
    var relaunches: Bool { get }
    /// The world exploration starts from.
    var initialWorld: World<Machine> { get }
    /// Case paths (see ``casePath(of:)``) where the lifecycle is done; no deadlock or
    /// return-home requirement applies there.
    var finalCases: [String] { get }
    /// Declared phase cases (`Type.case`) this composition cannot reach by design, with the reason.
    var unreachableByDesign: [String: String] { get }
    /// The user acts only while fewer than this many requests are in flight (a state constraint,
    /// as in TLC, that keeps abandoned requests from piling up forever; every interleaving of the
    /// answers within the bound is still explored).
    var maxInFlight: Int { get }
    /// The user acts only while fewer than this many *stale* requests are in flight — requests
    /// the lifecycle no longer waits for (after a logout, a start-over, a newer attempt). A state
    /// constraint too: without it a user who starts over again and again leaves abandoned
    /// requests that multiply the space, while one or two already show every stale-answer race
    /// (logout during a refresh, then signing in again before its answer lands). Answers are still
    /// delivered in every order, so the user acts again as soon as one arrives. At least 1: at 0
    /// the user never acts.
    var maxStale: Int { get }
    /// How far back instants in the lifecycle's state stay exact; further back they are "long
    /// ago" (see ``Survey``). At least the longest interval the lifecycle adds to a *past* instant
    /// before comparing it with the current time. Lifecycles that keep only deadlines and compare
    /// them with the current time — all of AuthCore's — need none.
    var timeHorizon: Interval { get }
    /// How far back instants in the history variables stay exact; this far back and further they
    /// are "long ago" (only further back without ``Reduction/symmetric``). At least the longest
    /// interval an invariant adds to a past instant before comparing it with the current time
    /// through `<` or `>=` — the code invariants count a code's cooldown and lifetime from when it
    /// was issued.
    var historyHorizon: Interval { get }
    /// The invariants checked.
    var invariants: [Invariant<Machine>] { get }
    /// The one-time-code rules the lifecycle follows, if it sends codes.
    var codeRules: CodeRules? { get }
    /// Whether the backend revokes refresh tokens at logout: then every refresh token of a session
    /// the user logged out of is followed until the server has shown it dead
    /// (``Catalogue/noOrphanedServerSession()``).
    var endsServerSessions: Bool { get }
}

extension LifecycleModel {
    /// The lifecycle's initial state, the vault empty.
    @inlinable public var initialWorld: World<Machine> { World(state: machine.initial) }
    /// Nothing is final.
    @inlinable public var finalCases: [String] { [] }
    /// Every declared case is reachable.
    @inlinable public var unreachableByDesign: [String: String] { [:] }
    /// Four: enough for a logout while a sign-in, a refresh and a protected call are all in flight.
    @inlinable public var maxInFlight: Int { Models.fullBounds.inFlight }
    /// Two: a logout during a refresh leaves the refresh and the revoke unawaited.
    @inlinable public var maxStale: Int { Models.fullBounds.stale }
    /// Ten minutes: longer than every cooldown, code lifetime, backoff and refresh margin used.
    /// Models that know their lifecycle may choose less (see ``Model``).
    @inlinable public var timeHorizon: Interval { .seconds(600) }
    /// The longest of the code rules' cooldown and lifetime, which the code invariants count from
    /// when a code was issued; none without codes.
    @inlinable public var historyHorizon: Interval { codeRules.map { max($0.cooldown, $0.lifetime ?? .zero) } ?? .zero }
    /// The whole catalogue.
    @inlinable public var invariants: [Invariant<Machine>] {
        Catalogue.all(codes: codeRules, serverSignOut: endsServerSessions, revocationEndsEverySession: replies.revocationEndsEverySession)
    }
    /// No codes.
    @inlinable public var codeRules: CodeRules? { nil }
    /// No revocation at logout.
    @inlinable public var endsServerSessions: Bool { false }
}
