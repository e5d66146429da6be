import AuthCore
import AuthVerification
import Testing

/// The README's "Verifying your own composition" example, with a real composition: Subspace's
/// app as an embedding app would write it, declaring what it cannot reach by design.
@Suite("README example")
struct ReadmeExampleTests {
    static let myComposition = Apps.subspace()

    static func myMenu(_ snapshot: Snapshot<SubspaceApp>) -> [SubspaceApp.Intent] {
        var menu: [SubspaceApp.Intent] = Menus.registration([.nameEmailPassword]).compactMap { myComposition.route($0) }
        menu += Menus.passwordSignIn(.email).compactMap { myComposition.route($0) }
        menu += Menus.nativeSignIn.compactMap { myComposition.route($0) }
        menu += Menus.session(in: snapshot, callers: 1).map { .session($0) }
        return menu
    }

    static let unreachable = [
        "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
        "SessionLifecycle.Phase.passwordSetupRequired": "never demanded", "SessionLifecycle.Phase.passwordChangeRequired": "idem",
        "PasswordSignIn.Phase.pendingApproval": "no approval gate", "Registration.Phase.awaitingVerification": "register signs in",
        "Registration.Phase.pendingApproval": "idem", "OAuthSignIn.Phase.fetchingURL": "native sign-in only",
        "OAuthSignIn.Phase.awaitingCallback": "idem",
    ]

    /// The README's model of `myComposition`.
    static var model: Model<SubspaceApp> {
        Model(
            name: "myApp", machine: Self.myComposition, replies: ReplyCatalogue(), relaunches: true, unreachableByDesign: Self.unreachable,
            timeHorizon: .zero
        ) { snapshot in
            Self.myMenu(snapshot)
        }
    }

    @Test("my app's sign-in and session hold every invariant")
    func myApp() {
        let report = Explorer.explore(Self.model)
        #expect(report.passed, "\(report.violations) \(report.findings)")
        #expect(report.states > 10)
    }

    @Test("my app's menu keeps the model contract, checked ahead of time as the README says")
    func myMenuKeepsTheContract() {
        let report = ContractCheck.check(Self.model, states: 2_000)
        #expect(report.passed, "\(report.finding.map(String.init(describing:)) ?? "")")
        #expect(report.compared > 0)
    }
}
