import AuthCore
import AuthVerification

extension Broken {
    // MARK: OpenID Connect sign-in

    /// A callback is taken for the pending attempt whatever `state` it carries (the CSRF check
    /// left out, as clients that compare `state` only when present do).
    static let callbackStateIgnored = Mutant<OpenIDSignIn>(OpenIDModel.signIn) { base, phase, event, requests in
        guard case .intent(.callback(let response), let id, let at) = event, case .awaitingCallback(let attempt) = phase else {
            return base.step(&phase, event, &requests)
        }
        let forged: AuthorizationResponse =
            switch response {
            case .code(let code, _, let issuer): .code(code, state: attempt.state, issuer: issuer)
            case .error(let error, let description, _, let issuer): .error(error, description: description, state: attempt.state, issuer: issuer)
            }
        return base.step(&phase, .intent(.callback(forged), id: id, at: at), &requests)
    }

    /// A code exchange that failed on the network is sent again with the same code (a retry
    /// policy applied to a one-time code).
    static let codeExchangeRetried = Remembering<OpenIDSignIn, CodeExchange>(OpenIDModel.signIn) { base, phase, memory, event, requests in
        if case .reply(let id, .failed(.network), _) = event, case .exchangingCode(let nonce, let current) = phase, current == id,
            let exchange = memory
        {
            var effects = base.step(&phase, event, &requests)
            let again = requests.issue()
            phase = .exchangingCode(nonce: nonce, again)
            effects.append(.send(again, .exchangeCode(exchange)))
            return effects
        }
        let effects = base.step(&phase, event, &requests)
        for effect in effects { if case .send(_, .exchangeCode(let exchange)) = effect { memory = exchange } }
        return effects
    }

    /// The ID token's `nonce` is not compared with the attempt's (a client that checks `iss`,
    /// `aud` and `exp` but forgets the replay defence).
    static let nonceNotCompared = Mutant<OpenIDSignIn>(OpenIDModel.signIn) { base, phase, event, requests in
        guard case .reply(let id, .granted(var grant), let at) = event, case .exchangingCode(let nonce, _) = phase, grant.idToken != nil
        else { return base.step(&phase, event, &requests) }
        grant.idToken?.nonce = nonce
        return base.step(&phase, .reply(id, .granted(grant), at: at), &requests)
    }

    /// The authorization URL carries the verifier itself where its S256 challenge belongs (a
    /// client that sends `code_challenge_method=plain` with the verifier in the clear).
    static let verifierInTheAuthorizationURL = Mutant<OpenIDSignIn>(OpenIDModel.signIn) { base, phase, event, requests in
        guard case .intent(.begin(let attempt), let id, _) = event else { return base.step(&phase, event, &requests) }
        return base.step(&phase, event, &requests).map { effect in
            guard case .finish(id, _) = effect else { return effect }
            return .finish(id, .authorizationURL(OpenIDModel.issuer + "/authorize?code_challenge=" + attempt.verifier.reveal()))
        }
    }

    /// The ID token's `iss` and `aud` are not compared with the provider's and the client's (a
    /// client that checks only the nonce and the expiry: the mix-up attack's opening).
    static let idTokenAudienceUnchecked = Mutant<OpenIDSignIn>(OpenIDModel.signIn) { base, phase, event, requests in
        guard case .reply(let id, .granted(var grant), let at) = event, case .exchangingCode = phase, grant.idToken != nil
        else { return base.step(&phase, event, &requests) }
        grant.idToken?.issuer = OpenIDModel.issuer
        grant.idToken?.audiences = [OpenIDModel.clientID]
        grant.idToken?.authorizedParty = nil
        return base.step(&phase, .reply(id, .granted(grant), at: at), &requests)
    }

    // MARK: The device authorization grant

    /// A `slow_down` is taken for `authorization_pending`: the device polls on at the interval it
    /// had (a client that reads only whether the answer is a grant).
    static let slowDownIgnored = Mutant<DeviceSignIn>(OpenIDModel.deviceSignIn) { base, phase, event, requests in
        guard case .reply(let id, .device(.slowDown), let at) = event else { return base.step(&phase, event, &requests) }
        return base.step(&phase, .reply(id, .device(.authorizationPending), at: at), &requests)
    }
}
