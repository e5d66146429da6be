import AuthCore
import AuthSupport

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, repeatable generator. The same seed gives
/// the same numbers on every platform, so a fuzz failure is one command away from being replayed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// A generator from `seed`.
    @inlinable public init(seed: UInt64) { self.state = seed }

    /// The next 64 random bits.
    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (Lemire's method, unbiased).
    @inlinable public mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}

/// How much to fuzz.
public struct FuzzConfiguration: Hashable, Sendable {
    /// The first run's seed; run `n` uses a seed derived from it.
    public var seed: UInt64
    /// How many walks.
    public var runs: Int
    /// Events per walk.
    public var length: Int
    /// Whether walks follow transitions this session already stepped and checked instead of
    /// stepping and checking them again (see ``Fuzzer``); the walks are the same either way. Off,
    /// every event is stepped and checked afresh, many times slower: for timing a step (the
    /// bench), or for an observer that must see every step.
    public var reusesCheckedTransitions: Bool
    /// How many threads walk (at least 1; by default 1). Walk `n` runs on thread `n` modulo
    /// their number, and the report's walks, events and failure do not depend on it: each walk is
    /// a function of its seed, and the first failing walk in run order is the one reported. Only
    /// ``FuzzReport/freshEvents`` does, when transitions are reused: each thread keeps the
    /// transitions it checked.
    ///
    /// More threads pay when every event is stepped afresh (``reusesCheckedTransitions`` off):
    /// two walked app.hero365 about 1.6–1.8 times as fast as one on a 2-core machine. With reuse (the
    /// default) one is fastest, since each thread steps afresh what another already checked:
    /// session.everday's default session ran 1.35 M events/s on one thread, 1.12 M on two.
    public var threads: Int

    /// Creates a configuration.
    @inlinable public init(
        seed: UInt64 = 0xA17C_0DE5, runs: Int = 200, length: Int = 400, reusesCheckedTransitions: Bool = true, threads: Int = 1
    ) {
        self.seed = seed
        self.runs = runs
        self.length = length
        self.reusesCheckedTransitions = reusesCheckedTransitions
        self.threads = max(1, threads)
    }

    /// The seed of run `n`: the run number is spread over all 64 bits before mixing, so run `n`
    /// of seed `s` is not run `0` of seed `s + n` (neighbouring seeds would repeat each other).
    @inlinable public func seed(ofRun n: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15))
        return mixer.next()
    }
}

/// A fuzz failure: the run's seed, the shrunk choices and the trace they give.
public struct FuzzFailure: Hashable, Sendable, CustomStringConvertible {
    /// The seed of the failing run (`authflow replay <model> --seed <seed>` reproduces it).
    public var seed: UInt64
    /// How many events the walk took before the violation.
    public var originalLength: Int
    /// The violation, with the shrunk trace.
    public var violation: Violation
    /// The shrunk choices.
    public var choices: [Choice]

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(seed: UInt64, originalLength: Int, violation: Violation, choices: [Choice]) {
        self.seed = seed
        self.originalLength = originalLength
        self.violation = violation
        self.choices = choices
    }

    /// A readable report with the seed.
    @inlinable public var description: String {
        "seed \(seed): \(originalLength) events shrunk to \(violation.trace.count)\n\(violation)"
    }
}

/// One walk of a fuzzing session, replayed from its seed: each step (its event redacted) and the
/// violation it ends with, if any.
public struct FuzzWalk: Hashable, Sendable {
    /// The walk's seed.
    public var seed: UInt64
    /// Every step taken, in order; the last is the one that broke ``violation`` when there is one.
    public var steps: [TraceStep]
    /// The invariant the walk broke, unshrunk (its trace is where the check failed).
    public var violation: Violation?

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(seed: UInt64, steps: [TraceStep], violation: Violation?) {
        self.seed = seed
        self.steps = steps
        self.violation = violation
    }
}

