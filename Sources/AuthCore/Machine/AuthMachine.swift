/// One auth lifecycle as a pure reducer: configuration as data, explicit states and events,
/// effects returned as data.
///
/// The same value, state and event always give the same next state and effects: no clock, no
/// randomness, no I/O. That is what lets the verification kit explore every reachable state.
public protocol AuthMachine: Sendable {
    /// Where the user is.
    associatedtype State: Hashable & Sendable
    /// What can happen.
    associatedtype Event: Hashable & Sendable
    /// What the reducer asks the runner to do.
    associatedtype Effect: Hashable & Sendable
    /// The state before anything happened.
    var initial: State { get }
    /// Applies `event` to `state` and returns the work to do.
    func reduce(_ state: inout State, _ event: Event) -> [Effect]
}

/// A lifecycle's state: where the user is (`phase`), and what its flows share (`context`: the
/// counter that names requests, the code cooldowns learned from the server).
public struct LifecycleState<Phase: LifecyclePhase>: Hashable, Sendable, CustomStringConvertible {
    /// Where the user is.
    public var phase: Phase
    /// What every flow of the composition shares.
    public var context: FlowContext

    /// Creates a state.
    public init(phase: Phase, context: FlowContext = FlowContext()) {
        self.phase = phase
        self.context = context
    }

    /// The phase.
    public var description: String { "\(phase)" }
}

extension LifecycleState {
    /// Equal phases and contexts. Written out and inlinable (as for ``Either``) so that a module
    /// using a concrete state specializes the comparison of its whole phase.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.phase == rhs.phase && lhs.context == rhs.context }

    /// The phase, then the context.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(phase)
        hasher.combine(context)
    }
}

/// An ``AuthMachine`` in AuthCore's shared vocabulary: events are ``AuthEvent``s over the
/// lifecycle's own intents, effects are ``AuthEffect``s, and the state is a phase plus a request
/// counter, so lifecycles compose (a combinator threads one counter through all of them) and the
/// verification kit drives any of them through the same environment model.
public protocol Lifecycle: AuthMachine
where State == LifecycleState<Phase>, Event == AuthEvent<Intent>, Effect == AuthEffect {
    /// Where the user is, as an enum whose every case says what is true in it.
    associatedtype Phase: LifecyclePhase
    /// What the user can ask for in this lifecycle.
    associatedtype Intent: CaseListing
    /// The phase before anything happened.
    var initialPhase: Phase { get }
    /// The reducer proper: applies `event` to `phase`, naming new requests from `requests`.
    func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect]
    /// This lifecycle's intent for `intent`, which is an intent of this lifecycle or of a flow
    /// composed into it (`PasswordSignIn.Intent.submit(…)` sent to a whole app): the combinators
    /// find the flow whose `Intent` type it is, the first in composition order, so no caller
    /// spells a composition's nesting and inserting a flow changes no caller. `nil` when no flow
    /// of this lifecycle takes it.
    func route<Leaf: Sendable>(_ intent: Leaf) -> Intent?
    /// This lifecycle's phase in which the flow whose `Phase` type is `Leaf` is active and at
    /// `phase` — the phase counterpart of ``route(_:)``, for tests and tools that start a
    /// composition somewhere without spelling its nesting. `nil` when no flow has that type.
    func embed<Leaf: Sendable>(_ phase: Leaf) -> Phase?
    /// The timers this lifecycle schedules. A combinator that ends the lifecycle while its timers
    /// may still be pending (``OneOf``, when the user leaves the flow for another) cancels them,
    /// so no wake-up of a flow that is gone reaches the one that replaced it.
    var timers: [TimerID] { get }
}

extension Lifecycle {
    /// `intent` itself when it is one of this lifecycle's intents (a lifecycle composed of none).
    @inlinable
    public func route<Leaf: Sendable>(_ intent: Leaf) -> Intent? { intent as? Intent }

    /// `phase` itself when it is one of this lifecycle's phases (a lifecycle composed of none).
    @inlinable
    public func embed<Leaf: Sendable>(_ phase: Leaf) -> Phase? { phase as? Phase }

    /// None: a lifecycle that schedules no timer (a lifecycle that does lists them).
    @inlinable
    public var timers: [TimerID] { [] }

