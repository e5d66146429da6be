import AuthCore
import Synchronization
import Testing

@testable import AuthVerification

@Suite("The explorer's invariant checks")
struct ExplorerCheckTests {
    /// Three step invariants fail on the same transitions (any move into signed-in), one between
    /// them holds, and two state invariants fail at signed-in: each failing one is reported, with
    /// the same shortest trace.
    @Test("several invariants failing on one transition or state are each reported, with the same shortest trace")
    func everyFailingCheckOfATransition() throws {
        @Sendable func signsIn(_ name: String) -> Invariant<PasswordSignIn> {
            Invariant(name, source: "test", .step { $0.after.casePath == "signedIn" ? "\(name) broken" : nil })
        }
        @Sendable func isSignedIn(_ name: String) -> Invariant<PasswordSignIn> {
            Invariant(name, source: "test", .state { $0.casePath == "signedIn" ? "\(name) broken" : nil })
        }
        let model = SignInTestModel {
            [
                signsIn("first"), Invariant("holds", source: "test", .step { _ in nil }), isSignedIn("fourth"), signsIn("second"),
                isSignedIn("fifth"), signsIn("third"),
            ]
        }
        let report = Explorer.explore(model)
        // The transition's step checks, then the new state's.
        #expect(report.violations.map(\.invariant) == ["first", "second", "third", "fourth", "fifth"])
        let traces = report.violations.map { $0.trace.map(\.choice) }
        #expect(Set(traces).count == 1, "\(traces)")
        #expect(traces.first?.isEmpty == false)
    }

    @Test("the chain of checks gives the first check past a position that fails, in catalogue order")
    func checkChainFindsTheFirstFailure() {
        let chain = CheckChain<Int>([(1, { _ in nil }), (3, { $0 > 0 ? "positive" : nil }), (4, { _ in "always" })])
        #expect(chain.firstFailure(on: 1).map { "\($0.0) \($0.1)" } == "3 positive")
        #expect(chain.firstFailure(on: 0).map(\.0) == 4)
        #expect(chain.firstFailure(on: 1, after: 3).map(\.0) == 4)
        #expect(chain.firstFailure(on: 1, after: 4).map(\.0) == nil)
        #expect(CheckChain<Int>([]).firstFailure(on: 1).map(\.0) == nil)
    }

    /// A sign-in that counts every event in its state (a space without end) and keeps the typed
    /// password there (a violation at the first submit).
    static let unboundedAndBroken = Remembering<PasswordSignIn, String>(PasswordSignIn(identifiers: .username)) {
        base, phase, memory, event, requests in
        memory = (memory ?? "") + "·"
        if case .intent(.submit(_, let password), _, _) = event { memory = (memory ?? "") + password.reveal() }
        return base.step(&phase, event, &requests)
    }

    @Test("a broken reducer whose space has no end is reported at the level of its first violation; keepGoing explores on to the limits")
    func stopsAtTheFirstViolation() {
        let model = SmallModels.PasswordSignInModel()("unbounded", Self.unboundedAndBroken)
        let found = Mutex<[String]>([])
        let stopped = Explorer.explore(model, found: { violation in found.withLock { $0.append(violation.invariant) } })
        #expect(stopped.stoppedAtViolation && !stopped.complete && !stopped.passed)
        #expect(stopped.violations.map(\.invariant).contains("no secret in any description"))
        #expect(found.withLock { $0 } == stopped.violations.map(\.invariant), "each violation is told as it is found")
        #expect(stopped.states < 1_000, "\(stopped.states) states")

        let onwards = Explorer.explore(model, limits: ExplorationLimits(maxStates: 3_000, keepGoing: true))
        #expect(!onwards.stoppedAtViolation && !onwards.complete)
        #expect(onwards.states == 3_000, "the space has no end: only the state limit stops it")
    }

    @Test("without invariant checks an exploration maps the same graph, claims no invariant and reports no violation")
    func uncheckedMapsTheSameGraph() {
        let model = Models.realtime()
        let checked = Explorer.explore(model)
        let unchecked = Explorer.explore(model, limits: ExplorationLimits(checksInvariants: false))
        #expect(checked.complete && unchecked.complete)
        #expect(unchecked.states == checked.states && unchecked.transitions == checked.transitions && unchecked.depth == checked.depth)
        #expect(unchecked.edges == checked.edges)
        #expect(unchecked.statesPerCase == checked.statesPerCase)
        #expect(checked.invariants == model.invariants.count && unchecked.invariants == 0)
        #expect(unchecked.verdict.contains("no invariant checked"), "\(unchecked.verdict)")

        let broken = SmallModels.PasswordSignInModel()("unbounded", Self.unboundedAndBroken)
        #expect(!Explorer.explore(broken, limits: ExplorationLimits(maxStates: 500)).violations.isEmpty)
        let blind = Explorer.explore(broken, limits: ExplorationLimits(maxStates: 500, checksInvariants: false))
        #expect(blind.violations.isEmpty && blind.states == 500 && blind.invariants == 0)
    }
}
