import AuthSupport
import AuthVerification
import Foundation

/// How much `authflow bench` measures: repetitions, stream lengths, exploration bounds.
public struct BenchConfiguration: Hashable, Sendable {
    /// `quick` or `full` (or a test's own name).
    public var name: String
    /// Seed of every random walk.
    public var seed: UInt64 = 0xB3_4C_4B_E7
    /// Stop repeating a figure once its samples took this many seconds (at least one sample).
    public var figureBudget: Double

    /// Events recorded per reducer stream.
    public var reducerEvents: Int
    /// Samples per reducer figure.
    public var reducerRepetitions: Int
    /// Each reducer sample replays the stream until it lasts at least this long.
    public var reducerSampleSeconds: Double

    /// Samples per exploration figure.
    public var explorerRepetitions: Int
    /// Cap on each shipped model's exploration (`nil`: to closure).
    public var explorerStateCap: Int?
    /// Concurrent callers of the large composed model.
    public var largeCallers: Int
    /// Cap on the large model's distinct states (`nil`: to closure).
    public var largeStateCap: Int?
    /// Samples of the large model (not cut short by ``figureBudget``: it is the explorer's target).
    public var largeRepetitions: Int
    /// Caller counts of the growth table.
    public var growthCallers: [Int]
    /// Depth bound of each growth exploration (`nil`: to closure), the same for every caller
    /// count so the rows compare like with like.
    public var growthDepth: Int?

    /// Walks per fuzz figure (quick and full: `authflow fuzz`'s default session, 200 walks of
    /// 400 events, since what reuse saves depends on how long a session is).
    public var fuzzRuns: Int
    /// Events per walk.
    public var fuzzLength: Int
    /// Samples per fuzz figure.
    public var fuzzRepetitions: Int
    /// Examples of each run of Hypothesis's rotating-refresh session (``HypothesisYardstick``,
    /// at most 50 steps each), run as many times as ``fuzzRepetitions``.
    public var hypothesisExamples: Int
    /// Samples of the planted bug's figures.
    public var plantedRepetitions: Int
    /// Cap on the planted bug's exploration (breadth-first: the violation found is still a shortest one).
    public var plantedStateCap: Int

    /// Warm-up pairs before the overhead is measured.
    public var overheadWarmup: Int
    /// Interleaved A/B pairs measured.
    public var overheadPairs: Int
    /// Blocks the pairs are cut into (each gives one sample).
    public var overheadBlocks: Int
    /// The N of the single-flight rows.
    public var singleFlightCalls: [Int]
    /// Samples per single-flight row.
    public var singleFlightRepetitions: Int
    /// Cap on each app model's exploration at each bound of the closure table, and on the large
    /// model's plain search there (`nil`: to closure).
    public var closureStateCap: Int? = nil
    /// Cap on the large model's reduced search in the closure table (`nil`: to closure).
    public var largeClosureStateCap: Int? = nil
    /// Cap on each exploration of the user composition (`nil`: to closure).
    public var compositionStateCap: Int? = nil
    /// Cap on each model's exploration in the closure table's row for `authflow verify`'s whole
    /// run (`nil`, every run but the tests': to closure, as `verify` explores; a capped row is
    /// not judged against the target).
    public var verifyRunStateCap: Int? = nil

    /// `--quick`: the larger explorations capped (by states, or for the growth table by depth);
    /// half an hour to an hour in all on a 2-core machine, as fast as the machine runs that day
    /// (1,712 s on 2026-12-07, 3,937 s on 2026-12-06), most of it the closure table. The user
    /// composition stops at 100,000 states at each bound. Under the closure table's cap, 400,000
    /// states, every reduced search closes; the plain search stops at it for Anonymous Wall's and
    /// Hero365's apps at 3/2 and 4/2, Everday's app and session at 4/2, and the large model (whose
    /// reduced search goes to closure).
    public static let quick = BenchConfiguration(
        name: "quick", figureBudget: 4, reducerEvents: 10_000, reducerRepetitions: 5, reducerSampleSeconds: 0.04,
        explorerRepetitions: 3, explorerStateCap: 3_000, largeCallers: 4, largeStateCap: 25_000, largeRepetitions: 3, growthCallers: [1, 2, 3, 4],
        growthDepth: 10, fuzzRuns: 200, fuzzLength: 400, fuzzRepetitions: 3, hypothesisExamples: 300, plantedRepetitions: 3, plantedStateCap: 5_000,
        overheadWarmup: 100, overheadPairs: 600, overheadBlocks: 6, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 3,
        closureStateCap: 400_000, compositionStateCap: 100_000)

