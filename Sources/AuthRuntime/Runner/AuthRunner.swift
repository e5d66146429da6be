import AuthCore
import Foundation

/// Runs one lifecycle (usually a whole app from `Apps`): owns its state, feeds it events, performs
/// the effects it returns and feeds their results back as events.
///
/// The runner holds no auth logic. Every decision (when to refresh, whom to sign out, which call
/// to replay) is the reducer's; the runner only does what the effects say:
///
/// - Effects of one `reduce` are performed in list order, and one event's effects are all
///   performed before the next event is reduced. Storage is synchronous, so a `persist` has
///   completed before a following `send` starts: a rotated pair is stored before the new access
///   token is used.
/// - `send` starts the request on the transport (``HTTPTransport/start(_:completion:)``: URLSession's
///   is handed the request at once, any other transport sends in a task of its own), so requests run
///   concurrently; its answer, decoded by the backend contract, comes back through the actor as `.reply(id, …, at:)` with the time it arrived.
///   `cancel` stops it, and an answer to a cancelled request is dropped.
/// - `schedule` and `cancelTimer` set and drop wake-ups on the runner's clock (scheduling an id
///   again replaces its deadline); a wake-up feeds `.tick(now)`.
/// - `persist` and `clearCredentials` go to the vault, `emit` to ``outcomes()``, `finishCall` to
///   the caller waiting in ``authorized(_:)``, `closeRealtime` to the open connection.
///
/// What the reducer has no event for (a vault that cannot be written, a request the backend does
/// not offer) is reported on ``issues()``.
///
/// ```swift
/// let runner = AuthRunner(
///     machine: Apps.everday(), contract: contract, transport: URLSessionTransport(),
///     vault: FileVault(directory: directory))
/// let outcomes = await runner.outcomes()            // signedIn, tokenRefreshed, signedOut…
/// await runner.start()                               // reads the vault, restores the session
/// await runner.send(.entry(.second(.first(.submit(identifier: "newkid", password: PasswordInput(typed))))))
/// let answer = try await runner.authorized(HTTPRequest(method: "GET", url: itemsURL))
/// await runner.send(.session(.logout))
/// ```
public final actor AuthRunner<Machine: Lifecycle>: CustomStringConvertible {
    // The runner is generic over its machine, and its work per event (queueing, effects, requests,
    // answers) is on every request's path: its members are inlinable so that an app's runner is
    // compiled for the app's machine (specialized), not as the generic code a runner of any
    // machine would run. Nothing here is public API.

    /// A protected call waiting for the reducer to finish it.
    @usableFromInline
    struct WaitingCall: Sendable {
        /// The app's request, sent (again) with whatever bearer the reducer names.
        @usableFromInline let request: HTTPRequest
        /// The caller; `nil` once it stopped waiting (its task was cancelled).
        @usableFromInline var caller: CheckedContinuation<Result<HTTPResponse, AuthorizedCallError>, Never>?
        /// The raw answers to the requests sent for this call, by request.
        @usableFromInline var answers: [RequestID: Result<HTTPResponse, TransportError>] = [:]

        @inlinable
        init(request: HTTPRequest, caller: CheckedContinuation<Result<HTTPResponse, AuthorizedCallError>, Never>) {
            self.request = request
            self.caller = caller
        }
    }

    /// A wake-up and the generation that tells it from the one it replaced.
    @usableFromInline
    struct ScheduledAlarm: Sendable {
        @usableFromInline let alarm: any ClockAlarm
        @usableFromInline let generation: UInt64

        @inlinable
        init(alarm: any ClockAlarm, generation: UInt64) {
            self.alarm = alarm
            self.generation = generation
        }
    }

    /// The lifecycle.
    public nonisolated let machine: Machine
    /// The backend's HTTP mapping.
    public nonisolated let contract: any BackendContract
    /// Where time comes from.
    public nonisolated let clock: any RuntimeClock
    @usableFromInline let transport: any HTTPTransport
    @usableFromInline let vault: any TokenVault
    @usableFromInline let connector: (any RealtimeConnector)?

    /// The lifecycle's current state.
    public var state: Machine.State { current }
    /// The state, as the runner changes it.
    @usableFromInline var current: Machine.State

    @usableFromInline var queue: [Machine.Event] = []
    @usableFromInline var draining = false
    @usableFromInline var stopped = false
    @usableFromInline var requests: [RequestID: TransportHandle] = [:]
    @usableFromInline var connections: [RequestID: Task<Void, Never>] = [:]
    @usableFromInline var channels: [RequestID: any RealtimeChannel] = [:]
    @usableFromInline var alarms: [TimerID: ScheduledAlarm] = [:]
    @usableFromInline var alarmGeneration: UInt64 = 0
    @usableFromInline var calls: [CallID: WaitingCall] = [:]
    @usableFromInline var callCounter: UInt64 = 0
    @usableFromInline var stateStreams = Broadcast<Machine.State>()
    @usableFromInline var outcomeStreams = Broadcast<AuthOutcome>()
    @usableFromInline var issueStreams = Broadcast<RuntimeIssue>()
    @usableFromInline var messageStreams = Broadcast<RealtimeMessage>()

    /// A runner for `machine` speaking `contract` over `transport`, storing credentials in `vault`.
    ///
    /// - Parameters:
    ///   - clock: where time and wake-ups come from; a ``ManualClock`` in tests.
    ///   - realtime: opens realtime connections when the lifecycle asks (VynqTalk); without one,
    ///     such requests fail and an issue is reported.
    ///   - logger: records every exchange, redacted. Opt-in: pass one in debug builds only.
    @inlinable
    public init(
        machine: Machine, contract: any BackendContract, transport: any HTTPTransport, vault: any TokenVault,
        clock: any RuntimeClock = SystemClock(), realtime: (any RealtimeConnector)? = nil, logger: (any HTTPLogger)? = nil
    ) {
        self.machine = machine
        self.contract = contract
        self.clock = clock
        self.transport = logger.map { LoggingTransport(transport, logger: $0) } ?? transport
        self.vault = vault
        self.connector = realtime.map { connector in logger.map { LoggingRealtimeConnector(connector, logger: $0) } ?? connector }
        self.current = machine.initial
    }

    deinit {
        for request in requests.values { request.cancel() }
        for task in connections.values { task.cancel() }
        for channel in channels.values { channel.close() }
        for scheduled in alarms.values { scheduled.alarm.cancel() }
    }

    /// `AuthRunner(<backend>)`.
    public nonisolated var description: String { "AuthRunner(\(contract.backend))" }

    // MARK: Driving

    /// Reads the vault and tells the lifecycle the app launched: `.none`, `.stored(…)`, or
    /// `.unreadable` when the vault holds something it cannot read (reported on ``issues()``;
    /// nothing is deleted).
    public func start() {
        let stored: StoredCredentials
        do throws(VaultError) {
            stored = try vault.load().map(StoredCredentials.stored) ?? .none
        } catch {
            issueStreams.yield(.vaultUnreadable(error))
            stored = .unreadable
        }
        enqueue(.launched(stored, at: clock.now))
    }

    /// Feeds the user's `intent`, stamped with the clock's time, and performs the effects.
    @inlinable
    public func send(_ intent: Machine.Intent) {
        enqueue(.intent(intent, at: clock.now))
    }

    /// Stops all work: cancels every request, wake-up and connection, ends waiting calls with
    /// ``AuthorizedCallError/cancelled`` and finishes every stream. Later events are ignored.
    public func stop() {
        stopped = true
        queue.removeAll()
        for request in requests.values { request.cancel() }
        requests.removeAll()
        for task in connections.values { task.cancel() }
        connections.removeAll()
        for channel in channels.values { channel.close() }
        channels.removeAll()
        for scheduled in alarms.values { scheduled.alarm.cancel() }
        alarms.removeAll()
        for call in calls.values { call.caller?.resume(returning: .failure(.cancelled)) }
        calls.removeAll()
        stateStreams.finish()
        outcomeStreams.finish()
        issueStreams.finish()
        messageStreams.finish()
    }

    // MARK: Observing

    /// Where the user is.
    public var phase: Machine.Phase { current.phase }

    /// Every state from now on, starting with the current one.
    public func states() -> AsyncStream<Machine.State> { stateStreams.subscribe([current]) }

    /// Every outcome the lifecycle emits from now on (signed in, signed out, token refreshed, …).
    public func outcomes() -> AsyncStream<AuthOutcome> { outcomeStreams.subscribe() }

    /// Every runtime issue from now on (vault failures, unsupported requests, no realtime).
    public func issues() -> AsyncStream<RuntimeIssue> { issueStreams.subscribe() }

    /// Every message received on the realtime connection from now on.
    public func realtimeMessages() -> AsyncStream<RealtimeMessage> { messageStreams.subscribe() }

    /// The requests (and realtime connections) in flight, in issue order.
    public var inFlight: [RequestID] { (Array(requests.keys) + Array(connections.keys)).sorted() }

    /// The wake-ups set, by id.
    public var scheduledTimers: Set<TimerID> { Set(alarms.keys) }

    /// Sends `message` on the open realtime connection.
    public func sendRealtime(_ message: RealtimeMessage) async throws(RealtimeError) {
        guard let channel = channels.values.first else { throw .notConnected }
        try await channel.send(message)
    }

    // MARK: The loop

    /// Queues `event`; unless the queue is being drained already (an effect fed an event back),
    /// reduces every queued event in turn and performs its effects in order.
    @inlinable
    func enqueue(_ event: Machine.Event) {
        guard !stopped else { return }
        queue.append(event)
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty, !stopped {
            let next = queue.removeFirst()
            let effects = machine.reduce(&current, next)
            stateStreams.yield(current)
            for effect in effects { perform(effect) }
        }
    }

    @inlinable
    func perform(_ effect: AuthEffect) {
        switch effect {
        case .send(let id, let request):
            start(id, request)
        case .cancel(let id), .closeRealtime(let id):
            requests.removeValue(forKey: id)?.cancel()
            connections.removeValue(forKey: id)?.cancel()
            channels.removeValue(forKey: id)?.close()
        case .persist(let credentials):
            do throws(VaultError) {
                try vault.save(credentials)
            } catch {
                issueStreams.yield(.vaultWriteFailed(error))
            }
        case .clearCredentials:
            do throws(VaultError) {
                try vault.clear()
            } catch {
                issueStreams.yield(.vaultClearFailed(error))
            }
        case .schedule(let timer, let deadline):
            alarms.removeValue(forKey: timer)?.alarm.cancel()
            alarmGeneration += 1
            let generation = alarmGeneration
            let alarm = clock.wake(at: deadline) { [weak self] in await self?.alarmFired(timer, generation) }
            alarms[timer] = ScheduledAlarm(alarm: alarm, generation: generation)
        case .cancelTimer(let timer):
            alarms.removeValue(forKey: timer)?.alarm.cancel()
        case .emit(let outcome):
            outcomeStreams.yield(outcome)
        case .finishCall(let call, let result):
            finish(call, result)
        }
    }

    @inlinable
    func alarmFired(_ timer: TimerID, _ generation: UInt64) {
        guard alarms[timer]?.generation == generation else { return }  // Replaced or cancelled meanwhile.
        alarms[timer] = nil
        enqueue(.tick(clock.now))
    }

    // MARK: Requests

    @inlinable
    func start(_ id: RequestID, _ request: APIRequest) {
        switch request {
        case .protected(let call, let bearer):
            guard let waiting = calls[call] else {
                issueStreams.yield(.unknownCall(call))
                enqueue(.reply(id, .failed(.notFound(nil)), at: clock.now))
                return
            }
            let contract = contract
            launch(id, contract.authorize(waiting.request, with: bearer), for: call) { response, _ in
                contract.classifyProtected(response)
            }
        case .openRealtime(let token):
            openRealtime(id, token)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode, .signIn,
            .register, .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .refresh,
            .currentUser, .revoke:
            let http: HTTPRequest
            do throws(ContractError) {
                http = try contract.encode(request)
            } catch {
                // A composition error, not the user's: answer the reducer so it does not wait
                // forever. notFound is transient, so no session ends because of it.
                issueStreams.yield(.unsupportedRequest(error))
                enqueue(.reply(id, .failed(.notFound(error.description)), at: clock.now))
                return
            }
            let contract = contract
            launch(id, http, for: nil) { response, receivedAt in
                contract.decode(response, for: request, receivedAt: receivedAt)
            }
        }
    }

    /// Starts `http` on the transport; its answer, read by `read`, comes back to `deliver`.
    @inlinable
    func launch(
        _ id: RequestID, _ http: HTTPRequest, for call: CallID?,
        read: @escaping @Sendable (HTTPResponse, Instant) -> Reply
    ) {
        let clock = clock
        requests[id] = transport.start(http) { [weak self] answer in
            let receivedAt = clock.now
            let reply: Reply =
                switch answer {
                case .success(let response): read(response, receivedAt)
                case .failure(.timeout): .failed(.timeout)
                // A cancellation the runner did not ask for (the runner drops answers to the ones it did).
                case .failure(.network), .failure(.cancelled): .failed(.network)
                }
            await self?.deliver(id, reply, at: receivedAt, answer: call.map { ($0, answer) })
        }
    }

    @inlinable
    func deliver(_ id: RequestID, _ reply: Reply, at instant: Instant, answer: (CallID, Result<HTTPResponse, TransportError>)?) {
        guard requests.removeValue(forKey: id) != nil else { return }  // Cancelled: the answer is stale.
        if let (call, result) = answer { calls[call]?.answers[id] = result }
        enqueue(.reply(id, reply, at: instant))
    }

    // MARK: Realtime

    @usableFromInline
    func openRealtime(_ id: RequestID, _ token: AccessToken) {
        guard let url = contract.realtimeURL(token: token) else {
            realtimeUnavailable(id, reason: "\(contract.backend) has no realtime connection")
            return
        }
        guard let connector else {
            realtimeUnavailable(id, reason: "the runner was given no realtime connector")
            return
        }
        let clock = clock
        connections[id] = Task { [weak self] in
            let channel: any RealtimeChannel
            do throws(RealtimeError) {
                channel = try await connector.connect(to: url)
            } catch {
                await self?.realtimeFailed(id, error, at: clock.now)
                return
            }
            guard await self?.realtimeOpened(id, channel, at: clock.now) == true else {
                channel.close()
                return
            }
            while let message = await channel.receive() {
                guard let self else {
                    channel.close()
                    return
                }
                await self.forward(message)
            }
            await self?.realtimeEnded(id, at: clock.now)
        }
    }

    @usableFromInline
    func realtimeUnavailable(_ id: RequestID, reason: String) {
        issueStreams.yield(.realtimeUnavailable(reason: reason))
        enqueue(.reply(id, .failed(.notFound(nil)), at: clock.now))
    }

    @usableFromInline
    func realtimeOpened(_ id: RequestID, _ channel: any RealtimeChannel, at instant: Instant) -> Bool {
        guard connections[id] != nil else { return false }  // Cancelled while opening.
        channels[id] = channel
        enqueue(.reply(id, .realtimeOpened, at: instant))
        return true
    }

    @usableFromInline
    func realtimeFailed(_ id: RequestID, _ error: RealtimeError, at instant: Instant) {
        guard connections.removeValue(forKey: id) != nil else { return }
        let reply: Reply
        switch error {
        case .refused(let status):
            // The handshake is a protected request: the contract reads its status as it reads any.
            reply = contract.classifyProtected(HTTPResponse(status: status))
        case .timeout:
            reply = .failed(.timeout)
        case .network, .cancelled, .notConnected:
            reply = .failed(.network)
        case .unsupported:
            issueStreams.yield(.realtimeUnavailable(reason: "this platform cannot open WebSockets"))
            reply = .failed(.notFound(nil))
        }
        enqueue(.reply(id, reply, at: instant))
    }

    @usableFromInline
    func realtimeEnded(_ id: RequestID, at instant: Instant) {
        guard connections.removeValue(forKey: id) != nil else { return }  // Closed on the reducer's request.
        channels[id] = nil
        enqueue(.reply(id, .realtimeClosed, at: instant))
    }

    @usableFromInline
    func forward(_ message: RealtimeMessage) {
        messageStreams.yield(message)
    }

    // MARK: Protected calls

    /// A new call id.
    @inlinable
    func issueCall() -> CallID {
        callCounter += 1
        return CallID(callCounter)
    }

    /// Registers `call` and feeds its intent, unless the caller is already gone.
    @inlinable
    func begin(
        _ call: CallID, _ request: HTTPRequest, intent: Machine.Intent,
        caller: CheckedContinuation<Result<HTTPResponse, AuthorizedCallError>, Never>
    ) {
        guard !stopped, !Task.isCancelled else {
            caller.resume(returning: .failure(.cancelled))
            return
        }
        calls[call] = WaitingCall(request: request, caller: caller)
        enqueue(.intent(intent, at: clock.now))
    }

    /// The caller stopped waiting. The call itself runs on until the reducer finishes it (the
    /// reducer has no intent to withdraw a call), but nobody waits for its answer.
    @inlinable
    func abandon(_ call: CallID) {
        calls[call]?.caller?.resume(returning: .failure(.cancelled))
        calls[call]?.caller = nil
    }

    @inlinable
    func finish(_ call: CallID, _ result: CallResult) {
        guard let waiting = calls.removeValue(forKey: call) else { return }
        let outcome: Result<HTTPResponse, AuthorizedCallError>
        switch result {
        case .answered(let id):
            switch waiting.answers[id] {
            case .success(let response)?: outcome = .success(response)
            case .failure(.timeout)?: outcome = .failure(.failed(.timeout))
            case .failure(.network)?, .failure(.cancelled)?: outcome = .failure(.failed(.network))
            case nil: outcome = .failure(.failed(.malformed))  // Answered with a request this call never sent.
            }
        case .rejected(let rejection): outcome = .failure(.rejected(rejection))
        case .sessionEnded: outcome = .failure(.sessionEnded)
        case .failed(let failure): outcome = .failure(.failed(failure))
        }
        waiting.caller?.resume(returning: outcome)
    }
}

