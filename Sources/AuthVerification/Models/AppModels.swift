import AuthCore

extension Models {
    /// The app models explore what composing the lifecycles adds (handing over to the session,
    /// signing out back to the entry flows, switching flows with a request in flight, cooldowns
    /// across flows, relaunch); each lifecycle's own races are explored by its own model.
    ///
    /// Each model is explored by default at the highest bounds that keep `authflow verify` (every
    /// model, fuzzing included) under 10 seconds on a 2-core machine in a release build:
    /// - The single flows, Anonymous Wall's session, the realtime connection and VynqTalk's app: 4
    ///   requests in flight and 2 answers left over (``fullBounds``, ``LifecycleModel``'s default).
    /// - The three refreshing sessions (Everday's, Subspace's, Hero365's) and Everday's,
    ///   Subspace's and OpenID Connect's apps: 4 and 1 (``refreshingBounds``; 14,939 to 53,113 states each, Subspace's
    ///   app the largest since its native sign-in joined its password flows, Hero365's session the
    ///   largest session since its logout revokes in the background). A second answer left
    ///   over takes the three sessions to 54,401–116,618 states each, more than the budget leaves
    ///   for them.
    /// - Anonymous Wall's and Hero365's apps: one request at a time (``oneAtATime``; 57,621 and
    ///   25,173 states). With a second request in flight they hold 130,611 and 148,476 states:
    ///   Anonymous Wall's alone then takes about 10 seconds on one core, and the two together
    ///   leave no room for the rest. Each has four entry flows whose code cooldowns (and Anonymous
    ///   Wall's 429 windows) outlive the flow that met them; at 4 and 2 they close at 1,418,158 and
    ///   1,269,130 states (two minutes and a minute and a half).
    ///
    /// CI checks every model at 4 and 2 as well (`authflow verify --in-flight 4 --stale 2`, about
    /// two and a half minutes), and `verify`'s fuzz walks go up to 8 and 4 in every model.
    static let refreshingBounds = (inFlight: 4, stale: 1)
    /// See ``refreshingBounds``.
    static let oneAtATime = (inFlight: 1, stale: 1)

    /// Failures offered to every request in the app models: one of each class the session treats
    /// differently (definitive, transient, rate-limited, unreadable), to keep whole apps explorable.
    static let appFailures: [AuthFailure] = [
        .badRequest(nil), .unauthorized(nil), .forbidden(nil), .conflict(nil), .rateLimited(retryAfter: .seconds(30)),
        .network, .malformed,
    ]

    // Each app's menu: the entry flows' intents do not depend on the world, so they are built
    // once per model (wrapping each in the app's intent allocates); only the session's (and
    // Hero365's OAuth) depend on it, through the few facts they read (see ``Menus/app(_:then:session:)``).

