import AuthCore
import AuthVerification

/// An intent of one of an app's flows (`PasswordSignIn.Intent.submit(…)`), sent to the whole app
/// and routed to the flow whose intent type it is (`Lifecycle.route(_:)`): a flow's
/// steps never spell the composition's nesting.
public struct AnyIntent: Hashable, Sendable, CustomStringConvertible {
    /// The flow's intent.
    public let value: any Hashable & Sendable

    /// Wraps a flow's intent.
    public init(_ value: some Hashable & Sendable) { self.value = value }

    /// `app`'s intent for this one, if a flow of `app` takes it.
    public func routed<App: Lifecycle>(in app: App) -> App.Intent? { app.route(value) }

    /// Equal when the intents are.
    public static func == (lhs: Self, rhs: Self) -> Bool { AnyHashable(lhs.value) == AnyHashable(rhs.value) }

    /// The intent's hash.
    public func hash(into hasher: inout Hasher) { AnyHashable(value).hash(into: &hasher) }

    /// The intent, as it describes itself (redacted).
    public var description: String { String(describing: value) }
}

/// One step of a documented flow, in the terms the API documents use.
public enum FlowStep: Hashable, Sendable {
    /// The user does this ("Enters email and clicks Get Code"): an intent of one of the app's flows.
    case user(AnyIntent)
    /// The server answers the oldest outstanding request to this endpoint (a documented step's
    /// "→ API: `/api/v1/auth/login/password`", in AuthCore's backend-neutral names). The flow
    /// fails if the reducer never asked for one: a documented request that was not sent.
    case answer(ServerEndpoint, Reply)
    /// The app's API answers the oldest outstanding protected call.
    case answerCall(Reply)
    /// The realtime server answers the oldest outstanding connection request (an opened
    /// connection stays outstanding until it closes).
    case answerRealtime(Reply)
    /// Time passes with the app running: the timers due fire (one `tick`).
    case wait(Interval)
    /// Time passes with the app suspended: no timer fires (the next event sees the later time).
    case suspend(Interval)
    /// The app is launched again: it starts from scratch, forgets requests and timers, and reads its vault.
    case relaunch
}

/// What a documented flow must show beyond its end state: the effects the API document names.
public enum FlowExpectation: Hashable, Sendable, CustomStringConvertible {
    /// At the end the vault holds credentials with this access token, and this refresh token
    /// (`nil`: none).
    case vaultHolds(access: String, refresh: String?)
    /// The reducer cleared the vault (`clearCredentials`) and it is empty at the end.
    case vaultCleared
    /// Nothing was ever written to or deleted from the vault.
    case vaultUntouched
    /// This exact request was sent.
    case sent(APIRequest)
    /// A protected call was sent with this bearer (whichever intent made it).
    case sentCall(with: Bearer)
    /// No request to this endpoint was sent.
    case notSent(ServerEndpoint)
    /// No protected call was sent.
    case noCallSent
    /// The UI was told this.
    case emitted(AuthOutcome)
    /// A user's intent was finished with this.
    case completed(Completion)
    /// A user's intent was finished with a completion of this case (`codeSent`), whatever its payload.
    case completedAs(String)

    /// A readable form, secrets redacted.
    public var description: String {
        switch self {
        case .vaultHolds(_, let refresh): "the vault holds the new credentials\(refresh == nil ? "" : " with the rotated refresh token")"
        case .vaultCleared: "the vault is cleared"
        case .vaultUntouched: "the vault is untouched"
        case .sent(let request): "sent \(request)"
        case .sentCall(let bearer): "sent a protected call with \(bearer)"
        case .notSent(let endpoint): "no \(endpoint) request"
        case .noCallSent: "no protected call"
        case .emitted(let outcome): "the UI is told \(outcome)"
        case .completed(let completion): "an intent finishes \(completion)"
        case .completedAs(let name): "an intent finishes \(name)"
        }
    }
}

