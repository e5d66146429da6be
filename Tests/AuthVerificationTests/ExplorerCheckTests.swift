import AuthCore
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
}
