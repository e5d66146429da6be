/// What the session does with the server's answers: to the restore, to the refresh, to a
/// password step, to a protected call. An answer to a request that is no longer current
/// changes nothing.
extension SessionLifecycle {
    func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        if let signOut = requests.serverSignOut(awaiting: id) {
            // An ended session's, whatever the phase now. While signed out, an intent waiting for
            // a request is an entry flow's: a sign-in may be under way.
            let besideSession: Bool
            if case .signedOut = phase { besideSession = !requests.waiters.isEmpty } else { besideSession = true }
            return serverSignOutAnswered(signOut, reply, at: now, besideSession: besideSession, &requests)
        }
        switch phase {
        case .restoring(let restoring) where restoring.request == id:
            return restored(restoring, reply, at: now, &phase, &requests)
        case .passwordSetupRequired(let step) where step.pending == id:
            switch reply.acceptedOrFailure {
            case .success:
                var updated = step.credentials
                updated.user.passwordSet = true
                if case .user(let user) = reply {
                    updated.user = user
                    updated.user.passwordSet = true
                }
                let (next, effects) = enter(updated, at: now, [.persist(updated)])
                phase = next
                return effects + requests.finish(waitingFor: id, .passwordSet)
            case .failure(let failure):
                phase = .passwordSetupRequired(PasswordStep(credentials: step.credentials))
                return passwordStepFailed(failure, answering: id, at: now, &phase, &requests)
            }
        case .passwordChangeRequired(let step) where step.pending == id:
            switch reply.acceptedOrFailure {
            case .success where policy.passwordChangeEndsSessions:
                phase = .passwordChangeRequired(PasswordStep(credentials: step.credentials))
                return passwordChangedEndingSession(answering: id, &phase, &requests)
            case .success:
                var updated = step.credentials
                updated.user.passwordChangeRequired = false
                let (next, effects) = enter(updated, at: now, [.persist(updated)])
                phase = next
                return effects + requests.finish(waitingFor: id, .passwordChanged)
            case .failure(let failure):
                phase = .passwordChangeRequired(PasswordStep(credentials: step.credentials))
                return passwordStepFailed(failure, answering: id, at: now, &phase, &requests)
            }
        case .active(let active):
            return answered(active, reply, to: id, at: now, &phase, &requests)
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    /// An answer in an active session: the refresh's, the password change's, or a call's.
    private func answered(
        _ active: Active, _ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        if case .refreshing(let current, let attempt) = active.refresh, current == id {
            return refreshed(active, reply, attempt: attempt, at: now, &phase, &requests)
        }
        if let deletion = active.accountDeletion, deletion == id {
            var active = active
            active.accountDeletion = nil
            phase = .active(active)
            switch reply.acceptedOrFailure {
            case .success:
                // The account and its sessions are gone on the server: end this one cleanly.
                return requests.finish(waitingFor: id, .done) + end(&phase, reason: .accountDeleted, &requests)
            case .failure(let failure): return passwordStepFailed(failure, answering: id, at: now, &phase, &requests)
            }
        }
        if let change = active.passwordChange, change == id {
            var active = active
            active.passwordChange = nil
            phase = .active(active)
            switch reply.acceptedOrFailure {
            case .success where policy.passwordChangeEndsSessions:
                return passwordChangedEndingSession(answering: id, &phase, &requests)
            case .success: return requests.finish(waitingFor: id, .passwordChanged)
            case .failure(let failure): return passwordStepFailed(failure, answering: id, at: now, &phase, &requests)
            }
        }
        guard let index = active.calls.firstIndex(where: { $0.request == id }) else {
            return []  // An answer to a request that is no longer current changes nothing.
        }
        return callAnswered(active, index, reply, at: now, &phase, &requests)
    }

    /// The server accepted a password change and ended every session of the user with it: the
    /// change is done, and the session ends cleanly (vault cleared, calls answered), so the
    /// refresh token the server revoked is never sent again.
    private func passwordChangedEndingSession(
        answering request: RequestID, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let changed = requests.finish(waitingFor: request, .passwordChanged)
        return changed + end(&phase, reason: .passwordChanged, &requests)
    }

    /// A password step (or an account deletion) refused: its intent fails. A wrong current
    /// password says nothing about the session. A 401 means the server refused the token: without
    /// refresh the session ends; with refresh an active session renews it, so the user's next try
    /// carries a fresh bearer, and a password step, which allows nothing else, ends.
    private func passwordStepFailed(
        _ failure: AuthFailure, answering request: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let failed = requests.finish(waitingFor: request, .failed(failure))
        switch failure {
        case .unauthorized:
            guard case .active(let active) = phase, case .rotating = policy.refresh.applied(to: active.credentials) else {
                return failed + end(&phase, reason: .tokenRejected, &requests)
            }
            switch active.refresh {
            case .refreshing, .backingOff: return failed  // A refresh is already on its way.
            case .idle, .offline: return failed + startRefresh(active, attempt: 0, at: now, &phase, &requests)
            }
        case .badRequest, .incorrectPassword, .pendingApproval, .forbidden, .notFound, .conflict, .rateLimited, .server,
            .network, .timeout, .malformed:
            return failed
        }
    }

    // MARK: Restore

    private func restored(
        _ restoring: Restoring, _ reply: Reply, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let credentials = restoring.credentials
        switch reply {
        case .refreshed(let tokens):
            let renewed = renew(credentials, with: tokens, at: now)
            let (next, effects) = enter(renewed, at: now, [.persist(renewed), .emit(.signedIn(renewed.user)), .emit(.tokenRefreshed)])
            phase = next
            return effects + release(restoring.waiting, at: now, &phase, &requests)
        case .user(let user):
            var confirmed = credentials
            confirmed.user = user
            // What the server answers for `/me` does not lift a password change it demanded at sign-in.
            confirmed.user.passwordChangeRequired = user.passwordChangeRequired || credentials.user.passwordChangeRequired
            let (next, effects) = enter(confirmed, at: now, [.persist(confirmed), .emit(.signedIn(confirmed.user))])
            phase = next
            return effects + release(restoring.waiting, at: now, &phase, &requests)
        case .failed(.unauthorized) where restoring.endpoint == .currentUser:
            // The server refused the access token, which may be its own hiccup or a clock ahead of
            // ours: the refresh token decides, once, before the session ends.
            guard case .rotating = policy.refresh.applied(to: credentials), let token = credentials.refreshToken else {
                return end(&phase, reason: .sessionExpired, &requests)
            }
            let id = requests.issue()
            phase = .restoring(Restoring(credentials: credentials, request: id, asking: .refresh, waiting: restoring.waiting))
            return [.send(id, .refresh(token))]
        case .failed(.notFound) where restoring.endpoint == .currentUser:
            return end(&phase, reason: .sessionExpired, &requests)  // The account is gone (Subspace's `User not found`).
        case .failed(let failure) where !failure.isTransient:
            return end(&phase, reason: .sessionExpired, &requests)
        case .failed(let failure):
            if case .rateLimited(let retryAfter?) = failure {
                requests.serverAsksToWait(for: restoring.endpoint, until: now + retryAfter)
            }
            return keep(restoring, unconfirmed: failure, at: now, &phase, &requests)
        case .granted, .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
            .realtimeClosed:
            return keep(restoring, unconfirmed: .malformed, at: now, &phase, &requests)
        }
    }

    /// Keeps a stored session the server could not confirm (no network, 5xx, 429, an unreadable
    /// answer): offline, so a later call or the next launch tries again — unless it owes a password
    /// step, which still comes first. Calls that waited fail with the reason.
    private func keep(
        _ restoring: Restoring, unconfirmed failure: AuthFailure, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let credentials = restoring.credentials
        let stepDue = credentials.user.passwordChangeRequired || (policy.supportsPasswordSetup && credentials.user.passwordSet == false)
        if stepDue {
            let (next, effects) = enter(credentials, at: now, [.emit(.signedIn(credentials.user)), .fail(failure)])
            phase = next
            return effects + release(restoring.waiting, at: now, &phase, &requests)
        }
        phase = .active(Active(credentials: credentials, refresh: .offline))
        return [.emit(.signedIn(credentials.user)), .fail(failure), .emit(.offline)]
            + restoring.waiting.map { .finish($0, .failed(failure)) }
    }

    /// Starts the calls that waited for a restore as calls made now (a usable token, or a refresh
    /// first: time may have passed while the app was suspended), or refuses them when the restored
    /// session must first set or change its password.
    private func release(_ waiting: [IntentID], at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        guard !waiting.isEmpty else { return [] }
        switch phase {
        case .active:
            var effects: [AuthEffect] = []
            for call in waiting { effects += startCall(call, at: now, &phase, &requests) }
            return effects
        case .passwordSetupRequired:
            return waiting.map { .finish($0, .rejected(.passwordSetupRequired)) }
        case .passwordChangeRequired:
            return waiting.map { .finish($0, .rejected(.passwordChangeRequired)) }
        case .signedOut, .restoring:
            return waiting.map { .finish($0, .sessionEnded) }  // `enter` lands in neither.
        }
    }

    // MARK: Refresh

    /// The credentials after a refresh: a new access token and expiry, the rotated refresh token
    /// or, when the answer carried none, the one already held; and the user the answer describes,
    /// when it describes the same user (its role and fields replace the old ones). A password
    /// change demanded before is not lifted by it, as by `/me` at restore.
    func renew(_ credentials: Credentials, with tokens: TokenRefresh, at now: Instant) -> Credentials {
        let expiresAt = tokens.expiry.deadline(receivedAt: now)
        var user = credentials.user
        if let described = tokens.user, described.id == user.id {
            user = described
            user.passwordChangeRequired = described.passwordChangeRequired || credentials.user.passwordChangeRequired
            user.passwordSet = described.passwordSet ?? credentials.user.passwordSet
        }
        return Credentials(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? credentials.refreshToken, expiresAt: expiresAt,
            lifetime: expiresAt.map { $0 - now }, user: user)
    }

    private func refreshed(
        _ active: Active, _ reply: Reply, attempt: Int, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        switch reply {
        case .refreshed(let tokens):
            var renewed = active
            renewed.credentials = renew(active.credentials, with: tokens, at: now)
            renewed.refresh = .idle
            // Persist first: the new pair is stored before the new access token is used.
            var effects: [AuthEffect] = [.persist(renewed.credentials), .emit(.tokenRefreshed), .cancelTimer(.refreshRetry)]
            for index in renewed.calls.indices where renewed.calls[index].stage == .waitingForToken {
                let id = requests.issue()
                renewed.calls[index].stage = .sent(id, with: renewed.credentials.accessToken)
                effects.append(.send(id, .protected(renewed.calls[index].id, renewed.bearer)))
            }
            effects += deadlines(for: renewed.credentials, at: now)
            phase = .active(renewed)
            return effects
        case .failed(let failure) where !failure.isTransient:
            return end(&phase, reason: .sessionExpired, &requests)
        case .failed(let failure):
            return refreshFailedTransiently(active, failure, attempt: attempt, at: now, &phase, &requests)
        case .granted, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
            .realtimeClosed:
            return refreshFailedTransiently(active, .malformed, attempt: attempt, at: now, &phase, &requests)
        }
    }

    private func refreshFailedTransiently(
        _ active: Active, _ failure: AuthFailure, attempt: Int, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        var active = active
        // A 429's time holds for every refresh, the background sign-out's and the next one offline too.
        if case .rateLimited(let retryAfter?) = failure { requests.serverAsksToWait(for: .refresh, until: now + retryAfter) }
        guard case .rotating(_, let retryLimit, let backoff) = policy.refresh.applied(to: active.credentials), attempt + 1 < retryLimit else {
            let waiting = active.calls.filter { $0.stage == .waitingForToken }
            active.calls.removeAll { $0.stage == .waitingForToken }
            active.refresh = .offline
            phase = .active(active)
            return waiting.map { .finish($0.id, .failed(failure)) } + [.emit(.offline)]
        }
        var delay = backoff * (1 << Int64(min(attempt, 16)))
        if case .rateLimited(let retryAfter?) = failure, retryAfter > delay { delay = retryAfter }
        let retryAt = now + delay
        active.refresh = .backingOff(retryAt: retryAt, attempt: attempt + 1)
        phase = .active(active)
        return [.schedule(.refreshRetry, at: retryAt), .emit(.refreshRetryScheduled(at: retryAt))]
    }

    // MARK: Protected calls

    private func callAnswered(
        _ active: Active, _ index: Int, _ reply: Reply, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        var active = active
        let call = active.calls[index]
        guard case .sent(let id, let token) = call.stage else { return [] }
        let refused: Bool =
            switch reply {
            case .failed(.unauthorized): true
            case .failed(.forbidden), .failed(.pendingApproval): policy.forbiddenEndsSession
            case .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
                .realtimeOpened, .realtimeClosed, .failed:
                false
            }
        guard refused, !call.replayed else {
            active.calls.remove(at: index)
            phase = .active(active)
            return [.finish(call.id, .answered(id))]
        }
        guard case .rotating = policy.refresh.applied(to: active.credentials) else {
            // No refresh: the token is dead (VynqTalk's automatic logout).
            return end(&phase, reason: .tokenRejected, &requests)
        }
        active.calls[index].replayed = true
        if token != active.credentials.accessToken, tokenUsable(active.credentials, at: now) {
            // Sent before a refresh finished: replay at once with the new token, no second refresh.
            let replay = requests.issue()
            active.calls[index].stage = .sent(replay, with: active.credentials.accessToken)
            phase = .active(active)
            return [.send(replay, .protected(call.id, active.bearer))]
        }
        active.calls[index].stage = .waitingForToken
        switch active.refresh {
        case .refreshing, .backingOff:
            phase = .active(active)  // Join the refresh already under way.
            return []
        case .idle, .offline:
            return startRefresh(active, attempt: 0, at: now, &phase, &requests)
        }
    }
}
