/// What came back to the app's callback URL after the provider's page, as the runtime read it.
public enum OAuthCallback: Hashable, Sendable, CustomStringConvertible {
    /// Tokens for the attempt named `attempt` (the `state` the runtime added to the redirect).
    case tokens(attempt: String, Grant)
    /// The provider or user cancelled, or the provider reported an error, for that attempt.
    case failure(attempt: String, String?)

    /// The attempt the callback names.
    public var attempt: String {
        switch self {
        case .tokens(let attempt, _), .failure(let attempt, _): attempt
        }
    }

    /// `tokens(attempt: s1, grant(…))` or `failure(attempt: s1)`: the attempt, and the grant as it
    /// prints itself (tokens only as their kind, the user only by id). A failure's message from the
    /// provider is left out.
    public var description: String {
        switch self {
        case .tokens(let attempt, let grant): "tokens(attempt: \(attempt), \(grant))"
        case .failure(let attempt, _): "failure(attempt: \(attempt))"
        }
    }
}

/// OAuth sign-in (Hero365 `/oauth/{provider}` for google, apple, github): fetch the provider's URL,
/// await the callback, and accept a callback carrying tokens only if it names the pending attempt.
/// A server that hands out no URL (Hero365's deployed one names its native endpoints instead)
/// finishes `begin` with ``Completion/nativeSignInRequired(_:)``, and the app signs in natively:
/// ``Intent/signInNatively(provider:identityToken:userIdentifier:authorizationCode:givenName:familyName:email:)``
/// with the identity token the provider's SDK gave it.
///
/// The attempt name is data from outside (the runtime makes a random `state`), so the reducer
/// stays deterministic.
public struct OAuthSignIn: EntryFlow {
    /// Providers this backend supports; others are refused locally.
    public var providers: [OAuthProvider]
    /// Providers this backend signs in natively, with an identity token; others are refused locally.
    public var nativeProviders: [OAuthProvider]

    /// An OAuth flow for `providers`, signing in natively with `nativeProviders` (Hero365's
    /// `/auth/apple/signin` and `/auth/google/signin`).
    public init(providers: [OAuthProvider] = OAuthProvider.allCases, nativeProviders: [OAuthProvider] = [.apple, .google]) {
        self.providers = providers
        self.nativeProviders = nativeProviders
    }

    /// Where the user is in OAuth sign-in.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["choosingProvider", "fetchingURL", "awaitingCallback", "signingInNatively", "signedIn"]

