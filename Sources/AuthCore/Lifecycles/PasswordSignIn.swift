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

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let now): return handle(intent, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase)
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

    private func handle(_ intent: Intent, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .enteringCredentials, .pendingApproval, .rateLimited:
            switch intent {
            case .submit(let rawIdentifier, let rawPassword):
                if case .rateLimited(let until) = phase, now < until { return [.reject(.rateLimited(until: until))] }
                var effects: [AuthEffect] = []
                guard let identifier = identifier(rawIdentifier).valueOrReject(into: &effects),
                    let password = Password.validate(rawPassword).valueOrReject(into: &effects)
                else { return effects }
                let id = requests.issue()
                phase = .signingIn(identifier, id)
                return [.send(id, .signIn(identifier, password))]
            case .startOver:
                if case .rateLimited(let until) = phase, now < until { return [.reject(.rateLimited(until: until))] }
                phase = .enteringCredentials
                return []
            }
        case .signingIn:
            switch intent {
            case .submit: return [.reject(.busy)]
            case .startOver:
                phase = .enteringCredentials  // The request in flight becomes stale.
                return []
            }
        case .signedIn:
            switch intent {
            case .submit, .startOver: return [.reject(.alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase) -> [AuthEffect] {
        switch phase {
        case .signingIn(let identifier, let current) where current == id:
            switch reply.grantOrFailure {
            case .success(let grant):
                phase = .signedIn(grant)
                return []
            case .failure(.pendingApproval(let message)):
                phase = .pendingApproval(identifier)
                return [.emit(.pendingApproval(message))]
            case .failure(.rateLimited(let retryAfter)):
                let until = now + (retryAfter ?? defaultRetryAfter)
                phase = .rateLimited(until: until)
                return [.fail(.rateLimited(retryAfter: retryAfter)), .schedule(.rateLimitEnds, at: until)]
            case .failure(let failure):
                phase = .enteringCredentials
                return [.fail(failure)]
            }
        case .enteringCredentials, .signingIn, .pendingApproval, .rateLimited, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }
}
