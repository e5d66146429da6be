import AuthCore

/// AuthCore's invariant catalogue: every promise the explorer and the fuzzer check, each with the
/// source it comes from (an RFC, OWASP, NIST, a backend's API document — summarised in
/// `Fixtures/<backend>/README.md` — or AuthCore's own design). Each is generic over the lifecycle,
/// reads only the world and the transition, and holds trivially where it does not apply (an entry
/// flow has no session), so every model can check all of them.
public enum Catalogue {
    /// Every invariant; the code invariants when `codes` is given, ``noOrphanedServerSession()``
    /// and its kin when the backend revokes at logout (`serverSignOut`), and
    /// ``noRevocationBesideSession()`` when that revocation ends every session of the user
    /// (`revocationEndsEverySession`).
    public static func all<M: Lifecycle>(codes: CodeRules? = nil, serverSignOut: Bool = false, revocationEndsEverySession: Bool = false)
        -> [Invariant<M>]
    {
        var list: [Invariant<M>] = [
            credentialsOnlyWhenSignedIn(), sessionMatchesVault(), logoutAlwaysSignsOut(), atMostOneRefreshInFlight(),
            noRefreshTokenReuse(), refreshWithoutTokenKeepsOld(), persistedBeforeUse(), onlyDefinitiveRefreshErrorsEndSession(),
            staleAnswersChangeNothing(), nothingAfterSignOutWritesCredentials(), pendingApprovalNeverSignsIn(),
            passwordRequirementAllowsNothingElse(), passwordStepNeverSkipped(), codeOnlyAfterCodeSent(), setPasswordOnlyWhileUnset(),
            signInRequestsNeedTheUser(), atMostOneVerificationInFlight(), resetSignInReplacesSession(), onlyValidInputSent(),
            noSecretInDescriptions(), noSecretInEventsOrEffects(), atMostOneReplayPerCall(), expiredTokenNeverAttached(),
            everyIntentFinishedOnce(), noRequestBeforeTheServersTime(), wrongCurrentPasswordKeepsSession(), noRevokedRefreshTokenUsed(),
            refusedLaunchCheckTriesRefresh(), deletedAccountLeavesNoSession(), foreignCallbackNeverAccepted(), codeExchangedAtMostOnce(),
            foreignNonceNeverSignsIn(), devicePollingPaced(), verifierOnlyInTheTokenRequest(), rateLimitedIntentToldTheServersTime(),
            refreshRetriesFollowTheServer(),
        ]
        if let codes { list += codeInvariants(codes) }
        if serverSignOut { list += [noOrphanedServerSession(), owedRevocationRetried(), owedRoundsCounted(), owedTokenOnlyRevoked()] }
        if serverSignOut, revocationEndsEverySession { list.append(noRevocationBesideSession()) }
        return list
    }

    /// The names of every invariant in the catalogue, those a lifecycle's configuration adds
    /// (``idTokenForThisClient(issuer:clientID:)``) included.
    public static var names: [String] {
        let list: [Invariant<SessionLifecycle>] =
            all(codes: CodeRules(cooldown: .zero, lifetime: .zero, maxAttempts: 1), serverSignOut: true, revocationEndsEverySession: true)
            + [idTokenForThisClient(issuer: "", clientID: "")]
        return list.map(\.name)
    }

    // MARK: Rate limits

    /// No request goes to an endpoint the server rate-limited before the time it gave: a 429 with
    /// `Retry-After` holds for the user's next attempt and the client's own retries alike.
    /// (RFC 6585 §4; RFC 9110 §10.2.3 Retry-After; Everday's and Hero365's 429 guidance.)
    @inlinable public static func noRequestBeforeTheServersTime<M>() -> Invariant<M> {
        Invariant(
            "no request to a rate-limited endpoint before the server's time", source: "RFC 6585 §4; RFC 9110 §10.2.3",
            .step { t in
                let windows = t.after.world.history.rateLimits
                guard !windows.isEmpty else { return nil }
                for request in t.sent {
                    guard let endpoint = request.rateLimitedEndpoint,
                        let window = windows.first(where: { $0.endpoint == endpoint && $0.until > t.after.world.now })
                    else {
                        continue
                    }
                    return "\(endpoint) sent at \(t.after.world.now), before the server's time \(window.until)"
                }
                return nil
            })
    }

    /// An intent the server rate-limited is told so, with the server's time, and only an intent
    /// the server answered 429 is told it failed with a 429:
    /// - in the step of the server's 429 with `Retry-After`, an intent finished as failed is
    ///   finished as `failed(rateLimited)` with that very `Retry-After`;
    /// - `failed(rateLimited)` in any other step is a request held back before it left (the
    ///   server's wait was still running) reported as if the server had refused it: refused
    ///   before any request, it is `rejected(rateLimited(until:))`;
    /// - `rejected(rateLimited(until:))` names a time ahead, and while the server's times run, one
    ///   of them.
    ///
    /// Without it, `Lifecycle.reduce`'s hold on early requests hides a flow that forgets the
    /// server's wait: nothing reaches the server early, and only the completion tells. (RFC 6585
    /// §4; RFC 9110 §10.2.3 Retry-After.)
    @inlinable public static func rateLimitedIntentToldTheServersTime<M>() -> Invariant<M> {
        Invariant(
            "a rate-limited intent is finished as rate-limited, with the server's time", source: "RFC 6585 §4; RFC 9110 §10.2.3",
            .step { t in
                // Whether this step is the server's own 429, and the Retry-After it gave (read only
                // where a completion needs them: the check runs at every transition).
                func servers429() -> (answered: Bool, retryAfter: Interval?) {
                    guard case .reply(_, .failed(.rateLimited(let retryAfter)), _) = t.move.event, t.answered != nil else { return (false, nil) }
                    return (true, retryAfter)
                }
                for effect in t.effects {
                    guard case .finish(let intent, let completion) = effect else { continue }
                    switch completion {
                    case .failed(.rateLimited(let retryAfter)):
                        let server = servers429()
                        guard server.answered else {
                            return "\(intent) finished as \(completion) with no 429 from the server in this step: a request held back "
                                + "before it left is rejected(rateLimited(until:))"
                        }
                        if retryAfter != server.retryAfter {
                            let said = server.retryAfter.map(\.description) ?? "no time"
                            return "\(intent) finished as \(completion) where the server's 429 said \(said)"
                        }
                    case .failed(let failure):
                        if servers429().retryAfter != nil {
                            return "\(intent) finished as failed(\(failure)) in answer to the server's 429 with Retry-After"
                        }
                    case .rejected(.rateLimited(let until)):
                        let now = t.after.world.now
                        let windows = t.after.world.history.rateLimits.filter { $0.until > now }
                        if until <= now { return "\(intent) rejected as rate-limited until \(until), a time already past" }
                        if !windows.isEmpty, !windows.contains(where: { $0.until == until }) {
                            return "\(intent) rejected as rate-limited until \(until), not a time the server gave "
                                + "(\(windows.map(\.until.description).joined(separator: ", ")))"
                        }
                    default:
                        continue
                    }
                }
                return nil
            })
    }

