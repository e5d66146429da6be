import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation
import Testing

/// The runner's mechanics, one effect at a time, through a lifecycle that performs whatever
/// effects a test lists.
@Suite("Effect runner", .timeLimit(.minutes(15)))
struct RunnerTests {
    let t0 = Instant.seconds(1_700_000_000)
    let clock = ManualClock(now: .seconds(1_700_000_000))
    let r1 = RequestID(1)
    let r2 = RequestID(2)

    @Test("a send's answer comes back as a reply tagged with its request id, stamped when it arrived")
    func sendAndReply() async throws {
        let transport = ScriptedTransport { _ in Answers.tokens(access: "access-1", refresh: "refresh-1") }
        let runner = Sample.runner(EffectScript(), transport: transport, clock: clock)
        let states = await runner.states()
        await runner.send(EffectScript.Intent([.send(r1, .refresh(RefreshToken("refresh-0")))]))
        let recorded = await states.first { !$0.phase.events.isEmpty }
        let expected = TokenRefresh(accessToken: AccessToken("access-1"), refreshToken: RefreshToken("refresh-1"), expiry: .after(.seconds(3600)))
        #expect(recorded?.phase.events == [.reply(r1, .refreshed(expected), at: t0)])
        #expect(transport.received.map(\.url.lastPathComponent) == ["refresh"])
        #expect(await runner.inFlight.isEmpty)
    }

    @Test(
        "no HTTP answer becomes the matching failure",
        arguments: [
            (TransportError.network, AuthFailure.network), (.timeout, .timeout), (.cancelled, .network),
        ])
    func transportFailures(error: TransportError, failure: AuthFailure) async throws {
        let transport = ScriptedTransport { _ in .failure(error) }
        let runner = Sample.runner(EffectScript(), transport: transport, clock: clock)
        let states = await runner.states()
        await runner.send(EffectScript.Intent([.send(r1, .refresh(RefreshToken("refresh-0")))]))
        let recorded = await states.first { !$0.phase.events.isEmpty }
        #expect(recorded?.phase.events == [.reply(r1, .failed(failure), at: t0)])
    }

    @Test("effects run in list order: a persist has completed before the following send starts")
    func persistBeforeSend() async throws {
        let vault = MemoryVault()
        let storedAtSend = Locked<String?>(nil)
        let transport = ScriptedTransport { _ in
            storedAtSend.withLock { $0 = vault.credentials?.accessToken.reveal() }
            return Answers.status(200)
        }
        let runner = Sample.runner(EffectScript(), transport: transport, vault: vault, clock: clock)
        let rotated = Sample.credentials(access: "access-2", refresh: "refresh-2", expiresAt: nil)
        await runner.send(
            EffectScript.Intent([.persist(rotated), .send(r1, .currentUser(Bearer(token: AccessToken("access-2"), userID: "user-1")))]))
        await transport.waitFor("currentUser")
        #expect(storedAtSend.withLock { $0 } == "access-2")
    }

