import AuthCore

/// A model with its type erased, for command lines and parameterized tests.
public struct AnyModel: Sendable, CustomStringConvertible {
    /// The model's name, e.g. `session.everday`.
    public let name: String
    /// The invariants it checks, by name.
    public let invariantNames: [String]
    /// Requests in flight at most, as the model is explored (``LifecycleModel/maxInFlight``).
    public let inFlight: Int
    /// Answers left over at most (``LifecycleModel/maxStale``).
    public let stale: Int
    @usableFromInline let boundedBody: @Sendable (Int, Int) -> AnyModel
    @usableFromInline let exploreBody:
        @Sendable (ExplorationLimits, (@Sendable (ExplorationProgress) -> Void)?, (@Sendable (Violation) -> Void)?) -> ExplorationReport
    @usableFromInline let fuzzBody: @Sendable (FuzzConfiguration) -> FuzzReport
    @usableFromInline let replayBody: @Sendable (UInt64, Int) -> FuzzFailure?
    @usableFromInline let walkBody: @Sendable (UInt64, Int) -> FuzzWalk
    @usableFromInline let contractBody: @Sendable (Int) -> ContractCheckReport

    /// Erases `model`.
    ///
    /// Inlinable, so that a model erased in an app's own module keeps an explorer and a fuzzer
    /// specialized for its types: the README's verification executable, which then held 37,999
    /// states (before owed revocations), explored them in 17.4 s with the generic explorer and in
    /// 13.9 s with a specialized one.
    @inlinable public init<M: LifecycleModel>(_ model: M) {
        self.name = model.name
        self.invariantNames = model.invariants.map(\.name)
        self.inFlight = model.maxInFlight
        self.stale = model.maxStale
        self.boundedBody = { AnyModel(BoundedModel(model, inFlight: $0, stale: $1)) }
        self.exploreBody = { Explorer.explore(model, limits: $0, progress: $1, found: $2) }
        self.fuzzBody = { Fuzzer.fuzz(model, $0) }
        self.replayBody = { Fuzzer.replay(model, seed: $0, length: $1) }
        self.walkBody = { Fuzzer.walk(model, seed: $0, length: $1) }
        self.contractBody = { ContractCheck.check(model, states: $0) }
    }

    /// Explores to closure (or the limits, or the level of the first violation); `progress` is
    /// called now and then with how far it has come, `found` with each violation as it is found.
    public func explore(
        limits: ExplorationLimits = ExplorationLimits(), progress: (@Sendable (ExplorationProgress) -> Void)? = nil,
        found: (@Sendable (Violation) -> Void)? = nil
    ) -> ExplorationReport {
        exploreBody(limits, progress, found)
    }
    /// The same model explored with other bounds (see ``BoundedModel``).
    public func bounded(inFlight: Int, stale: Int) -> AnyModel { boundedBody(inFlight, stale) }
    /// The same model with each bound raised to at least `least`'s, a higher one kept: how
    /// `authflow verify` (and the bench's row for it) runs every model at ``Models/fullBounds``.
    /// The model itself when neither is raised.
    public func raised(toAtLeast least: (inFlight: Int, stale: Int)) -> AnyModel {
        let (inFlight, stale) = (max(self.inFlight, least.inFlight), max(self.stale, least.stale))
        return inFlight == self.inFlight && stale == self.stale ? self : bounded(inFlight: inFlight, stale: stale)
    }
    /// Fuzzes.
    public func fuzz(_ configuration: FuzzConfiguration = FuzzConfiguration()) -> FuzzReport { fuzzBody(configuration) }
    /// Replays one fuzz run from its seed.
    public func replay(seed: UInt64, length: Int) -> FuzzFailure? { replayBody(seed, length) }
    /// One fuzz walk from its seed, step by step, unshrunk (see ``Fuzzer/walk(_:seed:length:)``).
    public func walk(seed: UInt64, length: Int) -> FuzzWalk { walkBody(seed, length) }
    /// Checks `intents(in:)`'s contract on the model's first `states` worlds (see ``ContractCheck``).
    public func checkContract(states: Int = 1_000) -> ContractCheckReport { contractBody(states) }
    /// The name.
    public var description: String { name }
}

