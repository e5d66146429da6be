import AuthCore
import Foundation

/// Runs one lifecycle (usually a whole app from `Apps`): owns its state, feeds it events, performs
/// the effects it returns and feeds their results back as events. Most apps use a backend's
/// client (``EverdayClient``, ``Hero365Client``, …), which is built on a runner; a custom
/// composition uses the runner directly.
///
/// The runner holds no auth logic. Every decision (when to refresh, whom to sign out, which call
/// to replay, what became of an intent) is the reducer's; the runner only does what the effects say:
///
/// - Effects of one `reduce` are performed in list order, and one event's effects are all
///   performed before the next event is reduced. Storage is synchronous, so a `persist` has
///   completed before a following `send` starts: a rotated pair is stored before the new access
///   token is used.
/// - `send` starts the request on the transport (``HTTPTransport/start(_:completion:)``), so
///   requests run concurrently; its answer, decoded by the backend contract, comes back through
///   the actor as `.reply(id, …, at:)` with the time it arrived. `cancel` stops it, and an answer
///   to a cancelled request is dropped.
/// - `schedule` and `cancelTimer` set and drop wake-ups on the runner's clock (scheduling an id
///   again replaces its deadline); a wake-up feeds `.tick(now)`.
/// - `persist` and `clearCredentials` go to the vault, `emit` to ``outcomes()``, `finish` to the
///   caller waiting in `perform(_:)` or ``authorized(_:)``, `closeRealtime` to the open connection.
///
/// Every intent is finished by the reducer exactly once (the verification kit explores that), so
/// `perform(_:)` always returns: the caller is registered before the intent is reduced, so an
/// answer cannot arrive before anybody listens. Cancelling the caller's task withdraws the intent:
/// the reducer abandons its request and finishes it as cancelled; a late answer changes nothing.
///
/// What the reducer has no event for (a vault that cannot be written, a request the backend does
/// not offer) is reported on ``issues()``.
///
/// ```swift
/// let runner = AuthRunner(
///     machine: Apps.everday(), contract: contract, transport: URLSessionTransport(),
///     vault: FileVault(directory: directory))
/// await runner.start()                               // reads the vault, restores the session
/// let completion = await runner.perform(PasswordSignIn.Intent.submit(identifier: "newkid", password: typed))
/// let answer = try await runner.authorized(HTTPRequest(method: "GET", url: itemsURL))
/// await runner.perform(SessionLifecycle.Intent.logout)
/// ```
public final actor AuthRunner<Machine: Lifecycle>: CustomStringConvertible {
    /// A wake-up and the generation that tells it from the one it replaced.
    struct ScheduledAlarm: Sendable {
        let alarm: any ClockAlarm
        let generation: UInt64
    }

    /// The lifecycle.
    public nonisolated let machine: Machine
    /// The backend's HTTP mapping.
    public nonisolated let contract: any BackendContract
    /// Where time comes from.
    public nonisolated let clock: any RuntimeClock
    let transport: any HTTPTransport
    let vault: any TokenVault
    let connector: (any RealtimeConnector)?
    /// How the app sees a state, when the runner serves a client.
    let view: (@Sendable (Machine.State) -> AuthState)?

    /// The lifecycle's current state.
    public var state: Machine.State { current }
    var current: Machine.State
    /// What the last background sign-out reported (`AuthOutcome.serverSessionEnded`,
    /// `AuthOutcome.serverSessionEndOwed(_:)` or `AuthOutcome.serverSessionNotConfirmed(_:)`).
    var lastServerSignOut: AuthOutcome?
    /// The refresh token of the last background sign-out that ends a session (not an owed one's
    /// later round), since ``forgetServerSignOutReport()``.
    var sessionSignOut: RefreshToken?
    /// What each background sign-out that settled since ``forgetServerSignOutReport()`` reported,
    /// by the refresh token it revoked. Kept in memory only, never shown.
    var signOutReports: [RefreshToken: AuthOutcome] = [:]

    var queue: [Machine.Event] = []
    var launched = false
    var draining = false
    var stopped = false
    var requests: [RequestID: TransportHandle] = [:]
    var connections: [RequestID: Task<Void, Never>] = [:]
    var channels: [RequestID: any RealtimeChannel] = [:]
    var alarms: [TimerID: ScheduledAlarm] = [:]
    var alarmGeneration: UInt64 = 0
    var intents = IntentLedger<Machine.State>()
    var stateStreams = Broadcast<Machine.State>()
    var outcomeStreams = Broadcast<AuthOutcome>()
    var issueStreams = Broadcast<RuntimeIssue>()
    var messageStreams = Broadcast<RealtimeMessage>()
    var viewStreams = Broadcast<AuthState>()
    var lastView: AuthState?

    /// A runner for `machine` speaking `contract` over `transport`, storing credentials in `vault`.
    ///
    /// - Parameters:
    ///   - machine: the lifecycle to run, usually a whole app's composition.
    ///   - contract: the backend's HTTP mapping of the lifecycle's requests and answers.
    ///   - transport: sends the requests (``URLSessionTransport`` in an app).
    ///   - vault: where the credentials are kept between launches.
    ///   - clock: where time and wake-ups come from; a ``ManualClock`` in tests.
    ///   - realtime: opens realtime connections when the lifecycle asks (VynqTalk); without one,
    ///     such requests fail and an issue is reported.
    ///   - logger: records every exchange, redacted. Opt-in: pass one in debug builds only.
    public init(
        machine: Machine, contract: any BackendContract, transport: any HTTPTransport, vault: any TokenVault,
        clock: any RuntimeClock = SystemClock(), realtime: (any RealtimeConnector)? = nil, logger: (any HTTPLogger)? = nil
    ) {
        self.init(
            machine: machine, contract: contract, transport: transport, vault: vault, clock: clock, realtime: realtime, logger: logger, view: nil)
    }

    /// The runner of a client, which also tells how the app sees each state.
    init(
        machine: Machine, contract: any BackendContract, transport: any HTTPTransport, vault: any TokenVault,
        clock: any RuntimeClock, realtime: (any RealtimeConnector)?, logger: (any HTTPLogger)?,
        view: (@Sendable (Machine.State) -> AuthState)?
    ) {
        self.machine = machine
        self.contract = contract
        self.clock = clock
        self.transport = logger.map { LoggingTransport(transport, logger: $0) } ?? transport
        self.vault = vault
        self.connector = realtime.map { connector in logger.map { LoggingRealtimeConnector(connector, logger: $0) } ?? connector }
        self.current = machine.initial
        self.view = view
        self.lastView = view?(machine.initial)
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
    /// nothing is deleted), with the revocations a logout still owes (`OwedRevocation`), which
    /// the session then tries again. The app launches once: later calls do nothing.
    public func start() {
        guard !launched else { return }
        launched = true
        let stored: StoredCredentials
        do throws(VaultError) {
            stored = try vault.load().map(StoredCredentials.stored) ?? .none
        } catch {
            issueStreams.yield(.vaultUnreadable(error))
            stored = .unreadable
        }
        let owed: [OwedRevocation]
        do throws(VaultError) {
            owed = try vault.loadOwedRevocations()
        } catch {
            issueStreams.yield(.vaultUnreadable(error))
            owed = []
        }
        enqueue(.launched(stored, owed: owed, at: clock.now))
    }

    /// Sends `intent` and returns what became of it, once the reducer finished it.
    ///
    /// Never hangs: the reducer finishes every intent (an intent that changes nothing is finished
    /// with that fact). Cancelling the calling task withdraws the intent: a request sent for it is
    /// abandoned and `Completion.cancelled` is returned.
    @discardableResult
    public func perform(_ intent: Machine.Intent) async -> Completion {
        await submit(intent, call: nil).completion
    }

    /// Sends an intent of any flow of the composition — `PasswordSignIn.Intent.submit(…)`,
    /// `SessionLifecycle.Intent.logout` — routed to the flow whose intent type it is (see
    /// `Lifecycle.route(_:)`), and returns what became of it. A composition with no
    /// such flow refuses it as `Rejection.unsupported`.
    @discardableResult
    public func perform<Leaf: Sendable>(_ intent: Leaf) async -> Completion {
        guard let routed = routed(intent) else { return .rejected(.unsupported) }
        return await perform(routed)
    }

    /// Forgets the background sign-outs' reports (before a logout whose own report is awaited).
    func forgetServerSignOutReport() {
        lastServerSignOut = nil
        sessionSignOut = nil
        signOutReports = [:]
    }

    /// Waits until no logged-out session is still being ended on the server in the background, and
    /// returns what the last one reported (`nil` when none ran: the backend revokes nothing, or
    /// nobody was signed in).
    public func serverSignOutsSettled() async -> AuthOutcome? {
        let changes = stateStreams.subscribe([current])
        for await state in changes where state.context.serverSignOuts.isEmpty { break }
        return lastServerSignOut
    }

    /// ``serverSignOutsSettled()``, returning what the sign-out of the session a logout ended
    /// reported since ``forgetServerSignOutReport()``, rather than an owed revocation's round that
    /// settled after it; the last report when no session was signed out.
    func sessionSignOutSettled() async -> AuthOutcome? {
        let last = await serverSignOutsSettled()
        return sessionSignOut.flatMap { signOutReports[$0] } ?? last
    }

    /// Notes which background sign-outs a step started, and what the ones it settled reported:
    /// `before` is the list of the state before the step, `effects` what the step asked for.
    private func noteSignOuts(before: [ServerSignOut], effects: [AuthEffect]) {
        let after = current.context.serverSignOuts
        for started in after where !before.contains(where: { $0.refreshToken == started.refreshToken }) {
            // A session's own sign-out, or the renewed token it revokes; an owed one's round is not.
            if !current.context.owes(started.refreshToken) { sessionSignOut = started.refreshToken }
        }
        for case .emit(let outcome) in effects where ServerSignOutResult(outcome) != nil {
            for settled in before where !after.contains(where: { $0.refreshToken == settled.refreshToken }) {
                signOutReports[settled.refreshToken] = outcome
            }
        }
    }

    /// Sends `intent` without waiting for what becomes of it.
    public func send(_ intent: Machine.Intent) {
        let id = intents.issue()
        guard intents.open(id, caller: nil, call: nil) else { return }
        enqueue(.intent(intent, id: id, at: clock.now))
    }

    /// Sends an intent of any flow of the composition (routed as the generic `perform(_:)` routes it)
    /// without waiting for what becomes of it.
    public func send<Leaf: Sendable>(_ intent: Leaf) {
        guard let routed = routed(intent) else { return }
        send(routed)
    }

    /// `intent` routed to its flow; when no flow of the composition takes it, an issue says so.
    private func routed<Leaf: Sendable>(_ intent: Leaf) -> Machine.Intent? {
        guard let routed = machine.route(intent) else {
            issueStreams.yield(.unroutedIntent(String(describing: Leaf.self)))
            return nil
        }
        return routed
    }

    /// Sends `intent` for a caller that waits; `call` is the app's request for a protected call.
    func submit(_ intent: Machine.Intent, call: HTTPRequest?) async -> IntentLedger<Machine.State>.Finished {
        let id = intents.issue()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (caller: CheckedContinuation<IntentLedger<Machine.State>.Finished, Never>) in
                begin(id, intent, call: call, caller: caller)
            }
        } onCancel: {
            Task { await self.withdraw(id) }
        }
    }

    private func begin(
        _ id: IntentID, _ intent: Machine.Intent, call: HTTPRequest?, caller: CheckedContinuation<IntentLedger<Machine.State>.Finished, Never>
    ) {
        let cancelled = IntentLedger<Machine.State>.Finished(completion: .cancelled, state: current, response: nil)
        guard !stopped, !Task.isCancelled else {
            _ = intents.open(id, caller: nil, call: nil)  // Forgets the id.
            caller.resume(returning: cancelled)
            return
        }
        guard intents.open(id, caller: caller, call: call) else {
            caller.resume(returning: cancelled)  // Withdrawn before it was handed over.
            return
        }
        enqueue(.intent(intent, id: id, at: clock.now))
    }

    /// The caller of `id` stopped waiting: the reducer abandons what it sent for it.
    func withdraw(_ id: IntentID) {
        if intents.withdrawBeforeOpening(id) { return }
        guard intents.isOpen(id) else { return }
        enqueue(.withdrawn(id, at: clock.now))
    }

    /// Stops all work: cancels every request, wake-up and connection, finishes every waiting
    /// intent as cancelled and finishes every stream. Later events are ignored.
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
        intents.finishAll(.cancelled, state: current)
        stateStreams.finish()
        outcomeStreams.finish()
        issueStreams.finish()
        messageStreams.finish()
        viewStreams.finish()
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

    /// The app's view of the state, starting with the current one, then each change once (for
    /// a runner that serves a client).
    func authStates() -> AsyncStream<AuthState> { viewStreams.subscribe(lastView.map { [$0] } ?? []) }

    /// The app's view of the current state (for a runner that serves a client).
    var authState: AuthState? { lastView }

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
    func enqueue(_ event: Machine.Event) {
        guard !stopped else { return }
        queue.append(event)
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty, !stopped {
            let next = queue.removeFirst()
            let signOuts = current.context.serverSignOuts
            let effects = machine.reduce(&current, next)
            if !signOuts.isEmpty || !current.context.serverSignOuts.isEmpty { noteSignOuts(before: signOuts, effects: effects) }
            stateStreams.yield(current)
            if let view {
                let seen = view(current)
                if seen != lastView {
                    lastView = seen
                    viewStreams.yield(seen)
                }
            }
            for effect in effects { perform(effect) }
        }
    }

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
        case .persistOwedRevocations(let owed):
            do throws(VaultError) {
                try vault.saveOwedRevocations(owed)
            } catch {
                issueStreams.yield(.vaultWriteFailed(error))
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
            switch outcome {
            case .serverSessionEnded, .serverSessionEndOwed, .serverSessionNotConfirmed: lastServerSignOut = outcome
            case .signedIn, .signedOut, .tokenRefreshed, .refreshRetryScheduled, .offline, .passwordSetupRequired, .passwordChangeRequired,
                .realtimeConnected, .realtimeDisconnected, .vaultUnreadable, .failed:
                break
            }
            outcomeStreams.yield(outcome)
        case .finish(let intent, let completion):
            intents.finish(intent, completion, state: current)
        }
    }

    func alarmFired(_ timer: TimerID, _ generation: UInt64) {
        guard alarms[timer]?.generation == generation else { return }  // Replaced or cancelled meanwhile.
        alarms[timer] = nil
        enqueue(.tick(clock.now))
    }

    // MARK: Requests

    func start(_ id: RequestID, _ request: APIRequest) {
        switch request {
        case .protected(let call, let bearer):
            guard let app = intents.request(ofCall: call) else {
                issueStreams.yield(.unknownCall(call))
                enqueue(.reply(id, .failed(.notFound(nil)), at: clock.now))
                return
            }
            let contract = contract
            launch(id, contract.authorize(app, with: bearer), for: call) { response, receivedAt in
                contract.classifyProtected(response, receivedAt: receivedAt)
            }
        case .openRealtime(let token):
            openRealtime(id, token)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode, .signIn,
            .register, .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .signInNatively, .refresh,
            .currentUser, .revoke, .deleteAccount, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
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
    func launch(_ id: RequestID, _ http: HTTPRequest, for call: IntentID?, read: @escaping @Sendable (HTTPResponse, Instant) -> Reply) {
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

    func deliver(_ id: RequestID, _ reply: Reply, at instant: Instant, answer: (IntentID, Result<HTTPResponse, TransportError>)?) {
        guard requests.removeValue(forKey: id) != nil else { return }  // Cancelled: the answer is stale.
        if let (call, result) = answer { intents.record(result, to: id, forCall: call) }
        enqueue(.reply(id, reply, at: instant))
    }

    // MARK: Realtime

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

    func realtimeUnavailable(_ id: RequestID, reason: String) {
        issueStreams.yield(.realtimeUnavailable(reason: reason))
        enqueue(.reply(id, .failed(.notFound(nil)), at: clock.now))
    }

    func realtimeOpened(_ id: RequestID, _ channel: any RealtimeChannel, at instant: Instant) -> Bool {
        guard connections[id] != nil else { return false }  // Cancelled while opening.
        channels[id] = channel
        enqueue(.reply(id, .realtimeOpened, at: instant))
        return true
    }

    func realtimeFailed(_ id: RequestID, _ error: RealtimeError, at instant: Instant) {
        guard connections.removeValue(forKey: id) != nil else { return }
        let reply: Reply
        switch error {
        case .refused(let status):
            // The handshake is a protected request: the contract reads its status as it reads any.
            reply = contract.classifyProtected(HTTPResponse(status: status), receivedAt: clock.now)
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

    func realtimeEnded(_ id: RequestID, at instant: Instant) {
        guard connections.removeValue(forKey: id) != nil else { return }  // Closed on the reducer's request.
        channels[id] = nil
        enqueue(.reply(id, .realtimeClosed, at: instant))
    }

    func forward(_ message: RealtimeMessage) {
        messageStreams.yield(message)
    }
}

extension AuthRunner {
    /// Sends one of the app's own protected requests with the session's bearer attached, and
    /// returns the server's answer.
    ///
    /// The lifecycle decides everything: a token inside the expiry margin is refreshed first, a
    /// 401 joins the one refresh in flight (however many calls hit it) and the call is replayed
    /// once; a second 401 is returned as it is, never looped. Any answer with a status, error
    /// statuses included, is returned; only calls that get no answer throw.
    ///
    /// - Throws: ``AuthError/rejected(_:)`` at once when nobody is signed in (or a password step
    ///   comes first, or the composition has no session), ``AuthError/sessionEnded`` when the
    ///   session ends while the call waits, ``AuthError/server(_:)`` for a network failure or a
    ///   refresh that failed transiently, ``AuthError/cancelled`` when the caller's task is cancelled.
    public func authorized(_ request: HTTPRequest) async throws(AuthError) -> HTTPResponse {
        guard let intent = machine.route(SessionLifecycle.Intent.call) else { throw .rejected(.unsupported) }
        let finished = await submit(intent, call: request)
        switch (finished.completion, finished.response) {
        case (.answered, .success(let response)?): return response
        case (.answered, .failure(.timeout)?): throw .server(.timeout)
        case (.answered, .failure(.network)?), (.answered, .failure(.cancelled)?): throw .server(.network)
        case (.answered, nil): throw .server(.malformed)  // Answered with a request this call never sent.
        case (let completion, _): throw AuthError(completion, at: clock.now)
        }
    }
}
