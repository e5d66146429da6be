import AuthCore
import AuthVerification
import Synchronization
import Testing

/// A read counter shared by the copies of a model.
final class ReadCounter: Sendable {
    let reads = Atomic<Int>(0)
}

/// A model of its own, as an embedding app writes one, that builds its invariants at every read
/// (as the protocol's default does) and counts the reads.
struct CountingModel: LifecycleModel {
    let counter = ReadCounter()

    var name: String { "counting" }
    var machine: PasswordSignIn { PasswordSignIn(identifiers: .username) }
    var replies: ReplyCatalogue { ReplyCatalogue(grants: [.init(withRefreshToken: true)]) }
    var relaunches: Bool { false }
    var finalCases: [String] { ["signedIn"] }
    func intents(in snapshot: Snapshot<PasswordSignIn>) -> [PasswordSignIn.Intent] { Menus.passwordSignIn(.username) }
    var invariants: [Invariant<PasswordSignIn>] {
        counter.reads.add(1, ordering: .relaxed)
        return Catalogue.all(codes: codeRules)
    }
}

@Suite("Model requirements are read once per run")
struct ModelRequirementTests {
    @Test("the fuzzer reads a model's invariants once per fuzz, not at every step, so their memos last the run")
    func fuzzerReadsInvariantsOnce() {
        let model = CountingModel()
        let report = Fuzzer.fuzz(model, FuzzConfiguration(seed: 7, runs: 3, length: 50))
        #expect(report.failure == nil)
        #expect(report.events > 3)
        #expect(model.counter.reads.load(ordering: .relaxed) == 1)
    }

    @Test("the explorer reads them once too")
    func explorerReadsInvariantsOnce() {
        let model = CountingModel()
        let report = Explorer.explore(model, limits: ExplorationLimits())
        #expect(report.violations.isEmpty)
        #expect(model.counter.reads.load(ordering: .relaxed) == 1)
    }
}
