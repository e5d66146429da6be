import Testing
@testable import AuthCore

/// The combinators route a flow's own intent (and embed a flow's own phase) by its type, so no
/// caller spells a composition's nesting. (The combinators' tests are the one place where the
/// nesting is spelled: to show where the routed value lands.)
@Suite("Routing by flow type")
struct RoutingTests {
    @Test("Anonymous Wall: each flow's intent lands in that flow, the session's in the session")
    func anonymousWall() {
        let app = Apps.anonymousWall()
        #expect(app.route(CodeRegistration.Intent.submitEmail(Samples.emailText)) == .entry(.first(.submitEmail(Samples.emailText))))
        #expect(app.route(PasswordSignIn.Intent.startOver) == .entry(.second(.first(.startOver))))
        #expect(app.route(OneTimeCodeSignIn.Intent.requestNewCode) == .entry(.second(.second(.first(.requestNewCode)))))
        #expect(
            app.route(PasswordReset.Intent.requestReset(Samples.emailText)) == .entry(.second(.second(.second(.requestReset(Samples.emailText))))))
        #expect(app.route(SessionLifecycle.Intent.logout) == .session(.logout))
    }

    @Test("an intent no flow takes is not routed; an app intent routes to itself")
    func unrouted() {
        let app = Apps.subspace()
        #expect(app.route(PasswordReset.Intent.startOver) == nil, "Subspace composes no password reset")
        #expect(app.route(OAuthSignIn.Intent.cancel) == .entry(.second(.second(.cancel))), "its native sign-in is an OAuthSignIn")
        #expect(app.route("submit") == nil)
        #expect(app.route(SubspaceApp.Intent.session(.logout)) == .session(.logout))
    }

    @Test("VynqTalk: the session's and the connection's intents reach the halves of the realtime session")
    func realtime() {
        let app = Apps.vynqTalk()
        #expect(app.route(SessionLifecycle.Intent.logout) == .session(.session(.logout)))
        #expect(app.route(RealtimeConnection.Intent.disconnect) == .session(.connection(.disconnect)))
        #expect(app.route(PasswordSignIn.Intent.startOver) == .entry(.second(.startOver)))
    }

    @Test("inserting a flow into a composition changes no caller: the same leaf intent reaches the same flow and does the same")
    func insertingAFlow() {
        let small = Handover(
            entry: PasswordSignIn(identifiers: .email), session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored)))
        let large = Handover(
            entry: OneOf(Registration(forms: [.nameEmailPassword]), OneOf(OneTimeCodeSignIn(channel: .email), PasswordSignIn(identifiers: .email))),
            session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored)))
        let submit = PasswordSignIn.Intent.submit(identifier: Samples.emailText, password: Samples.passwordInput)
        var smallState = small.initial
        var largeState = large.initial
        let smallEffects = small.reduce(&smallState, .intent(small.intent(submit), id: Samples.intent, at: Samples.t0))
        largeState.phase = large.at(PasswordSignIn.Phase.enteringCredentials)
        let largeEffects = large.reduce(&largeState, .intent(large.intent(submit), id: Samples.intent, at: Samples.t0))
        #expect(smallEffects == largeEffects)
        #expect(!smallEffects.isEmpty)
        #expect(large.embed(PasswordSignIn.Phase.enteringCredentials) == .signedOut(.second(.second(.enteringCredentials))))
    }

    @Test("embedding: a flow's phase becomes the composition's phase with that flow active; an unknown phase type embeds nowhere")
    func embedding() {
        let app = Apps.hero365()
        #expect(app.embed(Registration.Phase.editing) == .signedOut(.first(.editing)))
        #expect(app.embed(SessionLifecycle.Phase.signedOut) == .signedIn(.signedOut))
        #expect(app.embed(RealtimeConnection.Phase.idle) == nil)
    }
}
