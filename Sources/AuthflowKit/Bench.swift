import Foundation

/// How much `authflow bench` measures: repetitions, stream lengths, state caps.
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
    /// Cap on the large model (`nil`: to closure).
    public var largeStateCap: Int?
    /// Caller counts of the growth table.
    public var growthCallers: [Int]
    /// Cap on each growth exploration (`nil`: to closure).
    public var growthStateCap: Int?

    /// Walks per fuzz figure.
    public var fuzzRuns: Int
    /// Events per walk.
    public var fuzzLength: Int
    /// Samples per fuzz figure.
    public var fuzzRepetitions: Int
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

    /// `--quick`: every figure, within two minutes on a 2-core machine, exploration capped.
    public static let quick = BenchConfiguration(
        name: "quick", figureBudget: 8, reducerEvents: 20_000, reducerRepetitions: 5, reducerSampleSeconds: 0.04,
        explorerRepetitions: 3, explorerStateCap: 2_000, largeCallers: 3, largeStateCap: 10_000, growthCallers: [1, 2, 3, 4],
        growthStateCap: 3_000, fuzzRuns: 10, fuzzLength: 400, fuzzRepetitions: 3, plantedRepetitions: 3, plantedStateCap: 5_000,
        overheadWarmup: 100, overheadPairs: 500, overheadBlocks: 5, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 3)

    /// The default: every shipped model to closure, the large model past 10⁶ states.
    public static let full = BenchConfiguration(
        name: "full", figureBudget: 300, reducerEvents: 200_000, reducerRepetitions: 9, reducerSampleSeconds: 0.25,
        explorerRepetitions: 3, explorerStateCap: nil, largeCallers: 4, largeStateCap: nil, growthCallers: [1, 2, 3, 4],
        growthStateCap: 1_500_000, fuzzRuns: 100, fuzzLength: 400, fuzzRepetitions: 5, plantedRepetitions: 9, plantedStateCap: 200_000,
        overheadWarmup: 500, overheadPairs: 5_000, overheadBlocks: 10, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 7)

    /// `--quick` at its smallest: one sample each, tiny caps and streams, every row still produced.
    /// For tests: it checks the bench runs, never how fast anything is.
    public static let smallest = BenchConfiguration(
        name: "smallest", figureBudget: 0, reducerEvents: 400, reducerRepetitions: 1, reducerSampleSeconds: 0,
        explorerRepetitions: 1, explorerStateCap: 200, largeCallers: 3, largeStateCap: 200, growthCallers: [1, 2, 3, 4],
        growthStateCap: 100, fuzzRuns: 1, fuzzLength: 100, fuzzRepetitions: 1, plantedRepetitions: 1, plantedStateCap: 5_000,
        overheadWarmup: 2, overheadPairs: 4, overheadBlocks: 2, singleFlightCalls: [1, 10, 100, 1_000], singleFlightRepetitions: 1)
}

