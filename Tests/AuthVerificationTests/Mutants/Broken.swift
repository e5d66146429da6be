import AuthVerification

@testable import AuthCore

/// Deliberately broken reducers: each wraps a real lifecycle and breaks exactly one of its rules,
/// the way the anchors' issue trackers saw it broken (supabase-swift, AppAuth-iOS, Auth0.swift,
/// Amplify). Named after what the broken reducer does.
enum Broken {
    typealias SignInSession = SmallModels.SignInSession

    // MARK: Credentials and sign-out

    /// The session-expiry timer signs out but leaves the credentials in the vault.
    static let expiryKeepsTheVault = Mutant<SignInSession>.editing(SmallModels.plain) { _, event, _, effects in
        if case .tick = event { effects.removeAll { $0 == .clearCredentials } }
    }

    /// A refreshed pair is adopted in memory without being persisted.
    static let refreshedPairNotPersisted = Mutant<SignInSession>.editing(SmallModels.rotating) { _, event, _, effects in
        if case .reply(_, .refreshed, _) = event { effects.removeAll(where: \.isPersist) }
    }

    /// Logout forgets to ask for the vault to be cleared.
    static let logoutKeepsTheVault = Mutant<SessionLifecycle>.editing(SmallModels.bareSession) { _, event, _, effects in
        if case .intent(.logout, _, _) = event { effects.removeAll { $0 == .clearCredentials } }
    }

    /// ``logoutKeepsTheVault`` inside a sign-in-and-session app.
    static let logoutKeepsTheVaultInAnApp = Mutant<SignInSession>.editing(SmallModels.plain) { _, event, _, effects in
        if case .intent(.session(.logout), _, _) = event { effects.removeAll { $0 == .clearCredentials } }
    }