    /// The default: every shipped model to closure; the large model (four callers, 6 requests in
    /// flight and 2 answers left over) to closure, 815,715 states with the symmetry reduction;
    /// the growth table to depth 14 for every caller count.
    public static let full = BenchConfiguration(
        name: "full", figureBudget: 60, reducerEvents: 100_000, reducerRepetitions: 9, reducerSampleSeconds: 0.25,
        explorerRepetitions: 3, explorerStateCap: nil, largeCallers: 4, largeStateCap: nil, largeRepetitions: 2, growthCallers: [1, 2, 3, 4],
        growthDepth: 14, fuzzRuns: 200, fuzzLength: 400, fuzzRepetitions: 5, hypothesisExamples: 300, plantedRepetitions: 5, plantedStateCap: 20_000,
        overheadWarmup: 500, overheadPairs: 5_000, overheadBlocks: 10, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 7,
        closureStateCap: 1_500_000)

    /// The smallest run that still produces every row: one sample each, tiny caps and streams.
    /// For tests: it checks the bench runs, never how fast anything is.
    public static let smallest = BenchConfiguration(
        name: "smallest", figureBudget: 0, reducerEvents: 400, reducerRepetitions: 1, reducerSampleSeconds: 0,
        explorerRepetitions: 1, explorerStateCap: 200, largeCallers: 3, largeStateCap: 200, largeRepetitions: 1, growthCallers: [1, 2, 3, 4],
        growthDepth: 3, fuzzRuns: 1, fuzzLength: 100, fuzzRepetitions: 1, hypothesisExamples: 2, plantedRepetitions: 1, plantedStateCap: 500,
        overheadWarmup: 2, overheadPairs: 4, overheadBlocks: 2, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 1,
        closureStateCap: 200, largeClosureStateCap: 200, compositionStateCap: 200, verifyRunStateCap: 200)
}

/// `authflow bench`: every performance figure the issues name, measured side by side in one run.
public enum Bench: Sendable {
    /// The build this code runs in, `debug` or `release`: `swift test` and `swift run` build debug
    /// unless told `-c release`.
    public static var build: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The build this code does not run in: the one whose rows a whole run keeps.
    public static var otherBuild: String { build == "debug" ? "release" : "debug" }

    /// A composition row's figure, named with the build it was measured in (`… at 4/2, debug build`).
    static func figure(_ name: String, builtIn build: String) -> String { "\(name), \(build) build" }

    /// Whether a row's figure was measured in `build` (see ``figure(_:builtIn:)``).
    static func isFigure(_ figure: String, builtIn build: String) -> Bool { figure.hasSuffix(", \(build) build") }

    /// Runs every section with `configuration`; `progress` hears what is being measured.
    /// `sections` picks what to measure (every section unless told); a report of only some
    /// sections is for profiling one part, and only the composition's alone is written to
    /// `BENCHMARKS.md` (beside the other build's rows: ``BenchReport/written(sections:over:)``).
    /// `yardstick` times Hypothesis for the fuzzer's target, in the same run.
    public static func run(
        _ configuration: BenchConfiguration, sections: Set<BenchSection> = Set(BenchSection.allCases),
        yardstick: HypothesisYardstick = HypothesisYardstick(), progress: (String) -> Void
    ) -> BenchReport {
        let clock = ContinuousClock()
        let started = clock.now
        let date = ISO8601DateFormatter().string(from: Date())
        var rows: [BenchRow] = []
        var notes: [String] = []

        if sections.contains(.reducer) { rows += reducerRows(configuration, notes: &notes, progress: progress) }
        var verification = VerificationBench(configuration: configuration)
        if sections.contains(.explorer) { rows += verification.shippedModels(progress: progress) }
        if sections.contains(.largeModel) { rows += verification.largeModel(progress: progress) }
        if sections.contains(.growth) { rows += verification.growth(progress: progress) }
        if sections.contains(.closure) { rows += verification.closure(progress: progress) }
        if sections.contains(.composition) { rows += verification.composition(progress: progress) }
        if sections.contains(.fuzzer) { rows += verification.fuzzer(yardstick: yardstick, notes: &notes, progress: progress) }
        if sections.contains(.plantedBug) { rows += verification.plantedBug(progress: progress) }
        if !sections.isDisjoint(with: [.runnerOverhead, .singleFlight]) {
            let runtime = blocking(relaying: progress) { progress -> Result<[BenchRow], RuntimeBench.Problem> in
                do {
                    var rows: [BenchRow] = []
                    if sections.contains(.runnerOverhead) { rows += try await RuntimeBench.overhead(configuration, progress: progress) }
                    if sections.contains(.singleFlight) { rows += try await RuntimeBench.singleFlight(configuration, progress: progress) }
                    return .success(rows)
                } catch let problem as RuntimeBench.Problem {
                    return .failure(problem)
                } catch {
                    return .failure(RuntimeBench.Problem(description: "\(error)"))
                }
            }
            switch runtime {
            case .success(let runtimeRows): rows += runtimeRows
            case .failure(let problem): notes.append("runtime figures not measured: \(problem)")
            }
        }
        notes += self.notes(configuration, sections: sections)
        return BenchReport(
            machine: .current, configuration: configuration.name, date: date, rows: rows, notes: notes, seconds: (clock.now - started).seconds)
    }

