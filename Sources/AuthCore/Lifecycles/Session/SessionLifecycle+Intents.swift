/// What the session does with the user's intents: protected calls, logout, the password steps,
/// a token another channel refused, and an intent whose caller stopped waiting.
extension SessionLifecycle {
    func handle(_ intent: Intent, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch intent {
        case .logout: logout(id, at: now, &phase, &requests)
        case .call: startCall(id, at: now, &phase, &requests)
        case .setPassword(let raw): setPassword(raw, id, at: now, &phase, &requests)
        case .changePassword(let old, let new): changePassword(old: old, new: new, id, at: now, &phase, &requests)
        case .credentialsRejected: credentialsRejected(id, at: now, &phase, &requests)
        case .deleteAccount: deleteAccount(id, at: now, &phase, &requests)
        }
    }

    /// Starts a protected call: sent with a usable token, kept for the refresh under way or
    /// started, or refused.
    func startCall(_ call: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        if phase.pendingCalls.contains(call) {
            // A second call under a pending call's id (never sent by the runner): ignored, so the
            // one answer still reaches the one caller waiting for it.
            return []
        }
        switch phase {
        case .signedOut:
            return [.reject(call, .notSignedIn)]
        case .restoring(var restoring):
            restoring.waiting.append(call)
            phase = .restoring(restoring)
            return []  // Answered once the server has said whether the stored session holds.
        case .passwordSetupRequired:
            return [.reject(call, .passwordSetupRequired)]
        case .passwordChangeRequired:
            return [.reject(call, .passwordChangeRequired)]
        case .active(var active):
            switch active.refresh {
            case .refreshing, .backingOff:
                active.calls.append(.waiting(call))  // Served by the refresh under way.
                phase = .active(active)
                return []
            case .idle, .offline:
                if tokenUsable(active.credentials, at: now) {
                    let id = requests.issue()
                    active.calls.append(PendingCall(id: call, stage: .sent(id, with: active.credentials.accessToken), replayed: false))
                    phase = .active(active)
                    return [.send(id, .protected(call, active.bearer))]
                }
                guard case .rotating = policy.refresh.applied(to: active.credentials) else {
                    return end(&phase, reason: .tokenExpired, &requests) + [.finish(call, .sessionEnded)]
                }
                active.calls.append(.waiting(call))
                return startRefresh(active, attempt: 0, at: now, &phase, &requests)
            }
        }
    }

    /// Sends the one refresh for `active`, or ends the session when it holds no refresh token.
    ///
    /// While the server's wait for the refresh endpoint runs (a 429 with `Retry-After`), the
    /// refresh waits for its time instead, as a retry does, and spends no attempt: sent, it would
    /// be held back and answered with the server's 429 again, an answer the server never gave,
    /// and the session would go offline after fewer real attempts than its policy allows.
    func startRefresh(_ active: Active, attempt: Int, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        var active = active
        guard let refreshToken = active.credentials.refreshToken else {
            active.refresh = .idle
            phase = .active(active)
            return end(&phase, reason: .sessionExpired, &requests)
        }
        if let until = requests.serverWait(for: .refresh, at: now) {
            active.refresh = .backingOff(retryAt: until, attempt: attempt)
            phase = .active(active)
            return [.cancelTimer(.proactiveRefresh), .schedule(.refreshRetry, at: until)]
        }
        let id = requests.issue()
        active.refresh = .refreshing(id, attempt: attempt)
        phase = .active(active)
        return [.cancelTimer(.proactiveRefresh), .send(id, .refresh(refreshToken))]
    }

    private func setPassword(
        _ raw: PasswordInput, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        switch phase {
        case .passwordSetupRequired(let step) where step.pending == nil:
            guard tokenUsable(step.credentials, at: now) else {
                return end(&phase, reason: .tokenExpired, &requests) + [.finish(id, .sessionEnded)]
            }
            var effects: [AuthEffect] = []
            guard let password = Password.validate(raw).valueOrReject(id, into: &effects) else { return effects }
            let request = requests.issue(for: id)
            phase = .passwordSetupRequired(PasswordStep(credentials: step.credentials, pending: request))
            return [.send(request, .setPassword(password, step.credentials.bearer))]
        case .passwordSetupRequired:
            return [.reject(id, .busy)]
        case .passwordChangeRequired(let step) where step.pending != nil:
            return [.reject(id, .busy)]
        case .passwordChangeRequired:
            return [.reject(id, .passwordChangeRequired)]
        case .signedOut, .restoring:
            return [.reject(id, .notSignedIn)]
        case .active:
            return [.reject(id, .notAvailableNow)]  // The password is already set.
        }
    }