extension AuthRunner where Machine: AuthorizedCalls {
    /// Sends one of the app's own protected requests with the session's bearer attached, and
    /// returns the server's answer.
    ///
    /// The lifecycle decides everything: a token inside the expiry margin is refreshed first, a
    /// 401 joins the one refresh in flight (however many calls hit it) and the call is replayed
    /// once; a second 401 is returned as it is, never looped. Any answer with a status, error
    /// statuses included, is returned; only calls that get no answer throw.
    ///
    /// - Throws: ``AuthorizedCallError/rejected(_:)`` at once when nobody is signed in (or a
    ///   password step comes first), ``AuthorizedCallError/sessionEnded`` when the session ends
    ///   while the call waits, ``AuthorizedCallError/failed(_:)`` for a network failure or a
    ///   refresh that failed transiently, ``AuthorizedCallError/cancelled`` when the caller's task
    ///   is cancelled.
    @inlinable
    public func authorized(_ request: HTTPRequest) async throws(AuthorizedCallError) -> HTTPResponse {
        let call = issueCall()
        let intent = machine.callIntent(for: call)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (caller: CheckedContinuation<Result<HTTPResponse, AuthorizedCallError>, Never>) in
                begin(call, request, intent: intent, caller: caller)
            }
        } onCancel: {
            Task { await self.abandon(call) }
        }
        return try result.get()
    }
}
