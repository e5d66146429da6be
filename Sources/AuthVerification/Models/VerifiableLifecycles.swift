import AuthCore

// Each AuthCore lifecycle's own model, from its configuration (see ``VerifiableLifecycle``), and
// the combinators', composed from their parts'.

// MARK: Entry flows

extension CodeRegistration: VerifiableLifecycle {
    /// ``Menus/codeRegistration``.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { Menus.codeRegistration }
    /// Its codes, which the app submits, one per `resendCooldown`.
    public var codesSent: [CodeSending] { [CodeSending(cooldown: resendCooldown, submitted: true)] }
    /// `registered`.
    public var finalCases: [String] { [Phase.Case.registered.rawValue] }
}

extension OneTimeCodeSignIn: VerifiableLifecycle {
    /// ``Menus/oneTimeCode(_:)`` on the flow's channel.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { Menus.oneTimeCode(channel) }
    /// Its codes: the cooldown, lifetime and attempts it keeps.
    public var codesSent: [CodeSending] {
        [CodeSending(cooldown: resendCooldown, submitted: true, lifetime: codeLifetime, maxAttempts: maxAttempts)]
    }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
}

extension DeviceSignIn: VerifiableLifecycle {
    /// ``OpenIDModel/deviceIntents``: start, and cancel.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { OpenIDModel.deviceIntents }
    /// The poll's grants carry an ID token right and wrong in each way the flow must refuse, for
    /// the flow's issuer and client, as a code exchange's (``OpenIDModel/idTokens``).
    public func shape(_ replies: inout ReplyCatalogue) {
        replies.idTokens = OpenIDModel.idTokens(for: OpenIDSignIn(issuer: issuer, clientID: clientID))
    }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
    /// Longer than any interval a model's device code reaches before it expires
    /// (``OpenIDModel/devicePollingHorizon``).
    public var historyHorizon: Interval { OpenIDModel.devicePollingHorizon }
    /// Its ID tokens must be its provider's, for its client.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] {
        [Catalogue.idTokenForThisClient(issuer: issuer, clientID: clientID)]
    }
}

extension PasswordSignIn: VerifiableLifecycle {
    /// ``Menus/passwordSignIn(_:)`` for the flow's identifiers.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { Menus.passwordSignIn(identifiers) }
    /// `pendingApproval` unless the server answers a sign-in with a pending approval, `rateLimited`
    /// unless it answers with a 429.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        var cases: [UnreachableCase] = []
        if !replies.fails(\.isPendingApproval) { cases.append(UnreachableCase(Phase.Case.pendingApproval, "the server has no approval gate")) }
        if !replies.fails(\.isRateLimited) { cases.append(UnreachableCase(Phase.Case.rateLimited, "the server answers no 429")) }
        return cases
    }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
}

extension Registration: VerifiableLifecycle {
    /// ``Menus/registration(_:)`` for the flow's forms.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { Menus.registration(forms) }
    /// Each outcome the server never answers with (``ReplyCatalogue/registration``).
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        var cases: [UnreachableCase] = []
        if !replies.registration.contains(.session) { cases.append(UnreachableCase(Phase.Case.registered, "registering never signs in")) }
        if !replies.registration.contains(.verificationRequired) {
            cases.append(UnreachableCase(Phase.Case.awaitingVerification, "registering asks for no verification"))
        }
        if !replies.registration.contains(.pendingApproval) {
            cases.append(UnreachableCase(Phase.Case.pendingApproval, "registering awaits no approval"))
        }
        return cases
    }
    /// `registered`.
    public var finalCases: [String] { [Phase.Case.registered.rawValue] }
}