    private func changePassword(
        old rawOld: PasswordInput, new rawNew: PasswordInput, _ id: IntentID, at now: Instant, _ phase: inout Phase,
        _ requests: inout FlowContext
    ) -> [AuthEffect] {
        guard policy.supportsPasswordChange else { return [.reject(id, .unsupported)] }
        var effects: [AuthEffect] = []
        func validated() -> (Password, Password)? {
            guard let old = Password.validate(rawOld).valueOrReject(id, into: &effects),
                let new = Password.validate(rawNew).valueOrReject(id, into: &effects)
            else { return nil }
            return (old, new)
        }
        switch phase {
        case .passwordChangeRequired(let step) where step.pending == nil:
            guard tokenUsable(step.credentials, at: now) else {
                return end(&phase, reason: .tokenExpired, &requests) + [.finish(id, .sessionEnded)]
            }
            guard let (old, new) = validated() else { return effects }
            let request = requests.issue(for: id)
            phase = .passwordChangeRequired(PasswordStep(credentials: step.credentials, pending: request))
            return [.send(request, .changePassword(old: old, new: new, step.credentials.bearer))]
        case .active(var active)
        where active.refresh == .idle && active.passwordChange == nil && tokenUsable(active.credentials, at: now):
            guard let (old, new) = validated() else { return effects }
            let request = requests.issue(for: id)
            active.passwordChange = request
            phase = .active(active)
            return [.send(request, .changePassword(old: old, new: new, active.bearer))]
        case .active(let active)
        where active.passwordChange == nil && !tokenUsable(active.credentials, at: now) && active.refresh.isIdleOrOffline:
            // The bearer is due: renew it first, so the server's 401 can only mean a wrong password.
            // Without refresh the session's expiry timer ends it.
            guard validated() != nil else { return effects }
            guard case .rotating = policy.refresh.applied(to: active.credentials) else { return [.reject(id, .busy)] }
            return [.reject(id, .busy)] + startRefresh(active, attempt: 0, at: now, &phase, &requests)
        case .passwordChangeRequired, .active:
            return [.reject(id, .busy)]  // A change in flight, or the token is being renewed.
        case .passwordSetupRequired:
            return [.reject(id, .passwordSetupRequired)]
        case .signedOut, .restoring:
            return [.reject(id, .notSignedIn)]
        }
    }

    private func deleteAccount(_ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        guard policy.supportsAccountDeletion else { return [.reject(id, .unsupported)] }
        switch phase {
        case .active(var active)
        where active.refresh == .idle && active.passwordChange == nil && active.accountDeletion == nil
            && tokenUsable(active.credentials, at: now):
            let request = requests.issue(for: id)
            active.accountDeletion = request
            phase = .active(active)
            return [.send(request, .deleteAccount(active.bearer))]
        case .active(let active)
        where active.accountDeletion == nil && active.passwordChange == nil && !tokenUsable(active.credentials, at: now)
            && active.refresh.isIdleOrOffline:
            // The bearer is due: renew it first (without refresh the session's expiry timer ends it).
            guard case .rotating = policy.refresh.applied(to: active.credentials) else { return [.reject(id, .busy)] }
            return [.reject(id, .busy)] + startRefresh(active, attempt: 0, at: now, &phase, &requests)
        case .active:
            return [.reject(id, .busy)]  // A deletion or a password change in flight, or the token is being renewed.
        case .passwordSetupRequired:
            return [.reject(id, .passwordSetupRequired)]
        case .passwordChangeRequired:
            return [.reject(id, .passwordChangeRequired)]
        case .signedOut, .restoring:
            return [.reject(id, .notSignedIn)]
        }
    }

    private func credentialsRejected(_ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        let effects = tokenRefused(at: now, &phase, &requests)
        return effects + [.finish(id, effects.isEmpty ? .unchanged : .done)]
    }

    /// Another channel (the realtime connection) was refused with the current token: refresh it,
    /// or, without refresh, end the session.
    func tokenRefused(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut, .restoring:
            return []  // Nothing to reject.
        case .active(let active):
            switch active.refresh {
            case .refreshing, .backingOff:
                return []  // A refresh is already on its way.
            case .idle, .offline:
                guard case .rotating = policy.refresh.applied(to: active.credentials) else {
                    return end(&phase, reason: .tokenRejected, &requests)
                }
                return startRefresh(active, attempt: 0, at: now, &phase, &requests)
            }
        case .passwordSetupRequired(let step), .passwordChangeRequired(let step):
            guard case .rotating = policy.refresh.applied(to: step.credentials) else { return end(&phase, reason: .tokenRejected, &requests) }
            return []  // The password step's own answer decides.
        }
    }

    /// The caller of `intent` stopped waiting: a call is dropped (its request cancelled, its late
    /// answer stale), a password step in flight is abandoned. Nothing for an intent already finished.
    func withdraw(_ intent: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            return []
        case .restoring(var restoring):
            guard let index = restoring.waiting.firstIndex(of: intent) else { return [] }
            restoring.waiting.remove(at: index)
            phase = .restoring(restoring)
            return [.finish(intent, .cancelled)]
        case .active(var active):
            if let index = active.calls.firstIndex(where: { $0.id == intent }) {
                var effects: [AuthEffect] = []
                if case .sent(let request, _) = active.calls[index].stage { effects.append(.cancel(request)) }
                active.calls.remove(at: index)
                phase = .active(active)
                return effects + [.finish(intent, .cancelled)]
            }
            if let deletion = active.accountDeletion, requests.intent(waitingFor: deletion) == intent {
                active.accountDeletion = nil  // Abandoned; if the server deleted the account, the next call finds out.
                phase = .active(active)
                return [.cancel(deletion)] + requests.finish(waitingFor: deletion, .cancelled)
            }
            guard let change = active.passwordChange, requests.intent(waitingFor: change) == intent else { return [] }
            active.passwordChange = nil
            phase = .active(active)
            return [.cancel(change)] + requests.finish(waitingFor: change, .cancelled)
        case .passwordSetupRequired(let step), .passwordChangeRequired(let step):
            guard let pending = step.pending, requests.intent(waitingFor: pending) == intent else { return [] }
            let idle = PasswordStep(credentials: step.credentials)
            if case .passwordSetupRequired = phase { phase = .passwordSetupRequired(idle) } else { phase = .passwordChangeRequired(idle) }
            return [.cancel(pending)] + requests.finish(waitingFor: pending, .cancelled)
        }
    }
}
