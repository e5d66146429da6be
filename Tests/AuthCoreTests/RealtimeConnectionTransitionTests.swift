import Testing
@testable import AuthCore

/// VynqTalk's WebSocket (`ws://…/ws?token=`), its API document's Requirement 9.
enum RealtimeConnectionTable {
    typealias Phase = RealtimeConnection.Phase
    typealias Intent = RealtimeConnection.Intent
    static let machine = RealtimeConnection(initialDelay: .seconds(1), maximumDelay: .seconds(30), maxAttempts: 5)
    static let t0 = Samples.t0
    static let a1 = Samples.access1
    static let a2 = Samples.access2

    static let phases: [(String, Phase)] = [
        ("idle", .idle),
        ("connecting", .connecting(a1, Samples.r(1), attempt: 0, flaps: 0)),
        ("connected", .connected(a1, Samples.r(2))),
        ("waitingToReconnect", .waitingToReconnect(a1, retryAt: Samples.at(1), attempt: 0, flaps: 0)),
        ("rejected", .rejected),
        ("gaveUp", .gaveUp(a1)),
        ("settling", .settling(a1, Samples.r(2), stableAt: Samples.at(10), attempt: 0, flaps: 0)),
        ("checkingToken", .checkingToken(a1, Samples.r(3), attempt: 2)),
    ]

    /// Open after one flap: the next close before `stableAt` is the second, and the last.
    static let settlingAfterAFlap = Phase.settling(a1, Samples.r(2), stableAt: Samples.at(10), attempt: 1, flaps: 1)

