import AuthCore
import Testing

@testable import AuthVerification

/// supabase-swift #1371's race: a refresh in flight at logout, a sign-in again before its answer,
/// and the answer taken as the new session's.
///
/// At the session model's own bounds (4 in flight, 1 left over: what the tests and
/// `authflow verify --quick` explore) the user never acts while the logged-out session's refresh
/// is unanswered, so that run does not reach the race: neither its exhaustive search nor its
/// fuzzer (30 walks of 300 events missed it here; 200 walks of 400 too). `authflow verify`
/// explores every model at ``Models/fullBounds``, 4 in flight and 2 left over, and catches it.
@Suite("A logged-out session's refresh landing in the next session (supabase-swift #1371)")
struct SignInAgainRaceTests {
    /// Everday's shipped session model around ``Broken/staleRefreshAdopted(_:)``.
    static let broken = Models.session(.everday, named: "session.everday, staleRefreshAdopted") { Broken.staleRefreshAdopted($0) }

    @Test("at verify's bounds, 4 in flight and 2 left over, the exhaustive search catches the race in 7 steps; the real session holds there")
    func caughtWithTwoLeftOver() throws {
        let limits = ExplorationLimits(maxDepth: 8)
        let full = Models.fullBounds
        #expect(full == (inFlight: 4, stale: 2))
        #expect(Self.broken.maxStale < full.stale, "the model's own bounds do not reach the race")
        let report = Explorer.explore(BoundedModel(Self.broken, inFlight: full.inFlight, stale: full.stale), limits: limits)
        let violation = try #require(report.violations.first { $0.invariant == "nothing after logout writes credentials" }, "\(report.violations)")
        // Sign in (2), logout (1), sign in again (1); the logout's revocation is refused for its
        // access token, so the background sign-out refreshes first (1); the new sign-in is granted
        // (1), and the logged-out session's refresh answered is taken as the new session's (1).
        let expected = ["submit", "granted", "logout", "submit", "unauthorized", "granted", "refreshed"]
        #expect(violation.trace.count == expected.count, "\(violation)")
        for (step, word) in zip(violation.trace, expected) { #expect(step.event.contains(word), "\(violation)") }
        let real = Explorer.explore(BoundedModel(Models.session(.everday), inFlight: full.inFlight, stale: full.stale), limits: limits)
        #expect(real.violations.isEmpty, "\(real.violations)")
    }
}