/// What a fuzzing session found.
public struct FuzzReport: Sendable {
    /// The model's name.
    public var model: String
    /// Walks run.
    public var runs: Int
    /// Events applied, each checked: by the step invariants, and, when it leads to a world its
    /// thread had not met before in the session (a new fingerprint), by the state invariants. An
    /// event whose transition its thread had already checked (the same move from the same world
    /// up to renaming) is checked by that earlier check (see ``Fuzzer``).
    public var events: Int
    /// The events stepped and checked afresh: the rest followed a transition checked before.
    /// The one figure that depends on ``FuzzConfiguration/threads``: each thread keeps the
    /// transitions it checked.
    public var freshEvents: Int
    /// Wall time.
    public var seconds: Double
    /// The first failure, shrunk.
    public var failure: FuzzFailure?

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(model: String, runs: Int, events: Int, freshEvents: Int, seconds: Double, failure: FuzzFailure?) {
        self.model = model
        self.runs = runs
        self.events = events
        self.freshEvents = freshEvents
        self.seconds = seconds
        self.failure = failure
    }

    /// Checked events per second.
    @inlinable public var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
    /// The share of events that followed a transition checked before (0 when none did).
    @inlinable public var reusedShare: Double { events > 0 ? Double(events - freshEvents) / Double(events) : 0 }
}

/// Seeded random walks over a model's worlds, checking every invariant at every step, shrinking
/// any failing walk to a minimal list of choices. A state invariant is checked at each world not
/// met before in the session (by the thread walking: see ``FuzzConfiguration/threads``): at a
/// world met again (one fingerprint, so the same world up to
/// renaming) it holds as it held then, which is the explorer's argument for checking each
/// distinct state once.
///
/// The same argument holds for steps: the explorer checks each move from each distinct world
/// once, because a pure reducer makes the same move from the same world (up to renaming) lead to
/// the same world with the same effects, so the step invariants give the same verdicts. A fuzzing
/// session therefore keeps the transitions it has stepped and checked, between worlds up to
/// renaming (`CheckedTransitions`); a walk that takes one again follows it without stepping or
/// checking it again. Walks come back to the same moves often (the first moves of every walk, a
/// retry loop, a refresh cycle), and following a checked transition costs a lookup where a step
/// and its checks cost microseconds. The walks are the same: the menu of a world, and so the
/// choice a random number picks, is the same at every world with its fingerprint (the explorer's
/// traces, replayed from the initial world, rely on it too), and a test compares fuzz sessions
/// with and without reuse choice by choice. ``FuzzReport/freshEvents`` counts the events stepped
/// afresh. Each thread keeps at most ``reuseCapacity`` worlds; past it, its walks step afresh.
/// Its fingerprints are taken without the explorer's symmetry reduction (``Reduction/plain``): a
/// checked transition is found by its world's fingerprint and the choice's position, and the
/// n-th request in flight is the same request only in worlds equal up to renaming.
///
/// Both arguments rest on the model's contract (one menu per fingerprint) and on invariants that
/// are functions of what they are shown. A failing walk is therefore walked again afresh from its
/// seed, as `replay` does, before it is shrunk; one that does not fail again is reported as a
/// ``brokenContractName`` failure with its seed and choices, never shrunk towards another walk.
public enum Fuzzer {
    // `@inlinable`, like the explorer: a model from another module fuzzes specialized for its types.
    // Measured on the bench's planted bug (a model built in AuthflowKit): replay + shrink of the
    // failing walk 12 ms with it, 18 ms without (+50 %).

    /// Worlds each thread of a fuzzing session keeps with their checked transitions (each with its
    /// snapshot, its menu's shape and one entry per move): past this, moves to worlds it does not
    /// hold are stepped afresh. A 20-million-event session of app.anonymousWall on one thread
    /// stayed under 41 MiB.
    public static let reuseCapacity = 200_000

    /// Fuzzes `model`; stops at the first failure, which it shrinks.
    @inlinable public static func fuzz<Model: LifecycleModel>(_ model: Model, _ configuration: FuzzConfiguration) -> FuzzReport {
        fuzz(model, configuration, walked: nil)
    }