/// What driving a flow through its app machine produced.
public struct FlowRun: Hashable, Sendable {
    /// Every step, projected (case path, event case, case path).
    public var steps: [AppStep]
    /// The app's case path at the end.
    public var endCase: String
    /// Every request sent, in order.
    public var sent: [APIRequest]
    /// Every outcome the UI was told, in order.
    public var emitted: [AuthOutcome]
    /// What became of each of the user's intents, in the order they were finished.
    public var completions: [Completion]
    /// What the vault holds at the end.
    public var vault: StoredCredentials
    /// Whether the reducer ever persisted or cleared credentials.
    public var vaultWritten: Bool
    /// Whether the reducer cleared the vault.
    public var vaultClearedByReducer: Bool
    /// Steps the runner could not perform (an answer to a request that was never sent).
    public var problems: [String]
    /// A readable log: each event and the case path after it.
    public var log: [String]

    /// `nil` when `expectation` holds, otherwise what went wrong.
    public func failure(of expectation: FlowExpectation) -> String? {
        switch expectation {
        case .vaultHolds(let access, let refresh):
            guard case .stored(let credentials) = vault else { return "the vault is \(vault), not holding credentials" }
            if credentials.accessToken.reveal() != access { return "the vault holds another access token" }
            if credentials.refreshToken?.reveal() != refresh {
                return refresh == nil ? "the vault holds a refresh token" : "the vault holds another refresh token"
            }
            return nil
        case .vaultCleared:
            if !vaultClearedByReducer { return "the reducer never cleared the vault" }
            return vault == .none ? nil : "the vault is \(vault) at the end"
        case .vaultUntouched:
            return vaultWritten ? "the vault was written" : nil
        case .sent(let request):
            return sent.contains(request) ? nil : "\(request) was not sent; sent: \(sent)"
        case .sentCall(let bearer):
            let sentWith = sent.contains { if case .protected(_, bearer) = $0 { true } else { false } }
            return sentWith ? nil : "no protected call was sent with \(bearer); sent: \(sent)"
        case .notSent(let endpoint):
            return sent.contains { $0.endpoint == endpoint } ? "a \(endpoint) request was sent" : nil
        case .noCallSent:
            return sent.contains(where: isCall) ? "a protected call was sent" : nil
        case .emitted(let outcome):
            return emitted.contains(outcome) ? nil : "\(outcome) was not emitted; emitted: \(emitted)"
        case .completed(let completion):
            return completions.contains(completion) ? nil : "no intent finished \(completion); finished: \(completions)"
        case .completedAs(let name):
            return completions.contains { Coverage.caseName(of: $0) == name } ? nil : "no intent finished \(name); finished: \(completions)"
        }
    }
}

/// Drives an app machine through a flow's steps, playing the server, the clock, the OS and the
/// vault as the effect runner would.
struct FlowDriver<App: Lifecycle> {
    let app: App
    var state: App.State
    var now: Instant
    var vault: StoredCredentials
    var outstanding: [(RequestID, APIRequest)] = []
    var nextIntent: UInt64 = 1
    var run: FlowRun

    init(app: App, stored: StoredCredentials, start: Instant) {
        self.app = app
        self.state = app.initial
        self.now = start
        self.vault = stored
        self.run = FlowRun(
            steps: [], endCase: casePath(of: app.initial.phase), sent: [], emitted: [], completions: [], vault: stored, vaultWritten: false,
            vaultClearedByReducer: false, problems: [], log: [])
    }