    static func row(_ name: String, _ from: Phase, _ event: AuthEvent<Intent>, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10)
        -> Row<RealtimeConnection>
    {
        Row(name, machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: Intent) -> AuthEvent<Intent> { .intent(intent, at: t0) }

    /// Every intent here is finished at once: a withdrawal never finds one waiting.
    static let withdrawals = withdrawnRows(machine, "withdrawals", phases: phases, abandoned: [:], requests: 10)

    static let rows: [Row<RealtimeConnection>] =
        withdrawals
        + [phases[0], phases[4], phases[5]].map { name, phase in
            row(
                "\(name) + connect(token) → connecting attempt 0, sends openRealtime with that token", phase, intent(.connect(a2)),
                .connecting(a2, Samples.r(10), attempt: 0, flaps: 0), [.send(Samples.r(10), .openRealtime(a2)), .finish(Samples.intent, .done)])
        }
        + [phases[0], phases[4], phases[5]].map { name, phase in
            // From idle nothing changes; from rejected or gave-up the connection is forgotten.
            row(
                "\(name) + disconnect → idle, no effects", phase, intent(.disconnect), .idle,
                [.finish(Samples.intent, name == "idle" ? .unchanged : .done)])
        }
        + [
            row(
                "connecting + connect(new token) → connecting with the new token for later attempts", phases[1].1, intent(.connect(a2)),
                .connecting(a2, Samples.r(1), attempt: 0, flaps: 0), [.finish(Samples.intent, .done)]),
            row(
                "connecting + disconnect → idle, cancels the open, emits realtimeDisconnected", phases[1].1, intent(.disconnect), .idle,
                [.cancel(Samples.r(1)), .emit(.realtimeDisconnected), .finish(Samples.intent, .done)]),
            row(
                "connecting + reply(opened) → settling until the stability timer, emits realtimeConnected", phases[1].1,
                .reply(Samples.r(1), .realtimeOpened, at: t0), .settling(a1, Samples.r(1), stableAt: Samples.at(10), attempt: 0, flaps: 0),
                [.schedule(.realtimeStable, at: Samples.at(10)), .emit(.realtimeConnected)]),
            row(
                "connecting(attempt 1, flaps 1) + reply(opened) → settling, the failed attempts and flaps kept",
                .connecting(a1, Samples.r(1), attempt: 1, flaps: 1), .reply(Samples.r(1), .realtimeOpened, at: t0),
                .settling(a1, Samples.r(1), stableAt: Samples.at(10), attempt: 1, flaps: 1),
                [.schedule(.realtimeStable, at: Samples.at(10)), .emit(.realtimeConnected)]),

            row(
                "settling + tick at stableAt → connected: established, the failed attempts forgotten", settlingAfterAFlap,
                .tick(Samples.at(10)), .connected(a1, Samples.r(2)), []),
            row("settling + tick before stableAt → unchanged", phases[6].1, .tick(Samples.at(9)), phases[6].1, []),
            row(
                "settling + reply(closed) → a flap: waitingToReconnect 2 s, attempt 1, flaps 1, the stability timer cancelled",
                phases[6].1, .reply(Samples.r(2), .realtimeClosed, at: t0),
                .waitingToReconnect(a1, retryAt: Samples.at(2), attempt: 1, flaps: 1),
                [.cancelTimer(.realtimeStable), .schedule(.reconnect, at: Samples.at(2))]),
            row(
                "settling(flaps 1) + reply(closed) → checkingToken after maxFlaps flaps: the server is asked (the composition sends it), attempt 2",
                settlingAfterAFlap, .reply(Samples.r(2), .realtimeClosed, at: t0), .checkingToken(a1, Samples.r(10), attempt: 2),
                [.cancelTimer(.realtimeStable)]),
            row(
                "the document says nothing of early closes; the deployed server closes a refused token's socket at once: checkingToken + reply(401) → rejected, fails unauthorized with the flapping message",
                phases[7].1, .reply(Samples.r(3), .failed(.unauthorized(nil)), at: t0), .rejected,
                [.emit(.failed(.unauthorized(RealtimeConnection.flappingMessage)))]),
            row(
                "checkingToken + reply(403) → rejected, fails unauthorized with the flapping message", phases[7].1,
                .reply(Samples.r(3), .failed(.forbidden(nil)), at: t0), .rejected,
                [.emit(.failed(.unauthorized(RealtimeConnection.flappingMessage)))]),
            row(
                "a flaky network closes sockets early too: checkingToken + reply(user) → the token is good, waitingToReconnect 4 s, attempt 2, flaps 0",
                phases[7].1, .reply(Samples.r(3), .user(Samples.user), at: t0), .waitingToReconnect(a1, retryAt: Samples.at(4), attempt: 2, flaps: 0),
                [.schedule(.reconnect, at: Samples.at(4))]),
            row(
                "checkingToken + reply(network) → nothing said of the token: waitingToReconnect 4 s, attempt 2, flaps 0", phases[7].1,
                .reply(Samples.r(3), .failed(.network), at: t0), .waitingToReconnect(a1, retryAt: Samples.at(4), attempt: 2, flaps: 0),
                [.schedule(.reconnect, at: Samples.at(4))]),
            row(
                "checkingToken + reply(500) → waitingToReconnect 4 s, attempt 2, flaps 0", phases[7].1,
                .reply(Samples.r(3), .failed(.server(status: 500, nil)), at: t0),
                .waitingToReconnect(a1, retryAt: Samples.at(4), attempt: 2, flaps: 0), [.schedule(.reconnect, at: Samples.at(4))]),
            row(
                "checkingToken(attempt 5) + reply(user) → gaveUp: maxAttempts still bounds a flapping network",
                .checkingToken(a1, Samples.r(3), attempt: 5), .reply(Samples.r(3), .user(Samples.user), at: t0), .gaveUp(a1),
                [.emit(.realtimeDisconnected)]),
            row(
                "checkingToken + disconnect → idle, the check cancelled", phases[7].1, intent(.disconnect), .idle,
                [.cancel(Samples.r(3)), .emit(.realtimeDisconnected), .finish(Samples.intent, .done)]),
            row(
                "checkingToken + connect(new token) → checkingToken with it, the check kept", phases[7].1, intent(.connect(a2)),
                .checkingToken(a2, Samples.r(3), attempt: 2), [.finish(Samples.intent, .done)]),
            row(
                "settling + reply(401) → rejected, fails unauthorized", phases[6].1, .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0),
                .rejected, [.cancelTimer(.realtimeStable), .emit(.failed(.unauthorized(nil)))]),
            row(
                "settling + reply(network) → waitingToReconnect 2 s, attempt 1, no flap counted", phases[6].1,
                .reply(Samples.r(2), .failed(.network), at: t0), .waitingToReconnect(a1, retryAt: Samples.at(2), attempt: 1, flaps: 0),
                [.cancelTimer(.realtimeStable), .schedule(.reconnect, at: Samples.at(2))]),
            row(
                "settling + reply(opened again) → unchanged", phases[6].1, .reply(Samples.r(2), .realtimeOpened, at: t0), phases[6].1, []),
            row(
                "settling + connect(new token) → settling, reconnects will use the new token", phases[6].1, intent(.connect(a2)),
                .settling(a2, Samples.r(2), stableAt: Samples.at(10), attempt: 0, flaps: 0), [.finish(Samples.intent, .done)]),
            row(
                "settling + disconnect → idle, cancels the stability timer, closes, emits realtimeDisconnected", phases[6].1,
                intent(.disconnect), .idle,
                [.cancelTimer(.realtimeStable), .closeRealtime(Samples.r(2)), .emit(.realtimeDisconnected), .finish(Samples.intent, .done)]),
            row(
                "connecting + reply(401) → rejected, fails unauthorized", phases[1].1, .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0),
                .rejected, [.emit(.failed(.unauthorized(nil)))]),
            row(
                "connecting + reply(403) → rejected, fails unauthorized", phases[1].1, .reply(Samples.r(1), .failed(.forbidden(nil)), at: t0),
                .rejected, [.emit(.failed(.unauthorized(nil)))]),
            row(
                "connecting(attempt 0) + reply(network) → waitingToReconnect 2 s, attempt 1", phases[1].1,
                .reply(Samples.r(1), .failed(.network), at: t0), .waitingToReconnect(a1, retryAt: Samples.at(2), attempt: 1, flaps: 0),
                [.schedule(.reconnect, at: Samples.at(2))]),
            row(
                "connecting(attempt 3) + reply(network) → waitingToReconnect 16 s, attempt 4", .connecting(a1, Samples.r(1), attempt: 3, flaps: 0),
                .reply(Samples.r(1), .failed(.network), at: t0), .waitingToReconnect(a1, retryAt: Samples.at(16), attempt: 4, flaps: 0),
                [.schedule(.reconnect, at: Samples.at(16))]),
            row(
                "connecting(attempt 4) + reply(closed) → gaveUp after maxAttempts, emits realtimeDisconnected",
                .connecting(a1, Samples.r(1), attempt: 4, flaps: 0), .reply(Samples.r(1), .realtimeClosed, at: t0), .gaveUp(a1),
                [.emit(.realtimeDisconnected)]),
            row(
                "connecting + reply(stale id) → unchanged", phases[1].1, .reply(Samples.staleID, .realtimeOpened, at: t0), phases[1].1, []),

