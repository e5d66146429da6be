import AuthCore

extension Catalogue {
    // MARK: OpenID Connect sign-in

    /// A callback whose `state` is not the pending attempt's is never accepted: it neither sends a
    /// code to the token endpoint nor signs anyone in. (RFC 6749 §10.12: the client must reject a
    /// redirect whose `state` it did not issue, the CSRF defence; RFC 9700 §4.7.1.)
    public static func foreignCallbackNeverAccepted<M>() -> Invariant<M> {
        Invariant(
            "a callback whose state differs is never accepted", source: "RFC 6749 §10.12; RFC 9700 §4.7.1",
            .step { t in
                let exchanged = t.sent.contains { if case .exchangeCode = $0 { true } else { false } }
                let signedInNow = t.after.isSignedIn && !t.before.isSignedIn
                // Cheap first: only a step that exchanges a code or signs in can accept a callback.
                guard exchanged || signedInNow, case .intent(let intent, _, _) = t.move.event,
                    case .callback(let response)? = OpenIDLeaf.intent(in: intent)
                else { return nil }
                var pending: String?
                if case .awaitingCallback(let attempt)? = t.before.phase(OpenIDSignIn.Phase.self) { pending = attempt.state }
                guard let state = response.state, state == pending else {
                    let what = exchanged ? "exchanged its code" : "signed in"
                    return "a callback for state \(response.state ?? "none") \(what) while \(pending ?? "no attempt") was pending"
                }
                return nil
            })
    }

    /// An authorization code is sent to the token endpoint at most once: only in the step that
    /// takes the callback delivering it, which ends its attempt, so no later callback, answer,
    /// timer or relaunch sends it again. (The provider issues a new code for each attempt; the
    /// models name attempts, and so codes, from a small set, so a code of the same name sent for
    /// a later attempt is another code.)
    /// (RFC 6749 §4.1.2: "The client MUST NOT use the authorization code more than once"; a
    /// second use makes the server revoke the tokens it issued for it, §10.5.)
    public static func codeExchangedAtMostOnce<M>() -> Invariant<M> {
        Invariant(
            "a code is exchanged at most once", source: "RFC 6749 §4.1.2, §10.5",
            .step { t in
                for request in t.sent {
                    guard case .exchangeCode(let exchange) = request else { continue }
                    guard case .intent(let intent, _, _) = t.move.event, case .callback(.code(let code, _, _))? = OpenIDLeaf.intent(in: intent),
                        code == exchange.code
                    else { return "\(request) sent by \(t.move.choice), not by the callback that delivered the code" }
                    if case .awaitingCallback? = t.after.phase(OpenIDSignIn.Phase.self) {
                        return "the attempt is still pending after its code was exchanged"
                    }
                }
                return nil
            })
    }

    /// An ID token whose `nonce` is not the attempt's never signs in: the grant is refused and
    /// nothing is stored. (OpenID Connect Core §3.1.3.7 ¶11: the client must check the `nonce`
    /// it sent, the replay defence; RFC 9700 §4.5.3.)
    public static func foreignNonceNeverSignsIn<M>() -> Invariant<M> {
        Invariant(
            "an ID token with another nonce never signs in", source: "OpenID Connect Core §3.1.3.7; RFC 9700 §4.5.3",
            .step { t in
                guard t.answersCurrentRequest, case .exchangeCode? = t.answered?.request, case .granted(let grant)? = t.reply,
                    case .exchangingCode(let nonce, _)? = t.before.phase(OpenIDSignIn.Phase.self), grant.idToken?.nonce != nonce
                else { return nil }
                // Signed in: the session holds it, or the flow ended signed in (before a handover).
                if t.after.isSignedIn { return "signed in with an ID token whose nonce is not the attempt's" }
                if case .signedIn? = t.after.phase(OpenIDSignIn.Phase.self) {
                    return "the sign-in flow accepted an ID token whose nonce is not the attempt's"
                }
                return t.effects.contains { if case .persist = $0 { true } else { false } }
                    ? "stored a grant whose ID token's nonce is not the attempt's" : nil
            })
    }
}

extension Catalogue {
    /// The PKCE verifier leaves the app only in the token request that exchanges the attempt's
    /// code, and that request carries the attempt's own verifier: never in the authorization URL
    /// (which carries only its S256 challenge), another request, an intent's completion or an
    /// event the app is told. Whoever sees the verifier can redeem an intercepted code. (RFC 7636
    /// §4.1–4.5; RFC 8252 §8.1.)
    public static func verifierOnlyInTheTokenRequest<M>() -> Invariant<M> {
        // Whether an effect carries one of the verifiers is read through `Mirror`, slowly (a
        // quarter of a fresh fuzz step of openIDSignIn): each distinct effect, known by its exact
        // digest, is read once for each list of verifiers.
        let carried = Memo<VerifierScan, Bool>()
        return Invariant(
            "the PKCE verifier leaves only in the token request", source: "RFC 7636 §4.1–4.5; RFC 8252 §8.1",
            .step { t in
                // Cheap first: a step with no effect sends and tells nothing.
                guard !t.effects.isEmpty else { return nil }
                var verifiers: [String] = []
                if case .awaitingCallback(let attempt)? = t.before.phase(OpenIDSignIn.Phase.self) { verifiers.append(attempt.verifier.reveal()) }
                // Only the user begins an attempt: an answer, a timer or a withdrawal creates no verifier.
                if case .intent = t.move.event, case .awaitingCallback(let attempt)? = t.after.phase(OpenIDSignIn.Phase.self) {
                    verifiers.append(attempt.verifier.reveal())
                }
                guard !verifiers.isEmpty else { return nil }
                for effect in t.effects {
                    if case .send(_, .exchangeCode(let exchange)) = effect {
                        if exchange.verifier.reveal() != verifiers[0] { return "a code exchanged with a verifier that is not the attempt's" }
                        continue
                    }
                    let carries: Bool
                    if let digest = Described<M.Intent>.digest(effect) {
                        carries = carried.value(VerifierScan(effect: digest, verifiers: verifiers)) { _ in Self.carries(effect, anyOf: verifiers) }
                    } else {
                        carries = Self.carries(effect, anyOf: verifiers)
                    }
                    if carries { return "the PKCE verifier left in an effect other than the token request" }
                }
                return nil
            })
    }