    /// The session's refresh retries follow the server's answers: a retry is scheduled no earlier
    /// than the time a 429 gave for the refresh endpoint, and a failed refresh is reported (a retry
    /// scheduled, `refreshRetryScheduled`, or the session declared `offline`) only in answer to the
    /// server. Reported in any other step (a timer, a call), it counts an answer the client made up
    /// — a refresh held back inside the server's wait — against the retry budget, and the session
    /// goes offline after fewer real attempts than configured. (RFC 6585 §4; RFC 9110 §10.2.3
    /// Retry-After.)
    @inlinable public static func refreshRetriesFollowTheServer<M>() -> Invariant<M> {
        Invariant(
            "refresh retries wait for the server's time and count only its answers", source: "RFC 6585 §4; RFC 9110 §10.2.3",
            .step { t in
                for effect in t.effects {
                    let retryAt: Instant
                    switch effect {
                    case .emit(.offline):
                        if t.answered == nil {
                            return "offline declared at \(t.after.world.now) in a step no server answer decided (\(t.move.choice))"
                        }
                        continue
                    case .emit(.refreshRetryScheduled(let at)):
                        if t.answered == nil {
                            return "a failed refresh reported at \(t.after.world.now) in a step no server answer decided (\(t.move.choice))"
                        }
                        retryAt = at
                    case .schedule(.refreshRetry, let at): retryAt = at
                    default: continue
                    }
                    if let window = t.after.world.history.rateLimits.first(where: { $0.endpoint == "refresh" && $0.until > retryAt }) {
                        return "a refresh retry scheduled for \(retryAt), before the server's time \(window.until)"
                    }
                }
                return nil
            })
    }

    // MARK: Intents

    /// Every intent is finished exactly once: no caller waits forever, none is answered twice.
    /// An intent is finished in the step that sends it, or later by the answer, time, withdrawal or
    /// sign-out that decides it; a world with an intent still open and nothing in flight, no timer
    /// pending, can never finish it. (Swift's `CheckedContinuation`, SE-0300: resumed exactly once;
    /// the runner's `perform(_:)` returns what the reducer finishes.)
    public static func everyIntentFinishedOnce<M>() -> Invariant<M> {
        Invariant(
            "every intent is finished exactly once", source: "SE-0300 (a continuation resumes exactly once)",
            .step { t in
                var open = t.before.world.history.openIntents
                switch t.move.choice {
                case .relaunch: open = []  // The process ended: nobody waits any more.
                case .intent, .reply, .timer, .withdraw, .wait: break
                }
                if case .intent(_, let id, _) = t.move.event { open.append(id) }
                for effect in t.effects {
                    guard case .finish(let intent, let completion) = effect else { continue }
                    guard let index = open.firstIndex(of: intent) else { return "\(intent) finished again, or never sent (\(completion))" }
                    open.remove(at: index)
                }
                let after = t.after.world
                if !after.history.openIntents.isEmpty, after.network.isEmpty, after.timers.isEmpty {
                    return "\(after.history.openIntents.map(\.description).joined(separator: ", ")) left unanswered with nothing in flight"
                }
                return nil
            })
    }

    // MARK: Credentials and sign-out

    /// No server session outlives a logout, once the server can be reached again: a refresh token
    /// of a logged-out session with nothing in flight to end it must be owed in the vault
    /// (`OwedRevocation`), which outlives the process; otherwise it has been consumed by a
    /// rotation the server confirmed, revoked by a request the server accepted, refused by the
    /// server — or the app was told, finally, that the server session could not be confirmed ended
    /// (the server refused the revocation, or an owed revocation's last round failed: the last of
    /// the client's policy's rounds (``ReplyCatalogue/revocationRounds``, each counted where it
    /// ended: ``owedRoundsCounted()``), a round the kit saw end, in a step that answered the
    /// token's request or while the server's 429 window on the sign-out endpoints held it back;
    /// or, where the server's revocation ends every session of the user, the debt was given up as
    /// a new session began (a session restored from the vault is no new one), or a round under way
    /// ended in a step that left a session held or an intent waiting; never a debt the client
    /// merely dropped, or gave up early). The other way round, the vault owes nothing the server
    /// already ended.
    /// Checked on backends that revoke at logout (``LifecycleModel/endsServerSessions``). (OWASP
    /// ASVS V3.3.1: logout invalidates the session on the server; RFC 7009 §2: token revocation;
    /// RFC 9700 §4.14: a refresh token left alive is the account for whoever holds a copy.)
    public static func noOrphanedServerSession<M>() -> Invariant<M> {
        Invariant(
            "no server session outlives a logout", source: "OWASP ASVS V3.3.1; RFC 7009; RFC 9700 §4.14",
            .state { s in
                let live = s.world.history.liveAfterLogout
                let owed = s.world.owedRevocations
                if owed.contains(where: { !live.contains($0.refreshToken) }) {
                    return "the vault still owes the revocation of a refresh token the server has ended"
                }
                guard !live.isEmpty else { return nil }
                let unattended = live.count { token in
                    !owed.contains { $0.refreshToken == token } && !s.world.network.contains { $0.request.refreshToken == token }
                }
                return unattended == 0
                    ? nil
                    : "\(unattended) refresh token(s) of a logged-out session still live, nothing in flight to end them, none owed in the vault, nothing reported"
            })
    }