            row(
                "connected + connect(new token) → connected, reconnects will use the new token", phases[2].1, intent(.connect(a2)),
                .connected(a2, Samples.r(2)), [.finish(Samples.intent, .done)]),
            row(
                "connected + disconnect → idle, closes the connection, emits realtimeDisconnected", phases[2].1, intent(.disconnect), .idle,
                [.closeRealtime(Samples.r(2)), .emit(.realtimeDisconnected), .finish(Samples.intent, .done)]),
            row(
                "connected + reply(closed) → waitingToReconnect 1 s, attempt 0", phases[2].1, .reply(Samples.r(2), .realtimeClosed, at: t0),
                .waitingToReconnect(a1, retryAt: Samples.at(1), attempt: 0, flaps: 0), [.schedule(.reconnect, at: Samples.at(1))]),
            row(
                "connected + reply(network) → waitingToReconnect 1 s", phases[2].1, .reply(Samples.r(2), .failed(.network), at: t0),
                .waitingToReconnect(a1, retryAt: Samples.at(1), attempt: 0, flaps: 0), [.schedule(.reconnect, at: Samples.at(1))]),
            row(
                "connected + reply(401) → rejected, fails unauthorized", phases[2].1, .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0),
                .rejected, [.emit(.failed(.unauthorized(nil)))]),
            row(
                "connected + reply(opened again) → unchanged", phases[2].1, .reply(Samples.r(2), .realtimeOpened, at: t0), phases[2].1, []),
            row("connected + reply(stale id) → unchanged", phases[2].1, .reply(Samples.r(1), .realtimeClosed, at: t0), phases[2].1, []),

            row(
                "waitingToReconnect + connect(new token) → waiting with the new token", phases[3].1, intent(.connect(a2)),
                .waitingToReconnect(a2, retryAt: Samples.at(1), attempt: 0, flaps: 0), [.finish(Samples.intent, .done)]),
            row(
                "waitingToReconnect + disconnect → idle, cancels the reconnect timer", phases[3].1, intent(.disconnect), .idle,
                [.cancelTimer(.reconnect), .emit(.realtimeDisconnected), .finish(Samples.intent, .done)]),
            row("waitingToReconnect + tick before retryAt → unchanged", phases[3].1, .tick(Samples.at(0)), phases[3].1, []),
            row(
                "waitingToReconnect + tick at retryAt → connecting with the current token",
                .waitingToReconnect(a2, retryAt: Samples.at(1), attempt: 2, flaps: 0),
                .tick(Samples.at(1)), .connecting(a2, Samples.r(10), attempt: 2, flaps: 0), [.send(Samples.r(10), .openRealtime(a2))]),
            row(
                "connecting(attempt 8) + reply(timeout) → gaveUp, attempts beyond maxAttempts never reconnect",
                .connecting(a1, Samples.r(1), attempt: 8, flaps: 0),
                .reply(Samples.r(1), .failed(.timeout), at: t0),
                .gaveUp(a1), [.emit(.realtimeDisconnected)]),
        ]
        + unchangedRows(
            machine, "nothing current", phases: [phases[0], phases[3], phases[4], phases[5], phases[6], phases[7]],
            events: [("reply(stale id)", .reply(Samples.r(1), .realtimeOpened, at: t0))])
        + unchangedRows(
            machine, "nothing due", phases: [phases[0], phases[1], phases[2], phases[4], phases[5], phases[7]],
            events: [("tick", .tick(Samples.at(60)))])
        + unchangedRows(
            machine, "connecting is the session's decision", phases: phases,
            events: [("launched(stored)", .launched(.stored(Samples.plainCredentials), at: t0))])

    static let phaseCases = phases.map(\.0)
    static let intentCases = ["connect", "disconnect"]
}

