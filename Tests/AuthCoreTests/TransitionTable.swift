import Testing
@testable import AuthCore

/// One row of a lifecycle's transition table: from `phase`, `event` leads to `expectedPhase`
/// with exactly `expectedEffects` (compared with `==`, payloads included).
struct Row<Machine: Lifecycle>: Sendable, CustomTestStringConvertible {
    /// Reads as a sentence: "awaitingCode + submitCode(valid) → registering, sends registerWithEmailCode".
    var name: String
    /// The configured lifecycle (cooldowns, policy, channel…).
    var machine: Machine
    /// Where the row starts.
    var phase: Machine.Phase
    /// What happens.
    var event: AuthEvent<Machine.Intent>
    /// Where it must end.
    var expectedPhase: Machine.Phase
    /// What it must ask for, in order.
    var expectedEffects: [AuthEffect]
    /// The request counter's next value before the step.
    var requests: UInt64
    /// The intents waiting for answers before the step.
    var waiters: [Waiter]

    var testDescription: String { name }

    init(
        _ name: String, _ machine: Machine, from phase: Machine.Phase, on event: AuthEvent<Machine.Intent>,
        to expectedPhase: Machine.Phase, effects expectedEffects: [AuthEffect], requests: UInt64 = 1, waiters: [Waiter]? = nil
    ) {
        self.name = name
        self.machine = machine
        self.phase = phase
        self.event = event
        self.expectedPhase = expectedPhase
        self.expectedEffects = expectedEffects
        self.requests = requests
        self.waiters = waiters ?? Coverage.entryWaiters(phase)
    }

    /// Runs the row's step.
    func run() -> (phase: Machine.Phase, effects: [AuthEffect]) {
        var phase = self.phase
        var ids = FlowContext(next: requests, waiters: waiters)
        let effects = machine.step(&phase, event, &ids)
        return (phase, effects)
    }

    /// Runs the row and checks the phase and effects.
    func verify(sourceLocation: SourceLocation = #_sourceLocation) {
        let (phase, effects) = run()
        #expect(phase == expectedPhase, "\(name)", sourceLocation: sourceLocation)
        #expect(effects == expectedEffects, "\(name)", sourceLocation: sourceLocation)
    }
}

/// Runs `events` in order from `phase`, returning the last phase and every effect.
func play<Machine: Lifecycle>(
    _ machine: Machine, from phase: Machine.Phase, requests: UInt64 = 1, _ events: [AuthEvent<Machine.Intent>]
) -> (phase: Machine.Phase, effects: [[AuthEffect]], requests: FlowContext) {
    var phase = phase
    var ids = FlowContext(next: requests)
    var all: [[AuthEffect]] = []
    for event in events { all.append(machine.step(&phase, event, &ids)) }
    return (phase, all, ids)
}

// MARK: Coverage

/// Names the pairs of (phase case, event case) a table exercises.
enum Coverage {
    /// The case name of an enum value: its description up to the first `(`.
    static func caseName(_ value: some Any) -> String {
        String(String(describing: value).prefix { $0 != "(" })
    }

    /// The request ids a phase waits for, read from its description (`r<n>` tokens).
    static func inFlight(_ phase: some Any) -> Set<UInt64> {
        let text = Array(String(describing: phase))
        var ids: Set<UInt64> = []
        var index = 0
        while index < text.count {
            let startsToken = index == 0 || !(text[index - 1].isLetter || text[index - 1].isNumber)
            if text[index] == "r", startsToken, index + 1 < text.count, text[index + 1].isNumber {
                var end = index + 1
                while end < text.count, text[end].isNumber { end += 1 }
                if end == text.count || !text[end].isLetter, let id = UInt64(String(text[(index + 1)..<end])) {
                    ids.insert(id)
                }
                index = end
            } else {
                index += 1
            }
        }
        return ids
    }

    /// The intents an entry flow's phase waits for: one (``Samples/pending``) for each request in
    /// flight, as the flow registered it when it sent it. A session's waiters are given by its rows.
    static func entryWaiters(_ phase: some Any) -> [Waiter] {
        func waiting(_ request: RequestID?) -> [Waiter] { request.map { [Waiter(request: $0, intent: Samples.pending)] } ?? [] }
        switch phase {
        case let session as SessionLifecycle.Phase:
            switch session {
            case .passwordSetupRequired(let step), .passwordChangeRequired(let step): return waiting(step.pending)
            case .active(let active): return waiting(active.passwordChange) + waiting(active.accountDeletion)
            case .signedOut, .restoring: return []
            }
        case let product as SessionWithRealtime.Phase:
            return entryWaiters(product.session)
        case is RealtimeConnection.Phase:
            return []
        default:
            // An app's phase: the session's waiters once signed in, the entry flow's before.
            if String(describing: phase).hasPrefix("signedIn("), let inner = Mirror(reflecting: phase).children.first?.value {
                return entryWaiters(inner)
            }
            return inFlight(phase).sorted().map { Waiter(request: RequestID($0), intent: Samples.pending) }
        }
    }