    /// Where the server's revocation ends every session of the user (Hero365's deployed
    /// `/revoke-tokens/{user_id}`, Supabase's global sign-out), a logged-out session's revocation
    /// is never sent while a session is held or an intent waits for an answer (a sign-in may be
    /// under way): it would end that session too, one the user never logged out of. A round under
    /// way when the user signs in again sends nothing more; a revocation owed waits for a logout
    /// or a launch with no session. (OWASP ASVS V3.3.1: logout ends the session logged out of.)
    public static func noRevocationBesideSession<M>() -> Invariant<M> {
        Invariant(
            "a revocation of every session never goes out beside a session", source: "Hero365's /revoke-tokens/{user_id}; OWASP ASVS V3.3.1",
            .step { t in
                let waiting = !t.after.world.history.openIntents.isEmpty
                guard t.after.isSignedIn || waiting else { return nil }
                for request in t.sent where request.isRevocation {
                    guard let token = request.refreshToken,
                        t.before.world.history.liveAfterLogout.contains(token) || t.after.world.history.liveAfterLogout.contains(token)
                    else { continue }
                    let beside = t.after.isSignedIn ? "a session is held" : "an intent waits"
                    return "sent \(request) for a logged-out session while \(beside): it ends every session of the user"
                }
                return nil
            })
    }

    /// An owed revocation is tried again when no session is held: every revocation the vault owes
    /// gets a request when the app launches and finds no stored session, and at each logout (unless
    /// one is already in flight, or the server's 429 holds it back: the round then counts). (Where the backend revokes one refresh token at a time, it is
    /// also tried beside a restored session and at each sign-in; where its revocation ends every
    /// session of the user, it waits while one may be held, so these are the moments every backend
    /// shares.) (OWASP ASVS V3.3.1; RFC 7009 §2.)
    public static func owedRevocationRetried<M>() -> Invariant<M> {
        Invariant(
            "an owed revocation is tried again at each launch and logout", source: "OWASP ASVS V3.3.1; RFC 7009 §2",
            .step { t in
                let owed: [OwedRevocation]
                let inFlight: [RefreshToken]
                if case .launched(.none, let read, _) = t.move.event {
                    (owed, inFlight) = (read, [])  // A relaunch ended whatever was in flight.
                } else if t.before.isSignedIn, t.effects.contains(where: \.isLogout) {
                    (owed, inFlight) = (t.before.world.owedRevocations, t.before.world.network.compactMap(\.request.refreshToken))
                } else {
                    return nil
                }
                let after = t.after.world.owedRevocations
                for entry in owed where !inFlight.contains(entry.refreshToken) && !t.sent.contains(where: { $0.refreshToken == entry.refreshToken }) {
                    // A round the server's 429 held back is tried all the same: it counts.
                    if after.contains(where: { $0.refreshToken == entry.refreshToken && $0.rounds > entry.rounds }) { continue }
                    if !after.contains(where: { $0.refreshToken == entry.refreshToken }) { continue }  // Settled or reported.
                    return "\(t.move.event.isLaunch ? "the launch" : "the logout") did not try again the revocation the vault owes (\(entry))"
                }
                return nil
            })
    }

    /// An owed revocation counts only the rounds that ended: each time the vault stores what it
    /// owes, a debt's count of failed rounds is at most what it stored before (its renewed
    /// token's, after a renewal) plus one, and one more only in a step that ended a round of it
    /// as the server's part shows (``SourceRules/endsRound(of:answered:reply:sent:windows:at:attemptsLeft:)``:
    /// a lost request ends a round only at the last of the policy's sends). A client that counted
    /// a round it did not try, or did not finish, would spend its policy's rounds early, and "no
    /// server session outlives a logout", which lets the token go at the last round, would take
    /// its word. (OWASP ASVS V3.3.1; RFC 7009 §2.)
    public static func owedRoundsCounted<M>() -> Invariant<M> {
        Invariant(
            "an owed revocation counts only rounds that ended", source: "OWASP ASVS V3.3.1; RFC 7009 §2",
            .step { t in
                guard let stored = t.effects.lazy.compactMap(\.persistedOwedRevocations).last, !stored.isEmpty else { return nil }
                let before = t.before.world.owedRevocations
                var renewed: (from: RefreshToken, to: RefreshToken)?
                if case .refreshed(let tokens)? = t.reply, let from = t.answered?.request.refreshToken, let to = tokens.refreshToken {
                    renewed = (from, to)
                }
                // The windows the step saw: a relaunch forgets the server's waits, as the client does.
                let windows = (t.move.event.isLaunch ? [] : t.before.world.history.rateLimits) + t.after.world.history.rateLimits
                for entry in stored {
                    let earlier =
                        before.first { $0.refreshToken == entry.refreshToken }
                        ?? (renewed?.to == entry.refreshToken ? before.first { $0.refreshToken == renewed?.from } : nil)
                    let counted = earlier?.rounds ?? 0
                    guard entry.rounds > counted else { continue }
                    let ended = [entry.refreshToken, earlier?.refreshToken].compactMap { $0 }.contains { token in
                        SourceRules.endsRound(
                            of: token, answered: t.answered, reply: t.reply, sent: t.sent, windows: windows, at: t.after.world.now,
                            attemptsLeft: t.before.world.history.roundAttempts)
                    }
                    if entry.rounds == counted + 1, ended { continue }
                    return "the vault counts \(entry.rounds) failed round(s) of an owed revocation it counted \(counted) of before, "
                        + (ended ? "though this step ended one round" : "in a step that ended none of its rounds")
                }
                return nil
            })
    }

    /// An owed refresh token only ends its own session: it is never the session's (never stored as
    /// credentials, never refreshed with for a session, never attached), and every request that
    /// presents it is its revocation, or the refresh that renews the pair to revoke with where the
    /// backend's revocation needs a live access token. (RFC 9700 §4.14; RFC 7009 §2.)
    public static func owedTokenOnlyRevoked<M>() -> Invariant<M> {
        Invariant(
            "an owed refresh token is only ever sent to end its session", source: "RFC 9700 §4.14; RFC 7009 §2",
            .step { t in
                let owed = t.before.world.owedRevocations.map(\.refreshToken) + t.after.world.owedRevocations.map(\.refreshToken)
                guard !owed.isEmpty else { return nil }
                if let token = t.after.sessionCredentials?.refreshToken, owed.contains(token) {
                    return "the session holds a refresh token whose revocation is owed"
                }
                if let token = t.after.world.vault.credentials?.refreshToken, owed.contains(token) {
                    return "the vault's credentials hold a refresh token whose revocation is owed"
                }
                for request in t.sent {
                    guard let token = request.refreshToken, owed.contains(token) else { continue }
                    switch request {
                    case .refresh, .revoke: continue
                    default: return "sent \(request) with a refresh token whose revocation is owed"
                    }
                }
                return nil
            })
    }