    /// ``fuzz(_:_:)``, showing `walked` each walk's choices (before any shrinking), in run order.
    @inlinable static func fuzz<Model: LifecycleModel>(
        _ model: Model, _ configuration: FuzzConfiguration, walked: (([Choice]) -> Void)?
    ) -> FuzzReport {
        let clock = ContinuousClock()
        let start = clock.now
        let environment = walkingEnvironment(model)
        let walks = self.walks(environment, configuration, keepingChoices: walked != nil)
        var events = 0
        var fresh = 0
        for (run, walk) in walks.enumerated() {
            let seed = configuration.seed(ofRun: run)
            events += walk.events
            fresh += walk.fresh
            walked?(walk.choices)
            if let violation = walk.violation {
                let failure: FuzzFailure
                if violation.invariant == brokenContractName {
                    failure = FuzzFailure(seed: seed, originalLength: walk.choices.count, violation: violation, choices: walk.choices)
                } else if configuration.reusesCheckedTransitions, !walksAlike(environment, seed: seed, length: configuration.length, as: walk.choices)
                {
                    failure = brokenContract(
                        environment, seed: seed, walk.choices, violation, "the same seed walked afresh (as `replay` does) takes other moves")
                } else if let shrunk = shrink(environment, walk.choices, invariant: violation.invariant) {
                    failure = FuzzFailure(seed: seed, originalLength: walk.choices.count, violation: shrunk.violation, choices: shrunk.choices)
                } else {
                    failure = brokenContract(environment, seed: seed, walk.choices, violation, "its moves replayed afresh do not break it again")
                }
                return FuzzReport(
                    model: model.name, runs: run + 1, events: events, freshEvents: fresh, seconds: elapsed(clock, start), failure: failure)
            }
        }
        return FuzzReport(
            model: model.name, runs: configuration.runs, events: events, freshEvents: fresh, seconds: elapsed(clock, start), failure: nil)
    }

    /// One walk's outcome, as a thread walked it: its choices (kept when asked for, and always
    /// for a failing walk), how many, how many stepped afresh, and its violation.
    @usableFromInline struct Walked: Sendable {
        @usableFromInline var choices: [Choice]
        @usableFromInline var events: Int
        @usableFromInline var fresh: Int
        @usableFromInline var violation: Violation?

        /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
        @inlinable init(choices: [Choice], events: Int, fresh: Int, violation: Violation?) {
            self.choices = choices
            self.events = events
            self.fresh = fresh
            self.violation = violation
        }
    }

    /// The session's walks, in run order, up to the first that fails: walk `n` on thread `n`
    /// modulo ``FuzzConfiguration/threads``, each thread with its own worlds held and transitions
    /// checked.
    ///
    /// Why this is the list one thread makes: a walk's choices and violation are functions of its
    /// seed (a state invariant skipped at a world held is one that held there; a transition
    /// followed is one that was checked), so only which walks run can differ. A thread stops
    /// before a walk numbered past the first failure known; each takes its walks in increasing
    /// order, so every walk before the first failing one has run when all have stopped.
    ///
    /// The threads share the environment; its memos, event table and the invariants' leak
    /// scanners keep a part for each thread (see ``Worker``), so the threads rarely wait on a lock.
    @inlinable static func walks<Model: LifecycleModel>(
        _ environment: Environment<Model>, _ configuration: FuzzConfiguration, keepingChoices: Bool
    ) -> [Walked] {
        let runs = max(0, configuration.runs)
        let threads = min(configuration.threads, max(1, runs))
        let firstFailure = Locked(Int.max)
        let byThread = concurrentMap(threads, threads: threads) { thread -> [(run: Int, walk: Walked)] in
            var held = Set<Fingerprint>()
            let checked = configuration.reusesCheckedTransitions ? CheckedTransitions<Model>(capacity: reuseCapacity) : nil
            var walked: [(run: Int, walk: Walked)] = []
            for run in stride(from: thread, to: runs, by: threads) {
                guard run < firstFailure.withLock({ $0 }) else { break }
                let walk = self.walk(
                    environment, seed: configuration.seed(ofRun: run), length: configuration.length, held: &held, checked: checked)
                let kept = keepingChoices || walk.violation != nil ? walk.choices : []
                walked.append((run, Walked(choices: kept, events: walk.choices.count, fresh: walk.fresh, violation: walk.violation)))
                if walk.violation != nil {
                    firstFailure.withLock { $0 = min($0, run) }
                    break
                }
            }
            return walked
        }
        let last = firstFailure.withLock { $0 }
        var ordered = [Walked?](repeating: nil, count: min(runs, last == .max ? runs : last + 1))
        for (run, walk) in byThread.joined() where run < ordered.count { ordered[run] = walk }
        return ordered.compactMap { $0 }
    }

