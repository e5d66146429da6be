/// Where a one-time code goes.
public enum CodeDestination: Hashable, Sendable, CustomStringConvertible {
    /// An email (Anonymous Wall code login, purpose `login`).
    case email(Email)
    /// A phone (Hero365 `/auth/otp/send`).
    case phone(PhoneNumber)

    /// The destination (not a secret).
    public var description: String {
        switch self {
        case .email(let email): "email(\(email))"
        case .phone(let phone): "phone(\(phone))"
        }
    }
}

/// One outstanding code: where it went, until when it works, when another may be requested,
/// and how many more tries it allows.
public struct CodeChallenge: Hashable, Sendable, CustomStringConvertible {
    /// Where the code went.
    public var destination: CodeDestination
    /// After this instant the code is refused locally.
    public var expiresAt: Instant
    /// From this instant another code may be requested.
    public var resendAt: Instant
    /// Verifications still allowed for this code.
    public var attemptsLeft: Int

    /// Creates a challenge.
    public init(destination: CodeDestination, expiresAt: Instant, resendAt: Instant, attemptsLeft: Int) {
        self.destination = destination
        self.expiresAt = expiresAt
        self.resendAt = resendAt
        self.attemptsLeft = attemptsLeft
    }

    /// Every field, as `challenge(<destination>, expires: <instant>, resend: <instant>,
    /// attemptsLeft: <n>)`: the destination is an address or a phone number, not a secret, and a
    /// challenge holds no code to leave out.
    public var description: String {
        "challenge(\(destination), expires: \(expiresAt), resend: \(resendAt), attemptsLeft: \(attemptsLeft))"
    }
}

/// Sign-in with a one-time code, one reducer for both channels: Anonymous Wall's email code login
/// and Hero365's phone OTP.
///
/// A new code only after the cooldown (Hero365: "allow OTP resend after 30-60 seconds"); a code is
/// refused locally after its lifetime; verifications per code are bounded; only the latest
/// challenge accepts a code; at most one verification is in flight; nothing is retried by itself.
/// A code submitted while the server has asked to wait (a 429 with `Retry-After`) is answered at
/// once with the time left and costs no attempt: it never reaches the server. A code the server
/// itself answers 429 has reached it, and counts.
public struct OneTimeCodeSignIn: EntryFlow {
    /// Which channel this flow uses.
    public enum Channel: Hashable, Sendable {
        /// Email codes.
        case email
        /// SMS codes.
        case phone
    }

    /// The channel.
    public var channel: Channel
    /// How long after a code was sent another may be requested (30–60 s).
    public var resendCooldown: Interval
    /// How long a code works.
    public var codeLifetime: Interval
    /// Verifications allowed per code.
    public var maxAttempts: Int

    /// A flow for `channel`.
    public init(channel: Channel, resendCooldown: Interval = .seconds(30), codeLifetime: Interval = .seconds(300), maxAttempts: Int = 3) {
        self.channel = channel
        self.resendCooldown = resendCooldown
        self.codeLifetime = codeLifetime
        self.maxAttempts = maxAttempts
    }

