import AuthCore
import AuthSupport
import Testing

@testable import AuthVerification

/// How a menu read again differs, for ``unsteady(_:_:)``.
enum MenuBreak: Sendable { case none, rotates, shrinks }

/// The sign-in test model whose menu breaks ``LifecycleModel/intents(in:)``'s contract when told
/// to: the first read of a world's intents gets the menu, every later read of a world with that
/// fingerprint gets it rotated by one, or without its last intent (what a menu built from state
/// outside the world, or from absolute times, does). The explorer reads each world's menu once
/// while it explores, and again when it replays a trace to report it.
func unsteady(_ breaks: MenuBreak, _ build: @escaping @Sendable () -> [Invariant<PasswordSignIn>]) -> SignInTestModel {
    let read = FingerprintSet()
    return SignInTestModel(
        menu: { snapshot in
            let menu = Menus.passwordSignIn(.username)
            let first = read.set.withLock { $0.insert(snapshot.fingerprint).inserted }
            switch breaks {
            case _ where first, .none: return menu
            case .rotates: return Array(menu.dropFirst()) + [menu[0]]
            case .shrinks: return Array(menu.dropLast())
            }
        }, build: build)
}

/// Fingerprints met so far.
final class FingerprintSet: Sendable {
    let set = Locked<Set<Fingerprint>>([])
}

/// A count shared by the calls of one invariant.
final class CallCount: Sendable {
    let count = Locked(0)
}

/// Fails the `failing`-th time it is shown a transition, and never again: an invariant that
/// depends on more than what it is shown.
func failsOnce(at failing: Int) -> Invariant<PasswordSignIn> {
    let calls = CallCount()
    return Invariant(
        "fails once", source: "test",
        .step { _ in
            calls.count.withLock { count in
                count += 1
                return count == failing ? "failed on call \(failing)" : nil
            }
        })
}

@Suite("A model that breaks its contract is reported, never trusted and never a crash")
struct ModelContractTests {
    static let neverSignedIn = Invariant<PasswordSignIn>(
        "never signed in", source: "test",
        .state { snapshot in
            snapshot.casePath == "signedIn" ? "signed in" : nil
        })

    @Test("the explorer replays each trace it reports and flags one that does not lead where it went; a model keeping the contract is not flagged")
    func explorerFlagsUnfaithfulTrace() throws {
        let menu = Menus.passwordSignIn(.username)
        #expect(menu.count >= 2 && Set(menu).count == menu.count, "rotating by one moves every intent")

        let steady = Explorer.explore(unsteady(.none) { [Self.neverSignedIn] })
        let kept = try #require(steady.violations.first)
        #expect(kept.trace.last?.phase == "signedIn", "the trace replays to the violation")
        #expect(!steady.findings.contains { $0.kind == .brokenModelContract }, "\(steady.findings)")

        let rotating = Explorer.explore(unsteady(.rotates) { [Self.neverSignedIn] })
        let broken = try #require(rotating.findings.first { $0.kind == .brokenModelContract }, "\(rotating.findings)")
        #expect(broken.detail.contains("does not replay from the initial world"))
        #expect(broken.detail.contains("intents(in:)"))
        #expect(rotating.findings.filter { $0.kind == .brokenModelContract }.count == 1, "reported once, for the first trace")
    }

    @Test("a capped exploration's deepest trace is checked too")
    func deepestTraceChecked() throws {
        let limits = ExplorationLimits(maxStates: 4)
        let steady = Explorer.explore(unsteady(.none) { [] }, limits: limits)
        #expect(!steady.complete && !steady.deepestTrace.isEmpty)
        #expect(steady.findings.isEmpty, "\(steady.findings)")
        let rotating = Explorer.explore(unsteady(.rotates) { [] }, limits: limits)
        #expect(rotating.findings.map(\.kind) == [.brokenModelContract], "\(rotating.findings)")
    }

    @Test(
        "a walk that fails but not when stepped afresh is reported as a broken contract with its seed and choices, with reuse and without",
        arguments: [true, false])
    func fuzzerReportsUnreproducibleWalk(reuse: Bool) throws {
        let model = unsteady(.none) { [failsOnce(at: 10)] }
        let report = Fuzzer.fuzz(model, FuzzConfiguration(seed: 5, runs: 3, length: 100, reusesCheckedTransitions: reuse))
        let failure = try #require(report.failure)
        #expect(failure.violation.invariant == Fuzzer.brokenContractName)
        #expect(failure.violation.message.contains("broke “fails once” after \(failure.choices.count) events"))
        let why = reuse ? "the same seed walked afresh (as `replay` does) takes other moves" : "its moves replayed afresh do not break it again"
        #expect(failure.violation.message.contains(why), "\(failure.violation.message)")
        #expect(failure.choices.count == failure.originalLength, "reported as found: there is nothing to shrink towards")
        #expect(failure.violation.trace.count == failure.choices.count)
    }

    @Test("a world the session keeps whose menu, read again, lacks the move picked from its first reading is reported, not trapped")
    func fuzzerReportsShrunkMenu() throws {
        // On one thread: the model's memory of the worlds whose menus it showed is shared, so on
        // two a thread's first reading of a world may already be the shrunk one, and agree with
        // every later reading.
        let report = Fuzzer.fuzz(unsteady(.shrinks) { [] }, FuzzConfiguration(seed: 5, runs: 20, length: 100, threads: 1))
        let failure = try #require(report.failure)
        #expect(failure.violation.invariant == Fuzzer.brokenContractName)
        #expect(failure.violation.message.contains("no longer offers move i"), "\(failure.violation.message)")
        #expect(failure.choices.count == failure.originalLength)
    }

    @Test("replay of such a walk reports the same instead of trapping")
    func replayReportsUnreproducibleWalk() throws {
        let model = unsteady(.none) { [failsOnce(at: 3)] }
        let failure = try #require(Fuzzer.replay(model, seed: 9, length: 50))
        #expect(failure.violation.invariant == Fuzzer.brokenContractName)
        #expect(failure.choices.count == 3)
    }

    @Test("a model keeping the contract still shrinks and replays its failures as before")
    func keptContractShrinks() throws {
        let model = unsteady(.none) { [Self.neverSignedIn] }
        let report = Fuzzer.fuzz(model, FuzzConfiguration(seed: 3, runs: 5, length: 100))
        let failure = try #require(report.failure)
        #expect(failure.violation.invariant == "never signed in")
        #expect(Fuzzer.replay(model, seed: failure.seed, length: 100)?.choices == failure.choices)
    }
}