/// The models of every documented lifecycle and of every backend's app.
public enum Models {
    /// Every model `authflow verify` checks: the lifecycles first, then the documented backends'
    /// apps, then the apps of the standards AuthCore signs in with.
    public static var all: [AnyModel] { lifecycles + apps + standards }

    /// 4 requests in flight and 2 answers left over: a model's bounds unless it says otherwise
    /// (``LifecycleModel``'s default), the bounds `authflow verify` checks every shipped model at,
    /// and those CI checks that no state diagram misses a state or an edge of
    /// (`authflow verify --diagrams`). The largest shipped models hold lower bounds of their own,
    /// which the tests, the diagrams and `authflow verify --quick` explore.
    public static let fullBounds = (inFlight: 4, stale: 2)

    /// Looks a model up by name.
    public static func named(_ name: String) -> AnyModel? { all.first { $0.name == name } }

    /// One model per lifecycle (and per distinct configuration the backends need).
    public static var lifecycles: [AnyModel] {
        [
            AnyModel(codeRegistration()), AnyModel(oneTimeCode(.email)), AnyModel(oneTimeCode(.phone)),
            AnyModel(passwordSignIn()), AnyModel(registration()), AnyModel(passwordReset(.emailCodeWithAutoLogin)),
            AnyModel(passwordReset(.emailedToken)), AnyModel(passwordReset(.emailLink)), AnyModel(oauth()), AnyModel(openIDSignIn()),
            AnyModel(deviceSignIn()),
            AnyModel(session(.anonymousWall)), AnyModel(session(.everday)), AnyModel(session(.subspace)),
            AnyModel(session(.hero365)), AnyModel(realtime()),
        ]
    }

    /// One model per documented backend's app, in `Backend.documented` order.
    public static var apps: [AnyModel] {
        [AnyModel(anonymousWallApp()), AnyModel(vynqTalkApp()), AnyModel(everdayApp()), AnyModel(subspaceApp()), AnyModel(hero365App())]
    }

    /// One model per app of a standard rather than a documented backend: OpenID Connect's
    /// (``openIDConnectApp()``, `Backend.openIDConnect`).
    public static var standards: [AnyModel] { [AnyModel(openIDConnectApp())] }

    static let failures = ReplyCatalogue.standardFailures

    /// The access-token lifetime the models use in place of the documented ones (30 minutes, 24 hours, 8
    /// days): twice the refresh margin, so a proactive refresh, its retries, a rate limit and the
    /// expiry itself all fall within a few steps of each other. The reducers' behaviour depends
    /// only on how a lifetime compares with margins, backoffs and waits, not on its size (the
    /// small-scope hypothesis); a documented lifetime would only add thousands of states that
    /// differ in how long is left.
    public static let tokenLifetime = Interval.seconds(120)

    /// The rotating-refresh policy the models explore: the apps' margin (60 s), with the backoff
    /// on the same 15-second grid as the models' other intervals (429 retry-after 30 s, token
    /// lifetime 120 s). Every ordering between them still occurs (backoff < retry-after < margin
    /// < lifetime, and a doubled backoff that ties the retry-after), while time adds only a few
    /// distinct states: with the apps' 2-second backoff each of dozens of "seconds left before
    /// expiry" would be a state of its own.
    public static func modelRefresh(retryLimit: Int) -> RefreshPolicy {
        .rotating(margin: .seconds(60), retryLimit: retryLimit, backoff: .seconds(15))
    }

    /// The rounds an owed revocation gets in the models (`SessionPolicy/revocationRounds`): two,
    /// the least a policy allows — the logout's own, then one more at the next launch or logout
    /// (or sign-in). Every way a round ends is explored: the server ends the token, refuses it,
    /// or cannot be reached (owed, then reported). A third round only counts one more failure,
    /// as `OwedRevocationTests` shows; with it session.hero365 held 224,520 states at 4/1.
    public static let modelRevocationRounds = 2

    /// ``modelRefresh(retryLimit:)`` applied only when the grant carries a refresh token (Subspace).
    public static func modelRefreshWhenGranted(retryLimit: Int) -> RefreshPolicy {
        .rotatingWhenGranted(margin: .seconds(60), retryLimit: retryLimit, backoff: .seconds(15))
    }

