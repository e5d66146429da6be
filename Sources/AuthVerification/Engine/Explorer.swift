import AuthCore
import AuthSupport

/// Bounds that keep an exploration finite even when a model is not.
public struct ExplorationLimits: Hashable, Sendable {
    /// Stop after this many distinct states.
    public var maxStates: Int
    /// Do not expand states deeper than this.
    public var maxDepth: Int
    /// Explore on after a violation, to closure (or the other limits): every invariant's
    /// shortest violation and the structural checks. By default the explorer stops at the end of
    /// the breadth-first level where it found the first violation — every violation that short is
    /// reported — so a broken reducer whose space has no end is reported in seconds.
    public var keepGoing: Bool
    /// Which worlds are made one state beyond renaming (``Reduction``); `.plain` keeps the plain
    /// search (`--no-reduction`).
    public var reduction: Reduction
    /// Stop once the exploration has run this long (wall time), `nil` for no time limit: a test
    /// can bound a model it does not know the size of and still get a verdict
    /// (``ExplorationReport/verdict``: "not closed: explored N states to depth D").
    public var maxDuration: Duration?
    /// How many threads step each breadth-first level's moves (at least 1; by default one per
    /// core online). The report is the same whatever the number: what the threads find is taken
    /// in by one thread in the order a single thread meets it, so states are numbered, and
    /// violations and their shortest traces found, exactly as on one.
    public var threads: Int
    /// Whether every state and transition is checked against the model's invariants (the
    /// default). Off, the exploration only maps the state graph, which is all a diagram needs:
    /// `authflow diagrams` and the tests that compare `StateDiagrams/` with the code draw in about
    /// two thirds of the time, and the report claims no invariant (``ExplorationReport/invariants``
    /// is 0, and its verdict says none was checked). The graph is the same either way: a check
    /// reads a world, it never changes one.
    public var checksInvariants: Bool

    /// Creates limits.
    @inlinable public init(
        maxStates: Int = 5_000_000, maxDepth: Int = 1_000, keepGoing: Bool = false, reduction: Reduction = .symmetric,
        maxDuration: Duration? = nil, threads: Int = Cores.online, checksInvariants: Bool = true
    ) {
        self.threads = max(1, threads)
        self.checksInvariants = checksInvariants
        self.maxStates = maxStates
        self.maxDepth = min(maxDepth, Int(UInt16.max) - 1)
        self.keepGoing = keepGoing
        self.reduction = reduction
        self.maxDuration = maxDuration
    }
}

/// Which limit stopped an exploration before closure.
public enum ExplorationLimit: String, Hashable, Sendable {
    /// ``ExplorationLimits/maxStates`` distinct states were reached.
    case states
    /// States at ``ExplorationLimits/maxDepth`` were left unexpanded.
    case depth
    /// ``ExplorationLimits/maxDuration`` ran out.
    case time
}

/// How far an exploration has come, reported while it runs: as each breadth-first level is
/// done, and every 20,000 states expanded within one.
public struct ExplorationProgress: Hashable, Sendable, CustomStringConvertible {
    /// Distinct states found so far.
    public var states: Int
    /// Transitions taken so far.
    public var transitions: Int
    /// The breadth-first level being expanded: every state nearer the initial one is expanded.
    public var depth: Int
    /// Wall time since the exploration began.
    public var seconds: Double

    /// Creates a progress report.
    @inlinable public init(states: Int, transitions: Int, depth: Int, seconds: Double) {
        self.states = states
        self.transitions = transitions
        self.depth = depth
        self.seconds = seconds
    }

    /// Distinct states found per second so far.
    @inlinable public var statesPerSecond: Double { seconds > 0 ? Double(states) / seconds : 0 }

    /// "120000 states, 2400000 transitions, depth 31, 41200 states/s, 2.9 s".
    public var description: String {
        "\(states) states, \(transitions) transitions, depth \(depth), \(Int(statesPerSecond)) states/s, "
            + "\((seconds * 10).rounded() / 10) s"
    }
}

extension ExplorationProgress {
    /// A progress callback that passes `report` at most one report every `interval`, the first
    /// once `interval` has passed: a line a second on a terminal, or every few seconds in a log.
    package static func throttled(
        every interval: Duration, _ report: @escaping @Sendable (ExplorationProgress) -> Void
    ) -> @Sendable (ExplorationProgress) -> Void {
        let clock = ContinuousClock()
        let shown = Locked(clock.now)
        return { progress in
            let now = clock.now
            let due = shown.withLock { last in
                guard now - last >= interval else { return false }
                last = now
                return true
            }
            if due { report(progress) }
        }
    }
}

