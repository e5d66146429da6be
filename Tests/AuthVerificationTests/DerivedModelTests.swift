import AuthCore
import Testing

@testable import AuthVerification

/// The shipped models are derived from their compositions (`Model(of:name:…)`); these are the
/// models as they were written by hand before, menu, answers and unreachable cases spelt out, kept
/// as the reference the derived ones must equal: the same menu in every world of a walk, the same
/// answers, the same unreachable cases, code rules, bounds and invariants — so the same states.
enum HandWritten {
    static func route<Machine: Lifecycle, Leaf: Sendable>(_ intents: [Leaf], _ machine: Machine) -> [Machine.Intent] {
        intents.compactMap { machine.route($0) }
    }

    static func anonymousWallApp() -> Model<AnonymousWallApp> {
        let app = Apps.anonymousWall()
        let entries =
            route(Menus.codeRegistration, app) + route(Menus.passwordSignIn(.email), app) + route(Menus.oneTimeCode(.email), app)
            + route(Menus.passwordReset(.emailCodeWithAutoLogin), app)
        var replies = Models.aw
        replies.failures = Models.appFailures
        return Model(
            name: "app.anonymousWall", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
                "SessionLifecycle.Refresh.offline": "idem", "SessionLifecycle.Phase.restoring": "stored tokens are trusted",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "PasswordReset.Phase.linkSent": "Hero365's", "PasswordReset.Phase.completed": "this reset signs in",
            ],
            codes: CodeRules(cooldown: .seconds(60)), timeHorizon: .zero, maxInFlight: 1, maxStale: 1,
            menu: Menus.app(entries) { .session($0) })
    }

    static func vynqTalkApp() -> Model<VynqTalkApp> {
        let app = Apps.vynqTalk(connection: RealtimeConnection(maxAttempts: 2))
        let entries = route(Menus.registration([.nameEmailPassword]), app) + route(Menus.passwordSignIn(.email), app)
        let connection: [VynqTalkApp.Intent] = [
            .session(.connection(.disconnect)), .session(.connection(.connect(AccessToken(Symbols.name("at", 1))))),
        ]
        var replies = ReplyCatalogue()
        replies.failures = [.badRequest(nil), .unauthorized(nil), .conflict(nil), .network, .malformed]
        replies.callFailures = [.unauthorized(nil), .forbidden(nil)]
        return Model(
            name: "app.vynqTalk", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded",
                "PasswordSignIn.Phase.pendingApproval": "Everday's", "PasswordSignIn.Phase.rateLimited": "VynqTalk documents no 429",
                "Registration.Phase.awaitingVerification": "signup signs in", "Registration.Phase.pendingApproval": "idem",
                "RealtimeConnection.Phase.rejected": "a rejected connection signs out at once (no refresh token), within the same step",
            ], timeHorizon: .zero,
            menu: Menus.app(entries, then: connection) { .session(.session($0)) })
    }

    static func everdayApp() -> Model<EverdayApp> {
        var configured = Apps.everday(refresh: Models.modelRefresh(retryLimit: 2), serverSignOutAttempts: 1, accountDeletion: false)
        configured.session.policy.revocationRounds = Models.modelRevocationRounds
        let app = configured
        let entries =
            route(Menus.registration([.usernamePassword]), app) + route(Menus.passwordSignIn(.username), app)
            + route(Menus.passwordReset(.emailedToken), app)
        var replies = ReplyCatalogue(
            grants: [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)],
            registration: [.pendingApproval], accessLifetime: Models.tokenLifetime)
        replies.failures = Models.appFailures + [.pendingApproval(nil)]
        replies.passwordStepFailures = [.incorrectPassword(nil)]
        replies.passwordChangeRevokesRefreshTokens = true
        replies.passwordStepAnswersUser = false
        return Model(
            name: "app.everday", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded", "Registration.Phase.registered": "approval-gated",
                "Registration.Phase.awaitingVerification": "approval-gated", "PasswordReset.Phase.linkSent": "Hero365's",
                "PasswordReset.Phase.signedIn": "Everday's reset does not sign in",
            ], timeHorizon: .zero, maxInFlight: 4, maxStale: 1, endsServerSessions: true,
            menu: Menus.app(entries) { .session($0) })
    }

    static func subspaceApp() -> Model<SubspaceApp> {
        let app = Apps.subspace(refresh: Models.modelRefreshWhenGranted(retryLimit: 3))
        let entries =
            route(Menus.registration([.nameEmailPassword]), app) + route(Menus.passwordSignIn(.email), app) + route(Menus.nativeSignIn, app)
        var replies = ReplyCatalogue(grants: [.init(), .init(withRefreshToken: true)], accessLifetime: Models.tokenLifetime)
        replies.failures = Models.appFailures + [.server(status: 500, nil)]
        return Model(
            name: "app.subspace", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "Registration.Phase.awaitingVerification": "register signs in", "Registration.Phase.pendingApproval": "idem",
                "OAuthSignIn.Phase.fetchingURL": "native sign-in only: no provider hands out a URL",
                "OAuthSignIn.Phase.awaitingCallback": "idem",
            ], timeHorizon: .zero, maxInFlight: 4, maxStale: 1,
            menu: Menus.app(entries) { .session($0) })
    }

    static func hero365App() -> Model<Hero365App> {
        let otp = OneTimeCodeSignIn(channel: .phone, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)
        var configured = Apps.hero365(otp: otp, refresh: Models.modelRefresh(retryLimit: 2))
        configured.session.policy.revokesOnLogout = false  // Explored by session.hero365 and session.owing.
        let app = configured
        let entries =
            route(Menus.registration([.emailPassword, .phonePassword]), app) + route(Menus.passwordSignIn(.emailOrPhone), app)
            + route(Menus.oneTimeCode(.phone), app)
        let reset = route(Menus.passwordReset(.emailLink), app)
        var replies = ReplyCatalogue(
            grants: [.init(withRefreshToken: true)], registration: [.verificationRequired], accessLifetime: Models.tokenLifetime)
        replies.failures = [.unauthorized(nil), .network]
        replies.revocationEndsEverySession = true  // `/revoke-tokens/{user_id}`
        return Model(
            name: "app.hero365", machine: app, replies: replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded", "PasswordSignIn.Phase.pendingApproval": "Everday's",
                "Registration.Phase.registered": "sign-up asks to verify", "Registration.Phase.pendingApproval": "idem",
                "PasswordReset.Phase.awaitingProof": "recovery is a link", "PasswordReset.Phase.resetting": "idem",
                "PasswordReset.Phase.completed": "idem", "PasswordReset.Phase.signedIn": "idem",
                "PasswordReset.Phase.requestingAgain": "a link is requested afresh",
                "PasswordSignIn.Phase.rateLimited": "no 429 in this model (explored by passwordSignIn and session.hero365)",
            ],
            codes: CodeRules(cooldown: otp.resendCooldown, lifetime: otp.codeLifetime, maxAttempts: otp.maxAttempts), timeHorizon: .zero,
            maxInFlight: 1, maxStale: 1, endsServerSessions: false
        ) { snapshot in
            entries + route(Menus.oauth(in: snapshot), app) + reset + Menus.session(in: snapshot, callers: 1).map { .session($0) }
        }
    }

    static func openIDConnectApp() -> Model<OpenIDConnectApp> {
        var configured = Apps.openIDConnect(
            OpenIDModel.signIn, device: OpenIDModel.deviceSignIn, refresh: Models.modelRefresh(retryLimit: 2), serverSignOutAttempts: 2)
        configured.session.policy.revocationRounds = Models.modelRevocationRounds
        let app = configured
        var model = Model(
            name: "app.openIDConnect", machine: app, replies: OpenIDModel.replies, relaunches: true,
            unreachableByDesign: [
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded",
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded",
            ], timeHorizon: .zero, maxInFlight: 4, maxStale: 1, endsServerSessions: true, historyHorizon: OpenIDModel.devicePollingHorizon
        ) { snapshot in
            route(OpenIDModel.intents(in: snapshot), app) + route(OpenIDModel.deviceIntents, app)
                + Menus.session(in: snapshot, callers: 1).map { .session($0) }
        }
        model.replies.revocationAttempts = 2  // Its policy's two sends a round of the server sign-out.
        model.invariants.append(Catalogue.idTokenForThisClient(issuer: OpenIDModel.issuer, clientID: OpenIDModel.clientID))
        return model
    }

    static let aw = ReplyCatalogue(grants: [.init(passwordSet: false), .init(passwordSet: true), .init(passwordSet: nil)])

    static func codeRegistration() -> Model<CodeRegistration> {
        let machine = CodeRegistration(resendCooldown: .seconds(60))
        return Model(
            name: "codeRegistration", machine: machine, replies: aw, finalCases: ["registered"], codes: CodeRules(cooldown: .seconds(60)),
            timeHorizon: .zero
        ) { _ in Menus.codeRegistration }
    }

    static func oneTimeCode(_ channel: OneTimeCodeSignIn.Channel) -> Model<OneTimeCodeSignIn> {
        let machine = OneTimeCodeSignIn(channel: channel, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)
        return Model(
            name: "oneTimeCodeSignIn.\(channel == .email ? "email" : "phone")", machine: machine,
            replies: ReplyCatalogue(grants: [.init(withRefreshToken: channel == .phone)]), finalCases: ["signedIn"],
            codes: CodeRules(cooldown: .seconds(30), lifetime: .seconds(300), maxAttempts: 3), timeHorizon: .zero
        ) { _ in Menus.oneTimeCode(channel) }
    }

    static func passwordSignIn() -> Model<PasswordSignIn> {
        Model(
            name: "passwordSignIn", machine: PasswordSignIn(identifiers: .username),
            replies: ReplyCatalogue(grants: [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)]),
            finalCases: ["signedIn"], timeHorizon: .zero
        ) { _ in Menus.passwordSignIn(.username) }
    }

    static func registration() -> Model<Registration> {
        let forms: [Registration.Form] = [.nameEmailPassword, .phonePassword, .usernamePassword]
        return Model(
            name: "registration", machine: Registration(forms: forms),
            replies: ReplyCatalogue(registration: [.session, .verificationRequired, .pendingApproval]), finalCases: ["registered"],
            timeHorizon: .zero
        ) { _ in Menus.registration(forms) }
    }

    static func passwordReset(_ style: PasswordReset.Style) -> Model<PasswordReset> {
        let name =
            switch style {
            case .emailCodeWithAutoLogin: "passwordReset.autoLogin"
            case .emailedToken: "passwordReset.token"
            case .emailLink: "passwordReset.link"
            }
        let unreachable: [String: String] =
            switch style {
            case .emailCodeWithAutoLogin:
                ["PasswordReset.Phase.linkSent": "links are Hero365's", "PasswordReset.Phase.completed": "this reset signs in"]
            case .emailedToken:
                ["PasswordReset.Phase.linkSent": "links are Hero365's", "PasswordReset.Phase.signedIn": "Everday's reset does not sign in"]
            case .emailLink:
                [
                    "PasswordReset.Phase.awaitingProof": "the link is completed outside the app",
                    "PasswordReset.Phase.resetting": "idem", "PasswordReset.Phase.completed": "idem",
                    "PasswordReset.Phase.signedIn": "idem", "PasswordReset.Phase.requestingAgain": "a link is requested afresh",
                ]
            }
        return Model(
            name: name, machine: PasswordReset(style: style, resendCooldown: .seconds(60)), replies: aw, finalCases: ["signedIn"],
            unreachableByDesign: unreachable, codes: CodeRules(cooldown: .seconds(60)), timeHorizon: .zero
        ) { _ in Menus.passwordReset(style) }
    }

    static func oauth() -> Model<OAuthSignIn> {
        Model(name: "oauthSignIn", machine: OAuthSignIn(), replies: ReplyCatalogue(), finalCases: ["signedIn"], timeHorizon: .zero) {
            Menus.oauth(in: $0)
        }
    }

    static func openIDSignIn() -> Model<OpenIDSignIn> {
        var model = Model(
            name: "openIDSignIn", machine: OpenIDModel.signIn, replies: OpenIDModel.replies, finalCases: ["signedIn"], timeHorizon: .zero
        ) {
            OpenIDModel.intents(in: $0)
        }
        model.invariants.append(Catalogue.idTokenForThisClient(issuer: OpenIDModel.issuer, clientID: OpenIDModel.clientID))
        return model
    }

    static func deviceSignIn() -> Model<DeviceSignIn> {
        var model = Model(
            name: "deviceSignIn", machine: OpenIDModel.deviceSignIn, replies: OpenIDModel.replies, finalCases: ["signedIn"],
            timeHorizon: .zero, historyHorizon: OpenIDModel.devicePollingHorizon
        ) { _ in OpenIDModel.deviceIntents }
        model.invariants.append(Catalogue.idTokenForThisClient(issuer: OpenIDModel.issuer, clientID: OpenIDModel.clientID))
        return model
    }
}

