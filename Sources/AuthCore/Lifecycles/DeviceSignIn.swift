/// OpenID Connect sign-in on a device without a browser, by the device authorization grant
/// (RFC 8628): a TV or a command line asks the provider for a device code and a user code, shows
/// the user code and the page where to enter it, and polls the token endpoint until the user has
/// approved (or declined) the sign-in on a phone or a computer; the ID token's claims are then
/// checked as ``OpenIDSignIn`` checks them, and the grant is handed to the session.
///
/// One intent, ``Intent/start``, waits for the whole sign-in: it finishes signed in, failed, or
/// rejected as ``Rejection/signInDeclined`` (`access_denied`) or ``Rejection/deviceCodeExpired``
/// (`expired_token`, or the codes' `expires_in` passed). While it waits, the phase holds what the
/// user must be shown (``Phase/waitingToPoll(_:at:next:)`` and ``Phase/polling(_:_:)``, read with
/// ``prompt(in:)``). ``Intent/cancel`` stops polling.
///
/// The rules it keeps (RFC 8628 §3.4, §3.5):
/// - two polls are never closer than the interval: the provider's `interval`, 5 seconds when it
///   sends none, measured from the last poll's answer;
/// - each `slow_down` adds 5 seconds to the interval, for every later poll;
/// - `authorization_pending` polls again after the interval;
/// - a poll the network lost (or that timed out) doubles the interval; another transient failure
///   (a 5xx, a 429, an unreadable answer) waits the interval, or the server's `Retry-After` if
///   longer;
/// - a refusal (`access_denied`, `expired_token`, `invalid_grant`, `invalid_client`) ends the
///   sign-in, and so does the codes' expiry: no poll leaves after it.
///
/// Time reaches it only through events: the answers' instants and the ``TimerID/devicePoll`` and
/// ``TimerID/deviceCodeExpiry`` wake-ups it schedules.
public struct DeviceSignIn: EntryFlow {
    /// The interval when the provider sends none (RFC 8628 §3.2).
    public static let defaultInterval = Interval.seconds(5)
    /// What each `slow_down` adds to the interval (RFC 8628 §3.5).
    public static let slowDownIncrement = Interval.seconds(5)

    /// The provider's issuer identifier, exactly as its discovery document names it.
    public var issuer: String
    /// The app's client id at the provider.
    public var clientID: String
    /// How far in the future an ID token's `iat` may lie, for clocks that disagree.
    public var maximumClockSkew: Interval

    /// A device sign-in at `issuer` for the client `clientID`.
    public init(issuer: String, clientID: String, maximumClockSkew: Interval = .seconds(600)) {
        self.issuer = issuer
        self.clientID = clientID
        self.maximumClockSkew = maximumClockSkew
    }

    /// The device sign-in at the provider and for the client of `signIn`, checking ID tokens alike.
    public init(_ signIn: OpenIDSignIn) {
        self.init(issuer: signIn.issuer, clientID: signIn.clientID, maximumClockSkew: signIn.maximumClockSkew)
    }

    /// Where the device is in its sign-in.
    public enum Phase: LifecyclePhase {
        /// Every case, by name.
        public static let declaredCases = ["idle", "requestingCode", "waitingToPoll", "polling", "signedIn"]

        /// No sign-in under way.
        case idle
        /// The device authorization request is in flight; `start` waits for the sign-in.
        case requestingCode(RequestID)
        /// The user code is shown; the next poll leaves at `at`, under the id `next` (issued
        /// already: `start` waits for it).
        indirect case waitingToPoll(DevicePoll, at: Instant, next: RequestID)
        /// A poll is in flight; the user code is still shown.
        indirect case polling(DevicePoll, RequestID)
        /// Signed in: handed over to the session.
        indirect case signedIn(Grant)
    }

    /// What the user can do.
    public enum Intent: CaseListing {
        /// Every case, by name.
        public static let declaredCases = ["start", "cancel"]

        /// Sign in: ask for the codes, then poll until the user approved or declined on another
        /// device. Finishes when the sign-in does.
        case start
        /// Stop the sign-in under way: no poll leaves after it.
        case cancel
    }