/// Which worlds the explorer makes one state.
///
/// Every search renames request ids, intent ids and server-issued tokens in order of first
/// appearance and writes instants relative to now (see ``Survey``): without that, the space has
/// no end (each request and each rotation makes new ids), so it is the search's canonical form,
/// not a reduction to switch off.
public enum Reduction: Hashable, Sendable {
    /// Renaming alone: worlds that hold the same lists in another order are different states, and
    /// so are worlds whose history holds a code sent exactly the history horizon ago and one sent
    /// earlier.
    case plain
    /// Symmetry over interchangeable calls and requests: lists whose order no behaviour reads —
    /// the requests in flight, a session's pending calls (each is handled alike wherever it
    /// stands; their order only decides which request id a replay gets), the context's waiters
    /// and background sign-outs, the intents still open, the calls' send counts, the requests in
    /// flight at sign-out, the retired and logged-out refresh tokens, the code cooldowns (one a
    /// target) and the codes the server confirmed sending (one a destination) — are surveyed as
    /// sets, so worlds that differ only by which id a call or request got, and by the order these
    /// lists keep, are one state (as TLC's symmetry sets).
    ///
    /// A request left over (the state no longer refers to it) with no refresh token in it is
    /// surveyed as what can answer it: a login code and a reset link asked for by flows the user
    /// left are one state, since the lifecycle is told only the answer (see
    /// `Survey.visit(network:)`).
    ///
    /// It also lets the history's "long ago" begin at ``LifecycleModel/historyHorizon``: a code
    /// sent exactly that long ago is one state with a code sent earlier, since the invariants read
    /// the history's instants only through `<` and `>=` (see ``Survey``). Without it "long ago"
    /// begins just past the horizon, as in the state.
    case symmetric
}

/// What an exploration found.
public struct ExplorationReport: Sendable {
    /// The model's name.
    public var model: String
    /// Distinct (canonical) states.
    public var states: Int
    /// Transitions taken (every move from every expanded state, self-loops included).
    public var transitions: Int
    /// The deepest state's distance from the initial one.
    public var depth: Int
    /// Wall time.
    public var seconds: Double
    /// True when every reachable state was expanded (closure), false when a limit or a violation
    /// stopped it.
    public var complete: Bool
    /// True when the exploration stopped after the level of its first violation
    /// (``ExplorationLimits/keepGoing`` off).
    public var stoppedAtViolation: Bool = false
    /// The limit that stopped the exploration before closure, if one did.
    public var limitReached: ExplorationLimit?
    /// The bounds it was explored at: requests in flight and answers left over at most.
    public var bounds: (inFlight: Int, stale: Int) = (0, 0)
    /// Invariants checked.
    public var invariants: Int
    /// The first (shortest) violation of each invariant that failed.
    public var violations: [Violation]
    /// Structural findings.
    public var findings: [Finding]
    /// The projected graph (case path → case path), sorted.
    public var edges: [ProjectedEdge]
    /// The initial case path.
    public var initialCase: String
    /// Case paths the model declares final.
    public var finalCases: [String]
    /// Bytes the explorer keeps per distinct state (index entry, parent, move, depth, case path),
    /// not counting the frontier of states still to expand, the edges kept for structural checks,
    /// or the case path kept per distinct lifecycle state (one entry per state at most).
    public var bytesPerState: Int
    /// Distinct edges kept for the structural checks.
    public var storedEdges: Int
    /// New states found at each depth (breadth-first levels): how the space grows.
    public var levels: [Int]
    /// When a limit stopped the exploration: a shortest trace to one of the deepest states
    /// reached, to show what keeps growing.
    public var deepestTrace: [TraceStep]
    /// How many states each case path holds: where the space is.
    public var statesPerCase: [String: Int] = [:]

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(
        model: String, states: Int, transitions: Int, depth: Int, seconds: Double, complete: Bool, invariants: Int, violations: [Violation],
        findings: [Finding], edges: [ProjectedEdge], initialCase: String, finalCases: [String], bytesPerState: Int, storedEdges: Int, levels: [Int],
        deepestTrace: [TraceStep], statesPerCase: [String: Int] = [:]
    ) {
        self.model = model
        self.states = states
        self.transitions = transitions
        self.depth = depth
        self.seconds = seconds
        self.complete = complete
        self.invariants = invariants
        self.violations = violations
        self.findings = findings
        self.edges = edges
        self.initialCase = initialCase
        self.finalCases = finalCases
        self.bytesPerState = bytesPerState
        self.storedEdges = storedEdges
        self.levels = levels
        self.deepestTrace = deepestTrace
        self.statesPerCase = statesPerCase
    }

