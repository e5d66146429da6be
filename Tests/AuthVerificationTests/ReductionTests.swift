import AuthCore
import Testing
@testable import AuthVerification

/// One shipped model at bounds where both searches close in a debug build.
struct ReducedModel: Sendable, CustomTestStringConvertible {
    var model: AnyModel
    var inFlight: Int
    var stale: Int
    var testDescription: String { "\(model.name) at \(inFlight)/\(stale)" }
}

/// The reduction (``Reduction/symmetric``) is sound: it merges worlds that are the same up to the
/// order of lists no behaviour reads and the names of ids, up to whether a code was sent exactly
/// the history's horizon ago or earlier, or up to what a request left over asks beyond what can
/// answer it, and the explorer's verdicts are the plain search's on every shipped model and every
/// broken reducer.
@Suite("Reduction")
struct ReductionTests {
    // MARK: What is merged

    static let credentials = Credentials(
        accessToken: AccessToken("tok-at-1"), refreshToken: RefreshToken("tok-rt-1"), expiresAt: .seconds(5_000), user: UserProfile(id: "u1"))

    static func fingerprint(_ world: World<SessionLifecycle>, _ reduction: Reduction) -> Fingerprint {
        var world = world
        return Survey.of(&world, horizon: .seconds(600), historyHorizon: .seconds(600), reduction: reduction, settle: { _, _ in }).fingerprint
    }

    /// An active session with a call sent (`sent`, request 3) and one waiting for a token
    /// (`waiting`), listed in `order`, both still open in `open` order; the sent call was sent
    /// `sends` times as far as the history knows.
    static func twoCalls(sent: UInt64, waiting: UInt64, sentFirst: Bool, open: [UInt64], sendsOf: UInt64) -> World<SessionLifecycle> {
        let bearer = Bearer(token: credentials.accessToken, userID: "u1")
        let sentCall = PendingCall(id: IntentID(sent), stage: .sent(RequestID(3), with: credentials.accessToken), replayed: false)
        let waitingCall = PendingCall.waiting(IntentID(waiting))
        let active = SessionLifecycle.Active(credentials: credentials, calls: sentFirst ? [sentCall, waitingCall] : [waitingCall, sentCall])
        var world = World<SessionLifecycle>(state: LifecycleState(phase: .active(active), context: FlowContext(next: 4)), now: .seconds(100))
        world.network = [
            Exchange(id: RequestID(3), request: .protected(IntentID(sent), bearer), opened: false),
            Exchange(id: RequestID(2), request: .currentUser(bearer), opened: false),
        ]
        world.history.openIntents = open.map(IntentID.init)
        world.history.callSends = [CallSends(call: IntentID(sendsOf), sends: 1)]
        return world
    }

    @Test("worlds whose calls, requests in flight and open intents differ only in order and ids are one state, and two without the reduction")
    func mergesSymmetricWorlds() {
        // Intent 1 sent and 2 waiting, against 2 sent and 1 waiting: the same world with the
        // intents' names swapped, its lists kept in another order.
        let a = Self.twoCalls(sent: 1, waiting: 2, sentFirst: true, open: [1, 2], sendsOf: 1)
        var b = Self.twoCalls(sent: 2, waiting: 1, sentFirst: false, open: [1, 2], sendsOf: 2)
        b.network.reverse()
        #expect(Self.fingerprint(a, .symmetric) == Self.fingerprint(b, .symmetric))
        #expect(Self.fingerprint(a, .plain) != Self.fingerprint(b, .plain))
    }

    @Test("worlds that are not the same up to names stay apart: the send count belongs to the other call")
    func keepsDifferentWorldsApart() {
        let a = Self.twoCalls(sent: 1, waiting: 2, sentFirst: true, open: [1, 2], sendsOf: 1)
        let b = Self.twoCalls(sent: 1, waiting: 2, sentFirst: true, open: [1, 2], sendsOf: 2)
        #expect(Self.fingerprint(a, .symmetric) != Self.fingerprint(b, .symmetric))
        #expect(Self.fingerprint(a, .plain) != Self.fingerprint(b, .plain))
    }

    @Test("the plain search tells lists kept in another order apart; the reduction does not")
    func plainKeepsOrder() {
        let a = Self.twoCalls(sent: 1, waiting: 2, sentFirst: true, open: [1, 2], sendsOf: 1)
        var b = a
        b.history.openIntents.reverse()
        #expect(Self.fingerprint(a, .plain) != Self.fingerprint(b, .plain))
        #expect(Self.fingerprint(a, .symmetric) == Self.fingerprint(b, .symmetric))
    }

