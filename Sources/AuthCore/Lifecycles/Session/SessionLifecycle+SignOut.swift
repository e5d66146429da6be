/// Logout: local and immediate first, then the server session ended in the background (see
/// ``ServerSignOut``).
extension SessionLifecycle {
    /// Logout is local and immediate: the vault is cleared, the state signed out and the intent
    /// finished, whatever the network does. Then, where the backend revokes, the server session is
    /// ended in the background: the refresh in flight (if any) is awaited so its successor can be
    /// revoked; otherwise the refresh token is revoked with the access token, or, when that can no
    /// longer be attached, after a refresh that is never stored.
    func logout(_ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signedOut:
            // Idempotent, and safe if the vault held something unread.
            return [.clearCredentials, .emit(.signedOut(.userRequested)), .finish(id, .signedOut)]
        case .restoring, .active, .passwordSetupRequired, .passwordChangeRequired:
            let credentials = phase.credentials
            let refreshInFlight = self.refreshInFlight(phase)
            var effects = end(&phase, reason: .userRequested, &requests)
            if policy.revokesOnLogout, let credentials, let refreshToken = credentials.refreshToken {
                if let refreshInFlight {
                    // Its answer carries the successor: awaited, not cancelled.
                    effects.removeAll { $0 == .cancel(refreshInFlight) }
                    requests.track(ServerSignOut(refreshToken: refreshToken, bearer: credentials.bearer, stage: .refreshing(refreshInFlight)))
                } else {
                    // The revoke, with the access token while it may be attached (RFC 6750: never an
                    // expired one); otherwise the refresh that renews the pair to revoke with.
                    effects += send(
                        refreshToken, credentials.bearer, revoking: tokenUsable(credentials, at: now), attempts: 1, refreshed: false, &requests)
                }
            }
            return effects + [.finish(id, .signedOut)]
        }
    }

    /// The refresh in flight in `phase` whose answer would carry a successor refresh token.
    private func refreshInFlight(_ phase: Phase) -> RequestID? {
        switch phase {
        case .active(let active):
            if case .refreshing(let id, _) = active.refresh { return id }
            return nil
        case .restoring(let restoring):
            // Restoring by refresh: at launch (Everday), or after the launch check's 401 (Hero365, Subspace).
            return restoring.endpoint == .refresh ? restoring.request : nil
        case .signedOut, .passwordSetupRequired, .passwordChangeRequired:
            return nil
        }
    }

    /// Sends a background sign-out's request — the revoke of `refreshToken` with `bearer`, or the
    /// refresh before it — under a new id, and tracks it.
    private func send(
        _ refreshToken: RefreshToken, _ bearer: Bearer, revoking: Bool, attempts: Int, refreshed: Bool, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let id = requests.issue()
        let stage: ServerSignOut.Stage = revoking ? .revoking(id) : .refreshing(id)
        requests.track(ServerSignOut(refreshToken: refreshToken, bearer: bearer, stage: stage, attempts: attempts, refreshed: refreshed))
        return [.send(id, revoking ? .revoke(refreshToken, bearer) : .refresh(refreshToken))]
    }

    /// The server's answer to a background sign-out's request.
    func serverSignOutAnswered(_ signOut: ServerSignOut, _ reply: Reply, at now: Instant, _ requests: inout FlowContext) -> [AuthEffect] {
        requests.forgetServerSignOut(awaiting: signOut.stage.request)
        switch signOut.stage {
        case .refreshing:
            switch reply {
            case .refreshed(let tokens):
                // Never persisted, never attached to a call: only revoked, whatever its expiry says
                // (one refresh per sign-out).
                let bearer = Bearer(token: tokens.accessToken, userID: signOut.bearer.userID)
                return send(tokens.refreshToken ?? signOut.refreshToken, bearer, revoking: true, attempts: 1, refreshed: true, &requests)
            case .failed(let failure) where !failure.isTransient:
                return [.emit(.serverSessionEnded)]  // The server refused the refresh token: it is dead.
            case .failed(let failure):
                return retry(signOut, after: failure, &requests)
            case .granted, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
                .realtimeOpened,
                .realtimeClosed:
                return retry(signOut, after: .malformed, &requests)
            }
        case .revoking:
            switch reply.acceptedOrFailure {
            case .success:
                return [.emit(.serverSessionEnded)]
            case .failure(.unauthorized) where !signOut.refreshed:
                // The server no longer takes the access token: renew the pair, then revoke.
                return send(signOut.refreshToken, signOut.bearer, revoking: false, attempts: 1, refreshed: false, &requests)
            case .failure(let failure) where failure.isTransient:
                return retry(signOut, after: failure, &requests)
            case .failure(let failure):
                return [.emit(.serverSessionNotConfirmed(failure))]
            }
        }
    }

    /// The same request again after a transient failure, a bounded number of times
    /// (``SessionPolicy/serverSignOutAttempts``); then the failure is reported. A 429 is reported
    /// at once: the server asked not to be called again so soon, and nobody waits for the answer.
    private func retry(_ signOut: ServerSignOut, after failure: AuthFailure, _ requests: inout FlowContext) -> [AuthEffect] {
        if case .rateLimited = failure { return [.emit(.serverSessionNotConfirmed(failure))] }
        guard signOut.attempts < policy.serverSignOutAttempts else { return [.emit(.serverSessionNotConfirmed(failure))] }
        let revoking: Bool
        switch signOut.stage {
        case .refreshing: revoking = false
        case .revoking: revoking = true
        }
        return send(signOut.refreshToken, signOut.bearer, revoking: revoking, attempts: signOut.attempts + 1, refreshed: signOut.refreshed, &requests)
    }
}