    /// True when complete and nothing was found.
    @inlinable public var passed: Bool { complete && violations.isEmpty && findings.isEmpty }
    /// Distinct states per second.
    @inlinable public var statesPerSecond: Double { seconds > 0 ? Double(states) / seconds : 0 }
    /// Transitions per second.
    @inlinable public var transitionsPerSecond: Double { seconds > 0 ? Double(transitions) / seconds : 0 }

    /// The exploration's outcome in one line: "closed: 8363 states to depth 59; every invariant
    /// holds and the structure is sound", "not closed: explored 120000 states to depth 31 (the
    /// time limit stopped it); no invariant failed in them", or the invariants that failed.
    public var verdict: String {
        let counted = states == 1 ? "1 state" : "\(states) states"
        if !violations.isEmpty {
            let names = violations.map(\.summary).joined(separator: ", ")
            return "violated: \(names)" + (complete ? "" : "; explored \(counted) to depth \(depth) before stopping")
        }
        if !findings.isEmpty { return "closed: \(counted) to depth \(depth), but \(findings.count) structural finding(s)" }
        if complete, invariants == 0 { return "closed: \(counted) to depth \(depth); no invariant checked, and the structure is sound" }
        if complete { return "closed: \(counted) to depth \(depth); every invariant holds and the structure is sound" }
        let stopper =
            switch limitReached {
            case .states?: "the state limit stopped it"
            case .depth?: "the depth limit stopped it"
            case .time?: "the time limit stopped it"
            case nil: "it stopped early"
            }
        return "not closed: explored \(counted) to depth \(depth) (\(stopper)); no invariant failed in \(states == 1 ? "it" : "them"), "
            + "and the structure was not checked"
    }
}

/// Exhaustive breadth-first exploration of a model's worlds to closure, checking every invariant
/// at every state and transition, then the structure of the graph. Iterative throughout, so
/// cyclic graphs of any size cannot overflow the stack.
///
/// Per distinct state the explorer keeps a 128-bit fingerprint, its parent, the move that reached
/// it (a packed ``Choice``) and its depth; a violation's trace is rebuilt by replaying those moves
/// from the initial world, so breadth-first order makes it a shortest trace.
public enum Explorer {
    // `@inlinable` (with what it reaches: the environment, the world, the survey and the surveyable
    // values): a model defined in another module (an app's own composition) then runs an explorer
    // specialized for its types. Measured on the bench's large model (defined in AuthflowKit): 22.7 k
    // states/s with it, 15.7 k without (−31 %); with the survey's values left out, 17.0 k (−25 %).

    /// Explores `model` within `limits`; `progress` is called with how far it has come as each
    /// breadth-first level is done and every 20,000 states expanded within one, `found` with each
    /// violation as soon as it is found.
    @inlinable public static func explore<Model: LifecycleModel>(
        _ model: Model, limits: ExplorationLimits = ExplorationLimits(), progress: (@Sendable (ExplorationProgress) -> Void)? = nil,
        found: (@Sendable (Violation) -> Void)? = nil
    ) -> ExplorationReport {
        var run = Run(model: model, limits: limits, found: found)
        return run.explore(progress: progress)
    }
}

/// One exploration's bookkeeping.
@usableFromInline struct Run<Model: LifecycleModel> {
    @usableFromInline typealias Machine = Model.Machine

    @usableFromInline let model: Model
    @usableFromInline let limits: ExplorationLimits
    @usableFromInline let environment: Environment<Model>
    @usableFromInline let invariants: [Invariant<Machine>]

    @usableFromInline var violations: [Violation?]
    /// Which invariants have failed (what the inner loop reads, not the violations themselves).
    @usableFromInline var failed: [Bool]
    @usableFromInline var violationOrder: [Int] = []
    @usableFromInline var index: [Fingerprint: Int32] = [:]
    @usableFromInline var parent: [Int32] = []
    @usableFromInline var choices: [PackedChoice] = []
    @usableFromInline var depth: [UInt16] = []
    @usableFromInline var pathOf: [Int32] = []
    @usableFromInline var paths: [String] = []
    @usableFromInline var pathIDs: [String: Int32] = [:]
    /// Each lifecycle state's case path, by the state's fingerprint: a state's case path is the
    /// same under any renaming of its ids and tokens, so states with one fingerprint share it,
    /// and most new worlds hold a state met before (the path is built and hashed once per state).
    @usableFromInline var pathOfState: [Fingerprint: Int32] = [:]
    @usableFromInline var edgeStart: [Int32] = [0]
    @usableFromInline var edgeTargets: [UInt32] = []
    @usableFromInline var transitions = 0
    @usableFromInline var projected = Set<ProjectedEdgeKey>()
    @usableFromInline var labels = EventLabels<Machine.Intent>()
    @usableFromInline var offered = Set<Machine.Intent>()
    @usableFromInline var menuSampled = Set<Int32>()
    @usableFromInline var seenCases = Set<PhaseCase>()
    @usableFromInline var declared: [String: [String]] = [:]
    @usableFromInline var complete = true
    @usableFromInline var levels: [Int] = []
    /// The first trace found not to replay (see ``replay(_:reaching:)``).
    @usableFromInline var brokenContract: Finding?
    /// Told of each violation as it is found.
    @usableFromInline let found: (@Sendable (Violation) -> Void)?
    @usableFromInline var stoppedAtViolation = false