    /// No credentials outside signed-in states: the vault holds readable credentials only while
    /// the state is signed in. (OWASP MASVS-STORAGE-1; Everday: "clear local auth state regardless".)
    public static func credentialsOnlyWhenSignedIn<M>() -> Invariant<M> {
        Invariant(
            "no credentials outside signed-in states", source: "OWASP MASVS-STORAGE-1; Everday's API document, Logout",
            .state { s in
                s.world.vault.credentials != nil && !s.isSignedIn ? "the vault holds credentials in \(s.casePath)" : nil
            })
    }

    /// The session in memory is the one in the vault: a rotated pair or an updated profile is
    /// persisted in the same step it is adopted, so a crash never loses a rotated token.
    /// (RFC 9700 §4.14.2; Everday's API document, Refresh: store the new refresh token at once.)
    public static func sessionMatchesVault<M>() -> Invariant<M> {
        Invariant(
            "the session's credentials are persisted", source: "RFC 9700 §4.14.2; Everday's API document, Refresh",
            .state { s in
                guard let held = s.sessionCredentials else { return nil }
                return s.world.vault.credentials == held ? nil : "\(s.casePath) holds credentials the vault does not"
            })
    }

    /// Logout always reaches signed-out with credentials cleared, whatever the server says.
    /// (Everday's API document, Logout: the client clears its state whatever the server answers;
    /// OWASP ASVS V3.3.1.)
    /// The logout is recognised however deeply a composition wraps it (`.session(.logout)`).
    public static func logoutAlwaysSignsOut<M>() -> Invariant<M> {
        let isLogout = Memo<M.Intent, Bool>()
        // By the intent's key where the environment numbered it; a key not met yet (each
        // environment numbers afresh) takes the intent's own answer, as the leak scanner does.
        let isLogoutKey = Memo<EventKey, Bool>()
        return Invariant(
            "logout always signs out and clears the vault", source: "Everday's API document, Logout; OWASP ASVS V3.3.1",
            .step { t in
                // Matched without binding the intent: a copy of a nested intent is made only when its
                // key is not known yet (or it has none).
                guard case .intent = t.move.event else { return nil }
                @Sendable func byIntent() -> Bool {
                    guard case .intent(let intent, _, _) = t.move.event else { return false }
                    return isLogout.value(intent) { EventLabel.leafCase(of: $0) == "logout" }
                }
                let logout = if let key = t.move.key { isLogoutKey.value(key) { _ in byIntent() } } else { byIntent() }
                guard logout else { return nil }
                if t.after.isSignedIn { return "still signed in after logout (\(t.after.casePath))" }
                if t.after.world.vault != .empty { return "the vault was not cleared by logout" }
                return t.effects.contains(.clearCredentials) ? nil : "logout did not ask to clear credentials"
            })
    }

    // MARK: Refresh

    /// At most one refresh in flight per session: every caller joins the one refresh.
    /// (RFC 9700 §4.14.2 rotation makes concurrent refreshes look like reuse.)
    public static func atMostOneRefreshInFlight<M>() -> Invariant<M> {
        Invariant(
            "at most one refresh in flight", source: "RFC 9700 §4.14.2",
            .state { s in
                var refreshes = 0
                for exchange in s.world.network {
                    // A logged-out session's refresh, ending it in the background, is not the session's.
                    if case .refresh = exchange.request, !s.world.history.inFlightAtSignOut.contains(exchange.id),
                        !s.world.history.endsLoggedOutSession(exchange.request)
                    {
                        refreshes += 1
                    }
                }
                return refreshes <= 1 ? nil : "\(refreshes) refreshes in flight"
            })
    }

    /// A refresh token is never sent again once the server answered it with a successor.
    /// (RFC 6749 §6; RFC 9700 §4.14.2: a replayed rotated token revokes the whole family.)
    public static func noRefreshTokenReuse<M>() -> Invariant<M> {
        Invariant(
            "an old refresh token is never sent after its successor arrived", source: "RFC 6749 §6; RFC 9700 §4.14.2",
            .step { t in
                for request in t.sent {
                    guard let token = request.refreshToken else { continue }
                    if t.before.world.history.retiredRefreshTokens.contains(token) {
                        return "sent a refresh token that was already rotated: \(request)"
                    }
                }
                return nil
            })
    }

    /// A refresh token the server revoked at a password change is never sent again, nor kept
    /// where a relaunch would find it: Everday's deployed server revokes every refresh token of
    /// the user when it accepts a change, so presenting one is refused at best, and at worst reads
    /// as reuse of a stolen token. (RFC 6749 §10.4 and RFC 9700 §4.14: a revoked refresh token is
    /// dead; OWASP ASVS V3.3.3: a password change may end every other session.)
    public static func noRevokedRefreshTokenUsed<M>() -> Invariant<M> {
        Invariant(
            "a refresh token revoked at a password change is never used again", source: "RFC 6749 §10.4; RFC 9700 §4.14; OWASP ASVS V3.3.3",
            .step { t in
                let revoked = t.after.world.history.revokedRefreshTokens
                guard !revoked.isEmpty else { return nil }
                for request in t.sent {
                    guard let token = request.refreshToken, revoked.contains(token) else { continue }
                    return "sent a refresh token the server revoked at a password change: \(request)"
                }
                if let kept = t.after.world.vault.credentials?.refreshToken, revoked.contains(kept) {
                    return "the vault keeps a refresh token the server revoked at a password change"
                }
                return nil
            })
    }

    /// An account the server confirmed deleted leaves no session behind: nothing in memory, nothing
    /// in the vault, in the step that learns it. (Everday's deployed `DELETE /auth/account`, which
    /// removes the user's refresh tokens with the account; App Store Review Guideline 5.1.1(v):
    /// deleting the account ends its use in the app.)
    public static func deletedAccountLeavesNoSession<M>() -> Invariant<M> {
        Invariant(
            "an account the server deleted leaves no session behind", source: "Everday's account deletion; App Store Review Guideline 5.1.1(v)",
            .step { t in
                guard t.answersCurrentRequest, case .deleteAccount? = t.answered?.request, let reply = t.reply, SourceRules.acknowledged(reply)
                else { return nil }
                if t.after.sessionCredentials != nil { return "\(t.after.casePath) keeps a session after the account was deleted" }
                return t.after.world.vault.credentials == nil ? nil : "the vault keeps the deleted account's credentials"
            })
    }

