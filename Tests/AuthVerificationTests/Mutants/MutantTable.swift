import AuthCore
import AuthVerification
import Testing

/// One invariant, the broken reducer that must violate it, the model both it and the real reducer
/// are explored under, and the length of the shortest trace to the violation.
struct MutantCase: Sendable, CustomTestStringConvertible {
    /// The invariant's name, as in the catalogue.
    var invariant: String
    /// The broken reducer under the model.
    var mutant: AnyModel
    /// The real reducer under the same model (named after the model, shared by its mutants).
    var original: AnyModel
    /// Events from the initial state to the first violation, at the fewest.
    var shortest: Int
    /// Other invariants the broken rule cannot help breaking too (within two more events).
    var alsoBreaks: Set<String>
    /// Replays explicit choices on the mutant (`Fuzzer.run`): the violation they lead to, if any.
    var run: @Sendable ([Choice]) -> Violation?

    var testDescription: String { "\(invariant) ← \(mutant.name)" }

    /// A ``Mutant`` and the lifecycle it breaks, both under `model`.
    init<Base: Lifecycle, Family: SmallModel>(
        _ invariant: String, shortest: Int, alsoBreaks: Set<String> = [], _ name: String, _ broken: Mutant<Base>, under model: Family
    ) where Family.Intent == Base.Intent {
        let mutant = model(name, broken)
        self.invariant = invariant
        self.mutant = AnyModel(mutant)
        self.original = AnyModel(model(model.name, broken.base))
        self.shortest = shortest
        self.alsoBreaks = alsoBreaks
        self.run = { Fuzzer.run(mutant, choices: $0).violation }
    }

    /// A ``Remembering`` mutant and the lifecycle it breaks, both under `model`.
    init<Base: Lifecycle, Memory, Family: SmallModel>(
        _ invariant: String, shortest: Int, alsoBreaks: Set<String> = [], _ name: String, _ broken: Remembering<Base, Memory>,
        under model: Family
    ) where Family.Intent == Base.Intent {
        let mutant = model(name, broken)
        self.invariant = invariant
        self.mutant = AnyModel(mutant)
        self.original = AnyModel(model(model.name, broken.base))
        self.shortest = shortest
        self.alsoBreaks = alsoBreaks
        self.run = { Fuzzer.run(mutant, choices: $0).violation }
    }
}