    @inlinable init(model: Model, limits: ExplorationLimits, found: (@Sendable (Violation) -> Void)? = nil) {
        self.model = model
        self.limits = limits
        self.found = found
        self.environment = Environment(model: model, reduction: limits.reduction, checking: limits.checksInvariants)
        let invariants = environment.invariants
        self.invariants = invariants
        self.violations = Array(repeating: nil, count: invariants.count)
        self.failed = Array(repeating: false, count: invariants.count)
    }

    @inlinable mutating func explore(progress: (@Sendable (ExplorationProgress) -> Void)?) -> ExplorationReport {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = limits.maxDuration.map { start + $0 }
        var limitReached: ExplorationLimit?
        var frontier: [Snapshot<Machine>] = [environment.initial]
        _ = admit(frontier[0], parent: -1, choice: PackedChoice.none, depth: 0)
        var next: [Snapshot<Machine>] = []
        var node: Int32 = 0
        var level: UInt16 = 0
        var targets: [UInt32] = []
        // Read once: the loop below mutates `self`, so a property read inside it may be copied
        // (its references retained) for each call.
        let environment = self.environment
        while !frontier.isEmpty {
            levels.append(frontier.count)
            let expanding = Int(level) < limits.maxDepth
            var expanded = 0
            chunks: while expanded < frontier.count {
                let chunk = frontier[expanded..<min(frontier.count, expanded + Self.chunkSize)]
                expanded = chunk.endIndex
                // Each state's moves are stepped and checked on the worker threads; what they
                // found is taken in here one state at a time, in frontier order, exactly as one
                // thread would: the same numbering, the same first (shortest) violations.
                let expansions = expanding ? Self.expand(chunk, in: environment, knowing: index, threads: limits.threads) : []
                for position in chunk.indices {
                    defer { node += 1 }
                    guard expanding else {
                        complete = false
                        limitReached = .depth
                        edgeStart.append(Int32(edgeTargets.count))
                        continue
                    }
                    let snapshot = frontier[position]
                    targets.empty()
                    let fromPath = pathOf[Int(node)]
                    // Which intents a model offers depends on where the user is: sampling the menu
                    // of the first state of each case path is enough to tell an intent case never
                    // offered (read again here, once per case path, not carried back by the workers).
                    if menuSampled.insert(fromPath).inserted {
                        for move in environment.moves(snapshot) {
                            if case .intent(let intent, _, _) = move.event { offered.insert(intent) }
                        }
                    }
                    for step in expansions[position - chunk.startIndex] {
                        transitions += 1
                        // A check that failed already ran again and its message is dropped (the
                        // first, shortest violation is kept).
                        for (invariant, message) in step.failures where !failed[invariant] {
                            record(invariant, message, trace: trace(to: node) + [step.choice.choice], reaching: step.fingerprint)
                        }
                        var target = step.known ?? index[step.fingerprint]
                        if target == nil, let after = step.after {
                            if parent.count >= limits.maxStates {
                                complete = false
                                limitReached = .states
                                continue
                            }
                            target = admit(after, parent: node, choice: step.choice, depth: level + 1)
                            next.append(after)
                        }
                        guard let target, target != node else { continue }
                        let edge = UInt32(target) | (step.environmentFailure ? 0x8000_0000 : 0)
                        if !targets.contains(edge) { targets.append(edge) }
                        if let move = step.changingState {
                            let (label, kind) = labels.label(move)
                            projected.insert(ProjectedEdgeKey(from: fromPath, to: pathOf[Int(target)], label: label, kind: kind))
                        }
                    }
                    edgeTargets += targets
                    edgeStart.append(Int32(edgeTargets.count))
                    if node % 1_024 == 0, let deadline, clock.now >= deadline {
                        limitReached = .time
                        break chunks
                    }
                    if let progress, node % 20_000 == 0 {
                        progress(
                            ExplorationProgress(
                                states: parent.count, transitions: transitions, depth: Int(level), seconds: Self.seconds(clock.now - start)))
                    }
                }
            }
            if limitReached == .time {
                complete = false
                break
            }
            frontier = next
            next = []
            level += 1
            if let progress {
                progress(
                    ExplorationProgress(states: parent.count, transitions: transitions, depth: Int(level), seconds: Self.seconds(clock.now - start)))
            }
            if !limits.keepGoing, !violationOrder.isEmpty, !frontier.isEmpty {
                // Every violation this short is known: a broken model is reported now, not after
                // a space that may have no end.
                complete = false
                stoppedAtViolation = true
                break
            }
        }
        var findings = complete ? structuralFindings() + coverageFindings() : []
        let deepestTrace =
            complete || stoppedAtViolation ? [] : replay(trace(to: Int32(parent.count - 1)), to: Int32(parent.count - 1))
        if let brokenContract { findings.append(brokenContract) }
        let seconds = Self.seconds(clock.now - start)
        let perState =
            MemoryLayout<Fingerprint>.stride + MemoryLayout<Int32>.stride * 2 + MemoryLayout<PackedChoice>.stride
            + MemoryLayout<UInt16>.stride + MemoryLayout<Int32>.stride + 8  // the index's own overhead per entry
        var report = ExplorationReport(
            model: model.name, states: parent.count, transitions: transitions, depth: Int(depth.max() ?? 0),
            seconds: seconds, complete: complete, invariants: limits.checksInvariants ? invariants.count : 0,
            violations: violationOrder.compactMap { violations[$0] }, findings: findings,
            edges: projected.map {
                ProjectedEdge(from: paths[Int($0.from)], label: labels.names[Int($0.label)], to: paths[Int($0.to)], kind: $0.kind)
            }.sorted(),
            initialCase: paths[0], finalCases: model.finalCases, bytesPerState: perState, storedEdges: edgeTargets.count,
            levels: levels, deepestTrace: deepestTrace,
            statesPerCase: statesPerCase())
        report.stoppedAtViolation = stoppedAtViolation
        report.limitReached = stoppedAtViolation ? nil : limitReached
        report.bounds = (model.maxInFlight, model.maxStale)
        return report
    }

