import AuthCore
import AuthSupport
import AuthVerification

/// The models the bench builds itself, from the verification kit's public API only: the session
/// with more concurrent callers (a large state space), a model that records the events its random
/// walks feed the reducer, and a session with a planted bug.
enum BenchModels {
    /// The session machine the shipped `session.everday` model explores: a password sign-in door
    /// handing over to the rotating-refresh session.
    typealias SessionApp = Handover<PasswordSignIn, SessionLifecycle>
    /// The machine of ``fiveFlowApp``.
    typealias FiveFlowApp = Handover<OneOf<Registration, OneOf<PasswordSignIn, PasswordReset>>, SessionLifecycle>

    /// `session.everday` with `callers` concurrent protected callers (the shipped model has two)
    /// and room in flight for all of them plus a refresh and a revoke.
    static func callers(_ callers: Int) -> CallersModel {
        CallersModel(base: Models.session(.everday), callers: callers)
    }

    /// A user's own composition of five flows, as an app declares it and the README's "Verifying
    /// your own composition" checks it: registration and sign-in by email and password, a reset
    /// by emailed code that signs in, a session that refreshes with rotation (backing off on a
    /// 15-second grid, as the shipped models do) and revokes at logout. No shipped app composes
    /// these five.
    static let fiveFlowApp: FiveFlowApp = Handover(
        entry: OneOf(
            Registration(forms: [.emailPassword]),
            OneOf(PasswordSignIn(identifiers: .email), PasswordReset(style: .emailCodeWithAutoLogin))),
        session: SessionLifecycle(
            policy: SessionPolicy(
                refresh: .rotating(margin: .seconds(60), retryLimit: 2, backoff: .seconds(15)), restore: .fetchCurrentUser,
                revokesOnLogout: true)))

    /// ``fiveFlowApp``'s model, derived with `Model(of:)`'s defaults (every documented failure
    /// class) at `inFlight` requests in flight and `stale` answers left over.
    static func fiveFlows(inFlight: Int, stale: Int) -> Model<FiveFlowApp> {
        Model(of: fiveFlowApp, name: "user.fiveFlows", maxInFlight: inFlight, maxStale: stale)
    }

    /// ``fiveFlowApp``'s model as the README's verification executable checks it (`swift package
    /// verify`): at 4 requests in flight and 2 answers left over, against a server that fails with
    /// a refusal or no network.
    static func fiveFlowsAsVerified() -> Model<FiveFlowApp> {
        Model(of: fiveFlowApp, name: "user.fiveFlows.twoFailures", maxInFlight: 4, maxStale: 2) { $0.failures = [.unauthorized(nil), .network] }
    }

    /// The shipped session model with a session that forgets to persist a rotated pair.
    static func plantedBug() -> Model<Handover<PasswordSignIn, PersistDroppingSession>> {
        let shipped = Models.session(.everday)
        let machine = Handover(entry: shipped.machine.entry, session: PersistDroppingSession(inner: shipped.machine.session))
        return Model(
            name: "session.everday+dropped-persist", machine: machine, replies: shipped.replies, relaunches: shipped.relaunches,
            finalCases: shipped.finalCases, unreachableByDesign: shipped.unreachableByDesign, codes: shipped.codeRules,
            timeHorizon: shipped.timeHorizon, maxInFlight: shipped.maxInFlight, maxStale: shipped.maxStale
        ) { snapshot in
            [.entry(.submit(identifier: Inputs.username, password: Inputs.password)), .entry(.startOver)]
                + Menus.session(in: snapshot, callers: 2).map { .session($0) }
        }
    }
}

/// A model that explores its base's world with a change or two: every requirement it does not
/// set itself is the base's.
protocol ForwardingModel: LifecycleModel {
    /// The model it changes.
    associatedtype Base: LifecycleModel where Base.Machine == Machine
    /// The model it changes.
    var base: Base { get }
}

extension ForwardingModel {
    var name: String { base.name }
    var machine: Machine { base.machine }
    var replies: ReplyCatalogue { base.replies }
    var relaunches: Bool { base.relaunches }
    var initialWorld: World<Machine> { base.initialWorld }
    var finalCases: [String] { base.finalCases }
    var unreachableByDesign: [String: String] { base.unreachableByDesign }
    var maxInFlight: Int { base.maxInFlight }
    var maxStale: Int { base.maxStale }
    var timeHorizon: Interval { base.timeHorizon }
    var historyHorizon: Interval { base.historyHorizon }
    var invariants: [Invariant<Machine>] { base.invariants }
    var codeRules: CodeRules? { base.codeRules }
    var endsServerSessions: Bool { base.endsServerSessions }
    func intents(in snapshot: Snapshot<Machine>) -> [Machine.Intent] { base.intents(in: snapshot) }
}

/// `session.everday` with a chosen number of concurrent protected callers: the explorer's cost
/// grows with them (every order of every caller's answers is a path), which is how the bench gets
/// a space of a million states and more from a shipped lifecycle.
struct CallersModel: ForwardingModel {
    typealias Machine = BenchModels.SessionApp

    let base: Model<Machine>
    let callers: Int

    var name: String { "session.everday×\(callers) callers" }
    /// Every caller, a refresh and a revoke (the shipped bound is kept for two callers).
    var maxInFlight: Int { max(base.maxInFlight, callers + 2) }

    func intents(in snapshot: Snapshot<Machine>) -> [Machine.Intent] {
        [.entry(.submit(identifier: Inputs.username, password: Inputs.password)), .entry(.startOver)]
            + Menus.session(in: snapshot, callers: callers).map { .session($0) }
    }
}

