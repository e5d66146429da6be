import AuthCore
import AuthVerification

/// The verification kit's figures: exploration of every shipped model, of a large composed model
/// and of a growing number of callers; fuzzing of every shipped model; the planted bug.
enum VerificationBench {
    /// One exploration with the memory it took.
    struct Exploration {
        let report: ExplorationReport
        /// The process's peak resident size during the exploration.
        let peak: Int
        /// The peak minus the resident size just before (`nil` where the peak cannot be reset).
        let added: Int?
    }

    /// Explores with the peak memory measured around it.
    static func measure(_ explore: () -> ExplorationReport) -> Exploration {
        let reset = ResidentMemory.resetPeak()
        let before = ResidentMemory.current
        let report = explore()
        let peak = ResidentMemory.peak
        return Exploration(report: report, peak: peak, added: reset ? before.map { max(0, peak - $0) } : nil)
    }

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

    /// Details shared by every exploration row.
    static func explorationDetails(_ samples: [Exploration]) -> [BenchDetail] {
        let last = samples[samples.count - 1].report
        let seconds = Spread(samples.map(\.report.seconds)).median
        let transitionsPerSecond = Spread(samples.map(\.report.transitionsPerSecond)).median
        let peak = Spread(samples.map { Double($0.peak) }).median
        var details = [
            BenchDetail(
                "states", .int(last.states),
                "\(BenchFormat.grouped(last.states)) states\(last.complete ? "" : " (capped: not complete)")"),
            BenchDetail("complete", .bool(last.complete), ""),
            BenchDetail("transitions", .int(last.transitions), ""),
            BenchDetail("transitionsPerSecond", .double(transitionsPerSecond), "\(BenchFormat.si(transitionsPerSecond)) transitions/s"),
            BenchDetail("seconds", .double(seconds), "\(BenchFormat.duration(seconds)) each"),
            BenchDetail("depth", .int(last.depth), "depth \(last.depth)"),
            BenchDetail("bytesPerState", .int(last.bytesPerState), "\(last.bytesPerState) B/state"),
            BenchDetail("peakBytes", .double(peak), "peak RSS \(BenchFormat.bytes(peak))"),
        ]
        let added = samples.compactMap(\.added).map(Double.init)
        if !added.isEmpty {
            let median = Spread(added).median
            details.append(BenchDetail("addedBytes", .double(median), "+\(BenchFormat.bytes(median)) during it"))
        }
        if last.complete && !last.passed {
            details.append(
                BenchDetail("problems", .int(last.violations.count + last.findings.count), "\(last.violations.count + last.findings.count) violations/findings"))
        }
        details.append(BenchDetail("levels", .text(last.levels.map(String.init).joined(separator: " ")), ""))
        return details
    }

    /// Every shipped model, explored (to closure unless `cap` stops it).
    static func shippedModels(_ configuration: BenchConfiguration, progress: (String) -> Void) -> [BenchRow] {
        Models.all.map { model in
            progress("explorer: \(model.name)")
            let limits = ExplorationLimits(maxStates: configuration.explorerStateCap ?? ExplorationLimits().maxStates)
            let samples = repeated(configuration.explorerRepetitions, budget: configuration.figureBudget) {
                measure { model.explore(limits: limits) }
            }
            return BenchRow(
                .explorer, model.name, unit: .perSecond, spread: Spread(samples.map(\.report.statesPerSecond)),
                details: explorationDetails(samples))
        }
    }

    /// The large composed model: the session with `configuration.largeCallers` callers.
    static func largeModel(_ configuration: BenchConfiguration, progress: (String) -> Void) -> [BenchRow] {
        let model = BenchModels.callers(configuration.largeCallers)
        progress("large model: \(model.name)\(configuration.largeStateCap.map { " (capped at \(BenchFormat.grouped($0)) states)" } ?? "")")
        let limits = ExplorationLimits(maxStates: configuration.largeStateCap ?? Int(Int32.max - 1))
        let samples = repeated(configuration.explorerRepetitions, budget: configuration.figureBudget) {
            measure { Explorer.explore(model, limits: limits) }
        }
        let spread = Spread(samples.map(\.report.statesPerSecond))
        var details = explorationDetails(samples)
        let states = samples[samples.count - 1].report.states
        if configuration.largeStateCap == nil && states < 1_000_000 {
            details.insert(BenchDetail("belowMillion", .bool(true), "fewer than 10⁶ states: raise the callers"), at: 0)
        }
        return [
            BenchRow(
                .largeModel, model.name, unit: .perSecond, spread: spread, target: "≥ 1 M states/s", met: spread.median >= 1_000_000,
                details: details)
        ]
    }

    /// Exploration cost for 1…n concurrent callers.
    static func growth(_ configuration: BenchConfiguration, progress: (String) -> Void) -> [BenchRow] {
        var previous: Int?
        return configuration.growthCallers.map { callers in
            let model = BenchModels.callers(callers)
            progress("growth: \(model.name)")
            let limits = ExplorationLimits(maxStates: configuration.growthStateCap ?? Int(Int32.max - 1))
            let samples = repeated(configuration.explorerRepetitions, budget: configuration.figureBudget) {
                measure { Explorer.explore(model, limits: limits) }
            }
            var details = explorationDetails(samples)
            let states = samples[samples.count - 1].report.states
            let statesPerSecond = Spread(samples.map(\.report.statesPerSecond)).median
            details.insert(BenchDetail("statesPerSecond", .double(statesPerSecond), "\(BenchFormat.si(statesPerSecond)) states/s"), at: 1)
            if let previous, previous > 0 {
                let factor = Double(states) / Double(previous)
                details.insert(BenchDetail("statesFactor", .double(factor), "×\(BenchFormat.significant(factor)) states"), at: 1)
            }
            previous = states
            return BenchRow(
                .growth, "\(callers) caller\(callers == 1 ? "" : "s")", unit: .seconds, spread: Spread(samples.map(\.report.seconds)),
                details: details)
        }
    }

