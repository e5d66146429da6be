import AuthCore
import AuthVerification
import Testing

/// A planted bug (a row of the mutant table) and the fixed seed the fuzzer starts from.
struct PlantedBug: Sendable, CustomTestStringConvertible {
    /// The mutant and what the explorer says about it.
    var row: MutantCase
    /// The first run's seed (fixed for CI).
    var seed: UInt64
    /// What every process, on every platform, finds from `seed`: the failing run's seed, how long
    /// its walk was, and the shrunk choices (`nil` where not pinned).
    var pinned: (run: UInt64, walk: Int, choices: String)?

    var testDescription: String { "\(row.mutant.name) from seed \(seed)" }

    /// The fuzzing: enough runs that the bug is met; every run is `length` events at most.
    var configuration: FuzzConfiguration { FuzzConfiguration(seed: seed, runs: 60, length: PlantedBug.length) }
    /// Events per walk.
    static let length = 200

    init(_ mutant: String, seed: UInt64, finds pinned: (run: UInt64, walk: Int, choices: String)? = nil) {
        self.row = MutantTable.rows.first { $0.mutant.name == mutant }!
        self.seed = seed
        self.pinned = pinned
    }
}

/// The fuzzer on planted bugs: it finds each from a fixed seed, shrinks it to no more events than
/// the explorer's shortest trace, replays it from the seed alone, and is deterministic.
@Suite("Fuzzer on planted bugs")
struct FuzzerTests {
    /// Seeds fixed in CI, each found within the first runs. The shrinker is not always this good:
    /// see ``shrinkerMissesShorterTraceAfterMenuShift()``.
    static let planted: [PlantedBug] = [
        PlantedBug("staleGrantAccepted", seed: 31, finds: (14_873_797_093_642_526_444, 18, "[i0, i2, a0.0]")),
        PlantedBug("transientFailureEndsTheSession", seed: 1, finds: (10_451_216_379_200_822_465, 66, "[i0, a0.0, i7, a0.3]")),
        PlantedBug("codeResentByItself", seed: 11, finds: (5_833_679_380_957_638_813, 39, "[i0, a0.0, t0]")),
        PlantedBug("replayForgotten", seed: 41, finds: (1_265_094_156_158_224_713, 197, "[i0, a0.0, i2, a0.1, a0.0, a0.1, a0.0]")),
        PlantedBug(
            "expiredTokenAttached", seed: FuzzConfiguration().seed, finds: (13_118_136_202_235_242_217, 118, "[i0, a0.0, t0, a0.3, t0, a0.3, i2]")),
    ]

    /// Each planted bug fuzzed once from its seed, by mutant name (the tests share it; the
    /// determinism test fuzzes again).
    static let fuzzed: [String: FuzzReport] = Dictionary(
        uniqueKeysWithValues: planted.map { ($0.row.mutant.name, $0.row.mutant.fuzz($0.configuration)) })

    /// The failure fuzzing `bug` found.
    static func failure(_ bug: PlantedBug) throws -> FuzzFailure {
        try #require(fuzzed[bug.row.mutant.name]?.failure, "seed \(bug.seed): no violation in \(bug.configuration.runs) runs")
    }

    /// The explorer's shortest trace to the planted bug's violation.
    static func shortest(_ bug: PlantedBug) throws -> Violation {
        let report = bug.row.mutant.explore(limits: ExplorationLimits(maxDepth: bug.row.shortest + 2))
        return try #require(report.violations.first { $0.invariant == bug.row.invariant })
    }

    @Test("the fuzzer finds each planted bug from its fixed seed, shrunk to no more events than the explorer's shortest trace", arguments: planted)
    func findsAndShrinks(_ bug: PlantedBug) throws {
        let failure = try Self.failure(bug)
        #expect(failure.violation.invariant == bug.row.invariant, "\(failure)")
        let explorer = try Self.shortest(bug)
        #expect(failure.violation.trace.count <= explorer.trace.count, "shrunk: \(failure)\nexplorer: \(explorer)")
        #expect(failure.originalLength >= failure.violation.trace.count)
    }

