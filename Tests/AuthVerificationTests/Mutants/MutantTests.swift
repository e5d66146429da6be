import AuthCore
import AuthVerification
import Testing

/// Every invariant can fail: a broken reducer per invariant, explored under a small model, is
/// caught with the expected shortest trace, and the real reducer under the same model is not.
@Suite("Mutants")
struct MutantTests {
    /// Breadth-first, so a bound a little deeper than the expected trace still finds the shortest
    /// one, and shows a longer one when the expectation is wrong. It also keeps finite the mutants
    /// whose space is not (a replay loop counts sends without end).
    static func limits(_ row: MutantCase) -> ExplorationLimits { ExplorationLimits(maxStates: 200_000, maxDepth: row.shortest + 2, keepGoing: true) }

    /// The real reducers under the models their mutants are explored under, once each.
    static let originals: [AnyModel] = MutantTable.rows.reduce(into: []) { originals, row in
        if !originals.contains(where: { $0.name == row.original.name }) { originals.append(row.original) }
    }

    @Test("the mutant table names every invariant of the catalogue, once")
    func tableCoversTheCatalogue() {
        let named = MutantTable.rows.map(\.invariant)
        #expect(Set(named) == Set(Catalogue.names), "invariants without a mutant: \(Set(Catalogue.names).subtracting(named).sorted())")
        #expect(named.count == Set(named).count, "an invariant has two rows")
    }