    @Test("a timer fires a tick at its deadline on the manual clock, not before")
    func timerFires() async throws {
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock)
        await runner.send(EffectScript.Intent([.schedule(.proactiveRefresh, at: t0 + .seconds(60))]))
        #expect(await runner.scheduledTimers == [.proactiveRefresh])
        await clock.advance(by: .seconds(59))
        #expect(await runner.state.phase.events.isEmpty)
        await clock.advance(by: .seconds(1))
        #expect(await runner.state.phase.events == [.tick(t0 + .seconds(60))])
        #expect(await runner.scheduledTimers.isEmpty)
    }

    @Test("scheduling the same timer again replaces the earlier deadline")
    func timerReplaced() async throws {
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock)
        await runner.send(EffectScript.Intent([.schedule(.reconnect, at: t0 + .seconds(10))]))
        await runner.send(EffectScript.Intent([.schedule(.reconnect, at: t0 + .seconds(20))]))
        #expect(clock.pendingDeadlines == [t0 + .seconds(20)])
        await clock.advance(by: .seconds(15))
        #expect(await runner.state.phase.events.isEmpty)
        await clock.advance(by: .seconds(15))
        #expect(await runner.state.phase.events == [.tick(t0 + .seconds(20))])
    }

    @Test("cancelTimer drops a wake-up; other timers still fire")
    func timerCancelled() async throws {
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock)
        await runner.send(
            EffectScript.Intent([
                .schedule(.refreshRetry, at: t0 + .seconds(5)), .schedule(.codeExpiry, at: t0 + .seconds(8)), .cancelTimer(.refreshRetry),
            ]))
        await clock.advance(by: .seconds(10))
        #expect(await runner.state.phase.events == [.tick(t0 + .seconds(8))])
    }

    @Test("cancel stops the request's task: the transport sees the cancellation and nothing is in flight")
    func cancelStopsRequest() async throws {
        let gate = Gate()
        let sawCancellation = Gate()
        let transport = ScriptedTransport { _ in
            guard await gate.wait() else {
                sawCancellation.open()
                return .failure(.cancelled)
            }
            return Answers.status(200)
        }
        let runner = Sample.runner(EffectScript(), transport: transport, clock: clock)
        await runner.send(EffectScript.Intent([.send(r1, .refresh(RefreshToken("refresh-0")))]))
        await transport.waitFor("refresh")
        #expect(await runner.inFlight == [r1])
        await runner.send(EffectScript.Intent([.cancel(r1)]))
        #expect(await runner.inFlight.isEmpty)
        #expect(await sawCancellation.wait())
        #expect(await runner.state.phase.events.isEmpty)
    }

    @Test("a request the contract does not offer is an issue, and the reducer is answered notFound at once")
    func unsupportedRequest() async throws {
        let transport = ScriptedTransport { _ in Answers.status(200) }
        let runner = Sample.runner(EffectScript(), transport: transport, clock: clock, contract: StubContract(unsupported: ["oauthURL"]))
        let issues = await runner.issues()
        await runner.send(EffectScript.Intent([.send(r1, .oauthURL(.google))]))
        #expect(await runner.state.phase.events == [.reply(r1, .failed(.notFound("this backend does not offer oauthURL")), at: t0)])
        #expect(await issues.prefixArray(1) == [.unsupportedRequest(.unsupported("oauthURL"))])
        #expect(transport.received.isEmpty)
    }

    @Test("emit goes to every outcome subscriber, in order")
    func emitOutcomes() async throws {
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock)
        let first = await runner.outcomes()
        let second = await runner.outcomes()
        await runner.send(EffectScript.Intent([.emit(.offline), .emit(.tokenRefreshed)]))
        #expect(await first.prefixArray(2) == [.offline, .tokenRefreshed])
        #expect(await second.prefixArray(2) == [.offline, .tokenRefreshed])
    }

    @Test("persist and clearCredentials go to the vault; a failed write is an issue and nothing else changes")
    func vaultEffects() async throws {
        let vault = MemoryVault()
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, vault: vault, clock: clock)
        let issues = await runner.issues()
        let first = Sample.credentials(access: "access-1", expiresAt: nil)
        await runner.send(EffectScript.Intent([.persist(first)]))
        #expect(vault.credentials == first)
        vault.failing(save: .system(operation: "write", code: 28), clear: .accessDenied)
        await runner.send(EffectScript.Intent([.persist(Sample.credentials(access: "access-2", expiresAt: nil)), .clearCredentials]))
        #expect(vault.credentials == first)
        #expect(await issues.prefixArray(2) == [.vaultWriteFailed(.system(operation: "write", code: 28)), .vaultClearFailed(.accessDenied)])
    }

    @Test("start reads the vault: nothing, stored credentials, or unreadable (reported, nothing deleted)", arguments: [0, 1, 2])
    func launch(variant: Int) async throws {
        let stored = Sample.credentials(expiresAt: nil)
        let vault = MemoryVault(variant == 0 ? nil : stored)
        if variant == 2 { vault.failing(load: .corrupt) }
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, vault: vault, clock: clock)
        let issues = await runner.issues()
        await runner.start()
        let expected: StoredCredentials = [.none, .stored(stored), .unreadable][variant]
        #expect(await runner.state.phase.events == [.launched(expected, at: t0)])
        if variant == 2 {
            #expect(await issues.prefixArray(1) == [.vaultUnreadable(.corrupt)])
            #expect(vault.credentials == stored)
        }
    }

    @Test("realtime: opened and closed come back as replies to the opening request; messages are forwarded")
    func realtimeLifecycle() async throws {
        let connector = ScriptedRealtime()
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock, realtime: connector)
        let states = await runner.states()
        let messages = await runner.realtimeMessages()
        await runner.send(EffectScript.Intent([.send(r1, .openRealtime(AccessToken("access-1")))]))
        _ = await states.first { $0.phase.events.count == 1 }
        #expect(await runner.state.phase.events == [.reply(r1, .realtimeOpened, at: t0)])
        #expect(connector.urls.map(\.absoluteString) == ["ws://stub.test/ws?token=access-1"])
        let channel = try #require(connector.channels.first)
        channel.deliver(.text("hello"))
        #expect(await messages.prefixArray(1) == [.text("hello")])
        try await runner.sendRealtime(.text("hi"))
        #expect(channel.sentMessages == [.text("hi")])
        channel.drop()
        _ = await states.first { $0.phase.events.count == 2 }
        #expect(await runner.state.phase.events == [.reply(r1, .realtimeOpened, at: t0), .reply(r1, .realtimeClosed, at: t0)])
    }

    @Test("closeRealtime closes the channel, and its end is not reported back")
    func realtimeClosedByReducer() async throws {
        let connector = ScriptedRealtime()
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock, realtime: connector)
        let states = await runner.states()
        await runner.send(EffectScript.Intent([.send(r1, .openRealtime(AccessToken("access-1")))]))
        _ = await states.first { $0.phase.events.count == 1 }
        await runner.send(EffectScript.Intent([.closeRealtime(r1)]))
        #expect(connector.channels.first?.isClosedByClient == true)
        #expect(await runner.inFlight.isEmpty)
        await #expect(throws: RealtimeError.notConnected) { try await runner.sendRealtime(.text("late")) }
        #expect(await runner.state.phase.events == [.reply(r1, .realtimeOpened, at: t0)])
    }

    @Test(
        "a refused handshake is read by the contract like any protected answer (401 → unauthorized)",
        arguments: [
            (RealtimeError.refused(status: 401), Reply.failed(.unauthorized(nil))), (.refused(status: 403), .failed(.forbidden(nil))),
            (.timeout, .failed(.timeout)), (.network, .failed(.network)), (.unsupported, .failed(.notFound(nil))),
        ])
    func realtimeRefused(error: RealtimeError, reply: Reply) async throws {
        let connector = ScriptedRealtime { _ in .failure(error) }
        let runner = Sample.runner(EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock, realtime: connector)
        let states = await runner.states()
        await runner.send(EffectScript.Intent([.send(r1, .openRealtime(AccessToken("access-1")))]))
        let recorded = await states.first { !$0.phase.events.isEmpty }
        #expect(recorded?.phase.events == [.reply(r1, reply, at: t0)])
    }

    @Test("no realtime URL, or no connector, is an issue and a notFound answer", arguments: [false, true])
    func realtimeUnavailable(hasURL: Bool) async throws {
        let runner = Sample.runner(
            EffectScript(), transport: ScriptedTransport { _ in .failure(.network) }, clock: clock,
            contract: StubContract(hasRealtime: hasURL), realtime: nil)
        let issues = await runner.issues()
        await runner.send(EffectScript.Intent([.send(r1, .openRealtime(AccessToken("access-1")))]))
        #expect(await runner.state.phase.events == [.reply(r1, .failed(.notFound(nil)), at: t0)])
        let issue = await issues.prefixArray(1).first
        guard case .realtimeUnavailable = issue else {
            Issue.record("expected realtimeUnavailable, got \(String(describing: issue))")
            return
        }
    }

    @Test("stop cancels work, ends the streams and ignores later events")
    func stop() async throws {
        let gate = Gate()
        let transport = ScriptedTransport { _ in await gate.wait() ? Answers.status(200) : .failure(.cancelled) }
        let runner = Sample.runner(EffectScript(), transport: transport, clock: clock)
        let outcomes = await runner.outcomes()
        await runner.send(EffectScript.Intent([.send(r1, .refresh(RefreshToken("refresh-0"))), .schedule(.reconnect, at: t0 + .seconds(1))]))
        await runner.stop()
        #expect(await runner.inFlight.isEmpty)
        #expect(await runner.scheduledTimers.isEmpty)
        #expect(clock.pendingDeadlines.isEmpty)
        await runner.send(EffectScript.Intent([.emit(.offline)]))
        #expect(await outcomes.prefixArray(1).isEmpty)
        gate.open()
    }
}
