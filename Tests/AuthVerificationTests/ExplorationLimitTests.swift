import AuthCore
import AuthSupport
import AuthVerification
import Testing

/// A user can bound an exploration of a model of unknown size, by time or states, and see it go:
/// a bounded run reports how far it came ("not closed: explored N states to depth D"), never
/// silence and never a pass.
@Suite("Exploration limits and progress")
struct ExplorationLimitTests {
    /// A model far larger than a short time limit lets the explorer close (a rotating session
    /// at 4 in flight and 2 left over: tens of thousands of states).
    static var large: AnyModel { AnyModel(Models.session(.everday)).bounded(inFlight: 4, stale: 2) }

    @Test("a time limit stops a large model short of closure: not closed, how far it came, and no pass")
    func timeLimit() {
        let report = Self.large.explore(limits: ExplorationLimits(maxDuration: .milliseconds(200)))
        #expect(!report.complete)
        #expect(report.limitReached == .time)
        #expect(!report.passed)
        #expect(report.violations.isEmpty)
        #expect(report.states > 1)
        #expect(report.verdict.hasPrefix("not closed: explored \(report.states) states to depth \(report.depth) (the time limit stopped it)"))
        // Loose on purpose: the limit is checked every 1,024 states, so it stops soon after it.
        #expect(report.seconds < 60, "\(report.seconds) s")
    }

    @Test("a state limit says it was the state limit; a depth limit, the depth limit")
    func stateAndDepthLimits() {
        let byStates = AnyModel(Models.passwordSignIn()).explore(limits: ExplorationLimits(maxStates: 4))
        #expect(byStates.limitReached == .states)
        #expect(byStates.states == 4)
        #expect(byStates.verdict.contains("(the state limit stopped it)"), "\(byStates.verdict)")
        // One state is one state, not "1 states".
        let one = AnyModel(Models.passwordSignIn()).explore(limits: ExplorationLimits(maxStates: 1))
        #expect(one.states == 1)
        #expect(
            one.verdict
                == "not closed: explored 1 state to depth 0 (the state limit stopped it); no invariant failed in it, and the structure was not checked"
        )
        let byDepth = AnyModel(Models.passwordSignIn()).explore(limits: ExplorationLimits(maxDepth: 1))
        #expect(byDepth.limitReached == .depth)
        #expect(byDepth.verdict.contains("(the depth limit stopped it)"), "\(byDepth.verdict)")
    }

    @Test("a model explored to closure reaches no limit and its verdict says closed")
    func closure() {
        let report = AnyModel(Models.passwordSignIn()).explore()
        #expect(report.passed)
        #expect(report.limitReached == nil)
        #expect(report.verdict == "closed: \(report.states) states to depth \(report.depth); every invariant holds and the structure is sound")
    }

    @Test("progress is reported as the exploration goes: a level at a time, more states, deeper, with a rate")
    func progress() {
        let seen = Locked<[ExplorationProgress]>([])
        let report = AnyModel(Models.session(.everday)).explore(
            limits: ExplorationLimits(maxStates: 3_000), progress: { now in seen.withLock { $0.append(now) } })
        let reports = seen.withLock { $0 }
        #expect(reports.count >= 5, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.states <= $1.states && $0.depth <= $1.depth && $0.transitions <= $1.transitions })
        #expect(
            reports.last.map { $0.states == report.states && $0.depth > reports[0].depth && $0.transitions > reports[0].transitions } == true,
            "\(reports)")
        #expect(reports.last?.description.contains(" states/s, ") == true)
    }
}