    /// A stored session whose launch check (the current-user endpoint) is refused for its access
    /// token is not ended while it holds a refresh token not yet tried: a 401 there may be the
    /// server's own upstream hiccup (Hero365) or a clock ahead of the client's, and only the
    /// refresh endpoint can say the session is over. (RFC 6750 §3.1: 401 refuses the bearer;
    /// RFC 6749 §6: the refresh token obtains a new one.)
    public static func refusedLaunchCheckTriesRefresh<M>() -> Invariant<M> {
        Invariant(
            "a launch check refused for its access token tries the refresh token before signing out", source: "RFC 6750 §3.1; RFC 6749 §6",
            .step { t in
                guard t.answersCurrentRequest, case .currentUser? = t.answered?.request, case .failed(let failure)? = t.reply,
                    SourceRules.accessTokenRefused(failure), case .restoring(let restoring)? = t.before.session,
                    restoring.credentials.refreshToken != nil
                else { return nil }
                for request in t.sent { if case .refresh = request { return nil } }
                return t.after.sessionCredentials == nil ? "the launch check's 401 signed out with the refresh token untried" : nil
            })
    }

    /// A wrong current password never ends the session: the server refused what the user typed,
    /// not the session's token, so the answer neither ends the session nor renews its token (a
    /// refresh would replay nothing and spend a rotation). (Everday's change-password answers a
    /// wrong current password 401 `Invalid credentials`; RFC 6750 §3.1: only `invalid_token`
    /// says the bearer is at fault.)
    public static func wrongCurrentPasswordKeepsSession<M>() -> Invariant<M> {
        Invariant(
            "a wrong current password never ends the session", source: "RFC 6750 §3.1; Everday's change-password answers",
            .step { t in
                guard t.answersCurrentRequest, case .changePassword? = t.answered?.request, case .failed(let failure)? = t.reply,
                    SourceRules.typedPasswordRefused(failure), let held = t.before.sessionCredentials
                else { return nil }
                if t.after.sessionCredentials != held { return "the session changed after a wrong current password (\(t.after.casePath))" }
                for request in t.sent { if case .refresh = request { return "a wrong current password started a refresh" } }
                return nil
            })
    }

    /// A refresh answer without a refresh token keeps the old one (RFC 6749 §6: "the client MUST
    /// discard the old refresh token" only when a new one is issued).
    public static func refreshWithoutTokenKeepsOld<M>() -> Invariant<M> {
        Invariant(
            "a refresh answer without a refresh token keeps the old one", source: "RFC 6749 §6",
            .step { t in
                // The session's own refresh (a logged-out session's, ended in the background, keeps nothing).
                guard t.answersCurrentRequest, case .refresh(let old)? = t.answered?.request, t.before.sessionCredentials?.refreshToken == old,
                    case .refreshed(let tokens)? = t.reply, tokens.refreshToken == nil
                else { return nil }
                return t.after.sessionCredentials?.refreshToken == old ? nil : "the refresh token was dropped"
            })
    }

    /// Every access token a request carries is the vault's at that point of the effect list: a
    /// rotated pair is persisted before the new access token is used. (Everday's API document, Refresh.)
    public static func persistedBeforeUse<M>() -> Invariant<M> {
        Invariant(
            "a new token is persisted before it is used", source: "Everday's API document, Refresh; RFC 9700 §4.14.2",
            .step { t in
                guard !t.sent.isEmpty else { return nil }  // Only a request can use a token.
                var vault = t.before.world.vault.credentials
                if case .launched(.stored(let read), _, _) = t.move.event { vault = read }  // What this launch read from the vault.
                for effect in t.effects {
                    switch effect {
                    case .persist(let credentials): vault = credentials
                    case .clearCredentials: vault = nil
                    case .send(_, let request):
                        guard let token = request.accessToken else { continue }
                        if case .revoke = request { continue }  // Sent at logout, after the vault is cleared, on purpose.
                        if vault?.accessToken != token { return "\(request) uses a token the vault does not hold yet" }
                    default: continue
                    }
                }
                return nil
            })
    }

    /// Only definitive refresh answers (400/401/403, ``SourceRules/refreshRefused(_:)``) end the
    /// session; network errors, timeouts, 5xx, 429 and unreadable answers keep it. (Everday's API
    /// document, iOS Storage Guidance; RFC 6749 §5.2.)
    public static func onlyDefinitiveRefreshErrorsEndSession<M>() -> Invariant<M> {
        Invariant(
            "only definitive refresh errors end the session", source: "Everday's API document, iOS Storage Guidance; RFC 6749 §5.2",
            .step { t in
                guard t.answersCurrentRequest, let answered = t.answered?.request, case .refresh = answered, case .failed(let failure)? = t.reply,
                    t.before.isSignedIn, !t.before.world.history.endsLoggedOutSession(answered)  // Not a logged-out session's.
                else { return nil }
                let signedIn = t.after.isSignedIn
                let refused = SourceRules.refreshRefused(failure)
                if !refused, !signedIn { return "a transient \(failure) ended the session" }
                if refused, signedIn || t.after.world.vault != .empty { return "a definitive \(failure) kept the session" }
                return nil
            })
    }

    // MARK: Stale answers and logout races

    /// An answer to a request that is no longer current (after logout, cancel, or a newer attempt)
    /// changes nothing and asks for nothing. (AuthCore's design: every answer names the request it
    /// answers; late answers written over a newer state are a known bug class in auth clients such
    /// as supabase-swift and AppAuth.)
    public static func staleAnswersChangeNothing<M>() -> Invariant<M> {
        Invariant(
            "stale answers change nothing", source: "AuthCore's design: every answer names the request it answers",
            .step { t in
                guard case .reply(let id, _, _) = t.move.event, !t.before.refers(to: id) else { return nil }
                // Compared as surveyed: a code cooldown that has ended and is forgotten meanwhile is no change.
                if t.after.stateFingerprint != t.before.stateFingerprint { return "an answer to \(id), no longer current, changed the state" }
                return t.effects.isEmpty ? nil : "an answer to \(id), no longer current, caused \(t.effects)"
            })
    }

    /// Nothing in flight when the session ended, nor anything its background sign-out sends
    /// later (a refresh first, a revocation), can write credentials afterwards
    /// (``History/inFlightAtSignOut``). An answer to a request the state has let go of, with no
    /// refresh token in it, is ``staleAnswersChangeNothing()``'s: any change at all breaks that
    /// one. (OWASP ASVS V3.3.1: logout invalidates the session; a late refresh must not revive it.)
    public static func nothingAfterSignOutWritesCredentials<M>() -> Invariant<M> {
        Invariant(
            "nothing after logout writes credentials", source: "OWASP ASVS V3.3.1",
            .step { t in
                guard case .reply(let id, _, _) = t.move.event, t.before.world.history.inFlightAtSignOut.contains(id) else { return nil }
                return t.effects.contains(where: { if case .persist = $0 { true } else { false } })
                    ? "an answer to \(id), of a session that had ended, persisted credentials" : nil
            })
    }

