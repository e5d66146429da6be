import AuthCore
import AuthSupport
import Testing

@testable import AuthVerification

/// Which worlds (by fingerprint) a state invariant was shown, in order.
final class FingerprintLog: Sendable {
    let seen = Locked<[Fingerprint]>([])
}

@Suite("The fuzzer's state checks")
struct FuzzerStateCheckTests {
    @Test(
        "over a fuzz session on one thread the state invariants see each world (fingerprint) once: one whose invariants held holds again, as the explorer relies on"
    )
    func eachWorldCheckedOnce() {
        let log = FingerprintLog()
        let model = SignInTestModel {
            [
                Invariant(
                    "logs", source: "test",
                    .state { snapshot in
                        log.seen.withLock { $0.append(snapshot.fingerprint) }
                        return nil
                    })
            ]
        }
        // On one thread: each thread holds the worlds it checked.
        let report = Fuzzer.fuzz(model, FuzzConfiguration(seed: 11, runs: 4, length: 200, threads: 1))
        #expect(report.failure == nil)
        let seen = log.seen.withLock { $0 }
        #expect(Set(seen).count == seen.count)
        // The walks come back to worlds they saw (a model of a few states, 800 events): without
        // the skip the log would hold far more checks than worlds.
        #expect(!seen.isEmpty && seen.count * 10 < report.events)
    }

    @Test("skipping worlds that held hides no violation: the walk, its replay from the seed and the shrinker's replays all find the failing world")
    func failingWorldFailsAgain() throws {
        let model = SignInTestModel {
            [
                Invariant(
                    "never signed in", source: "test",
                    .state { snapshot in
                        snapshot.casePath == "signedIn" ? "signed in" : nil
                    })
            ]
        }
        let report = Fuzzer.fuzz(model, FuzzConfiguration(seed: 3, runs: 5, length: 100))
        let failure = try #require(report.failure)
        #expect(failure.violation.invariant == "never signed in")
        // The shrinker replays shorter walks many times: it could shrink only because its
        // replays found the violation again.
        #expect(failure.choices.count >= 2 && failure.choices.count < failure.originalLength)
        #expect(Fuzzer.replay(model, seed: failure.seed, length: 100)?.choices == failure.choices)
    }

    @Test("a step and a state invariant failing at one step: the fuzzer reports the one listed first, of either kind")
    func firstInCatalogueOrder() throws {
        let step = Invariant<PasswordSignIn>("step", source: "test", .step { $0.after.casePath == "signedIn" ? "step broken" : nil })
        let state = Invariant<PasswordSignIn>("state", source: "test", .state { $0.casePath == "signedIn" ? "state broken" : nil })
        for (invariants, first) in [([step, state], "step"), ([state, step], "state")] {
            let report = Fuzzer.fuzz(SignInTestModel { invariants }, FuzzConfiguration(seed: 3, runs: 5, length: 100))
            let failure = try #require(report.failure)
            #expect(failure.violation.invariant == first)
        }
    }
}