    /// Logout as AuthCore shipped it before the background sign-out: the revoke goes out with the
    /// stored access token, expired or not, the refresh in flight is cancelled, and the revoke's
    /// answer is dropped — a refused or lost revoke leaves the refresh token alive on the server,
    /// and nobody is told (supabase-swift #358's family).
    static let logoutForgetsTheServerSession = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        guard case .intent(.session(.logout), _, _) = event, case .signedIn(let session) = phase, let credentials = session.credentials,
            let token = credentials.refreshToken
        else { return base.step(&phase, event, &requests) }
        var effects = base.step(&phase, event, &requests)
        for signOut in requests.serverSignOuts { requests.forgetServerSignOut(awaiting: signOut.stage.request) }
        effects.removeAll(where: \.isSend)
        effects.insert(.send(requests.issue(), .revoke(token, credentials.bearer)), at: effects.count - 1)
        return effects
    }

    /// A logout that cannot reach the server gives up at once, as if it were refused: it reports
    /// the server session not confirmed and owes nothing, so its refresh token lives on.
    static let unreachableLogoutNotOwed = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        var effects = base.step(&phase, event, &requests)
        guard let index = effects.firstIndex(where: \.isOwedReport), case .emit(.serverSessionEndOwed(let failure)) = effects[index] else {
            return effects
        }
        effects[index] = .emit(.serverSessionNotConfirmed(failure))
        effects.removeAll(where: \.isOwedPersist)
        for owed in requests.owedRevocations { requests.settleOwed(owed.refreshToken) }
        return effects
    }

    /// The launch reads what the vault owes and does nothing with it.
    static let launchForgetsTheOwedRevocation = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        guard case .launched(let stored, let owed, let at) = event, !owed.isEmpty else { return base.step(&phase, event, &requests) }
        return base.step(&phase, .launched(stored, owed: [], at: at), &requests)
    }

    /// A logout starts its own revocation but leaves the one the vault already owes waiting: the
    /// older debt is not tried again until the next launch.
    static let logoutForgetsTheOwedRevocation = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        guard case .intent(.session(.logout), _, _) = event, !requests.owedRevocations.isEmpty else {
            return base.step(&phase, event, &requests)
        }
        let owed = requests.owedRevocations
        requests.owe([])
        let effects = base.step(&phase, event, &requests)
        requests.owe(owed + requests.owedRevocations)
        return effects
    }

    /// A launch with nothing stored but a revocation owed keeps the owed token as the credentials
    /// to restore next time.
    static let owedTokenStored = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        var effects = base.step(&phase, event, &requests)
        guard case .launched(.none, let owed, _) = event, let first = owed.first else { return effects }
        effects.append(.persist(Credentials(accessToken: AccessToken("kept-access"), refreshToken: first.refreshToken, user: UserProfile(id: "u1"))))
        return effects
    }

    /// An owed revocation the server settled is forgotten in memory, not in the vault.
    static let settledStaysOwed = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        var effects = base.step(&phase, event, &requests)
        if case .reply = event, effects.contains(.emit(.serverSessionEnded)) { effects.removeAll(where: \.isOwedPersist) }
        return effects
    }

    /// A launch that finds a revocation owed gives it up without a round: it forgets the debt in
    /// the vault and reports the server session unconfirmed, as if the debt's last round had
    /// failed, though no request for it went out.
    static let owedGivenUpUntried = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        guard case .launched(let stored, let owed, let at) = event, !owed.isEmpty else { return base.step(&phase, event, &requests) }
        let effects = base.step(&phase, .launched(stored, owed: [], at: at), &requests)
        return effects + [.persistOwedRevocations(requests.owedRevocations), .emit(.serverSessionNotConfirmed(.network))]
    }

    /// Where the server's revocation ends every session of the user, a session restored from the
    /// vault gives up what the vault owes, reported, as if it were a new session: the debt is
    /// forgotten though the next logout or launch with no session could still end it.
    static let restoreGivesUpTheDebt = Mutant<SignInSession>(SmallModels.rotating(revocationEndsEverySession: true)) {
        base, phase, event, requests in
        var restoring = false
        if case .launched = event { restoring = true }
        if case .signedIn(.restoring) = phase { restoring = true }
        let effects = base.step(&phase, event, &requests)
        let signedIn = effects.contains { if case .emit(.signedIn) = $0 { true } else { false } }
        guard restoring, signedIn, !requests.owedRevocations.isEmpty else { return effects }
        requests.owe([])
        return effects + [.persistOwedRevocations([]), .emit(.serverSessionNotConfirmed(.network))]
    }

    /// A failed round is counted twice: the logout's own round, failing, stores two failed rounds
    /// of the debt, so the next round, the first the vault owes, is already its last.
    static let owedRoundCountedTwice = Mutant<SignInSession>(SmallModels.owing) { base, phase, event, requests in
        let effects = base.step(&phase, event, &requests)
        guard effects.contains(where: \.isOwedPersist), requests.owedRevocations.contains(where: { $0.rounds == 1 }) else { return effects }
        for owed in requests.owedRevocations where owed.rounds == 1 { requests.owe(owed.refreshToken, rounds: 2) }
        return effects.map { $0.isOwedPersist ? .persistOwedRevocations(requests.owedRevocations) : $0 }
    }

    /// A logout's round under way answers as if no session were held and nobody waited: where the
    /// server's revocation ends every session of the user, its retry goes out beside a sign-in
    /// under way, or a new session, and ends that one too (AuthCore's own reducer, until a round
    /// looked at both).
    static let roundBesideTheNewSession = Mutant<SignInSession>(SmallModels.endingEverySession) { base, phase, event, requests in
        guard case .reply(let id, _, _) = event, requests.serverSignOut(awaiting: id) != nil, let sessionEvent = base.sessionEvent(event)
        else { return base.step(&phase, event, &requests) }
        var alone = FlowContext(
            next: requests.next, codeCooldowns: requests.codeCooldowns, serverSignOuts: requests.serverSignOuts,
            serverWaits: requests.serverWaits, owedRevocations: requests.owedRevocations)
        var signedOut = base.session.signedOutPhase
        let effects = base.session.step(&signedOut, sessionEvent, &alone)
        requests = FlowContext(
            next: alone.next, waiters: requests.waiters, codeCooldowns: alone.codeCooldowns, serverSignOuts: alone.serverSignOuts,
            serverWaits: alone.serverWaits, owedRevocations: alone.owedRevocations)
        return effects
    }

    // MARK: Refresh

    /// A token rejected while a refresh is under way starts a second refresh instead of joining it.
    static let secondRefreshInFlight = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .intent(.session(.credentialsRejected), let intent, _) = event, case .signedIn(.active(var session)) = phase,
            case .refreshing = session.refresh, let token = session.credentials.refreshToken
        {
            let id = requests.issue()
            session.refresh = .refreshing(id, attempt: 0)
            phase = .signedIn(.active(session))
            return [.send(id, .refresh(token)), .finish(intent, .done)]
        }
        return base.step(&phase, event, &requests)
    }

    /// The rotated refresh token in a refresh answer is lost: the old one is kept and sent again.
    static let rotatedTokenLost = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .refreshed(var tokens), let at) = event, tokens.refreshToken != nil {
            tokens.refreshToken = nil
            return base.step(&phase, .reply(id, .refreshed(tokens), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// A refresh answer without a refresh token drops the one the session held.
    static let omittedRefreshTokenDropsTheOld = Mutant<SignInSession>.editing(SmallModels.rotating) { before, event, phase, effects in
        guard case .reply(let id, .refreshed(let tokens), _) = event, tokens.refreshToken == nil,
            case .signedIn(.active(let held)) = before, case .refreshing(let current, _) = held.refresh, current == id,
            case .signedIn(.active(var session)) = phase
        else { return }
        session.credentials.refreshToken = nil
        phase = .signedIn(.active(session))
        effects = effects.map { $0.isPersist ? .persist(session.credentials) : $0 }
    }

    /// The calls waiting for a refresh are sent with the new token before the pair is persisted.
    static let sendsBeforePersisting = Mutant<SignInSession>.editing(SmallModels.rotating) { _, event, _, effects in
        guard case .reply(_, .refreshed, _) = event else { return }
        effects = effects.filter(\.isSend) + effects.filter { !$0.isSend }
    }

    /// Whether request `id` is the refresh the session in `phase` waits for.
    static func answersTheRefresh(_ id: RequestID, in phase: SignInSession.Phase) -> Bool {
        guard case .signedIn(.active(let session)) = phase, case .refreshing(let current, _) = session.refresh else { return false }
        return current == id
    }

    /// A transient refresh failure (no network) is taken for a refusal and ends the session.
    static let transientFailureEndsTheSession = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .failed(let failure), let at) = event, failure.isTransient, answersTheRefresh(id, in: phase) {
            return base.step(&phase, .reply(id, .failed(.unauthorized(nil)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    // MARK: Rate limits

    /// A sign-in answered 429 goes back to the form at once: the user's next attempt would reach
    /// the endpoint inside the server's window, but for the machine's hold on it (`Lifecycle.reduce`).
    static let signInInsideTheRateLimit = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .reply(let id, .failed(.rateLimited(let retryAfter)), _) = event, case .signingIn(_, let current) = phase, current == id {
            phase = .enteringCredentials
            return requests.finish(waitingFor: id, .failed(.rateLimited(retryAfter: retryAfter)))
        }
        return base.step(&phase, event, &requests)
    }

    /// The same forgetful sign-in on a machine that forgets the server's waits too (its context
    /// drops them at every step): the user's next attempt reaches the endpoint inside the window.
    static let serverWaitsForgotten = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        requests.forgetAllServerWaits()
        return signInInsideTheRateLimit.step(&phase, event, &requests)
    }

    /// A refresh answered 429 retries after its own backoff, whatever `Retry-After` said.
    static let refreshRetryIgnoresRetryAfter = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .failed(.rateLimited), let at) = event, answersTheRefresh(id, in: phase) {
            return base.step(&phase, .reply(id, .failed(.rateLimited(retryAfter: nil)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in that waits out the server's 429 but tells the user's next attempt inside the
    /// window that it *failed* with a 429, as if it had been sent: nothing reaches the server early,
    /// and only the completion shows the bug.
    static let localRefusalReportedAsFailed = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .intent(_, let id, let now) = event, case .rateLimited(let until) = phase, now < until {
            return [.finish(id, .failed(.rateLimited(retryAfter: until - now)))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in that waits a minute of its own after a 429, whatever `Retry-After` said, and
    /// tells the user's next attempt to wait until then.
    static let rateLimitTimeOfItsOwn = Mutant<PasswordSignIn>.editing(PasswordSignIn(identifiers: .username)) { _, event, phase, effects in
        guard case .reply(_, .failed(.rateLimited), let at) = event, case .rateLimited = phase else { return }
        phase = .rateLimited(until: at + .seconds(60))
        effects = effects.map { if case .schedule(.rateLimitEnds, _) = $0 { .schedule(.rateLimitEnds, at: at + .seconds(60)) } else { $0 } }
    }

    /// A sign-in that reads the server's 429 as a server error: the user is not told to wait.
    static let rateLimitReadAsServerError = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .reply(let id, .failed(.rateLimited), let at) = event {
            return base.step(&phase, .reply(id, .failed(.server(status: 503, nil)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// A refresh answered 429 keeps the server's wait but retries after its own backoff: the retry
    /// comes inside the wait, is held back, and spends an attempt on an answer the client made up,
    /// so the session goes offline after fewer real attempts than configured.
    static let refreshRetryInsideTheServersWait = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .failed(.rateLimited(let retryAfter?)), let at) = event, answersTheRefresh(id, in: phase) {
            let effects = base.step(&phase, .reply(id, .failed(.rateLimited(retryAfter: nil)), at: at), &requests)
            requests.serverAsksToWait(for: .refresh, until: at + retryAfter)
            return effects
        }
        return base.step(&phase, event, &requests)
    }

    /// A refused token starts a refresh at once, even while one waits out the server's 429: the
    /// machine holds the refresh back and answers it with the server's 429 again, and the session
    /// counts that made-up answer as a failed attempt (AuthCore's session did so from offline).
    static let refreshHeldBackCounted = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .intent(.session(.credentialsRejected), _, _) = event, case .signedIn(.active(var active)) = phase,
            case .backingOff(_, let attempt) = active.refresh, let token = active.credentials.refreshToken
        {
            let id = requests.issue()
            active.refresh = .refreshing(id, attempt: attempt)
            phase = .signedIn(.active(active))
            return [.send(id, .refresh(token))]
        }
        return base.step(&phase, event, &requests)
    }

    // MARK: Stale answers and logout races

    /// A sign-in answer is taken whatever request it answers, even one the user abandoned.
    static let staleGrantAccepted = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .reply(_, .granted(let grant), _) = event, case .enteringCredentials = phase {
            phase = .signedIn(grant)
            return []
        }
        return base.step(&phase, event, &requests)
    }

    /// A refresh that finishes after logout still writes its tokens to the vault.
    static let lateRefreshPersisted = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        let effects = base.step(&phase, event, &requests)
        guard case .signedOut = phase, case .reply(_, .refreshed(let tokens), let at) = event else { return effects }
        let written = Credentials(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiry.deadline(receivedAt: at),
            user: UserProfile(id: "u1"))
        return effects + [.persist(written)]
    }

    /// A refresh answer is matched to the session by its kind, not by the request it answers:
    /// one that lands after the session ended and the user signed in again — a refresh in flight
    /// at logout, which the logged-out session's background sign-out waits for — is taken as the
    /// new session's refresh, and its pair, from the earlier generation, is adopted and persisted
    /// (supabase-swift #1371).
    static func staleRefreshAdopted(_ real: SignInSession) -> Mutant<SignInSession> {
        Mutant(real) { base, phase, event, requests in
            if case .reply(let id, .refreshed, _) = event, case .signedIn(.active(var session)) = phase {
                if case .refreshing(id, _) = session.refresh {
                } else {
                    requests.forgetServerSignOut(awaiting: id)
                    session.refresh = .refreshing(id, attempt: 0)
                    phase = .signedIn(.active(session))
                }
            }
            return base.step(&phase, event, &requests)
        }
    }

    // MARK: Gates

    /// While pending approval, a sign-in answer to an abandoned attempt is taken for the current one.
    static let pendingApprovalTakesAnyGrant = Mutant<SignInSession>(SmallModels.plain) { base, phase, event, requests in
        if case .reply(let id, .granted, _) = event, case .signedOut(.pendingApproval(let identifier)) = phase {
            phase = .signedOut(.signingIn(identifier, id))
        }
        return base.step(&phase, event, &requests)
    }

    /// A protected call made while the password must be changed is sent anyway.
    static let callDuringPasswordChange = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .intent(.session(.call), let call, _) = event, case .signedIn(.passwordChangeRequired(let step)) = phase {
            let id = requests.issue()
            return [.send(id, .protected(call, step.credentials.bearer)), .finish(call, .answered(id))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A wrong current password is read as a refused token (Everday answers both 401): the
    /// session that must change its password ends, a usable one starts a refresh.
    static let wrongPasswordTakenForTheToken = Mutant<SignInSession>(SmallModels.changing) { base, phase, event, requests in
        if case .reply(let id, .failed(.incorrectPassword(let message)), let at) = event {
            return base.step(&phase, .reply(id, .failed(.unauthorized(message)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// The session goes on after a password change the server answered by revoking every
    /// refresh token of the user (Everday), keeping the revoked one for its next refresh.
    static let sessionKeptAfterPasswordChange = Mutant<SignInSession>(SmallModels.changing) { _, phase, event, requests in
        keepingAfterChange.step(&phase, event, &requests)
    }

    /// ``SmallModels/changing`` as if a change left the server's sessions alive.
    private static let keepingAfterChange: SignInSession = {
        var policy = SmallModels.changing.session.policy
        policy.passwordChangeEndsSessions = false
        return SignInSession(entry: SmallModels.changing.entry, session: SessionLifecycle(policy: policy))
    }()

    /// A launch check answered 401 ends the stored session at once, as AuthCore did before, though
    /// the refresh token might still hold: read as a definitive refusal (403).
    static let launchCheckEndsTheSession = Mutant<SignInSession>(SmallModels.restoringByUser) { base, phase, event, requests in
        if case .reply(let id, .failed(.unauthorized(let message)), let at) = event, case .signedIn(.restoring(let restoring)) = phase,
            restoring.endpoint == .currentUser
        {
            return base.step(&phase, .reply(id, .failed(.forbidden(message)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// An account deletion the server confirmed is read as refused (409): the session goes on with
    /// the deleted account's tokens.
    static let deletedAccountKept = Mutant<SignInSession>(SmallModels.restoringByUser) { base, phase, event, requests in
        if case .reply(let id, .accepted, let at) = event, case .signedIn(.active(let active)) = phase, active.accountDeletion == id {
            return base.step(&phase, .reply(id, .failed(.conflict(nil)), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in answer's `RequirePasswordChange` is ignored: the session starts usable.
    static let demandedChangeIgnored = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .reply(let id, .granted(var grant), let at) = event, grant.requiresPasswordChange {
            grant.requiresPasswordChange = false
            return base.step(&phase, .reply(id, .granted(grant), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// A code typed while the code is still being sent is submitted at once.
    static let codeSubmittedBeforeSent = Mutant<CodeRegistration>(CodeRegistration(resendCooldown: .seconds(60))) { base, phase, event, requests in
        if case .intent(.submitCode(let raw), let intent, let now) = event, case .sendingCode(let email, let sending) = phase,
            case .success(let code) = VerificationCode.validate(raw)
        {
            let superseded = requests.finish(waitingFor: sending, .superseded)
            let id = requests.issue(for: intent)
            phase = .registering(email, id, resendAt: now)
            return superseded + [.send(id, .registerWithEmailCode(email, code))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in whose answer says nothing of the password is taken as "password unset": the app
    /// demands a setup the server never asked for, and then sends set-password from it.
    static let setupDemandInvented = Mutant<SignInSession>(SmallModels.plain) { base, phase, event, requests in
        if case .reply(let id, .granted(var grant), let at) = event, grant.user.passwordSet != false {
            grant.user.passwordSet = false
            return base.step(&phase, .reply(id, .granted(grant), at: at), &requests)
        }
        return base.step(&phase, event, &requests)
    }

    /// Set-password is offered again once the password is set.
    static let passwordSetTwice = Mutant<SignInSession>(SmallModels.plain) { base, phase, event, requests in
        if case .intent(.session(.setPassword(let raw)), let intent, _) = event, case .signedIn(.active(let session)) = phase,
            case .success(let password) = Password.validate(raw)
        {
            return [.send(requests.issue(), .setPassword(password, session.bearer)), .finish(intent, .done)]
        }
        return base.step(&phase, event, &requests)
    }

    /// When the resend cooldown ends, a new code is requested without the user asking.
    static let codeResentByItself = Mutant<OneTimeCodeSignIn>(SmallModels.oneTimeCode) { base, phase, event, requests in
        if case .tick(let now) = event, case .awaitingCode(let challenge) = phase, now >= challenge.resendAt {
            let id = requests.issue()
            phase = .resendingCode(challenge, id)
            return [.send(id, sendCode(to: challenge.destination))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A code typed while one is being verified is verified too; both answers stay awaited.
    static let secondVerificationInFlight = Remembering<OneTimeCodeSignIn, RequestID>(SmallModels.oneTimeCode) {
        base, phase, earlier, event, requests in
        switch (phase, event) {
        case (.verifying(var challenge, let first), .intent(.submitCode(let raw), let intent, let now)):
            guard case .success(let code) = VerificationCode.validate(raw), challenge.attemptsLeft > 0, now < challenge.expiresAt
            else { break }
            challenge.attemptsLeft -= 1
            let id = requests.issue(for: intent)
            earlier = first
            phase = .verifying(challenge, id)
            return [.send(id, verify(code, for: challenge.destination))]
        case (_, .reply(let id, _, _)) where id == earlier:
            earlier = nil
            return requests.finish(waitingFor: id, .superseded)
        default:
            break
        }
        return base.step(&phase, event, &requests)
    }

    /// A reset that signs in hands over a user made up from the typed email, not the answer's.
    static let resetGrantRewritten = Mutant<PasswordReset>.editing(PasswordReset(style: .emailCodeWithAutoLogin, resendCooldown: .seconds(60))) {
        before, _, phase, _ in
        guard case .resetting(.email(let email), _, _) = before, case .signedIn(var grant) = phase else { return }
        grant.user = UserProfile(id: email.rawValue, email: email.rawValue)
        phase = .signedIn(grant)
    }

    /// Everday's reset request trims what was typed but skips the username-or-email validation.
    static let resetIdentifierUnchecked = Mutant<PasswordReset>(PasswordReset(style: .emailedToken, resendCooldown: .seconds(60))) {
        base, phase, event, requests in
        if case .intent(.requestReset(let raw), let intent, _) = event, case .enteringIdentifier = phase {
            let identifier = ResetIdentifier.usernameOrEmail(trimmed(raw))
            let id = requests.issue(for: intent)
            phase = .requesting(identifier, id)
            return [.send(id, .requestPasswordReset(identifier))]
        }
        return base.step(&phase, event, &requests)
    }

    /// Starting over abandons the sign-in under way without answering its caller, who waits forever.
    static let startOverForgetsTheSignIn = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .intent(.startOver, let intent, _) = event, case .signingIn(_, let request) = phase {
            phase = .enteringCredentials
            var abandoned = requests
            _ = abandoned.finish(waitingFor: request, .superseded)  // Forgotten: the effect is dropped, the waiter too.
            requests = abandoned
            return [.finish(intent, .done)]
        }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in keeps the password it sent, in plain text, to retry with it.
    static let passwordKeptInTheState = Remembering<PasswordSignIn, String>(PasswordSignIn(identifiers: .username)) {
        base, phase, typed, event, requests in
        if case .intent(.submit(_, let password), _, _) = event { typed = password.reveal() }
        return base.step(&phase, event, &requests)
    }

    /// A sign-in puts the password into the username field of the request, as typed: the username
    /// is built without validation (the menus' valid passwords are not ASCII, so no username
    /// validation would let one through).
    static let passwordSentAsUsername = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .intent(.submit(_, let raw), let intent, _) = event, case .enteringCredentials = phase,
            case .success(let password) = Password.validate(raw)
        {
            let name = Username(rawValue: raw.reveal())
            let id = requests.issue(for: intent)
            phase = .signingIn(.username(name), id)
            return [.send(id, .signIn(.username(name), password))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A call replayed after a 401 forgets that it was replayed: the next 401 refreshes and replays again.
    static let replayForgotten = Mutant<SignInSession>.editing(SmallModels.rotating) { _, _, phase, _ in
        if case .signedIn(let session) = phase { phase = .signedIn(session.forgettingReplays) }
    }

    /// A call attaches the session's token without checking whether it expired.
    static let expiredTokenAttached = Mutant<SignInSession>(SmallModels.rotating) { base, phase, event, requests in
        if case .intent(.session(.call), let call, _) = event, case .signedIn(let inner) = phase {
            switch inner {
            case .active(var session) where session.refresh == .idle || session.refresh == .offline:
                guard !session.calls.contains(where: { $0.id == call }) else { break }
                let id = requests.issue()
                session.calls.append(PendingCall(id: call, stage: .sent(id, with: session.credentials.accessToken), replayed: false))
                phase = .signedIn(.active(session))
                return [.send(id, .protected(call, session.bearer))]
            case .signedOut, .restoring, .active, .passwordSetupRequired, .passwordChangeRequired:
                break
            }
        }
        return base.step(&phase, event, &requests)
    }

    // MARK: One-time codes

    /// A new code is requested whenever the user asks, cooldown or not.
    static let codeWithinTheCooldown = Mutant<OneTimeCodeSignIn>(SmallModels.oneTimeCode) { base, phase, event, requests in
        if case .intent(.requestNewCode, let intent, _) = event, case .awaitingCode(let challenge) = phase {
            let id = requests.issue(for: intent)
            phase = .resendingCode(challenge, id)
            return [.send(id, sendCode(to: challenge.destination))]
        }
        return base.step(&phase, event, &requests)
    }

    /// A code is submitted whatever its age: the lifetime is never checked.
    static let expiredCodeSubmitted = Mutant<OneTimeCodeSignIn>(SmallModels.oneTimeCode) { base, phase, event, requests in
        if case .intent(.submitCode, _, let now) = event {
            switch phase {
            case .awaitingCode(var challenge), .codeExpired(var challenge):
                challenge.expiresAt = max(challenge.expiresAt, now + .seconds(1))
                phase = .awaitingCode(challenge)
            case .enteringDestination, .requestingCode, .resendingCode, .verifying, .attemptsExhausted, .signedIn:
                break
            }
        }
        return base.step(&phase, event, &requests)
    }

    /// Wrong codes are never counted: every submission finds all its attempts left.
    static let attemptsNeverCounted = Mutant<OneTimeCodeSignIn>(SmallModels.oneTimeCode) { base, phase, event, requests in
        if case .intent(.submitCode, _, _) = event, case .awaitingCode(var challenge) = phase {
            challenge.attemptsLeft = base.maxAttempts
            phase = .awaitingCode(challenge)
        }
        return base.step(&phase, event, &requests)
    }

    // MARK: Helpers

    static func sendCode(to destination: CodeDestination) -> APIRequest {
        switch destination {
        case .email(let email): .sendEmailCode(email, .login)
        case .phone(let phone): .sendPhoneCode(phone)
        }
    }

    static func verify(_ code: VerificationCode, for destination: CodeDestination) -> APIRequest {
        switch destination {
        case .email(let email): .signInWithEmailCode(email, code)
        case .phone(let phone): .signInWithPhoneCode(phone, code)
        }
    }

    static func trimmed(_ text: String) -> String {
        var characters = Substring(text)
        while characters.first?.isWhitespace == true { characters.removeFirst() }
        while characters.last?.isWhitespace == true { characters.removeLast() }
        return String(characters)
    }
}

extension AuthEffect {
    var isPersist: Bool { if case .persist = self { true } else { false } }
    var isSend: Bool { if case .send = self { true } else { false } }
}

extension SessionLifecycle.Phase {
    /// The same phase with every pending call's `replayed` flag cleared.
    var forgettingReplays: Self {
        guard case .active(var session) = self else { return self }  // Only an active session's calls are replayed.
        for index in session.calls.indices { session.calls[index].replayed = false }
        return .active(session)
    }
}

extension AuthEffect {
    /// Whether this effect tells the app a revocation is owed.
    fileprivate var isOwedReport: Bool {
        if case .emit(.serverSessionEndOwed) = self { return true }
        return false
    }

    /// Whether this effect stores the owed revocations.
    fileprivate var isOwedPersist: Bool {
        if case .persistOwedRevocations = self { return true }
        return false
    }
}
