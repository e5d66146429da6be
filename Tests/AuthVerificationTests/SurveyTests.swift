import AuthCore
import Testing
@testable import AuthVerification

/// The survey walks structs field by field, by hand. A field added to one of them and not to its
/// `Surveyable` conformance would make two different worlds look alike to the explorer, so these
/// tests pin each struct's field count: when one fails, update the conformance, then the count.
@Suite("Survey")
struct SurveyTests {
    static let credentials = Credentials(
        accessToken: AccessToken("tok-at-1"), refreshToken: RefreshToken("tok-rt-1"), expiresAt: .seconds(5), user: UserProfile(id: "u1"))
    static let grant = Grant(accessToken: AccessToken("tok-at-1"), user: UserProfile(id: "u1"))

    struct Shape: CustomTestStringConvertible, Sendable {
        var name: String
        var value: any Sendable
        var surveyedFields: Int
        var testDescription: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "Grant", value: grant, surveyedFields: 6),
        Shape(name: "Credentials", value: credentials, surveyedFields: 5),
        // passwordChangeRequired and isNewUser share one number.
        Shape(name: "UserProfile", value: UserProfile(id: "u1"), surveyedFields: 9),
        Shape(name: "TokenRefresh", value: TokenRefresh(accessToken: AccessToken("a"), refreshToken: nil), surveyedFields: 4),
        Shape(name: "Bearer", value: Bearer(token: AccessToken("a"), userID: "u1"), surveyedFields: 2),
        Shape(
            name: "RegistrationDetails",
            value: RegistrationDetails(identifier: .username(try! Username("kid")), password: try! Password(PasswordInput("pw-valid-secret"))),
            surveyedFields: 5),
        Shape(name: "SessionLifecycle.Active", value: SessionLifecycle.Active(credentials: credentials), surveyedFields: 5),
        Shape(
            name: "SessionLifecycle.Restoring",
            value: SessionLifecycle.Restoring(credentials: credentials, request: RequestID(1), asking: .currentUser),
            surveyedFields: 4),
        Shape(name: "SessionLifecycle.PasswordStep", value: SessionLifecycle.PasswordStep(credentials: credentials), surveyedFields: 2),
        Shape(name: "PendingCall", value: PendingCall(id: IntentID(1), stage: .waitingForToken, replayed: false), surveyedFields: 3),
        Shape(
            name: "CodeChallenge",
            value: CodeChallenge(destination: .email(try! Email("a@b.edu")), expiresAt: .seconds(1), resendAt: .seconds(1), attemptsLeft: 1),
            surveyedFields: 4),
        Shape(name: "Exchange", value: Exchange(id: RequestID(1), request: .oauthURL(.google), opened: false), surveyedFields: 3),
        Shape(name: "PendingTimer", value: PendingTimer(id: .codeExpiry, at: .seconds(1)), surveyedFields: 2),
        Shape(name: "History (its boxed fields)", value: History().storage.fields, surveyedFields: 11),
        Shape(
            name: "DevicePoll",
            value: DevicePoll(
                deviceCode: DeviceCode("d"), prompt: UserCodePrompt(userCode: "u", verificationURI: "v"), expiresAt: .seconds(1),
                interval: .seconds(5)), surveyedFields: 4),
        Shape(name: "LifecycleState", value: LifecycleState(phase: SessionLifecycle.Phase.signedOut), surveyedFields: 2),
        Shape(
            name: "FlowContext (the counter is left out on purpose)", value: FlowContext(), surveyedFields: 6),
        Shape(
            name: "Waiter (the endpoint, which the network holds with the request, is left out on purpose)",
            value: Waiter(request: RequestID(1), intent: IntentID(1)), surveyedFields: 3),
        Shape(name: "CodeIssue", value: CodeIssue(destination: "d", issuedAt: .seconds(1), verifications: 0), surveyedFields: 3),
        Shape(name: "CallSends", value: CallSends(call: IntentID(1), sends: 1), surveyedFields: 2),
        Shape(name: "RoundAttempts", value: RoundAttempts(refreshToken: RefreshToken("rt"), revoking: false, left: 2), surveyedFields: 3),
        Shape(name: "SessionWithRealtime.Phase", value: SessionWithRealtime.Phase(session: .signedOut, connection: .idle), surveyedFields: 2),
    ]

    @Test("every surveyed struct has exactly the fields its conformance walks", arguments: shapes)
    func fieldsAreAllSurveyed(_ shape: Shape) {
        #expect(Mirror(reflecting: shape.value).children.count == shape.surveyedFields, "update \(shape.name)'s Surveyable conformance")
    }

    static func fingerprint(_ world: World<SessionLifecycle>) -> Fingerprint {
        var world = world
        return Survey.of(&world, horizon: .seconds(600), historyHorizon: .seconds(600), reduction: .symmetric, settle: { _, _ in }).fingerprint
    }

    static func world(_ phase: SessionLifecycle.Phase, next: UInt64 = 1, now: Instant = .seconds(100)) -> World<SessionLifecycle> {
        World(state: LifecycleState(phase: phase, context: FlowContext(next: next)), now: now)
    }

    @Test("worlds that differ only by the names of request ids and tokens share a fingerprint")
    func symmetry() {
        let one = Credentials(accessToken: AccessToken("tok-at-1"), refreshToken: RefreshToken("tok-rt-1"), user: UserProfile(id: "u1"))
        let two = Credentials(accessToken: AccessToken("tok-at-7"), refreshToken: RefreshToken("tok-rt-9"), user: UserProfile(id: "u1"))
        let a = Self.world(.active(SessionLifecycle.Active(credentials: one, refresh: .refreshing(RequestID(3), attempt: 0))), next: 4)
        let b = Self.world(.active(SessionLifecycle.Active(credentials: two, refresh: .refreshing(RequestID(12), attempt: 0))), next: 40)
        #expect(Self.fingerprint(a) == Self.fingerprint(b))
    }

    @Test(
        "worlds that differ in anything else do not",
        arguments: [
            SessionLifecycle.Phase.active(SessionLifecycle.Active(credentials: credentials, refresh: .refreshing(RequestID(3), attempt: 1))),
            .active(SessionLifecycle.Active(credentials: credentials, refresh: .backingOff(retryAt: .seconds(101), attempt: 0))),
            .active(SessionLifecycle.Active(credentials: credentials)),
            .active(
                SessionLifecycle.Active(credentials: credentials, calls: [PendingCall(id: IntentID(1), stage: .waitingForToken, replayed: false)])),
        ])
    func distinctWorlds(_ other: SessionLifecycle.Phase) {
        let base = Self.world(.active(SessionLifecycle.Active(credentials: Self.credentials, refresh: .refreshing(RequestID(3), attempt: 0))))
        #expect(Self.fingerprint(base) != Self.fingerprint(Self.world(other)))
    }

    @Test(
        "plain values of AuthCore's types are told apart by kind and text within each type, and equal ones agree (they are mixed as text, not hashed)"
    )
    func plainValues() throws {
        let email = try Email("kid@example.edu"), other = try Email("kim@example.edu")
        let phone = try PhoneNumber("+12345678900"), username = try Username("kid")
        // One list per type: a position in a world always holds one type, so only values of one
        // type must be told apart.
        let groups: [[(String, (inout Survey) -> Void)]] = [
            [("email", { $0.plain(email) }), ("other email", { $0.plain(other) })],
            [("no email", { $0.plain(Optional<Email>.none) }), ("some email", { $0.plain(Optional(email)) })],
            [("no name", { $0.plain(Optional<PersonName>.none) }), ("name", { $0.plain(Optional(try! PersonName("Kid"))) })],
            [("call 1", { $0.plain(IntentID(1)) }), ("call 2", { $0.plain(IntentID(2)) })],
            [("register", { $0.plain(CodePurpose.register) }), ("login", { $0.plain(CodePurpose.login) })],
            [
                ("sign in by email", { $0.plain(SignInIdentifier.email(email)) }),
                ("sign in by other email", { $0.plain(SignInIdentifier.email(other)) }),
                ("sign in by username", { $0.plain(SignInIdentifier.username(username)) }),
                ("sign in by phone", { $0.plain(SignInIdentifier.phone(phone)) }),
            ],
            [("code to email", { $0.plain(CodeDestination.email(email)) }), ("code to phone", { $0.plain(CodeDestination.phone(phone)) })],
            [
                ("reset by email", { $0.plain(ResetIdentifier.email(email)) }),
                ("reset by the same text", { $0.plain(ResetIdentifier.usernameOrEmail(email.rawValue)) }),
            ],
            [
                ("cooldown to register", { $0.plain(CodeTarget.destination(.email(email), .register)) }),
                ("cooldown to log in", { $0.plain(CodeTarget.destination(.email(email), .login)) }),
                ("cooldown to a phone", { $0.plain(CodeTarget.destination(.phone(phone), .login)) }),
                ("cooldown to reset", { $0.plain(CodeTarget.reset(.email(email))) }),
            ],
        ]
        for group in groups {
            let digests = group.map { Survey.digest($0.1) }
            for (index, digest) in digests.enumerated() {
                #expect(Survey.digest(group[index].1) == digest, "\(group[index].0) digests the same each time")
                for other in digests.indices where other != index {
                    #expect(digests[other] != digest, "\(group[index].0) and \(group[other].0)")
                }
            }
        }
    }

    @Test("every field of the user's profile is part of the fingerprint (text is mixed byte by byte)")
    func profileFields() {
        func world(_ user: UserProfile) -> World<SessionLifecycle> {
            Self.world(
                .active(SessionLifecycle.Active(credentials: Credentials(accessToken: AccessToken("tok-at-1"), refreshToken: nil, user: user))))
        }
        let base = UserProfile(id: "u1", email: "a@b.edu", phone: nil, name: "Al", passwordSet: nil, passwordChangeRequired: false)
        var variants: [UserProfile] = []
        for change in 0..<10 {
            var user = base
            switch change {
            case 0: user.id = "u2"
            case 1: user.email = "a@b.eduX"
            case 2: user.email = nil
            case 3: user.phone = ""
            case 4: user.name = "Al\u{0}"
            case 5: user.passwordSet = false
            case 6: user.isNewUser = true
            case 7: user.isNewUser = false
            case 8:
                user.isNewUser = true
                user.passwordChangeRequired = true
            default: user.passwordChangeRequired = true
            }
            variants.append(user)
        }
        let fingerprints = Set(([base] + variants).map { Self.fingerprint(world($0)) })
        #expect(fingerprints.count == variants.count + 1)
    }

    @Test("one token in two places is not the same world as two tokens")
    func sharingIsKept() {
        var twice = Self.credentials
        twice.refreshToken = RefreshToken("tok-at-1")  // the same value as the access token
        #expect(
            Self.fingerprint(Self.world(.active(SessionLifecycle.Active(credentials: twice))))
                != Self.fingerprint(Self.world(.active(SessionLifecycle.Active(credentials: Self.credentials)))))
    }

    @Test("instants are relative to now; those further back than the horizon are alike, those ahead stay exact")
    func instants() {
        var timeless = Self.credentials
        timeless.expiresAt = nil
        let soon = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(110), attempt: 0))), now: .seconds(100))
        let later = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(1010), attempt: 0))), now: .seconds(1000))
        #expect(Self.fingerprint(soon) == Self.fingerprint(later))
        let old = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(1), attempt: 0))), now: .seconds(5000))
        let older = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(2), attempt: 0))), now: .seconds(9000))
        #expect(Self.fingerprint(old) == Self.fingerprint(older))
        #expect(Self.fingerprint(soon) != Self.fingerprint(old))
        let ahead = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(86_400), attempt: 0))), now: .seconds(100))
        let furtherAhead = Self.world(
            .active(SessionLifecycle.Active(credentials: timeless, refresh: .backingOff(retryAt: .seconds(86_370), attempt: 0))), now: .seconds(100))
        #expect(Self.fingerprint(ahead) != Self.fingerprint(furtherAhead), "instants ahead stay exact: their order decides which timer fires first")
    }

    @Test("the code cooldowns the context keeps are part of the fingerprint (they outlive the flow that set them)")
    func cooldownsAreSurveyed() throws {
        let quiet = Self.world(.signedOut)
        var cooling = quiet
        cooling.state.context.codeSent(to: .reset(.email(try Email("a@b.edu"))), resendAt: .seconds(130))
        var otherTarget = quiet
        otherTarget.state.context.codeSent(to: .reset(.email(try Email("c@d.edu"))), resendAt: .seconds(130))
        #expect(Self.fingerprint(quiet) != Self.fingerprint(cooling))
        #expect(Self.fingerprint(cooling) != Self.fingerprint(otherTarget))
    }

    @Test("the history keeps past instants exact up to its own horizon while the state forgets them at its own")
    func historyHasItsOwnHorizon() {
        func fingerprint(issuedAt: Instant, sessionExpiry: Instant) -> Fingerprint {
            var credentials = Self.credentials
            credentials.expiresAt = sessionExpiry
            var world = Self.world(.active(SessionLifecycle.Active(credentials: credentials)), now: .seconds(1000))
            world.history.codes = [CodeIssue(destination: "phone:+12345678900 login", issuedAt: issuedAt, verifications: 0)]
            return Survey.of(&world, horizon: .zero, historyHorizon: .seconds(300), reduction: .symmetric, settle: { _, _ in }).fingerprint
        }
        #expect(
            fingerprint(issuedAt: .seconds(900), sessionExpiry: .seconds(10)) == fingerprint(issuedAt: .seconds(900), sessionExpiry: .seconds(500)))
        #expect(
            fingerprint(issuedAt: .seconds(900), sessionExpiry: .seconds(10)) != fingerprint(issuedAt: .seconds(800), sessionExpiry: .seconds(10)))
        #expect(
            fingerprint(issuedAt: .seconds(100), sessionExpiry: .seconds(10)) == fingerprint(issuedAt: .seconds(200), sessionExpiry: .seconds(10)))
    }

    @Test(
        "a history instant exactly its horizon back is 'long ago' under the reduction (the code invariants' `<` and `>=` answer alike there), exact in the plain search; a millisecond later it is exact in both"
    )
    func historyHorizonIsInclusive() {
        func fingerprint(issuedAt milliseconds: Int64, _ reduction: Reduction = .symmetric) -> Fingerprint {
            var world = Self.world(.signedOut, now: .seconds(1000))
            world.history.codes = [CodeIssue(destination: "email:a@b.edu:register", issuedAt: Instant(milliseconds: milliseconds), verifications: 0)]
            return Survey.of(&world, horizon: .zero, historyHorizon: .seconds(60), reduction: reduction, settle: { _, _ in }).fingerprint
        }
        let longAgo = fingerprint(issuedAt: 100_000)
        #expect(fingerprint(issuedAt: 940_000) == longAgo, "issued exactly 60 s back")
        #expect(fingerprint(issuedAt: 939_999) == longAgo)
        #expect(fingerprint(issuedAt: 940_001) != longAgo, "59.999 s back: a cooldown of 60 s still runs")
        let plainLongAgo = fingerprint(issuedAt: 100_000, .plain)
        #expect(fingerprint(issuedAt: 940_000, .plain) != plainLongAgo, "the plain search keeps exactly 60 s back exact")
        #expect(fingerprint(issuedAt: 939_999, .plain) == plainLongAgo)
        #expect(fingerprint(issuedAt: 940_001, .plain) != plainLongAgo)
    }

    /// The verdict of the code invariant `name` (under `rules`) on a step at t = 1,000 s that sends
    /// `request`, the history holding a code for `destination` sent at `issuedAt` milliseconds.
    static func codeVerdict(
        _ name: String, rules: CodeRules, sending request: APIRequest, codeFor destination: String, issuedAt: Int64
    ) throws -> String? {
        let invariants: [Invariant<SessionLifecycle>] = Catalogue.codeInvariants(rules)
        let invariant = try #require(invariants.first { $0.name == name })
        guard case .step(let check) = invariant.check else {
            Issue.record("\(name) is a step invariant")
            return nil
        }
        let now = Instant(milliseconds: 1_000_000)
        var world = Self.world(.signedOut, now: now)
        world.history.codes = [CodeIssue(destination: destination, issuedAt: Instant(milliseconds: issuedAt), verifications: 0)]
        // Nothing but the request happens: the world after is the world before. The check reads
        // the world, not its fingerprint, so the survey's horizons do not matter here.
        let snapshot = Snapshot(world, horizon: .zero, historyHorizon: .zero, reduction: .symmetric)
        let move = Move<SessionLifecycle>(choice: .timer(0), event: .tick(now), key: nil)
        return check(Transition(before: snapshot, move: move, effects: [.send(RequestID(1), request)], after: snapshot, answered: nil))
    }

    @Test(
        "the cooldown invariant judges a new code alike for a code sent exactly its cooldown back and long ago, and refuses one a millisecond younger"
    )
    func cooldownAnswersAlikeAtTheHorizon() throws {
        let destination = "email:a@b.edu:register"
        let resend = APIRequest.sendEmailCode(try Email("a@b.edu"), .register)
        #expect(resend.codeSentTo == destination)
        func verdict(issuedAt milliseconds: Int64) throws -> String? {
            try Self.codeVerdict(
                "a new code only after the cooldown", rules: CodeRules(cooldown: .seconds(60)), sending: resend, codeFor: destination,
                issuedAt: milliseconds)
        }
        #expect(try verdict(issuedAt: 940_000) == nil, "sent exactly 60 s back: the cooldown is over")
        #expect(try verdict(issuedAt: 100_000) == nil)
        #expect(try verdict(issuedAt: 940_001) != nil, "sent 59.999 s back: within the cooldown")
    }

    @Test(
        "the lifetime invariant judges a code submitted exactly its lifetime after it was sent expired, as one sent long ago, and one a millisecond younger alive"
    )
    func lifetimeAnswersAlikeAtTheHorizon() throws {
        let destination = "phone:+12345678900:login"
        let submit = APIRequest.signInWithPhoneCode(try PhoneNumber("+12345678900"), try VerificationCode(CodeInput("123456")))
        #expect(submit.codeVerifiedFor == destination)
        func verdict(issuedAt milliseconds: Int64) throws -> String? {
            try Self.codeVerdict(
                "a code is submitted only within its lifetime", rules: CodeRules(cooldown: .seconds(30), lifetime: .seconds(300)),
                sending: submit, codeFor: destination, issuedAt: milliseconds)
        }
        #expect(try verdict(issuedAt: 700_000) != nil, "sent exactly 300 s back: expired")
        #expect(try verdict(issuedAt: 100_000) != nil)
        #expect(try verdict(issuedAt: 700_001) == nil, "sent 299.999 s back: still valid")
    }
}

