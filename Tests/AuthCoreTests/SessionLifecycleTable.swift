@testable import AuthCore

/// Shared pieces of the session table: the five backends' policies, sample phases, and the
/// effects every ending shares.
enum SessionTable {
    typealias Phase = SessionLifecycle.Phase
    typealias Intent = SessionLifecycle.Intent
    typealias Event = AuthEvent<Intent>

    static let anonymousWall = Apps.anonymousWall().session
    static let everday = Apps.everday().session
    static let subspace = Apps.subspace().session
    static let hero365 = Apps.hero365().session
    static let vynqTalk = Apps.vynqTalk().session.session
    /// A rotating-refresh backend whose password change keeps the session (Everday's ends it).
    static let rotatingWithChange = SessionLifecycle(
        policy: SessionPolicy(refresh: everday.policy.refresh, restore: .refresh, revokesOnLogout: true, supportsPasswordChange: true))

    static let policies: [(String, SessionLifecycle)] = [
        ("Anonymous Wall", anonymousWall), ("Everday", everday), ("Subspace", subspace), ("Hero365", hero365), ("VynqTalk", vynqTalk),
    ]

    static let t0 = Samples.t0
    static let timersCancelled: [AuthEffect] = [
        .cancelTimer(.proactiveRefresh), .cancelTimer(.refreshRetry), .cancelTimer(.sessionExpiry),
    ]

    /// The credentials a backend's session holds in the samples: with a refresh token wherever the
    /// policy may refresh (Subspace's deployed grant among them), without one elsewhere.
    static func credentials(_ machine: SessionLifecycle) -> Credentials {
        machine.policy.refresh == .none ? Samples.expiringCredentials : Samples.rotatingCredentials
    }

    static func sent(_ call: IntentID, _ id: UInt64, with token: AccessToken = Samples.access1, replayed: Bool = false) -> PendingCall {
        PendingCall(id: call, stage: .sent(Samples.r(id), with: token), replayed: replayed)
    }

    static func waiting(_ call: IntentID, replayed: Bool = false) -> PendingCall {
        PendingCall(id: call, stage: .waitingForToken, replayed: replayed)
    }

    /// One sample per phase case: call1 is in flight as r2 while active; r1 restores; r3 refreshes;
    /// r4 sets or changes the password.
    static func phases(_ machine: SessionLifecycle) -> [(String, Phase)] {
        let c = credentials(machine)
        return [
            ("signedOut", .signedOut),
            ("restoring", .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser))),
            ("active.idle", .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2)]))),
            (
                "active.refreshing",
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1, replayed: true)], refresh: .refreshing(Samples.r(3), attempt: 0)))
            ),
            (
                "active.backingOff",
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))
                )
            ),
            ("active.offline", .active(SessionLifecycle.Active(credentials: c, refresh: .offline))),
            (
                "passwordSetupRequired",
                .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: Samples.passwordUnsetCredentials, pending: Samples.r(4)))
            ),
            ("passwordChangeRequired", .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c))),
        ]
    }

    /// What logging out from each sample phase asks for, in order: clear the vault first, cancel
    /// what is in flight, stop timers, answer waiting callers, tell the UI, finish the logout —
    /// then, on a backend that revokes, end the server session in the background: the refresh in
    /// flight (restoring by refresh, active.refreshing) is kept and awaited for its successor;
    /// otherwise the refresh token is revoked with the (still usable) access token.
    static func logoutEffects(_ machine: SessionLifecycle, from name: String, revokeID: UInt64) -> [AuthEffect] {
        // The password-setup sample holds credentials without a refresh token: nothing to revoke.
        let c = name == "passwordSetupRequired" ? Samples.passwordUnsetCredentials : credentials(machine)
        let revokes = machine.policy.revokesOnLogout && name != "signedOut" && c.refreshToken != nil
        // The restoring sample asks for the current user: only a refresh is awaited.
        let awaitsRefresh = revokes && name == "active.refreshing"
        let revoke: [AuthEffect] =
            revokes && !awaitsRefresh
            ? [.send(Samples.r(revokeID), .revoke(c.refreshToken!, Bearer(token: c.accessToken, userID: c.user.id)))] : []
        let (cancelled, finished): ([AuthEffect], [AuthEffect]) =
            switch name {
            case "restoring": (awaitsRefresh ? [] : [.cancel(Samples.r(1))], [])
            case "active.idle": ([.cancel(Samples.r(2))], [.finish(Samples.call1, .sessionEnded)])
            case "active.refreshing": (awaitsRefresh ? [] : [.cancel(Samples.r(3))], [.finish(Samples.call1, .sessionEnded)])
            case "active.backingOff": ([], [.finish(Samples.call1, .sessionEnded)])
            case "passwordSetupRequired": ([.cancel(Samples.r(4))], [.finish(Samples.pending, .sessionEnded)])
            default: ([], [])
            }
        if name == "signedOut" { return [.clearCredentials, .emit(.signedOut(.userRequested)), .finish(Samples.intent, .signedOut)] }
        return [.clearCredentials] + cancelled + timersCancelled + finished + [.emit(.signedOut(.userRequested))] + revoke
            + [.finish(Samples.intent, .signedOut)]
    }

    /// The session after credentials were renewed at `at(100)` with `tokens` (granted for `Samples.lifetime`).
    static func renewed(_ tokens: TokenRefresh, keeping refresh: RefreshToken = Samples.refresh1) -> Credentials {
        Credentials(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? refresh, expiresAt: Samples.at(100) + Samples.lifetime,
            lifetime: Samples.lifetime, user: Samples.user)
    }

    static let phaseCases = phases(everday).map(\.0)

    /// A phase's case, with an active session's refresh (`active.refreshing`): the table covers
    /// every pair of those with every event.
    static func caseName(_ phase: Phase) -> String {
        if case .active(let active) = phase { return "active." + Coverage.caseName(active.refresh) }
        return Coverage.caseName(phase)
    }

    /// The declared cases the table covers: the phase's, with `active` split by its refresh's.
    static let declaredPhaseCases = SessionLifecycle.Phase.declaredCases.flatMap { name in
        name == "active" ? SessionLifecycle.Refresh.declaredCases.map { "active." + $0 } : [name]
    }
    static let intentCases = ["call", "logout", "setPassword", "changePassword", "credentialsRejected", "deleteAccount"]
}