    /// Anonymous Wall's whole app.
    public static func anonymousWallApp() -> Model<AnonymousWallApp> {
        let app = Apps.anonymousWall()
        let entries =
            Menus.routed(Menus.codeRegistration, into: app) + Menus.routed(Menus.passwordSignIn(.email), into: app)
            + Menus.routed(Menus.oneTimeCode(.email), into: app)
            + Menus.routed(Menus.passwordReset(.emailCodeWithAutoLogin), into: app)
        var replies = aw
        replies.failures = appFailures
        let codes = CodeRules(cooldown: .seconds(60))
        return Model(
            name: "app.anonymousWall", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
                "SessionLifecycle.Refresh.offline": "idem", "SessionLifecycle.Phase.restoring": "stored tokens are trusted",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "PasswordReset.Phase.linkSent": "Hero365's", "PasswordReset.Phase.completed": "this reset signs in",
            ],
            codes: codes, timeHorizon: .zero, maxInFlight: oneAtATime.inFlight, maxStale: oneAtATime.stale,
            menu: Menus.app(entries) { .session($0) })
    }

    /// VynqTalk's whole app.
    public static func vynqTalkApp() -> Model<VynqTalkApp> {
        let app = Apps.vynqTalk(connection: RealtimeConnection(maxAttempts: 2))
        let entries =
            Menus.routed(Menus.registration([.nameEmailPassword]), into: app) + Menus.routed(Menus.passwordSignIn(.email), into: app)
        // `connect` carries a stale token on purpose: the composition must open with the session's own.
        let connection: [VynqTalkApp.Intent] = [
            .session(.connection(.disconnect)), .session(.connection(.connect(AccessToken(Symbols.name("at", 1))))),
        ]
        var replies = ReplyCatalogue()
        replies.failures = [.badRequest(nil), .unauthorized(nil), .conflict(nil), .network, .malformed]
        replies.callFailures = [.unauthorized(nil), .forbidden(nil)]
        return Model(
            name: "app.vynqTalk", machine: app, replies: replies,
            relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded",
                "PasswordSignIn.Phase.pendingApproval": "Everday's", "PasswordSignIn.Phase.rateLimited": "VynqTalk documents no 429",
                "Registration.Phase.awaitingVerification": "signup signs in", "Registration.Phase.pendingApproval": "idem",
                "RealtimeConnection.Phase.rejected": "a rejected connection signs out at once (no refresh token), within the same step",
            ], timeHorizon: .zero,
            menu: Menus.app(entries, then: connection) { .session(.session($0)) })
    }

    /// Everday's whole app.
    public static func everdayApp() -> Model<EverdayApp> {
        // Without the account deletion: with it this model holds 42,239 states at 4/1 (14,939
        // without) and does not close in two minutes at 4/2; the deletion is explored by the
        // mutant models (`session.restoringByUser`) and its transitions are tabled.
        let app = Apps.everday(refresh: modelRefresh(retryLimit: 2), serverSignOutAttempts: 2, accountDeletion: false)
        let entries =
            Menus.routed(Menus.registration([.usernamePassword]), into: app) + Menus.routed(Menus.passwordSignIn(.username), into: app)
            + Menus.routed(Menus.passwordReset(.emailedToken), into: app)
        var replies = ReplyCatalogue(
            grants: [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)],
            registration: [.pendingApproval], accessLifetime: tokenLifetime)
        replies.failures = appFailures + [.pendingApproval(nil)]
        replies.passwordStepFailures = [.incorrectPassword(nil)]
        replies.passwordChangeRevokesRefreshTokens = true
        replies.passwordStepAnswersUser = false
        return Model(
            name: "app.everday", machine: app,
            replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded", "Registration.Phase.registered": "approval-gated",
                "Registration.Phase.awaitingVerification": "approval-gated", "PasswordReset.Phase.linkSent": "Hero365's",
                "PasswordReset.Phase.signedIn": "Everday's reset does not sign in",
            ], timeHorizon: .zero, maxInFlight: refreshingBounds.inFlight, maxStale: refreshingBounds.stale, endsServerSessions: true,
            menu: Menus.app(entries) { .session($0) })
    }

    /// Subspace's whole app.
    public static func subspaceApp() -> Model<SubspaceApp> {
        let app = Apps.subspace(refresh: modelRefreshWhenGranted(retryLimit: 3))
        let entries =
            Menus.routed(Menus.registration([.nameEmailPassword]), into: app) + Menus.routed(Menus.passwordSignIn(.email), into: app)
            + Menus.routed(Menus.nativeSignIn, into: app)
        // The document's grant (no refresh token) and the deployed server's (a rotating one).
        var replies = ReplyCatalogue(grants: [.init(), .init(withRefreshToken: true)], accessLifetime: tokenLifetime)
        replies.failures = appFailures + [.server(status: 500, nil)]
        return Model(
            name: "app.subspace", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "Registration.Phase.awaitingVerification": "register signs in", "Registration.Phase.pendingApproval": "idem",
                "OAuthSignIn.Phase.fetchingURL": "native sign-in only: no provider hands out a URL",
                "OAuthSignIn.Phase.awaitingCallback": "idem",
            ], timeHorizon: .zero, maxInFlight: refreshingBounds.inFlight, maxStale: refreshingBounds.stale,
            menu: Menus.app(entries) { .session($0) })
    }

    /// Hero365's whole app.
    public static func hero365App() -> Model<Hero365App> {
        let otp = OneTimeCodeSignIn(channel: .phone, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)
        let app = Apps.hero365(otp: otp, refresh: modelRefresh(retryLimit: 2))
        let entries =
            Menus.routed(Menus.registration([.emailPassword, .phonePassword]), into: app)
            + Menus.routed(Menus.passwordSignIn(.emailOrPhone), into: app) + Menus.routed(Menus.oneTimeCode(.phone), into: app)
        let reset = Menus.routed(Menus.passwordReset(.emailLink), into: app)
        let menus = Memo<Hero365MenuKey, [Hero365App.Intent]>()
        var replies = ReplyCatalogue(
            grants: [.init(withRefreshToken: true)], registration: [.verificationRequired], accessLifetime: tokenLifetime)
        // Five entry flows and a rotating session: one definitive and one transient failure keep
        // the whole app at about 280,000 states. The
        // session's failure classes are explored by session.hero365, each entry flow's by its
        // own model; what this model adds — handing over from every flow, stale answers across
        // flows and sessions with two requests in flight, relaunch — needs no more.
        replies.failures = [.unauthorized(nil), .network]
        let codes = CodeRules(cooldown: otp.resendCooldown, lifetime: otp.codeLifetime, maxAttempts: otp.maxAttempts)
        return Model(
            name: "app.hero365",
            machine: app,
            replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "Registration.Phase.registered": "sign-up asks to verify", "Registration.Phase.pendingApproval": "idem",
                "PasswordReset.Phase.awaitingProof": "recovery is a link", "PasswordReset.Phase.resetting": "idem",
                "PasswordReset.Phase.completed": "idem", "PasswordReset.Phase.signedIn": "idem",
                "PasswordReset.Phase.requestingAgain": "a link is requested afresh",
                "PasswordSignIn.Phase.rateLimited": "no 429 in this model (explored by passwordSignIn and session.hero365)",
            ],
            codes: codes, timeHorizon: .zero, maxInFlight: oneAtATime.inFlight, maxStale: oneAtATime.stale,
            endsServerSessions: true  // Logout revokes at the deployed `/revoke-tokens/{user_id}`.
        ) { snapshot in
            // The OAuth intents depend on three facts of the world (the pending attempt, the next
            // token indices), the session's on the call it can offer: the menu is built once for
            // each. A walk's token indices grow with its length only, so the memo stays small.
            let key = Hero365MenuKey(oauth: Menus.OAuthMenuKey(in: snapshot), canCall: Menus.canCall(in: snapshot, callers: 1))
            return menus.value(key) { key in
                entries + Menus.routed(Menus.oauth(key.oauth), into: app) + reset
                    + Menus.session(offeringCall: key.canCall).map { .session($0) }
            }
        }
    }
}

/// What Hero365's app menu reads of a world: the OAuth facts and the call the session can offer.
struct Hero365MenuKey: Hashable, Sendable {
    let oauth: Menus.OAuthMenuKey
    let canCall: Bool
}
