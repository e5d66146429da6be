import AuthCore
import Testing

@testable import AuthVerification

/// The explorer steps every move of a world with ``Environment/Successors``: a move that makes a
/// world an earlier sibling made shares that sibling's snapshot instead of surveying it again.
/// Sharing must change nothing: each transition's snapshot must be the one a fresh survey of the
/// move's world gives, and settling a settled world must change nothing.
@Suite("Sibling moves share snapshots")
struct SuccessorTests {
    /// Expands the first `states` worlds of `model` breadth first and compares, for every move,
    /// the snapshot the explorer's step gives with a fresh step's. Returns how many moves shared.
    func check<M: LifecycleModel>(_ model: M, states: Int) -> Int {
        let environment = Environment(model: model)
        var frontier = [environment.initial]
        var seen: Set<Fingerprint> = [frontier[0].fingerprint]
        var expanded = 0
        var shared = 0
        var successors = Environment<M>.Successors()
        while expanded < states, !frontier.isEmpty {
            let snapshot = frontier.removeFirst()
            expanded += 1
            successors.removeAll()
            var made: [ObjectIdentifier] = []
            for move in environment.moves(snapshot) {
                let transition = environment.step(move, from: snapshot, besides: &successors)
                let fresh = environment.step(move, from: snapshot)
                let after = transition.after
                let expected = fresh.after
                #expect(after.world == expected.world, "\(model.name): \(move.choice) from \(snapshot.casePath)")
                #expect(after.fingerprint == expected.fingerprint, "\(model.name): \(move.choice) from \(snapshot.casePath)")
                #expect(after.stateFingerprint == expected.stateFingerprint)
                // Compared apart: a failed expectation prints its operands, and these are the
                // world's secrets revealed.
                let sameSecrets = after.secrets == expected.secrets
                #expect(sameSecrets, "\(model.name): \(move.choice) from \(snapshot.casePath) gathers other secrets")
                #expect(after.referencedRequests == expected.referencedRequests)
                #expect(after.sessionCredentials == expected.sessionCredentials)
                #expect(after.isSignedIn == (after.sessionCredentials != nil))
                #expect(after.symbols == expected.symbols)
                #expect(transition.effects == fresh.effects)
                #expect(transition.answered == fresh.answered)
                if after !== snapshot {
                    // Settling the settled world again changes nothing: what lets a move share a
                    // sibling's snapshot when its world equals that sibling's settled world.
                    var world = after.world
                    _ = Survey.of(
                        &world, horizon: environment.timeHorizon, historyHorizon: environment.historyHorizon, reduction: environment.reduction
                    ) { world, facts in
                        environment.settleHistory(&world, facts, signedInBefore: snapshot.isSignedIn)
                    }
                    #expect(world == after.world, "\(model.name): settling \(after.casePath) again changed its history")
                    if made.contains(ObjectIdentifier(after)) { shared += 1 } else { made.append(ObjectIdentifier(after)) }
                }
                if seen.insert(after.fingerprint).inserted { frontier.append(after) }
            }
        }
        #expect(expanded == states || frontier.isEmpty)
        return shared
    }

    @Test("the app models: every shared snapshot is the one a fresh survey gives, and moves do share")
    func apps() {
        #expect(check(Models.anonymousWallApp(), states: 500) > 0)
        #expect(check(Models.hero365App(), states: 500) > 0)
        #expect(check(Models.everdayApp(), states: 500) > 0)
    }

    @Test("the session, realtime and code models: every shared snapshot is the one a fresh survey gives")
    func lifecycles() {
        _ = check(Models.session(.everday), states: 800)
        _ = check(Models.session(.hero365), states: 800)
        _ = check(Models.realtime(), states: 400)
        _ = check(Models.oneTimeCode(.email), states: 300)
        _ = check(Models.codeRegistration(), states: 100)
    }

    @Test("World.same answers as ==, part by part")
    func sameIsEquality() {
        let credentials = Credentials(accessToken: AccessToken("tok-at-1"), refreshToken: RefreshToken("tok-rt-1"), user: UserProfile(id: "u1"))
        let base = World<SessionLifecycle>(
            state: LifecycleState(phase: .active(SessionLifecycle.Active(credentials: credentials))), now: .seconds(10))
        var variants = [base]
        var later = base
        later.now = .seconds(11)
        variants.append(later)
        var sending = base
        sending.network = [Exchange(id: RequestID(1), request: .refresh(RefreshToken("tok-rt-1")), opened: false)]
        variants.append(sending)
        var waiting = base
        waiting.timers = [PendingTimer(id: .proactiveRefresh, at: .seconds(20))]
        variants.append(waiting)
        var kept = base
        kept.vault = .holds(credentials)
        variants.append(kept)
        var remembering = base
        remembering.history.retiredRefreshTokens = [RefreshToken("tok-rt-0")]
        variants.append(remembering)
        var signedOut = base
        signedOut.state = LifecycleState(phase: .signedOut)
        variants.append(signedOut)
        var counted = base
        counted.nextIntent = 2
        variants.append(counted)
        var owing = base
        owing.owedRevocations = [OwedRevocation(refreshToken: RefreshToken("tok-rt-0"), rounds: 1)]
        variants.append(owing)
        for a in variants {
            for b in variants { #expect(World.same(a, b) == (a == b)) }
        }
        #expect(variants.count == Mirror(reflecting: base).children.count + 1, "a new World field needs a variant here, and a place in World.same")
    }
}