    @Test("replaying a fuzz failure from its seed reproduces it exactly", arguments: planted)
    func replayReproduces(_ bug: PlantedBug) throws {
        let failure = try Self.failure(bug)
        let replayed = try #require(bug.row.mutant.replay(seed: failure.seed, length: PlantedBug.length), "seed \(failure.seed) replays clean")
        #expect(replayed == failure)
        #expect(replayed.description == failure.description)
        // The shrunk choices alone lead to the same violation, step for step.
        #expect(bug.row.run(failure.choices) == failure.violation)
    }

    @Test("the same seed gives the same trace, byte for byte", arguments: planted)
    func deterministic(_ bug: PlantedBug) throws {
        let first = try Self.failure(bug)
        let second = try #require(bug.row.mutant.fuzz(bug.configuration).failure)
        #expect(Array(first.description.utf8) == Array(second.description.utf8))
        #expect(first.choices == second.choices)
        #expect(first.originalLength == second.originalLength)
    }

    /// Swift's hashing is seeded per process: a walk that depended on a `Set` or `Dictionary`
    /// order would differ between runs of the suite, which comparing two fuzzings in one process
    /// cannot see. These were recorded once and must come out the same everywhere.
    @Test("each planted bug's failure is the same in every process", arguments: planted)
    func sameInEveryProcess(_ bug: PlantedBug) throws {
        let pinned = try #require(bug.pinned)
        let failure = try Self.failure(bug)
        #expect(failure.seed == pinned.run)
        #expect(failure.originalLength == pinned.walk)
        #expect("\(failure.choices)" == pinned.choices, "\(failure)")
    }

    @Test("different seeds walk differently")
    func seedsMatter() {
        let bug = PlantedBug("transientFailureEndsTheSession", seed: 0)
        let walks = Set((1...6).map { n -> [Int] in
            let failure = bug.row.mutant.replay(seed: FuzzConfiguration(seed: UInt64(n)).seed(ofRun: 0), length: PlantedBug.length)
            return [failure?.originalLength ?? -1, failure?.violation.trace.count ?? -1]
        })
        #expect(walks.count > 1, "six seeds, one walk: \(walks)")
    }

    @Test("SplitMix64 gives the published sequence for seed 0")
    func splitMix64() {
        var random = SplitMix64(seed: 0)
        // The first outputs of the reference implementation (Vigna, splitmix64.c) from state 0.
        #expect([random.next(), random.next(), random.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var bounded = SplitMix64(seed: 42)
        #expect((0..<1_000).allSatisfy { _ in (0..<7).contains(bounded.below(7)) })
    }

    /// Intent choices are menu positions, and the session menu offers `call` only while no call
    /// is pending, so dropping a call shifts every later intent by one: the shrinker's candidates
    /// then mean other intents, and its simplification only tries smaller positions. From this
    /// seed it stops at 6 events (call, 401, credentials rejected) where the explorer needs 4.
    @Test("the shrinker reaches the explorer's shortest trace when a dropped call shifts the menu")
    func shrinkerMissesShorterTraceAfterMenuShift() throws {
        let bug = PlantedBug("secondRefreshInFlight", seed: 21)
        let failure = try #require(bug.row.mutant.fuzz(bug.configuration).failure)
        #expect(failure.violation.invariant == bug.row.invariant)
        withKnownIssue("Fuzzer.shrink keeps a 1-minimal, not a shortest, trace (reported to the lead)") {
            #expect(failure.violation.trace.count <= bug.row.shortest, "\(failure)")
        }
    }

    /// `Fuzzer.shrink` simplifies choices over `bestChoices.indices` taken before the loop, while
    /// accepting candidates that apply fewer choices: the array shrinks under the loop and the
    /// next position is out of range (Fuzzer.swift, the simplification loop). Reproduced from
    /// the first run of seed 71 on this mutant.
    @Test("shrinking a failure whose simplification skips a choice does not crash",
          .disabled("crashes the test process today: index out of range in Fuzzer.shrink (reported to the lead)"))
    func shrinkingSurvivesSkippedChoices() {
        let bug = PlantedBug("rotatedTokenLost", seed: 71)
        let failure = bug.row.mutant.replay(seed: bug.configuration.seed(ofRun: 0), length: PlantedBug.length)
        #expect(failure?.violation.invariant == bug.row.invariant)
    }
}
