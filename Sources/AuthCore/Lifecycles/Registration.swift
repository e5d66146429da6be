/// The fields a user typed into a registration form, not yet validated. Empty strings count as absent.
public struct RegistrationInput: Hashable, Sendable, CustomStringConvertible {
    /// Display name.
    public var name: String
    /// Email.
    public var email: String
    /// Username (Everday).
    public var username: String
    /// Phone (Hero365 phone sign-up).
    public var phone: String
    /// Password as typed.
    public var password: PasswordInput
    /// Discord handle (Everday, optional).
    public var discordHandle: String

    /// Creates form input.
    public init(
        name: String = "", email: String = "", username: String = "", phone: String = "", password: PasswordInput,
        discordHandle: String = ""
    ) {
        self.name = name
        self.email = email
        self.username = username
        self.phone = phone
        self.password = password
        self.discordHandle = discordHandle
    }

    /// `form(name: …, email: …, username: …, phone: …, password: ‹password›)`: the fields as typed,
    /// the password only as its kind. The Discord handle is left out.
    public var description: String {
        "form(name: \(name), email: \(email), username: \(username), phone: \(phone), password: \(password))"
    }
}

/// Registration whose ending depends on what the backend answers: a session at once (Subspace,
/// VynqTalk), "check your email/phone to verify" (Hero365), or approval-gated (Everday
/// `PendingApproval`: login answers 403 until a parent approves).
public struct Registration: EntryFlow {
    /// Which fields a backend's form requires.
    public enum Form: Hashable, Sendable {
        /// Name, email and password (Subspace `/auth/register`, VynqTalk `/auth/signup`).
        case nameEmailPassword
        /// Email and password, optional full name (Hero365 `/auth/signup`).
        case emailPassword
        /// Phone and password, optional full name (Hero365 `/auth/signup/phone`).
        case phonePassword
        /// Username and password, optional email, name and Discord handle (Everday `/auth/register`).
        case usernamePassword
    }

    /// The forms this backend offers; the first whose identifier field is filled in is used.
    public var forms: [Form]

    /// A registration flow offering `forms`.
    public init(forms: [Form]) { self.forms = forms }

    /// Where the user is in registration.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["editing", "submitting", "awaitingVerification", "pendingApproval", "registered"]

        /// The user fills in the form.
        case editing
        /// The form was sent; waiting for the server.
        case submitting(RequestID)
        /// The account exists and must be verified by email or phone before signing in (Hero365).
        case awaitingVerification
        /// The account exists and awaits a parent's approval; it cannot sign in until then (Everday).
        /// Another registration may start from here (a parent registers several children).
        case pendingApproval
        /// Registered and signed in at once: handed over to the session.
        /// (Indirect: a grant is large, and a phase is as large as its largest case, as is every
        /// nest of flows holding it.)
        indirect case registered(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["submit", "startOver"]

        /// Send the registration form.
        /// (Indirect: the largest payload, which would size every intent of a nest of flows.)
        indirect case submit(RegistrationInput)
        /// Back to an empty form, abandoning any request in flight.
        case startOver
    }

    /// Starts with an empty form.
    public var initialPhase: Phase { .editing }

