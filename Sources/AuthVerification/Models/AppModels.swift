import AuthCore

extension Models {
    /// The app models explore what composing the lifecycles adds (handing over to the session,
    /// signing out back to the entry flows, switching flows with a request in flight, cooldowns
    /// across flows, relaunch); each lifecycle's own races are explored by its own model.
    ///
    /// `authflow verify` explores every model at 4 requests in flight and 2 answers left over
    /// (``fullBounds``): two and a half to six minutes on a 2-core machine in a release build,
    /// depending on the machine, 15 to 35 times the 10 seconds the run is meant to take
    /// (`authflow bench` prints the gap). A model's own bounds are what the test suite and the
    /// state diagrams explore, in a debug build, and what `authflow verify --quick` checks, in 15
    /// to 30 seconds:
    /// - The single flows, Anonymous Wall's session, the realtime connection and VynqTalk's app: 4
    ///   requests in flight and 2 answers left over (``fullBounds``, ``LifecycleModel``'s default).
    /// - The three refreshing sessions (Everday's, Subspace's, Hero365's) and Everday's,
    ///   Subspace's and OpenID Connect's apps: 4 and 1 (``refreshingBounds``; 3,520 to 18,717
    ///   states each, Everday's session and app the largest). A second answer left over takes
    ///   them to 12,150–301,765 states each, Everday's session the largest.
    /// - Anonymous Wall's and Hero365's apps: one request at a time (``oneAtATime``; 41,456 and
    ///   17,228 states). With a second request in flight they hold 82,199 and 64,472 states (at
    ///   4/1). Each has four entry flows whose code cooldowns (and Anonymous Wall's 429 windows)
    ///   outlive the flow that met them; at 4 and 2 they close at 265,627 and 256,245 states
    ///   (one and a quarter to two and a half minutes each on one core, depending on the machine).
    ///
    /// `verify`'s fuzz walks go up to 8 and 4 in every model.
    static let refreshingBounds = (inFlight: 4, stale: 1)
    /// See ``refreshingBounds``.
    static let oneAtATime = (inFlight: 1, stale: 1)

    /// Failures offered to every request in the app models: one of each class the session treats
    /// differently (definitive, transient, rate-limited, unreadable), to keep whole apps explorable.
    static let appFailures: [AuthFailure] = [
        .badRequest(nil), .unauthorized(nil), .forbidden(nil), .conflict(nil), .rateLimited(retryAfter: .seconds(30)),
        .network, .malformed,
    ]

    // Each app's model is derived from its composition (``Model/init(of:name:callers:maxInFlight:maxStale:unreachable:server:)``):
    // its menu, the grants its session implies, the cases its configuration leaves out, its code
    // rules. What each states here is its server's: the answers it gives beyond those, and the
    // failures explored.

    /// Anonymous Wall's whole app.
    public static func anonymousWallApp() -> Model<AnonymousWallApp> {
        Model(of: Apps.anonymousWall(), name: "app.anonymousWall", maxInFlight: oneAtATime.inFlight, maxStale: oneAtATime.stale) {
            $0.failures = appFailures
        }
    }

    /// VynqTalk's whole app.
    public static func vynqTalkApp() -> Model<VynqTalkApp> {
        Model(of: Apps.vynqTalk(connection: RealtimeConnection(maxAttempts: 2)), name: "app.vynqTalk") { server in
            server.failures = [.badRequest(nil), .unauthorized(nil), .conflict(nil), .network, .malformed]  // It documents no 429.
            server.callFailures = [.unauthorized(nil), .forbidden(nil)]
        }
    }

    /// Everday's whole app.
    public static func everdayApp() -> Model<EverdayApp> {
        // Without the account deletion: with it this model holds 42,239 states at 4/1 (14,939
        // without) and does not close in two minutes at 4/2; the deletion is explored by the
        // mutant models (`session.restoringByUser`) and its transitions are tabled. One send per
        // round of the background sign-out: the entry flows beside a revocation owed or under way
        // are what this model adds, and session.everday explores the sign-out's own retries (two
        // sends). With two here it held 549,059 states at 4/2 (171 s); with one, 387,215.
        var app = Apps.everday(refresh: modelRefresh(retryLimit: 2), serverSignOutAttempts: 1, accountDeletion: false)
        app.session.policy.revocationRounds = modelRevocationRounds
        return Model(of: app, name: "app.everday", maxInFlight: refreshingBounds.inFlight, maxStale: refreshingBounds.stale) { server in
            server.grants.append(.init(requiresPasswordChange: true, withRefreshToken: true))  // `RequirePasswordChange`.
            server.registration = [.pendingApproval]  // A parent approves every account.
            server.failures = appFailures + [.pendingApproval(nil)]
            // Its deployed change-password: a wrong current password, and a bare `{"status":"ok"}`.
            server.passwordStepFailures = [.incorrectPassword(nil)]
            server.passwordStepAnswersUser = false
        }
    }

    /// Subspace's whole app: the document's grant (no refresh token) and the deployed server's
    /// (a rotating one), both implied by its refresh policy.
    public static func subspaceApp() -> Model<SubspaceApp> {
        let app = Apps.subspace(refresh: modelRefreshWhenGranted(retryLimit: 3))
        return Model(of: app, name: "app.subspace", maxInFlight: refreshingBounds.inFlight, maxStale: refreshingBounds.stale) {
            $0.failures = appFailures + [.server(status: 500, nil)]
        }
    }

    /// Hero365's whole app.
    public static func hero365App() -> Model<Hero365App> {
        let otp = OneTimeCodeSignIn(channel: .phone, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)
        var app = Apps.hero365(otp: otp, refresh: modelRefresh(retryLimit: 2))
        // Without the revocation at logout: a revocation the server could not be reached for is
        // owed in the vault, and an owed token beside every state of the five entry flows doubles
        // this model at 4/2 (1,627,615 to 3,475,879 states, 261 s to about 8 minutes, measured
        // before the code lists and the requests left over were reduced). Hero365's server
        // sign-out, owed revocations among it, is explored by session.hero365 (its session behind
        // a sign-in, at 4/1 and 4/2) and by the mutant model session.owing; this model explores
        // what the entry flows add.
        app.session.policy.revokesOnLogout = false
        return Model(of: app, name: "app.hero365", maxInFlight: oneAtATime.inFlight, maxStale: oneAtATime.stale) { server in
            server.registration = [.verificationRequired]  // Sign-up asks to verify.
            // Five entry flows and a rotating session: one definitive and one transient failure keep
            // the whole app at about 280,000 states. The
            // session's failure classes are explored by session.hero365, each entry flow's by its
            // own model; what this model adds — handing over from every flow, stale answers across
            // flows and sessions with two requests in flight, relaunch — needs no more.
            server.failures = [.unauthorized(nil), .network]
        }
    }
}