    /// An effect, by its exact digest (``Survey/digest(_:)``), scanned for a list of verifiers.
    struct VerifierScan: Hashable {
        let effect: Fingerprint
        let verifiers: [String]
    }

    /// Whether `value` holds one of `verifiers`: as a `CodeVerifier`, or inside any text, however
    /// deeply it is nested (a URL in a completion, a field of a request). Read through `Mirror`,
    /// not through descriptions, which hide secrets.
    static func carries(_ value: Any, anyOf verifiers: [String]) -> Bool {
        if let verifier = value as? CodeVerifier { return verifiers.contains(verifier.reveal()) }
        if let text = value as? String { return verifiers.contains { text.contains($0) } }
        return Mirror(reflecting: value).children.contains { carries($0.value, anyOf: verifiers) }
    }

    /// An ID token issued by another provider, for another client, or authorized for another
    /// party never signs in: its `iss` must be the configured issuer exactly, its `aud` must
    /// hold the client id, and when it holds others, its `azp` must be the client id. Stated
    /// for one client of one provider, so the models of OpenID Connect flows add it with their
    /// configuration (``VerifiableLifecycle/invariants(of:)``). (OpenID Connect Core §3.1.3.7
    /// ¶2–5; RFC 9700 §4.4, mix-up.)
    public static func idTokenForThisClient<M>(issuer: String, clientID: String) -> Invariant<M> {
        Invariant(
            "an ID token from another issuer or for another client never signs in", source: "OpenID Connect Core §3.1.3.7; RFC 9700 §4.4",
            .step { t in
                guard t.answersCurrentRequest, case .granted(let grant)? = t.reply, let claims = grant.idToken else { return nil }
                let wrong: String
                if claims.issuer != issuer {
                    wrong = "from another issuer"
                } else if !claims.audiences.contains(clientID) {
                    wrong = "for another client"
                } else if claims.audiences.count > 1, claims.authorizedParty != clientID {
                    wrong = "authorized for another party"
                } else {
                    return nil
                }
                if t.after.isSignedIn, !t.before.isSignedIn { return "signed in with an ID token \(wrong)" }
                if case .signedIn? = t.after.phase(OpenIDSignIn.Phase.self) { return "the sign-in flow accepted an ID token \(wrong)" }
                if case .signedIn? = t.after.phase(DeviceSignIn.Phase.self) { return "the device sign-in accepted an ID token \(wrong)" }
                return nil
            })
    }

    // MARK: The device authorization grant

    /// A device polls the token endpoint no faster than the provider allows: two polls for a
    /// device code are at least its interval apart — the `interval` the device authorization
    /// endpoint sent, 5 seconds when it sent none, and 5 seconds more after each `slow_down` —
    /// the first poll at least the interval after the codes were issued, and no poll once they
    /// have expired. Judged from what was sent and answered, with their times
    /// (``History/devicePolling``, ``History/learnDevicePolling(_:to:at:)``), never from the
    /// flow's own interval.
    /// (RFC 8628 §3.2 `interval`: "If no value is provided, clients MUST use 5 as the default";
    /// §3.4: the client "SHOULD wait at least `interval` seconds between polling requests"; §3.5
    /// `slow_down`: "the interval MUST be increased by 5 seconds for this and all subsequent
    /// requests", and `expired_token`.)
    public static func devicePollingPaced<M>() -> Invariant<M> {
        Invariant(
            "device polling is never faster than the interval, 5 s more after each slow_down", source: "RFC 8628 §3.2, §3.4, §3.5",
            .step { t in
                var codes: [DeviceCode] = []
                for request in t.sent { if case .pollDeviceToken(let code) = request { codes.append(code) } }
                guard let code = codes.first else { return nil }
                guard codes.count == 1 else { return "\(codes.count) device polls sent at once" }
                var history = t.before.world.history
                if t.answersCurrentRequest, let exchange = t.answered, let reply = t.reply {
                    history.learnDevicePolling(reply, to: exchange.request, at: t.after.world.now)  // As the environment learned it.
                }
                let now = t.after.world.now
                guard let polling = history.devicePolling, polling.deviceCode == code else {
                    return "a device poll for a device code the provider did not issue last"
                }
                guard now < polling.expiresAt else { return "a device poll after the device code expired" }
                guard now >= polling.since + polling.interval else {
                    return "a device poll \(now - polling.since) after the last (or the code's issue), under the interval of \(polling.interval)"
                }
                return nil
            })
    }
}

/// Finds OpenID Connect sign-in's intent inside a composition's.
enum OpenIDLeaf {
    /// `OpenIDSignIn.Intent` however deeply `intent` wraps it; `nil` when it is another flow's.
    static func intent(in intent: Any) -> OpenIDSignIn.Intent? {
        var current: Any = intent
        while true {
            if let found = current as? OpenIDSignIn.Intent { return found }
            let mirror = Mirror(reflecting: current)
            guard mirror.displayStyle == .enum, let child = mirror.children.first, child.value is any CaseListing else { return nil }
            current = child.value
        }
    }
}
