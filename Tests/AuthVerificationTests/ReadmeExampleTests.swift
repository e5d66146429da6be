import AuthCore
import AuthVerification
import Testing

/// The README's "Verifying your own composition" example, on a composition that is no shipped
/// app: five flows as an embedding app composes them — registration and sign-in by email and
/// password, a reset by emailed code that signs in, a session that refreshes with rotation and
/// revokes at logout. Its whole model is derived from the composition: no menu, no case named by
/// hand. The example explores it at 1 request in flight and 1 answer left over, against a server
/// that fails in two ways (a refusal and no network): 1,278 states, a few seconds in a debug build.
@Suite("README example")
struct ReadmeExampleTests {
    // The README's lines, as written there.
    @Test func myAppHoldsEveryInvariant() {
        let model = Model(of: myApp, name: "myApp", maxInFlight: 1, maxStale: 1) { $0.failures = [.unauthorized(nil), .network] }
        let report = Explorer.explore(model)
        #expect(report.passed, "\(report.violations) \(report.findings)")
        #expect(report.states > 1_000, "the derived model reaches every flow, the refresh and the revocation")
    }

    @Test("my app's derived menu keeps the model contract, checked ahead of time as the README says")
    func myMenuKeepsTheContract() {
        let model = Model(of: myApp, name: "myApp", maxInFlight: 1, maxStale: 1) { $0.failures = [.unauthorized(nil), .network] }
        let report = ContractCheck.check(model, states: 2_000)
        #expect(report.passed, "\(report.finding.map(String.init(describing:)) ?? "")")
        #expect(report.compared > 0)
    }
}

/// The app's composition, as an app declares it. Its refresh backs off on a 15-second grid, as the
/// shipped models' do (``Models/modelRefresh(retryLimit:)``): a 2-second backoff makes each second
/// before expiry a state of its own, for no new ordering of events.
let myApp = Handover(
    entry: OneOf(
        Registration(forms: [.emailPassword]),
        OneOf(PasswordSignIn(identifiers: .email), PasswordReset(style: .emailCodeWithAutoLogin))),
    session: SessionLifecycle(
        policy: SessionPolicy(
            refresh: .rotating(margin: .seconds(60), retryLimit: 2, backoff: .seconds(15)), restore: .fetchCurrentUser,
            revokesOnLogout: true)))