    /// Replays one run from its seed: the same walk, shrunk the same way. Every step is taken
    /// afresh (nothing is reused from the session that found it).
    @inlinable public static func replay<Model: LifecycleModel>(_ model: Model, seed: UInt64, length: Int) -> FuzzFailure? {
        let environment = walkingEnvironment(model)
        var held = Set<Fingerprint>()
        let walk = self.walk(environment, seed: seed, length: length, held: &held, checked: nil)
        guard let violation = walk.violation else { return nil }
        guard let shrunk = shrink(environment, walk.choices, invariant: violation.invariant) else {
            return brokenContract(environment, seed: seed, walk.choices, violation, "its moves replayed afresh do not break it again")
        }
        return FuzzFailure(seed: seed, originalLength: walk.choices.count, violation: shrunk.violation, choices: shrunk.choices)
    }

    /// One walk from `seed`, every event stepped afresh and checked, unshrunk: what
    /// `authflow replay` prints step by step, whether or not the walk breaks an invariant.
    @inlinable public static func walk<Model: LifecycleModel>(_ model: Model, seed: UInt64, length: Int) -> FuzzWalk {
        let environment = walkingEnvironment(model)
        var held = Set<Fingerprint>()
        let walk = self.walk(environment, seed: seed, length: max(0, length), held: &held, checked: nil)
        return FuzzWalk(seed: seed, steps: environment.trace(walk.choices), violation: walk.violation)
    }

    /// The bounds of a fuzz walk: up to 8 requests in flight and 4 answers left over (or the
    /// model's own bounds, when higher) — twice what the explorer closes the shipped models at,
    /// so that walks reach races the exhaustive search does not, while a world stays small enough
    /// to survey at every step.
    public static let walkBounds = (inFlight: 8, stale: 4)

    /// The name of the violation a fuzzing session reports when a failing walk does not fail
    /// again when stepped afresh (see `brokenContract(_:seed:_:_:_:)`).
    public static let brokenContractName = "a failing walk fails again when stepped afresh"
    @usableFromInline static let brokenContractSource = "LifecycleModel.intents(in:) contract; Invariant"
    @usableFromInline static let brokenContractCauses =
        "the model offers different moves at worlds with one fingerprint (intents(in:) must depend only on the snapshot's facts, "
        + "not on absolute times or state outside the world), or an invariant is not a function of the transition or state it is shown"

    /// Whether the walk from `seed`, every event stepped afresh with no state invariant skipped,
    /// takes exactly `choices`: true for a model that keeps ``LifecycleModel/intents(in:)``'s
    /// contract and invariants that are functions of what they are shown. A session that reuses
    /// checked transitions asks this of a failing walk before reporting it, so that the failure
    /// it reports is the one `replay` (which steps afresh) reproduces.
    @inlinable static func walksAlike<Model: LifecycleModel>(_ environment: Environment<Model>, seed: UInt64, length: Int, as choices: [Choice])
        -> Bool
    {
        var held = Set<Fingerprint>()
        return walk(environment, seed: seed, length: length, held: &held, checked: nil).choices == choices
    }