@Suite("Models derived from the composition")
struct DerivedModelTests {
    /// Expects `derived` to be `reference` in everything the explorer reads: the same menu in every
    /// world of a 1,500-step seeded walk (the reference's bounds raised to 4 and 2, so the walk
    /// meets pending calls and stale answers), the same answers, unreachable cases (by key),
    /// final cases, code rules, relaunches, bounds, horizons and invariants.
    func expectSame<M: LifecycleModel, N: LifecycleModel>(_ derived: M, _ reference: N, seed: UInt64 = 0xD371)
    where M.Machine == N.Machine {
        #expect(derived.name == reference.name)
        #expect(derived.replies == reference.replies, "\(derived.name)")
        #expect(Set(derived.unreachableByDesign.keys) == Set(reference.unreachableByDesign.keys), "\(derived.name)")
        #expect(derived.finalCases == reference.finalCases, "\(derived.name)")
        #expect(derived.codeRules == reference.codeRules, "\(derived.name)")
        #expect(derived.relaunches == reference.relaunches, "\(derived.name)")
        #expect(derived.maxInFlight == reference.maxInFlight && derived.maxStale == reference.maxStale, "\(derived.name)")
        #expect(derived.timeHorizon == reference.timeHorizon && derived.historyHorizon == reference.historyHorizon, "\(derived.name)")
        #expect(derived.endsServerSessions == reference.endsServerSessions, "\(derived.name)")
        #expect(derived.invariants.map(\.name) == reference.invariants.map(\.name), "\(derived.name)")
        let walked = BoundedModel(reference, inFlight: 4, stale: 2)
        let environment = Environment(model: walked)
        var random = SplitMix64(seed: seed)
        var snapshot = environment.initial
        var worlds = 0
        for _ in 0..<1_500 {
            let expected = reference.intents(in: snapshot)
            let offered = derived.intents(in: snapshot)
            #expect(offered == expected, "\(derived.name) at \(snapshot.casePath)")
            if offered != expected { return }
            worlds += 1
            let menu = environment.menu(snapshot)
            guard let choice = Fuzzer.pick(in: menu, &random), let move = menu.move(choice) else { break }
            snapshot = environment.step(move, from: snapshot).after
        }
        #expect(worlds > 100, "\(derived.name)")
    }

