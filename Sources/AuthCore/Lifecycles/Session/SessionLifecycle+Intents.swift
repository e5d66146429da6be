/// What the session does with the user's intents: protected calls, logout, the password steps,
/// and a token another channel refused.
extension SessionLifecycle {
    func handle(_ intent: Intent, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch intent {
        case .logout: logout(&phase, &requests)
        case .call(let call): startCall(call, at: now, &phase, &requests)
        case .setPassword(let raw): setPassword(raw, at: now, &phase, &requests)
        case .changePassword(let old, let new): changePassword(old: old, new: new, at: now, &phase, &requests)
        case .credentialsRejected: credentialsRejected(at: now, &phase, &requests)
        }
    }

    private func logout(_ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            return [.clearCredentials, .emit(.signedOut(.userRequested))]  // Idempotent, and safe if the vault held something unread.
        case .restoring, .active, .passwordSetupRequired, .passwordChangeRequired:
            let credentials = phase.credentials
            var effects = end(&phase, reason: .userRequested)
            if policy.revokesOnLogout, let credentials, let refreshToken = credentials.refreshToken {
                // Best effort, after the vault is cleared: its answer arrives signed-out and changes nothing.
                effects.insert(.send(requests.issue(), .revoke(refreshToken, credentials.bearer)), at: effects.count - 1)
            }
            return effects
        }
    }

    private func startCall(_ call: CallID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        if phase.pendingCalls.contains(call) {
            // A second call under a pending call's id: refused without finishing it, so the one
            // answer still reaches the one caller waiting for it.
            return [.reject(.busy)]
        }
        switch phase {
        case .signedOut:
            return [.finishCall(call, .rejected(.notSignedIn))]
        case .restoring(var restoring):
            restoring.waiting.append(call)
            phase = .restoring(restoring)
            return []  // Answered once the server has said whether the stored session holds.
        case .passwordSetupRequired:
            return [.finishCall(call, .rejected(.passwordSetupRequired))]
        case .passwordChangeRequired:
            return [.finishCall(call, .rejected(.passwordChangeRequired))]
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
                guard case .rotating = policy.refresh else {
                    return end(&phase, reason: .tokenExpired) + [.finishCall(call, .sessionEnded)]
                }
                active.calls.append(.waiting(call))
                return startRefresh(active, attempt: 0, &phase, &requests)
            }
        }
    }

    /// Sends the one refresh for `active`, or ends the session when it holds no refresh token.
    func startRefresh(_ active: Active, attempt: Int, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        var active = active
        guard let refreshToken = active.credentials.refreshToken else {
            active.refresh = .idle
            phase = .active(active)
            return end(&phase, reason: .sessionExpired)
        }
        let id = requests.issue()
        active.refresh = .refreshing(id, attempt: attempt)
        phase = .active(active)
        return [.cancelTimer(.proactiveRefresh), .send(id, .refresh(refreshToken))]
    }

    private func setPassword(_ raw: PasswordInput, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .passwordSetupRequired(let step) where step.pending == nil:
            guard tokenUsable(step.credentials, at: now) else { return end(&phase, reason: .tokenExpired) }
            var effects: [AuthEffect] = []
            guard let password = Password.validate(raw).valueOrReject(into: &effects) else { return effects }
            let id = requests.issue()
            phase = .passwordSetupRequired(PasswordStep(credentials: step.credentials, pending: id))
            return [.send(id, .setPassword(password, step.credentials.bearer))]
        case .passwordSetupRequired:
            return [.reject(.busy)]
        case .passwordChangeRequired(let step) where step.pending != nil:
            return [.reject(.busy)]
        case .passwordChangeRequired:
            return [.reject(.passwordChangeRequired)]
        case .signedOut, .restoring:
            return [.reject(.notSignedIn)]
        case .active:
            return [.reject(.notAvailableNow)]  // The password is already set.
        }
    }

    private func changePassword(
        old rawOld: PasswordInput, new rawNew: PasswordInput, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        guard policy.supportsPasswordChange else { return [.reject(.unsupported)] }
        var effects: [AuthEffect] = []
        func validated() -> (Password, Password)? {
            guard let old = Password.validate(rawOld).valueOrReject(into: &effects),
                let new = Password.validate(rawNew).valueOrReject(into: &effects)
            else { return nil }
            return (old, new)
        }
        switch phase {
        case .passwordChangeRequired(let step) where step.pending == nil:
            guard tokenUsable(step.credentials, at: now) else { return end(&phase, reason: .tokenExpired) }
            guard let (old, new) = validated() else { return effects }
            let id = requests.issue()
            phase = .passwordChangeRequired(PasswordStep(credentials: step.credentials, pending: id))
            return [.send(id, .changePassword(old: old, new: new, step.credentials.bearer))]
        case .active(var active)
        where active.refresh == .idle && active.passwordChange == nil && tokenUsable(active.credentials, at: now):
            guard let (old, new) = validated() else { return effects }
            let id = requests.issue()
            active.passwordChange = id
            phase = .active(active)
            return [.send(id, .changePassword(old: old, new: new, active.bearer))]
        case .passwordChangeRequired, .active:
            return [.reject(.busy)]  // A change in flight, or the token is being (or must first be) renewed.
        case .passwordSetupRequired:
            return [.reject(.passwordSetupRequired)]
        case .signedOut, .restoring:
            return [.reject(.notSignedIn)]
        }
    }

    private func credentialsRejected(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut, .restoring:
            return []  // Nothing to reject.
        case .active(let active):
            switch active.refresh {
            case .refreshing, .backingOff:
                return []  // A refresh is already on its way.
            case .idle, .offline:
                guard case .rotating = policy.refresh else { return end(&phase, reason: .tokenRejected) }
                return startRefresh(active, attempt: 0, &phase, &requests)
            }
        case .passwordSetupRequired, .passwordChangeRequired:
            guard case .rotating = policy.refresh else { return end(&phase, reason: .tokenRejected) }
            return []  // The password step's own answer decides.
        }
    }
}