    /// Where the user is in code sign-in.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = [
            "enteringDestination", "requestingCode", "awaitingCode", "resendingCode", "verifying", "codeExpired", "attemptsExhausted", "signedIn",
        ]

        /// The user types an email or phone number.
        case enteringDestination
        /// A code was requested for this destination; waiting for the server.
        case requestingCode(CodeDestination, RequestID)
        /// A code is outstanding and still works; the user types it.
        case awaitingCode(CodeChallenge)
        /// A new code was requested while this challenge was outstanding; no code is accepted until it is answered.
        case resendingCode(CodeChallenge, RequestID)
        /// The code was submitted; waiting for the verdict. The challenge already counts this attempt.
        case verifying(CodeChallenge, RequestID)
        /// The outstanding code's lifetime ended; only a new code helps.
        case codeExpired(CodeChallenge)
        /// Too many wrong codes for this challenge; only a new code helps.
        case attemptsExhausted(CodeChallenge)
        /// Signed in: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case signedIn(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["submitDestination", "requestNewCode", "submitCode", "startOver"]

        /// Request a code for this email or phone.
        case submitDestination(String)
        /// Request another code for the same destination.
        case requestNewCode
        /// Sign in with this code.
        case submitCode(CodeInput)
        /// Go back to entering a destination, abandoning any request in flight.
        case startOver
    }

    /// Starts by asking for a destination.
    public var initialPhase: Phase { .enteringDestination }

    /// The grant once signed in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// When a code may be requested again, and when it expires.
    public var timers: [TimerID] { [.resendAvailable, .codeExpiry] }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, let now): return handle(intent, id, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, let now): return withdraw(intent, at: now, &phase, &requests)
        case .tick(let now): return expireIfDue(at: now, &phase)
        case .launched: return []  // The vault is the session's.
        }
    }

    private func destination(_ raw: String) -> Result<CodeDestination, ValidationError> {
        switch channel {
        case .email: Email.validate(raw).map(CodeDestination.email)
        case .phone: PhoneNumber.validate(raw).map(CodeDestination.phone)
        }
    }

    private func sendCode(to destination: CodeDestination) -> APIRequest {
        switch destination {
        case .email(let email): .sendEmailCode(email, .login)
        case .phone(let phone): .sendPhoneCode(phone)
        }
    }

    private func verify(_ code: VerificationCode, for destination: CodeDestination) -> APIRequest {
        switch destination {
        case .email(let email): .signInWithEmailCode(email, code)
        case .phone(let phone): .signInWithPhoneCode(phone, code)
        }
    }

    /// The phase a challenge is in when no request is in flight.
    private func resting(_ challenge: CodeChallenge, at now: Instant) -> Phase {
        if challenge.attemptsLeft <= 0 { return .attemptsExhausted(challenge) }
        if now >= challenge.expiresAt { return .codeExpired(challenge) }
        return .awaitingCode(challenge)
    }

    private func handle(
        _ intent: Intent, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        var effects: [AuthEffect] = []
        switch phase {
        case .enteringDestination, .awaitingCode, .codeExpired, .attemptsExhausted:
            let challenge: CodeChallenge? =
                switch phase {
                case .awaitingCode(let c), .codeExpired(let c), .attemptsExhausted(let c): c
                case .enteringDestination, .requestingCode, .resendingCode, .verifying, .signedIn: nil
                }
            switch intent {
            case .submitDestination(let raw):
                guard let destination = destination(raw).valueOrReject(id, into: &effects) else { return effects }
                if let challenge, challenge.destination == destination, now < challenge.resendAt {
                    return [.reject(id, .resendCooldown(until: challenge.resendAt))]
                }
                if let until = requests.cooldown(for: .destination(destination, .login), at: now) {
                    return [.reject(id, .resendCooldown(until: until))]  // Sent before starting over or switching flows.
                }
                let request = requests.issue(for: id)
                phase = .requestingCode(destination, request)
                return [.send(request, sendCode(to: destination))]
            case .requestNewCode:
                guard let challenge else { return [.reject(id, .notAvailableNow)] }
                guard now >= challenge.resendAt else { return [.reject(id, .resendCooldown(until: challenge.resendAt))] }
                let request = requests.issue(for: id)
                phase = .resendingCode(challenge, request)
                return [.send(request, sendCode(to: challenge.destination))]
            case .submitCode(let raw):
                guard var challenge else { return [.reject(id, .notAvailableNow)] }
                guard challenge.attemptsLeft > 0 else { return [.reject(id, .attemptsExhausted)] }
                guard now < challenge.expiresAt else {
                    phase = .codeExpired(challenge)
                    return [.reject(id, .codeExpired)]
                }
                guard let code = VerificationCode.validate(raw).valueOrReject(id, into: &effects) else { return effects }
                let verification = verify(code, for: challenge.destination)
                if let endpoint = verification.endpoint, let until = requests.serverWait(for: endpoint, at: now) {
                    // The server asked to wait: refused before any request, with the server's time, and
                    // the code never reaches it, so the attempt is not spent (the machine would hold the
                    // request after counting it).
                    return [.reject(id, .rateLimited(until: until))]
                }
                challenge.attemptsLeft -= 1
                let request = requests.issue(for: id)
                phase = .verifying(challenge, request)
                return [.send(request, verification)]
            case .startOver:
                // The resend cooldown outlives the challenge (it is kept in the context), so its timer runs on.
                let changed = phase != .enteringDestination
                phase = .enteringDestination
                return [.cancelTimer(.codeExpiry), .finish(id, changed ? .done : .unchanged)]
            }
        case .requestingCode(_, let request), .resendingCode(_, let request), .verifying(_, let request):
            switch intent {
            case .submitDestination, .requestNewCode, .submitCode: return [.reject(id, .busy)]
            case .startOver:
                phase = .enteringDestination  // The request in flight becomes stale; the resend cooldown runs on.
                return [.cancelTimer(.codeExpiry)] + requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .submitDestination, .requestNewCode, .submitCode, .startOver: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .requestingCode(let destination, let current) where current == id:
            switch reply.acceptedOrFailure {
            case .success: return issueChallenge(to: destination, for: id, at: now, &phase, &requests)
            case .failure(let failure):
                phase = .enteringDestination
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .resendingCode(let challenge, let current) where current == id:
            switch reply.acceptedOrFailure {
            case .success: return issueChallenge(to: challenge.destination, for: id, at: now, &phase, &requests)
            case .failure(let failure):
                phase = resting(challenge, at: now)
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .verifying(let challenge, let current) where current == id:
            switch reply.grantOrFailure {
            case .success(let grant):
                phase = .signedIn(grant)
                return [.cancelTimer(.codeExpiry), .cancelTimer(.resendAvailable)] + requests.finish(waitingFor: id, .signedIn(grant.user))
            case .failure(let failure):
                phase = resting(challenge, at: now)
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .enteringDestination, .requestingCode, .awaitingCode, .resendingCode, .verifying, .codeExpired,
            .attemptsExhausted, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    private func issueChallenge(
        to destination: CodeDestination, for request: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        let challenge = CodeChallenge(
            destination: destination, expiresAt: now + codeLifetime, resendAt: now + resendCooldown,
            attemptsLeft: maxAttempts)
        phase = .awaitingCode(challenge)
        requests.codeSent(to: .destination(destination, .login), resendAt: challenge.resendAt)
        return [.schedule(.codeExpiry, at: challenge.expiresAt), .schedule(.resendAvailable, at: challenge.resendAt)]
            + requests.finish(waitingFor: request, .codeSent(resendAt: challenge.resendAt, expiresAt: challenge.expiresAt))
    }

    /// The caller stopped waiting: the request is abandoned as if it had failed.
    private func withdraw(_ intent: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .requestingCode(_, let request) where requests.intent(waitingFor: request) == intent:
            phase = .enteringDestination
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .resendingCode(let challenge, let request) where requests.intent(waitingFor: request) == intent,
            .verifying(let challenge, let request) where requests.intent(waitingFor: request) == intent:
            phase = resting(challenge, at: now)
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .enteringDestination, .requestingCode, .awaitingCode, .resendingCode, .verifying, .codeExpired,
            .attemptsExhausted, .signedIn:
            return []  // Not waiting here: already finished.
        }
    }

    private func expireIfDue(at now: Instant, _ phase: inout Phase) -> [AuthEffect] {
        switch phase {
        case .awaitingCode(let challenge) where now >= challenge.expiresAt:
            phase = .codeExpired(challenge)
            return []
        case .enteringDestination, .requestingCode, .awaitingCode, .resendingCode, .verifying, .codeExpired,
            .attemptsExhausted, .signedIn:
            return []  // Nothing is due: a verification in flight is the server's to judge.
        }
    }
}