    /// How many frontier states the worker threads expand before the search takes in what they
    /// found: enough work to make handing it out cheap, little enough to keep the successors
    /// held meanwhile small.
    @inlinable static var chunkSize: Int { 512 }

    /// Each of `chunk`'s states' moves, stepped and checked, on `threads` threads; `index` (the
    /// states known when the chunk began) saves keeping the successors already known.
    ///
    /// Why this is the search one thread makes: stepping a move and running the step checks read
    /// only the environment and the state, never the search's bookkeeping, and what the workers
    /// find is taken in by one thread in frontier order. A successor found known here is known
    /// there too (the index only grows); one found unknown is looked up again.
    @inlinable static func expand(
        _ chunk: ArraySlice<Snapshot<Machine>>, in environment: Environment<Model>, knowing index: [Fingerprint: Int32], threads: Int
    ) -> [[Expanded<Machine>]] {
        concurrentMap(chunk.count, threads: threads) { offset in
            let snapshot = chunk[chunk.startIndex + offset]
            var successors = Environment<Model>.Successors()
            return environment.moves(snapshot).map { move in
                let transition = environment.step(move, from: snapshot, besides: &successors)
                let after = transition.after
                var failures: [(Int, String)] = []
                var checked = -1
                while let (position, message) = environment.stepChecks.firstFailure(on: transition, after: checked) {
                    failures.append((position, message))
                    checked = position  // The checks after a failing one still see this transition.
                }
                let known = index[after.fingerprint]
                return Expanded(
                    choice: PackedChoice(move.choice), fingerprint: after.fingerprint, known: known, after: known == nil ? after : nil,
                    environmentFailure: isEnvironmentFailure(move, in: snapshot.world),
                    // Time passing alone moves the lifecycle nowhere: no edge in the diagrams.
                    changingState: after.stateFingerprint != snapshot.stateFingerprint && !move.choice.isWait ? move : nil,
                    failures: failures)
            }
        }
    }

    /// `duration` in seconds.
    @inlinable static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @inlinable func statesPerCase() -> [String: Int] {
        var counts = Array(repeating: 0, count: paths.count)
        for path in pathOf { counts[Int(path)] += 1 }
        return Dictionary(uniqueKeysWithValues: zip(paths, counts))
    }

    /// Stores a new state and checks the state invariants on it.
    @inlinable mutating func admit(_ snapshot: Snapshot<Machine>, parent from: Int32, choice: PackedChoice, depth level: UInt16) -> Int32 {
        let id = Int32(parent.count)
        index[snapshot.fingerprint] = id
        parent.append(from)
        choices.append(choice)
        depth.append(level)
        if let known = pathOfState[snapshot.stateFingerprint] {
            pathOf.append(known)
        } else {
            let path = snapshot.casePath
            let pathID: Int32
            if let known = pathIDs[path] {
                pathID = known
            } else {
                pathID = Int32(paths.count)
                paths.append(path)
                pathIDs[path] = pathID
                var cases: [PhaseCase] = []
                reachedCases(of: snapshot.world.state.phase, into: &cases, declared: &declared)
                seenCases.formUnion(cases)
            }
            pathOf.append(pathID)
            pathOfState[snapshot.stateFingerprint] = pathID
        }
        var checked = -1
        while let (position, message) = environment.stateChecks.firstFailure(on: snapshot, after: checked) {
            if !failed[position] { record(position, message, trace: trace(to: id), reaching: snapshot.fingerprint) }
            checked = position
        }
        return id
    }