    /// A signed-out world whose context keeps a cooldown for each of two code targets and whose
    /// history keeps each code the server confirmed sending, both lists in the order given.
    static func twoCodes(registerFirst: Bool, registerSentAt: Instant = .seconds(90)) throws -> World<SessionLifecycle> {
        let email = CodeDestination.email(try Email.validate("student@example.edu").get())
        let register = CodeCooldown(target: .destination(email, .register), resendAt: registerSentAt + .seconds(60))
        let login = CodeCooldown(target: .destination(email, .login), resendAt: .seconds(155))
        let context = FlowContext(next: 3, codeCooldowns: registerFirst ? [register, login] : [login, register])
        var world = World<SessionLifecycle>(state: LifecycleState(phase: .signedOut, context: context), now: .seconds(100))
        let codes = [
            CodeIssue(destination: "email:student@example.edu:register", issuedAt: registerSentAt, verifications: 1),
            CodeIssue(destination: "email:student@example.edu:login", issuedAt: .seconds(95), verifications: 0),
        ]
        world.history.codes = registerFirst ? codes : codes.reversed()
        return world
    }

    @Test("worlds whose code cooldowns and sent codes differ only in order are one state, and two without the reduction")
    func mergesCodeOrder() throws {
        // Register's code, then login's, against login's then register's: each list is looked
        // up by its target or destination, one entry each, so the order is never read.
        let a = try Self.twoCodes(registerFirst: true)
        let b = try Self.twoCodes(registerFirst: false)
        #expect(Self.fingerprint(a, .symmetric) == Self.fingerprint(b, .symmetric))
        #expect(Self.fingerprint(a, .plain) != Self.fingerprint(b, .plain))
        // Only the order of either list differs: each alone is enough to tell the plain worlds apart.
        var cooldownsOnly = a
        cooldownsOnly.history.codes = b.history.codes
        #expect(Self.fingerprint(cooldownsOnly, .symmetric) == Self.fingerprint(a, .symmetric))
        #expect(Self.fingerprint(cooldownsOnly, .plain) != Self.fingerprint(a, .plain))
    }

    @Test("worlds whose codes were sent at other times stay apart, in whichever order their lists are")
    func keepsCodeTimesApart() throws {
        let a = try Self.twoCodes(registerFirst: true)
        let b = try Self.twoCodes(registerFirst: false, registerSentAt: .seconds(92))
        #expect(Self.fingerprint(a, .symmetric) != Self.fingerprint(b, .symmetric))
    }

    /// A signed-out world with one request in flight that the state no longer refers to (the
    /// flow that sent it was left), as a user who switched flows leaves it.
    static func leftOver(_ request: APIRequest) -> World<SessionLifecycle> {
        var world = World<SessionLifecycle>(state: LifecycleState(phase: .signedOut, context: FlowContext(next: 3)), now: .seconds(100))
        world.network = [Exchange(id: RequestID(2), request: request, opened: false)]
        return world
    }

    @Test("requests in flight the state no longer refers to are one state when the same answers can come, and two without the reduction")
    func mergesLeftOverRequestsByTheirAnswers() throws {
        let email = try Email.validate("student@example.edu").get()
        // A login code and a reset asked for: both are answered "accepted" or with a failure.
        let code = Self.leftOver(.sendEmailCode(email, .login))
        let reset = Self.leftOver(.requestPasswordReset(.email(email)))
        #expect(Self.fingerprint(code, .symmetric) == Self.fingerprint(reset, .symmetric))
        #expect(Self.fingerprint(code, .plain) != Self.fingerprint(reset, .plain))
        // A sign-in is answered with a grant: other answers, another state.
        let signIn = Self.leftOver(.signIn(.email(email), try Password.validate(PasswordInput("correct horse 1")).get()))
        #expect(Self.fingerprint(signIn, .symmetric) != Self.fingerprint(code, .symmetric))
    }

    @Test("a request the state still refers to, or one that carries a refresh token, is surveyed in full")
    func keepsCurrentRequestsAndRefreshTokensApart() throws {
        let email = try Email.validate("student@example.edu").get()
        // The state refers to request 2: its waiter is the intent that sent it.
        func current(_ request: APIRequest) -> World<SessionLifecycle> {
            var world = Self.leftOver(request)
            world.state.context = FlowContext(next: 3, waiters: [Waiter(request: RequestID(2), intent: IntentID(1))])
            return world
        }
        let code = current(.sendEmailCode(email, .login))
        let reset = current(.requestPasswordReset(.email(email)))
        #expect(Self.fingerprint(code, .symmetric) != Self.fingerprint(reset, .symmetric))
        // Two revocations left over, of different tokens: the invariants on logged-out sessions read them.
        let bearer = Bearer(token: Self.credentials.accessToken, userID: "u1")
        var first = Self.leftOver(.revoke(RefreshToken("tok-rt-1"), bearer))
        var second = Self.leftOver(.revoke(RefreshToken("tok-rt-2"), bearer))
        first.history.liveAfterLogout = [RefreshToken("tok-rt-1")]
        second.history.liveAfterLogout = [RefreshToken("tok-rt-1")]
        #expect(Self.fingerprint(first, .symmetric) != Self.fingerprint(second, .symmetric))
    }