    /// What a reader needs to read the figures of a run with `configuration`: the notes of the
    /// sections measured.
    static func notes(_ configuration: BenchConfiguration, sections: Set<BenchSection> = Set(BenchSection.allCases)) -> [String] {
        var notes: [String] = []
        let explores = !sections.isDisjoint(with: [.explorer, .largeModel, .growth])
        if let cap = configuration.explorerStateCap, sections.contains(.explorer) {
            notes.append(
                "explorer (\(configuration.name)): an exploration stops at \(BenchFormat.grouped(cap)) states (\"capped\"); its rate is measured on those states. "
                    + "The full run (authflow bench, no --quick) explores every model to closure")
        }
        if let cap = configuration.largeStateCap, sections.contains(.largeModel) {
            notes.append(
                "large model (\(configuration.name)): capped at \(BenchFormat.grouped(cap)) states, so this is not the large space; "
                    + "the full run explores session.everday×\(BenchConfiguration.full.largeCallers) callers to closure (the closure table does in every run)"
            )
        }
        if sections.contains(.largeModel) {
            notes.append(
                "large model, reduce-only ceiling: the transitions of every \(VerificationBench.ceilingStride)th state an exploration capped at "
                    + "\(BenchFormat.grouped(VerificationBench.ceilingStateCap)) states expands are kept (the state before each and its event) "
                    + "and only copying that state and `reduce` on it are timed, in exploration order; that time a transition, times the measured exploration's transitions "
                    + "a state that reach `reduce` (time passing to a deadline does not), is what one distinct state costs before the explorer does anything of its own (the world around the state, fingerprints, checks, the frontier), "
                    + "so one core cannot explore faster than this ceiling, and two at most twice as fast")
        }
        if sections.contains(.closure) {
            notes.append(
                "closure: each app model explored once at each bound (requests in flight / answers left over), every other shipped model at 4/2"
                    + (configuration.closureStateCap.map { ", stopping at \(BenchFormat.grouped($0)) states (\"capped\")" } ?? ", to closure")
                    + "; the large model at its own bounds, its reduced search "
                    + (configuration.largeClosureStateCap.map { "stopping at \(BenchFormat.grouped($0)) states" } ?? "to closure")
                    + ", with the reduction and without it (the plain search, `--no-reduction`); the reduction factor is "
                    + "the plain search's states over the reduced search's, where both closed")
            notes.append(
                "closure, reduce alone: each model's `reduce` timed as the large model's reduce-only ceiling times it, on the transitions of every "
                    + "\(VerificationBench.ceilingStride)th state its exploration at 4/2 expands within its first "
                    + "\(BenchFormat.grouped(VerificationBench.ceilingStateCap)) states, times the transitions `authflow verify`'s run stepped in it; "
                    + "summed, then shared by the cores: an estimate, from those states, of the least time any explorer of the run's states "
                    + "takes, since it calls `reduce` on every transition and everything else it does only adds to that (time passing to a "
                    + "deadline reaches no reducer: it is left out of the sample, and each model's transitions are scaled by the share of its "
                    + "sampled ones that reach `reduce`)")
        }
        if sections.contains(.composition) {
            notes.append(
                "your composition: user.fiveFlows explored once at 1/1 and at 4/2, then user.fiveFlows.twoFailures (the README's "
                    + "verification executable: failing only with a refusal or no network) at 4/2"
                    + (configuration.compositionStateCap.map { ", stopping at \(BenchFormat.grouped($0)) states (\"capped\")" } ?? ", to closure")
                    + ", in the build the bench runs in: the release rows come with the whole run, the debug build's (the build `swift test` "
                    + "runs a user's tests in) from `swift run authflow bench --only composition --write`, which puts them beside the release "
                    + "rows in BENCHMARKS.md, and a whole run's `--write` keeps them; `swift package verify` (or `swift test -c release`) runs "
                    + "a user's checks optimized, as the release rows measure")
        }
        if let depth = configuration.growthDepth, sections.contains(.growth) {
            notes.append(
                "growth: every caller count explored to the same depth, \(depth) events from launch, so the rows compare like with like")
        }
        if explores || !sections.isDisjoint(with: [.fuzzer, .plantedBug]) {
            notes.append(
                "every exploration and fuzzing sample runs on a model built afresh, so the invariants' caches (the leak scanner's, the memos') start empty "
                    + "as in a first `authflow verify`; the large model is defined in the bench's own module, as an app's composition would be")
        }
        if explores {
            notes.append(ResidentMemory.method)
            notes.append(
                "B/state (stored) is the explorer's own count of what it keeps per distinct state (fingerprint index entry, parent, move, depth, case path); "
                    + "resident B/state is the resident memory the exploration added, divided by its states: it also counts the breadth-first frontier "
                    + "(whole snapshots of the states still to expand), the edges kept for the structural checks and the allocator's slack")
        }
        if sections.contains(.reducer) {
            notes.append(
                "reducer streams come from the models' own seeded random walks (seed 0x\(String(configuration.seed, radix: 16))) and are replayed in segments "
                    + "(a walk's start or a relaunch begins a new one); the rotating-refresh session's row replays the events of session.everday's walks "
                    + "that reach its SessionLifecycle, on SessionLifecycle alone")
        }
        if sections.contains(.runnerOverhead) {
            notes.append(
                "runner overhead: each block of pairs gives a median of A, of B and their ratio; the rows show the median and range of the blocks' figures"
            )
        }
        if sections.contains(.singleFlight) {
            notes.append(
                "single-flight: Everday's app signed in against the in-process reference server, then the clock they share moves 30 minutes on, so the access token "
                    + "has expired; the one refresh is held at the transport until all N calls wait on it (30 s at most), and the wall time runs from the first call to the last answer"
            )
        }
        return notes
    }