    static let aw = ReplyCatalogue(
        grants: [.init(passwordSet: false), .init(passwordSet: true), .init(passwordSet: nil)])

    // Each lifecycle's model is derived from its configuration
    // (``Model/init(of:name:callers:maxInFlight:maxStale:unreachable:server:)``); what each states
    // here is the server's answers the flow meets.

    /// Anonymous Wall's code registration.
    public static func codeRegistration() -> Model<CodeRegistration> {
        Model(of: CodeRegistration(resendCooldown: .seconds(60)), name: "codeRegistration") { $0.grants = aw.grants }
    }

    /// Code sign-in on one channel.
    public static func oneTimeCode(_ channel: OneTimeCodeSignIn.Channel) -> Model<OneTimeCodeSignIn> {
        let machine = OneTimeCodeSignIn(channel: channel, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)
        return Model(of: machine, name: "oneTimeCodeSignIn.\(channel == .email ? "email" : "phone")") {
            $0.grants = [.init(withRefreshToken: channel == .phone)]
        }
    }

    /// Password sign-in (Everday's shapes: pending approval, password change demanded, 429).
    public static func passwordSignIn() -> Model<PasswordSignIn> {
        Model(of: PasswordSignIn(identifiers: .username), name: "passwordSignIn") {
            $0.grants = [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)]
        }
    }

    /// Registration answering every way a backend can.
    public static func registration() -> Model<Registration> {
        Model(of: Registration(forms: [.nameEmailPassword, .phonePassword, .usernamePassword]), name: "registration") {
            $0.registration = [.session, .verificationRequired, .pendingApproval]
        }
    }

    /// Password reset in one style.
    public static func passwordReset(_ style: PasswordReset.Style) -> Model<PasswordReset> {
        let machine = PasswordReset(style: style, resendCooldown: .seconds(60))
        let name =
            switch style {
            case .emailCodeWithAutoLogin: "passwordReset.autoLogin"
            case .emailedToken: "passwordReset.token"
            case .emailLink: "passwordReset.link"
            }
        var model = Model(of: machine, name: name) { $0.grants = aw.grants }
        if style == .emailedToken {
            // Kept from the model written by hand: the token reset sends no code here (it is asked
            // for by username), so the cooldown's invariant holds vacuously.
            model.codeRules = CodeRules(cooldown: machine.resendCooldown)
            model.historyHorizon = max(model.historyHorizon, machine.resendCooldown)
            model.invariants = Catalogue.all(codes: model.codeRules)
        }
        return model
    }

    /// Hero365 OAuth.
    public static func oauth() -> Model<OAuthSignIn> { Model(of: OAuthSignIn(), name: "oauthSignIn") }

    /// A documented backend whose session ``session(_:)`` models under its own policy.
    public enum SessionBackend: String, Hashable, Sendable, CaseIterable {
        /// Anonymous Wall's: no refresh, stored tokens trusted, a first password demanded.
        case anonymousWall
        /// VynqTalk's: no refresh, the stored token checked at launch, 403 ends the session.
        case vynqTalk
        /// Everday's: rotating refresh, logout revoking, the password change ending every session.
        case everday
        /// Subspace's: the document's grant without a refresh token and the deployed one with it.
        case subspace
        /// Hero365's: rotating refresh, logout revoking every refresh token of the user.
        case hero365

        /// The backend.
        public var backend: Backend {
            switch self {
            case .anonymousWall: .anonymousWall
            case .vynqTalk: .vynqTalk
            case .everday: .everday
            case .subspace: .subspace
            case .hero365: .hero365
            }
        }
    }

    /// The session under one backend's policy, entered by a password sign-in.
    public static func session(_ backend: SessionBackend) -> Model<Handover<PasswordSignIn, SessionLifecycle>> {
        session(backend, named: "session.\(backend.backend.id)") { $0 }
    }

    /// ``session(_:)``'s model around `variant` of its machine (a broken reducer, say), named
    /// `name`: the same answers, menu, bounds and invariants, and the cases the shipped machine
    /// cannot reach.
    static func session<Machine: Lifecycle>(
        _ backend: SessionBackend, named name: String, _ variant: (Handover<PasswordSignIn, SessionLifecycle>) -> Machine
    ) -> Model<Machine> where Machine.Intent == Handover<PasswordSignIn, SessionLifecycle>.Intent {
        let policy: SessionPolicy
        var replies: ReplyCatalogue
        // The refreshing sessions are explored at 4 and 1 by default (see ``refreshingBounds``).
        let bounds: (inFlight: Int, stale: Int)
        switch backend {
        case .anonymousWall, .vynqTalk:
            bounds = fullBounds  // No refresh: closes in a tenth of a second.
            policy = SessionPolicy(
                refresh: .none, restore: backend == .vynqTalk ? .fetchCurrentUser : .trustStored, forbiddenEndsSession: backend == .vynqTalk,
                supportsPasswordSetup: backend == .anonymousWall, supportsPasswordChange: backend == .anonymousWall)
            // `passwordSet` is Anonymous Wall's field; VynqTalk's users never carry it.
            replies = ReplyCatalogue(grants: backend == .anonymousWall ? [.init(passwordSet: false), .init(passwordSet: nil)] : [.init()])
        case .subspace:
            bounds = refreshingBounds
            // Both forms in one model: the document's grant (no refresh token: the session ends with
            // its token) and the deployed server's (a refresh token: rotating refresh).
            policy = SessionPolicy(refresh: modelRefreshWhenGranted(retryLimit: 3), restore: .fetchCurrentUser)
            replies = ReplyCatalogue(grants: [.init(), .init(withRefreshToken: true)], accessLifetime: tokenLifetime)
        case .everday, .hero365:
            bounds = refreshingBounds
            policy = SessionPolicy(
                refresh: modelRefresh(retryLimit: 3),
                // Both end the server session at logout: Everday's `/auth/logout`, Hero365's deployed
                // `/revoke-tokens/{user_id}`.
                restore: backend == .everday ? .refresh : .fetchCurrentUser, revokesOnLogout: true,
                supportsPasswordChange: backend == .everday, passwordChangeEndsSessions: backend == .everday,
                // No account deletion: it multiplies this model by five (22,712 to 110,295 states at
                // 4/1, 328,651 to 1,430,318 at 4/2); the mutant models explore it.
                supportsAccountDeletion: false, serverSignOutAttempts: 2,
                revocationRounds: modelRevocationRounds, revocationEndsEverySession: backend == .hero365)
            replies = ReplyCatalogue(
                grants: backend == .everday
                    ? [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)]
                    : [.init(withRefreshToken: true)],
                accessLifetime: tokenLifetime)
        }
        replies.failures = [.unauthorized(nil), .forbidden(nil), .rateLimited(retryAfter: .seconds(30)), .network, .malformed]
        replies.revocationEndsEverySession = policy.revocationEndsEverySession
        replies.revocationRounds = policy.revocationRounds
        replies.revocationAttempts = policy.serverSignOutAttempts
        if backend == .everday {
            // Its deployed server's change-password: a wrong current password, and every refresh token revoked on success.
            replies.passwordStepFailures = [.incorrectPassword(nil)]
            replies.passwordChangeRevokesRefreshTokens = true
            replies.passwordStepAnswersUser = false
        }
        let identifiers: PasswordSignIn.IdentifierKind = backend == .everday ? .username : .email
        let machine = Handover(entry: PasswordSignIn(identifiers: identifiers), session: SessionLifecycle(policy: policy))
        // The cases the policy and the answers leave out are derived; the sign-in is a door here,
        // offered valid input only, its cases the subject of its own model.
        let door = [
            UnreachableCase(PasswordSignIn.Phase.Case.pendingApproval, "the session model's sign-in is a door, not the subject"),
            UnreachableCase(PasswordSignIn.Phase.Case.rateLimited, "the session model's sign-in is a door, not the subject"),
        ]
        return Model(
            name: name, machine: variant(machine),
            replies: replies, relaunches: true, unreachableByDesign: byDesign(machine.unreachableCases(answering: replies) + door),
            timeHorizon: .zero,
            maxInFlight: bounds.inFlight, maxStale: bounds.stale,
            endsServerSessions: policy.revokesOnLogout,
            menu: Menus.app(
                [
                    .entry(.submit(identifier: identifiers == .username ? Inputs.username : Inputs.email, password: Inputs.password)),
                    .entry(.startOver),
                ],
                callers: 2, session: { .session($0) }))
    }

    /// The realtime connection beside a VynqTalk session.
    public static func realtime() -> Model<Handover<PasswordSignIn, SessionWithRealtime>> {
        realtime("realtimeConnection", realtimeMachine)
    }

    /// What ``realtime()`` explores: a VynqTalk session without refresh, checked at launch, its
    /// connection trying 3 times and asking the server about its token after 2 opens closed at once.
    public static let realtimeMachine = Handover(
        entry: PasswordSignIn(identifiers: .email),
        session: SessionWithRealtime(
            session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .fetchCurrentUser, forbiddenEndsSession: true)),
            connection: RealtimeConnection(maxAttempts: 3, maxFlaps: 2)))

    /// ``realtime()``'s model around `machine` (a broken variant of ``realtimeMachine``, say). The
    /// server may refuse an open, fail it, or accept it and close it at any time after, "open,
    /// then closed at once" included (a close before the connection's stability timer fires).
    public static func realtime<Machine: Lifecycle>(_ name: String, _ machine: Machine) -> Model<Machine>
    where Machine.Intent == Handover<PasswordSignIn, SessionWithRealtime>.Intent {
        var replies = ReplyCatalogue()
        replies.failures = [.unauthorized(nil), .network]
        replies.callFailures = [.unauthorized(nil), .forbidden(nil)]
        return Model(
            name: name, machine: machine,
            replies: replies, relaunches: true,
            // Derived from ``realtimeMachine``, of which `machine` is at most a broken variant.
            unreachableByDesign: byDesign(realtimeMachine.unreachableCases(answering: replies)), timeHorizon: .zero,
            // `connect` carries a stale token on purpose: the composition must open with the session's own.
            menu: Menus.app(
                [
                    .entry(.submit(identifier: Inputs.email, password: Inputs.password)), .entry(.startOver),
                    .session(.connection(.disconnect)), .session(.connection(.connect(AccessToken(Symbols.name("at", 1))))),
                ], session: { .session(.session($0)) }))
    }

    /// `cases` keyed as ``LifecycleModel/unreachableByDesign`` keys them.
    static func byDesign(_ cases: [UnreachableCase]) -> [String: String] {
        Dictionary(cases.map { ($0.key, $0.reason) }) { first, _ in first }
    }
}

