import AuthCore
import AuthSupport
import AuthVerification

#if canImport(Glibc)
import Glibc
#endif

/// The verification kit's figures: exploration of every shipped model, of a large composed model
/// and of a growing number of callers; fuzzing of every shipped model; the planted bug.
struct VerificationBench {
    /// One exploration with the memory it took.
    struct Exploration {
        let report: ExplorationReport
        /// The process's peak resident size during the exploration.
        let peak: Int
        /// The peak minus the resident size just before (`nil` where the peak cannot be reset).
        let added: Int?
    }

    let configuration: BenchConfiguration
    /// Explorations of the callers model already measured, by callers and limits: the full run's
    /// growth table reuses the large model's.
    private var measured: [String: [Exploration]] = [:]

    init(configuration: BenchConfiguration) { self.configuration = configuration }

    /// Explores with the peak memory measured around it. Freed memory is first handed back to
    /// the OS (`malloc_trim`), so what an earlier exploration left in the allocator does not
    /// hide this one's growth.
    static func measure(_ explore: () -> ExplorationReport) -> Exploration {
        trimAllocator()
        let reset = ResidentMemory.resetPeak()
        let before = ResidentMemory.current
        let report = explore()
        let peak = ResidentMemory.peak
        return Exploration(report: report, peak: peak, added: reset ? before.map { max(0, peak - $0) } : nil)
    }

