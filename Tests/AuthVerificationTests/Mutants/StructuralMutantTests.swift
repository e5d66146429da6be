import AuthCore
import AuthVerification
import Testing

/// Broken reducers (and one broken model) that the explorer's structural checks must catch:
/// the invariants hold in each, only the shape of the graph is wrong.
extension Broken {
    /// A 429 whose end is never scheduled, and a rate-limited phase deaf to time: it waits for a
    /// wake-up that never comes (deadlock).
    static let rateLimitNeverEnds = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .rateLimited(let until) = phase {
            switch event {
            case .tick: return []  // Time passes; the limit stays.
            case .intent(_, let id, let now):
                // Told to wait until the server's time while it runs; after it, refused all the same.
                return [.finish(id, .rejected(now < until ? .rateLimited(until: until) : .notAvailableNow))]
            case .reply, .withdrawn, .launched: break
            }
        }
        var effects = base.step(&phase, event, &requests)
        if case .reply(_, .failed(.rateLimited), _) = event {
            effects.removeAll { if case .schedule(.rateLimitEnds, _) = $0 { true } else { false } }
        }
        return effects
    }

    /// Once an account was pending approval the sign-in form never comes back: start over is
    /// refused and every failed retry lands in pending approval again (no way home).
    static let pendingApprovalForever = Remembering<PasswordSignIn, Bool>(PasswordSignIn(identifiers: .username)) {
        base, phase, pending, event, requests in
        if pending == true {
            switch (phase, event) {
            case (_, .intent(.startOver, let intent, _)):
                return [.finish(intent, .rejected(.notAvailableNow))]
            case (.signingIn(let identifier, let current), .reply(let id, .failed, _)) where id == current:
                phase = .pendingApproval(identifier)
                return requests.finish(waitingFor: id, .pendingApproval(nil))
            case (.signingIn(let identifier, let current), .withdrawn(let intent, _)) where requests.intent(waitingFor: current) == intent:
                phase = .pendingApproval(identifier)  // A cancelled retry lands there too.
                return [.cancel(current)] + requests.finish(waitingFor: current, .cancelled)
            default:
                break
            }
        }
        let effects = base.step(&phase, event, &requests)
        if case .pendingApproval = phase { pending = true }
        return effects
    }

    /// The retry counter restarts at every transient refresh failure: timers and failures loop
    /// forever and the user never sees the session go offline (livelock).
    static let refreshRetriesForever = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .failed(let failure), _) = event, failure.isTransient,
            case .signedIn(.active(var session)) = phase, case .refreshing(let current, _) = session.refresh, current == id
        {
            session.refresh = .refreshing(current, attempt: 0)
            phase = .signedIn(.active(session))
        }
        return base.step(&phase, event, &requests)
    }

    /// The realtime connection as it was before flapping counted: an open is established at once
    /// (no stability timer), so every open starts the backoff over, and a server that accepts the
    /// upgrade and closes it at once is reconnected to forever (livelock).
    static let flappingResetsBackoff = Mutant<Handover<PasswordSignIn, SessionWithRealtime>>.editing(Models.realtimeMachine) {
        _, _, phase, effects in
        guard case .signedIn(var signedIn) = phase, case .settling(let token, let id, _, _, _) = signedIn.connection else { return }
        signedIn.connection = .connected(token, id)
        phase = .signedIn(signedIn)
        effects.removeAll { if case .schedule(.realtimeStable, _) = $0 { true } else { false } }
    }

}

/// A structural finding, the mutant that must produce it, and the original under the same model.
struct StructuralCase: Sendable, CustomTestStringConvertible {
    /// The kind of finding.
    var kind: Finding.Kind
    /// What the finding names.
    var detail: String
    /// The length of the shortest trace to the state concerned (`0` for coverage findings).
    var trace: Int
    /// The broken reducer (or model).
    var mutant: AnyModel
    /// The real reducer under the same model.
    var original: AnyModel
    /// Other findings the broken shape cannot help causing (`kind: detail`).
    var alsoFinds: [String] = []

    var testDescription: String { "\(kind.rawValue) ← \(mutant.name)" }

    /// A ``Mutant`` and the lifecycle it breaks, both under `model`.
    init<Base: Lifecycle, Family: SmallModel>(
        _ kind: Finding.Kind, _ detail: String, trace: Int, _ name: String, _ broken: Mutant<Base>, under model: Family
    ) where Family.Intent == Base.Intent {
        self.init(kind, detail, trace: trace, mutant: AnyModel(model(name, broken)), original: AnyModel(model(model.name, broken.base)))
    }

    /// A ``Remembering`` mutant and the lifecycle it breaks, both under `model`.
    init<Base: Lifecycle, Memory, Family: SmallModel>(
        _ kind: Finding.Kind, _ detail: String, trace: Int, _ name: String, _ broken: Remembering<Base, Memory>, under model: Family
    ) where Family.Intent == Base.Intent {
        self.init(kind, detail, trace: trace, mutant: AnyModel(model(name, broken)), original: AnyModel(model(model.name, broken.base)))
    }

