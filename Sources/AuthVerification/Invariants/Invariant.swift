import AuthCore

/// One transition as invariants see it: the world before, the move, the effects, the world after.
///
/// A class, immutable once made: every step invariant receives the same transition, and passing
/// a reference costs nothing where passing the struct copied it for each check.
public final class Transition<Machine: Lifecycle>: Sendable {
    /// Before the event.
    public let before: Snapshot<Machine>
    /// The move.
    public let move: Move<Machine>
    /// What the reducer asked for.
    public let effects: [AuthEffect]
    /// After the event and its effects.
    public let after: Snapshot<Machine>
    /// The request the event answered, if it was a reply to one still in flight.
    public let answered: Exchange?
    /// The requests the effects send, in order.
    public let sent: [APIRequest]

    @usableFromInline init(before: Snapshot<Machine>, move: Move<Machine>, effects: [AuthEffect], after: Snapshot<Machine>, answered: Exchange?) {
        self.before = before
        self.move = move
        self.effects = effects
        self.after = after
        self.answered = answered
        self.sent = effects.compactMap(\.sentRequest)
    }

    /// Whether the event answers a request the state still considered current.
    public var answersCurrentRequest: Bool {
        guard case .reply(let id, _, _) = move.event else { return false }
        return before.refers(to: id)
    }

    /// The reply, if the event is one.
    public var reply: Reply? {
        if case .reply(_, let reply, _) = move.event { return reply }
        return nil
    }
}

/// A named property of every reachable state, or of every transition, with the source that asks
/// for it. A check returns `nil` when it holds, or what went wrong (never a secret).
///
/// A check is a function of the snapshot or transition it is shown, up to the renaming of ids
/// and tokens: the explorer and the fuzzer check each distinct world, and each move from it, once
/// (the fuzzer follows a move it checked before without showing it again; see ``Fuzzer``). A
/// check may keep a memo; one with a side effect that must see every step fuzzes with
/// ``FuzzConfiguration/reusesCheckedTransitions`` off.
public struct Invariant<Machine: Lifecycle>: Sendable {
    /// How it is checked.
    public enum Check: Sendable {
        /// At every reachable world.
        case state(@Sendable (Snapshot<Machine>) -> String?)
        /// At every transition.
        case step(@Sendable (Transition<Machine>) -> String?)
    }

    /// The name, as a sentence fragment (`at most one refresh in flight`).
    public let name: String
    /// Where the property comes from: an RFC, OWASP, NIST, or a backend's API document (named
    /// as "Everday's API document", summarised in `Fixtures/everday/README.md`).
    public let source: String
    /// The check.
    public let check: Check

    /// Creates an invariant.
    public init(_ name: String, source: String, _ check: Check) {
        self.name = name
        self.source = source
        self.check = check
    }
}

/// The rules for one-time codes a model's lifecycle follows, for the code invariants.
public struct CodeRules: Hashable, Sendable {
    /// A new code for the same destination only after this long.
    public var cooldown: Interval
    /// A code is submitted only within this long of being sent (`nil`: the backend sets no lifetime).
    public var lifetime: Interval?
    /// Submissions per code (`nil`: unbounded by the client).
    public var maxAttempts: Int?

    /// Creates rules.
    public init(cooldown: Interval, lifetime: Interval? = nil, maxAttempts: Int? = nil) {
        self.cooldown = cooldown
        self.lifetime = lifetime
        self.maxAttempts = maxAttempts
    }
}