/// A model whose only invariant shows every transition stepped to `observe` and never reports
/// anything: how the bench sees what the fuzzer's walks (through the environment: answers to
/// requests in flight, timers, relaunches) or an exploration feed the reducer, to replay it
/// through `reduce` alone. The states explored are the base's; its own checks are left out.
struct ObservingModel<Base: LifecycleModel>: ForwardingModel {
    typealias Machine = Base.Machine

    let base: Base
    let observe: @Sendable (Transition<Machine>) -> Void

    var invariants: [Invariant<Machine>] {
        let observe = observe
        return [
            Invariant(
                "observes every transition", source: "authflow bench",
                .step { transition in
                    observe(transition)
                    return nil
                })
        ]
    }
}

extension Transition {
    /// The state `reduce` steps from for this transition: the state before it, except at a
    /// relaunch, where the environment restarts the app from the lifecycle's `initial` state.
    func reduceStart(initial: Machine.State) -> Machine.State {
        if case .relaunch = move.choice { return initial }
        return before.world.state
    }
}

/// A run of events that `reduce` applies one after the other from `start`.
struct EventSegment<Machine: Lifecycle>: Sendable {
    var start: Machine.State
    var events: [Machine.Event]
}

/// Collects the transitions of random walks into segments of consecutive events: a new segment
/// starts where a walk starts, and at a relaunch (the environment restarts the app from the
/// lifecycle's initial state).
final class EventRecorder<Machine: Lifecycle>: @unchecked Sendable {
    // Safe: the bench fuzzes it on one thread (`threads: 1`); `lock` guards every access anyway.
    private let lock = Locked(())
    private let initial: Machine.State
    private var current: Machine.State?
    private(set) var segments: [EventSegment<Machine>] = []

    init(initial: Machine.State) { self.initial = initial }

    func record(_ transition: Transition<Machine>) {
        lock.withLock { _ in
            let start = transition.reduceStart(initial: initial)
            if current != start || segments.isEmpty {
                segments.append(EventSegment(start: start, events: []))
            }
            segments[segments.count - 1].events.append(transition.move.event)
            current = transition.after.world.state
        }
    }

    /// Events recorded so far.
    var events: Int { lock.withLock { _ in segments.reduce(0) { $0 + $1.events.count } } }
}

/// Keeps the transitions an exploration steps from every `stride`-th state it expands, each as a
/// one-event segment (the state before it and its event): what `reduce` alone costs on the
/// exploration's own mix of transitions. Whole states are kept, not every `stride`-th
/// transition, so a replay meets the state before a transition warm after its first, as the
/// explorer does when it steps every move of one state in a row. It counts states as their moves
/// arrive, so it observes an exploration on one thread (`ExplorationLimits(threads: 1)`).
///
/// Time passing to a deadline (a `wait` move) reaches no reducer (the environment moves the
/// world's clock and nothing else), so it is counted but never kept: ``reducingShare`` is the
/// share of the transitions shown that do call `reduce`, by which a figure that multiplies
/// `reduce`'s time a transition by an exploration's transitions scales them.
final class TransitionSampler<Machine: Lifecycle>: @unchecked Sendable {
    // Safe: the explorer steps on one thread; `lock` guards every access anyway.
    private let lock = Locked(())
    private let initial: Machine.State
    private let stride: Int
    private var from: Machine.State?
    private var shown = 0
    private var waits = 0
    private var states = 0
    private var kept: [EventSegment<Machine>] = []
    private var keptStates: [Int] = []

    init(initial: Machine.State, stride: Int) {
        self.initial = initial
        self.stride = max(1, stride)
    }

    func record(_ transition: Transition<Machine>) {
        lock.withLock { _ in
            shown += 1
            if case .wait = transition.move.choice {
                waits += 1
                return
            }
            // The explorer steps every move of one state in a row: a new state before begins the
            // next expanded state's run (two expanded states in a row with equal reducer states,
            // their worlds differing, count as one).
            let before = transition.before.world.state
            if before != from {
                from = before
                states += 1
            }
            guard (states - 1) % stride == 0 else { return }
            kept.append(EventSegment(start: transition.reduceStart(initial: initial), events: [transition.move.event]))
            keptStates.append(states - 1)
        }
    }

    /// Transitions shown so far, kept or not.
    var transitions: Int { lock.withLock { _ in shown } }
    /// The share of the transitions shown that reach `reduce` (all but the waits); 1 before any.
    var reducingShare: Double { lock.withLock { _ in shown > 0 ? Double(shown - waits) / Double(shown) : 1 } }
    /// The transitions kept, in the order shown.
    var segments: [EventSegment<Machine>] { lock.withLock { _ in kept } }
    /// For each kept transition, the index of the expanded state it was stepped from.
    var expandedStates: [Int] { lock.withLock { _ in keptStates } }
}

/// The planted bug: a rotating-refresh session that drops the `persist` of a refreshed pair, so
/// the new access token is used while the vault still holds the old one (or none). The catalogue's
/// "a new token is persisted before it is used" and "the session and the vault agree" must catch it.
struct PersistDroppingSession: SessionRole, SignedOutCases {
    typealias Phase = SessionLifecycle.Phase
    typealias Intent = SessionLifecycle.Intent

    let inner: SessionLifecycle

    var initialPhase: Phase { inner.initialPhase }
    var signedOutPhase: Phase { inner.signedOutPhase }
    var signedOutCases: [String] { inner.signedOutCases }

    func isSignedOut(_ phase: Phase) -> Bool { inner.isSignedOut(phase) }

    func begin(_ grant: Grant, at now: Instant, _ requests: inout FlowContext) -> (Phase, [AuthEffect]) {
        inner.begin(grant, at: now, &requests)
    }

    func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        let effects = inner.step(&phase, event, &requests)
        guard case .reply(_, .refreshed, _) = event else { return effects }
        return effects.filter { effect in
            if case .persist = effect { return false }
            return true
        }
    }
}
