/// Sign-in with an identifier and a password, for all five backends.
///
/// Everday's `403` "Account pending approval…" leads to a pending-approval phase, not an error
/// screen (the contract tells it from other 403s by the server's message); Subspace's `429` leads
/// to a rate-limited phase until the retry time. `RequirePasswordChange` is the session's to enforce.
public struct PasswordSignIn: EntryFlow {
    /// How accounts are named on this backend.
    public enum IdentifierKind: Hashable, Sendable {
        /// By email.
        case email
        /// By username (Everday).
        case username
        /// By email, or by phone when the input has no `@` (Hero365 `/signin` and `/signin/phone`).
        case emailOrPhone
    }

    /// How accounts are named.
    public var identifiers: IdentifierKind
    /// How long to wait after a 429 that carried no `Retry-After` (Subspace: "wait 1 minute").
    public var defaultRetryAfter: Interval

    /// A sign-in flow.
    public init(identifiers: IdentifierKind, defaultRetryAfter: Interval = .seconds(60)) {
        self.identifiers = identifiers
        self.defaultRetryAfter = defaultRetryAfter
    }

    /// Where the user is in password sign-in.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["enteringCredentials", "signingIn", "pendingApproval", "rateLimited", "signedIn"]

        /// The user types an identifier and a password.
        case enteringCredentials
        /// Credentials were sent; waiting for the verdict.
        case signingIn(SignInIdentifier, RequestID)
        /// The account exists but awaits a parent's approval (Everday); trying again later is allowed.
        case pendingApproval(SignInIdentifier)
        /// The server asked to wait (429); sign-in is refused locally until `until`.
        case rateLimited(until: Instant)
        /// Signed in: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case signedIn(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["submit", "startOver"]

        /// Sign in with these credentials.
        case submit(identifier: String, password: PasswordInput)
        /// Go back to entering credentials, abandoning any request in flight.
        case startOver
    }

    /// Starts by asking for credentials.
    public var initialPhase: Phase { .enteringCredentials }

    /// The grant once signed in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// Whether the account awaits a parent's approval.
    public func awaitsApproval(_ phase: Phase) -> Bool {
        if case .pendingApproval = phase { return true }
        return false
    }

    /// Validates a typed identifier for this backend.
    public func identifier(_ raw: String) -> Result<SignInIdentifier, ValidationError> {
        switch identifiers {
        case .email: Email.validate(raw).map(SignInIdentifier.email)
        case .username: Username.validate(raw).map(SignInIdentifier.username)
        case .emailOrPhone:
            raw.contains("@")
                ? Email.validate(raw).map(SignInIdentifier.email) : PhoneNumber.validate(raw).map(SignInIdentifier.phone)
        }
    }

    /// When the server's rate limit ends.
    public var timers: [TimerID] { [.rateLimitEnds] }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, let now): return handle(intent, id, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, _): return withdraw(intent, &phase, &requests)
        case .tick(let now):
            switch phase {
            case .rateLimited(let until) where now >= until:
                phase = .enteringCredentials
                return []
            case .enteringCredentials, .signingIn, .pendingApproval, .rateLimited, .signedIn:
                return []  // Nothing is due.
            }
        case .launched: return []  // The vault is the session's.
        }
    }

    private func handle(
        _ intent: Intent, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        switch phase {
        case .enteringCredentials, .pendingApproval, .rateLimited:
            if case .rateLimited(let until) = phase, now < until { return [.reject(id, .rateLimited(until: until))] }
            switch intent {
            case .submit(let rawIdentifier, let rawPassword):
                var effects: [AuthEffect] = []
                guard let identifier = identifier(rawIdentifier).valueOrReject(id, into: &effects),
                    let password = Password.validate(rawPassword).valueOrReject(id, into: &effects)
                else { return effects }
                let request = requests.issue(for: id)
                phase = .signingIn(identifier, request)
                return [.send(request, .signIn(identifier, password))]
            case .startOver:
                let changed = phase != .enteringCredentials
                phase = .enteringCredentials
                return [.finish(id, changed ? .done : .unchanged)]
            }
        case .signingIn(_, let request):
            switch intent {
            case .submit: return [.reject(id, .busy)]
            case .startOver:
                phase = .enteringCredentials  // The request in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .submit, .startOver: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signingIn(let identifier, let current) where current == id:
            switch reply.grantOrFailure {
            case .success(let grant):
                phase = .signedIn(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .failure(.pendingApproval(let message)):
                phase = .pendingApproval(identifier)
                return requests.finish(waitingFor: id, .pendingApproval(message))
            case .failure(.rateLimited(let retryAfter)):
                let until = now + (retryAfter ?? defaultRetryAfter)
                phase = .rateLimited(until: until)
                return [.schedule(.rateLimitEnds, at: until)] + requests.finish(waitingFor: id, .failed(.rateLimited(retryAfter: retryAfter)))
            case .failure(let failure):
                phase = .enteringCredentials
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .enteringCredentials, .signingIn, .pendingApproval, .rateLimited, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    private func withdraw(_ intent: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .signingIn(_, let request) where requests.intent(waitingFor: request) == intent:
            phase = .enteringCredentials
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .enteringCredentials, .signingIn, .pendingApproval, .rateLimited, .signedIn:
            return []  // Not waiting here: already finished.
        }
    }
}