    @inlinable mutating func record(_ position: Int, _ message: String, trace choices: [Choice], reaching fingerprint: Fingerprint) {
        guard !failed[position] else { return }
        failed[position] = true
        let invariant = invariants[position]
        let violation = Violation(
            invariant: invariant.name, source: invariant.source, message: message, trace: replay(choices) { $0 == fingerprint })
        violations[position] = violation
        violationOrder.append(position)
        found?(violation)
    }

    /// The moves from the initial state to `node`.
    @inlinable func trace(to node: Int32) -> [Choice] {
        var steps: [Choice] = []
        var current = node
        while current > 0 {
            steps.append(choices[Int(current)].choice)
            current = parent[Int(current)]
        }
        return steps.reversed()
    }

    /// Replays `choices` from the initial world into readable steps, and checks that they lead
    /// where the exploration went with them: to a world whose fingerprint `reached` accepts.
    /// They do whenever the model keeps ``LifecycleModel/intents(in:)``'s contract (one menu,
    /// renamed alike, at every world with one fingerprint), since the explorer expanded only the
    /// first world of each fingerprint. When they do not, the trace printed is not the path the
    /// exploration took, and the first such trace becomes a ``Finding/Kind/brokenModelContract``
    /// finding instead of passing silently. Only reported traces are replayed, so this costs
    /// nothing per state.
    @inlinable mutating func replay(_ choices: [Choice], reaching reached: (Fingerprint) -> Bool) -> [TraceStep] {
        let (steps, end) = environment.replayed(choices)
        if brokenContract == nil, end.map({ reached($0.fingerprint) }) != true {
            let how =
                if let end {
                    "its \(choices.count) moves end in another world, in \(end.casePath)"
                } else {
                    "its move \(steps.count + 1) of \(choices.count) is not offered where the replay got to"
                }
            brokenContract = Finding(
                kind: .brokenModelContract,
                detail: "a trace the explorer recorded does not replay from the initial world (\(how)): "
                    + "the model offers different moves at worlds with one fingerprint; intents(in:) must depend only on the snapshot's facts "
                    + "(not on absolute times or state outside the world), or no trace can be trusted",
                trace: steps)
        }
        return steps
    }

    /// ``replay(_:reaching:)`` of the trace to `node`: it must end in `node`'s world.
    @inlinable mutating func replay(_ choices: [Choice], to node: Int32) -> [TraceStep] {
        let index = self.index
        return replay(choices) { index[$0] == node }
    }

    /// Timers, failed answers and realtime opens: the only moves a livelock may consist of.
    ///
    /// An open realtime connection is progress only once it proved itself (the
    /// `TimerID.realtimeStable` timer fired): an open the server closes at once (VynqTalk's
    /// deployed server accepts the upgrade, then closes it on a refused token) is no success, so a
    /// loop whose only successes are such opens is a livelock.
    @inlinable static func isEnvironmentFailure(_ move: Move<Machine>, in world: World<Machine>) -> Bool {
        switch move.event {
        case .tick:
            if case .timer(let index) = move.choice, world.timers.indices.contains(index), world.timers[index].id == .realtimeStable {
                return false  // The connection stayed open: established.
            }
            return true
        case .reply(_, .failed(let failure), _): return SourceRules.environmentFailed(failure)
        case .reply(_, .realtimeClosed, _), .reply(_, .realtimeOpened, _): return true
        case .reply, .intent, .withdrawn, .launched: return false
        }
    }

    // MARK: Structure