    mutating func play(_ steps: [FlowStep]) -> FlowRun {
        for (index, step) in steps.enumerated() {
            switch step {
            case .user(let intent):
                guard let routed = intent.routed(in: app) else {
                    run.problems.append("step \(index + 1): no flow of the app takes \(type(of: intent.value))")
                    continue
                }
                deliver(.intent(routed, id: IntentID(nextIntent), at: now))
                nextIntent += 1
            case .answer(let endpoint, let reply):
                answer(step: index, with: reply, to: "\(endpoint)") { $0.endpoint == endpoint }
            case .answerCall(let reply):
                answer(step: index, with: reply, to: "protected call", where: isCall)
            case .answerRealtime(let reply):
                answer(step: index, with: reply, to: "realtime connection", where: isRealtime)
            case .wait(let interval):
                now = now + interval
                deliver(.tick(now))
            case .suspend(let interval):
                now = now + interval
            case .relaunch:
                state = app.initial
                outstanding = []
                deliver(.launched(vault, at: now))  // From the initial case: the app starts from scratch.
            }
        }
        run.vault = vault
        return run
    }

    /// Answers the oldest outstanding request `matching`, or records that none was sent.
    private mutating func answer(step index: Int, with reply: Reply, to what: String, where matching: (APIRequest) -> Bool) {
        guard let position = outstanding.firstIndex(where: { matching($0.1) }) else {
            let names = outstanding.map { Coverage.caseName(of: $0.1) }
            run.problems.append("step \(index + 1): no \(what) request outstanding to answer (outstanding: \(names))")
            return
        }
        let id = outstanding[position].0
        if reply != .realtimeOpened { outstanding.remove(at: position) }  // An open connection can still close.
        deliver(.reply(id, reply, at: now))
    }

    private mutating func deliver(_ event: App.Event) {
        let before = casePath(of: state.phase)
        let effects = app.reduce(&state, event)
        let after = casePath(of: state.phase)
        let (label, kind) = EventLabel.of(event)
        let reachesSession: Bool =
            switch event {
            case .launched: true
            case .intent(let intent, _, _): EventLabels.isSessionIntent(intent)
            case .reply, .tick, .withdrawn: false
            }
        run.steps.append(AppStep(from: before, label: label, to: after, kind: kind, reachesSession: reachesSession))
        run.log.append("\(event.instant) \(label) → \(after)")
        run.endCase = after
        for effect in effects {
            switch effect {
            case .send(let id, let request):
                outstanding.append((id, request))
                run.sent.append(request)
            case .cancel(let id):
                outstanding.removeAll { $0.0 == id }
            case .persist(let credentials):
                vault = .stored(credentials)
                run.vaultWritten = true
            case .clearCredentials:
                vault = .none
                run.vaultWritten = true
                run.vaultClearedByReducer = true
            case .emit(let outcome):
                run.emitted.append(outcome)
            case .closeRealtime(let id):
                outstanding.removeAll { $0.0 == id }
            case .finish(_, let completion):
                run.completions.append(completion)
            case .schedule, .cancelTimer:
                break  // Timers fire on `wait`.
            case .persistOwedRevocations:
                break  // The documented flows owe no revocation.
            }
        }
    }
}

/// Which events reach the session in a flow (the labels themselves are `EventLabel`'s, shared
/// with the explorer so a flow's steps and the diagrams' edges name events the same way).
enum EventLabels {
    /// Whether an app intent is for the session (`AppIntent.session`), which reaches the session even while signed out.
    static func isSessionIntent(_ intent: Any) -> Bool {
        let mirror = Mirror(reflecting: intent)
        return String(reflecting: type(of: intent)).hasPrefix("AuthCore.AppIntent<") && mirror.children.first?.label == "session"
    }
}

/// Case names of values, for expectations that name a case whatever its payload.
enum Coverage {
    /// The case name of an enum value: its description up to the first `(`.
    static func caseName(of value: some CustomStringConvertible) -> String {
        String(value.description.prefix { $0 != "(" })
    }
}

/// Whether `request` is a protected call to the app's API.
private func isCall(_ request: APIRequest) -> Bool {
    if case .protected = request { true } else { false }
}

/// Whether `request` opens a realtime connection.
private func isRealtime(_ request: APIRequest) -> Bool {
    if case .openRealtime = request { true } else { false }
}