        /// The user picks a provider.
        case choosingProvider
        /// The provider's URL was requested for this attempt; waiting for the server.
        case fetchingURL(OAuthProvider, attempt: String, RequestID)
        /// The provider's page is open; only a callback for `attempt` is accepted.
        case awaitingCallback(OAuthProvider, attempt: String)
        /// The provider's identity token was sent; waiting for the server's grant.
        case signingInNatively(OAuthProvider, RequestID)
        /// Signed in: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case signedIn(Grant)
    }

    /// What the user (or the system, for callbacks) can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["begin", "callback", "cancel", "signInNatively"]

        /// Start with this provider; `attempt` is a fresh random `state` from the runtime.
        case begin(provider: String, attempt: String)
        /// The app was opened through its callback URL.
        /// (Indirect: the largest payload, which would size every intent of a nest of flows.)
        indirect case callback(OAuthCallback)
        /// Give up on the pending attempt.
        case cancel
        /// Sign in with the identity token the provider's SDK gave the app (and, for Apple, its
        /// user identifier, its one-time authorization code, and the name and email the user
        /// shared, which Apple gives only at the first authorization). The token and the code are
        /// secrets: they print redacted. Blank names, email or code count as none.
        /// (Indirect: a large payload, which would size every intent of a nest of flows.)
        indirect case signInNatively(
            provider: String, identityToken: IdentityToken, userIdentifier: String?, authorizationCode: AuthorizationCode? = nil,
            givenName: String? = nil, familyName: String? = nil, email: String? = nil)
    }

    /// Starts by asking for a provider.
    public var initialPhase: Phase { .choosingProvider }

    /// The grant once signed in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, _): return handle(intent, id, &phase, &requests)
        case .reply(let id, let reply, _): return handle(reply, to: id, &phase, &requests)
        case .withdrawn(let intent, _):
            let waiting: RequestID? =
                switch phase {
                case .fetchingURL(_, _, let request), .signingInNatively(_, let request): request
                case .choosingProvider, .awaitingCallback, .signedIn: nil
                }
            guard let request = waiting, requests.intent(waitingFor: request) == intent else {
                return []  // Not waiting here: already finished.
            }
            phase = .choosingProvider
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .tick, .launched: return []  // No deadlines here; the vault is the session's.
        }
    }

    private func handle(_ intent: Intent, _ id: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .choosingProvider, .awaitingCallback:
            switch intent {
            case .begin(let name, let attempt):
                guard let provider = OAuthProvider(rawValue: name.trimmedForInput.lowercased()), providers.contains(provider)
                else { return [.reject(id, .invalid(.unsupportedProvider))] }
                let request = requests.issue(for: id)
                phase = .fetchingURL(provider, attempt: attempt, request)
                return [.send(request, .oauthURL(provider))]
            case .callback(let callback):
                guard case .awaitingCallback(_, let pending) = phase, callback.attempt == pending else {
                    return [.reject(id, .callbackMismatch)]
                }
                switch callback {
                case .tokens(_, let grant):
                    phase = .signedIn(grant)
                    return [.finish(id, .signedIn(grant.user))]
                case .failure(_, let message):
                    phase = .choosingProvider
                    return [.finish(id, .failed(.unauthorized(message)))]
                }
            case .cancel:
                let changed = phase != .choosingProvider
                phase = .choosingProvider
                return [.finish(id, changed ? .done : .unchanged)]
            case .signInNatively(let name, let token, let userIdentifier, let code, let givenName, let familyName, let email):
                guard let provider = OAuthProvider(rawValue: name.trimmedForInput.lowercased()), nativeProviders.contains(provider)
                else { return [.reject(id, .invalid(.unsupportedProvider))] }
                guard !token.reveal().trimmedForInput.isEmpty else { return [.reject(id, .invalid(.identityTokenEmpty))] }
                let request = requests.issue(for: id)
                phase = .signingInNatively(provider, request)  // A pending browser attempt is abandoned.
                let details = NativeSignIn(
                    provider: provider, identityToken: token, userIdentifier: userIdentifier,
                    authorizationCode: code.flatMap { $0.reveal().trimmedForInput.isEmpty ? nil : $0 }, givenName: Self.shared(givenName),
                    familyName: Self.shared(familyName), email: Self.shared(email))
                return [.send(request, .signInNatively(details))]
            }
        case .fetchingURL(_, _, let request), .signingInNatively(_, let request):
            switch intent {
            case .begin, .signInNatively: return [.reject(id, .busy)]
            case .callback: return [.reject(id, .callbackMismatch)]
            case .cancel:
                phase = .choosingProvider  // The request in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .begin, .cancel, .signInNatively: return [.reject(id, .alreadySignedIn)]
            case .callback: return [.reject(id, .callbackMismatch)]
            }
        }
    }

    /// A name part or email the SDK shared, trimmed; `nil` when blank.
    private static func shared(_ value: String?) -> String? {
        guard let trimmed = value?.trimmedForInput, !trimmed.isEmpty else { return nil }
        return trimmed
    }

    private func handle(_ reply: Reply, to id: RequestID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .fetchingURL(let provider, let attempt, let current) where current == id:
            switch reply {
            case .authorizationURL(let url):
                phase = .awaitingCallback(provider, attempt: attempt)
                return requests.finish(waitingFor: id, .authorizationURL(url))
            case .nativeSignInRequired:
                phase = .choosingProvider  // No browser round trip: the app signs in natively next.
                return requests.finish(waitingFor: id, .nativeSignInRequired(provider))
            case .failed(let failure):
                phase = .choosingProvider
                return requests.finish(waitingFor: id, .failed(failure))
            case .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .device, .realtimeOpened,
                .realtimeClosed:
                phase = .choosingProvider
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .signingInNatively(_, let current) where current == id:
            switch reply {
            case .granted(let grant):
                phase = .signedIn(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .failed(let failure):
                phase = .choosingProvider
                return requests.finish(waitingFor: id, .failed(failure))
            case .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
                .realtimeOpened, .realtimeClosed:
                phase = .choosingProvider
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .choosingProvider, .fetchingURL, .awaitingCallback, .signingInNatively, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }
}