    @inlinable mutating func structuralFindings() -> [Finding] {
        let count = parent.count
        let finals = Set(model.finalCases)
        func path(_ node: Int) -> String { paths[Int(pathOf[node])] }
        func outgoing(_ node: Int) -> ArraySlice<UInt32> { edgeTargets[Int(edgeStart[node])..<Int(edgeStart[node + 1])] }
        var findings: [Finding] = []
        // Deadlocks: non-final states where no event changes anything.
        if let node = (0..<count).first(where: { outgoing($0).isEmpty && !finals.contains(path($0)) }) {
            findings.append(Finding(kind: .deadlock, detail: path(node), trace: replay(trace(to: Int32(node)), to: Int32(node))))
        }
        // The starting case is reachable from every non-final state (backwards search from home).
        var incomingStart = [Int32](repeating: 0, count: count + 1)
        for edge in edgeTargets { incomingStart[Int(edge & 0x7FFF_FFFF) + 1] += 1 }
        for node in 0..<count { incomingStart[node + 1] += incomingStart[node] }
        var fill = incomingStart
        var incoming = [Int32](repeating: 0, count: edgeTargets.count)
        for source in 0..<count {
            for edge in outgoing(source) {
                let target = Int(edge & 0x7FFF_FFFF)
                incoming[Int(fill[target])] = Int32(source)
                fill[target] += 1
            }
        }
        var reachesHome = [Bool](repeating: false, count: count)
        var stack: [Int32] = []
        for node in 0..<count where pathOf[node] == pathOf[0] {
            reachesHome[node] = true
            stack.append(Int32(node))
        }
        while let node = stack.popLast() {
            for source in incoming[Int(incomingStart[Int(node)])..<Int(incomingStart[Int(node) + 1])] where !reachesHome[Int(source)] {
                reachesHome[Int(source)] = true
                stack.append(source)
            }
        }
        if let node = (0..<count).first(where: { !reachesHome[$0] && !finals.contains(path($0)) }) {
            findings.append(
                Finding(
                    kind: .noWayHome, detail: "no way back to \(paths[0]) from \(path(node))", trace: replay(trace(to: Int32(node)), to: Int32(node)))
            )
        }
        // Livelocks: cycles in the subgraph of timers, failed answers and realtime opens (Kahn's algorithm).
        var inDegree = [Int32](repeating: 0, count: count)
        for edge in edgeTargets where edge & 0x8000_0000 != 0 { inDegree[Int(edge & 0x7FFF_FFFF)] += 1 }
        var removable = (0..<count).filter { inDegree[$0] == 0 }
        var removed = [Bool](repeating: false, count: count)
        while let node = removable.popLast() {
            removed[node] = true
            for edge in outgoing(node) where edge & 0x8000_0000 != 0 {
                let target = Int(edge & 0x7FFF_FFFF)
                inDegree[target] -= 1
                if inDegree[target] == 0 { removable.append(target) }
            }
        }
        if let node = (0..<count).first(where: { !removed[$0] }) {
            findings.append(
                Finding(
                    kind: .livelock, detail: "timers, failed answers and unsettled opens alone loop through \(path(node))",
                    trace: replay(trace(to: Int32(node)), to: Int32(node))))
        }
        return findings
    }

    @inlinable func coverageFindings() -> [Finding] {
        var findings: [Finding] = []
        let transient = Set(transientCases(of: model.machine))
        for (type, cases) in declared.sorted(by: { $0.key < $1.key }) {
            for name in cases where !seenCases.contains(PhaseCase(type: type, name: name)) {
                let key = "\(type).\(name)"
                if model.unreachableByDesign[key] == nil, !transient.contains(key) {
                    findings.append(Finding(kind: .unreachedCase, detail: key, trace: []))
                }
            }
        }
        for seen in seenCases.sorted() where !(declared[seen.type] ?? []).contains(seen.name) {
            findings.append(Finding(kind: .undeclaredCase, detail: seen.description, trace: []))
        }
        var offeredCases = Set<PhaseCase>()
        var declaredIntents: [String: [String]] = [:]
        for intent in offered {
            EventLabel.intentCases(of: intent, into: &offeredCases)
            // Every offered intent adds the declarations of the types it passes through: which
            // one comes first in the set must not decide what is reported.
            declaredIntents.merge(EventLabel.intentDeclarations(intent)) { known, _ in known }
        }
        for (type, cases) in declaredIntents.sorted(by: { $0.key < $1.key }) {
            for name in cases where !offeredCases.contains(PhaseCase(type: type, name: name)) {
                findings.append(Finding(kind: .unusedIntent, detail: "\(type).\(name)", trace: []))
            }
        }
        return findings
    }
}

/// One move from a frontier state, as a worker thread stepped and checked it.
@usableFromInline struct Expanded<Machine: Lifecycle>: Sendable {
    /// The move's choice.
    @usableFromInline let choice: PackedChoice
    /// The fingerprint of the state it leads to.
    @usableFromInline let fingerprint: Fingerprint
    /// That state's number, when the search knew it as the move was stepped.
    @usableFromInline let known: Int32?
    /// That state, when the search did not know it then.
    @usableFromInline let after: Snapshot<Machine>?
    /// Whether the move is a failure of the environment (the network's, the vault's).
    @usableFromInline let environmentFailure: Bool
    /// The move, when it changed the lifecycle's state: an edge of the diagrams.
    @usableFromInline let changingState: Move<Machine>?
    /// The step checks that failed: each one's position among the invariants, and its message.
    @usableFromInline let failures: [(Int, String)]

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(
        choice: PackedChoice, fingerprint: Fingerprint, known: Int32?, after: Snapshot<Machine>?, environmentFailure: Bool,
        changingState: Move<Machine>?, failures: [(Int, String)]
    ) {
        self.choice = choice
        self.fingerprint = fingerprint
        self.known = known
        self.after = after
        self.environmentFailure = environmentFailure
        self.changingState = changingState
        self.failures = failures
    }
}