    // MARK: Same verdicts, every shipped model

    /// The shipped models whose two searches close within a second or two in a debug build: each
    /// entry flow, the sessions without refresh, the realtime connection and VynqTalk's app at
    /// their own bounds, and one refreshing session at 1/1. The rest, every model at its own
    /// bounds, is checked in a release build by `authflow verify --no-reduction`, which holds the
    /// reduced search to the plain one on the same points as this test (`.ci/run` runs it): in a
    /// debug build the refreshing sessions and the apps took over five minutes of the test run.
    static let models: [ReducedModel] = Models.all.compactMap { model in
        switch model.name {
        case "session.everday": ReducedModel(model: model, inFlight: 1, stale: 1)
        case "session.subspace", "session.hero365", "app.anonymousWall", "app.everday", "app.subspace", "app.hero365", "app.openIDConnect":
            nil
        default: ReducedModel(model: model, inFlight: model.inFlight, stale: model.stale)
        }
    }

    @Test(
        "each shipped model gives the same verdict for every invariant and structural check, the same diagram and the same cases, with and without the reduction",
        .timeLimit(.minutes(15)), arguments: models)
    func sameVerdicts(_ shipped: ReducedModel) {
        let model = shipped.model.bounded(inFlight: shipped.inFlight, stale: shipped.stale)
        let reduced = model.explore(limits: ExplorationLimits(keepGoing: true, reduction: .symmetric))
        let plain = model.explore(limits: ExplorationLimits(keepGoing: true, reduction: .plain))
        #expect(reduced.complete && plain.complete, "both must close: \(reduced.states) and \(plain.states) states")
        #expect(Set(reduced.violations.map(\.invariant)) == Set(plain.violations.map(\.invariant)))
        #expect(reduced.findings.map(\.kind) == plain.findings.map(\.kind))
        #expect(reduced.edges == plain.edges, "the projected graph (the state diagram) differs")
        #expect(Set(reduced.statesPerCase.keys) == Set(plain.statesPerCase.keys), "the cases reached differ")
        #expect(reduced.states <= plain.states)
        #expect(reduced.depth <= plain.depth)
    }

    /// Explores each shipped model named, at the bounds `bounds` gives it, with and without the
    /// reduction, and expects fewer states with it.
    static func expectFewerStates(_ names: [String], at bounds: (AnyModel) -> (inFlight: Int, stale: Int)) {
        for name in names {
            guard let shipped = Models.all.first(where: { $0.name == name }) else {
                Issue.record("\(name) is not a shipped model")
                continue
            }
            let (inFlight, stale) = bounds(shipped)
            let model = shipped.bounded(inFlight: inFlight, stale: stale)
            // Only the graph is compared: its states are the same with the invariants checked or not.
            let reduced = model.explore(limits: ExplorationLimits(reduction: .symmetric, checksInvariants: false)).states
            let plain = model.explore(limits: ExplorationLimits(reduction: .plain, checksInvariants: false)).states
            #expect(reduced < plain, "\(name) at \(inFlight)/\(stale): \(reduced) states with the reduction, \(plain) without")
        }
    }

    @Test("the reduction merges states where several calls or requests are in flight")
    func reductionReduces() {
        Self.expectFewerStates(["session.everday", "session.subspace", "realtimeConnection", "app.vynqTalk"]) {
            $0.name.hasPrefix("session.") ? (2, 1) : ($0.inFlight, $0.stale)
        }
    }

    @Test("the reduction merges a code sent exactly the history's horizon ago with one sent earlier, in every lifecycle that sends codes")
    func horizonMergeReduces() {
        // At 1/1 the symmetry merges nothing in these flows: with the history's horizon made
        // inclusive in both searches (a scratch edit), both searches gave 34, 259 and 34 states.
        // So every state merged here is merged by the horizon; the plain search has 54, 271 and 54.
        Self.expectFewerStates(["codeRegistration", "oneTimeCodeSignIn.email", "passwordReset.autoLogin"]) { _ in (1, 1) }
    }

    // MARK: Same counterexamples, every broken reducer

    @Test(
        "each broken reducer breaks the same invariants with and without the reduction, each with a counterexample of the same length",
        .timeLimit(.minutes(15)), arguments: MutantTable.rows)
    func mutantsCaughtAlike(_ row: MutantCase) {
        var limits = MutantTests.limits(row)
        limits.reduction = .symmetric
        let reduced = row.mutant.explore(limits: limits)
        limits.reduction = .plain
        let plain = row.mutant.explore(limits: limits)
        let shortest = { (report: ExplorationReport) in
            Dictionary(report.violations.map { ($0.invariant, $0.trace.count) }, uniquingKeysWith: min)
        }
        #expect(shortest(reduced) == shortest(plain))
        #expect(shortest(reduced)[row.invariant] != nil, "\(row.mutant.name) is not caught with the reduction")
    }
}