    /// Reducer rows: the bare rotating-refresh session first (the one with a target), then every model.
    static func reducerRows(_ configuration: BenchConfiguration, notes: inout [String], progress: (String) -> Void) -> [BenchRow] {
        var rows: [BenchRow] = []
        for (position, subject) in ([ReducerBench.session] + ReducerBench.subjects).enumerated() {
            progress("reducer: \(subject.name)")
            let prepared = subject.prepare(configuration.reducerEvents, configuration.seed)
            guard prepared.events > 0 else {
                notes.append("reducer: \(subject.name) recorded no events")
                continue
            }
            let (nanoseconds, passes) = prepared.nanosecondsPerEvent(
                repetitions: configuration.reducerRepetitions, sampleSeconds: configuration.reducerSampleSeconds)
            let spread = nanoseconds.map { 1e9 / $0 }
            rows.append(
                BenchRow(
                    .reducer, subject.name, unit: .perSecond, spread: spread,
                    target: position == 0 ? BenchTarget(.atLeast, 20_000_000, "20 M steps/s") : nil,
                    details: [
                        BenchDetail(
                            "nanosecondsPerStep", .double(nanoseconds.median),
                            "\(BenchFormat.significant(nanoseconds.median)) ns/step (\(BenchFormat.significant(nanoseconds.min))–\(BenchFormat.significant(nanoseconds.max)))"
                        ),
                        BenchDetail("events", .int(prepared.events), "\(BenchFormat.grouped(prepared.events)) events"),
                        BenchDetail("segments", .int(prepared.segments), "\(BenchFormat.grouped(prepared.segments)) segments"),
                        BenchDetail("passes", .int(passes), "\(passes) passes a sample"),
                    ]))
        }
        let timed = Set(ReducerBench.subjects.map(\.name))
        for missing in Models.all.map(\.name) where !timed.contains(missing) {
            notes.append("reducer: \(missing) is a shipped model the bench does not time yet (add it to ReducerBench.subjects)")
        }
        return rows
    }
}