extension PasswordReset: VerifiableLifecycle {
    /// ``Menus/passwordReset(_:)`` in the flow's style.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] { Menus.passwordReset(style) }
    /// Its emails: a code the app submits (with auto-login), or a link followed outside it. The
    /// emailed-token style is asked for by username (Everday's), so no code goes to an address.
    public var codesSent: [CodeSending] {
        switch style {
        case .emailCodeWithAutoLogin: [CodeSending(cooldown: resendCooldown, submitted: true)]
        case .emailLink: [CodeSending(cooldown: resendCooldown, submitted: false)]
        case .emailedToken: []
        }
    }
    /// What the style leaves out: a link is completed outside the app, a code signs in, a token
    /// does not.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        switch style {
        case .emailCodeWithAutoLogin:
            [UnreachableCase(Phase.Case.linkSent, "no link is sent"), UnreachableCase(Phase.Case.completed, "this reset signs in")]
        case .emailedToken:
            [UnreachableCase(Phase.Case.linkSent, "no link is sent"), UnreachableCase(Phase.Case.signedIn, "this reset does not sign in")]
        case .emailLink:
            [
                UnreachableCase(Phase.Case.awaitingProof, "the link is completed outside the app"),
                UnreachableCase(Phase.Case.resetting, "the link is completed outside the app"),
                UnreachableCase(Phase.Case.completed, "the link is completed outside the app"),
                UnreachableCase(Phase.Case.signedIn, "the link is completed outside the app"),
                UnreachableCase(Phase.Case.requestingAgain, "a link is requested afresh"),
            ]
        }
    }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
}

extension OAuthSignIn: VerifiableLifecycle {
    /// ``Menus/oauth(in:)``'s facts, or none for a flow with native providers only.
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> Menus.OAuthMenuKey? {
        providers.isEmpty ? nil : Menus.OAuthMenuKey(in: snapshot)
    }
    /// ``Menus/oauth(in:)``, or ``Menus/nativeSignIn`` for a flow with native providers only.
    public func intents(for facts: Menus.OAuthMenuKey?, _ options: MenuOptions) -> [Intent] {
        facts.map(Menus.oauth) ?? Menus.nativeSignIn
    }
    /// The browser's cases without a browser provider, native sign-in without a native one.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        var cases: [UnreachableCase] = []
        if providers.isEmpty {
            cases += [
                UnreachableCase(Phase.Case.fetchingURL, "native sign-in only: no provider hands out a URL"),
                UnreachableCase(Phase.Case.awaitingCallback, "native sign-in only: no provider hands out a URL"),
            ]
        }
        if nativeProviders.isEmpty { cases.append(UnreachableCase(Phase.Case.signingInNatively, "no provider signs in natively")) }
        return cases
    }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
}

extension OpenIDSignIn: VerifiableLifecycle {
    /// The pending attempt's name (``OpenIDModel``).
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> OpenIDModel.MenuKey {
        OpenIDModel.MenuKey(in: snapshot)
    }
    /// ``OpenIDModel``'s sign-in intents, from the flow's issuer.
    public func intents(for facts: OpenIDModel.MenuKey, _ options: MenuOptions) -> [Intent] { OpenIDModel.intents(facts, issuer: issuer) }
    /// The code exchange answers with an ID token right for each attempt and wrong in each way
    /// the flow must refuse, for the flow's issuer and client (``OpenIDModel/idTokens``).
    public func shape(_ replies: inout ReplyCatalogue) { replies.idTokens = OpenIDModel.idTokens(for: self) }
    /// `signedIn`.
    public var finalCases: [String] { [Phase.Case.signedIn.rawValue] }
    /// Its ID tokens must be its provider's, for its client.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] {
        [Catalogue.idTokenForThisClient(issuer: issuer, clientID: clientID)]
    }
}

// MARK: The session and the connection

