import AuthVerification
import Testing

@testable import AuthflowKit

/// The order `authflow verify` starts the shipped models in.
@Suite("authflow verify schedule")
struct VerifyScheduleTests {
    @Test("verify starts every model once: the compositions first, then the sessions, then the single flows, each in the registry's order")
    func largestFirst() {
        let models = Models.all
        let order = Models.largestFirst(models)
        #expect(order.sorted() == Array(models.indices))
        let names = order.map { models[$0].name }
        let apps = names.filter { $0.hasPrefix("app.") }
        let sessions = names.filter { $0.hasPrefix("session.") }
        #expect(Array(names.prefix(apps.count)) == models.map(\.name).filter { $0.hasPrefix("app.") })
        #expect(Array(names.dropFirst(apps.count).prefix(sessions.count)) == models.map(\.name).filter { $0.hasPrefix("session.") })
        #expect(!apps.isEmpty && !sessions.isEmpty && names.count > apps.count + sessions.count)
    }

    @Test("at 4 and 2, the models held lower by default start first, those held lowest leading, then the rest in the order above")
    func raisedFirst() {
        let models = Models.all
        let run = models.map { $0.bounded(inFlight: 4, stale: 2) }
        let order = Models.largestFirst(models, runAt: run)
        #expect(order.sorted() == Array(models.indices))
        let names = order.map { models[$0].name }
        let raised = models.filter { $0.inFlight * $0.stale < 8 }
        // Held at 1 and 1 (Anonymous Wall's and Hero365's apps), then at 4 and 1, each in the registry's order.
        let lowest = raised.filter { $0.inFlight * $0.stale == 1 }.map(\.name)
        #expect(lowest == ["app.anonymousWall", "app.hero365"])
        #expect(Array(names.prefix(lowest.count)) == lowest)
        #expect(Array(names.prefix(raised.count)) == lowest + raised.filter { $0.inFlight * $0.stale > 1 }.map(\.name))
        #expect(raised.contains { $0.name == "session.everday" } && raised.contains { $0.name == "app.everday" })
        // The rest keep the order of a run at each model's own bounds.
        let rest = Models.largestFirst(models).map { models[$0].name }.filter { name in !raised.contains { $0.name == name } }
        #expect(Array(names.dropFirst(raised.count)) == rest)
        // At each model's own bounds none is raised: the order is the one above.
        #expect(Models.largestFirst(models, runAt: models) == Models.largestFirst(models))
    }
}