/// `authflow bench`: every performance figure the issues name, measured side by side in one run.
public enum Bench {
    /// Runs every section with `configuration`; `progress` hears what is being measured.
    public static func run(_ configuration: BenchConfiguration, progress: @escaping @Sendable (String) -> Void) -> BenchReport {
        let clock = ContinuousClock()
        let started = clock.now
        let date = ISO8601DateFormatter().string(from: Date())
        var rows: [BenchRow] = []
        var notes: [String] = []

        rows += reducerRows(configuration, notes: &notes, progress: progress)
        rows += VerificationBench.shippedModels(configuration, progress: progress)
        rows += VerificationBench.largeModel(configuration, progress: progress)
        rows += VerificationBench.growth(configuration, progress: progress)
        rows += VerificationBench.fuzzer(configuration, progress: progress)
        rows += VerificationBench.plantedBug(configuration, progress: progress)
        let runtime = blocking { () -> Result<[BenchRow], RuntimeBench.Problem> in
            do {
                return .success(try await RuntimeBench.overhead(configuration, progress: progress) + RuntimeBench.singleFlight(configuration, progress: progress))
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

        if let cap = configuration.explorerStateCap {
            notes.append("\(configuration.name): each shipped model's exploration stops at \(BenchFormat.grouped(cap)) states (\"capped\"); run without --quick for full explorations")
        }
        if let cap = configuration.largeStateCap {
            notes.append("\(configuration.name): the large model is capped at \(BenchFormat.grouped(cap)) states, a smaller variant of the full run's \(BenchConfiguration.full.largeCallers)-caller model past 10⁶ states")
        }
        if let cap = configuration.growthStateCap {
            notes.append("growth: each exploration stops at \(BenchFormat.grouped(cap)) states; a capped row's time is for that many states, not for its whole space")
        }
        notes.append(ResidentMemory.method)
        notes.append("bytes/state is ExplorationReport.bytesPerState: what the explorer keeps per distinct state, without the frontier or the edges kept for structural checks")
        notes.append("reducer streams come from the models' own seeded random walks (seed 0x\(String(configuration.seed, radix: 16))); the rotating-refresh session's row replays the events of session.everday's walks that reach its SessionLifecycle, on SessionLifecycle alone")
        return BenchReport(
            machine: .current, configuration: configuration.name, date: date, rows: rows, notes: notes, seconds: (clock.now - started).seconds)
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
            // Calibrate: replay until one sample lasts long enough to time well.
            let once = max(prepared.replay(1), 1e-7)
            let passes = max(1, Int((configuration.reducerSampleSeconds / once).rounded(.up)))
            let samples = (0..<configuration.reducerRepetitions).map { _ in
                Double(prepared.events * passes) / max(prepared.replay(passes), 1e-9)
            }
            let spread = Spread(samples)
            let isSession = position == 0
            rows.append(
                BenchRow(
                    .reducer, subject.name, unit: .perSecond, spread: spread,
                    target: isSession ? "≥ 20 M steps/s" : nil, met: isSession ? spread.median >= 20_000_000 : nil,
                    details: [
                        BenchDetail("nanosecondsPerStep", .double(1e9 / spread.median), "\(BenchFormat.significant(1e9 / spread.median)) ns/step"),
                        BenchDetail("events", .int(prepared.events), "\(BenchFormat.grouped(prepared.events)) events"),
                        BenchDetail("segments", .int(prepared.segments), "\(BenchFormat.grouped(prepared.segments)) segments"),
                        BenchDetail("passes", .int(passes), "× \(passes) per sample"),
                    ]))
        }
        let timed = Set(ReducerBench.subjects.map(\.name))
        for missing in AuthVerification.Models.all.map(\.name) where !timed.contains(missing) {
            notes.append("reducer: \(missing) is a shipped model the bench does not time yet (add it to ReducerBench.subjects)")
        }
        return rows
    }
}

extension Authflow {
    /// `authflow bench [--json] [--quick] [--write]`.
    static func bench(_ arguments: Arguments, out: (String) -> Void, err: @escaping @Sendable (String) -> Void) throws -> Int32 {
        guard arguments.positional.isEmpty else {
            throw CommandProblem(description: "bench takes no arguments: \(arguments.positional.joined(separator: " "))")
        }
        let configuration: BenchConfiguration = arguments.flags.contains("quick") ? .quick : .full
        err("authflow bench (\(configuration.name)): measuring; progress on standard error…")
        let report = Bench.run(configuration) { err("  \($0)") }
        out(arguments.flags.contains("json") ? report.json : report.text)
        if arguments.flags.contains("write") {
            let path = FileManager.default.currentDirectoryPath + "/BENCHMARKS.md"
            do {
                try report.markdown.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw CommandProblem(description: "could not write \(path): \(error.localizedDescription)")
            }
            err("wrote \(path)")
        }
        return 0
    }
}