    // MARK: Gates

    /// A pending-approval account never reaches signed-in except through a sign-in answer that
    /// grants a session. (Everday's API document, Approval-Gated Registration.) A relaunch that
    /// restores what the vault already held is not a way in for the pending account: those
    /// credentials were granted to an earlier sign-in (found by the explorer: a vault unreadable at
    /// one launch and readable at the next, with a registration pending in between).
    public static func pendingApprovalNeverSignsIn<M>() -> Invariant<M> {
        Invariant(
            "pending approval never reaches signed-in", source: "Everday's API document, Approval-Gated Registration",
            .step { t in
                guard !t.before.isSignedIn, t.after.isSignedIn else { return nil }
                if case .launched(.stored(let stored), _, _) = t.move.event,
                    t.before.world.vault == .holds(stored) || t.before.world.vault == .unreadable(stored)
                {
                    return nil
                }
                if t.answersCurrentRequest, case .granted? = t.reply { return nil }
                // Last: the case path is a string built for the asking.
                guard t.before.casePath.split(separator: ".").contains("pendingApproval") else { return nil }
                return "\(t.before.casePath) reached \(t.after.casePath) without a granted sign-in"
            })
    }

    /// While the password must be set or changed, nothing else is sent and every call is refused.
    /// (Everday's API document, `RequirePasswordChange`; Anonymous Wall's, Registration Flow: the
    /// password is set before anything else.) A relaunch is a new process restoring the session;
    /// ``passwordStepNeverSkipped()`` guards where it lands.
    public static func passwordRequirementAllowsNothingElse<M>() -> Invariant<M> {
        Invariant(
            "a required password step allows nothing else", source: "Everday's API document, Login; Anonymous Wall's, Registration Flow",
            .step { t in
                if case .launched = t.move.event { return nil }
                let setup: Bool
                switch t.before.session {
                case .passwordSetupRequired?: setup = true
                case .passwordChangeRequired?: setup = false
                default: return nil
                }
                for effect in t.effects {
                    switch effect {
                    case .send(_, .setPassword) where setup, .send(_, .changePassword) where !setup, .send(_, .revoke):
                        continue
                    case .send(_, let request) where t.after.world.history.endsLoggedOutSession(request):
                        continue  // Ending a logged-out session on the server, in the background.
                    case .send(_, let request):
                        return "sent \(request) while the password must be \(setup ? "set" : "changed")"
                    case .finish(let call, .answered(let request)):
                        return "\(call) was answered (\(request)) while the password must be \(setup ? "set" : "changed")"
                    default:
                        continue
                    }
                }
                return nil
            })
    }

    /// A password step the server demanded at sign-in is never skipped: no usable session exists
    /// until the server confirmed it done, across relaunches and restores too. (Everday's API
    /// document, `RequirePasswordChange`; Anonymous Wall's, Registration Flow.)
    public static func passwordStepNeverSkipped<M>() -> Invariant<M> {
        Invariant(
            "a demanded password step is never skipped", source: "Everday's API document, Login; Anonymous Wall's, Registration Flow",
            .state { s in
                guard let due = s.world.history.passwordStepDue, let session = s.session else { return nil }
                switch session {
                case .active:
                    return "\(s.casePath) is usable while the password must be \(due == .set ? "set" : "changed")"
                case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired:
                    return nil
                }
            })
    }

    /// A code is submitted (register, sign in, reset) only for a destination the server confirmed
    /// sending a code to, for that purpose. (Anonymous Wall's API document, Registration Flow;
    /// Hero365's, Phone/OTP Flow.)
    public static func codeOnlyAfterCodeSent<M>() -> Invariant<M> {
        Invariant(
            "a code is submitted only after one was sent there",
            source: "Anonymous Wall's API document, Registration Flow; Hero365's, Phone/OTP Flow",
            .step { t in
                for request in t.sent {
                    guard let destination = request.codeVerifiedFor else { continue }
                    if !t.before.world.history.codes.contains(where: { $0.destination == destination }) {
                        return "submitted a code for \(destination) before one was sent"
                    }
                }
                return nil
            })
    }

    /// The first password is set only while the server says it is unset: the last grant it sent
    /// said `passwordSet: false`, and it has not accepted a set-password since. Judged from what
    /// the server sent (the history), not from the app's own phase: an app that demanded a setup
    /// the server never asked for would otherwise pass its own test. (Anonymous Wall's API
    /// document, Set Password.)
    public static func setPasswordOnlyWhileUnset<M>() -> Invariant<M> {
        Invariant(
            "set-password only while the password is unset", source: "Anonymous Wall's API document, Set Password",
            .step { t in
                guard t.sent.contains(where: { if case .setPassword = $0 { true } else { false } }) else { return nil }
                if t.before.world.history.passwordStepDue == .set { return nil }
                return "set-password sent from \(t.before.casePath), though the server did not say the password is unset"
            })
    }

    /// Sign-in, registration, code and password requests are never sent without a user action:
    /// nothing of the kind is retried by itself. (Hero365's API document, OTP Best Practices; NIST SP
    /// 800-63B §5.2.2 throttling.)
    public static func signInRequestsNeedTheUser<M>() -> Invariant<M> {
        Invariant(
            "codes and sign-ins are never retried by themselves", source: "Hero365's API document, OTP Best Practices; NIST SP 800-63B §5.2.2",
            .step { t in
                guard !t.move.choice.isUserAction else { return nil }
                let automatic = t.sent.filter(\.needsUserAction)
                return automatic.isEmpty ? nil : "sent \(automatic[0]) without a user action"
            })
    }

    /// At most one code verification in flight. (Hero365's API document, Phone OTP.)
    public static func atMostOneVerificationInFlight<M>() -> Invariant<M> {
        Invariant(
            "at most one verification in flight", source: "Hero365's API document, Phone OTP",
            .state { s in
                let current = s.world.network.filter { $0.request.codeVerifiedFor != nil && s.refers(to: $0.id) }
                return current.count <= 1 ? nil : "\(current.count) verifications in flight"
            })
    }

