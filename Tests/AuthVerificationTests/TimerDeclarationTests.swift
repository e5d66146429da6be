import AuthCore
import Testing
@testable import AuthVerification

/// A machine and the timers it was seen to schedule.
struct ScheduledTimers: Sendable, CustomTestStringConvertible {
    var name: String
    var declared: [TimerID]
    var scheduled: Set<TimerID>
    var testDescription: String { name }

    /// Walks `model`'s first `states` worlds breadth-first, collecting every timer a step schedules.
    static func of<Model: LifecycleModel>(_ model: Model, states: Int = 1_500) -> ScheduledTimers {
        let environment = Environment(model: model)
        var seen: Set<Fingerprint> = []
        var frontier = [environment.initial]
        var scheduled: Set<TimerID> = []
        seen.insert(frontier[0].fingerprint)
        while !frontier.isEmpty, seen.count < states {
            var next: [Snapshot<Model.Machine>] = []
            for snapshot in frontier {
                for move in environment.moves(snapshot) {
                    let transition = environment.step(move, from: snapshot)
                    for case .schedule(let timer, _) in transition.effects { scheduled.insert(timer) }
                    if seen.insert(transition.after.fingerprint).inserted { next.append(transition.after) }
                }
            }
            frontier = next
        }
        return ScheduledTimers(name: model.name, declared: model.machine.timers, scheduled: scheduled)
    }
}

/// ``Lifecycle/timers`` is what ``OneOf`` cancels when the user leaves a flow: a timer a lifecycle
/// schedules without listing it would outlive its flow and wake the next one.
@Suite("Declared timers")
struct TimerDeclarationTests {
    static let machines: [ScheduledTimers] = [
        .of(Models.codeRegistration()), .of(Models.oneTimeCode(.email)), .of(Models.passwordSignIn()), .of(Models.registration()),
        .of(Models.passwordReset(.emailCodeWithAutoLogin)), .of(Models.oauth()), .of(Models.session(.everday)),
        .of(Models.session(.anonymousWall)), .of(Models.realtime()), .of(Models.anonymousWallApp()), .of(Models.hero365App()),
        .of(Models.everdayApp()),
    ]

    @Test("every timer a shipped lifecycle schedules is one it declares", .timeLimit(.minutes(15)), arguments: machines)
    func declaresWhatItSchedules(_ machine: ScheduledTimers) {
        #expect(machine.scheduled.isSubset(of: Set(machine.declared)), "undeclared: \(machine.scheduled.subtracting(machine.declared))")
    }

    @Test("the walk sees timers scheduled: codes, rate limits, refreshes and reconnects")
    func walksSeeTimers() {
        let seen = Self.machines.reduce(into: Set<TimerID>()) { $0.formUnion($1.scheduled) }
        #expect(seen.isSuperset(of: [.resendAvailable, .codeExpiry, .rateLimitEnds, .refreshRetry, .reconnect]), "\(seen)")
    }
}