    /// glibc's `malloc_trim(0)`, found at run time (its header is not in Swift's Glibc module);
    /// nothing elsewhere.
    static func trimAllocator() {
        #if canImport(Glibc)
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(nil, "malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
        #endif
    }

    /// The shipped model at `index` in `Models.all`, built afresh (`Models.all` builds every model
    /// anew on each read). An invariant may keep a cache that lives as long as its model (the
    /// leak scanner remembers the states it has read), so a second exploration of the same model
    /// value starts warm: every sample takes a new model, as a first `authflow verify` would.
    static func fresh(_ index: Int) -> AnyModel { Models.all[index] }

    /// `body` run up to `count` times, and at least once, stopping early once the samples so far
    /// took `budget` seconds (a full exploration of a large model may take minutes).
    static func repeated<T>(_ count: Int, budget: Double, _ body: () -> T) -> [T] {
        let clock = ContinuousClock()
        let started = clock.now
        var samples: [T] = []
        repeat {
            samples.append(body())
        } while samples.count < count && (clock.now - started).seconds < budget
        return samples
    }

    // MARK: Exploration

    /// `12,345 states (closure)`, `(capped)`, `(depth ≤ 10)` or `(stopped at a violation: …)`:
    /// a figure taken on a model that breaks an invariant says so, or it would pass for a fast one.
    static func extent(_ report: ExplorationReport, limits: ExplorationLimits) -> String {
        "\(BenchFormat.grouped(report.states)) states (\(reached(report, limits: limits)))"
    }

    /// How far an exploration went: see ``extent(_:limits:)``.
    static func reached(_ report: ExplorationReport, limits: ExplorationLimits) -> String {
        if report.stoppedAtViolation { return "stopped at a violation: \(report.violations.map(\.invariant).joined(separator: ", "))" }
        return report.complete ? "closure" : report.states >= limits.maxStates ? "capped" : "depth ≤ \(limits.maxDepth)"
    }

    /// Details shared by every exploration row.
    static func explorationDetails(_ samples: [Exploration], limits: ExplorationLimits) -> [BenchDetail] {
        let last = samples[samples.count - 1].report
        let seconds = Spread(samples.map(\.report.seconds)).median
        let transitionsPerSecond = Spread(samples.map(\.report.transitionsPerSecond)).median
        let peak = Spread(samples.map { Double($0.peak) }).median
        var details = [
            BenchDetail("states", .int(last.states), extent(last, limits: limits)),
            BenchDetail("complete", .bool(last.complete)),
            BenchDetail("transitions", .int(last.transitions)),
            BenchDetail("transitionsPerSecond", .double(transitionsPerSecond), "\(BenchFormat.si(transitionsPerSecond)) transitions/s"),
            BenchDetail("seconds", .double(seconds), "\(BenchFormat.duration(seconds)) each"),
            BenchDetail("depth", .int(last.depth)),
            BenchDetail("bytesPerState", .int(last.bytesPerState), "\(last.bytesPerState) B/state stored"),
        ]
        let added = samples.compactMap(\.added).map(Double.init)
        if !added.isEmpty {
            let median = Spread(added).median
            details.append(BenchDetail("addedBytes", .double(median), "+\(BenchFormat.bytes(median)) resident"))
            if last.states > 0, median >= 1_048_576 {
                let perState = median / Double(last.states)
                details.append(BenchDetail("residentBytesPerState", .double(perState), "\(BenchFormat.fixed(perState, 0)) resident B/state"))
            }
        }
        details.append(BenchDetail("peakBytes", .double(peak), "peak RSS \(BenchFormat.bytes(peak))"))
        if last.complete && !last.passed {
            details.append(
                BenchDetail(
                    "problems", .int(last.violations.count + last.findings.count),
                    "\(last.violations.count + last.findings.count) violations/findings"))
        }
        details.append(BenchDetail("levels", .text(last.levels.map(String.init).joined(separator: " "))))
        return details
    }

    /// Every shipped model, explored (to closure unless the configuration caps it).
    ///
    /// The bench's explorations run on one thread (`threads: 1`): its rows measure what a state
    /// and a transition cost on one core, comparable from run to run.
    func shippedModels(progress: (String) -> Void) -> [BenchRow] {
        let limits = ExplorationLimits(maxStates: configuration.explorerStateCap ?? Int(Int32.max - 1), threads: 1)
        return Models.all.indices.map { index in
            let model = Self.fresh(index)
            progress("explorer: \(model.name)")
            let samples = Self.repeated(configuration.explorerRepetitions, budget: configuration.figureBudget) {
                let fresh = Self.fresh(index)
                return Self.measure { fresh.explore(limits: limits) }
            }
            return BenchRow(
                .explorer, model.name, unit: .perSecond, spread: Spread(samples.map(\.report.statesPerSecond)),
                details: Self.explorationDetails(samples, limits: limits))
        }
    }

    /// The callers model explored within `limits`, measured once per configuration.
    private mutating func callers(_ callers: Int, limits: ExplorationLimits, repetitions: Int? = nil) -> [Exploration] {
        let key = "\(callers) \(limits.maxStates) \(limits.maxDepth)"
        if let known = measured[key] { return known }
        let samples = Self.repeated(
            repetitions ?? configuration.explorerRepetitions, budget: repetitions == nil ? configuration.figureBudget : .infinity
        ) {
            let model = BenchModels.callers(callers)
            return Self.measure { Explorer.explore(model, limits: limits) }
        }
        measured[key] = samples
        return samples
    }

    /// The large composed model: the session with `configuration.largeCallers` callers: its
    /// distinct states per second, transitions per second and memory.
    mutating func largeModel(progress: (String) -> Void) -> [BenchRow] {
        let model = BenchModels.callers(configuration.largeCallers)
        let limits = ExplorationLimits(maxStates: configuration.largeStateCap ?? Int(Int32.max - 1), threads: 1)
        progress(
            "large model: \(model.name)\(configuration.largeStateCap.map { " (capped at \(BenchFormat.grouped($0)) states)" } ?? ", to closure")")
        let samples = callers(configuration.largeCallers, limits: limits, repetitions: configuration.largeRepetitions)
        let last = samples[samples.count - 1].report
        // No rate target: what matters is how much concurrency closes in a given time, not a
        // constant per state (a state here carries a session, calls in flight, a vault, history).
        let details = Self.explorationDetails(samples, limits: limits)
        var rows = [
            BenchRow(
                .largeModel, "\(model.name): distinct states/s", unit: .perSecond, spread: Spread(samples.map(\.report.statesPerSecond)),
                details: details),
            BenchRow(
                .largeModel, "\(model.name): transitions/s", unit: .perSecond, spread: Spread(samples.map(\.report.transitionsPerSecond)),
                details: [BenchDetail("transitions", .int(last.transitions), "\(BenchFormat.grouped(last.transitions)) transitions")]),
            BenchRow(
                .largeModel, "\(model.name): peak RSS", unit: .bytes, spread: Spread(samples.map { Double($0.peak) }),
                details: [BenchDetail("bytesPerState", .int(last.bytesPerState), "\(last.bytesPerState) B/state stored by the explorer")]),
        ]
        if last.states > 0, last.transitions > 0 {
            progress("large model: reduce alone on its transitions")
            rows.append(reduceCeiling(model, explored: samples))
        }
        let added = samples.compactMap(\.added)
        if !added.isEmpty, last.states > 0 {
            rows.append(
                BenchRow(
                    .largeModel, "\(model.name): resident B/state", unit: .count,
                    spread: Spread(added.map { Double($0) / Double(last.states) }),
                    details: [
                        BenchDetail(
                            "addedBytes", .double(Spread(added.map(Double.init)).median),
                            "+\(BenchFormat.bytes(Spread(added.map(Double.init)).median)) resident over \(BenchFormat.grouped(last.states)) states")
                    ]))
        }
        return rows
    }

    /// Every how many expanded states the reduce-only ceiling keeps one's transitions.
    static let ceilingStride = 8
    /// The most states the reduce-only ceiling's exploration expands.
    static let ceilingStateCap = 25_000

    /// The most distinct states per second the large model's exploration could reach if `reduce`
    /// were all it did: `reduce`'s time per transition (timed alone, on the transitions of every
    /// 8th state expanded by an exploration capped at 25,000 states or the large model's own cap,
    /// each from a copy of the state before it) times the transitions per state of the measured
    /// exploration. Everything else the explorer does (the environment's world, fingerprints,
    /// checks, the frontier) only adds to it.
    func reduceCeiling(_ model: CallersModel, explored samples: [Exploration]) -> BenchRow {
        let last = samples[samples.count - 1].report
        let cap = min(Self.ceilingStateCap, configuration.largeStateCap ?? Self.ceilingStateCap)
        let sampler = ReducerBench.sample(model, cap: cap, stride: Self.ceilingStride)
        let prepared = ReducerBench.prepared(model.machine, sampler.segments, reducingShare: sampler.reducingShare)
        let (nanoseconds, passes) = timed(prepared)
        // Time passing to a deadline reaches no reducer: only the transitions that do count.
        let perState = Double(last.transitions) / Double(last.states) * prepared.reducingShare
        let reduceMicroseconds = nanoseconds.median * perState / 1_000
        let explorerMicroseconds = 1e6 / Spread(samples.map(\.report.statesPerSecond)).median
        return BenchRow(
            .largeModel, "\(model.name): reduce-only ceiling", unit: .perSecond,
            spread: nanoseconds.map { 1e9 / ($0 * perState) },
            details: [
                BenchDetail(
                    "nanosecondsPerTransition", .double(nanoseconds.median),
                    "reduce: \(BenchFormat.significant(nanoseconds.median)) ns a transition (state copy included)"),
                BenchDetail(
                    "transitionsPerState", .double(perState),
                    "× \(BenchFormat.significant(perState)) transitions a state that reach reduce (\(BenchFormat.significant((1 - prepared.reducingShare) * 100)) % wait for a deadline)"
                ),
                BenchDetail("reduceMicrosecondsPerState", .double(reduceMicroseconds), "= \(BenchFormat.significant(reduceMicroseconds)) µs a state"),
                BenchDetail(
                    "explorerMicrosecondsPerState", .double(explorerMicroseconds),
                    "the explorer: \(BenchFormat.significant(explorerMicroseconds)) µs a state, ×\(BenchFormat.significant(explorerMicroseconds / reduceMicroseconds)) reduce's"
                ),
                BenchDetail(
                    "sampledTransitions", .int(prepared.events),
                    "\(BenchFormat.grouped(prepared.events)) of \(BenchFormat.grouped(sampler.transitions)) transitions timed (every \(Self.ceilingStride)th state's), \(passes) passes a sample"
                ),
            ])
    }

    /// `reduce`'s time a transition on `prepared`'s one-event segments (the state's copy
    /// included), one sample a repetition, each replaying them `passes` times, as many as last
    /// the configuration's reducer sample time.
    func timed(_ prepared: ReducerBench.Prepared) -> (nanoseconds: Spread, passes: Int) {
        prepared.nanosecondsPerEvent(repetitions: configuration.reducerRepetitions, sampleSeconds: configuration.reducerSampleSeconds)
    }

    /// The bounds of the closure table: requests in flight / answers left over.
    static let closureBounds = [(2, 1), (4, 1), (3, 2), (4, 2)]

    /// Each app model explored once at each of ``closureBounds``, every other shipped model (the
    /// lifecycles and OpenID Connect's app) at 4/2, the bounds `authflow verify` checks every model at,
    /// and the large model (four callers) at its own, its reduced search capped by
    /// ``BenchConfiguration/largeClosureStateCap`` alone: the seconds to closure (or to the
    /// configuration's cap) and the states, with the symmetry reduction and without it (the
    /// reduction factor: states without over states with, where both closed), so a reader sees
    /// how far each model closes and what the reduction saves on each.
    func closure(progress: (String) -> Void) -> [BenchRow] {
        let unbounded = Int(Int32.max - 1)
        let cap = configuration.closureStateCap ?? unbounded
        func row(_ name: String, reducedCap: Int = cap, _ explore: (ExplorationLimits) -> ExplorationReport) -> BenchRow {
            progress("closure: \(name)")
            let reducedLimits = ExplorationLimits(maxStates: reducedCap, reduction: .symmetric, threads: 1)
            let plainLimits = ExplorationLimits(maxStates: cap, reduction: .plain, threads: 1)
            let reduced = explore(reducedLimits)
            let plain = explore(plainLimits)
            var details = [
                BenchDetail(
                    "states", .int(reduced.states), "\(BenchFormat.grouped(reduced.states)) states (\(Self.reached(reduced, limits: reducedLimits)))"),
                BenchDetail("complete", .bool(reduced.complete)),
                BenchDetail(
                    "plainStates", .int(plain.states),
                    "without reduction \(BenchFormat.grouped(plain.states)) states (\(Self.reached(plain, limits: plainLimits))) in "
                        + "\(BenchFormat.significant(plain.seconds)) s"
                ),
                BenchDetail("plainSeconds", .double(plain.seconds)),
            ]
            if reduced.complete, plain.complete, reduced.states > 0 {
                let factor = Double(plain.states) / Double(reduced.states)
                details.append(BenchDetail("reduction", .double(factor), "reduction ×\(BenchFormat.significant(factor))"))
            }
            return BenchRow(.closure, name, unit: .seconds, spread: Spread([reduced.seconds]), details: details)
        }
        let appRows = Models.apps.flatMap { model in
            Self.closureBounds.map { inFlight, stale in
                row("\(model.name) at \(inFlight)/\(stale)") { model.bounded(inFlight: inFlight, stale: stale).explore(limits: $0) }
            }
        }
        let apps = Set(Models.apps.map(\.name))
        let others = Models.all.filter { !apps.contains($0.name) }.map { model in
            row("\(model.name) at 4/2") { model.bounded(inFlight: 4, stale: 2).explore(limits: $0) }
        }
        let large = BenchModels.callers(configuration.largeCallers)
        let largeCap = configuration.largeClosureStateCap ?? unbounded
        let largeRow = row("\(large.name) at \(large.maxInFlight)/\(large.maxStale)", reducedCap: largeCap) { Explorer.explore(large, limits: $0) }
        progress("closure: authflow verify's explorations, every model at 4/2")
        let (verifyRow, reports) = verifyRun()
        progress("closure: reduce alone on authflow verify's transitions")
        return appRows + others + [largeRow, verifyRow, verifyFloor(reports)]
    }

    /// `authflow verify`'s explorations, timed whole: every shipped model at 4/2, to closure, one
    /// per core in the order `verify` starts them (``Models/largestFirst(_:runAt:)``), each on one
    /// thread, with the reduction, never capped but in the tests' configuration
    /// (``BenchConfiguration/verifyRunStateCap``). Its target is the 10 seconds `verify` is meant
    /// to take on a 2-core machine; the row says how far it is from it. Each model's report comes
    /// back with it, for ``verifyFloor(_:)``.
    func verifyRun() -> (BenchRow, [ExplorationReport]) {
        let models = Models.all.map { $0.raised(toAtLeast: Models.fullBounds) }
        let order = Models.largestFirst(Models.all, runAt: models)
        let limits = ExplorationLimits(maxStates: configuration.verifyRunStateCap ?? Int(Int32.max - 1), threads: 1)
        let clock = ContinuousClock()
        let started = clock.now
        let reports = concurrentMap(order.count, threads: Cores.online) { models[order[$0]].explore(limits: limits) }
        let seconds = (clock.now - started).seconds
        let states = reports.map(\.states).reduce(0, +)
        let complete = reports.allSatisfy(\.complete)
        let largest = reports.max { $0.seconds < $1.seconds }
        var details = [
            BenchDetail(
                "states", .int(states),
                "\(BenchFormat.grouped(states)) states in \(models.count) models on \(Cores.online) cores\(complete ? "" : " (capped)")"),
            BenchDetail("complete", .bool(complete)),
            BenchDetail("passed", .bool(reports.allSatisfy(\.passed))),
        ]
        if let largest {
            details.append(
                BenchDetail(
                    "largest", .text(largest.model),
                    "the longest \(largest.model), \(BenchFormat.grouped(largest.states)) states in \(BenchFormat.significant(largest.seconds)) s"))
        }
        guard complete else {
            return (BenchRow(.closure, "authflow verify: every model at 4/2", unit: .seconds, spread: Spread([seconds]), details: details), reports)
        }
        details.append(BenchDetail("gap", .double(seconds / 10), "×\(BenchFormat.significant(seconds / 10)) the target"))
        let row = BenchRow(
            .closure, "authflow verify: every model at 4/2", unit: .seconds, spread: Spread([seconds]),
            target: BenchTarget(.atMost, 10, "10 s, verify's whole run"), details: details)
        return (row, reports)
    }

    /// What `reduce` alone costs on the transitions of `authflow verify`'s run (`reports`, one a
    /// model): for each model, `reduce`'s time a transition, timed as the large model's
    /// reduce-only ceiling times it (on the transitions of every ``ceilingStride``th state its
    /// exploration at 4/2 expands within its first ``ceilingStateCap`` states, each from a copy of
    /// the state before it), times the transitions its run stepped; summed, then shared by the
    /// cores. No explorer of these states can take less: it calls `reduce` on each of those
    /// transitions, and everything else it does (the world around the state, fingerprints, checks,
    /// the frontier) only adds to that. Time passing to a deadline (at most one move a state)
    /// reaches no reducer: the sample leaves it out, and each model's transitions are scaled by
    /// the share of its sampled transitions that reach `reduce`.
    /// Where the floor lies above the 10 seconds `verify` is meant to take, a leaner engine alone
    /// cannot meet them; fewer states or transitions (a reduction) or a faster `reduce` can.
    func verifyFloor(_ reports: [ExplorationReport]) -> BenchRow {
        let subjects = Dictionary(ReducerBench.subjects.map { ($0.name, $0) }) { first, _ in first }
        let cap = min(Self.ceilingStateCap, configuration.verifyRunStateCap ?? Self.ceilingStateCap)
        var seconds: [(model: String, seconds: Double)] = []
        var untimed: [String] = []
        var sampled = 0
        var waits = 0.0
        for report in reports {
            guard let explored = subjects[report.model]?.explored else {
                untimed.append(report.model)
                continue
            }
            let prepared = explored(Models.fullBounds, cap, Self.ceilingStride)
            guard prepared.events > 0 else {
                untimed.append(report.model)
                continue
            }
            sampled += prepared.events
            let reducing = Double(report.transitions) * prepared.reducingShare
            waits += Double(report.transitions) - reducing
            seconds.append((report.model, timed(prepared).nanoseconds.median * reducing / 1e9))
        }
        let cpu = seconds.map(\.seconds).reduce(0, +)
        let cores = Cores.online
        let floor = cpu / Double(cores)
        let transitions = reports.map(\.transitions).reduce(0, +)
        var details = [
            BenchDetail(
                "reduceSeconds", .double(cpu),
                "reduce alone on the run's \(BenchFormat.grouped(transitions)) transitions: \(BenchFormat.significant(cpu)) s on one core, "
                    + "\(BenchFormat.significant(floor)) s on \(cores)"),
            BenchDetail(
                "ofTarget", .double(floor / 10),
                "×\(BenchFormat.significant(floor / 10)) the 10 s target\(floor > 10 ? ": no engine meets it on these states" : "")"),
        ]
        if let largest = seconds.max(by: { $0.seconds < $1.seconds }) {
            details.append(
                BenchDetail("largest", .text(largest.model), "\(largest.model) the most, \(BenchFormat.significant(largest.seconds)) s"))
        }
        details.append(
            BenchDetail(
                "sampledTransitions", .int(sampled),
                "\(BenchFormat.grouped(sampled)) transitions timed (every \(Self.ceilingStride)th state's of each model's first "
                    + "\(BenchFormat.grouped(cap)) states at 4/2, state copy included)"))
        if transitions > 0 {
            details.append(
                BenchDetail(
                    "waitShare", .double(waits / Double(transitions)),
                    "about \(BenchFormat.significant(waits / Double(transitions) * 100)) % of the run's transitions wait for a deadline, "
                        + "reach no reducer, and are left out"))
        }
        if !untimed.isEmpty {
            let names = untimed.joined(separator: ", ")
            details.append(BenchDetail("untimed", .text(names), "not timed: \(names)"))
        }
        return BenchRow(.closure, "authflow verify at 4/2: reduce alone", unit: .seconds, spread: Spread([floor]), details: details)
    }

    /// ``BenchModels/fiveFlowApp`` explored to closure (or to the configuration's cap) at 1/1, the
    /// README's bounds, and at 4/2, full depth, with the reduction; then as the README's
    /// verification executable checks it (``BenchModels/fiveFlowsAsVerified()``, two failure
    /// classes, 4/2): the seconds, states and rate, named with the build they ran in. The last row
    /// in a debug build is what `swift test` would take, in a release build what `swift package
    /// verify` takes once built.
    func composition(progress: (String) -> Void) -> [BenchRow] {
        let limits = ExplorationLimits(maxStates: configuration.compositionStateCap ?? Int(Int32.max - 1), threads: 1)
        func row<Machine>(_ model: Model<Machine>) -> BenchRow {
            let bounds = "\(model.maxInFlight)/\(model.maxStale)"
            let figure = Bench.figure("\(model.name) at \(bounds)", builtIn: Bench.build)
            progress("your composition: \(figure)")
            let sample = Self.measure { Explorer.explore(model, limits: limits) }
            return BenchRow(
                .composition, figure, unit: .seconds, spread: Spread([sample.report.seconds]),
                details: Self.explorationDetails([sample], limits: limits))
        }
        return [(1, 1), (4, 2)].map { row(BenchModels.fiveFlows(inFlight: $0, stale: $1)) } + [row(BenchModels.fiveFlowsAsVerified())]
    }

    /// Exploration cost for 1…n concurrent callers, every one within the same bounds.
    mutating func growth(progress: (String) -> Void) -> [BenchRow] {
        var previous: (states: Int, seconds: Double)?
        var rows: [BenchRow] = []
        for count in configuration.growthCallers {
            progress("growth: \(count) caller\(count == 1 ? "" : "s")")
            let limits = ExplorationLimits(
                maxStates: Int(Int32.max - 1), maxDepth: configuration.growthDepth ?? ExplorationLimits().maxDepth, threads: 1)
            let samples = callers(count, limits: limits)
            let last = samples[samples.count - 1].report
            let seconds = Spread(samples.map(\.report.seconds))
            let statesPerSecond = Spread(samples.map(\.report.statesPerSecond)).median
            var details = [BenchDetail("states", .int(last.states), Self.extent(last, limits: limits))]
            if let previous, previous.states > 0, previous.seconds > 0 {
                let states = Double(last.states) / Double(previous.states)
                let time = seconds.median / previous.seconds
                details.append(BenchDetail("statesFactor", .double(states), "×\(BenchFormat.significant(states)) states"))
                details.append(BenchDetail("timeFactor", .double(time), "×\(BenchFormat.significant(time)) time"))
            }
            details.append(BenchDetail("statesPerSecond", .double(statesPerSecond), "\(BenchFormat.si(statesPerSecond)) states/s"))
            let added = samples.compactMap(\.added).map(Double.init)
            if !added.isEmpty {
                details.append(BenchDetail("addedBytes", .double(Spread(added).median), "+\(BenchFormat.bytes(Spread(added).median)) resident"))
            }
            details.append(
                BenchDetail(
                    "peakBytes", .double(Spread(samples.map { Double($0.peak) }).median),
                    "peak RSS \(BenchFormat.bytes(Spread(samples.map { Double($0.peak) }).median))"))
            previous = (last.states, seconds.median)
            rows.append(
                BenchRow(.growth, "\(count) caller\(count == 1 ? "" : "s"): exploration time", unit: .seconds, spread: seconds, details: details))
        }
        return rows
    }

    // MARK: Fuzzing

    /// Every shipped model fuzzed with every invariant on; the same session once more, stepping
    /// every event afresh, for the cost of a step and its checks: on one thread (`authflow fuzz
    /// --no-reuse`), against a hundred times Hypothesis's steps per second measured first by
    /// `yardstick` (``HypothesisYardstick``), and on every core (`--threads`).
    func fuzzer(yardstick: HypothesisYardstick, notes: inout [String], progress: (String) -> Void) -> [BenchRow] {
        progress("fuzzer: Hypothesis's RuleBasedStateMachine on rotating refresh, with \(yardstick.python)")
        let measurement = yardstick.measure(
            examples: configuration.hypothesisExamples, repetitions: configuration.fuzzRepetitions,
            budget: configuration.figureBudget * Double(configuration.fuzzRepetitions))
        let afreshTarget = HypothesisYardstick.target(measurement)
        var rows: [BenchRow] = []
        switch measurement {
        case .measured(let samples, let steps, let versions):
            rows.append(
                BenchRow(
                    .fuzzer, "Hypothesis, rotating refresh (the yardstick)", unit: .perSecond, spread: Spread(samples),
                    details: [
                        BenchDetail("steps", .int(steps), "\(BenchFormat.grouped(steps)) steps a sample"),
                        BenchDetail("versions", .text(versions), versions),
                    ]))
        case .unavailable(let reason):
            notes.append(
                "fuzzer: Hypothesis not measured in this run (\(reason)), so the rows stepping every event afresh are judged against "
                    + "100× the \(BenchFormat.grouped(Int(HypothesisYardstick.recordedStepsPerSecond))) steps/s recorded before, on another day "
                    + "and perhaps another machine; `authflow bench --python PATH` names a Python 3 with Hypothesis")
        }
        let fuzz = FuzzConfiguration(seed: configuration.seed, runs: configuration.fuzzRuns, length: configuration.fuzzLength)
        var afresh = fuzz
        afresh.reusesCheckedTransitions = false
        var everyCore = afresh
        everyCore.threads = Cores.online
        let fuzzed = Models.all.indices.flatMap { index in
            let model = Self.fresh(index)
            progress("fuzzer: \(model.name)")
            let samples = Self.repeated(configuration.fuzzRepetitions, budget: configuration.figureBudget) { Self.fresh(index).fuzz(fuzz) }
            let stepped = Self.repeated(configuration.fuzzRepetitions, budget: configuration.figureBudget) { Self.fresh(index).fuzz(afresh) }
            let onEveryCore = Self.fresh(index).fuzz(everyCore)
            let last = samples[samples.count - 1]
            var details = [
                BenchDetail("events", .int(last.events), "\(BenchFormat.grouped(last.events)) events a sample"),
                BenchDetail("invariants", .int(model.invariantNames.count), "\(model.invariantNames.count) invariants"),
                BenchDetail(
                    "reusedShare", .double(last.reusedShare),
                    "\(BenchFormat.significant(last.reusedShare * 100)) % along transitions checked before"),
            ]
            if let failure = last.failure {
                details.append(BenchDetail("violation", .text(failure.violation.invariant), "stopped at a violation: \(failure.violation.invariant)"))
            }
            return [
                BenchRow(
                    .fuzzer, model.name, unit: .perSecond, spread: Spread(samples.map(\.eventsPerSecond)),
                    target: BenchTarget(.atLeast, 2_000_000, "2 M events/s"), details: details),
                BenchRow(
                    .fuzzer, "\(model.name), every event afresh", unit: .perSecond, spread: Spread(stepped.map(\.eventsPerSecond)),
                    target: afreshTarget,
                    details: [
                        BenchDetail(
                            "everyCore", .double(onEveryCore.eventsPerSecond),
                            "on \(everyCore.threads) threads: \(BenchFormat.si(onEveryCore.eventsPerSecond))/s")
                    ]),
            ]
        }
        return rows + fuzzed
    }

    /// The planted bug: found by the fuzzer, replayed and shrunk, and found by the explorer with its
    /// shortest trace; the shrunk trace must be no longer than the explorer's.
    func plantedBug(progress: (String) -> Void) -> [BenchRow] {
        let model = BenchModels.plantedBug()
        progress("planted bug: fuzzing \(model.name)")
        // Every sample runs on a model built afresh (see `fresh(_:)`).
        let fuzz = FuzzConfiguration(seed: configuration.seed, runs: 1_000, length: configuration.fuzzLength)
        let finds = Self.repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) {
            Fuzzer.fuzz(BenchModels.plantedBug(), fuzz)
        }
        guard let found = finds.last?.failure else {
            return [
                BenchRow(
                    .plantedBug, "fuzzer: walks until found", unit: .seconds, spread: Spread(finds.map(\.seconds)),
                    details: [BenchDetail("found", .bool(false), "NOT found in \(fuzz.runs) walks")])
            ]
        }
        progress("planted bug: replaying and shrinking seed 0x\(String(found.seed, radix: 16))")
        let clock = ContinuousClock()
        var shrunk: FuzzFailure?
        let shrinkSeconds = Self.repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) { () -> Double in
            let started = clock.now
            shrunk = Fuzzer.replay(BenchModels.plantedBug(), seed: found.seed, length: fuzz.length)
            return (clock.now - started).seconds
        }
        let failure = shrunk ?? found
        let shrunkLength = failure.violation.trace.count
        progress("planted bug: exploring for the shortest trace")
        let limits = ExplorationLimits(maxStates: configuration.plantedStateCap, threads: 1)
        let explorations = Self.repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) {
            Explorer.explore(BenchModels.plantedBug(), limits: limits)
        }
        let shortest = explorations.compactMap { $0.violations.first { $0.invariant == failure.violation.invariant }?.trace.count }
        let invariant = BenchDetail("invariant", .text(failure.violation.invariant), "“\(failure.violation.invariant)”")
        var rows = [
            BenchRow(
                .plantedBug, "fuzzer: walks until found (with shrink)", unit: .seconds, spread: Spread(finds.map(\.seconds)),
                details: [BenchDetail("runs", .int(finds[finds.count - 1].runs), "\(finds[finds.count - 1].runs) walks"), invariant]),
            BenchRow(
                .plantedBug, "fuzzer: replay + shrink of the failing walk", unit: .seconds, spread: Spread(shrinkSeconds),
                details: [
                    BenchDetail("seed", .text("0x" + String(failure.seed, radix: 16)), "seed 0x\(String(failure.seed, radix: 16))"),
                    BenchDetail("originalLength", .int(failure.originalLength), "\(failure.originalLength) events shrunk to \(shrunkLength)"),
                ]),
        ]
        let explored = BenchDetail(
            "exploreSeconds", .double(Spread(explorations.map(\.seconds)).median),
            "explorer: \(BenchFormat.grouped(explorations[explorations.count - 1].states)) states in \(BenchFormat.duration(Spread(explorations.map(\.seconds)).median))"
        )
        if let explorer = shortest.first {
            rows.append(
                BenchRow(
                    .plantedBug, "explorer: shortest trace (events)", unit: .count, spread: Spread(shortest.map(Double.init)), details: [explored]))
            rows.append(
                BenchRow(
                    .plantedBug, "fuzzer: shrunk trace (events)", unit: .count,
                    spread: Spread(Array(repeating: Double(shrunkLength), count: shrinkSeconds.count)),
                    target: BenchTarget(.atMost, Double(explorer), "\(explorer), the explorer's shortest"),
                    details: [BenchDetail("shrunkLength", .int(shrunkLength)), invariant]))
        } else {
            rows.append(
                BenchRow(
                    .plantedBug, "explorer: shortest trace (events)", unit: .count, spread: Spread([0]),
                    target: BenchTarget(.atLeast, 1, "1 (found)"), details: [explored]))
        }
        return rows
    }
}