@Suite("RealtimeConnection transitions")
struct RealtimeConnectionTransitionTests {
    @Test("every RealtimeConnection row gives the expected phase and effects", arguments: RealtimeConnectionTable.rows)
    func transition(_ row: Row<RealtimeConnection>) { row.verify() }

    @Test("a dropped connection reconnects with doubling delays capped at the maximum, then gives up")
    func boundedBackoff() {
        let machine = RealtimeConnection(initialDelay: .seconds(1), maximumDelay: .seconds(4), maxAttempts: 4)
        var phase = RealtimeConnection.Phase.connected(Samples.access1, Samples.r(1))
        var ids = FlowContext(next: 2)
        var now = Samples.t0
        var delays: [Interval] = []
        var effects = machine.step(&phase, .reply(Samples.r(1), .realtimeClosed, at: now), &ids)
        while case .waitingToReconnect(_, let retryAt, _, _) = phase {
            delays.append(retryAt - now)
            now = retryAt
            effects = machine.step(&phase, .tick(now), &ids)
            guard case .connecting(_, let id, _, _) = phase else { break }
            #expect(effects == [.send(id, .openRealtime(Samples.access1))])
            effects = machine.step(&phase, .reply(id, .failed(.network), at: now), &ids)
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(4)])
        #expect(phase == .gaveUp(Samples.access1))
        #expect(effects == [.emit(.realtimeDisconnected)])
    }

    /// The deployed VynqTalk server accepts the upgrade, then closes at once on a refused token; a
    /// flaky mobile network closes sockets early too. After maxFlaps such opens the server is asked.
    @Test(
        "the document says nothing of early closes; the deployed server closes a refused token's socket at once; both work: after maxFlaps early closes the server is asked, 401/403 refuses, a user reconnects",
        arguments: [Reply.failed(.unauthorized(nil)), .failed(.forbidden(nil)), .user(Samples.user), .failed(.network)])
    func flappingAsksTheServer(_ answer: Reply) {
        let machine = RealtimeConnection(
            initialDelay: .seconds(1), maximumDelay: .seconds(30), maxAttempts: 5, stableAfter: .seconds(10), maxFlaps: 3)
        var phase = RealtimeConnection.Phase.idle
        var ids = FlowContext(next: 1)
        var now = Samples.t0
        var effects = machine.connect(Samples.access1, &phase, &ids)
        var opens = 0
        var delays: [Interval] = []
        while case .send(let id, .openRealtime) = effects.first {
            opens += 1
            effects = machine.step(&phase, .reply(id, .realtimeOpened, at: now), &ids)
            #expect(effects.contains(.emit(.realtimeConnected)))
            effects = machine.step(&phase, .reply(id, .realtimeClosed, at: now), &ids)
            guard case .waitingToReconnect(_, let retryAt, _, _) = phase else { break }
            delays.append(retryAt - now)
            now = retryAt
            effects = machine.step(&phase, .tick(now), &ids)
        }
        #expect(opens == 3)
        #expect(delays == [.seconds(2), .seconds(4)], "each flap is a failed attempt: the delay doubles, it never starts over")
        guard case .checkingToken(Samples.access1, let check, attempt: 3) = phase else {
            Issue.record("not checking the token: \(phase)")
            return
        }
        #expect(effects == [.cancelTimer(.realtimeStable)], "the composition sends the check, with the session's bearer")
        effects = machine.step(&phase, .reply(check, answer, at: now), &ids)
        switch answer {
        case .failed(.unauthorized), .failed(.forbidden):
            #expect(phase == .rejected)
            #expect(effects == [.emit(.failed(.unauthorized(RealtimeConnection.flappingMessage)))])
        default:
            #expect(phase == .waitingToReconnect(Samples.access1, retryAt: now + .seconds(8), attempt: 3, flaps: 0), "flaps counted afresh")
            #expect(effects == [.schedule(.reconnect, at: now + .seconds(8))])
        }
    }
}
