/// Password reset: request → code or token → new password → auto-login where the backend returns
/// a session (Anonymous Wall `/password/reset` answers `accessToken` + `user`), otherwise back to
/// signed-out with a success outcome (Everday `/auth/reset-password`), or only a link sent by
/// email (Hero365 `/password-recovery`, completed outside the app).
///
/// A reset that signs in hands over its own grant: the new session replaces everything.
public struct PasswordReset: EntryFlow {
    /// How a backend completes a reset.
    public enum Style: Hashable, Sendable {
        /// An emailed 6-digit code plus the new password; the answer signs in (Anonymous Wall).
        case emailCodeWithAutoLogin
        /// An emailed token plus the new password; the user then signs in (Everday).
        case emailedToken
        /// Only an email with a link; nothing more happens in the app (Hero365).
        case emailLink
    }

    /// How this backend completes a reset.
    public var style: Style
    /// How long after a request another may be made.
    public var resendCooldown: Interval

    /// A reset flow.
    public init(style: Style, resendCooldown: Interval = .seconds(60)) {
        self.style = style
        self.resendCooldown = resendCooldown
    }

    /// Where the user is in a reset.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = [
            "enteringIdentifier", "requesting", "requestingAgain", "awaitingProof", "resetting", "linkSent", "completed", "signedIn",
        ]

        /// The user types an email (or, on Everday, a username or email).
        case enteringIdentifier
        /// A reset was requested; waiting for the server.
        case requesting(ResetIdentifier, RequestID)
        /// Another code or token was requested while one was outstanding; if this fails, the outstanding one still works.
        case requestingAgain(ResetIdentifier, RequestID)
        /// A code or token was sent; the user types it with a new password. Another may be requested from `resendAt`.
        case awaitingProof(ResetIdentifier, resendAt: Instant)
        /// The proof and new password were sent; waiting for the verdict.
        case resetting(ResetIdentifier, RequestID, resendAt: Instant)
        /// A reset link was emailed; the rest happens outside the app.
        case linkSent
        /// The password was reset; the user signs in with it.
        case completed
        /// The password was reset and the answer signed the user in: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case signedIn(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["requestReset", "requestAgain", "submitCode", "submitToken", "startOver"]

        /// Request a reset for this email (or Everday identifier).
        case requestReset(String)
        /// Request another code or token for the same identifier.
        case requestAgain
        /// Complete with an emailed code (Anonymous Wall).
        case submitCode(CodeInput, newPassword: PasswordInput)
        /// Complete with an emailed token (Everday).
        case submitToken(ResetToken, newPassword: PasswordInput)
        /// Back to the start, abandoning any request in flight.
        case startOver
    }

    /// Starts by asking whose password to reset.
    public var initialPhase: Phase { .enteringIdentifier }

    /// The grant when the reset signed the user in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// Validates a typed identifier for this backend.
    public func identifier(_ raw: String) -> Result<ResetIdentifier, ValidationError> {
        switch style {
        case .emailCodeWithAutoLogin, .emailLink: return Email.validate(raw).map(ResetIdentifier.email)
        case .emailedToken:
            let trimmed = raw.trimmedForInput
            let check = trimmed.contains("@") ? Email.validate(trimmed).map { _ in () } : Username.validate(trimmed).map { _ in () }
            return check.map { ResetIdentifier.usernameOrEmail(trimmed) }
        }
    }

    /// When a code may be requested again.
    public var timers: [TimerID] { [.resendAvailable] }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, let now): return handle(intent, id, at: now, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, let now): return withdraw(intent, at: now, &phase, &requests)
        case .tick, .launched: return []  // Cooldowns are checked when the user acts; the vault is the session's.
        }
    }

    private func handle(
        _ intent: Intent, _ id: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext
    ) -> [AuthEffect] {
        var effects: [AuthEffect] = []
        switch phase {
        case .enteringIdentifier, .awaitingProof, .linkSent, .completed:
            switch intent {
            case .requestReset(let raw):
                guard let identifier = identifier(raw).valueOrReject(id, into: &effects) else { return effects }
                if case .awaitingProof(let pending, let resendAt) = phase, pending == identifier, now < resendAt {
                    return [.reject(id, .resendCooldown(until: resendAt))]
                }
                if let until = requests.cooldown(for: .reset(identifier), at: now) {
                    return [.reject(id, .resendCooldown(until: until))]  // Sent before starting over or switching flows.
                }
                let request = requests.issue(for: id)
                phase = .requesting(identifier, request)
                return [.send(request, .requestPasswordReset(identifier))]
            case .requestAgain:
                guard case .awaitingProof(let identifier, let resendAt) = phase else { return [.reject(id, .notAvailableNow)] }
                guard now >= resendAt else { return [.reject(id, .resendCooldown(until: resendAt))] }
                let request = requests.issue(for: id)
                phase = .requestingAgain(identifier, request)
                return [.send(request, .requestPasswordReset(identifier))]
            case .submitCode(let rawCode, let rawPassword):
                guard case .awaitingProof(let identifier, let resendAt) = phase, case .email(let email) = identifier else {
                    return [.reject(id, style == .emailCodeWithAutoLogin ? .notAvailableNow : .unsupported)]
                }
                guard style == .emailCodeWithAutoLogin else { return [.reject(id, .unsupported)] }
                guard let code = VerificationCode.validate(rawCode).valueOrReject(id, into: &effects),
                    let password = Password.validate(rawPassword).valueOrReject(id, into: &effects)
                else { return effects }
                let request = requests.issue(for: id)
                phase = .resetting(identifier, request, resendAt: resendAt)
                return [.send(request, .resetPassword(.emailCode(email, code), newPassword: password))]
            case .submitToken(let rawToken, let rawPassword):
                guard style == .emailedToken else { return [.reject(id, .unsupported)] }
                guard case .awaitingProof(let identifier, let resendAt) = phase else { return [.reject(id, .notAvailableNow)] }
                guard let token = ResetProof.validate(rawToken).valueOrReject(id, into: &effects),
                    let password = Password.validate(rawPassword).valueOrReject(id, into: &effects)
                else { return effects }
                let request = requests.issue(for: id)
                phase = .resetting(identifier, request, resendAt: resendAt)
                return [.send(request, .resetPassword(.token(token), newPassword: password))]
            case .startOver:
                let changed = phase != .enteringIdentifier
                phase = .enteringIdentifier
                return [.finish(id, changed ? .done : .unchanged)]
            }
        case .requesting(_, let request), .requestingAgain(_, let request), .resetting(_, let request, _):
            switch intent {
            case .requestReset, .requestAgain, .submitCode, .submitToken: return [.reject(id, .busy)]
            case .startOver:
                phase = .enteringIdentifier  // The request in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .requestReset, .requestAgain, .submitCode, .submitToken, .startOver: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .requesting(let identifier, let current) where current == id,
            .requestingAgain(let identifier, let current) where current == id:
            switch reply.acceptedOrFailure {
            case .success:
                let resendAt = now + resendCooldown
                requests.codeSent(to: .reset(identifier), resendAt: resendAt)
                switch style {
                case .emailLink:
                    phase = .linkSent  // Another link may be asked for once the cooldown ends.
                case .emailCodeWithAutoLogin, .emailedToken:
                    phase = .awaitingProof(identifier, resendAt: resendAt)
                }
                return [.schedule(.resendAvailable, at: resendAt)] + requests.finish(waitingFor: id, .passwordResetRequested(resendAt: resendAt))
            case .failure(let failure):
                if case .requestingAgain = phase {
                    phase = .awaitingProof(identifier, resendAt: now)  // The proof already emailed still works.
                } else {
                    phase = .enteringIdentifier
                }
                return requests.finish(waitingFor: id, .failed(failure))
            }
        case .resetting(let identifier, let current, let resendAt) where current == id:
            switch reply {
            case .granted(let grant):
                phase = .signedIn(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .accepted, .user:
                phase = .completed
                return requests.finish(waitingFor: id, .passwordResetCompleted)
            case .failed(let failure):
                phase = .awaitingProof(identifier, resendAt: resendAt)
                return requests.finish(waitingFor: id, .failed(failure))
            case .refreshed, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
                .realtimeClosed:
                phase = .awaitingProof(identifier, resendAt: resendAt)
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .enteringIdentifier, .requesting, .requestingAgain, .awaitingProof, .resetting, .linkSent, .completed, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    /// The caller stopped waiting: the request is abandoned as if it had failed.
    private func withdraw(_ intent: IntentID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .requesting(_, let request) where requests.intent(waitingFor: request) == intent:
            phase = .enteringIdentifier
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .requestingAgain(let identifier, let request) where requests.intent(waitingFor: request) == intent:
            phase = .awaitingProof(identifier, resendAt: now)
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .resetting(let identifier, let request, let resendAt) where requests.intent(waitingFor: request) == intent:
            phase = .awaitingProof(identifier, resendAt: resendAt)
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .enteringIdentifier, .requesting, .requestingAgain, .awaitingProof, .resetting, .linkSent, .completed, .signedIn:
            return []  // Not waiting here: already finished.
        }
    }
}