    @Test("each invariant is violated by its mutant, with the expected shortest trace", arguments: MutantTable.rows)
    func mutantIsCaught(_ row: MutantCase) throws {
        #expect(row.mutant.invariantNames.contains(row.invariant), "\(row.mutant.name) does not check '\(row.invariant)'")
        let report = row.mutant.explore(limits: Self.limits(row))
        let violation = try #require(
            report.violations.first { $0.invariant == row.invariant },
            "\(row.mutant.name) breaks no '\(row.invariant)' within \(row.shortest + 2) events; it breaks \(report.violations.map(\.invariant))")
        #expect(violation.trace.count == row.shortest, "\(violation)")
    }

    @Test("each mutant breaks its own rule and no other it could avoid", arguments: MutantTable.rows)
    func mutantIsPrecise(_ row: MutantCase) {
        let report = row.mutant.explore(limits: Self.limits(row))
        let broken = Set(report.violations.map(\.invariant))
        #expect(broken == row.alsoBreaks.union([row.invariant]), "\(report.violations.map(\.description).joined(separator: "\n"))")
    }

    @Test("each original holds every invariant under the model its mutants are explored under", arguments: originals)
    func originalHolds(_ original: AnyModel) {
        let report = original.explore()
        #expect(report.complete, "\(original.name) did not explore to closure: \(report.states) states")
        #expect(report.violations.isEmpty, "\(report.violations.map(\.description).joined(separator: "\n"))")
    }

    @Test("every row's original is one of the originals explored")
    func everyOriginalIsExplored() {
        let explored = Set(Self.originals.map(\.name))
        for row in MutantTable.rows { #expect(explored.contains(row.original.name), "\(row.original.name)") }
        #expect(explored.count == Self.originals.count, "two originals share a name")
    }

    /// "No server session outlives a logout" has two more ways to break since a logout that cannot
    /// reach the server owes its revocation: a report standing in for the debt (the rule before
    /// owed revocations), and a debt the server settled kept in the vault.
    @Test(
        "a logout that gives up on an unreachable server, and an owed revocation kept after the server settled it, break 'no server session outlives a logout'",
        arguments: [
            ("unreachableLogoutNotOwed", 4, []),
            // Kept, the dead token is renewed again at the next launch, beside the restore's refresh.
            ("settledStaysOwed", 6, ["at most one refresh in flight", "an owed revocation is tried again at each launch and logout"]),
        ])
    func owedRevocationKept(name: String, shortest: Int, alsoBreaks: [String]) {
        let mutant = name == "unreachableLogoutNotOwed" ? Broken.unreachableLogoutNotOwed : Broken.settledStaysOwed
        let model = SmallModels.OwingSession()(name, mutant)
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 200_000, maxDepth: shortest + 2, keepGoing: true))
        // Sign in (2), log out (1), the revoke lost (1): reported, owed nowhere. Or: owed; relaunch
        // (1), the renewal refused (1): the token is dead, and the vault still owes it.
        #expect(report.violations.first { $0.invariant == "no server session outlives a logout" }?.trace.count == shortest)
        #expect(Set(report.violations.map(\.invariant)) == Set(alsoBreaks + ["no server session outlives a logout"]), "\(report.violations)")
    }

    /// A token leaves "no server session outlives a logout" when the app is told, finally, that its
    /// server session could not be confirmed ended. The kit once took the client's word for which
    /// debt that was: any owed revocation the step dropped from the vault. Now only a round the
    /// token's own request took can end it — answered in that step, or held back by the server's
    /// 429 window — so a client that gives a debt up without trying it is caught.
    @Test("an owed revocation given up at launch without a request breaks 'no server session outlives a logout'")
    func owedGivenUpUntried() {
        let invariant = "no server session outlives a logout"
        let model = SmallModels.OwingSession()("owedGivenUpUntried", Broken.owedGivenUpUntried)
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 200_000, maxDepth: 7, keepGoing: true))
        // Sign in (2), log out (1), the revoke lost (1): owed; relaunch (1): given up, untried.
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 5, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant], "\(report.violations)")
    }

    /// The kit holds a client to its policy's rounds (`ReplyCatalogue.revocationRounds`, which
    /// `SessionLifecycle.shape` derives): a dropped debt lets its token go only at the last of
    /// them. It once trusted the client to have spent them, so a client set for three
    /// rounds that gave up after two passed. Here the reducer spends two while the kit is told the
    /// policy gives three; told two, the same reducer holds. (The count it reads from the vault is
    /// checked where it is stored: the table's `owedRoundCountedTwice`.)
    @Test("a client that gives an owed revocation up before its policy's last round breaks 'no server session outlives a logout'")
    func owedGivenUpEarly() {
        let invariant = "no server session outlives a logout"
        var model = SmallModels.OwingSession()("session.owing", SmallModels.owing)
        #expect(model.replies.revocationRounds == 2)
        let held = Explorer.explore(model)
        #expect(held.complete && held.violations.isEmpty, "\(held.states) states; \(held.violations)")
        model.replies.revocationRounds = 3
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 200_000, maxDepth: 8, keepGoing: true))
        // Sign in (2), log out (1), the revoke lost (1): owed; relaunch (1), the renewal lost (1):
        // given up at the second round of three.
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 6, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant], "\(report.violations)")
        // A client that does spend three, its model derived from it, holds: each round counted
        // where it ended, the third the last.
        let threeRounds = SmallModels.rotating(revocationRounds: 3)
        var spending = SmallModels.OwingSession()("session.owing.threeRounds", threeRounds)
        threeRounds.session.shape(&spending.replies)
        #expect(spending.replies.revocationRounds == 3)
        let spent = Explorer.explore(spending)
        #expect(spent.complete && spent.violations.isEmpty, "\(spent.states) states, depth \(spent.depth); \(spent.violations)")
    }

    /// The kit holds each round of a server sign-out to its policy's sends
    /// (`ReplyCatalogue.revocationAttempts`, which `SessionLifecycle.shape` derives from
    /// `SessionPolicy.serverSignOutAttempts`): a round ends on a lost request only at its last
    /// send. It once counted rounds and not the sends in them, so a client set for two sends a
    /// round that gave up after one passed. Here the reducer sends once a round while the kit is
    /// told two (told one, as its own policy says, it holds: ``owedGivenUpEarly()``).
    @Test(
        "a client that ends a server sign-out's round before its policy's last send breaks 'an owed revocation counts only rounds that ended'"
    )
    func roundEndedEarly() {
        let invariant = "an owed revocation counts only rounds that ended"
        var model = SmallModels.OwingSession()("session.owing", SmallModels.owing)
        #expect(model.replies.revocationAttempts == 1)
        model.replies.revocationAttempts = 2
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 200_000, maxDepth: 6, keepGoing: true))
        // Sign in (2), log out (1), the revoke lost (1): owed after one of the round's two sends.
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 4, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant, "no server session outlives a logout"], "\(report.violations)")
        // A client that does send twice a round, its model derived from it, holds.
        let retrying = SmallModels.retrying
        var spending = SmallModels.OwingSession()("session.retrying", retrying)
        retrying.session.shape(&spending.replies)
        #expect(spending.replies.revocationAttempts == 2)
        let spent = Explorer.explore(spending)
        #expect(spent.violations.isEmpty, "\(spent.states) states, depth \(spent.depth); \(spent.violations)")
        #expect(spent.complete)
    }

    /// Where the server's revocation ends every session of the user (Hero365), the client gives up
    /// what it owes, reported, when a new session begins: revoking would end that session too. The
    /// kit allows that drop only where its model of the server says the revocation is so
    /// (`ReplyCatalogue.revocationEndsEverySession`); told the server revokes one token at a time,
    /// it holds the same reducer to the debt.
    @Test(
        "a debt given up as a new session begins holds where the server's revocation ends every session, and breaks 'no server session outlives a logout' where it revokes one token"
    )
    func debtGivenUpAtSignIn() {
        let invariant = "no server session outlives a logout"
        let machine = SmallModels.rotating(revocationEndsEverySession: true)
        var model = SmallModels.OwingSession()("session.owing.everySession", machine)
        model.replies.revocationEndsEverySession = true
        let held = Explorer.explore(model)
        #expect(held.complete && held.violations.isEmpty, "\(held.states) states; \(held.violations)")
        model.replies.revocationEndsEverySession = false
        let report = Explorer.explore(model, limits: ExplorationLimits(maxStates: 200_000, maxDepth: 8, keepGoing: true))
        // Sign in (2), log out (1), the revoke lost (1): owed; sign in again (2): given up.
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 6, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant], "\(report.violations)")
    }

    /// Where the server's revocation ends every session of the user, the kit lets a debt go,
    /// reported, as a new session begins, since revoking it would end that session too. It once
    /// took any `signedIn` for a new session, a session restored from the vault among them, so a
    /// client that gave its debts up at a restore passed; the shipped client keeps them idle.
    @Test("a debt given up as a stored session is restored breaks 'no server session outlives a logout'")
    func debtGivenUpAtRestore() {
        let invariant = "no server session outlives a logout"
        // The owing session where the server's revocation ends every session of the user, at 2/2:
        // a debt beside a stored session needs a sign-in while the logout's revoke is under way.
        func bounded<M: Lifecycle>(_ name: String, _ machine: M) -> AnyModel where M.Intent == SmallModels.OwingSession.Intent {
            var model = SmallModels.OwingSession()(name, machine)
            model.replies.revocationEndsEverySession = true
            return AnyModel(model).bounded(inFlight: 2, stale: 2)
        }
        let report = bounded("restoreGivesUpTheDebt", Broken.restoreGivesUpTheDebt)
            .explore(limits: ExplorationLimits(maxStates: 200_000, maxDepth: 10, keepGoing: true))
        // Sign in (2), log out (1), sign in again (2) while the revoke is under way, the revoke
        // lost (1): owed beside the new session; relaunch (1), the restore's refresh answered (1).
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 8, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant], "\(report.violations)")
        // The shipped reducer, under the same model and bounds, keeps the debt and holds.
        let held = bounded("session.owing.everySession", SmallModels.rotating(revocationEndsEverySession: true))
            .explore(limits: ExplorationLimits(maxStates: 200_000, maxDepth: 10))
        #expect(held.violations.isEmpty, "\(held.violations)")
    }

    /// The table's `launchForgetsTheOwedRevocation` breaks the launch half of "an owed revocation
    /// is tried again at each launch and logout"; this broken reducer breaks its logout half.
    @Test("a logout that leaves an older owed revocation waiting breaks 'an owed revocation is tried again at each launch and logout'")
    func logoutRetriesTheOwedRevocation() {
        let invariant = "an owed revocation is tried again at each launch and logout"
        let model = SmallModels.OwingSession()("logoutForgetsTheOwedRevocation", Broken.logoutForgetsTheOwedRevocation)
        // With one answer left over the explorer offers no sign-in while the logout's revoke is
        // under way, and a sign-in after it gives the debt its next round: the debt waits idle
        // beside a session only when the sign-in came first. So 2 left over, where the model has 1.
        let report = AnyModel(model).bounded(inFlight: 2, stale: 2)
            .explore(limits: ExplorationLimits(maxStates: 200_000, maxDepth: 9, keepGoing: true))
        // Sign in (2), log out (1); signed in again (2) while that revoke is under way, the revoke
        // lost (1): owed, and no round under way; log out (1).
        #expect(report.violations.first { $0.invariant == invariant }?.trace.count == 7, "\(report.violations)")
        #expect(Set(report.violations.map(\.invariant)) == [invariant], "\(report.violations)")
        // The shipped reducer, at the same bounds, tries the debt again at that logout.
        let original = AnyModel(SmallModels.OwingSession()("session.owing", SmallModels.owing)).bounded(inFlight: 2, stale: 2)
        #expect(original.explore(limits: ExplorationLimits(maxStates: 200_000, maxDepth: 9)).violations.isEmpty)
    }

    /// `Catalogue.logoutAlwaysSignsOut` recognises a logout however deeply a composition wraps it
    /// (`AppIntent.session(.logout)`): it once read the intent's case path (`session`) and held
    /// vacuously in every composed model.
    @Test("logout that forgets the vault is caught inside a sign-in-and-session app too")
    func logoutInAnApp() {
        let model = SmallModels.PlainSession()("logoutKeepsTheVaultInAnApp", Broken.logoutKeepsTheVaultInAnApp)
        let report = Explorer.explore(model, limits: ExplorationLimits(maxDepth: 4, keepGoing: true))
        // Sign in (2), logout (1): signed out with the vault full.
        #expect(report.violations.first { $0.invariant == "no credentials outside signed-in states" }?.trace.count == 3)
        #expect(report.verdict.contains("no credentials outside signed-in states (3 steps)"), "\(report.verdict)")
        // A logout at once: the mutant does not ask to clear credentials even while signed out.
        #expect(report.violations.first { $0.invariant == "logout always signs out and clears the vault" }?.trace.count == 1)
    }

    /// The set-password rule is judged from what the server sent, not from the app's phase: an app
    /// that invents a setup demand (the server said nothing of the password) is in its own
    /// "password setup required" phase when it sends set-password, so a rule that read the phase
    /// passed it.
    @Test("an app that demands a password setup the server never asked for is caught when it sends set-password: 4 steps")
    func inventedSetupDemandCaught() {
        let report = Explorer.explore(SmallModels.PlainSession()("setupDemandInvented", Broken.setupDemandInvented))
        let violation = report.violations.first { $0.invariant == "set-password only while the password is unset" }
        // Submit (1), a grant saying nothing of the password (1), set-password (1)… and the request
        // it sends (the step that sends it).
        #expect(violation != nil, "\(report.violations)")
        #expect(violation.map { $0.trace.count <= 4 } == true, "\(violation.map { "\($0.trace.count)" } ?? "none")")
        #expect(violation?.message.contains("though the server did not say the password is unset") == true)
        let original = Explorer.explore(SmallModels.PlainSession()("plainSession", Broken.setupDemandInvented.base))
        #expect(original.passed, "\(original.violations)")
    }

    /// The sign-in resubmitted inside a 429 window, on a machine that forgets the server's waits:
    /// `authflow verify`'s invariant catches it at once.
    @Test("a machine that forgets the server's waits lets a sign-in reach the endpoint inside the window: caught in 3 steps")
    func signInInsideTheWindowCaught() {
        let report = Explorer.explore(SmallModels.PasswordSignInModel()("serverWaitsForgotten", Broken.serverWaitsForgotten))
        let violation = report.violations.first { $0.invariant == "no request to a rate-limited endpoint before the server's time" }
        // Submit (1), 429 with Retry-After 30 s (1), submit again inside the window (1).
        #expect(violation?.trace.count == 3)
    }

    /// The server's waits are the machine's (`Lifecycle.reduce`), not each flow's: a sign-in that
    /// forgets its own rate-limited phase still sends nothing inside the server's window, and the
    /// user is told what a flow that remembered would say: refused before any request, until the
    /// server's time.
    @Test("a sign-in that forgets the 429 is held back by the machine: nothing reaches the endpoint early, and the user is told to wait")
    func machineHoldsBackAForgetfulFlow() {
        let report = Explorer.explore(SmallModels.PasswordSignInModel()("signInInsideTheRateLimit", Broken.signInInsideTheRateLimit))
        #expect(report.complete)
        #expect(report.violations.isEmpty, "\(report.violations.map(\.description).joined(separator: "\n"))")
    }

    static let completionRule = "a rate-limited intent is finished as rate-limited, with the server's time"

    /// The completion rule's other two clauses, each with its own broken reducer (the mutant table
    /// shows the first: a refusal reported as a failure).
    @Test(
        "a rate-limited intent told another time than the server's, or not told it was rate-limited, is caught",
        arguments: [
            // Submit (1), 429 with Retry-After 30 s (1), submit again: told to wait a minute (1).
            ("rateLimitTimeOfItsOwn", 3, "not a time the server gave"),
            // Submit (1), 429 with Retry-After 30 s read as a 503 (1).
            ("rateLimitReadAsServerError", 2, "in answer to the server's 429"),
        ])
    func completionClausesCaught(mutant: String, steps: Int, message: String) {
        let broken = mutant == "rateLimitTimeOfItsOwn" ? Broken.rateLimitTimeOfItsOwn : Broken.rateLimitReadAsServerError
        let report = Explorer.explore(SmallModels.PasswordSignInModel()(mutant, broken), limits: ExplorationLimits(maxDepth: steps + 2))
        let violation = report.violations.first { $0.invariant == Self.completionRule }
        #expect(violation?.trace.count == steps, "\(report.violations)")
        #expect(violation?.message.contains(message) == true, "\(violation?.message ?? "none")")
    }

    /// The retry rule's second clause: a refresh held back inside the server's wait must not
    /// count as an attempt. Sign in (2), refresh at the margin (1), 429 with Retry-After 300 s (1),
    /// a refused token starts a refresh at once (1): held back, and its made-up 429 reported as a
    /// failed refresh in the intent's step.
    @Test("a refresh held back inside the server's wait and counted as a failed attempt is caught in 5 steps")
    func heldBackRefreshCountedCaught() {
        let model = SmallModels.RotatingSession(failures: [.rateLimited(retryAfter: .seconds(300)), .network])(
            "refreshHeldBackCounted", Broken.refreshHeldBackCounted)
        let report = Explorer.explore(model, limits: ExplorationLimits(maxDepth: 7, keepGoing: true))
        let violation = report.violations.first { $0.invariant == "refresh retries wait for the server's time and count only its answers" }
        #expect(violation?.trace.count == 5, "\(report.violations)")
        #expect(violation?.message.contains("in a step no server answer decided") == true, "\(violation?.message ?? "none")")
        #expect(!report.violations.contains { $0.invariant == "no request to a rate-limited endpoint before the server's time" })
    }
}
