import Testing
@testable import AuthCore

extension SessionTable {
    static func row(
        _ label: String, _ machine: SessionLifecycle, _ name: String, _ from: Phase, _ event: Event, _ to: Phase,
        _ effects: [AuthEffect], requests: UInt64 = 10
    ) -> Row<SessionLifecycle> {
        Row("\(label): \(name)", machine, from: from, on: event, to: to, effects: effects, requests: requests)
    }

    static func intent(_ intent: Intent, id: IntentID = Samples.intent, at now: Instant = Samples.t0) -> Event {
        .intent(intent, id: id, at: now)
    }

    static let changeIntent = Intent.changePassword(old: Samples.passwordInput, new: Samples.newPasswordInput)

    /// Rows every backend shares: logout from every phase, launch and stale answers while in a
    /// session, calls and password steps where they make no sense.
    static let sharedRows: [Row<SessionLifecycle>] = policies.flatMap { label, machine -> [Row<SessionLifecycle>] in
        let ph = phases(machine)
        var rows: [Row<SessionLifecycle>] = ph.map { name, phase in
            row(
                label, machine, "\(name) + logout → signedOut, vault cleared, requests cancelled, callers answered sessionEnded", phase,
                intent(.logout), .signedOut, logoutEffects(machine, from: name, revokeID: 10))
        }
        rows += ph.dropFirst().map { name, phase in
            row(
                label, machine, "\(name) + launched(stored) → unchanged, the session in memory knows more than the vault", phase,
                .launched(.stored(credentials(machine)), at: t0), phase, [])
        }
        rows += ph.map { name, phase in
            row(
                label, machine, "\(name) + reply(stale id) → unchanged, no effects", phase,
                .reply(Samples.staleID, .refreshed(Samples.rotated), at: t0), phase, [])
        }
        rows += [
            row(
                label, machine, "signedOut + call → finishCall rejected notSignedIn", ph[0].1, intent(.call, id: Samples.call2), ph[0].1,
                [.finish(Samples.call2, .rejected(.notSignedIn))]),
            row(
                label, machine, "restoring + call → the call waits for the restore's answer", ph[1].1, intent(.call, id: Samples.call2),
                .restoring(
                    SessionLifecycle.Restoring(
                        credentials: credentials(machine), request: Samples.r(1), asking: .currentUser, waiting: [Samples.call2])), []),
        ]
        rows += [
            row(
                label, machine, "passwordSetupRequired + call → finishCall rejected passwordSetupRequired", ph[6].1, intent(.call, id: Samples.call2),
                ph[6].1, [.finish(Samples.call2, .rejected(.passwordSetupRequired))]),
            row(
                label, machine, "passwordChangeRequired + call → finishCall rejected passwordChangeRequired", ph[7].1,
                intent(.call, id: Samples.call2), ph[7].1, [.finish(Samples.call2, .rejected(.passwordChangeRequired))]),
            row(
                label, machine, "passwordSetupRequired(pending) + setPassword → rejected busy", ph[6].1,
                intent(.setPassword(Samples.passwordInput)), ph[6].1, [.reject(Samples.intent, .busy)]),
            row(
                label, machine, "passwordChangeRequired + setPassword → rejected passwordChangeRequired", ph[7].1,
                intent(.setPassword(Samples.passwordInput)), ph[7].1, [.reject(Samples.intent, .passwordChangeRequired)]),
        ]
        rows += rejectedRows(
            machine, "\(label): nobody signed in", phases: [ph[0], ph[1]], intents: [("setPassword", .setPassword(Samples.passwordInput))],
            .notSignedIn)
        rows += rejectedRows(
            machine, "\(label): password already set", phases: [ph[2], ph[3], ph[4], ph[5]],
            intents: [("setPassword", .setPassword(Samples.passwordInput))], .notAvailableNow)
        if machine.policy.supportsPasswordChange {
            rows += rejectedRows(
                machine, "\(label): nobody signed in", phases: [ph[0], ph[1]], intents: [("changePassword", changeIntent)], .notSignedIn)
            rows += rejectedRows(
                machine, "\(label): the token is being renewed", phases: [ph[3], ph[4], ph[5]], intents: [("changePassword", changeIntent)], .busy)
            rows += rejectedRows(
                machine, "\(label): the password must be set first", phases: [ph[6]], intents: [("changePassword", changeIntent)],
                .passwordSetupRequired)
        } else {
            rows += rejectedRows(machine, "\(label): no password change here", phases: ph, intents: [("changePassword", changeIntent)], .unsupported)
        }
        let deletion: [(String, Intent)] = [("deleteAccount", .deleteAccount)]
        if machine.policy.supportsAccountDeletion {
            rows += rejectedRows(machine, "\(label): nobody signed in", phases: [ph[0], ph[1]], intents: deletion, .notSignedIn)
            rows += rejectedRows(machine, "\(label): the token is being renewed", phases: [ph[3], ph[4], ph[5]], intents: deletion, .busy)
            rows += rejectedRows(machine, "\(label): the password must be set first", phases: [ph[6]], intents: deletion, .passwordSetupRequired)
            rows += rejectedRows(machine, "\(label): the password must be changed first", phases: [ph[7]], intents: deletion, .passwordChangeRequired)
        } else {
            rows += rejectedRows(machine, "\(label): no account deletion here", phases: ph, intents: deletion, .unsupported)
        }
        rows += unchangedRows(
            machine, "\(label): nothing to reject or a refresh already on its way", phases: [ph[0], ph[1], ph[3], ph[4]],
            events: [("credentialsRejected", intent(.credentialsRejected))])
        rows += unchangedRows(
            machine, "\(label): nothing due", phases: [ph[0], ph[1], ph[3], ph[5]], events: [("tick", .tick(Samples.at(5000)))])
        rows += unchangedRows(machine, "\(label): retry not yet due", phases: [ph[4]], events: [("tick before retryAt", .tick(Samples.at(1)))])
        let setUser = Credentials(accessToken: Samples.access1, user: Samples.userPasswordSet)
        rows += [
            row(
                label, machine, "passwordSetupRequired(pending) + tick → unchanged, the step in flight is the server's to judge", ph[6].1,
                .tick(Samples.at(5000)), ph[6].1, []),
            row(
                label, machine, "passwordSetupRequired + reply(user, passwordSet) → active, persists the user, emits passwordSet", ph[6].1,
                .reply(Samples.r(4), .user(Samples.userPasswordSet), at: t0), .active(SessionLifecycle.Active(credentials: setUser)),
                [.persist(setUser), .finish(Samples.pending, .passwordSet)]),
        ]
        rows += [
            row(label, machine, "signedOut + launched(none) → unchanged", .signedOut, .launched(.none, at: t0), .signedOut, []),
            row(
                label, machine, "signedOut + launched(unreadable) → unchanged, emits vaultUnreadable, nothing cleared", .signedOut,
                .launched(.unreadable, at: t0), .signedOut, [.emit(.vaultUnreadable)]),
        ]
        return rows
    }