extension SessionLifecycle: VerifiableLifecycle {
    /// Whether the session can offer another protected call (fewer than `options.callers` pending).
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> Bool {
        Menus.canCall(in: snapshot, callers: options.callers)
    }
    /// ``Menus/session(in:callers:)``: a call while one can be offered, logout, the password steps
    /// (valid and invalid), a credentials rejection, deleting the account.
    public func intents(for facts: Bool, _ options: MenuOptions) -> [Intent] { Menus.session(offeringCall: facts) }
    /// Grants as the policy reads them: with a refresh token when it refreshes (with and without
    /// one when it refreshes only what was granted), with `passwordSet` false, true and absent
    /// when it asks for a first password; the models' access-token lifetime
    /// (``Models/tokenLifetime``) when it refreshes; every refresh token revoked by a password
    /// change when the policy says a change ends every session; a revocation that ends every
    /// session when the policy says so; and, where it revokes at logout, the rounds it gives a
    /// revocation it owes and the sends it gives each round.
    public func shape(_ replies: inout ReplyCatalogue) {
        let refreshTokens: [Bool] =
            switch policy.refresh {
            case .none: [false]
            case .rotating: [true]
            case .rotatingWhenGranted: [false, true]
            }
        let passwordSet: [Bool?] = policy.supportsPasswordSetup ? [false, true, nil] : [nil]
        replies.grants = refreshTokens.flatMap { refresh in passwordSet.map { .init(passwordSet: $0, withRefreshToken: refresh) } }
        if refreshPolicyRefreshes { replies.accessLifetime = Models.tokenLifetime }
        if policy.passwordChangeEndsSessions { replies.passwordChangeRevokesRefreshTokens = true }
        if policy.revocationEndsEverySession { replies.revocationEndsEverySession = true }
        if policy.revokesOnLogout {
            replies.revocationRounds = policy.revocationRounds
            replies.revocationAttempts = policy.serverSignOutAttempts
        }
    }
    /// Without a refresh token, the refresh's cases; with stored tokens trusted, restoring (and,
    /// without a refresh, going offline); the password steps no grant demands.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        var cases: [UnreachableCase] = []
        let refreshes = refreshes(answering: replies)
        if !refreshes {
            cases += [
                UnreachableCase(Refresh.Case.refreshing, "no refresh token"), UnreachableCase(Refresh.Case.backingOff, "no refresh token"),
            ]
        }
        if policy.restore == .trustStored {
            cases.append(UnreachableCase(Phase.Case.restoring, "stored tokens are trusted"))
            if !refreshes { cases.append(UnreachableCase(Refresh.Case.offline, "no refresh or launch check to fail")) }
        }
        if !(policy.supportsPasswordSetup && replies.grants.contains { $0.passwordSet == false }) {
            cases.append(UnreachableCase(Phase.Case.passwordSetupRequired, "never demanded"))
        }
        if !replies.grants.contains(where: \.requiresPasswordChange) {
            cases.append(UnreachableCase(Phase.Case.passwordChangeRequired, "never demanded"))
        }
        return cases
    }
    /// Whether the session ever refreshes: its policy does and some grant carries a refresh token.
    func refreshes(answering replies: ReplyCatalogue) -> Bool {
        refreshPolicyRefreshes && replies.grants.contains(where: \.withRefreshToken)
    }
    /// Whether the policy refreshes at all.
    var refreshPolicyRefreshes: Bool {
        if case .none = policy.refresh { return false }
        return true
    }
    /// Yes: stored credentials restore the session.
    public var readsVault: Bool { true }
    /// Whether logout revokes on the server (`SessionPolicy.revokesOnLogout`).
    public var endsServerSessions: Bool { policy.revokesOnLogout }
}

extension RealtimeConnection: VerifiableLifecycle {
    /// Disconnect, and connect with a token of the first session's: a stale one, which a
    /// composition must replace with the session's own.
    public func intents(for facts: NoMenuFacts, _ options: MenuOptions) -> [Intent] {
        [.disconnect, .connect(AccessToken(Symbols.name("at", 1)))]
    }
}

extension SessionWithRealtime: VerifiableLifecycle {
    /// The session's facts (the connection's menu reads none).
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> Bool {
        session.menuFacts(in: snapshot, options)
    }
    /// The session's intents, then the connection's.
    public func intents(for facts: Bool, _ options: MenuOptions) -> [Intent] {
        session.intents(for: facts, options).map(Intent.session)
            + connection.intents(for: NoMenuFacts(), options).map(Intent.connection)
    }
    /// The session's.
    public func shape(_ replies: inout ReplyCatalogue) { session.shape(&replies) }
    /// The session's and the connection's; and, when the session never refreshes, `rejected`:
    /// a refused token then signs out in the same step.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        var cases = session.unreachableCases(answering: replies) + connection.unreachableCases(answering: replies)
        if !session.refreshes(answering: replies) {
            cases.append(UnreachableCase(RealtimeConnection.Phase.Case.rejected, "a refused token signs out in the same step"))
        }
        return cases
    }
    /// Yes: the session restores.
    public var readsVault: Bool { true }
    /// The session's.
    public var endsServerSessions: Bool { session.endsServerSessions }
    /// The session's.
    public var historyHorizon: Interval { session.historyHorizon }
    /// The session's and the connection's.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] {
        session.invariants(of: root) + connection.invariants(of: root)
    }
}