    /// What a session reports when a walk failed `violation` but cannot be reproduced (`why`):
    /// the model offers different moves at worlds with one fingerprint, or an invariant depends
    /// on more than what it is shown. Shrinking and replay would chase a different walk, so the
    /// walk is reported as found, with its seed and every choice, rather than trapping.
    @inlinable static func brokenContract<Model: LifecycleModel>(
        _ environment: Environment<Model>, seed: UInt64, _ choices: [Choice], _ violation: Violation, _ why: String
    ) -> FuzzFailure {
        let message =
            "the walk from seed 0x\(String(seed, radix: 16)) broke “\(violation.invariant)” after \(choices.count) events, but \(why): "
            + brokenContractCauses
        let reported = Violation(invariant: brokenContractName, source: brokenContractSource, message: message, trace: environment.trace(choices))
        return FuzzFailure(seed: seed, originalLength: choices.count, violation: reported, choices: choices)
    }

    /// The environment a walk steps through: bounds up to ``walkBounds``, and fingerprints taken
    /// without the symmetry reduction (see ``Fuzzer``: a checked transition is found by its
    /// world's fingerprint and the position of its choice).
    @inlinable static func walkingEnvironment<Model: LifecycleModel>(_ model: Model) -> Environment<Model> {
        Environment(model: model, walking: true, reduction: .plain)
    }

    /// Replays explicit choices; choices that do not apply are skipped.
    @inlinable public static func run<Model: LifecycleModel>(_ model: Model, choices: [Choice]) -> (violation: Violation?, applied: [Choice]) {
        let result = replay(walkingEnvironment(model), choices)
        return (result.violation, result.applied)
    }