    // MARK: Rotating refresh (Everday, Hero365)

    static func rotatingRows(_ label: String, _ machine: SessionLifecycle) -> [Row<SessionLifecycle>] {
        let c = Samples.rotatingCredentials
        let ph = phases(machine)
        let active = ph[2].1
        let refresh = AuthEffect.send(Samples.r(10), .refresh(Samples.refresh1))
        let refreshingCall1 = Phase.active(
            SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1, replayed: true)], refresh: .refreshing(Samples.r(10), attempt: 0)))
        let afterRefresh = renewed(Samples.rotated)
        let bearer2 = Bearer(token: Samples.access2, userID: Samples.userID)
        func refreshingAttempt(_ attempt: Int) -> Phase {
            .active(SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .refreshing(Samples.r(3), attempt: attempt)))
        }
        func row(_ name: String, _ from: Phase, _ event: Event, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10) -> Row<SessionLifecycle>
        {
            SessionTable.row(label, machine, name, from, event, to, effects, requests: requests)
        }
        return [
            // active
            row(
                "active + call with a usable token → active, sends the call with the bearer", active, intent(.call, id: Samples.call2),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2), sent(Samples.call2, 10)])),
                [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
            row(
                "active + call inside the refresh margin → refreshing, the call waits, one refresh sent", active,
                intent(.call, id: Samples.call2, at: Samples.at(1740)),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [sent(Samples.call1, 2), waiting(Samples.call2)], refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.cancelTimer(.proactiveRefresh), refresh]),
            row(
                "active + reply(call answered 200) → active without the call, finishCall answered", active,
                .reply(Samples.r(2), .accepted(nil), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.finish(Samples.call1, .answered(Samples.r(2)))]),
            row(
                "active + reply(call answered 401) → refreshing, the call waits to be replayed once", active,
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0), refreshingCall1, [.cancelTimer(.proactiveRefresh), refresh]),
            row(
                "active + reply(call answered 403) → active, the 403 is the call's answer", active,
                .reply(Samples.r(2), .failed(.forbidden(nil)), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.finish(Samples.call1, .answered(Samples.r(2)))]),
            row(
                "active + reply(401 for a call sent with an old token) → replays at once with the new token, no second refresh",
                .active(SessionLifecycle.Active(credentials: afterRefresh, calls: [sent(Samples.call1, 2)])),
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: Samples.at(100)),
                .active(SessionLifecycle.Active(credentials: afterRefresh, calls: [sent(Samples.call1, 10, with: Samples.access2, replayed: true)])),
                [.send(Samples.r(10), .protected(Samples.call1, bearer2))]),
            row(
                "active + reply(401 for a call already replayed) → finishCall answered, never loops",
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2, replayed: true)])),
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.finish(Samples.call1, .answered(Samples.r(2)))]),
            row("active + tick before the refresh margin → unchanged", active, .tick(Samples.at(1739)), active, []),
            row(
                "active + tick inside the refresh margin → refreshing, proactive refresh sent", active, .tick(Samples.at(1740)),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2)], refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.cancelTimer(.proactiveRefresh), refresh]),
            row(
                "active + credentialsRejected → refreshing, refresh sent", active, intent(.credentialsRejected),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2)], refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.cancelTimer(.proactiveRefresh), refresh] + [.finish(Samples.intent, .done)]),
            row(
                "active + setPassword → rejected notAvailableNow", active, intent(.setPassword(Samples.passwordInput)), active,
                [.reject(Samples.intent, .notAvailableNow)]),

            row(
                "passwordChangeRequired + credentialsRejected → unchanged, the password step decides", ph[7].1, intent(.credentialsRejected),
                ph[7].1, [.finish(Samples.intent, .unchanged)]),
            row(
                "passwordSetupRequired + credentialsRejected → unchanged, the password step decides", ph[6].1, intent(.credentialsRejected),
                ph[6].1, [.finish(Samples.intent, .unchanged)]),

            // refreshing
            row(
                "refreshing + reply(rotated pair) → active, persists BEFORE replaying the waiting call with the new token",
                ph[3].1, .reply(Samples.r(3), .refreshed(Samples.rotated), at: Samples.at(100)),
                .active(SessionLifecycle.Active(credentials: afterRefresh, calls: [sent(Samples.call1, 10, with: Samples.access2, replayed: true)])),
                [
                    .persist(afterRefresh), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry),
                    .send(Samples.r(10), .protected(Samples.call1, bearer2)), .schedule(.proactiveRefresh, at: Samples.at(1840)),
                ]),
            row(
                "refreshing + reply(access token only) → active, keeps the old refresh token",
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(3), attempt: 0))),
                .reply(Samples.r(3), .refreshed(Samples.accessOnly), at: Samples.at(100)),
                .active(SessionLifecycle.Active(credentials: renewed(Samples.accessOnly))),
                [
                    .persist(renewed(Samples.accessOnly)), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry),
                    .schedule(.proactiveRefresh, at: Samples.at(1840)),
                ]),
            row(
                "refreshing + reply(401) → signedOut(sessionExpired), vault cleared, waiting caller gets sessionEnded", ph[3].1,
                .reply(Samples.r(3), .failed(.unauthorized(nil)), at: t0), .signedOut,
                [.clearCredentials, .cancel(Samples.r(3))] + timersCancelled + [
                    .finish(Samples.call1, .sessionEnded), .emit(.signedOut(.sessionExpired)),
                ]),
            row(
                "refreshing + reply(400 invalid grant) → signedOut(sessionExpired)",
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(3), attempt: 0))),
                .reply(Samples.r(3), .failed(.badRequest(nil)), at: t0), .signedOut,
                [.clearCredentials, .cancel(Samples.r(3))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "refreshing + reply(403 pending approval) → signedOut(sessionExpired)",
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(3), attempt: 0))),
                .reply(Samples.r(3), .failed(.pendingApproval(nil)), at: t0), .signedOut,
                [.clearCredentials, .cancel(Samples.r(3))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "refreshing + reply(network) on attempt 0 → refreshBackoff 2 s, same token kept", refreshingAttempt(0),
                .reply(Samples.r(3), .failed(.network), at: t0),
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))
                ),
                [.schedule(.refreshRetry, at: Samples.at(2)), .emit(.refreshRetryScheduled(at: Samples.at(2)))]),
            row(
                "refreshing + reply(timeout) on attempt 1 → refreshBackoff 4 s", refreshingAttempt(1),
                .reply(Samples.r(3), .failed(.timeout), at: t0),
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .backingOff(retryAt: Samples.at(4), attempt: 2))
                ),
                [.schedule(.refreshRetry, at: Samples.at(4)), .emit(.refreshRetryScheduled(at: Samples.at(4)))]),
            row(
                "refreshing + reply(429 Retry-After 30 s) → refreshBackoff until the server's time", refreshingAttempt(0),
                .reply(Samples.r(3), .failed(.rateLimited(retryAfter: .seconds(30))), at: t0),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1)], refresh: .backingOff(retryAt: Samples.at(30), attempt: 1))),
                [.schedule(.refreshRetry, at: Samples.at(30)), .emit(.refreshRetryScheduled(at: Samples.at(30)))]),
            row(
                "refreshing + reply(unreadable answer) → refreshBackoff, treated as malformed", refreshingAttempt(0),
                .reply(Samples.r(3), .user(Samples.user), at: t0),
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))
                ),
                [.schedule(.refreshRetry, at: Samples.at(2)), .emit(.refreshRetryScheduled(at: Samples.at(2)))]),
            row(
                "refreshing + reply(503) on the last attempt → offline, waiting callers get failed", refreshingAttempt(2),
                .reply(Samples.r(3), .failed(.server(status: 503, nil)), at: t0), .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.finish(Samples.call1, .failed(.server(status: 503, nil))), .emit(.offline)]),
            row(
                "refreshing + reply(401 for a second call) → the call joins the refresh in flight, no second refresh",
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1, replayed: true), sent(Samples.call2, 5)],
                        refresh: .refreshing(Samples.r(3), attempt: 0))),
                .reply(Samples.r(5), .failed(.unauthorized(nil)), at: t0),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1, replayed: true), waiting(Samples.call2, replayed: true)],
                        refresh: .refreshing(Samples.r(3), attempt: 0))),
                []),
            row(
                "refreshing + call → the call waits for the refresh in flight", ph[3].1, intent(.call, id: Samples.call2),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1, replayed: true), waiting(Samples.call2)],
                        refresh: .refreshing(Samples.r(3), attempt: 0))),
                []),

            // refreshBackoff
            row(
                "refreshBackoff + tick at retryAt → refreshing with the same refresh token", ph[4].1, .tick(Samples.at(2)),
                .active(SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .refreshing(Samples.r(10), attempt: 1))),
                [.cancelTimer(.proactiveRefresh), refresh]),
            row(
                "refreshBackoff + call → the call waits", ph[4].1, intent(.call, id: Samples.call2),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call1), waiting(Samples.call2)],
                        refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))),
                []),
            row(
                "refreshBackoff + reply(401 for a call sent before) → the call waits for the retry",
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call2, 5)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))
                ),
                .reply(Samples.r(5), .failed(.unauthorized(nil)), at: t0),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [waiting(Samples.call2, replayed: true)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))),
                []),

            // offline
            row(
                "offline + call with a usable token → offline, the call is sent", ph[5].1, intent(.call, id: Samples.call2),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call2, 10)], refresh: .offline)),
                [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
            row(
                "offline + call inside the refresh margin → refreshing again from attempt 0", ph[5].1,
                intent(.call, id: Samples.call2, at: Samples.at(1740)),
                .active(SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call2)], refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.cancelTimer(.proactiveRefresh), refresh]),
            row(
                "offline + reply(call answered) → offline, finishCall answered",
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call2, 5)], refresh: .offline)),
                .reply(Samples.r(5), .accepted(nil), at: t0), .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.finish(Samples.call2, .answered(Samples.r(5)))]),
            row(
                "offline + credentialsRejected → refreshing", ph[5].1, intent(.credentialsRejected),
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.cancelTimer(.proactiveRefresh), refresh] + [.finish(Samples.intent, .done)]),

            // restoring
            row(
                "restoring by the current user + reply(401) → restoring by refresh: the refresh token decides, once", ph[1].1,
                .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0),
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(10), asking: .refresh)),
                [.send(Samples.r(10), .refresh(Samples.refresh1))]),
            row(
                "restoring by refresh + logout → signedOut at once; where the backend revokes, the refresh is awaited for its successor",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .refresh)), intent(.logout), .signedOut,
                [.clearCredentials] + (machine.policy.revokesOnLogout ? [] : [.cancel(Samples.r(1))]) + timersCancelled
                    + [.emit(.signedOut(.userRequested)), .finish(Samples.intent, .signedOut)]),
            row(
                "restoring by refresh + reply(401) → signedOut(sessionExpired), vault cleared",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .refresh)),
                .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0),
                .signedOut, [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "restoring by the current user + reply(404: the account is gone) → signedOut(sessionExpired)", ph[1].1,
                .reply(Samples.r(1), .failed(.notFound("User not found")), at: t0),
                .signedOut, [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "restoring + reply(network) → offline, signed in with the stored credentials kept", ph[1].1,
                .reply(Samples.r(1), .failed(.network), at: t0), .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.emit(.signedIn(Samples.user)), .emit(.failed(.network)), .emit(.offline)]),
            row(
                "restoring + reply(accepted) → offline, fails malformed", ph[1].1, .reply(Samples.r(1), .accepted(nil), at: t0),
                .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.emit(.signedIn(Samples.user)), .emit(.failed(.malformed)), .emit(.offline)]),
            row(
                "restoring + reply(refreshed) → active, persists the rotated pair", ph[1].1,
                .reply(Samples.r(1), .refreshed(Samples.rotated), at: Samples.at(100)),
                .active(SessionLifecycle.Active(credentials: afterRefresh)),
                [
                    .persist(afterRefresh), .emit(.signedIn(Samples.user)), .emit(.tokenRefreshed),
                    .schedule(.proactiveRefresh, at: Samples.at(1840)),
                ]),
        ]
    }

    static let everdayRows: [Row<SessionLifecycle>] = {
        let label = "Everday"
        let m = everday
        let c = Samples.rotatingCredentials
        func row(_ name: String, _ from: Phase, _ event: Event, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10) -> Row<SessionLifecycle>
        {
            SessionTable.row(label, m, name, from, event, to, effects, requests: requests)
        }
        // A change that keeps the session (Anonymous Wall's kind of server) under rotating refresh.
        func withChange(_ name: String, _ from: Phase, _ event: Event, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10) -> Row<
            SessionLifecycle
        > {
            SessionTable.row("Rotating refresh with a change endpoint", rotatingWithChange, name, from, event, to, effects, requests: requests)
        }
        let change = APIRequest.changePassword(old: Samples.password, new: Samples.newPassword, Samples.bearer)
        return [
            row(
                "signedOut + launched(stored with refresh token) → restoring by refresh", .signedOut,
                .launched(.stored(c), at: Samples.t0),
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(10), asking: .refresh)),
                [.send(Samples.r(10), .refresh(Samples.refresh1))]),
            row(
                "signedOut + launched(stored without refresh token) → signedOut, vault cleared", .signedOut,
                .launched(.stored(Samples.plainCredentials), at: Samples.t0), .signedOut, [.clearCredentials, .emit(.signedOut(.tokenExpired))]),
            withChange(
                "active + changePassword(valid) → sends changePassword with the bearer", .active(SessionLifecycle.Active(credentials: c)),
                intent(changeIntent),
                .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(10))), [.send(Samples.r(10), change)]),
            withChange(
                "active + changePassword(7-character new password) → rejected invalid, nothing sent",
                .active(SessionLifecycle.Active(credentials: c)),
                intent(.changePassword(old: Samples.passwordInput, new: Samples.shortPasswordInput)),
                .active(SessionLifecycle.Active(credentials: c)),
                [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
            withChange(
                "active + reply(password change accepted) → active, emits passwordChanged",
                .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(6))), .reply(Samples.r(6), .accepted(nil), at: t0),
                .active(SessionLifecycle.Active(credentials: c)), [.finish(Samples.pending, .passwordChanged)]),
            withChange(
                "passwordChangeRequired + changePassword(valid) → pending, sends changePassword",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                intent(changeIntent), .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(10))),
                [.send(Samples.r(10), change)]),
            withChange(
                "passwordChangeRequired + changePassword while one is pending → rejected busy",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                intent(changeIntent), .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                [.reject(Samples.intent, .busy)]),
            withChange(
                "passwordChangeRequired + reply(changed) → active, persists the lifted demand, emits passwordChanged, schedules proactive refresh",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                .reply(Samples.r(4), .accepted(nil), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.persist(c), .schedule(.proactiveRefresh, at: Samples.at(1740)), .finish(Samples.pending, .passwordChanged)]),
            withChange(
                "passwordChangeRequired + reply(400) → passwordChangeRequired, fails badRequest",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                .reply(Samples.r(4), .failed(.badRequest("Wrong password")), at: t0),
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                [.finish(Samples.pending, .failed(.badRequest("Wrong password")))]),
            row(
                "passwordChangeRequired + credentialsRejected → unchanged, the password step's answer decides",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                intent(.credentialsRejected), .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                [.finish(Samples.intent, .unchanged)]),
            row(
                "passwordChangeRequired + tick before expiry → unchanged", .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                .tick(Samples.at(1799)), .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)), []),
            row(
                "passwordChangeRequired + tick at expiry → signedOut(tokenExpired)",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)), .tick(Samples.at(1800)),
                .signedOut, [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenExpired))]),
            row(
                "passwordSetupRequired + credentialsRejected → unchanged (rotating policy)",
                .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: c)),
                intent(.credentialsRejected), .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: c)),
                [.finish(Samples.intent, .unchanged)]),
            // Its deployed server's change-password: a change it accepts revokes every refresh token.
            row(
                "active + changePassword(valid) → sends changePassword with the bearer", .active(SessionLifecycle.Active(credentials: c)),
                intent(changeIntent), .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(10))),
                [.send(Samples.r(10), change)]),
            row(
                "passwordChangeRequired + changePassword(valid) → pending, sends changePassword with the bearer",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)), intent(changeIntent),
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(10))), [.send(Samples.r(10), change)]),
            row(
                "active + reply(change accepted) → signedOut(passwordChanged): the server revoked every refresh token, the vault is cleared",
                .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(6))), .reply(Samples.r(6), .accepted(nil), at: t0),
                .signedOut,
                [.finish(Samples.pending, .passwordChanged), .clearCredentials] + timersCancelled + [.emit(.signedOut(.passwordChanged))]),
            row(
                "passwordChangeRequired + reply(change accepted) → signedOut(passwordChanged), nothing of the old pair kept",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                .reply(Samples.r(4), .accepted(nil), at: t0), .signedOut,
                [.finish(Samples.pending, .passwordChanged), .clearCredentials] + timersCancelled + [.emit(.signedOut(.passwordChanged))]),
            row(
                "passwordChangeRequired + reply(wrong current password) → passwordChangeRequired kept, fails incorrectPassword",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                .reply(Samples.r(4), .failed(.incorrectPassword("Invalid credentials")), at: t0),
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                [.finish(Samples.pending, .failed(.incorrectPassword("Invalid credentials")))]),
            row(
                "active + reply(wrong current password) → active kept, fails incorrectPassword, no refresh",
                .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(6))),
                .reply(Samples.r(6), .failed(.incorrectPassword("Invalid credentials")), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.finish(Samples.pending, .failed(.incorrectPassword("Invalid credentials")))]),
            row(
                "active + reply(401 to the change: the bearer refused) → fails unauthorized, renews the token for the next try",
                .active(SessionLifecycle.Active(credentials: c, passwordChange: Samples.r(6))),
                .reply(Samples.r(6), .failed(.unauthorized("Invalid or expired token.")), at: t0),
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(10), attempt: 0))),
                [
                    .finish(Samples.pending, .failed(.unauthorized("Invalid or expired token."))), .cancelTimer(.proactiveRefresh),
                    .send(Samples.r(10), .refresh(Samples.refresh1)),
                ]),
            row(
                "passwordChangeRequired + reply(401: the bearer refused) → signedOut(tokenRejected): the step allows no refresh",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c, pending: Samples.r(4))),
                .reply(Samples.r(4), .failed(.unauthorized(nil)), at: t0), .signedOut,
                [.finish(Samples.pending, .failed(.unauthorized(nil))), .clearCredentials] + timersCancelled
                    + [.emit(.signedOut(.tokenRejected))]),
            row(
                "active + deleteAccount → sends deleteAccount with the bearer", .active(SessionLifecycle.Active(credentials: c)),
                intent(.deleteAccount), .active(SessionLifecycle.Active(credentials: c, accountDeletion: Samples.r(10))),
                [.send(Samples.r(10), .deleteAccount(Samples.bearer))]),
            row(
                "active + reply(account deleted) → signedOut(accountDeleted): the server removed the account and its sessions",
                .active(SessionLifecycle.Active(credentials: c, accountDeletion: Samples.r(6))), .reply(Samples.r(6), .accepted(nil), at: t0),
                .signedOut, [.finish(Samples.pending, .done), .clearCredentials] + timersCancelled + [.emit(.signedOut(.accountDeleted))]),
            row(
                "active + reply(409 to the deletion) → active kept, fails conflict",
                .active(SessionLifecycle.Active(credentials: c, accountDeletion: Samples.r(6))),
                .reply(Samples.r(6), .failed(.conflict("Parent accounts with children cannot be deleted")), at: t0),
                .active(SessionLifecycle.Active(credentials: c)),
                [.finish(Samples.pending, .failed(.conflict("Parent accounts with children cannot be deleted")))]),
            row(
                "active + changePassword with the bearer due → rejected busy, the token renewed first",
                .active(SessionLifecycle.Active(credentials: c)), intent(changeIntent, at: Samples.at(1750)),
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(10), attempt: 0))),
                [.reject(Samples.intent, .busy), .cancelTimer(.proactiveRefresh), .send(Samples.r(10), .refresh(Samples.refresh1))]),
        ]
    }()

    static let hero365Rows: [Row<SessionLifecycle>] = {
        let c = Samples.rotatingCredentials
        return [
            row(
                "Hero365", hero365, "signedOut + launched(stored, unexpired) → restoring by fetching the current user", .signedOut,
                .launched(.stored(c), at: t0), .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(10), asking: .currentUser)),
                [.send(Samples.r(10), .currentUser(Samples.bearer))]),
            row(
                "Hero365", hero365, "signedOut + launched(stored, expired) → restoring by refresh", .signedOut,
                .launched(.stored(c), at: Samples.at(1800)),
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(10), asking: .refresh)),
                [.send(Samples.r(10), .refresh(Samples.refresh1))]),
            row(
                "Hero365", hero365, "restoring + reply(user) → active, persists the confirmed user",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .user(Samples.userPasswordSet), at: t0),
                .active(
                    SessionLifecycle.Active(
                        credentials: Credentials(
                            accessToken: Samples.access1, refreshToken: Samples.refresh1, expiresAt: Samples.at(1800), lifetime: Samples.lifetime,
                            user: Samples.userPasswordSet))
                ),
                [
                    .persist(
                        Credentials(
                            accessToken: Samples.access1, refreshToken: Samples.refresh1, expiresAt: Samples.at(1800), lifetime: Samples.lifetime,
                            user: Samples.userPasswordSet)),
                    .emit(.signedIn(Samples.userPasswordSet)), .schedule(.proactiveRefresh, at: Samples.at(1740)),
                ]),
            row(
                "Hero365", hero365, "active + changePassword → rejected unsupported", .active(SessionLifecycle.Active(credentials: c)),
                intent(changeIntent),
                .active(SessionLifecycle.Active(credentials: c)), [.reject(Samples.intent, .unsupported)]),
            row(
                "Hero365", hero365, "passwordChangeRequired + tick at expiry → signedOut(tokenExpired)",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                .tick(Samples.at(1800)), .signedOut, [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenExpired))]),
        ]
    }()

    // MARK: No refresh (Anonymous Wall, Subspace, VynqTalk)

    static func noRefreshRows(_ label: String, _ machine: SessionLifecycle) -> [Row<SessionLifecycle>] {
        let c = Samples.expiringCredentials
        let active = Phase.active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2)]))
        func row(_ name: String, _ from: Phase, _ event: Event, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10) -> Row<SessionLifecycle>
        {
            SessionTable.row(label, machine, name, from, event, to, effects, requests: requests)
        }
        let ended: (SignOutReason) -> [AuthEffect] = { reason in
            [.clearCredentials, .cancel(Samples.r(2))] + timersCancelled + [.finish(Samples.call1, .sessionEnded), .emit(.signedOut(reason))]
        }
        let forbiddenEnds = machine.policy.forbiddenEndsSession
        return [
            row(
                "active + call with a usable token → sends the call", active, intent(.call, id: Samples.call2),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call1, 2), sent(Samples.call2, 10)])),
                [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
            row(
                "active + call after the token expired → signedOut(tokenExpired), every caller gets sessionEnded", active,
                intent(.call, id: Samples.call2, at: Samples.at(1800)), .signedOut, ended(.tokenExpired) + [.finish(Samples.call2, .sessionEnded)]),
            row(
                "active + reply(call answered 401) → signedOut(tokenRejected), no refresh to try", active,
                .reply(Samples.r(2), .failed(.unauthorized(nil)), at: t0), .signedOut, ended(.tokenRejected)),
            forbiddenEnds
                ? row(
                    "active + reply(call answered 403) → signedOut(tokenRejected) (automatic logout)", active,
                    .reply(Samples.r(2), .failed(.forbidden(nil)), at: t0), .signedOut, ended(.tokenRejected))
                : row(
                    "active + reply(call answered 403) → active, the 403 is only the call's answer", active,
                    .reply(Samples.r(2), .failed(.forbidden(nil)), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                    [.finish(Samples.call1, .answered(Samples.r(2)))]),
            row(
                "active + reply(call answered 200) → finishCall answered", active, .reply(Samples.r(2), .accepted(nil), at: t0),
                .active(SessionLifecycle.Active(credentials: c)), [.finish(Samples.call1, .answered(Samples.r(2)))]),
            row("active + tick before expiry → unchanged", active, .tick(Samples.at(1799)), active, []),
            row("active + tick at expiry → signedOut(tokenExpired)", active, .tick(Samples.at(1800)), .signedOut, ended(.tokenExpired)),
            row(
                "active + credentialsRejected → signedOut(tokenRejected)", active, intent(.credentialsRejected), .signedOut,
                ended(.tokenRejected) + [.finish(Samples.intent, .done)]),
            row(
                "offline + credentialsRejected → signedOut(tokenRejected)", .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                intent(.credentialsRejected), .signedOut,
                [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenRejected))] + [.finish(Samples.intent, .done)]),
            row(
                "passwordSetupRequired + credentialsRejected → signedOut(tokenRejected)",
                .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: c)),
                intent(.credentialsRejected), .signedOut,
                [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenRejected))] + [.finish(Samples.intent, .done)]),
            row(
                "offline + call with a usable token → offline, the call is sent", .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                intent(.call, id: Samples.call2),
                .active(SessionLifecycle.Active(credentials: c, calls: [sent(Samples.call2, 10)], refresh: .offline)),
                [.send(Samples.r(10), .protected(Samples.call2, Samples.bearer))]),
            row(
                "refreshing + call → the call waits",
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(3), attempt: 0))), intent(.call, id: Samples.call2),
                .active(SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call2)], refresh: .refreshing(Samples.r(3), attempt: 0))), []),
            row(
                "refreshBackoff + call → the call waits",
                .active(SessionLifecycle.Active(credentials: c, refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))),
                intent(.call, id: Samples.call2),
                .active(
                    SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call2)], refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))
                ), []),
            row(
                "passwordChangeRequired + credentialsRejected → signedOut(tokenRejected)",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)),
                intent(.credentialsRejected), .signedOut,
                [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenRejected))] + [.finish(Samples.intent, .done)]),
            row(
                "passwordChangeRequired + tick at expiry → signedOut(tokenExpired)",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: c)), .tick(Samples.at(1800)),
                .signedOut, [.clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenExpired))]),
            row(
                "restoring + reply(user) → active, persists, schedules sessionExpiry",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .user(Samples.user), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.persist(c), .emit(.signedIn(Samples.user)), .schedule(.sessionExpiry, at: Samples.at(1800))]),
            row(
                "refreshing + reply(network) → offline, no refresh policy to retry with",
                .active(SessionLifecycle.Active(credentials: c, calls: [waiting(Samples.call1)], refresh: .refreshing(Samples.r(3), attempt: 0))),
                .reply(Samples.r(3), .failed(.network), at: t0), .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.finish(Samples.call1, .failed(.network)), .emit(.offline)]),
        ]
    }

    static let anonymousWallRows: [Row<SessionLifecycle>] = {
        let m = anonymousWall
        let unset = Samples.passwordUnsetCredentials
        let set = Credentials(accessToken: Samples.access1, user: Samples.userPasswordSet)
        func row(_ name: String, _ from: Phase, _ event: Event, _ to: Phase, _ effects: [AuthEffect], requests: UInt64 = 10) -> Row<SessionLifecycle>
        {
            SessionTable.row("Anonymous Wall", m, name, from, event, to, effects, requests: requests)
        }
        let unsetPhase = Phase.passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: unset))
        let pending = Phase.passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: unset, pending: Samples.r(4)))
        return [
            row(
                "signedOut + launched(stored) → active at once (trust stored), emits signedIn", .signedOut,
                .launched(.stored(Samples.plainCredentials), at: t0), .active(SessionLifecycle.Active(credentials: Samples.plainCredentials)),
                [.emit(.signedIn(Samples.user))]),
            row(
                "signedOut + launched(stored, password unset) → passwordSetupRequired", .signedOut, .launched(.stored(unset), at: t0), unsetPhase,
                [.emit(.signedIn(Samples.userPasswordUnset)), .emit(.passwordSetupRequired)]),
            row(
                "passwordSetupRequired + setPassword(valid) → pending, sends setPassword with X-User-Id", unsetPhase,
                intent(.setPassword(Samples.passwordInput)),
                .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: unset, pending: Samples.r(10))),
                [.send(Samples.r(10), .setPassword(Samples.password, Bearer(token: Samples.access1, userID: Samples.userID)))]),
            row(
                "passwordSetupRequired + setPassword(7 characters) → rejected invalid, nothing sent", unsetPhase,
                intent(.setPassword(Samples.shortPasswordInput)), unsetPhase, [.reject(Samples.intent, .invalid(.passwordTooShort(minimum: 8)))]),
            row(
                "passwordSetupRequired + reply(user, passwordSet) → active, persists the user, emits passwordSet", pending,
                .reply(Samples.r(4), .user(Samples.userPasswordSet), at: t0), .active(SessionLifecycle.Active(credentials: set)),
                [.persist(set), .finish(Samples.pending, .passwordSet)]),
            row(
                "passwordSetupRequired + reply(accepted) → active with passwordSet true", pending, .reply(Samples.r(4), .accepted(nil), at: t0),
                .active(SessionLifecycle.Active(credentials: set)), [.persist(set), .finish(Samples.pending, .passwordSet)]),
            row(
                "passwordSetupRequired + reply(400) → passwordSetupRequired, fails badRequest", pending,
                .reply(Samples.r(4), .failed(.badRequest(nil)), at: t0), unsetPhase, [.finish(Samples.pending, .failed(.badRequest(nil)))]),
            row(
                "passwordSetupRequired + reply(401) → signedOut(tokenRejected), fails unauthorized", pending,
                .reply(Samples.r(4), .failed(.unauthorized(nil)), at: t0), .signedOut,
                [.finish(Samples.pending, .failed(.unauthorized(nil))), .clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenRejected))]),
            row("passwordSetupRequired + tick → unchanged (no known expiry)", unsetPhase, .tick(Samples.at(5000)), unsetPhase, []),
            row(
                "active + changePassword(valid) → sends changePassword with X-User-Id",
                .active(SessionLifecycle.Active(credentials: Samples.plainCredentials)),
                intent(changeIntent), .active(SessionLifecycle.Active(credentials: Samples.plainCredentials, passwordChange: Samples.r(10))),
                [.send(Samples.r(10), .changePassword(old: Samples.password, new: Samples.newPassword, Samples.bearer))]),
            row(
                "passwordChangeRequired + changePassword(valid) → pending, sends changePassword",
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: Samples.expiringCredentials)), intent(changeIntent),
                .passwordChangeRequired(SessionLifecycle.PasswordStep(credentials: Samples.expiringCredentials, pending: Samples.r(10))),
                [.send(Samples.r(10), .changePassword(old: Samples.password, new: Samples.newPassword, Samples.bearer))]),
            row(
                "active + reply(password change 401) → signedOut(tokenRejected)",
                .active(SessionLifecycle.Active(credentials: Samples.plainCredentials, passwordChange: Samples.r(6))),
                .reply(Samples.r(6), .failed(.unauthorized(nil)), at: t0), .signedOut,
                [.finish(Samples.pending, .failed(.unauthorized(nil))), .clearCredentials] + timersCancelled + [.emit(.signedOut(.tokenRejected))]),
        ]
    }()

    static let subspaceRows: [Row<SessionLifecycle>] = {
        let c = Samples.expiringCredentials
        let granted = Samples.rotatingCredentials
        return [
            row(
                "Subspace", subspace, "signedOut + launched(stored with a refresh token, expired) → restoring with a refresh", .signedOut,
                .launched(.stored(granted), at: Samples.at(1800)),
                .restoring(SessionLifecycle.Restoring(credentials: granted, request: Samples.r(10), asking: .refresh)),
                [.send(Samples.r(10), .refresh(Samples.refresh1))]),
            row(
                "Subspace", subspace, "restoring with a refresh token + reply(user) → active, schedules proactiveRefresh, not sessionExpiry",
                .restoring(SessionLifecycle.Restoring(credentials: granted, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .user(Samples.user), at: t0),
                .active(SessionLifecycle.Active(credentials: granted)),
                [.persist(granted), .emit(.signedIn(Samples.user)), .schedule(.proactiveRefresh, at: Samples.at(1740))]),
            row(
                "Subspace", subspace, "signedOut + launched(stored, unexpired) → restoring with /auth/me", .signedOut, .launched(.stored(c), at: t0),
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(10), asking: .currentUser)),
                [.send(Samples.r(10), .currentUser(Samples.bearer))]),
            row(
                "Subspace", subspace, "signedOut + launched(stored, expired) → signedOut, vault cleared", .signedOut,
                .launched(.stored(c), at: Samples.at(1800)), .signedOut, [.clearCredentials, .emit(.signedOut(.tokenExpired))]),
            row(
                "Subspace", subspace, "restoring + reply(user) → active, schedules sessionExpiry",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .user(Samples.user), at: t0), .active(SessionLifecycle.Active(credentials: c)),
                [.persist(c), .emit(.signedIn(Samples.user)), .schedule(.sessionExpiry, at: Samples.at(1800))]),
            row(
                "Subspace", subspace, "restoring + reply(401) → signedOut(sessionExpired)",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0), .signedOut,
                [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "Subspace", subspace, "restoring + reply(404 User not found: a deleted account) → signedOut(sessionExpired), not offline",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser)),
                .reply(Samples.r(1), .failed(.notFound("User not found")), at: t0), .signedOut,
                [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
            row(
                "Subspace", subspace, "restoring with a waiting call + reply(user) → active, the call is sent with the confirmed token",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser, waiting: [Samples.call2])),
                .reply(Samples.r(1), .user(Samples.user), at: t0),
                .active(
                    SessionLifecycle.Active(
                        credentials: c, calls: [PendingCall(id: Samples.call2, stage: .sent(Samples.r(10), with: Samples.access1), replayed: false)])),
                [
                    .persist(c), .emit(.signedIn(Samples.user)), .schedule(.sessionExpiry, at: Samples.at(1800)),
                    .send(Samples.r(10), .protected(Samples.call2, Samples.bearer)),
                ]),
            row(
                "Subspace", subspace, "restoring with a waiting call + reply(401) → signedOut, the call ends with the session",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser, waiting: [Samples.call2])),
                .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0),
                .signedOut,
                [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled
                    + [.finish(Samples.call2, .sessionEnded), .emit(.signedOut(.sessionExpired))]),
            row(
                "Subspace", subspace, "restoring with a waiting call + reply(network) → offline, the call fails with the reason",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser, waiting: [Samples.call2])),
                .reply(Samples.r(1), .failed(.network), at: t0),
                .active(SessionLifecycle.Active(credentials: c, refresh: .offline)),
                [.emit(.signedIn(Samples.user)), .emit(.failed(.network)), .emit(.offline), .finish(Samples.call2, .failed(.network))]),
        ]
    }()

    static let vynqTalkRows: [Row<SessionLifecycle>] = [
        row(
            "VynqTalk", vynqTalk, "signedOut + launched(stored) → restoring with GET /users/me, as a flapping socket is checked", .signedOut,
            .launched(.stored(Samples.expiringCredentials), at: t0),
            .restoring(SessionLifecycle.Restoring(credentials: Samples.expiringCredentials, request: Samples.r(10), asking: .currentUser)),
            [.send(Samples.r(10), .currentUser(Samples.bearer))]),
        row(
            "VynqTalk", vynqTalk, "restoring + reply(user) → active, schedules sessionExpiry",
            .restoring(SessionLifecycle.Restoring(credentials: Samples.expiringCredentials, request: Samples.r(1), asking: .currentUser)),
            .reply(Samples.r(1), .user(Samples.user), at: t0), .active(SessionLifecycle.Active(credentials: Samples.expiringCredentials)),
            [.persist(Samples.expiringCredentials), .emit(.signedIn(Samples.user)), .schedule(.sessionExpiry, at: Samples.at(1800))]),
        row(
            "VynqTalk", vynqTalk, "restoring + reply(401) → signedOut(sessionExpired): no refresh token to try",
            .restoring(SessionLifecycle.Restoring(credentials: Samples.expiringCredentials, request: Samples.r(1), asking: .currentUser)),
            .reply(Samples.r(1), .failed(.unauthorized(nil)), at: t0), .signedOut,
            [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
        row(
            "VynqTalk", vynqTalk, "restoring + reply(403: suspended) → signedOut(sessionExpired)",
            .restoring(SessionLifecycle.Restoring(credentials: Samples.expiringCredentials, request: Samples.r(1), asking: .currentUser)),
            .reply(Samples.r(1), .failed(.forbidden("Your account is suspended.")), at: t0), .signedOut,
            [.clearCredentials, .cancel(Samples.r(1))] + timersCancelled + [.emit(.signedOut(.sessionExpired))]),
        row(
            "VynqTalk", vynqTalk, "restoring + reply(network) → active offline: a flaky network keeps the session",
            .restoring(SessionLifecycle.Restoring(credentials: Samples.expiringCredentials, request: Samples.r(1), asking: .currentUser)),
            .reply(Samples.r(1), .failed(.network), at: t0),
            .active(SessionLifecycle.Active(credentials: Samples.expiringCredentials, refresh: .offline)),
            [.emit(.signedIn(Samples.user)), .emit(.failed(.network)), .emit(.offline)]),
        row(
            "VynqTalk", vynqTalk, "signedOut + launched(stored, expired) → signedOut, vault cleared", .signedOut,
            .launched(.stored(Samples.expiringCredentials), at: Samples.at(1800)), .signedOut, [.clearCredentials, .emit(.signedOut(.tokenExpired))]),
    ]

    /// A caller that stops waiting: a call sent is cancelled, a call waiting for a token dropped, a
    /// password step in flight abandoned; the intent is finished as cancelled. Nothing else waits.
    static let withdrawalRows: [Row<SessionLifecycle>] = policies.flatMap { label, machine -> [Row<SessionLifecycle>] in
        let ph = phases(machine)
        let c = credentials(machine)
        var rows = withdrawnRows(
            machine, "\(label): withdrawals", phases: ph,
            abandoned: [
                "passwordSetupRequired": (
                    .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: Samples.passwordUnsetCredentials)), Samples.r(4)
                )
            ],
            requests: 10)
        let call: Event = .withdrawn(Samples.call1, at: t0)
        rows += [
            row(
                label, machine, "active.idle + withdrawn(a call sent) → the call is dropped and its request cancelled", ph[2].1, call,
                .active(SessionLifecycle.Active(credentials: c)), [.cancel(Samples.r(2)), .finish(Samples.call1, .cancelled)]),
            row(
                label, machine, "active.refreshing + withdrawn(a call waiting for the token) → dropped; the refresh goes on", ph[3].1, call,
                .active(SessionLifecycle.Active(credentials: c, refresh: .refreshing(Samples.r(3), attempt: 0))), [.finish(Samples.call1, .cancelled)]
            ),
            row(
                label, machine, "active.backingOff + withdrawn(a call waiting for the token) → dropped", ph[4].1, call,
                .active(SessionLifecycle.Active(credentials: c, refresh: .backingOff(retryAt: Samples.at(2), attempt: 1))),
                [.finish(Samples.call1, .cancelled)]),
            row(
                label, machine, "restoring + withdrawn(a call waiting for the restore) → dropped; the restore goes on",
                .restoring(SessionLifecycle.Restoring(credentials: c, request: Samples.r(1), asking: .currentUser, waiting: [Samples.call1])), call,
                ph[1].1, [.finish(Samples.call1, .cancelled)]),
        ]
        return rows
    }

    static let rows: [Row<SessionLifecycle>] =
        sharedRows + withdrawalRows + rotatingRows("Everday", everday) + rotatingRows("Hero365", hero365) + everdayRows + hero365Rows
        // Subspace refreshes when granted a refresh token (its deployed server) and not otherwise
        // (its document): the rotating rows with the deployed credentials, the no-refresh rows with the documented ones.
        // (The one rotating row whose sample holds no refresh token, a password step, is the
        // documented grant's: its no-refresh row ends the session.)
        + rotatingRows("Subspace, deployed grant", subspace).filter {
            !$0.name.hasSuffix("passwordSetupRequired + credentialsRejected → unchanged, the password step decides")
        }
        + noRefreshRows("Anonymous Wall", anonymousWall) + noRefreshRows("Subspace, documented grant", subspace) + noRefreshRows("VynqTalk", vynqTalk)
        + anonymousWallRows + subspaceRows + vynqTalkRows
}

@Suite("SessionLifecycle transitions")
struct SessionLifecycleTransitionTests {
    @Test("every SessionLifecycle row gives the expected phase and effects, for all five backends", arguments: SessionTable.rows)
    func transition(_ row: Row<SessionLifecycle>) { row.verify() }
}
