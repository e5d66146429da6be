import AuthCore
import AuthVerification
import Testing

/// The OpenID Connect models: explored to closure with no violation, every declared case
/// reached, and the menu's contract kept.
@Suite("OpenID Connect models", .timeLimit(.minutes(15)))
struct OpenIDModelTests {
    @Test("openIDSignIn, deviceSignIn and app.openIDConnect explore to closure with no violation and no structural finding")
    func exploresClean() {
        for model in [AnyModel(Models.openIDSignIn()), AnyModel(Models.deviceSignIn()), AnyModel(Models.openIDConnectApp())] {
            let report = model.explore()
            #expect(report.complete, "\(model.name): \(report.states) states, not closed")
            #expect(report.violations.isEmpty, "\(model.name): \(report.violations.map(\.description).joined(separator: "\n"))")
            #expect(report.findings.isEmpty, "\(model.name): \(report.findings)")
            print("\(model.name): \(report.states) states, \(report.transitions) transitions")
        }
    }

    @Test("the models keep intents(in:)'s contract")
    func contract() {
        for model in [AnyModel(Models.openIDSignIn()), AnyModel(Models.deviceSignIn()), AnyModel(Models.openIDConnectApp())] {
            let report = model.checkContract(states: 2_000)
            #expect(report.finding == nil, "\(model.name): \(report.finding.map { "\($0)" } ?? "")")
        }
    }
}
