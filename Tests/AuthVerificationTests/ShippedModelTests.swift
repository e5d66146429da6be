import AuthCore
import AuthSupport
import AuthVerification
import Dispatch
import Foundation
import Testing

/// A shipped model (``Models``) and how far the tests explore it in a debug build.
struct ShippedModel: Sendable, CustomTestStringConvertible {
    /// The model.
    var model: AnyModel
    /// `nil` to explore it to closure; otherwise the number of distinct states explored.
    var maxStates: Int?

    var testDescription: String { maxStates.map { "\(model.name) (first \($0) states)" } ?? model.name }

    /// The limits it is explored within.
    var limits: ExplorationLimits { maxStates.map { ExplorationLimits(maxStates: $0) } ?? ExplorationLimits() }
}

/// One invariant of one shipped model.
struct ShippedInvariant: Sendable, CustomTestStringConvertible {
    /// The model.
    var model: ShippedModel
    /// The invariant's name.
    var invariant: String

    var testDescription: String { "\(model.testDescription): \(invariant)" }
}

/// The shipped models as the tests explore them: each at its own bounds, to closure where that
/// takes seconds in a debug build (the lifecycles, the small sessions and VynqTalk's app), the
/// others within a bound. `authflow verify` explores every one of them to closure in a release
/// build, and CI runs it: a violation, a deadlock or a state left unreached anywhere in a large
/// model fails CI there.
enum Shipped {
    /// The states a bounded model is explored to: about five seconds each in a debug build.
    static let stateBound = 3_000
    /// Models too large for closure in a debug build: the rotating sessions and four apps hold
    /// 15,000 to 58,000 states each at their bounds, about a minute each here (a second or a few
    /// in a release build).
    static let large: Set<String> = [
        "session.everday", "session.subspace", "session.hero365", "app.anonymousWall", "app.everday", "app.subspace", "app.hero365",
    ]

    /// The models explored to closure.
    static let toClosure: [ShippedModel] = Models.all.filter { !large.contains($0.name) }.map { ShippedModel(model: $0, maxStates: nil) }
    /// The large models, explored within ``stateBound``.
    static let bounded: [ShippedModel] = Models.all.filter { large.contains($0.name) }.map { ShippedModel(model: $0, maxStates: stateBound) }

    /// Every (model, invariant) pair.
    static func invariants(of models: [ShippedModel]) -> [ShippedInvariant] {
        models.flatMap { model in model.model.invariantNames.map { ShippedInvariant(model: model, invariant: $0) } }
    }

    /// Each model explored once, on every core, by name.
    static let reports: [String: ExplorationReport] = {
        let models = toClosure + bounded
        let results = Results(count: models.count)
        DispatchQueue.concurrentPerform(iterations: min(ProcessInfo.processInfo.activeProcessorCount, models.count)) { _ in
            while let index = results.next() {
                results.set(index, models[index].model.explore(limits: models[index].limits))
            }
        }
        return Dictionary(uniqueKeysWithValues: zip(models.map(\.model.name), results.reports))
    }()

    /// The report on `model`.
    static func report(_ model: ShippedModel) throws -> ExplorationReport {
        try #require(reports[model.model.name])
    }

    /// Checks that `pair`'s invariant holds in `report`, showing the trace to a violation.
    static func expectHolds(_ pair: ShippedInvariant, in report: ExplorationReport) {
        let violation = report.violations.first { $0.invariant == pair.invariant }
        #expect(violation == nil, "\(pair.model.model.name): \(violation.map(\.description) ?? "")")
    }
}

/// Reports written from several threads, and the next model to explore.
private final class Results: Sendable {
    private let storage: Locked<(slots: [ExplorationReport?], taken: Int)>

    init(count: Int) { storage = Locked((Array(repeating: nil, count: count), 0)) }

    func set(_ index: Int, _ report: ExplorationReport) { storage.withLock { $0.slots[index] = report } }