    // MARK: Fuzzing

    /// Every shipped model fuzzed with every invariant on.
    static func fuzzer(_ configuration: BenchConfiguration, progress: (String) -> Void) -> [BenchRow] {
        let fuzz = FuzzConfiguration(seed: configuration.seed, runs: configuration.fuzzRuns, length: configuration.fuzzLength)
        return Models.all.map { model in
            progress("fuzzer: \(model.name)")
            let samples = repeated(configuration.fuzzRepetitions, budget: configuration.figureBudget) { model.fuzz(fuzz) }
            let spread = Spread(samples.map(\.eventsPerSecond))
            let last = samples[samples.count - 1]
            var details = [
                BenchDetail("events", .int(last.events), "\(BenchFormat.grouped(last.events)) events per run"),
                BenchDetail("invariants", .int(model.invariantNames.count), "\(model.invariantNames.count) invariants"),
            ]
            if let failure = last.failure {
                details.append(BenchDetail("violation", .text(failure.violation.invariant), "stopped at a violation: \(failure.violation.invariant)"))
            }
            return BenchRow(
                .fuzzer, model.name, unit: .perSecond, spread: spread, target: "≥ 2 M events/s", met: spread.median >= 2_000_000,
                details: details)
        }
    }

    /// The planted bug: found by the fuzzer, shrunk, and found by the explorer with its shortest trace.
    static func plantedBug(_ configuration: BenchConfiguration, progress: (String) -> Void) -> [BenchRow] {
        let model = BenchModels.plantedBug()
        progress("planted bug: fuzzing \(model.name)")
        let fuzz = FuzzConfiguration(seed: configuration.seed, runs: 1_000, length: configuration.fuzzLength)
        let finds = repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) { Fuzzer.fuzz(model, fuzz) }
        guard let found = finds.last?.failure else {
            return [
                BenchRow(
                    .plantedBug, "fuzzer finds it", unit: .seconds, spread: Spread(finds.map(\.seconds)), target: "found", met: false,
                    details: [BenchDetail("found", .bool(false), "no violation in \(fuzz.runs) walks")])
            ]
        }
        progress("planted bug: replaying and shrinking seed \(found.seed)")
        let clock = ContinuousClock()
        var shrunk: FuzzFailure?
        let shrinkSeconds = repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) { () -> Double in
            let started = clock.now
            shrunk = Fuzzer.replay(model, seed: found.seed, length: fuzz.length)
            return (clock.now - started).seconds
        }
        let failure = shrunk ?? found
        progress("planted bug: exploring for the shortest trace")
        let explorations = repeated(configuration.plantedRepetitions, budget: configuration.figureBudget) {
            Explorer.explore(model, limits: ExplorationLimits(maxStates: configuration.plantedStateCap))
        }
        let exploration = explorations[explorations.count - 1]
        let shortest = exploration.violations.first { $0.invariant == failure.violation.invariant }
        let shrunkLength = failure.violation.trace.count
        var rows = [
            BenchRow(
                .plantedBug, "fuzzer finds it (walks + shrink)", unit: .seconds, spread: Spread(finds.map(\.seconds)),
                details: [
                    BenchDetail("runs", .int(finds[finds.count - 1].runs), "\(finds[finds.count - 1].runs) walks"),
                    BenchDetail("invariant", .text(failure.violation.invariant), "“\(failure.violation.invariant)”"),
                ]),
            BenchRow(
                .plantedBug, "replay + shrink of the failing walk", unit: .seconds, spread: Spread(shrinkSeconds),
                details: [
                    BenchDetail("seed", .text("0x" + String(failure.seed, radix: 16)), "seed 0x\(String(failure.seed, radix: 16))"),
                    BenchDetail("originalLength", .int(failure.originalLength), "\(failure.originalLength) events"),
                    BenchDetail("shrunkLength", .int(shrunkLength), "shrunk to \(shrunkLength)"),
                ]),
        ]
        if let shortest {
            rows.append(
                BenchRow(
                    .plantedBug, "explorer's shortest trace (events)", unit: .count,
                    spread: Spread(explorations.map { Double($0.violations.first { $0.invariant == failure.violation.invariant }?.trace.count ?? 0) }),
                    target: "shrunk ≤ shortest", met: shrunkLength <= shortest.trace.count,
                    details: [
                        BenchDetail("shrunkLength", .int(shrunkLength), "fuzzer's shrunk trace \(shrunkLength)"),
                        BenchDetail("exploreSeconds", .double(Spread(explorations.map(\.seconds)).median), "found in \(BenchFormat.duration(Spread(explorations.map(\.seconds)).median))"),
                        BenchDetail("states", .int(exploration.states), "\(BenchFormat.grouped(exploration.states)) states explored"),
                    ]))
        } else {
            rows.append(
                BenchRow(
                    .plantedBug, "explorer's shortest trace (events)", unit: .count, spread: Spread([0]), target: "found", met: false,
                    details: [BenchDetail("found", .bool(false), "not found within \(BenchFormat.grouped(exploration.states)) states")]))
        }
        return rows
    }
}