    @Test("each app's derived model is its model written by hand")
    func apps() {
        expectSame(Models.anonymousWallApp(), HandWritten.anonymousWallApp())
        expectSame(Models.vynqTalkApp(), HandWritten.vynqTalkApp())
        expectSame(Models.everdayApp(), HandWritten.everdayApp())
        expectSame(Models.subspaceApp(), HandWritten.subspaceApp())
        expectSame(Models.hero365App(), HandWritten.hero365App())
        expectSame(Models.openIDConnectApp(), HandWritten.openIDConnectApp())
    }

    @Test("each entry flow's derived model is its model written by hand")
    func lifecycles() {
        expectSame(Models.codeRegistration(), HandWritten.codeRegistration())
        expectSame(Models.oneTimeCode(.email), HandWritten.oneTimeCode(.email))
        expectSame(Models.oneTimeCode(.phone), HandWritten.oneTimeCode(.phone))
        expectSame(Models.passwordSignIn(), HandWritten.passwordSignIn())
        expectSame(Models.registration(), HandWritten.registration())
        for style in [PasswordReset.Style.emailCodeWithAutoLogin, .emailedToken, .emailLink] {
            expectSame(Models.passwordReset(style), HandWritten.passwordReset(style))
        }
        expectSame(Models.oauth(), HandWritten.oauth())
        expectSame(Models.openIDSignIn(), HandWritten.openIDSignIn())
        expectSame(Models.deviceSignIn(), HandWritten.deviceSignIn())
    }

