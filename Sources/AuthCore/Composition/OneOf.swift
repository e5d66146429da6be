/// An intent or a phase of one of two flows.
///
/// Not `indirect`: a nest of `OneOf`s then steps without boxing a new phase at every level on
/// every event. The flows keep their phases small instead (their large cases, a grant, are
/// `indirect`), so a nest of phases is as small as the largest small case.
public enum Either<First: Hashable & Sendable, Second: Hashable & Sendable>: Hashable, Sendable {
    /// For the first flow.
    case first(First)
    /// For the second flow.
    case second(Second)
}

extension Either: EitherShaped {
    /// `first` or `second` applied to the value.
    @inlinable
    func either<Result>(_ first: (First) -> Result, _ second: (Second) -> Result) -> Result {
        switch self {
        case .first(let value): first(value)
        case .second(let value): second(value)
        }
    }

    /// Equal when the same case holds equal values (see `EitherShaped`).
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool { sameCaseAndValue(lhs, rhs) }

    /// The case, then its value (see `EitherShaped`).
    @inlinable
    public func hash(into hasher: inout Hasher) { hashCaseAndValue(into: &hasher) }
}

/// Two signed-out flows side by side, one active at a time: an intent for the other flow abandons
/// the active one (its request in flight becomes stale) and starts the other from its beginning,
/// as a user switching from "Register" to "Log in" does. Nest it for more flows.
public struct OneOf<First: EntryFlow, Second: EntryFlow>: EntryFlow {
    /// The first flow.
    public var first: First
    /// The second flow.
    public var second: Second

    /// Two flows, the first active initially.
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    /// Which flow is active, and where it is.
    public typealias Phase = Either<First.Phase, Second.Phase>
    /// An intent for either flow.
    public typealias Intent = Either<First.Intent, Second.Intent>

    /// The first flow at its beginning.
    @inlinable
    public var initialPhase: Phase { .first(first.initialPhase) }

    /// Both flows' timers.
    public var timers: [TimerID] { TimerID.union(first.timers, second.timers) }

    /// `intent` routed to the first of the two flows that takes it.
    @inlinable
    public func route<Leaf: Sendable>(_ intent: Leaf) -> Intent? {
        if let own = intent as? Intent { return own }
        if let inner = first.route(intent) { return .first(inner) }
        return second.route(intent).map(Either.second)
    }

    /// The first of the two flows with a phase of `Leaf`'s type, active at `phase`.
    @inlinable
    public func embed<Leaf: Sendable>(_ phase: Leaf) -> Phase? {
        if let own = phase as? Phase { return own }
        if let inner = first.embed(phase) { return .first(inner) }
        return second.embed(phase).map(Either.second)
    }

    /// Whether the active flow's account awaits approval.
    @inlinable
    public func awaitsApproval(_ phase: Phase) -> Bool {
        switch phase {
        case .first(let inner): first.awaitsApproval(inner)
        case .second(let inner): second.awaitsApproval(inner)
        }
    }

    /// The active flow's grant.
    @inlinable
    public func handover(_ phase: Phase) -> Grant? {
        switch phase {
        case .first(let inner): first.handover(inner)
        case .second(let inner): second.handover(inner)
        }
    }

    /// Routes intents to their flow (switching if needed: the abandoned flow's waiting intent is
    /// finished as superseded and its timers are cancelled) and everything else to the active flow.
    ///
    /// Inlinable, as are the other combinators' reducers: a module that explores a concrete nest
    /// of combinators then specializes the whole reducer instead of walking generic metadata at
    /// every level on every event.
    @inlinable
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        // The active flow's phase is taken out of `phase` (consumed) while it steps, then put
        // back: left in `phase` as well, it would be shared, and a flow that changes part of it
        // in place would copy that part first.
        switch event {
        case .intent(.first(let intent), let id, let now):
            var inner: First.Phase
            var abandoned: [AuthEffect] = []
            if case .first(let current) = consume phase {
                inner = current
            } else {
                inner = first.initialPhase
                // Signed out, every waiter is the active flow's; the flow left is gone, its timers too.
                abandoned = requests.finishAll(.superseded) + second.timers.map(AuthEffect.cancelTimer)
            }
            defer { phase = .first(inner) }
            let effects = first.step(&inner, .intent(intent, id: id, at: now), &requests)
            // Mostly nothing is abandoned: the effects go up as they are, not copied into a new
            // array at every level of a nest.
            return abandoned.isEmpty ? effects : abandoned + effects
        case .intent(.second(let intent), let id, let now):
            var inner: Second.Phase
            var abandoned: [AuthEffect] = []
            if case .second(let current) = consume phase {
                inner = current
            } else {
                inner = second.initialPhase
                // Signed out, every waiter is the active flow's; the flow left is gone, its timers too.
                abandoned = requests.finishAll(.superseded) + first.timers.map(AuthEffect.cancelTimer)
            }
            defer { phase = .second(inner) }
            let effects = second.step(&inner, .intent(intent, id: id, at: now), &requests)
            return abandoned.isEmpty ? effects : abandoned + effects
        case .withdrawn(let intent, let at):
            switch consume phase {
            case .first(var inner):
                defer { phase = .first(inner) }
                return first.step(&inner, .withdrawn(intent, at: at), &requests)
            case .second(var inner):
                defer { phase = .second(inner) }
                return second.step(&inner, .withdrawn(intent, at: at), &requests)
            }
        case .reply(let id, let reply, let at):
            switch consume phase {
            case .first(var inner):
                defer { phase = .first(inner) }
                return first.step(&inner, .reply(id, reply, at: at), &requests)
            case .second(var inner):
                defer { phase = .second(inner) }
                return second.step(&inner, .reply(id, reply, at: at), &requests)
            }
        case .tick(let now):
            switch consume phase {
            case .first(var inner):
                defer { phase = .first(inner) }
                return first.step(&inner, .tick(now), &requests)
            case .second(var inner):
                defer { phase = .second(inner) }
                return second.step(&inner, .tick(now), &requests)
            }
        case .launched(let stored, let owed, let at):
            switch consume phase {
            case .first(var inner):
                defer { phase = .first(inner) }
                return first.step(&inner, .launched(stored, owed: owed, at: at), &requests)
            case .second(var inner):
                defer { phase = .second(inner) }
                return second.step(&inner, .launched(stored, owed: owed, at: at), &requests)
            }
        }
    }
}

extension Either: CustomStringConvertible {
    /// The side, then the value inside as it describes itself: `first(begin(provider: "google"))`
    /// rather than the default's module-qualified `AuthCore.Either<…>.first(…)` of every level.
    public var description: String {
        switch self {
        case .first(let value): "first(\(value))"
        case .second(let value): "second(\(value))"
        }
    }
}

extension Either: CaseListing where First: CaseListing, Second: CaseListing {
    /// `first` and `second`.
    public static var declaredCases: [String] { ["first", "second"] }
}

extension Either: LifecyclePhase where First: LifecyclePhase, Second: LifecyclePhase {}
