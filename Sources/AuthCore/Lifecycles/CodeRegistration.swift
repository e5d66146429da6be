/// Registration by emailed code, then the password is set inside the session (Anonymous Wall,
/// "Registration Flow"): email → `send-code` (purpose `register`) → code → `register/email` →
/// signed in with the password not yet set.
///
/// The code is only ever submitted for the email it was sent to, and only after it was sent.
public struct CodeRegistration: EntryFlow {
    /// How long after a code was sent another may be requested.
    public var resendCooldown: Interval

    /// A registration flow with the given resend cooldown.
    public init(resendCooldown: Interval = .seconds(60)) { self.resendCooldown = resendCooldown }

    /// Where the user is in registration.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["enteringEmail", "sendingCode", "awaitingCode", "resendingCode", "registering", "registered"]

        /// No code requested yet: the user types an email.
        case enteringEmail
        /// A registration code for this email was requested; waiting for the server.
        case sendingCode(Email, RequestID)
        /// A code was sent to this email; the user types it. Another may be requested from `resendAt`.
        case awaitingCode(Email, resendAt: Instant)
        /// A new code was requested while one was outstanding; the old one may still work afterwards.
        case resendingCode(Email, RequestID)
        /// The code was submitted; waiting for the new account.
        case registering(Email, RequestID, resendAt: Instant)
        /// Registered and signed in, password not yet set: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case registered(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["submitEmail", "requestNewCode", "submitCode", "startOver"]

        /// Request a registration code for this email.
        case submitEmail(String)
        /// Request another code for the same email.
        case requestNewCode
        /// Register with this code.
        case submitCode(CodeInput)
        /// Go back to entering an email, abandoning any request in flight.
        case startOver
    }

    /// Starts by asking for an email.
    public var initialPhase: Phase { .enteringEmail }

    /// The grant once registered.
    public func handover(_ phase: Phase) -> Grant? {
        if case .registered(let grant) = phase { return grant }
        return nil
    }

    /// When a code may be requested again.
    public var timers: [TimerID] { [.resendAvailable] }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, let now): return handle(intent, id, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, let now): return withdraw(intent, at: now, &phase, &requests)
        case .tick, .launched: return []  // No deadlines act on their own here; the vault is the session's.
        }
    }

    private func handle(
        _ intent: Intent, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        var effects: [AuthEffect] = []
        switch phase {
        case .enteringEmail, .awaitingCode:
            switch intent {
            case .submitEmail(let raw):
                guard let email = Email.validate(raw).valueOrReject(id, into: &effects) else { return effects }
                if case .awaitingCode(email, let resendAt) = phase, now < resendAt {
                    return [.reject(id, .resendCooldown(until: resendAt))]  // The same address waits out the cooldown.
                }
                if let until = requests.cooldown(for: .destination(.email(email), .register), at: now) {
                    return [.reject(id, .resendCooldown(until: until))]  // Sent before starting over or switching flows.
                }
                let request = requests.issue(for: id)
                phase = .sendingCode(email, request)
                return [.send(request, .sendEmailCode(email, .register))]
            case .requestNewCode:
                guard case .awaitingCode(let email, let resendAt) = phase else { return [.reject(id, .notAvailableNow)] }
                guard now >= resendAt else { return [.reject(id, .resendCooldown(until: resendAt))] }
                let request = requests.issue(for: id)
                phase = .resendingCode(email, request)
                return [.send(request, .sendEmailCode(email, .register))]
            case .submitCode(let raw):
                guard case .awaitingCode(let email, let resendAt) = phase else { return [.reject(id, .notAvailableNow)] }
                guard let code = VerificationCode.validate(raw).valueOrReject(id, into: &effects) else { return effects }
                let request = requests.issue(for: id)
                phase = .registering(email, request, resendAt: resendAt)
                return [.send(request, .registerWithEmailCode(email, code))]
            case .startOver:
                let changed = phase != .enteringEmail
                phase = .enteringEmail
                return [.finish(id, changed ? .done : .unchanged)]
            }
        case .sendingCode(_, let request), .resendingCode(_, let request), .registering(_, let request, _):
            switch intent {
            case .submitEmail, .requestNewCode, .submitCode: return [.reject(id, .busy)]
            case .startOver:
                phase = .enteringEmail  // The request in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .registered:
            switch intent {
            case .submitEmail, .requestNewCode, .submitCode, .startOver: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .sendingCode(let email, let current) where current == id, .resendingCode(let email, let current) where current == id:
            switch reply.acceptedOrFailure {
            case .success:
                let resendAt = now + resendCooldown
                requests.codeSent(to: .destination(.email(email), .register), resendAt: resendAt)
                phase = .awaitingCode(email, resendAt: resendAt)
                return [.schedule(.resendAvailable, at: resendAt)] + requests.finish(waitingFor: id, .codeSent(resendAt: resendAt, expiresAt: nil))
            case .failure(let failure):
                // A first code that failed leaves nothing to wait for; a new one that failed leaves the last one working.
                if case .resendingCode = phase { phase = .awaitingCode(email, resendAt: now) } else { phase = .enteringEmail }
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .registering(let email, let current, let resendAt) where current == id:
            switch reply.grantOrFailure {
            case .success(let grant):
                phase = .registered(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .failure(.conflict(let message)):
                phase = .enteringEmail  // Already registered: sign in instead.
                return requests.finish(waitingFor: id, .failed(.conflict(message)))
            case .failure(.forbidden(let message)):
                phase = .enteringEmail  // Not a school domain.
                return requests.finish(waitingFor: id, .failed(.forbidden(message)))
            case .failure(let failure):
                phase = .awaitingCode(email, resendAt: resendAt)  // Wrong or expired code, or no answer: try again.
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .enteringEmail, .sendingCode, .awaitingCode, .resendingCode, .registering, .registered:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    /// The caller stopped waiting: the request is abandoned as if it had failed.
    private func withdraw(_ intent: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .sendingCode(_, let request) where requests.intent(waitingFor: request) == intent:
            phase = .enteringEmail
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .resendingCode(let email, let request) where requests.intent(waitingFor: request) == intent:
            phase = .awaitingCode(email, resendAt: now)
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .registering(let email, let request, let resendAt) where requests.intent(waitingFor: request) == intent:
            phase = .awaitingCode(email, resendAt: resendAt)
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .enteringEmail, .sendingCode, .awaitingCode, .resendingCode, .registering, .registered:
            return []  // Not waiting here: already finished.
        }
    }
}