    @inlinable static func elapsed(_ clock: ContinuousClock, _ start: ContinuousClock.Instant) -> Double {
        let duration = clock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Weighted choice: answers and timers come more often than user intents, relaunches rarely.
    @inlinable static func weight(_ choice: Choice) -> Int {
        switch choice {
        case .intent: 4
        case .reply: 6
        case .timer: 4
        case .relaunch: 1
        case .withdraw: 1
        case .wait: 1
        }
    }

    /// A weighted choice among `menu`'s moves (see ``weight(_:)``), in the order of its moves,
    /// without building them: the same random number picks the same move as a walk through the
    /// list of moves would. `nil` when nothing can happen.
    @inlinable static func pick<Model: LifecycleModel>(in menu: Environment<Model>.Menu, _ random: inout SplitMix64) -> Choice? {
        MenuShape(menu).pick(&random)?.choice
    }

    /// One walk; `held` holds the fingerprints of the worlds whose state invariants held (over
    /// every walk of a session), whose state invariants are not checked again; `checked`, when
    /// given, holds the transitions the session checked, which the walk follows without stepping.
    @inlinable static func walk<Model: LifecycleModel>(
        _ environment: Environment<Model>, seed: UInt64, length: Int, held: inout Set<Fingerprint>,
        checked: CheckedTransitions<Model>?
    ) -> (choices: [Choice], violation: Violation?, fresh: Int) {
        var random = SplitMix64(seed: seed)
        var snapshot = environment.initial
        var choices: [Choice] = []
        choices.reserveCapacity(length)
        var fresh = 0
        // The world the walk is at, when the session keeps it: then `snapshot` is stale.
        var node = checked?.node(of: snapshot, in: environment)
        while choices.count < length {
            let choice: Choice
            let menu: Environment<Model>.Menu
            if let checked, let at = node {
                guard let (picked, position) = checked.shapes[Int(at)].pick(&random) else { break }
                choices.append(picked)
                let next = checked.next[Int(at)][position]
                if next >= 0 {
                    node = next
                    continue
                }
                choice = picked
                snapshot = checked.snapshots[Int(at)]
                menu = checked.menu(of: at, in: environment)
            } else {
                menu = environment.menu(snapshot)
                guard let picked = MenuShape(menu).pick(&random)?.choice else { break }
                choices.append(picked)
                choice = picked
            }
            guard let chosen = menu.move(choice) else {
                // Only a model breaking intents(in:)'s contract gets here: a world the session
                // keeps, its menu read again, no longer offers a move its first reading did.
                let violation = Violation(
                    invariant: brokenContractName, source: brokenContractSource,
                    message: "a world met before no longer offers move \(choice) when its menu is read again: " + brokenContractCauses,
                    trace: environment.trace(choices))
                return (choices, violation, fresh)
            }
            fresh += 1
            let (after, violation) = check(environment, snapshot, chosen, held: &held)
            if var violation {
                violation.trace = environment.trace(choices)
                return (choices, violation, fresh)
            }
            if let checked {
                let target = checked.node(of: after, in: environment)
                if let from = node, let target { checked.next[Int(from)][checked.position(of: choice, in: from)] = target }
                node = target
            }
            snapshot = after
        }
        return (choices, nil, fresh)
    }

    /// Applies `move` and checks the invariants. State invariants see only worlds they have not
    /// held at before: the explorer's own argument, since worlds with one fingerprint are the same
    /// world up to renaming (see ``Survey``), and it checks each fingerprint's state invariants
    /// once too. A move that changed nothing leads back to the very snapshot whose state
    /// invariants held at the step before. Step invariants see every step.
    @inlinable static func check<Model: LifecycleModel>(
        _ environment: Environment<Model>, _ before: Snapshot<Model.Machine>, _ move: Move<Model.Machine>, held: inout Set<Fingerprint>
    ) -> (Snapshot<Model.Machine>, Violation?) {
        let transition = environment.step(move, from: before)
        let after = transition.after
        let checksState = after !== before && !held.contains(after.fingerprint)
        // The first invariant in the catalogue's order that fails, of either kind.
        var first = environment.stepChecks.firstFailure(on: transition)
        if checksState, let state = environment.stateChecks.firstFailure(on: after), state.0 < first?.0 ?? .max {
            first = state
        }
        if let (position, message) = first {
            let invariant = environment.invariants[position]
            return (after, Violation(invariant: invariant.name, source: invariant.source, message: message, trace: []))
        }
        // Only a world whose state invariants all held is remembered (a failing one ends the walk).
        if checksState { held.insert(after.fingerprint) }
        return (after, nil)
    }

    @inlinable static func replay<Model: LifecycleModel>(_ environment: Environment<Model>, _ choices: [Choice]) -> (
        violation: Violation?, applied: [Choice]
    ) {
        var snapshot = environment.initial
        var applied: [Choice] = []
        var held = Set<Fingerprint>()
        for choice in choices {
            guard let move = environment.move(choice, in: snapshot) else { continue }
            applied.append(choice)
            let (after, violation) = check(environment, snapshot, move, held: &held)
            if var violation {
                violation.trace = environment.trace(applied)
                return (violation, applied)
            }
            snapshot = after
        }
        return (nil, applied)
    }

    /// Delta debugging: drop chunks, then single choices, then simplify each choice to a smaller
    /// index (the first intent, the first answer), keeping a candidate only if it still breaks the
    /// same invariant.
    /// `nil` when `choices` replayed afresh do not break `invariant` (a model or invariant that
    /// breaks its contract; see ``brokenContract(_:seed:_:_:_:)``).
    @inlinable static func shrink<Model: LifecycleModel>(_ environment: Environment<Model>, _ choices: [Choice], invariant: String) -> (
        violation: Violation, choices: [Choice]
    )? {
        func attempt(_ candidate: [Choice]) -> (Violation, [Choice])? {
            let result = replay(environment, candidate)
            guard let violation = result.violation, violation.invariant == invariant else { return nil }
            return (violation, result.applied)
        }
        guard var (best, bestChoices) = attempt(choices) else { return nil }
        var chunk = max(bestChoices.count / 2, 1)
        while true {
            var start = 0
            var shrank = false
            while start < bestChoices.count {
                var candidate = bestChoices
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                if let (violation, applied) = attempt(candidate), applied.count < bestChoices.count {
                    (best, bestChoices) = (violation, applied)
                    shrank = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !shrank { break }
            chunk = shrank ? chunk : max(chunk / 2, 1)
        }
        // A simpler choice may make later ones inapplicable, so the list can get shorter here.
        var position = 0
        while position < bestChoices.count {
            for simpler in simplifications(of: bestChoices[position]) {
                var candidate = bestChoices
                candidate[position] = simpler
                if let (violation, applied) = attempt(candidate), applied.count <= bestChoices.count {
                    (best, bestChoices) = (violation, applied)
                    break
                }
            }
            position += 1
        }
        // Deleting and simplifying give a 1-minimal sequence, not always a shortest one (a
        // shorter sequence may need different choices). Finish with a breadth-first search of
        // every shorter sequence when that space is small: then the result is a shortest trace.
        if bestChoices.count > 1,
            let shorter = shortest(environment.model, invariant: invariant, below: bestChoices.count),
            let (violation, applied) = attempt(shorter), applied.count < bestChoices.count
        {
            (best, bestChoices) = (violation, applied)
        }
        return (best, bestChoices)
    }

    /// States the final breadth-first search may visit.
    @usableFromInline static let shortestSearchBound = 50_000

    /// The choices of a shortest trace breaking `invariant` with fewer than `length` events, if
    /// the explorer finds one within ``shortestSearchBound`` states.
    @inlinable static func shortest<Model: LifecycleModel>(_ model: Model, invariant: String, below length: Int) -> [Choice]? {
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: shortestSearchBound, maxDepth: length - 1))
        guard let violation = report.violations.first(where: { $0.invariant == invariant }), violation.trace.count < length else { return nil }
        return violation.trace.map(\.choice)
    }

    @inlinable static func simplifications(of choice: Choice) -> [Choice] {
        switch choice {
        case .intent(let n): (0..<n).map(Choice.intent)
        case .reply(let exchange, let reply): (0..<reply).map { Choice.reply(exchange: exchange, reply: $0) }
        case .timer(let n): (0..<n).map(Choice.timer)
        case .relaunch(let n): (0..<n).map(Choice.relaunch)
        case .withdraw(let n): (0..<n).map(Choice.withdraw)
        case .wait(let n): (0..<n).map(Choice.wait)
        }
    }
}

/// How many moves of each kind a world's menu offers: all a weighted pick needs.
@usableFromInline struct MenuShape {
    /// Intents offered.
    @usableFromInline let intents: Int
    /// Answers offered to each request in flight, in order.
    @usableFromInline let replies: [Int]
    /// Timers pending.
    @usableFromInline let timers: Int
    /// Relaunches offered.
    @usableFromInline let relaunches: Int
    /// Withdrawals offered.
    @usableFromInline let withdrawals: Int
    /// Deadlines time may pass to.
    @usableFromInline let waits: Int

