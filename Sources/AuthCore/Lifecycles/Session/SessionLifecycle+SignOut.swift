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
            // No session is held any more: what earlier logouts still owe goes out too.
            if policy.revokesOnLogout, !requests.owedRevocations.isEmpty { effects += resumeOwedRevocations(&requests) }
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
        _ refreshToken: RefreshToken, _ bearer: Bearer?, revoking: Bool, attempts: Int, refreshed: Bool, round: Int = 1,
        _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let id = requests.issue()
        if revoking, let bearer {
            requests.track(
                ServerSignOut(
                    refreshToken: refreshToken, bearer: bearer, stage: .revoking(id), attempts: attempts, refreshed: refreshed, round: round))
            return [.send(id, .revoke(refreshToken, bearer))]
        }
        requests.track(
            ServerSignOut(refreshToken: refreshToken, bearer: bearer, stage: .refreshing(id), attempts: attempts, refreshed: refreshed, round: round))
        return [.send(id, .refresh(refreshToken))]
    }

    /// Starts a round for every owed revocation not already under way (``OwedRevocation``): at
    /// launch, at a logout, and when a sign-in shows the server can be reached again (see
    /// ``SessionPolicy/revocationEndsEverySession`` for the moments a backend that revokes every
    /// session of the user leaves out). The vault keeps no access token, so each round renews the
    /// pair first and revokes with the renewed one, which is never stored nor attached.
    func resumeOwedRevocations(_ requests: inout FlowContext) -> [AuthEffect] {
        idleOwedRevocations(requests).flatMap { owed in
            send(owed.refreshToken, nil, revoking: false, attempts: 1, refreshed: false, round: owed.rounds + 1, &requests)
        }
    }

    /// The owed revocations no round is under way for.
    func idleOwedRevocations(_ requests: FlowContext) -> [OwedRevocation] {
        requests.owedRevocations.filter { owed in !requests.serverSignOuts.contains { $0.refreshToken == owed.refreshToken } }
    }

    /// The server's answer to a background sign-out's request. `besideSession` says a session is
    /// held, or a request an intent waits for (an entry flow's: perhaps a sign-in) is in flight:
    /// where the backend's revocation ends every session of the user
    /// (``SessionPolicy/revocationEndsEverySession``), the round then sends nothing more, since
    /// its revocation could end that session too. It is given up and reported, as ``begin(_:at:_:)``
    /// gives up what is owed, and the next logout of the same user ends the old sessions with the
    /// new one.
    func serverSignOutAnswered(
        _ signOut: ServerSignOut, _ reply: Reply, at now: Instant, besideSession: Bool, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        requests.forgetServerSignOut(awaiting: signOut.stage.request)
        let holds = besideSession && policy.revocationEndsEverySession
        switch signOut.stage {
        case .refreshing:
            switch reply {
            case .refreshed(let tokens):
                if holds { return givenUp(signOut.refreshToken, .network, &requests) }  // Renewed, and then held back.
                // Never persisted as credentials, never attached to a call: only revoked, whatever
                // its expiry says (one refresh per sign-out). An owed revocation now owes the successor.
                let successor = tokens.refreshToken ?? signOut.refreshToken
                var effects: [AuthEffect] = []
                if successor != signOut.refreshToken, requests.owes(signOut.refreshToken) {
                    requests.replaceOwed(signOut.refreshToken, with: successor)
                    effects.append(.persistOwedRevocations(requests.owedRevocations))
                }
                let bearer = Bearer(token: tokens.accessToken, userID: signOut.bearer?.userID ?? "")
                return effects + send(successor, bearer, revoking: true, attempts: 1, refreshed: true, round: signOut.round, &requests)
            case .failed(let failure) where !failure.isTransient:
                return ended(signOut, &requests)  // The server refused the refresh token: it is dead.
            case .failed(let failure):
                return retry(signOut, after: failure, holds: holds, &requests)
            case .granted, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
                .realtimeOpened,
                .realtimeClosed:
                return retry(signOut, after: .malformed, holds: holds, &requests)
            }
        case .revoking:
            switch reply.acceptedOrFailure {
            case .success:
                return ended(signOut, &requests)
            case .failure(.unauthorized(let message)) where !signOut.refreshed:
                if holds { return givenUp(signOut.refreshToken, .unauthorized(message), &requests) }
                // The server no longer takes the access token: renew the pair, then revoke.
                return send(signOut.refreshToken, signOut.bearer, revoking: false, attempts: 1, refreshed: false, round: signOut.round, &requests)
            case .failure(let failure) where failure.isTransient:
                return retry(signOut, after: failure, holds: holds, &requests)
            case .failure(let failure):
                // Refused: trying again will not change the answer.
                return settle(signOut, [.emit(.serverSessionNotConfirmed(failure))], &requests)
            }
        }
    }

    /// The server showed the token dead: reported, and no longer owed.
    private func ended(_ signOut: ServerSignOut, _ requests: inout FlowContext) -> [AuthEffect] {
        settle(signOut, [.emit(.serverSessionEnded)], &requests)
    }

    /// The sign-out is over for good: its owed revocation, if any, is forgotten in the vault too.
    private func settle(_ signOut: ServerSignOut, _ report: [AuthEffect], _ requests: inout FlowContext) -> [AuthEffect] {
        settle(signOut.refreshToken, report, &requests)
    }

    /// ``settle(_:_:_:)`` for the sign-out of `refreshToken`.
    private func settle(_ refreshToken: RefreshToken, _ report: [AuthEffect], _ requests: inout FlowContext) -> [AuthEffect] {
        guard requests.settleOwed(refreshToken) else { return report }
        return [.persistOwedRevocations(requests.owedRevocations)] + report
    }

    /// A round held back beside a session (see ``serverSignOutAnswered(_:_:at:besideSession:_:)``):
    /// over for good, reported with the failure that would have had it try again (`network`
    /// after a renewal that succeeded, as ``begin(_:at:_:)`` reports what it gives up).
    private func givenUp(_ refreshToken: RefreshToken, _ failure: AuthFailure, _ requests: inout FlowContext) -> [AuthEffect] {
        settle(refreshToken, [.emit(.serverSessionNotConfirmed(failure))], &requests)
    }

    /// The same request again after a transient failure, a bounded number of times
    /// (``SessionPolicy/serverSignOutAttempts``); then the server counts as unreachable. A 429
    /// ends the round at once: the server asked not to be called again so soon, and nobody waits
    /// for the answer. A round that `holds` (beside a session, where the revocation ends every
    /// session of the user) sends nothing more: it is given up.
    private func retry(_ signOut: ServerSignOut, after failure: AuthFailure, holds: Bool, _ requests: inout FlowContext) -> [AuthEffect] {
        if case .rateLimited = failure { return unreachable(signOut, failure, &requests) }
        guard signOut.attempts < policy.serverSignOutAttempts else { return unreachable(signOut, failure, &requests) }
        if holds { return givenUp(signOut.refreshToken, failure, &requests) }
        let revoking: Bool
        switch signOut.stage {
        case .refreshing: revoking = false
        case .revoking: revoking = true
        }
        return send(
            signOut.refreshToken, signOut.bearer, revoking: revoking, attempts: signOut.attempts + 1, refreshed: signOut.refreshed,
            round: signOut.round, &requests)
    }

    /// The round failed without a word from the server that settles the token: the revocation is
    /// owed (kept in the vault, tried again at the next launch, logout or sign-in) while rounds are left,
    /// and reported once they are spent. The logout's own round tells the app it is owed.
    private func unreachable(_ signOut: ServerSignOut, _ failure: AuthFailure, _ requests: inout FlowContext) -> [AuthEffect] {
        guard signOut.round < policy.revocationRounds else {
            return settle(signOut, [.emit(.serverSessionNotConfirmed(failure))], &requests)
        }
        requests.owe(signOut.refreshToken, rounds: signOut.round)
        let persisted: [AuthEffect] = [.persistOwedRevocations(requests.owedRevocations)]
        return signOut.round == 1 ? persisted + [.emit(.serverSessionEndOwed(failure))] : persisted
    }
}