extension Models {
    /// The order `authflow verify` (and the bench's row for it) starts `models` in when they run
    /// at the bounds of `run` (the same models, raised to 4 and 2 or bounded by `--in-flight` and
    /// `--stale`; `nil` when each runs at its own). The longest work starts first, so the cores
    /// finish close together (longest-processing-time scheduling); the table keeps the registry's
    /// order.
    ///
    /// A model whose own bounds are lower than the run's comes first, the lowest leading: a
    /// shipped model holds bounds below 4 and 2 of its own only because it is large there
    /// (Anonymous Wall's and Hero365's apps at 1 and 1, the refreshing sessions and apps at 4 and
    /// 1), so at 4 and 2 these are the longest explorations, and a session of theirs left for last
    /// ran alone on one core for a minute and a half. Then the compositions (`app.…`), as each holds the
    /// space of the lifecycles it composes, then the sessions, then the single flows, each group in
    /// the registry's order.
    package static func largestFirst(_ models: [AnyModel], runAt run: [AnyModel]? = nil) -> [Int] {
        func rank(_ name: String) -> Int { name.hasPrefix("app.") ? 0 : name.hasPrefix("session.") ? 1 : 2 }
        func key(_ index: Int) -> (Int, Int, Int, Int) {
            let own = models[index].inFlight * models[index].stale
            let raised = run.map { $0[index].inFlight * $0[index].stale > own } ?? false
            return raised ? (0, own, 0, index) : (1, 0, rank(models[index].name), index)
        }
        return models.indices.sorted { key($0) < key($1) }
    }
}
