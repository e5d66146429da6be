import AuthCore
import AuthVerification
import Testing

/// What a person reads of a state names no module: `signedIn(restoring(…))`, not
/// `signedIn(AuthCore.SessionLifecycle.Phase.restoring(…))`. Checked on every state the first
/// thousand of each app's exploration reaches, with the check as a state invariant.
@Suite("readable descriptions")
struct ReadableDescriptionTests {
    /// An invariant: the state's description (and its debug description) names no module.
    static func namesNoModule<M: Lifecycle>() -> Invariant<M> {
        Invariant(
            "a state's description names no module", source: "issue 27 item 7",
            .state { s in
                let state = s.world.state
                for text in [String(describing: state), String(reflecting: state)] where text.contains("AuthCore.") {
                    return "module-qualified: \(text.prefix(300))"
                }
                return nil
            })
    }

    static func check<Machine: Lifecycle>(_ model: Model<Machine>) -> [Violation] {
        var model = model
        model.invariants = [namesNoModule()]
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 1_000))
        // Not vacuous: the states read include signed-in ones, whose payloads nest the session's phase.
        #expect(report.statesPerCase.keys.contains { $0.hasPrefix("signedIn") }, "\(model.name): no signed-in state among \(report.states)")
        return report.violations
    }

    @Test("every app's states describe themselves without module names")
    func appStates() {
        #expect(Self.check(Models.anonymousWallApp()).isEmpty)
        #expect(Self.check(Models.vynqTalkApp()).isEmpty)
        #expect(Self.check(Models.everdayApp()).isEmpty)
        #expect(Self.check(Models.subspaceApp()).isEmpty)
        #expect(Self.check(Models.hero365App()).isEmpty)
    }

    @Test("the check can fail: a phase enum without a description of its own is module-qualified inside another's payload")
    func checkCanFail() {
        enum Inner: Hashable { case waiting }
        enum Outer: Hashable { case holding(Inner) }
        #expect(String(describing: Outer.holding(.waiting)).contains(".Inner.waiting"))
        #expect(String(describing: AppPhase<Int, SessionLifecycle.Phase>.signedIn(.signedOut)) == "signedIn(signedOut)")
        #expect(String(describing: AppIntent<Int, SessionLifecycle.Intent>.session(.logout)) == "session(logout)")
    }
}

@Suite("readable instants")
struct ReadableInstantTests {
    @Test(
        "a wall-clock instant reads as a UTC date; a model's small instant as its offset",
        arguments: [
            (Instant.seconds(1_000_000), "t+1000000s"), (Instant(milliseconds: 1_500), "t+1500ms"),
            (Instant.seconds(946_684_800), "2000-01-01T00:00:00Z"), (Instant.seconds(951_782_400), "2000-02-29T00:00:00Z"),
            (Instant.seconds(1_795_527_005), "2026-11-24T13:30:05Z"), (Instant(milliseconds: 1_795_527_005_042), "2026-11-24T13:30:05.042Z"),
            (Instant.seconds(4_107_542_399), "2100-02-28T23:59:59Z"),
        ])
    func instants(_ instant: Instant, _ text: String) {
        #expect(instant.description == text)
    }

    @Test("a session restored at a wall-clock time describes its expiry as a date, not a count of seconds")
    func sessionDescription() {
        let credentials = Credentials(
            accessToken: AccessToken("a"), refreshToken: RefreshToken("r"), expiresAt: .seconds(1_795_527_005), user: UserProfile(id: "u1"))
        let text = String(describing: credentials)
        #expect(text.contains("2026-11-24T13:30:05Z"), "\(text)")
        #expect(!text.contains("t+1795527005"))
    }
}
