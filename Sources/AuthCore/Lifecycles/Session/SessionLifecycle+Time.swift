/// What the session does when time passes and when the app launches.
extension SessionLifecycle {
    func tick(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .active(let active):
            switch active.refresh {
            case .idle:
                guard let expiresAt = active.credentials.expiresAt else { return [] }
                switch policy.refresh.applied(to: active.credentials) {
                case .none:
                    return now >= expiresAt ? end(&phase, reason: .tokenExpired, &requests) : []
                case .rotating(let margin, _, _):
                    return now >= expiresAt - margin ? startRefresh(active, attempt: 0, at: now, &phase, &requests) : []
                }
            case .backingOff(let retryAt, let attempt) where now >= retryAt:
                return startRefresh(active, attempt: attempt, at: now, &phase, &requests)
            case .refreshing, .backingOff, .offline:
                return []  // Nothing is due; offline waits for the user.
            }
        case .passwordSetupRequired(let step) where step.pending == nil, .passwordChangeRequired(let step) where step.pending == nil:
            // These phases allow nothing else, refresh included: once the token is dead, sign in again.
            guard let expiresAt = step.credentials.expiresAt, now >= expiresAt else { return [] }
            return end(&phase, reason: .tokenExpired, &requests)
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired:
            return []  // Nothing is due; a password step in flight is the server's to judge.
        }
    }

    /// The launch: an owed revocation (``OwedRevocation``) gets its next round, and stored
    /// credentials are restored.
    func launch(
        _ stored: StoredCredentials, owed: [OwedRevocation], at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            var effects: [AuthEffect] = []
            if !owed.isEmpty, policy.revokesOnLogout {
                requests.owe(owed)
                // A revocation of every session of the user waits while one may be held.
                if !policy.revocationEndsEverySession || stored == .none { effects = resumeOwedRevocations(&requests) }
            }
            switch stored {
            case .none: return effects
            case .unreadable: return effects + [.emit(.vaultUnreadable)]  // Not "no session": nothing is deleted.
            case .stored(let credentials): return effects + restore(credentials, at: now, &phase, &requests)
            }
        case .restoring, .active, .passwordSetupRequired, .passwordChangeRequired:
            return []  // The app launches once; a session in memory already knows more than the vault.
        }
    }

    private func restore(_ credentials: Credentials, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        let expired = credentials.expiresAt.map { now >= $0 } ?? false
        let refreshToken = policy.refresh.applied(to: credentials) == .none ? nil : credentials.refreshToken
        switch (policy.restore, refreshToken) {
        case (.refresh, let token?),
            (.fetchCurrentUser, let token?) where expired:
            let id = requests.issue()
            phase = .restoring(Restoring(credentials: credentials, request: id, asking: .refresh))
            return [.send(id, .refresh(token))]
        case (.fetchCurrentUser, _) where !expired:
            let id = requests.issue()
            phase = .restoring(Restoring(credentials: credentials, request: id, asking: .currentUser))
            return [.send(id, .currentUser(credentials.bearer))]
        case (.trustStored, _) where !expired:
            let (next, effects) = enter(credentials, at: now, [.emit(.signedIn(credentials.user))])
            phase = next
            return effects
        case (.refresh, _), (.fetchCurrentUser, _), (.trustStored, _):
            return [.clearCredentials, .emit(.signedOut(.tokenExpired))]  // Nothing left that could work.
        }
    }
}