    /// The same case, expecting `finding` too.
    func alsoFinding(_ finding: String) -> Self {
        var copy = self
        copy.alsoFinds.append(finding)
        return copy
    }

    init(_ kind: Finding.Kind, _ detail: String, trace: Int, mutant: AnyModel, original: AnyModel) {
        self.kind = kind
        self.detail = detail
        self.trace = trace
        self.mutant = mutant
        self.original = original
    }
}

/// Every structural check can fail: a mutant per kind of finding the explorer reports, caught
/// with the state it names and the shortest trace there; the original has no finding at all.
@Suite("Structural mutants")
struct StructuralMutantTests {
    static let rows: [StructuralCase] = [
        // Submit (1), 429 (1), the server's wait ends (1): rate limited for good, every intent refused.
        StructuralCase(.deadlock, "rateLimited", trace: 3, "rateLimitNeverEnds", Broken.rateLimitNeverEnds, under: .passwordSignIn)
            .alsoFinding("noWayHome: no way back to enteringCredentials from rateLimited"),
        // Submit (1), pending approval (1): from there only retries, which come back to it or sign in.
        StructuralCase(
            .noWayHome, "no way back to (enteringCredentials) from (pendingApproval)", trace: 2, "pendingApprovalForever",
            Broken.pendingApprovalForever, under: .passwordSignIn),
        // Sign in (2), refresh at the margin (1), no network (1), the retry once the token expired (1):
        // from there timers and failures repeat the same two worlds.
        StructuralCase(
            .livelock, "timers, failed answers and unsettled opens alone loop through signedIn.active.refreshing", trace: 5, "refreshRetriesForever",
            Broken.refreshRetriesForever, under: .rotatingSession
        )
        .alsoFinding("unreachedCase: SessionLifecycle.Refresh.offline"),
        // Sign in (2): the connection opens; from there opened, closed at once and the reconnect
        // timer repeat the same worlds, the backoff starting over at every open.
        StructuralCase(
            .livelock, "timers, failed answers and unsettled opens alone loop through signedIn.(active.idle + connecting)", trace: 2,
            mutant: AnyModel(Models.realtime("flappingResetsBackoff", Broken.flappingResetsBackoff)),
            original: AnyModel(Models.realtime())
        )
        .alsoFinding("unreachedCase: RealtimeConnection.Phase.settling")
        .alsoFinding("unreachedCase: RealtimeConnection.Phase.checkingToken"),
        // A 429 sends the sign-in back to the form: the machine's hold on the endpoint still tells
        // the next attempt to wait (no invariant breaks), but the rate-limited phase is never entered.
        StructuralCase(
            .unreachedCase, "PasswordSignIn.Phase.rateLimited", trace: 0, "signInInsideTheRateLimit", Broken.signInInsideTheRateLimit,
            under: .passwordSignIn),
        // The model, not the reducer, is broken: its menu forgot an intent.
        StructuralCase(
            .unusedIntent, "PasswordSignIn.Intent.startOver", trace: 0,
            mutant: AnyModel(
                SmallModels.PasswordSignInModel(menu: [.submit(identifier: Inputs.username, password: Inputs.password)])(
                    "menuWithoutStartOver", SmallModels.passwordSignIn)),
            original: AnyModel(SmallModels.PasswordSignInModel()("passwordSignIn", SmallModels.passwordSignIn))),
    ]

    @Test("the structural mutants cover every kind of finding but undeclared cases")
    func everyKindIsCovered() {
        let kinds: Set<Finding.Kind> = [.deadlock, .noWayHome, .livelock, .unreachedCase, .unusedIntent]
        #expect(Set(Self.rows.map(\.kind)) == kinds)
    }

    @Test("each structural mutant is found, naming its state, with the shortest trace there", arguments: rows)
    func mutantIsFound(_ row: StructuralCase) throws {
        let report = row.mutant.explore(limits: ExplorationLimits(keepGoing: true))
        #expect(report.complete)
        #expect(report.violations.isEmpty, "the mutant should break only the structure: \(report.violations.map(\.invariant))")
        let finding = try #require(report.findings.first { $0.kind == row.kind }, "no \(row.kind.rawValue) in \(report.findings)")
        #expect(finding.detail == row.detail)
        #expect(finding.trace.count == row.trace, "\(finding)")
        let found = report.findings.map { "\($0.kind.rawValue): \($0.detail)" }
        #expect(found == ["\(row.kind.rawValue): \(row.detail)"] + row.alsoFinds, "only the broken shape is found")
    }

    @Test("each structural mutant's original has no finding under the same model", arguments: rows)
    func originalIsSound(_ row: StructuralCase) {
        let report = row.original.explore()
        #expect(report.passed, "\(report.findings) \(report.violations.map(\.invariant))")
    }
}
