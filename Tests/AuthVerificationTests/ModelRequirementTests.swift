import AuthCore
import AuthVerification
import Synchronization
import Testing

/// A read counter shared by the copies of a model.
final class ReadCounter: Sendable {
    let reads = Atomic<Int>(0)
}

/// A password sign-in model of a test's own, as an embedding app writes one, whose invariants
/// `build` makes at every read (as the protocol's default does); `menu` gives its intents.
struct SignInTestModel: LifecycleModel {
    var menu: @Sendable (Snapshot<PasswordSignIn>) -> [PasswordSignIn.Intent] = { _ in Menus.passwordSignIn(.username) }
    let build: @Sendable () -> [Invariant<PasswordSignIn>]

    var name: String { "test" }
    var machine: PasswordSignIn { PasswordSignIn(identifiers: .username) }
    var replies: ReplyCatalogue { ReplyCatalogue(grants: [.init(withRefreshToken: true)]) }
    var relaunches: Bool { false }
    var finalCases: [String] { ["signedIn"] }
    func intents(in snapshot: Snapshot<PasswordSignIn>) -> [PasswordSignIn.Intent] { menu(snapshot) }
    var invariants: [Invariant<PasswordSignIn>] { build() }
}

/// The catalogue, counting its reads.
func countingModel(_ counter: ReadCounter) -> SignInTestModel {
    SignInTestModel {
        counter.reads.add(1, ordering: .relaxed)
        return Catalogue.all(codes: nil)
    }
}

@Suite("Model requirements are read once per run")
struct ModelRequirementTests {
    @Test("the fuzzer reads a model's invariants once per fuzz, not at every step, so their memos last the run")
    func fuzzerReadsInvariantsOnce() {
        let counter = ReadCounter()
        let report = Fuzzer.fuzz(countingModel(counter), FuzzConfiguration(seed: 7, runs: 3, length: 50))
        #expect(report.failure == nil)
        #expect(report.events > 3)
        #expect(counter.reads.load(ordering: .relaxed) == 1)
    }

    @Test("the explorer reads them once too")
    func explorerReadsInvariantsOnce() {
        let counter = ReadCounter()
        let report = Explorer.explore(countingModel(counter), limits: ExplorationLimits())
        #expect(report.violations.isEmpty)
        #expect(counter.reads.load(ordering: .relaxed) == 1)
    }
}