@Suite("Finding a phase inside a composition")
struct FirstPhaseTests {
    typealias Phase = VynqTalkApp.Phase
    static let product = SessionWithRealtime.Phase(session: .signedOut, connection: .idle)

    @Test("a product answers with its session half first, then its connection half, and with itself")
    func product() {
        let phase: Phase = .signedIn(Self.product)
        #expect(phase.firstPhase(SessionLifecycle.Phase.self) == .signedOut)
        #expect(phase.firstPhase(RealtimeConnection.Phase.self) == .idle)
        #expect(phase.firstPhase(SessionWithRealtime.Phase.self) == Self.product)
        #expect(phase.firstPhase(Phase.self) == phase, "the outermost match is the phase itself")
    }

    @Test("the active side of a nest of flows is searched, the other never")
    func activeSide() throws {
        let signingIn = try #require(Apps.vynqTalk().embed(PasswordSignIn.Phase.enteringCredentials))
        #expect(signingIn.firstPhase(PasswordSignIn.Phase.self) == .enteringCredentials)
        #expect(signingIn.firstPhase(Registration.Phase.self) == nil)
        #expect(signingIn.firstPhase(SessionLifecycle.Phase.self) == nil)
    }

    /// A product of two phases written as an embedding app might: it lists its inner phases
    /// and relies on the protocol's default search.
    struct Pair: ExplorablePhase {
        static let declaredCases: [String] = []
        var left: PasswordSignIn.Phase
        var right: RealtimeConnection.Phase
        var caseName: StaticString { "" }
        var innerPhases: [any ExplorablePhase] { [left, right] }
        func survey(_ s: inout Survey) {
            s.visit(left)
            s.visit(right)
        }
    }