    @Test(
        "the session and realtime models keep their door menus written by hand, and derive their unreachable cases: those written by hand before"
    )
    func sessionUnreachableCases() {
        let noRefresh: Set = [
            "SessionLifecycle.Refresh.refreshing", "SessionLifecycle.Refresh.backingOff", "SessionLifecycle.Phase.passwordChangeRequired",
        ]
        let door: Set = ["PasswordSignIn.Phase.pendingApproval", "PasswordSignIn.Phase.rateLimited"]
        let written: [(Models.SessionBackend, Set<String>)] = [
            (.anonymousWall, noRefresh.union(["SessionLifecycle.Phase.restoring", "SessionLifecycle.Refresh.offline"]).union(door)),
            // Written by hand it left out `passwordSetupRequired`, which VynqTalk's policy never demands.
            (.vynqTalk, noRefresh.union(["SessionLifecycle.Phase.passwordSetupRequired"]).union(door)),
            (.everday, door.union(["SessionLifecycle.Phase.passwordSetupRequired"])),
            (
                .subspace,
                door.union(["SessionLifecycle.Phase.passwordSetupRequired", "SessionLifecycle.Phase.passwordChangeRequired"])
            ),
            (.hero365, door.union(["SessionLifecycle.Phase.passwordSetupRequired", "SessionLifecycle.Phase.passwordChangeRequired"])),
        ]
        for (backend, keys) in written {
            #expect(Set(Models.session(backend).unreachableByDesign.keys) == keys, "\(backend)")
        }
        let realtime = Set(Models.realtime().unreachableByDesign.keys)
        #expect(
            realtime
                == [
                    "SessionLifecycle.Refresh.refreshing", "SessionLifecycle.Refresh.backingOff", "SessionLifecycle.Phase.passwordSetupRequired",
                    "SessionLifecycle.Phase.passwordChangeRequired", "PasswordSignIn.Phase.pendingApproval", "PasswordSignIn.Phase.rateLimited",
                    "RealtimeConnection.Phase.rejected",
                ])
    }

    @Test("every typed case name is a declared case of its phase, in order")
    func caseNames() {
        func check<Name: PhaseCaseName>(_: Name.Type) {
            #expect(Name.allCases.map(\.rawValue) == Name.Phase.declaredCases, "\(Name.Phase.self)")
        }
        check(CodeRegistration.Phase.Case.self)
        check(OneTimeCodeSignIn.Phase.Case.self)
        check(PasswordSignIn.Phase.Case.self)
        check(Registration.Phase.Case.self)
        check(PasswordReset.Phase.Case.self)
        check(OAuthSignIn.Phase.Case.self)
        check(OpenIDSignIn.Phase.Case.self)
        check(DeviceSignIn.Phase.Case.self)
        check(SessionLifecycle.Phase.Case.self)
        check(SessionLifecycle.Refresh.Case.self)
        check(RealtimeConnection.Phase.Case.self)
        #expect(UnreachableCase(SessionLifecycle.Refresh.Case.refreshing, "").key == "SessionLifecycle.Refresh.refreshing")
    }

    @Test("code rules: the shortest cooldown; a lifetime and a bound only when every flow whose codes are submitted has one")
    func codeRules() {
        let otp = CodeSending(cooldown: .seconds(30), submitted: true, lifetime: .seconds(300), maxAttempts: 3)
        let link = CodeSending(cooldown: .seconds(60), submitted: false)
        let registration = CodeSending(cooldown: .seconds(45), submitted: true)
        #expect(CodeSending.rules([]) == nil)
        #expect(CodeSending.rules([otp, link]) == CodeRules(cooldown: .seconds(30), lifetime: .seconds(300), maxAttempts: 3))
        #expect(CodeSending.rules([link, registration, otp]) == CodeRules(cooldown: .seconds(30)))
        #expect(CodeSending.rules([link]) == CodeRules(cooldown: .seconds(60)))
    }

    @Test("the unreachable cases follow the server's answers: a 429 makes rateLimited reachable, a pending approval pendingApproval")
    func unreachableFollowsReplies() {
        let plain = Model(
            of: Apps.passwordSession(identifiers: .email, policy: SessionPolicy(refresh: .none, restore: .fetchCurrentUser)), name: "plain"
        ) {
            $0.failures = [.network]
        }
        #expect(plain.unreachableByDesign["PasswordSignIn.Phase.rateLimited"] != nil)
        #expect(plain.unreachableByDesign["PasswordSignIn.Phase.pendingApproval"] != nil)
        #expect(plain.unreachableByDesign["SessionLifecycle.Refresh.refreshing"] != nil)
        let full = Model(
            of: Apps.passwordSession(
                identifiers: .email, policy: SessionPolicy(refresh: Models.modelRefresh(retryLimit: 1), restore: .fetchCurrentUser)), name: "full",
            unreachable: [UnreachableCase(SessionLifecycle.Phase.Case.restoring, "launched signed out")])
        #expect(full.unreachableByDesign["PasswordSignIn.Phase.rateLimited"] == nil)
        #expect(full.unreachableByDesign["PasswordSignIn.Phase.pendingApproval"] == nil)
        #expect(full.unreachableByDesign["SessionLifecycle.Refresh.refreshing"] == nil)
        #expect(full.unreachableByDesign["SessionLifecycle.Phase.restoring"] == "launched signed out")
        #expect(full.replies.grants == [.init(withRefreshToken: true)])
    }
}
