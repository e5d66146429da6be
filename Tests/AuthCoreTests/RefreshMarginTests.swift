import Testing
@testable import AuthCore

/// The refresh margin fits the token the server granted: never more than half its lifetime, so
/// a short-lived token is used before it is refreshed, and a long-lived one refreshes a full
/// margin before it ends.
@Suite("Refresh margin")
struct RefreshMarginTests {
    static let session = Apps.everday().session

    /// The session a grant for `lifetime` starts at `t0`, and its effects.
    static func granted(for lifetime: Int64) -> (SessionLifecycle.Phase, [AuthEffect], FlowContext) {
        var requests = FlowContext()
        let grant = Grant(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiry: .after(.seconds(lifetime)), user: Samples.user)
        let (phase, effects) = session.begin(grant, at: Samples.t0, &requests)
        return (phase, effects, requests)
    }

    @Test(
        "with a 60 s margin, a token granted for L seconds refreshes after max(L - 60, L / 2) seconds",
        arguments: [(lifetime: Int64(30), refreshAfter: Int64(15)), (60, 30), (1800, 1740)])
    func refreshIsScheduled(lifetime: Int64, refreshAfter: Int64) {
        let (_, effects, _) = Self.granted(for: lifetime)
        #expect(effects.contains(.schedule(.proactiveRefresh, at: Samples.at(refreshAfter))))
    }

    @Test(
        "a call before the fitted margin carries the token; a call inside it refreshes first",
        arguments: [(lifetime: Int64(30), refreshAfter: Int64(15)), (60, 30), (1800, 1740)])
    func callsUseTheTokenUntilTheMargin(lifetime: Int64, refreshAfter: Int64) {
        let (granted, _, context) = Self.granted(for: lifetime)

        var early = granted
        var earlyRequests = context
        let callID = Samples.r(context.next)
        let sent = Self.session.step(&early, .intent(.call, id: Samples.call1, at: Samples.at(refreshAfter - 1)), &earlyRequests)
        #expect(sent == [.send(callID, .protected(Samples.call1, Samples.bearer))])

        var late = granted
        var lateRequests = context
        let refreshID = Samples.r(context.next)
        let refreshed = Self.session.step(&late, .intent(.call, id: Samples.call1, at: Samples.at(refreshAfter)), &lateRequests)
        #expect(refreshed == [.cancelTimer(.proactiveRefresh), .send(refreshID, .refresh(Samples.refresh1))])
    }

    @Test("the margin applied is the configured one when the lifetime is unknown (credentials stored before it was recorded)")
    func unknownLifetimeKeepsTheMargin() {
        let stored = Credentials(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiresAt: Samples.at(60), user: Samples.user)
        #expect(stored.lifetime == nil)
        #expect(Self.session.policy.refresh.applied(to: stored) == .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)))
        let fitted = Credentials(
            Grant(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiry: .after(.seconds(60)), user: Samples.user),
            receivedAt: Samples.t0)
        #expect(fitted.lifetime == .seconds(60))
        #expect(Self.session.policy.refresh.applied(to: fitted) == .rotating(margin: .seconds(30), retryLimit: 3, backoff: .seconds(2)))
    }

    @Test("a refresh records when the new token was received, so the renewed token's margin fits it too")
    func renewedCredentialsKnowTheirLifetime() {
        let (granted, _, context) = Self.granted(for: 60)
        var phase = granted
        var requests = context
        let refresh = Samples.r(context.next)
        _ = Self.session.step(&phase, .tick(Samples.at(30)), &requests)
        let shortRotation = TokenRefresh(accessToken: Samples.access2, refreshToken: Samples.refresh2, expiry: .after(.seconds(40)))
        let effects = Self.session.step(&phase, .reply(refresh, .refreshed(shortRotation), at: Samples.at(31)), &requests)
        #expect(phase.credentials?.lifetime == .seconds(40))
        #expect(effects.contains(.schedule(.proactiveRefresh, at: Samples.at(51))))
    }
}
