import AuthCore
import AuthSupport
@testable import AuthVerification
import Testing

/// The explorer steps each breadth-first level's moves on several threads and takes in what they
/// found in the order one thread meets it: nothing in a report but its timing may depend on the
/// number of threads.
@Suite("Exploring on several threads")
struct ThreadedExplorationTests {
    /// Everything a report says but how long it took.
    struct Outcome: Equatable, CustomStringConvertible {
        var states: Int
        var transitions: Int
        var depth: Int
        var complete: Bool
        var limitReached: ExplorationLimit?
        var violations: [Violation]
        var findings: [Finding]
        var edges: [ProjectedEdge]
        var levels: [Int]
        var statesPerCase: [String: Int]
        var deepestTrace: [TraceStep]

        init(_ report: ExplorationReport) {
            states = report.states
            transitions = report.transitions
            depth = report.depth
            complete = report.complete
            limitReached = report.limitReached
            violations = report.violations
            findings = report.findings
            edges = report.edges
            levels = report.levels
            statesPerCase = report.statesPerCase
            deepestTrace = report.deepestTrace
        }

        var description: String {
            "\(states) states, \(transitions) transitions, depth \(depth), \(violations.map(\.invariant)), \(findings.count) findings"
        }
    }

    /// `model` explored within `limits` on each number of `threads`.
    static func outcomes(_ model: AnyModel, _ limits: ExplorationLimits, threads: [Int] = [1, 2, 3]) -> [Outcome] {
        threads.map { threads in
            var limits = limits
            limits.threads = threads
            return Outcome(model.explore(limits: limits))
        }
    }

    @Test("a shipped app explored to closure: the same states, transitions, edges and cases on 1, 2 and 3 threads")
    func closedModel() {
        let outcomes = Self.outcomes(AnyModel(Models.vynqTalkApp()), ExplorationLimits())
        #expect(outcomes[0].complete)
        #expect(outcomes[0].findings.isEmpty)
        #expect(outcomes[1] == outcomes[0], "\(outcomes[1]) against \(outcomes[0])")
        #expect(outcomes[2] == outcomes[0], "\(outcomes[2]) against \(outcomes[0])")
    }

    @Test("levels of more than one chunk, cut by a state limit or a depth limit: the same on 1 and 2 threads")
    func limits() {
        // Levels of 688 and 1,387 states at depths 7 and 8: more than one chunk each.
        let model = AnyModel(Models.session(.everday)).bounded(inFlight: 4, stale: 2)
        for limits in [ExplorationLimits(maxStates: 2_000), ExplorationLimits(maxDepth: 8)] {
            let outcomes = Self.outcomes(model, limits, threads: [1, 2])
            #expect(!outcomes[0].complete)
            #expect((outcomes[0].levels.max() ?? 0) > 512, "\(outcomes[0].levels)")
            #expect(outcomes[1] == outcomes[0], "\(outcomes[1]) against \(outcomes[0])")
        }
    }

    @Test("each broken reducer: the same violations, with the same shortest traces, on 1, 2 and 3 threads", arguments: MutantTable.rows)
    func brokenReducer(_ row: MutantCase) {
        let outcomes = Self.outcomes(row.mutant, ExplorationLimits(maxStates: 200_000, maxDepth: row.shortest + 2))
        #expect(!outcomes[0].violations.isEmpty, "\(outcomes[0])")
        #expect(outcomes[1] == outcomes[0], "\(outcomes[1]) against \(outcomes[0])")
        #expect(outcomes[2] == outcomes[0], "\(outcomes[2]) against \(outcomes[0])")
    }

    @Test("concurrentMap gives each index's result once, in index order, on any number of threads", arguments: [1, 2, 3, 8])
    func concurrentMapKeepsOrder(_ threads: Int) {
        let counted = Locked([Int](repeating: 0, count: 1_000))
        let results = concurrentMap(1_000, threads: threads) { index in
            counted.withLock { $0[index] += 1 }
            return index * index
        }
        #expect(results == (0..<1_000).map { $0 * $0 })
        #expect(counted.withLock { $0 }.allSatisfy { $0 == 1 })
        #expect(concurrentMap(0, threads: threads) { $0 }.isEmpty)
    }

    @Test("concurrentMap numbers its threads: two running at once are slots 0 and 1, and the caller's slot is back after")
    func concurrentMapNumbersItsThreads() {
        let before = Worker.slot
        // Each index waits (up to 2 s) until both have started, so that the two run on two threads at
        // once. A busy machine may give the job one thread, which then runs both indices in turn: the
        // first index then never sees the second start, and numbering cannot be told apart from none.
        let started = Locked(0)
        let seen = concurrentMap(2, threads: 2) { _ -> (slot: Int, sawBoth: Bool) in
            started.withLock { $0 += 1 }
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(2)
            while started.withLock({ $0 }) < 2, clock.now < deadline {}
            return (Worker.slot, started.withLock { $0 } == 2)
        }
        let slots = Set(seen.map(\.slot))
        if seen.allSatisfy(\.sawBoth) {
            #expect(slots == [0, 1], "two indices ran at once on one slot")
        } else {
            #expect(slots.isSubset(of: [0, 1]))
        }
        #expect(Worker.slot == before)
        // Nested: the inner job numbers its own threads, and the outer thread's slot is back after it.
        let nested = concurrentMap(4, threads: 2) { _ in
            let outer = Worker.slot
            let inner = concurrentMap(50, threads: 2) { _ in Worker.slot }
            return Set(inner).isSubset(of: [0, 1]) && Worker.slot == outer
        }
        #expect(nested.allSatisfy { $0 })
    }

    @Test("an event table's parts never give two payloads one key, whichever threads number them")
    func eventTablePartsNeverCollide() {
        let table = EventTable<String>()
        let payloads = (0..<300).map { "intent-\($0)" }
        // Every thread numbers every payload: each part numbers all of them in its own order.
        let keys = concurrentMap(4, threads: 4) { thread in
            (thread.isMultiple(of: 2) ? payloads : payloads.reversed()).map { ($0, table.key(.intent($0))) }
        }
        var named: [EventKey: String] = [:]
        for (payload, key) in keys.joined() {
            #expect(named[key, default: payload] == payload, "\(payload) and \(named[key] ?? "") share a key")
            named[key] = payload
        }
        #expect(Set(keys.joined().map(\.1.serial)).count == 1)
    }
}