    /// Starts with no sign-in under way.
    public var initialPhase: Phase { .idle }

    /// The grant once signed in.
    public func handover(_ phase: Phase) -> Grant? {
        if case .signedIn(let grant) = phase { return grant }
        return nil
    }

    /// The next poll, and the codes' expiry.
    public var timers: [TimerID] { [.devicePoll, .deviceCodeExpiry] }

    /// What the user must be shown in `phase`: the user code and where to enter it, while the
    /// device polls; `nil` otherwise.
    public func prompt(in phase: Phase) -> UserCodePrompt? {
        switch phase {
        case .waitingToPoll(let poll, _, _), .polling(let poll, _): poll.prompt
        case .idle, .requestingCode, .signedIn: nil
        }
    }

    /// The reducer.
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, let id, _): return handle(intent, id, &phase, &requests)
        case .reply(let id, let reply, let now): return handle(reply, to: id, at: now, &phase, &requests)
        case .withdrawn(let intent, _):
            switch phase {
            case .requestingCode(let request), .polling(_, let request):
                guard requests.intent(waitingFor: request) == intent else { return [] }  // Not waiting here.
                let stopped = stop(&phase)
                return [.cancel(request)] + stopped + requests.finish(waitingFor: request, .cancelled)
            case .waitingToPoll(_, _, let next):
                guard requests.intent(waitingFor: next) == intent else { return [] }
                return stop(&phase) + requests.finish(waitingFor: next, .cancelled)
            case .idle, .signedIn:
                return []  // Nobody waits here.
            }
        case .tick(let now): return wake(at: now, &phase, &requests)
        case .launched: return []  // The vault is the session's.
        }
    }

    /// Back to idle, the timers still pending dropped.
    private func stop(_ phase: inout Phase) -> [AuthEffect] {
        defer { phase = .idle }
        switch phase {
        case .waitingToPoll: return [.cancelTimer(.devicePoll), .cancelTimer(.deviceCodeExpiry)]
        case .polling: return [.cancelTimer(.deviceCodeExpiry)]  // The poll's wake-up has fired.
        case .idle, .requestingCode, .signedIn: return []
        }
    }

    private func handle(_ intent: Intent, _ id: IntentID, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .idle:
            switch intent {
            case .start:
                let request = requests.issue(for: id)
                phase = .requestingCode(request)
                return [.send(request, .requestDeviceCode)]
            case .cancel: return [.finish(id, .unchanged)]
            }
        case .requestingCode(let request), .polling(_, let request), .waitingToPoll(_, _, let request):
            switch intent {
            case .start: return [.reject(id, .busy)]
            case .cancel:
                let inFlight: [AuthEffect] =
                    switch phase {
                    case .requestingCode, .polling: [.cancel(request)]
                    case .idle, .waitingToPoll, .signedIn: []
                    }
                let stopped = stop(&phase)
                return inFlight + stopped + requests.finish(waitingFor: request, .superseded) + [.finish(id, .done)]
            }
        case .signedIn:
            switch intent {
            case .start, .cancel: return [.reject(id, .alreadySignedIn)]
            }
        }
    }

    private func handle(_ reply: Reply, to id: RequestID, at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext)
        -> [AuthEffect]
    {
        switch phase {
        case .requestingCode(let current) where current == id:
            switch reply {
            case .device(.codeIssued(let authorization)):
                let interval = authorization.interval.flatMap { $0 > .zero ? $0 : nil } ?? Self.defaultInterval
                let poll = DevicePoll(
                    deviceCode: authorization.deviceCode, prompt: authorization.prompt, expiresAt: now + authorization.lifetime,
                    interval: interval)
                return [.schedule(.deviceCodeExpiry, at: poll.expiresAt)] + wait(poll, after: id, for: interval, at: now, &phase, &requests)
            case .failed(let failure):
                phase = .idle
                return requests.finish(waitingFor: id, .failed(failure))
            case .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired,
                .device, .realtimeOpened, .realtimeClosed:
                phase = .idle
                return requests.finish(waitingFor: id, .failed(.malformed))
            }
        case .polling(var poll, let current) where current == id:
            switch reply {
            case .granted(let grant):
                let problem =
                    grant.idToken.map {
                        OpenIDSignIn(issuer: issuer, clientID: clientID, maximumClockSkew: maximumClockSkew).check($0, nonce: nil, at: now)
                    } ?? .missing
                if let problem {
                    return stop(&phase) + requests.finish(waitingFor: id, .failed(.unauthorized(problem.description)))
                }
                phase = .signedIn(grant)  // No poll is pending while one is in flight; only the expiry is.
                return [.cancelTimer(.deviceCodeExpiry)] + requests.finish(waitingFor: id, .signedIn(grant.user))
            case .device(.authorizationPending):
                return wait(poll, after: id, for: poll.interval, at: now, &phase, &requests)
            case .device(.slowDown):
                poll.interval = poll.interval + Self.slowDownIncrement
                return wait(poll, after: id, for: poll.interval, at: now, &phase, &requests)
            case .device(.accessDenied):
                return stop(&phase) + requests.finish(waitingFor: id, .rejected(.signInDeclined))
            case .device(.expiredToken):
                return stop(&phase) + requests.finish(waitingFor: id, .rejected(.deviceCodeExpired))
            case .failed(.network), .failed(.timeout):
                poll.interval = poll.interval * 2  // Less often after a lost poll (RFC 8628 §3.5).
                return wait(poll, after: id, for: poll.interval, at: now, &phase, &requests)
            case .failed(.rateLimited(let retryAfter)):
                return wait(poll, after: id, for: max(poll.interval, retryAfter ?? .zero), at: now, &phase, &requests)
            case .failed(let failure) where failure.isTransient:
                return wait(poll, after: id, for: poll.interval, at: now, &phase, &requests)
            case .failed(let failure):
                return stop(&phase) + requests.finish(waitingFor: id, .failed(failure))
            case .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired,
                .device(.codeIssued), .realtimeOpened, .realtimeClosed:
                return wait(poll, after: id, for: poll.interval, at: now, &phase, &requests)  // Unreadable: polled again.
            }
        case .idle, .requestingCode, .waitingToPoll, .polling, .signedIn:
            return []  // An answer to a request that is no longer current changes nothing.
        }
    }

    /// Waits `delay` before the next poll, its id issued now for the intent waiting for `answered`;
    /// the sign-in ends instead when the codes have expired.
    private func wait(
        _ poll: DevicePoll, after answered: RequestID, for delay: Interval, at now: Instant, _ phase: inout Phase,
        _ requests: inout FlowContext
    ) -> [AuthEffect] {
        guard now < poll.expiresAt else {
            return stop(&phase) + requests.finish(waitingFor: answered, .rejected(.deviceCodeExpired))
        }
        guard let next = requests.continueWaiting(after: answered) else {
            return stop(&phase)  // Nobody waits any more: withdrawn intents end the sign-in, so this cannot happen.
        }
        phase = .waitingToPoll(poll, at: now + delay, next: next)
        return [.schedule(.devicePoll, at: now + delay)]
    }

    /// A wake-up: the codes expire, or the next poll leaves.
    private func wake(at now: Instant, _ phase: inout Phase, _ requests: inout FlowContext) -> [AuthEffect] {
        switch phase {
        case .waitingToPoll(let poll, let at, let next):
            guard now < poll.expiresAt else {
                // The codes expired (the expiry's wake-up, or an overdue poll's): no poll leaves.
                return stop(&phase) + requests.finish(waitingFor: next, .rejected(.deviceCodeExpired))
            }
            guard now >= at else { return [] }  // Not yet: the poll's own wake-up is still pending.
            phase = .polling(poll, next)
            return [.send(next, .pollDeviceToken(poll.deviceCode))]
        case .idle, .requestingCode, .polling, .signedIn:
            return []  // A poll in flight is the server's to answer: its answer ends an expired sign-in.
        }
    }
}
