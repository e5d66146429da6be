import Testing

@testable import AuthCore

/// Calls made while a stored session is being confirmed wait for the server's answer; when it
/// comes after the access token expired (the app was suspended meanwhile), they must not go out
/// with that token. Found by `authflow verify` once models could let time pass to the expiry:
/// app.subspace sent the waiting call with the expired token.
@Suite("Calls that waited for a restore")
struct RestoreAfterExpiryTests {
    static let call = IntentID(7)

    /// The restore of `credentials` confirmed by `/me` at `now`, with one call waiting.
    static func confirmed(_ machine: SessionLifecycle, _ credentials: Credentials, at now: Instant) -> (SessionLifecycle.Phase, [AuthEffect]) {
        var phase = SessionLifecycle.Phase.restoring(
            SessionLifecycle.Restoring(credentials: credentials, request: Samples.r(1), asking: .currentUser, waiting: [Self.call]))
        var context = FlowContext(next: 2)
        let effects = machine.step(&phase, .reply(Samples.r(1), .user(Samples.user), at: now), &context)
        return (phase, effects)
    }

    /// The access tokens the effects attach to protected calls.
    static func attached(_ effects: [AuthEffect]) -> [AccessToken] {
        effects.compactMap { effect in
            if case .send(_, .protected(_, let bearer)) = effect { return bearer.token }
            return nil
        }
    }

    @Test("confirmed before the expiry, the waiting call goes out with the session's token")
    func beforeExpiry() {
        let (_, effects) = Self.confirmed(SessionTable.subspace, Samples.expiringCredentials, at: Samples.t0 + .seconds(1))
        #expect(Self.attached(effects) == [Samples.access1])
    }

    @Test("confirmed after the expiry, a session without a refresh token ends and the call is answered, never sent")
    func afterExpiryWithoutRefresh() {
        let expiry = Samples.expiringCredentials.expiresAt!
        let (phase, effects) = Self.confirmed(SessionTable.subspace, Samples.expiringCredentials, at: expiry + .seconds(1))
        #expect(Self.attached(effects).isEmpty, "\(effects)")
        #expect(phase.credentials == nil, "\(phase)")
        #expect(effects.contains(.finish(Self.call, .sessionEnded)), "\(effects)")
    }

    @Test("confirmed after the expiry, a rotating session refreshes first and the call waits for the new token")
    func afterExpiryWithRefresh() {
        let expiry = Samples.rotatingCredentials.expiresAt!
        let (phase, effects) = Self.confirmed(SessionTable.everday, Samples.rotatingCredentials, at: expiry + .seconds(1))
        #expect(Self.attached(effects).isEmpty, "\(effects)")
        #expect(effects.contains { if case .send(_, .refresh) = $0 { true } else { false } }, "\(effects)")
        #expect(phase.pendingCalls == [Self.call])
    }
}