    /// A reset that signs in replaces the whole session with the reset's answer (or, for the reset
    /// flow alone, hands exactly that grant over). (Anonymous Wall's API document, Reset Password: the
    /// reset signs the user in.)
    public static func resetSignInReplacesSession<M>() -> Invariant<M> {
        Invariant(
            "a reset that signs in replaces the whole session", source: "Anonymous Wall's API document, Reset Password",
            .step { t in
                guard t.answersCurrentRequest, case .resetPassword? = t.answered?.request, case .granted(let grant)? = t.reply
                else { return nil }
                if t.after.session == nil, case .signedIn(let handedOver)? = t.after.phase(PasswordReset.Phase.self) {
                    return handedOver == grant ? nil : "the reset hands over another grant than its answer"
                }
                var expected = Credentials(grant, receivedAt: t.after.world.now)
                expected.user.passwordChangeRequired = grant.requiresPasswordChange
                return t.after.sessionCredentials == expected ? nil : "the session after reset is not the reset's grant"
            })
    }

    /// No request carries input the documented validation rejects: email format, password ≥ 8
    /// characters (as the user sees them: ``SourceRules/isPassword(_:)``), E.164 phone, 6-digit
    /// code. (The API documents of Anonymous Wall, Subspace and Hero365; NIST SP 800-63B §5.1.1.2.)
    public static func onlyValidInputSent<M>() -> Invariant<M> {
        let valid = Memo<APIRequest, Bool>()
        return Invariant(
            "no request carries input the validation rejects",
            source: "the API documents of Anonymous Wall, Subspace and Hero365; NIST SP 800-63B §5.1.1.2",
            .step { t in
                // Only requests a user's input went into are looked up (hashing one walks all of it):
                // refreshes, protected calls and the like carry none.
                for request in t.sent where request.needsUserAction && !valid.value(request, { $0.inputIsValid }) {
                    return "sent invalid input: \(request)"
                }
                return nil
            })
    }

    /// No secret (password, code, token) appears in the description of any state, event or effect.
    /// (OWASP MASVS-STORAGE-2; VynqTalk's API document, Requirement 8.5.) Every description is
    /// scanned against every secret known so far, and again when new secrets appear. Events and
    /// effects are described once per distinct value (see ``noSecretInEventsOrEffects()``); a
    /// lifecycle state once per canonical state (its fingerprint, see ``Survey``): states with one
    /// fingerprint differ only in the names of ids and tokens and in where `now` is, so one shows a
    /// secret exactly when the other shows its renamed counterpart.
    public static func noSecretInDescriptions<M>() -> Invariant<M> {
        let scanner = LeakScanner<StateLeakKey>()
        // `String(reflecting:)` is the description itself unless the type has a debug one: asked of
        // the type once, not of each state (a conformance lookup each time).
        let debugDescribed = M.State.self is any CustomDebugStringConvertible.Type
        return Invariant(
            "no secret in any description", source: "OWASP MASVS-STORAGE-2; VynqTalk's API document, Requirement 8",
            .state { s in
                scanner.learn(s.secrets)
                let inState = scanner.leak(.state(s.stateFingerprint)) { _ in
                    let state = s.world.state
                    let debug = debugDescribed ? [String(reflecting: state)] : []
                    return ([String(describing: state)] + debug, [])
                }
                // Many states share their requests in flight and vault: each pair is described once
                // (and again when new secrets appear).
                let around =
                    inState == nil
                    ? scanner.leak(
                        .surroundings(
                            Survey.digest {
                                $0.visit(s.world.network); $0.visit(s.world.vault)
                            })
                    ) { _ in
                        ([String(describing: s.world.network), String(describing: s.world.vault)], [])
                    } : nil
                if let length = inState ?? around {
                    return "a \(length)-character secret appears in the description of \(s.casePath)"
                }
                return nil
            })
    }

    /// The event and effect half of ``noSecretInDescriptions()``: each distinct event and effect is
    /// scanned once against every secret known, and again when new secrets appear. An event is
    /// looked up by the key its environment numbered it with (`EventKey`), an effect by its
    /// exact digest (`Survey.digest(_:)`): neither is hashed as a value at every transition.
    public static func noSecretInEventsOrEffects<M>() -> Invariant<M> {
        let scanner = LeakScanner<Described<M.Intent>>()
        @Sendable func describe(_ value: Described<M.Intent>) -> (texts: [String], own: [String]) {
            let shown: Any =
                switch value {
                case .intent(let intent): intent
                case .reply(let reply): reply
                case .launched(let stored, _): stored
                case .effect(let effect): effect
                }
            return ([String(describing: shown), String(reflecting: shown)], secretsInside(shown))
        }
        return Invariant(
            "no secret in any event or effect description", source: "OWASP MASVS-STORAGE-2; VynqTalk's API document, Requirement 8",
            .step { t in
                scanner.learn(t.before.secrets, t.after.secrets)
                // An event the environment numbered is looked up by its key, without copying or hashing it.
                let length =
                    if let key = t.move.key {
                        scanner.leak(event: key, payload: { Described(t.move.event) }, describe: describe)
                    } else {
                        Described(t.move.event).flatMap { scanner.leak($0, describe: describe) }
                    }
                if let length { return "a \(length)-character secret appears in the description of an event" }
                for effect in t.effects {
                    if let digest = Described<M.Intent>.digest(effect),
                        let length = scanner.leak(digest: digest, describe: { describe(.effect(effect)) })
                    {
                        return "a \(length)-character secret appears in the description of an effect"
                    }
                }
                return nil
            })
    }

    /// A 401 causes at most one refresh-and-replay per call: no call is sent more than twice.
    /// (RFC 6750 §3.1; the retry loops Auth0.swift and supabase-swift shipped.)
    public static func atMostOneReplayPerCall<M>() -> Invariant<M> {
        Invariant(
            "a 401 causes at most one replay per call", source: "RFC 6750 §3.1",
            .state { s in
                let looping = s.world.history.callSends.first { $0.sends > 2 }
                return looping.map { "\($0.call) was sent \($0.sends) times" }
            })
    }

    /// An access token known to have expired is never attached to a request. (RFC 6750 §3.1;
    /// Hero365's API document, Token Refresh Strategy: check the token's expiry before each request.)
    public static func expiredTokenNeverAttached<M>() -> Invariant<M> {
        Invariant(
            "an expired access token is never attached", source: "Hero365's API document, Token Refresh Strategy; RFC 6750",
            .step { t in
                for request in t.sent {
                    guard let token = request.accessToken else { continue }
                    let known = [t.before.sessionCredentials, t.after.sessionCredentials, t.before.world.vault.credentials]
                    guard let expiresAt = known.first(where: { $0?.accessToken == token })??.expiresAt else { continue }
                    if t.after.world.now >= expiresAt { return "\(request) carries a token that expired at \(expiresAt)" }
                }
                return nil
            })
    }