    @Test("a composition of one's own that only lists its inner phases is searched by the default")
    func defaultSearchesInnerPhases() {
        let pair = Pair(left: .enteringCredentials, right: .idle)
        #expect(pair.firstPhase(RealtimeConnection.Phase.self) == .idle)
        #expect(pair.firstPhase(PasswordSignIn.Phase.self) == .enteringCredentials)
        #expect(pair.firstPhase(SessionLifecycle.Phase.self) == nil)
        #expect(firstPhase(RealtimeConnection.Phase.self, in: pair) == .idle)
    }

    @Test("the free function gives the same answer through an existential, and nil for a type not there")
    func throughAny() {
        let phase: Phase = .signedIn(Self.product)
        #expect(firstPhase(RealtimeConnection.Phase.self, in: phase) == .idle)
        #expect(firstPhase(OAuthSignIn.Phase.self, in: phase) == nil)
    }
}

@Suite("Symbolic token names")
struct SymbolNameTests {
    @Test(
        "the index of a symbolic name is read off its bytes: only tok-<kind>-<digits> has one",
        arguments: [
            ("tok-at-1", "at", 1), ("tok-at-12", "at", 12), ("tok-rt-307", "rt", 307), ("tok-at-0", "at", 0),
            ("tok-rt-3", "at", nil), ("tok-at-3", "rt", nil), ("tok-at-", "at", nil), ("tok-at-1x", "at", nil),
            ("tok-at-x1", "at", nil), ("tok-at-١", "at", nil), ("tok_at-1", "at", nil), ("xtok-at-1", "at", nil),
            ("TOK-AT-1", "at", nil), ("", "at", nil), ("tok-at-1\u{301}", "at", nil),
        ] as [(String, String, Int?)])
    func index(_ name: String, _ kind: String, _ expected: Int?) {
        let found = kind == "at" ? Symbols.index(name, kind: "at") : Symbols.index(name, kind: "rt")
        #expect(found == expected)
        // The path for strings whose bytes are not stored contiguously reads a copy of them.
        let bytes = Array(name.utf8)
        #expect((kind == "at" ? Symbols.index(bytes: bytes, kind: "at") : Symbols.index(bytes: bytes, kind: "rt")) == expected)
    }

    @Test("a name made for an index reads back as that index, of its kind only")
    func roundTrip() {
        for index in [0, 1, 9, 10, 42, 307, 12_345] {
            #expect(Symbols.index(Symbols.name("at", index), kind: "at") == index)
            #expect(Symbols.index(Symbols.name("rt", index), kind: "rt") == index)
            #expect(Symbols.index(Symbols.name("at", index), kind: "rt") == nil)
        }
    }
}
