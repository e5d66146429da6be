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
    /// A rotating-refresh backend that documents a change-password endpoint (none of the five
    /// does with refresh: Everday demands a change but offers no endpoint for it).
    static let rotatingWithChange = SessionLifecycle(
        policy: SessionPolicy(refresh: everday.policy.refresh, restore: .refresh, revokesOnLogout: true, supportsPasswordChange: true))

    static let policies: [(String, SessionLifecycle)] = [
        ("Anonymous Wall", anonymousWall), ("Everday", everday), ("Subspace", subspace), ("Hero365", hero365), ("VynqTalk", vynqTalk),
    ]

    static let t0 = Samples.t0
    static let timersCancelled: [AuthEffect] = [
        .cancelTimer(.proactiveRefresh), .cancelTimer(.refreshRetry), .cancelTimer(.sessionExpiry),
    ]

    /// The credentials a backend's session holds in the samples.
    static func credentials(_ machine: SessionLifecycle) -> Credentials {
        machine.policy.refresh == .none ? Samples.expiringCredentials : Samples.rotatingCredentials
    }

    static func sent(_ call: CallID, _ id: UInt64, with token: AccessToken = Samples.access1, replayed: Bool = false) -> PendingCall {
        PendingCall(id: call, stage: .sent(Samples.r(id), with: token), replayed: replayed)
    }

    static func waiting(_ call: CallID, replayed: Bool = false) -> PendingCall {
        PendingCall(id: call, stage: .waitingForToken, replayed: replayed)
    }

    /// One sample per phase case: call1 is in flight as r2 while active; r1 restores; r3 refreshes;
    /// r4 sets or changes the password.
    static func phases(_ machine: SessionLifecycle) -> [(String, Phase)] {
        let c = credentials(machine)
        return [
            ("signedOut", .signedOut),
            ("restoring", .restoring(Session(credentials: c), Samples.r(1))),
            ("active", .active(Session(credentials: c, calls: [sent(Samples.call1, 2)]))),
            ("refreshing", .refreshing(Session(credentials: c, calls: [waiting(Samples.call1, replayed: true)]), Samples.r(3), attempt: 0)),
            ("refreshBackoff", .refreshBackoff(Session(credentials: c, calls: [waiting(Samples.call1)]), retryAt: Samples.at(2), attempt: 1)),
            ("offline", .offline(Session(credentials: c))),
            ("passwordSetupRequired", .passwordSetupRequired(Samples.passwordUnsetCredentials, pending: Samples.r(4))),
            ("passwordChangeRequired", .passwordChangeRequired(c, pending: nil)),
        ]
    }

    /// What logging out from each sample phase asks for, in order: clear the vault first, cancel
    /// what is in flight, stop timers, answer waiting callers, revoke (Everday), tell the UI.
    static func logoutEffects(_ machine: SessionLifecycle, from name: String, revokeID: UInt64) -> [AuthEffect] {
        // The password-setup sample holds credentials without a refresh token: nothing to revoke.
        let c = name == "passwordSetupRequired" ? Samples.passwordUnsetCredentials : credentials(machine)
        let revoke: [AuthEffect] =
            machine.policy.revokesOnLogout && name != "signedOut" && c.refreshToken != nil
            ? [.send(Samples.r(revokeID), .revoke(c.refreshToken!, Bearer(token: c.accessToken, userID: c.user.id)))] : []
        let (cancelled, finished): ([AuthEffect], [AuthEffect]) =
            switch name {
            case "restoring": ([.cancel(Samples.r(1))], [])
            case "active": ([.cancel(Samples.r(2))], [.finishCall(Samples.call1, .sessionEnded)])
            case "refreshing": ([.cancel(Samples.r(3))], [.finishCall(Samples.call1, .sessionEnded)])
            case "refreshBackoff": ([], [.finishCall(Samples.call1, .sessionEnded)])
            case "passwordSetupRequired": ([.cancel(Samples.r(4))], [])
            default: ([], [])
            }
        if name == "signedOut" { return [.clearCredentials, .emit(.signedOut(.userRequested))] }
        return [.clearCredentials] + cancelled + timersCancelled + finished + revoke + [.emit(.signedOut(.userRequested))]
    }

    /// The session after credentials were renewed at `at(100)` with `tokens`.
    static func renewed(_ tokens: TokenRefresh, keeping refresh: RefreshToken = Samples.refresh1) -> Credentials {
        Credentials(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? refresh, expiresAt: Samples.at(100) + Samples.lifetime,
            user: Samples.user)
    }

    static let phaseCases = phases(everday).map(\.0)
    static let intentCases = ["call", "logout", "setPassword", "changePassword", "credentialsRejected"]
}