    // MARK: One-time codes

    /// The code invariants: a new code only after the cooldown, a code only within its lifetime,
    /// submissions per code bounded. (Hero365's API document, OTP Best Practices; NIST SP 800-63B
    /// §5.1.3.)
    public static func codeInvariants<M>(_ rules: CodeRules) -> [Invariant<M>] {
        var list: [Invariant<M>] = [
            Invariant(
                "a new code only after the cooldown", source: "Hero365's API document, OTP Best Practices (30-60 s)",
                .step { t in
                    for request in t.sent {
                        guard let destination = request.codeSentTo,
                            let last = t.before.world.history.codes.first(where: { $0.destination == destination })
                        else { continue }
                        if t.after.world.now < last.issuedAt + rules.cooldown { return "asked for a new code for \(destination) within the cooldown" }
                    }
                    return nil
                })
        ]
        if let lifetime = rules.lifetime {
            list.append(
                Invariant(
                    "a code is submitted only within its lifetime", source: "Hero365's API document, OTP Best Practices; NIST SP 800-63B §5.1.3",
                    .step { t in
                        for request in t.sent {
                            guard let destination = request.codeVerifiedFor,
                                let issue = t.before.world.history.codes.first(where: { $0.destination == destination })
                            else { continue }
                            if t.after.world.now >= issue.issuedAt + lifetime { return "submitted an expired code for \(destination)" }
                        }
                        return nil
                    }))
        }
        if let maxAttempts = rules.maxAttempts {
            list.append(
                Invariant(
                    "code attempts are bounded", source: "NIST SP 800-63B §5.2.2",
                    .state { s in
                        let over = s.world.history.codes.first { $0.verifications > maxAttempts }
                        return over.map { "\($0.verifications) submissions for one code to \($0.destination)" }
                    }))
        }
        return list
    }
}

extension APIRequest {
    /// The endpoints (``rateLimitedEndpoint``) a round of a server sign-out sends to: the
    /// revocation, and the refresh that renews the pair to revoke with.
    @inlinable static var signOutEndpoints: [String] { ["revoke", "refresh"] }

    /// Whether this request is a revocation (RFC 7009 §2.1).
    @inlinable var isRevocation: Bool {
        if case .revoke = self { return true }
        return false
    }

    /// The endpoint a 429 to this request limits, by the request's kind; `nil` for the app's own
    /// protected calls and the realtime connection, which the kit does not name.
    @inlinable var rateLimitedEndpoint: String? {
        switch self {
        case .sendEmailCode: "sendEmailCode"
        case .registerWithEmailCode: "registerWithEmailCode"
        case .signInWithEmailCode: "signInWithEmailCode"
        case .sendPhoneCode: "sendPhoneCode"
        case .signInWithPhoneCode: "signInWithPhoneCode"
        case .signIn: "signIn"
        case .register: "register"
        case .requestPasswordReset: "requestPasswordReset"
        case .resetPassword: "resetPassword"
        case .setPassword: "setPassword"
        case .changePassword: "changePassword"
        case .oauthURL: "oauthURL"
        case .signInNatively: "signInNatively"
        case .exchangeCode: "exchangeCode"
        case .requestDeviceCode: "requestDeviceCode"
        case .pollDeviceToken: "pollDeviceToken"
        case .refresh: "refresh"
        case .currentUser: "currentUser"
        case .revoke: "revoke"
        case .deleteAccount: "deleteAccount"
        case .protected, .openRealtime: nil
        }
    }

    /// Whether every value the user typed into the request is valid by the sources' rules
    /// (``SourceRules``), not by the value types' own validation.
    var inputIsValid: Bool {
        func ok(_ email: Email) -> Bool { SourceRules.isEmail(email.rawValue) }
        func ok(_ password: Password) -> Bool { SourceRules.isPassword(password.secret.revealedForVerification()) }
        func ok(_ code: VerificationCode) -> Bool { SourceRules.isCode(code.secret.revealedForVerification()) }
        func ok(_ phone: PhoneNumber) -> Bool { SourceRules.isPhone(phone.e164) }
        func ok(_ identifier: SignInIdentifier) -> Bool {
            switch identifier {
            case .email(let email): ok(email)
            case .username(let username): SourceRules.isUsername(username.rawValue)
            case .phone(let phone): ok(phone)
            }
        }
        switch self {
        case .sendEmailCode(let email, _): return ok(email)
        case .registerWithEmailCode(let email, let code), .signInWithEmailCode(let email, let code): return ok(email) && ok(code)
        case .sendPhoneCode(let phone): return ok(phone)
        case .signInWithPhoneCode(let phone, let code): return ok(phone) && ok(code)
        case .signIn(let identifier, let password): return ok(identifier) && ok(password)
        case .register(let details):
            return ok(details.identifier) && ok(details.password) && (details.email.map(ok) ?? true)
                && (details.name.map { SourceRules.isName($0.rawValue) } ?? true)
        case .requestPasswordReset(.email(let email)): return ok(email)
        case .requestPasswordReset(.usernameOrEmail(let identifier)): return SourceRules.isUsernameOrEmail(identifier)
        case .resetPassword(.emailCode(let email, let code), let password): return ok(email) && ok(code) && ok(password)
        case .resetPassword(.token(let token), let password): return !token.secret.reveal().isEmpty && ok(password)
        case .setPassword(let password, _): return ok(password)
        case .changePassword(let old, let new, _): return ok(old) && ok(new)
        case .signInNatively(let details): return details.identityToken.reveal().contains { !$0.isWhitespace }
        case .oauthURL, .refresh, .currentUser, .revoke, .deleteAccount, .protected, .openRealtime, .exchangeCode, .requestDeviceCode,
            .pollDeviceToken:
            return true
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes (a plain scan: descriptions are short).
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count, let first = needle.first else { return needle.isEmpty }
        var start = 0
        while start + needle.count <= count {
            if self[start] == first, self[start..<(start + needle.count)].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}

extension AuthEvent {
    /// Whether this is the app's launch.
    @inlinable var isLaunch: Bool {
        if case .launched = self { return true }
        return false
    }
}