// MARK: Combinators

extension OneOf: VerifiableLifecycle where First: VerifiableLifecycle, Second: VerifiableLifecycle {
    /// Both flows' facts.
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> MenuFactsPair<
        First.MenuFacts, Second.MenuFacts
    > {
        MenuFactsPair(first.menuFacts(in: snapshot, options), second.menuFacts(in: snapshot, options))
    }
    /// The first flow's intents, then the second's.
    public func intents(for facts: MenuFactsPair<First.MenuFacts, Second.MenuFacts>, _ options: MenuOptions) -> [Intent] {
        first.intents(for: facts.first, options).map(Intent.first) + second.intents(for: facts.second, options).map(Intent.second)
    }
    /// The first flow's, then the second's.
    public func shape(_ replies: inout ReplyCatalogue) {
        first.shape(&replies)
        second.shape(&replies)
    }
    /// Both flows'.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        first.unreachableCases(answering: replies) + second.unreachableCases(answering: replies)
    }
    /// Both flows'.
    public var codesSent: [CodeSending] { first.codesSent + second.codesSent }
    /// Whether either reads it.
    public var readsVault: Bool { first.readsVault || second.readsVault }
    /// Whether either does.
    public var endsServerSessions: Bool { first.endsServerSessions || second.endsServerSessions }
    /// Each flow's, inside its side (`first.signedIn`).
    public var finalCases: [String] { first.finalCases.map { "first." + $0 } + second.finalCases.map { "second." + $0 } }
    /// The longer of the two flows'.
    public var historyHorizon: Interval { max(first.historyHorizon, second.historyHorizon) }
    /// Both flows'.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] { first.invariants(of: root) + second.invariants(of: root) }
}

extension Handover: VerifiableLifecycle where Entry: VerifiableLifecycle, SessionSide: VerifiableLifecycle {
    /// The entry flows' facts and the session's.
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> MenuFactsPair<
        Entry.MenuFacts, SessionSide.MenuFacts
    > {
        MenuFactsPair(entry.menuFacts(in: snapshot, options), session.menuFacts(in: snapshot, options))
    }
    /// The entry flows' intents, then the session's.
    public func intents(for facts: MenuFactsPair<Entry.MenuFacts, SessionSide.MenuFacts>, _ options: MenuOptions) -> [Intent] {
        entry.intents(for: facts.first, options).map(Intent.entry) + session.intents(for: facts.second, options).map(Intent.session)
    }
    /// The entry flows', then the session's.
    public func shape(_ replies: inout ReplyCatalogue) {
        entry.shape(&replies)
        session.shape(&replies)
    }
    /// The entry flows' and the session's.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] {
        entry.unreachableCases(answering: replies) + session.unreachableCases(answering: replies)
    }
    /// The entry flows'.
    public var codesSent: [CodeSending] { entry.codesSent + session.codesSent }
    /// Whether the session (or an entry flow) reads it.
    public var readsVault: Bool { entry.readsVault || session.readsVault }
    /// The session's (or an entry flow's).
    public var endsServerSessions: Bool { entry.endsServerSessions || session.endsServerSessions }
    /// The longer of the entry flows' and the session's.
    public var historyHorizon: Interval { max(entry.historyHorizon, session.historyHorizon) }
    /// The entry flows' and the session's.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] { entry.invariants(of: root) + session.invariants(of: root) }
}

extension ReplyCatalogue {
    /// Whether some failure any request can meet is `matching`.
    func fails(_ matching: (AuthFailure) -> Bool) -> Bool { failures.contains(where: matching) }
}

extension AuthFailure {
    /// Whether this is a pending approval (Everday's 403).
    var isPendingApproval: Bool {
        if case .pendingApproval = self { return true }
        return false
    }
    /// Whether this is a 429.
    var isRateLimited: Bool {
        if case .rateLimited = self { return true }
        return false
    }
}
