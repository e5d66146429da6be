import AuthCore
import Testing

@testable import AuthVerification

/// A sign-in model whose menu depends on the raw request counter, which the fingerprint leaves
/// out (request ids are renamed in order of appearance): after an attempt that failed, the user
/// enters credentials again in the initial world under renaming, but the counter has moved on,
/// and the menu comes rotated. What a menu built from an id's own name does.
func counterDependent(_ breaks: Bool) -> SignInTestModel {
    SignInTestModel(
        menu: { snapshot in
            let menu = Menus.passwordSignIn(.username)
            guard breaks, snapshot.world.state.context.next > 1 else { return menu }
            return Array(menu.dropFirst()) + [menu[0]]
        }, build: { [] })
}

@Suite("The model contract is checked ahead of time")
struct ContractCheckTests {
    /// The shipped models are explored to closure (or a bound) by `authflow verify`, trusting that
    /// every world with one fingerprint offers the moves of the first: this shows they do, on each
    /// single flow's first worlds, so their explorations are not silently narrowed. `authflow
    /// verify` checks every shipped model's first 1,000 worlds before exploring it, at its bounds
    /// and at 4/2, in an optimized build (here, 2,000 worlds of the sessions and apps took 97 s).
    @Test(
        "each single flow keeps intents(in:)'s contract on its first 2,000 worlds",
        arguments: Models.lifecycles.filter { !$0.name.hasPrefix("session.") && $0.name != "realtimeConnection" })
    func shippedModelsKeepIt(_ model: AnyModel) {
        let report = model.checkContract(states: 2_000)
        #expect(report.finding == nil, "\(report.finding.map(String.init(describing:)) ?? "")")
        #expect(report.states > 1)
        #expect(report.compared > 0, "some fingerprint is met again, so something was compared")
    }

    @Test("a menu that depends on a request id's own name is caught, with a trace to the world that breaks it")
    func catchesNameDependentMenu() throws {
        let kept = ContractCheck.check(counterDependent(false))
        #expect(kept.passed)
        #expect(kept.compared > 0)

        let report = ContractCheck.check(counterDependent(true))
        let finding = try #require(report.finding)
        #expect(finding.kind == .brokenModelContract)
        #expect(finding.detail.contains("two worlds with one fingerprint offer different moves"))
        #expect(
            finding.trace.last?.phase == "enteringCredentials", "the trace reaches the credentials entered again after an attempt: \(finding.trace)")
    }

    @Test("a menu that loses an intent on a later read is caught, and says how many moves each offers")
    func catchesShrinkingMenu() throws {
        let report = ContractCheck.check(unsteady(.shrinks) { [] })
        let finding = try #require(report.finding)
        #expect(finding.detail.contains("the first offers"), "\(finding.detail)")
    }

    @Test("a menu rotated on a later read is caught: the same number of moves, leading elsewhere")
    func catchesRotatedMenu() throws {
        let report = ContractCheck.check(unsteady(.rotates) { [] })
        let finding = try #require(report.finding)
        #expect(finding.detail.contains("leads to"), "\(finding.detail)")
        #expect(!finding.detail.contains("the first offers"), "\(finding.detail)")
    }
}