/// A ``Choice`` in 64 bits: 3 bits of kind, then the index (61 bits), or for a reply the
/// exchange's index (29 bits) and the reply's (32 bits). No model a computer can hold offers
/// more: a world with 2²⁹ requests in flight would not fit in memory.
@usableFromInline struct PackedChoice: Hashable, Sendable {
    @usableFromInline let bits: UInt64

    @usableFromInline static let none = PackedChoice(bits: 0)

    @inlinable init(bits: UInt64) { self.bits = bits }

    @inlinable init(_ choice: Choice) {
        switch choice {
        case .intent(let n): bits = 0 << 61 | UInt64(n)
        case .reply(let exchange, let reply): bits = 1 << 61 | UInt64(exchange) << 32 | UInt64(reply)
        case .timer(let n): bits = 2 << 61 | UInt64(n)
        case .relaunch(let n): bits = 3 << 61 | UInt64(n)
        case .withdraw(let n): bits = 4 << 61 | UInt64(n)
        case .wait(let n): bits = 5 << 61 | UInt64(n)
        }
    }

    @inlinable var choice: Choice {
        switch bits >> 61 {
        case 0: .intent(Int(bits & Self.index))
        case 1: .reply(exchange: Int(bits >> 32 & 0x1FFF_FFFF), reply: Int(bits & 0xFFFF_FFFF))
        case 2: .timer(Int(bits & Self.index))
        case 3: .relaunch(Int(bits & Self.index))
        case 4: .withdraw(Int(bits & Self.index))
        default: .wait(Int(bits & Self.index))
        }
    }

    /// The low 61 bits: an intent's, timer's, relaunch's, withdrawal's or wait's index.
    @usableFromInline static let index: UInt64 = 0x1FFF_FFFF_FFFF_FFFF
}

/// A projected edge with interned paths and label.
@usableFromInline struct ProjectedEdgeKey: Hashable {
    @usableFromInline var from: Int32
    @usableFromInline var to: Int32
    @usableFromInline var label: Int32
    @usableFromInline var kind: ProjectedEdge.Kind

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(from: Int32, to: Int32, label: Int32, kind: ProjectedEdge.Kind) {
        self.from = from
        self.to = to
        self.label = label
        self.kind = kind
    }
}

/// Interned event labels: an intent's label is computed once per distinct intent, and a move's
/// label once per event key (``EventKey``) where its environment numbered the payload.
@usableFromInline struct EventLabels<Intent: Hashable & Sendable> {
    @usableFromInline var names: [String] = []
    @usableFromInline var ids: [String: Int32] = [:]
    @usableFromInline var intentLabels: [Intent: Int32] = [:]
    /// By event key's index (one exploration numbers its payloads in one table): the label and
    /// kind, or `nil` when not met yet.
    @usableFromInline var keyLabels: [(Int32, ProjectedEdge.Kind)?] = []

    /// `move`'s label, looked up by its key when it has one: a list lookup where hashing an intent
    /// walked its nested enum, and a reply's label was hashed as a string.
    @inlinable mutating func label<Machine>(_ move: Move<Machine>) -> (Int32, ProjectedEdge.Kind) where Machine.Intent == Intent {
        guard let key = move.key else { return label(move.event) }
        let index = key.index
        if index < keyLabels.count, let known = keyLabels[index] { return known }
        let computed = label(move.event)
        if keyLabels.count <= index { keyLabels += repeatElement(nil, count: index - keyLabels.count + 1) }
        keyLabels[index] = computed
        return computed
    }

    @inlinable mutating func label(_ event: AuthEvent<Intent>) -> (Int32, ProjectedEdge.Kind) {
        if case .intent(let intent, _, _) = event {
            if let known = intentLabels[intent] { return (known, .intent) }
            let (name, _) = EventLabel.of(event)
            let id = intern(name)
            intentLabels[intent] = id
            return (id, .intent)
        }
        let (name, kind) = EventLabel.of(event)
        return (intern(name), kind)
    }

    @inlinable mutating func intern(_ name: String) -> Int32 {
        if let id = ids[name] { return id }
        let id = Int32(names.count)
        names.append(name)
        ids[name] = id
        return id
    }
}
