import AuthCore
import Testing

@testable import AuthVerification

/// A fuzzing session follows the transitions it already stepped and checked instead of stepping
/// them again (``CheckedTransitions``). That must change no walk: the choice a random number
/// picks depends only on the menu's shape, which is the same at every world with one fingerprint.
@Suite("The fuzzer's reuse of checked transitions")
struct FuzzerReuseTests {
    /// Fuzzes `model` with and without reuse from one seed; expects the same walks, choice for
    /// choice, and the same report. Returns the report with reuse.
    @discardableResult
    func compare<M: LifecycleModel>(_ model: M, runs: Int = 60, length: Int = 300, seed: UInt64 = 0x5EED) -> FuzzReport {
        var reused: [[Choice]] = []
        var afresh: [[Choice]] = []
        let withReuse = Fuzzer.fuzz(model, FuzzConfiguration(seed: seed, runs: runs, length: length), walked: { reused.append($0) })
        let without = Fuzzer.fuzz(
            model, FuzzConfiguration(seed: seed, runs: runs, length: length, reusesCheckedTransitions: false), walked: { afresh.append($0) })
        #expect(reused.count == afresh.count, "\(model.name)")
        for (run, (a, b)) in zip(reused, afresh).enumerated() where a != b {
            let first = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? a.count
            Issue.record("\(model.name): run \(run) differs from choice \(first) on (\(a.count) and \(b.count) choices)")
            break
        }
        #expect(withReuse.events == without.events, "\(model.name)")
        #expect(withReuse.failure == without.failure, "\(model.name)")
        #expect(without.freshEvents == without.events, "\(model.name): without reuse every event is stepped")
        return withReuse
    }

    @Test("every shipped lifecycle model walks the same with reuse as without, choice for choice, and reuses most steps")
    func lifecycles() {
        for report in [
            compare(Models.codeRegistration()), compare(Models.oneTimeCode(.email)), compare(Models.oneTimeCode(.phone)),
            compare(Models.passwordSignIn()), compare(Models.registration()), compare(Models.passwordReset(.emailCodeWithAutoLogin)),
            compare(Models.passwordReset(.emailedToken)), compare(Models.passwordReset(.emailLink)), compare(Models.oauth()),
            compare(Models.session(.anonymousWall)), compare(Models.session(.everday)), compare(Models.session(.subspace)),
            compare(Models.session(.hero365)), compare(Models.realtime()),
        ] {
            // 18,000 events over at most a few hundred worlds: most moves are met again.
            #expect(report.freshEvents * 2 < report.events, "\(report.model): \(report.freshEvents) of \(report.events) stepped afresh")
        }
    }

    @Test("every shipped app model walks the same with reuse as without, choice for choice", arguments: 0..<5)
    func apps(_ index: Int) {
        switch index {
        case 0: compare(Models.anonymousWallApp())
        case 1: compare(Models.vynqTalkApp())
        case 2: compare(Models.everdayApp())
        case 3: compare(Models.subspaceApp())
        default: compare(Models.hero365App())
        }
    }

    @Test("a session past its capacity steps the rest afresh and still walks the same")
    func pastCapacity() {
        pastCapacity(Models.session(.everday))
    }

    func pastCapacity<M: LifecycleModel>(_ model: M) {
        var capped: [[Choice]] = []
        var afresh: [[Choice]] = []
        let environment = Environment(model: model)
        var held = Set<Fingerprint>()
        let checked = CheckedTransitions<M>(capacity: 20)
        for run in 0..<30 {
            let seed = FuzzConfiguration(seed: 7).seed(ofRun: run)
            capped.append(Fuzzer.walk(environment, seed: seed, length: 300, held: &held, checked: checked).choices)
        }
        var heldAfresh = Set<Fingerprint>()
        for run in 0..<30 {
            let seed = FuzzConfiguration(seed: 7).seed(ofRun: run)
            afresh.append(Fuzzer.walk(environment, seed: seed, length: 300, held: &heldAfresh, checked: nil).choices)
        }
        #expect(checked.snapshots.count == 20)
        #expect(capped == afresh)
    }
}