/// The mutant table: every invariant of the catalogue, its broken reducer, and the length of the
/// shortest trace to the violation, justified by the events it needs.
enum MutantTable {
    static let rows: [MutantCase] = [
        // Sign in (2), the session-expiry timer fires (1).
        MutantCase(
            "no credentials outside signed-in states", shortest: 3, "expiryKeepsTheVault", Broken.expiryKeepsTheVault,
            under: .plainSession),
        // Sign in (2), credentials rejected starts a refresh (1), refreshed (1).
        MutantCase(
            "the session's credentials are persisted", shortest: 4, alsoBreaks: ["a new token is persisted before it is used"],
            "refreshedPairNotPersisted", Broken.refreshedPairNotPersisted, under: .rotatingSession),
        // Logout while signed out must already ask to clear the vault (1). A bare session: inside an
        // app the catalogue does not recognise the logout intent (see `MutantTests.logoutInAnApp`).
        MutantCase(
            "logout always signs out and clears the vault", shortest: 1, "logoutKeepsTheVault", Broken.logoutKeepsTheVault,
            under: .bareSession),
        // Sign in (2), credentials rejected starts a refresh (1), rejected again starts a second (1).
        MutantCase(
            "at most one refresh in flight", shortest: 4, "secondRefreshInFlight", Broken.secondRefreshInFlight, under: .rotatingSession),
        // Sign in (2), refresh (1), rotated answer (1), a refresh or revoke with the old token (1).
        MutantCase(
            "an old refresh token is never sent after its successor arrived", shortest: 5,
            alsoBreaks: ["no server session outlives a logout"], "rotatedTokenLost", Broken.rotatedTokenLost, under: .rotatingSession),
        // Sign in (2), refresh (1), an answer without a refresh token (1).
        MutantCase(
            "a refresh answer without a refresh token keeps the old one", shortest: 4, "omittedRefreshTokenDropsTheOld",
            Broken.omittedRefreshTokenDropsTheOld, under: .rotatingSession),
        // Sign in (2), refresh (1), a call waits for it (1), refreshed: the call goes out first (1).
        MutantCase(
            "a new token is persisted before it is used", shortest: 5, "sendsBeforePersisting", Broken.sendsBeforePersisting,
            under: .rotatingSession),
        // Sign in (2), refresh (1), no network (1).
        MutantCase(
            "only definitive refresh errors end the session", shortest: 4, "transientFailureEndsTheSession",
            Broken.transientFailureEndsTheSession, under: .rotatingSession),
        // Sign in (2), refresh at the margin (1), 429 with Retry-After 300 s (1), the retry after the 90 s backoff (1).
        // The retry is scheduled inside the server's time too, one step earlier; and a call waiting
        // for the refresh that ends offline is finished without the server's Retry-After.
        MutantCase(
            "no request to a rate-limited endpoint before the server's time", shortest: 5,
            alsoBreaks: [
                "refresh retries wait for the server's time and count only its answers",
                "a rate-limited intent is finished as rate-limited, with the server's time",
            ], "refreshRetryIgnoresRetryAfter",
            Broken.refreshRetryIgnoresRetryAfter, under: SmallModels.RotatingSession(failures: [.rateLimited(retryAfter: .seconds(300)), .network])),
        // Submit (1), 429 with Retry-After 30 s (1), submit again inside the wait (1): refused before
        // any request, but reported as failed with a 429 the server never sent.
        MutantCase(
            "a rate-limited intent is finished as rate-limited, with the server's time", shortest: 3, "localRefusalReportedAsFailed",
            Broken.localRefusalReportedAsFailed, under: .passwordSignIn),
        // Sign in (2), refresh at the margin (1), 429 with Retry-After 300 s (1): the retry is
        // scheduled after the 90 s backoff, inside the wait the mutant keeps (so nothing is sent early).
        MutantCase(
            "refresh retries wait for the server's time and count only its answers", shortest: 4, "refreshRetryInsideTheServersWait",
            Broken.refreshRetryInsideTheServersWait,
            under: SmallModels.RotatingSession(failures: [.rateLimited(retryAfter: .seconds(300)), .network])),
        // Submit (1), start over (1), the abandoned attempt's grant (1).
        MutantCase("stale answers change nothing", shortest: 3, "staleGrantAccepted", Broken.staleGrantAccepted, under: .passwordSignIn),
        // Sign in (2), refresh (1), logout (1), the refresh answer lands (1). It persists the
        // renewal of an owed revocation too (a revoke lost, then renewed before the next revoke).
        MutantCase(
            "nothing after logout writes credentials", shortest: 5,
            alsoBreaks: ["no credentials outside signed-in states", "an owed refresh token is only ever sent to end its session"],
            "lateRefreshPersisted",
            Broken.lateRefreshPersisted, under: .rotatingSession),
        // Submit (1), start over (1), submit (1), pending approval (1), the first attempt's grant (1).
        // Signed in by a stale grant that said the password is unset, the app asks for a setup
        // the server's later answer (the password is set) no longer backs: set-password then
        // breaks its rule too, which is judged by what the server said last.
        MutantCase(
            "pending approval never reaches signed-in", shortest: 5,
            alsoBreaks: ["stale answers change nothing", "set-password only while the password is unset"],
            "pendingApprovalTakesAnyGrant", Broken.pendingApprovalTakesAnyGrant, under: .plainSession),
        // Sign in with a password change demanded (2), a call (1). The call it lets through checks
        // no expiry either: after time passes to the expiry (1), it carries the expired token.
        MutantCase(
            "a required password step allows nothing else", shortest: 3, alsoBreaks: ["an expired access token is never attached"],
            "callDuringPasswordChange", Broken.callDuringPasswordChange, under: .rotatingSession),
        // Submit (1), a grant demanding a password change (1).
        MutantCase(
            "a demanded password step is never skipped", shortest: 2, "demandedChangeIgnored", Broken.demandedChangeIgnored,
            under: .rotatingSession),
        // Submit the email (1), a code typed before the send is confirmed (1).
        MutantCase(
            "a code is submitted only after one was sent there", shortest: 2, "codeSubmittedBeforeSent", Broken.codeSubmittedBeforeSent,
            under: .codeRegistration),
        // Sign in with the password set (2), set password (1). The request it lets through checks
        // no expiry either: after time passes to the expiry (1), it carries the expired token.
        MutantCase(
            "set-password only while the password is unset", shortest: 3, alsoBreaks: ["an expired access token is never attached"],
            "passwordSetTwice", Broken.passwordSetTwice, under: .plainSession),
        // Submit the phone (1), code sent (1), the resend timer fires (1).
        MutantCase(
            "codes and sign-ins are never retried by themselves", shortest: 3,
            alsoBreaks: ["no request to a rate-limited endpoint before the server's time"], "codeResentByItself", Broken.codeResentByItself,
            under: .oneTimeCode),
        // Submit the phone (1), code sent (1), a code (1), another code while it is verified (1).
        MutantCase(
            "at most one verification in flight", shortest: 4, "secondVerificationInFlight", Broken.secondVerificationInFlight,
            under: .oneTimeCode),
        // Request (1), code sent (1), code and new password (1), the granted answer (1).
        MutantCase(
            "a reset that signs in replaces the whole session", shortest: 4, "resetGrantRewritten", Broken.resetGrantRewritten,
            under: .passwordReset(.emailCodeWithAutoLogin)),
        // A blank identifier (one of the menu's invalid usernames) is sent at once (1).
        MutantCase(
            "no request carries input the validation rejects", shortest: 1, "resetIdentifierUnchecked", Broken.resetIdentifierUnchecked,
            under: .passwordReset(.emailedToken)),
        // Submit (1): the password is in the state while its request is in flight.
        MutantCase(
            "no secret in any description", shortest: 1, "passwordKeptInTheState", Broken.passwordKeptInTheState, under: .passwordSignIn),
        // Submit (1): the request's description shows the password as the username. The valid
        // password is not ASCII, so the username it makes is one the validation rejects too.
        MutantCase(
            "no secret in any event or effect description", shortest: 1,
            alsoBreaks: ["no secret in any description", "no request carries input the validation rejects"], "passwordSentAsUsername",
            Broken.passwordSentAsUsername, under: .passwordSignIn),
        // Sign in (2), a call (1), 401 (1), refreshed: replay (1), 401 (1), refreshed: a third send (1).
        MutantCase(
            "a 401 causes at most one replay per call", shortest: 7, "replayForgotten", Broken.replayForgotten, under: .rotatingSession),
        // Sign in (2), time passes to the expiry, the app suspended past the refresh timer (1), a call (1).
        MutantCase(
            "an expired access token is never attached", shortest: 4, "expiredTokenAttached", Broken.expiredTokenAttached,
            under: .rotatingSession),
        // Submit the phone (1), code sent (1), a new code at once (1).
        MutantCase(
            "a new code only after the cooldown", shortest: 3, "codeWithinTheCooldown", Broken.codeWithinTheCooldown, under: .oneTimeCode),
        // Submit the phone (1), code sent (1), the code-expiry timer (1), a code (1).
        MutantCase(
            "a code is submitted only within its lifetime", shortest: 4, "expiredCodeSubmitted", Broken.expiredCodeSubmitted,
            under: .oneTimeCode),
        // Submit the phone (1), code sent (1), three wrong codes (6), a fourth code (1).
        MutantCase("code attempts are bounded", shortest: 9, "attemptsNeverCounted", Broken.attemptsNeverCounted, under: .oneTimeCode),
        // Sign in (2), log out (1), the revoke answered 401 or lost (1): nothing in flight, the
        // refresh token alive on the server, nothing reported.
        MutantCase(
            "no server session outlives a logout", shortest: 4, alsoBreaks: ["an expired access token is never attached"],
            "logoutForgetsTheServerSession", Broken.logoutForgetsTheServerSession, under: .rotatingSession),
        // Sign in (2), log out (1), the revoke lost (1): owed; relaunch (1).
        MutantCase(
            "an owed revocation is tried again at each launch and logout", shortest: 5, "launchForgetsTheOwedRevocation",
            Broken.launchForgetsTheOwedRevocation, under: .owingSession),
        // Sign in (2), log out (1), the revoke lost (1): one round failed, two stored.
        MutantCase(
            "an owed revocation counts only rounds that ended", shortest: 4, "owedRoundCountedTwice", Broken.owedRoundCountedTwice,
            under: .owingSession),
        // Sign in (2), log out (1), the revoke lost (1): owed; relaunch (1), the owed token stored as
        // credentials while signed out (and the next launch restores from it: its refresh, which
        // ends a logged-out session, then persists the pair it brings back).
        MutantCase(
            "an owed refresh token is only ever sent to end its session", shortest: 5,
            alsoBreaks: [
                "no credentials outside signed-in states", "an old refresh token is never sent after its successor arrived",
                "no server session outlives a logout", "nothing after logout writes credentials",
            ],
            "owedTokenStored", Broken.owedTokenStored, under: .owingSession),
        // Sign in (2), log out (1), sign in again (1) while the revoke is under way, the revoke
        // lost (1): sent again while the sign-in's intent waits.
        MutantCase(
            "a revocation of every session never goes out beside a session", shortest: 5, "roundBesideTheNewSession",
            Broken.roundBesideTheNewSession, under: .endingEverySession),
        // Sign in (2), change the password (1), a wrong current password read as a refused token (1).
        MutantCase(
            "a wrong current password never ends the session", shortest: 4, "wrongPasswordTakenForTheToken",
            Broken.wrongPasswordTakenForTheToken, under: .changingSession),
        // Sign in (2), change the password (1), accepted (1): the session and the vault keep the revoked token.
        MutantCase(
            "a refresh token revoked at a password change is never used again", shortest: 4, "sessionKeptAfterPasswordChange",
            Broken.sessionKeptAfterPasswordChange, under: .changingSession),
        // Sign in (2), relaunch: the launch check goes out (1), answered 401 (1).
        MutantCase(
            "a launch check refused for its access token tries the refresh token before signing out", shortest: 4,
            "launchCheckEndsTheSession", Broken.launchCheckEndsTheSession, under: .restoringSession),
        // Sign in (2), delete the account (1), the server confirms (1).
        MutantCase(
            "an account the server deleted leaves no session behind", shortest: 4, "deletedAccountKept", Broken.deletedAccountKept,
            under: .restoringSession),
        // Submit (1), start over (1), the abandoned sign-in's answer arrives (1): nothing is in
        // flight and the first sign-in was never answered to its caller.
        MutantCase(
            "every intent is finished exactly once", shortest: 3, "startOverForgetsTheSignIn", Broken.startOverForgetsTheSignIn,
            under: .passwordSignIn),
        // Begin (1), a callback for the other attempt (1): its code is exchanged.
        MutantCase(
            "a callback whose state differs is never accepted", shortest: 2, "callbackStateIgnored", Broken.callbackStateIgnored,
            under: .openIDSignIn),
        // Begin (1), the callback (1), the exchange lost on the network (1): the code goes out again.
        MutantCase(
            "a code is exchanged at most once", shortest: 3, alsoBreaks: ["codes and sign-ins are never retried by themselves"],
            "codeExchangeRetried", Broken.codeExchangeRetried, under: .openIDSignIn),
        // Begin (1), the callback (1), a grant whose ID token carries the other attempt's nonce (1).
        MutantCase(
            "an ID token with another nonce never signs in", shortest: 3, "nonceNotCompared", Broken.nonceNotCompared,
            under: .openIDSignIn),
        // Begin (1): its completion hands the app an authorization URL with the verifier in it.
        MutantCase(
            "the PKCE verifier leaves only in the token request", shortest: 1, "verifierInTheAuthorizationURL",
            Broken.verifierInTheAuthorizationURL, under: .openIDSignIn),
        // Begin (1), the callback (1), a grant whose ID token is for another client (1).
        MutantCase(
            "an ID token from another issuer or for another client never signs in", shortest: 3, "idTokenAudienceUnchecked",
            Broken.idTokenAudienceUnchecked, under: .openIDSignIn),
        // Start (1), the codes issued (1), the first poll at 5 s (1), slow_down (1), the next
        // poll's wake-up 5 s later (1): sent under the interval of 10 s.
        MutantCase(
            "device polling is never faster than the interval, 5 s more after each slow_down", shortest: 5, "slowDownIgnored",
            Broken.slowDownIgnored, under: .deviceSignIn),
    ]
}