    /// The event case: `intent.<case>`, `reply(current)`, `reply(stale)`, `tick`, `launched`, `withdrawn`.
    static func eventCase<Intent>(_ event: AuthEvent<Intent>, in phase: some Any, intentCase: (Intent) -> String) -> String {
        switch event {
        case .intent(let intent, _, _): "intent." + intentCase(intent)
        case .withdrawn: "withdrawn"
        case .reply(let id, _, _): inFlight(phase).contains(id.rawValue) ? "reply(current)" : "reply(stale)"
        case .tick: "tick"
        case .launched: "launched"
        }
    }

    /// The event cases every lifecycle has besides its intents.
    static let commonEvents = ["reply(current)", "reply(stale)", "tick", "launched", "withdrawn"]

    /// The (phase case, event case) pairs `rows` exercise.
    static func pairs<Machine: Lifecycle>(
        _ rows: [Row<Machine>], phaseCase: (Machine.Phase) -> String = { caseName($0) },
        intentCase: (Machine.Intent) -> String = { caseName($0) }
    ) -> Set<String> {
        Set(
            rows.flatMap { row -> [String] in
                let phase = phaseCase(row.phase)
                let event = eventCase(row.event, in: row.phase, intentCase: intentCase)
                // A phase waiting for no request has no current reply: its stale row is the only kind there is.
                if case .reply = row.event, inFlight(row.phase).isEmpty {
                    return ["\(phase) × reply(current)", "\(phase) × reply(stale)"]
                }
                return ["\(phase) × \(event)"]
            })
    }

    /// Every pair of `phases` × (`intents` + the common events).
    static func expected(phases: [String], intents: [String]) -> Set<String> {
        Set(phases.flatMap { phase in (intents.map { "intent." + $0 } + commonEvents).map { "\(phase) × \($0)" } })
    }
}

// MARK: Row builders shared by the tables

/// Rows for events a phase ignores: the phase is unchanged and nothing is asked for, but an
/// intent is finished as having changed nothing.
func unchangedRows<Machine: Lifecycle>(
    _ machine: Machine, _ label: String, phases: [(String, Machine.Phase)], events: [(String, AuthEvent<Machine.Intent>)]
) -> [Row<Machine>] {
    phases.flatMap { phaseName, phase in
        events.map { eventName, event in
            let effects: [AuthEffect] = if case .intent(_, let id, _) = event { [.finish(id, .unchanged)] } else { [] }
            return Row("\(label): \(phaseName) + \(eventName) → unchanged, no effects", machine, from: phase, on: event, to: phase, effects: effects)
        }
    }
}

/// Rows for intents a phase refuses locally: unchanged, one `.rejected` outcome.
func rejectedRows<Machine: Lifecycle>(
    _ machine: Machine, _ label: String, phases: [(String, Machine.Phase)], intents: [(String, Machine.Intent)],
    _ rejection: Rejection, at now: Instant = Samples.t0
) -> [Row<Machine>] {
    phases.flatMap { phaseName, phase in
        intents.map { intentName, intent in
            Row(
                "\(label): \(phaseName) + \(intentName) → unchanged, rejected \(rejection)", machine, from: phase,
                on: .intent(intent, at: now), to: phase, effects: [.reject(Samples.intent, rejection)])
        }
    }
}

extension AuthEvent {
    /// The intent a table row sends: ``Samples/intent``.
    static func intent(_ intent: Intent, at now: Instant) -> AuthEvent { .intent(intent, id: Samples.intent, at: now) }
}

// MARK: Withdrawals

/// An intent no phase of a table waits for.
let unknownIntent = IntentID(77)

/// Rows for a caller withdrawing: from each phase in `abandoned`, withdrawing the intent it waits
/// for (``Samples/pending``) abandons its request and lands in the given phase; from every phase,
/// withdrawing an intent it does not wait for changes nothing.
func withdrawnRows<Machine: Lifecycle>(
    _ machine: Machine, _ label: String, phases: [(String, Machine.Phase)],
    abandoned: [String: (to: Machine.Phase, request: RequestID)], requests: UInt64 = 1
) -> [Row<Machine>] {
    let unknown = phases.map { name, phase in
        Row(
            "\(label): \(name) + withdrawn(an intent it does not wait for) → unchanged", machine, from: phase,
            on: .withdrawn(unknownIntent, at: Samples.t0), to: phase, effects: [], requests: requests)
    }
    let waited = phases.compactMap { name, phase -> Row<Machine>? in
        guard let (to, request) = abandoned[name] else { return nil }
        return Row(
            "\(label): \(name) + withdrawn(its intent) → the request is abandoned, the intent finished cancelled", machine, from: phase,
            on: .withdrawn(Samples.pending, at: Samples.t0), to: to, effects: [.cancel(request), .finish(Samples.pending, .cancelled)],
            requests: requests)
    }
    return unknown + waited
}
