import AuthCore
import Testing

@testable import AuthVerification

/// A fuzzing session walks on several threads, walk `n` on thread `n` modulo their number. That
/// must change nothing it reports but the events stepped afresh: the same walks, choice for
/// choice, the same events, and the first failing walk in run order, shrunk the same way.
@Suite("The fuzzer on several threads")
struct FuzzerThreadsTests {
    /// `model` fuzzed from one seed on `threads` threads: the report and every walk's choices.
    func fuzz<M: LifecycleModel>(_ model: M, threads: Int, reuse: Bool, runs: Int, seed: UInt64) -> (FuzzReport, [[Choice]]) {
        var walks: [[Choice]] = []
        let configuration = FuzzConfiguration(seed: seed, runs: runs, length: 200, reusesCheckedTransitions: reuse, threads: threads)
        let report = Fuzzer.fuzz(model, configuration, walked: { walks.append($0) })
        return (report, walks)
    }

    /// Expects `model` fuzzed on 2 and 3 threads to report what one thread reports.
    func expectSameOnEveryThreadCount<M: LifecycleModel>(_ model: M, reuse: Bool, runs: Int = 40, seed: UInt64 = 0x5EED) {
        let (one, walks) = fuzz(model, threads: 1, reuse: reuse, runs: runs, seed: seed)
        #expect(walks.count == one.runs, "\(model.name): every walk up to the first failing one is shown")
        for threads in [2, 3] {
            let (report, theirs) = fuzz(model, threads: threads, reuse: reuse, runs: runs, seed: seed)
            #expect(theirs == walks, "\(model.name) on \(threads) threads: other walks")
            #expect(report.runs == one.runs, "\(model.name) on \(threads) threads")
            #expect(report.events == one.events, "\(model.name) on \(threads) threads")
            #expect(report.failure == one.failure, "\(model.name) on \(threads) threads")
            if !reuse { #expect(report.freshEvents == report.events, "\(model.name): without reuse every event is stepped") }
        }
    }

    @Test("a clean model walks the same on one, two and three threads, with reuse and without", arguments: [true, false])
    func clean(_ reuse: Bool) {
        expectSameOnEveryThreadCount(Models.session(.everday), reuse: reuse)
        expectSameOnEveryThreadCount(Models.oneTimeCode(.email), reuse: reuse)
    }

    /// Planted bugs the default seed's first walk misses: a later walk fails first in run order,
    /// and a thread past it may have failed earlier in time.
    @Test(
        "a broken reducer is reported at the same walk, shrunk the same, on one, two and three threads",
        arguments: ["secondRefreshInFlight", "lateRefreshPersisted", "slowDownIgnored", "attemptsNeverCounted"])
    func broken(_ mutant: String) throws {
        let row = try #require(MutantTable.rows.first { $0.mutant.name == mutant })
        func fuzz(threads: Int) -> FuzzReport {
            row.mutant.fuzz(FuzzConfiguration(runs: 400, length: 200, threads: threads))
        }
        let one = fuzz(threads: 1)
        let failure = try #require(one.failure, "\(mutant): no failure")
        #expect(failure.seed != FuzzConfiguration().seed(ofRun: 0), "\(mutant): the first walk fails; pick a mutant it misses")
        for threads in [2, 3] {
            let report = fuzz(threads: threads)
            #expect(report.failure == failure, "\(mutant) on \(threads) threads")
            #expect(report.runs == one.runs && report.events == one.events, "\(mutant) on \(threads) threads")
        }
    }
}