    /// The grant when registration signed the user in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .registered(let grant) = phase { return grant }
        return nil
    }

    /// Whether the new account awaits a parent's approval.
    public func awaitsApproval(_ phase: Phase) -> Bool {
        if case .pendingApproval = phase { return true }
        return false
    }

    /// Validates a form for this backend.
    public func validate(_ input: RegistrationInput) -> Result<RegistrationDetails, ValidationError> {
        let form =
            forms.first { form in
                switch form {
                case .nameEmailPassword, .emailPassword: !input.email.trimmedForInput.isEmpty
                case .phonePassword: !input.phone.trimmedForInput.isEmpty
                case .usernamePassword: !input.username.trimmedForInput.isEmpty
                }
            } ?? forms.first ?? .emailPassword
        let optionalName: Result<PersonName?, ValidationError> =
            input.name.trimmedForInput.isEmpty ? .success(nil) : PersonName.validate(input.name).map { $0 }
        return Result {
            let password = try Password(input.password)
            switch form {
            case .nameEmailPassword:
                return RegistrationDetails(
                    identifier: .email(try Email(input.email)), password: password, name: try PersonName(input.name))
            case .emailPassword:
                return RegistrationDetails(
                    identifier: .email(try Email(input.email)), password: password, name: try optionalName.get())
            case .phonePassword:
                return RegistrationDetails(
                    identifier: .phone(try PhoneNumber(input.phone)), password: password, name: try optionalName.get())
            case .usernamePassword:
                let email = input.email.trimmedForInput.isEmpty ? nil : try Email(input.email)
                let handle = input.discordHandle.trimmedForInput
                return RegistrationDetails(
                    identifier: .username(try Username(input.username)), password: password,
                    name: try optionalName.get(), email: email, discordHandle: handle.isEmpty ? nil : handle)
            }
        }.mapError { $0 as? ValidationError ?? .nameEmpty }
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, _): return handle(intent, id, &phase, &requests)
        case .reply(let id, let reply, _): return handle(reply, to: id, &phase, &requests)
        case .withdrawn(let intent, _):
            guard case .submitting(let request) = phase, requests.intent(waitingFor: request) == intent else {
                return []  // Not waiting here: already finished.
            }
            phase = .editing
            return [.cancel(request)] + requests.finish(waitingFor: request, .cancelled)
        case .tick, .launched: return []  // No deadlines here; the vault is the session's.
        }
    }

    private func handle(_ intent: Intent, _ id: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .editing:
            switch intent {
            case .submit(let input): return submit(input, id, &phase, &requests)
            case .startOver: return [.finish(id, .unchanged)]
            }
        case .submitting(let request):
            switch intent {
            case .submit: return [.reject(id, .busy)]
            case .startOver:
                phase = .editing  // The request in flight becomes stale.
                return requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .pendingApproval:
            switch intent {
            case .submit(let input):
                // Another account (an Everday parent registers several children): a new submission,
                // as from `editing`; the account already registered waits for approval on the server.
                return submit(input, id, &phase, &requests)
            case .startOver:
                phase = .editing
                return [.finish(id, .done)]
            }
        case .awaitingVerification:
            switch intent {
            case .submit: return [.reject(id, .notAvailableNow)]
            case .startOver:
                phase = .editing
                return [.finish(id, .done)]
            }
        case .registered:
            switch intent {
            case .submit, .startOver: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    /// Sends the form when it is valid (the phase is then `submitting`); otherwise rejects it and
    /// leaves the phase as it is.
    private func submit(_ input: RegistrationInput, _ id: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        var effects: [AuthEffect] = []
        guard let details = validate(input).valueOrReject(id, into: &effects) else { return effects }
        let request = requests.issue(for: id)
        phase = .submitting(request)
        return [.send(request, .register(details))]
    }

    private func handle(_ reply: Reply, to id: RequestID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .submitting(let current) where current == id:
            switch reply {
            case .granted(let grant):
                phase = .registered(grant)
                return requests.finish(waitingFor: id, .signedIn(grant.user))
            case .pendingApproval(let message):
                phase = .pendingApproval
                return requests.finish(waitingFor: id, .pendingApproval(message))
            case .verificationRequired(let message), .accepted(let message):
                phase = .awaitingVerification
                return requests.finish(waitingFor: id, .verificationRequired(message))
            case .failed(let failure):
                phase = .editing
                return requests.finish(waitingFor: id, .failed(failure))
            case .refreshed, .user, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened, .realtimeClosed:
                phase = .editing
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .editing, .submitting, .awaitingVerification, .pendingApproval, .registered:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }
}