    /// The next index no thread has taken yet, if any is left.
    func next() -> Int? {
        storage.withLock { storage in
            guard storage.taken < storage.slots.count else { return nil }
            defer { storage.taken += 1 }
            return storage.taken
        }
    }

    var reports: [ExplorationReport] { storage.withLock { storage in storage.slots.map { $0! } } }
}

/// The environment variable that raises the number of fuzz runs per shipped model.
enum FuzzBudget {
    /// Runs per model: `AUTHCORE_FUZZ_RUNS`, or a few so CI stays fast.
    static let runs: Int? = ProcessInfo.processInfo.environment["AUTHCORE_FUZZ_RUNS"].map { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 8
    /// Events per run.
    static let length = 300
    /// The first run's seed (fixed: the same walks in every CI run).
    static let seed = FuzzConfiguration().seed
}

/// The shipped lifecycle and app models, explored and fuzzed: every invariant holds.
@Suite("Shipped models")
struct ShippedModelTests {
    @Test("the large models are shipped models, and no two (model, invariant) pairs share a name")
    func everyModel() {
        #expect(Shipped.large.subtracting(Models.all.map(\.name)).isEmpty, "not shipped: \(Shipped.large.subtracting(Models.all.map(\.name)))")
        #expect(
            Set(Shipped.invariants(of: Shipped.toClosure + Shipped.bounded).map(\.testDescription)).count
                == Shipped.invariants(of: Shipped.toClosure + Shipped.bounded).count, "a model checks two invariants of one name")
    }

    @Test("each lifecycle model, and each small app model, explores to closure", arguments: Shipped.toClosure)
    func closure(_ model: ShippedModel) throws {
        let report = try Shipped.report(model)
        #expect(report.complete, "\(model.model.name) stopped at \(report.states) states, depth \(report.depth)")
        #expect(report.invariants == model.model.invariantNames.count)
    }

    @Test("each invariant holds in every reachable state of each model explored to closure", arguments: Shipped.invariants(of: Shipped.toClosure))
    func invariantHolds(_ pair: ShippedInvariant) throws {
        let report = try Shipped.report(pair.model)
        #expect(report.complete)
        Shipped.expectHolds(pair, in: report)
    }

    @Test(
        "each model explored to closure has no deadlock, a way home from every state, every case reached, every intent used and no livelock",
        arguments: Shipped.toClosure)
    func structure(_ model: ShippedModel) throws {
        let report = try Shipped.report(model)
        #expect(report.findings.isEmpty, "\(model.model.name):\n\(report.findings.map(\.description).joined(separator: "\n"))")
    }

    @Test(
        "each invariant holds in the first 3,000 states of each large model (to closure in `authflow verify`, not in a debug build)",
        arguments: Shipped.invariants(of: Shipped.bounded))
    func invariantHoldsWithinTheBound(_ pair: ShippedInvariant) throws {
        let report = try Shipped.report(pair.model)
        #expect(report.states == Shipped.stateBound || report.complete, "\(report.states) states")
        Shipped.expectHolds(pair, in: report)
    }

    @Test("fuzzing each shipped model from a fixed seed breaks no invariant (AUTHCORE_FUZZ_RUNS runs, 8 by default)", arguments: Models.all)
    func fuzzFindsNothing(_ model: AnyModel) throws {
        let runs = try #require(FuzzBudget.runs, "AUTHCORE_FUZZ_RUNS must be a positive integer")
        let report = model.fuzz(FuzzConfiguration(seed: FuzzBudget.seed, runs: runs, length: FuzzBudget.length))
        #expect(
            report.failure == nil,
            "\(report.failure.map(\.description) ?? "")\nreplay: authflow replay \(model.name) --seed \(report.failure?.seed ?? 0) --length \(FuzzBudget.length)"
        )
        #expect(report.runs == runs)
        #expect(report.events > runs, "walks end at once")
    }
}
