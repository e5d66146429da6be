import AuthVerification
import Testing

@testable import AuthflowKit

/// The order `authflow verify` starts the shipped models in.
@Suite("authflow verify schedule")
struct VerifyScheduleTests {
    @Test("verify starts every model once: the compositions first, then the sessions, then the single flows, each in the registry's order")
    func largestFirst() {
        let models = Models.all
        let order = Authflow.largestFirst(models)
        #expect(order.sorted() == Array(models.indices))
        let names = order.map { models[$0].name }
        let apps = names.filter { $0.hasPrefix("app.") }
        let sessions = names.filter { $0.hasPrefix("session.") }
        #expect(Array(names.prefix(apps.count)) == models.map(\.name).filter { $0.hasPrefix("app.") })
        #expect(Array(names.dropFirst(apps.count).prefix(sessions.count)) == models.map(\.name).filter { $0.hasPrefix("session.") })
        #expect(!apps.isEmpty && !sessions.isEmpty && names.count > apps.count + sessions.count)
    }
}