    /// `initialPhase` with a fresh request counter.
    @inlinable
    public var initial: State { LifecycleState(phase: initialPhase) }

    /// Steps the phase with the state's own request counter.
    ///
    /// A server's 429 with `Retry-After` to a request the user asked for holds for every request to
    /// that endpoint until its time, whichever flow sends it: such a request does not leave; its
    /// flow gets the server's answer at once (429, with the time left), as if it had been sent and
    /// refused again, and an intent the flow finishes with that answer is finished as refused
    /// before any request (`rejected(rateLimited(until:))`, the server's time), not as failed. (A flow that answered a 429 by sending once more would be told so again;
    /// after four rounds the request is let through rather than loop.) The session's own requests
    /// keep their own rules: a refresh waits for `Retry-After` (``SessionLifecycle``), a
    /// background sign-out stops at a 429 and reports it. A session beginning forgets every wait
    /// (``FlowContext/forgetAllServerWaits()``). Inlinable, so that a caller with a concrete
    /// lifecycle specializes it.
    @inlinable
    public func reduce(_ state: inout State, _ event: Event) -> [AuthEffect] {
        let now = event.instant
        if !state.context.codeCooldowns.isEmpty { state.context.forgetCooldowns(endedBy: now) }
        if !state.context.serverWaits.isEmpty { state.context.forgetServerWaits(endedBy: now) }
        var effects: [AuthEffect] = []
        if case .reply(let id, .failed(.rateLimited(let retryAfter?)), _) = event {
            state.context.rateLimited(id, until: now + retryAfter)
        }
        var pending = step(&state.phase, event, &state.context)
        var rounds = 0
        while !pending.isEmpty {
            var refused: [(id: RequestID, until: Instant)] = []
            for effect in pending {
                switch effect {
                case .send(let id, let request):
                    guard let endpoint = request.endpoint else { continue }
                    if rounds < 4, let until = state.context.serverWait(for: endpoint, at: now) {
                        refused.append((id, until))
                    } else {
                        state.context.sending(id, to: endpoint)
                    }
                case .schedule, .cancel, .cancelTimer, .persist, .clearCredentials, .emit, .finish, .closeRealtime, .persistOwedRevocations:
                    continue  // Only a request is held back: a new effect that sends one must say so here.
                }
            }
            if !refused.isEmpty {
                pending.removeAll { effect in
                    guard case .send(let id, _) = effect else { return false }
                    return refused.contains { $0.id == id }
                }
            }
            // Mostly one round with nothing held back: the step's own array is the answer, not a copy.
            if effects.isEmpty { effects = pending } else { effects += pending }
            pending = refused.flatMap { id, until in
                step(&state.phase, .reply(id, .failed(.rateLimited(retryAfter: until - now)), at: now), &state.context).map { effect in
                    // Nothing left: the intent was refused before any request, at the server's time.
                    guard case .finish(let intent, .failed(.rateLimited(let retryAfter?))) = effect else { return effect }
                    return .finish(intent, .rejected(.rateLimited(until: now + retryAfter)))
                }
            }
            rounds += 1
        }
        return effects
    }
}

/// A signed-out flow that can end in a session (sign-in, registration, reset with auto-login).
public protocol EntryFlow: Lifecycle {
    /// The grant to hand over to the session, when `phase` is the flow's signed-in end.
    func handover(_ phase: Phase) -> Grant?
    /// Whether `phase` says the account awaits a parent's approval (Everday): what the app shows
    /// while nobody is signed in.
    func awaitsApproval(_ phase: Phase) -> Bool
}

extension EntryFlow {
    /// No approval gate in this flow.
    @inlinable
    public func awaitsApproval(_ phase: Phase) -> Bool { false }
}

/// A lifecycle's phase type: an enum (or a product of phases) whose case names the verification
/// kit and the diagrams use.
///
/// `declaredCases` lists every case by name. The explorer checks both directions: every declared
/// case is reachable, and no reached case is missing from the list.
public protocol LifecyclePhase: CaseListing {}

/// A type that lists its cases by name (phases and intents), for exploration coverage and diagrams.
public protocol CaseListing: Hashable, Sendable {
    /// Every case, by name.
    static var declaredCases: [String] { get }
}
