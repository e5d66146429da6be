import AuthCore
import Testing

@testable import AuthVerification

/// The menu of moves a world offers: the explorer builds every move of it, the fuzzer only the
/// one it picks; both must see the same moves in the same order.
@Suite("Menus of moves")
struct MenuTests {
    /// Walks `model` for `steps` seeded random steps, checking the menu at every world met.
    func check<M: LifecycleModel>(_ model: M, steps: Int, seed: UInt64) {
        var taken = 0
        defer { #expect(taken == steps, "the walk stopped after \(taken) steps") }
        let environment = Environment(model: model)
        var random = SplitMix64(seed: seed)
        var snapshot = environment.initial
        // Over the whole walk, a key names one payload and a payload has one key.
        var payloads: [EventKey: Described<M.Machine.Intent>] = [:]
        var keys: [Described<M.Machine.Intent>: EventKey] = [:]
        for step in 0..<steps {
            let menu = environment.menu(snapshot)
            let moves = menu.moves
            // Every move is found again by its choice, with its key, and choices past each list are not.
            for move in moves {
                #expect(menu.move(move.choice) == move)
                #expect(menu.move(move.choice)?.key == move.key)
                guard let payload = Described(move.event) else {
                    #expect(move.key == nil, "a tick has no payload to key")
                    continue
                }
                guard let key = move.key else {
                    Issue.record("\(move.choice) at step \(step) has no key")
                    continue
                }
                #expect(payloads[key, default: payload] == payload, "\(move.choice) at step \(step)")
                #expect(keys[payload, default: key] == key, "\(move.choice) at step \(step)")
                payloads[key] = payload
                keys[payload] = key
            }
            #expect(menu.move(.intent(menu.intents.count)) == nil)
            #expect(menu.move(.reply(exchange: menu.answers.count, reply: 0)) == nil)
            #expect(menu.move(.timer(menu.timers.count)) == nil)
            #expect(menu.move(.relaunch(menu.relaunches.count)) == nil)
            // The weighted pick chooses what a walk down the list of moves chooses for the same number.
            var walking = random
            var picking = random
            let total = moves.reduce(0) { $0 + Fuzzer.weight($1.choice) }
            var number = total > 0 ? walking.below(total) : 0
            let walked = moves.first { move in
                number -= Fuzzer.weight(move.choice)
                return number < 0
            }
            let picked = Fuzzer.pick(in: menu, &picking)
            #expect(picked == walked?.choice, "step \(step)")
            guard let picked, let move = menu.move(picked) else { return }
            random = picking
            snapshot = environment.step(move, from: snapshot).after
            taken += 1
        }
    }

    /// The first value of type `T` inside `value`, outermost first, found by reflection: a test
    /// reads a flow's intent out of an app's without spelling the composition's nesting.
    static func nested<T>(_ type: T.Type, in value: Any) -> T? {
        if let match = value as? T { return match }
        for child in Mirror(reflecting: value).children {
            if let found = nested(type, in: child.value) { return found }
        }
        return nil
    }

    @Test(
        "app.hero365 offers, in every world of a 2,000-step walk, the OAuth intents Menus.oauth(in:) builds for that world (its menu keeps them per world facts)"
    )
    func hero365OAuth() {
        let model = Models.hero365App()
        let environment = Environment(model: model)
        var random = SplitMix64(seed: 0x0A07)
        var snapshot = environment.initial
        var worlds = 0
        for _ in 0..<2_000 {
            let offered = model.intents(in: snapshot).compactMap { intent -> OAuthSignIn.Intent? in
                Self.nested(OAuthSignIn.Intent.self, in: intent)
            }
            #expect(offered == Menus.oauth(in: snapshot))
            worlds += 1
            let menu = environment.menu(snapshot)
            guard let choice = Fuzzer.pick(in: menu, &random), let move = menu.move(choice) else { break }
            snapshot = environment.step(move, from: snapshot).after
        }
        #expect(worlds == 2_000)
    }

    /// Walks `model` for 2,000 seeded steps, checking that every world's menu offers the session
    /// intents ``Menus/session(in:callers:)`` builds for that world, in order.
    func checkSession<M: LifecycleModel>(_ model: M, seed: UInt64, _ session: (M.Machine.Intent) -> SessionLifecycle.Intent?) {
        let environment = Environment(model: model)
        var random = SplitMix64(seed: seed)
        var snapshot = environment.initial
        var worlds = 0
        var offeringNoCall = 0
        for _ in 0..<2_000 {
            let offered = model.intents(in: snapshot).compactMap(session)
            let expected = Menus.session(in: snapshot, callers: 1)
            #expect(offered == expected)
            if !expected.contains(where: { if case .call = $0 { true } else { false } }) { offeringNoCall += 1 }
            worlds += 1
            let menu = environment.menu(snapshot)
            guard let choice = Fuzzer.pick(in: menu, &random), let move = menu.move(choice) else { break }
            snapshot = environment.step(move, from: snapshot).after
        }
        #expect(worlds == 2_000)
        // The walk met worlds with the call pending, where the menu must not offer it again.
        #expect(offeringNoCall > 0, "\(model.name)")
    }

    @Test(
        "every app offers, in every world of a 2,000-step walk, the session intents Menus.session(in:callers:) builds for that world (its menus are kept per call the session can offer)"
    )
    func appSessionIntents() {
        checkSession(Models.anonymousWallApp(), seed: 0x5E1) { if case .session(let intent) = $0 { intent } else { nil } }
        // At 4 in flight and 2 left over (its bounds in CI): with one left over, this seed's walk
        // never leaves a call pending.
        checkSession(BoundedModel(Models.everdayApp(), inFlight: Models.fullBounds.inFlight, stale: Models.fullBounds.stale), seed: 0xE7D) {
            if case .session(let intent) = $0 { intent } else { nil }
        }
        checkSession(Models.subspaceApp(), seed: 0x5E3) { if case .session(let intent) = $0 { intent } else { nil } }
        checkSession(Models.hero365App(), seed: 0x5E4) { if case .session(let intent) = $0 { intent } else { nil } }
        checkSession(Models.vynqTalkApp(), seed: 0x5E5) { if case .session(.session(let intent)) = $0 { intent } else { nil } }
    }

    @Test("app.hero365: every move is found by its choice, and the fuzzer's pick is the walk's (1,000 steps)")
    func hero365() { check(Models.hero365App(), steps: 1_000, seed: 0x3E0) }

    @Test("app.anonymousWall, with relaunches and code timers (2,000 steps)")
    func anonymousWall() { check(Models.anonymousWallApp(), steps: 2_000, seed: 0xA11) }

    @Test("session.everday, with refresh and several callers (2,000 steps)")
    func session() { check(Models.session(.everday), steps: 2_000, seed: 0xE7D) }
}