    @inlinable init<Model: LifecycleModel>(_ menu: Environment<Model>.Menu) {
        self.intents = menu.intents.count
        self.replies = menu.answers.map { $0.replies.count }  // A closure: a key path here is instantiated at run time, per call.
        self.timers = menu.timers.count
        self.relaunches = menu.relaunches.count
        self.withdrawals = menu.withdrawals.count
        self.waits = menu.waits.count
    }

    /// Every move, in the menu's order.
    @inlinable var count: Int { intents + replies.reduce(0, +) + timers + relaunches + withdrawals + waits }

    /// The position of `choice` in the menu's list of moves.
    @inlinable func position(of choice: Choice) -> Int {
        switch choice {
        case .intent(let index): index
        case .reply(let exchange, let reply): intents + replies[..<exchange].reduce(0, +) + reply
        case .timer(let index): intents + replies.reduce(0, +) + index
        case .relaunch(let index): intents + replies.reduce(0, +) + timers + index
        case .withdraw(let index): intents + replies.reduce(0, +) + timers + relaunches + index
        case .wait(let index): intents + replies.reduce(0, +) + timers + relaunches + withdrawals + index
        }
    }

    /// A weighted choice (see ``Fuzzer/weight(_:)``) and its position in the list of moves;
    /// `nil` when nothing can happen.
    @inlinable func pick(_ random: inout SplitMix64) -> (choice: Choice, position: Int)? {
        let intent = Fuzzer.weight(.intent(0))
        let reply = Fuzzer.weight(.reply(exchange: 0, reply: 0))
        let timer = Fuzzer.weight(.timer(0))
        let relaunch = Fuzzer.weight(.relaunch(0))
        let withdrawal = Fuzzer.weight(.withdraw(0))
        let wait = Fuzzer.weight(.wait(0))
        let answers = replies.reduce(0, +)
        let total =
            intents * intent + answers * reply + timers * timer + relaunches * relaunch + withdrawals * withdrawal + waits * wait
        guard total > 0 else { return nil }
        var pick = random.below(total)
        if pick < intents * intent { return (.intent(pick / intent), pick / intent) }
        pick -= intents * intent
        var position = intents
        for (exchange, count) in replies.enumerated() {
            let span = count * reply
            if pick < span { return (.reply(exchange: exchange, reply: pick / reply), position + pick / reply) }
            pick -= span
            position += count
        }
        if pick < timers * timer { return (.timer(pick / timer), position + pick / timer) }
        pick -= timers * timer
        position += timers
        if pick < relaunches * relaunch { return (.relaunch(pick / relaunch), position + pick / relaunch) }
        pick -= relaunches * relaunch
        position += relaunches
        if pick < withdrawals * withdrawal { return (.withdraw(pick / withdrawal), position + pick / withdrawal) }
        pick -= withdrawals * withdrawal
        position += withdrawals
        return (.wait(pick / wait), position + pick / wait)
    }
}

/// The transitions a fuzzing session has stepped and checked, between its worlds up to renaming
/// (one per fingerprint, as the explorer keeps them): each world's snapshot, menu shape, and for
/// each of its moves the world it led to, once stepped and checked. Only transitions whose checks
/// all held are kept: a failing one ends the session.
///
/// It pays on every fuzzer bench row: 5.6× (app.anonymousWall) to 53× (passwordSignIn) the events
/// per second of stepping every event afresh (`authflow bench --quick`, best of 3).
@usableFromInline final class CheckedTransitions<Model: LifecycleModel> {
    /// Each world's snapshot (the first met with its fingerprint).
    @usableFromInline var snapshots: [Snapshot<Model.Machine>] = []
    /// Each world's menu shape.
    @usableFromInline var shapes: [MenuShape] = []
    /// For each world, by move position: the world the move leads to, or -1 while not stepped.
    @usableFromInline var next: [[Int32]] = []
    @usableFromInline var index: [Fingerprint: Int32] = [:]
    @usableFromInline let capacity: Int
    /// The menu built for the world kept last: a walk steps from a world it has just met, and
    /// would otherwise build that menu again.
    @usableFromInline var lastMenu: (node: Int32, menu: Environment<Model>.Menu)?

    @inlinable init(capacity: Int) { self.capacity = capacity }

    /// The world with `snapshot`'s fingerprint, kept now if it is new and there is room.
    @inlinable func node(of snapshot: Snapshot<Model.Machine>, in environment: Environment<Model>) -> Int32? {
        if let known = index[snapshot.fingerprint] { return known }
        guard snapshots.count < capacity else { return nil }
        let id = Int32(snapshots.count)
        let menu = environment.menu(snapshot)
        lastMenu = (id, menu)
        let shape = MenuShape(menu)
        index[snapshot.fingerprint] = id
        snapshots.append(snapshot)
        shapes.append(shape)
        next.append(Array(repeating: -1, count: shape.count))
        return id
    }

    /// World `node`'s menu.
    @inlinable func menu(of node: Int32, in environment: Environment<Model>) -> Environment<Model>.Menu {
        if let last = lastMenu, last.node == node { return last.menu }
        return environment.menu(snapshots[Int(node)])
    }

    /// The position of `choice` among world `node`'s moves.
    @inlinable func position(of choice: Choice, in node: Int32) -> Int { shapes[Int(node)].position(of: choice) }
}
