import AuthCore

/// A world with the facts invariants read, gathered in one survey of the world.
///
/// A class, immutable once made: the explorer and the invariants pass snapshots around far more
/// often than they make them, and passing one is then a single reference count, not a copy of
/// the world and every fact.
public final class Snapshot<Machine: Lifecycle>: Sendable {
    /// The world.
    public let world: World<Machine>
    /// Request ids the lifecycle state still refers to: its current requests.
    public let referencedRequests: [RequestID]
    /// Every secret value in the world, revealed (for leak checks only).
    public let secrets: [String]
    /// The session phase inside the state, if the lifecycle has one.
    public let session: SessionLifecycle.Phase?
    /// The highest symbolic token indices in the world, for naming fresh tokens.
    public let symbols: SymbolCounts
    /// The canonical fingerprint (symmetry-reduced).
    @usableFromInline let fingerprint: Fingerprint
    /// The fingerprint of the lifecycle state alone (its phases), to tell whether a move changed it.
    @usableFromInline let stateFingerprint: Fingerprint

    /// The credentials the session holds, if signed in (read once: most invariants ask).
    public let sessionCredentials: Credentials?
    /// Whether the session holds credentials (`sessionCredentials != nil`, without copying them).
    public let isSignedIn: Bool
    /// The state's case path, e.g. `signedIn.active.refreshing`.
    @inlinable public var casePath: String { AuthVerification.casePath(of: world.state.phase) }

    /// Surveys `world`; `settle` may update its history from the survey's facts before the
    /// history is surveyed.
    @inlinable init(
        _ world: consuming World<Machine>, horizon: Interval, historyHorizon: Interval, reduction: Reduction,
        settle: (inout World<Machine>, Survey) -> Void = { _, _ in }
    ) {
        // Consumed, not copied: the world is settled in place and kept.
        let survey = Survey.of(&world, horizon: horizon, historyHorizon: historyHorizon, reduction: reduction, settle: settle)
        self.world = world
        self.referencedRequests = survey.referencedRequests
        self.secrets = survey.secrets
        self.session = survey.session
        self.sessionCredentials = survey.session?.credentials
        self.isSignedIn = sessionCredentials != nil
        self.symbols = survey.symbols
        self.fingerprint = survey.fingerprint
        self.stateFingerprint = survey.stateFingerprint
    }

    /// Whether the state refers to request `id`.
    @inlinable public func refers(to id: RequestID) -> Bool { referencedRequests.contains(id) }

    /// The first phase of type `T` in the state (outermost first), if any.
    @inlinable public func phase<T: ExplorablePhase>(_ type: T.Type) -> T? {
        // Through the phase type's own conformance: passing the phase as `Any` would box it.
        if let explorable = Machine.Phase.self as? any ExplorablePhase.Type {
            return Self.first(T.self, in: world.state.phase, as: explorable)
        }
        return firstPhase(T.self, in: world.state.phase)
    }

    @inlinable static func first<T, Explorable: ExplorablePhase>(_ type: T.Type, in phase: Machine.Phase, as _: Explorable.Type) -> T? {
        if let phase = phase as? Explorable { return phase.firstPhase(type) }
        return firstPhase(type, in: phase)
    }
}

extension Survey {
    /// Surveys a world: the lifecycle state first (its phase, then the code cooldowns its context
    /// keeps), then network, timers and vault; `settle` may update the history from those facts
    /// before the history is surveyed.
    @inlinable static func of<M: Lifecycle>(
        _ world: inout World<M>, horizon: Interval, historyHorizon: Interval, reduction: Reduction,
        settle: (inout World<M>, Survey) -> Void
    ) -> Survey {
        var survey = Survey(now: world.now, horizon: horizon, historyHorizon: historyHorizon, reduction: reduction)
        if let surveyable = M.Phase.self as? any Surveyable.Type {
            survey.visit(world.state.phase, as: surveyable)
        } else {
            survey.reflect(world.state.phase)
        }
        survey.cooldowns(of: world.state.context)
        survey.stateFingerprint = survey.fingerprint.finished()
        survey.walking = .environment
        survey.number(-1)
        survey.visit(network: world.network)
        survey.visit(world.timers)
        survey.visit(world.vault)
        survey.visit(unordered: world.owedRevocations)
        settle(&world, survey)
        survey.walking = .history
        survey.visit(world.history)
        survey.fingerprint = survey.fingerprint.finished()
        survey.noteAnsweredOnly(world.network)
        return survey
    }
}

/// The environment around a model's lifecycle: which moves are possible and what they do to the
/// network, timers, vault and history.
@usableFromInline struct Environment<Model: LifecycleModel>: Sendable {
    @usableFromInline typealias Machine = Model.Machine
    @usableFromInline let model: Model
    // The model's requirements, read once: a model may compute them (a catalogue of replies, a
    // machine assembled from its backend), and the explorer asks for them at every step.
    @usableFromInline let machine: Machine
    @usableFromInline let replies: ReplyCatalogue
    @usableFromInline let maxInFlight: Int
    @usableFromInline let maxStale: Int
    @usableFromInline let relaunches: Bool
    @usableFromInline let timeHorizon: Interval
    @usableFromInline let historyHorizon: Interval
    @usableFromInline let maxCodeAttempts: Int?
    /// Whether logouts are followed to the server (``LifecycleModel/endsServerSessions``).
    @usableFromInline let endsServerSessions: Bool
    /// How worlds are made one state (``Reduction``).
    @usableFromInline let reduction: Reduction
    /// The model's invariants, made once: their memos (what a description showed, whether an
    /// intent is a logout) then last the whole run even when the model computes the list.
    @usableFromInline let invariants: [Invariant<Machine>]
    /// The state invariants' checks, with their positions in ``invariants``.
    @usableFromInline let stateChecks: CheckChain<Snapshot<Machine>>
    /// The step invariants' checks, with their positions in ``invariants``.
    @usableFromInline let stepChecks: CheckChain<Transition<Machine>>
    /// The answers to each kind of request, built (and their keys numbered) once for each (see
    /// ``ReplyCatalogue/AnswerKey``): not rebuilt, with fresh token names, for every request in
    /// flight at every world.
    @usableFromInline let answers = Memo<ReplyCatalogue.AnswerKey, Answers>()
    /// The payloads of the events this environment builds, numbered (see ``EventKey``).
    @usableFromInline let events = EventTable<Machine.Intent>()

    /// The environment of `model`; a fuzz walk's (`walking`) allows more requests in flight and
    /// left over than the explorer's (``Fuzzer/walkBounds``), so that long random walks reach
    /// what the exhaustive search does not. Without `checking`, the check chains are empty: the
    /// worlds are stepped and surveyed alike, and no invariant is run on them.
    @inlinable init(model: Model, walking: Bool = false, reduction: Reduction = .symmetric, checking: Bool = true) {
        self.model = model
        self.reduction = reduction
        self.machine = model.machine
        self.replies = model.replies
        self.maxInFlight = walking ? max(model.maxInFlight, Fuzzer.walkBounds.inFlight) : model.maxInFlight
        self.maxStale = walking ? max(model.maxStale, Fuzzer.walkBounds.stale) : model.maxStale
        self.relaunches = model.relaunches
        self.timeHorizon = model.timeHorizon
        self.historyHorizon = model.historyHorizon
        self.maxCodeAttempts = model.codeRules?.maxAttempts
        self.endsServerSessions = model.endsServerSessions
        self.invariants = model.invariants
        var stateChecks: [(Int, @Sendable (Snapshot<Machine>) -> String?)] = []
        var stepChecks: [(Int, @Sendable (Transition<Machine>) -> String?)] = []
        for (position, invariant) in invariants.enumerated() where checking {
            switch invariant.check {
            case .state(let check): stateChecks.append((position, check))
            case .step(let check): stepChecks.append((position, check))
            }
        }
        self.stateChecks = CheckChain(stateChecks)
        self.stepChecks = CheckChain(stepChecks)
    }

    /// The initial world's snapshot.
    @inlinable var initial: Snapshot<Machine> {
        Snapshot(model.initialWorld, horizon: timeHorizon, historyHorizon: historyHorizon, reduction: reduction)
    }

    /// Every possible next move, in a fixed order (determinism).
    @inlinable func moves(_ snapshot: Snapshot<Machine>) -> [Move<Machine>] {
        menu(snapshot).moves
    }

    /// The move with `choice` in `snapshot`, if it still applies.
    @inlinable func move(_ choice: Choice, in snapshot: Snapshot<Machine>) -> Move<Machine>? {
        menu(snapshot).move(choice)
    }

    /// The readable steps of `choices`, replayed from the initial world (up to the first that does
    /// not apply). The explorer keeps only each state's move, and a fuzz walk only its choices:
    /// readable steps are built for the traces that are reported.
    @inlinable func trace(_ choices: [Choice]) -> [TraceStep] { replayed(choices).steps }

    /// ``trace(_:)`` with the world the steps end in: `nil` when a choice does not apply (the
    /// steps then stop before it).
    @inlinable func replayed(_ choices: [Choice]) -> (steps: [TraceStep], end: Snapshot<Machine>?) {
        var snapshot = initial
        var steps: [TraceStep] = []
        for choice in choices {
            guard let move = move(choice, in: snapshot) else { return (steps, nil) }
            snapshot = step(move, from: snapshot).after
            let event = choice.isWait ? "\(move.event.instant) time passes" : move.event.description
            steps.append(TraceStep(choice: choice, event: event, phase: snapshot.casePath))
        }
        return (steps, snapshot)
    }

    /// The deadlines ahead that time may pass to with no event: the session's access token's
    /// expiry; and, when nothing else moves time (no timer pending, no token to expire), the end of
    /// each wait a server asked for (429 with `Retry-After`), earliest first.
    @inlinable func deadlines(_ snapshot: Snapshot<Machine>) -> [Instant] {
        let now = snapshot.world.now
        if let expiry = snapshot.sessionCredentials?.expiresAt, expiry > now { return [expiry] }
        guard snapshot.world.timers.isEmpty else { return [] }
        return Set(snapshot.world.history.rateLimits.map(\.until).filter { $0 > now }).sorted()
    }

    /// What can happen next in `snapshot`, without building each move's event: the fuzzer picks
    /// one move of many, and builds only that one.
    @inlinable func menu(_ snapshot: Snapshot<Machine>) -> Menu {
        var intents: [Machine.Intent] = []
        var withdrawals: [IntentID] = []
        // Answers nobody waits for, and the background sign-outs of logged-out sessions, are both
        // left-over work: together they stay within `maxStale`.
        let leftOver = snapshot.world.network.count { exchange in
            !snapshot.refers(to: exchange.id) || snapshot.world.history.endsLoggedOutSession(exchange.request)
        }
        if snapshot.world.network.count < maxInFlight, leftOver < maxStale {
            intents = model.intents(in: snapshot)
            withdrawals = snapshot.world.history.openIntents
        }
        var launches: [StoredCredentials] = []
        if relaunches {
            switch snapshot.world.vault {
            case .empty: launches = [.none]
            case .holds(let credentials), .unreadable(let credentials): launches = [.stored(credentials), .unreadable]
            }
        }
        return Menu(
            now: snapshot.world.now, intents: intents,
            answers: snapshot.world.network.map { exchange in
                let key = ReplyCatalogue.AnswerKey(
                    exchange, symbols: snapshot.symbols, background: snapshot.world.history.endsLoggedOutSession(exchange.request))
                return answers.value(key) { key in
                    let replies = replies.replies(to: key)
                    return Answers(replies: replies, keys: replies.map { events.key(.reply($0)) })
                }
            },
            exchanges: snapshot.world.network.map(\.id), timers: snapshot.world.timers.map { max(snapshot.world.now, $0.at) }, relaunches: launches,
            owed: snapshot.world.owedRevocations, withdrawals: withdrawals, waits: deadlines(snapshot),
            nextIntent: IntentID(snapshot.world.nextIntent), events: events)
    }

    /// The answers a request in flight can get, and their keys.
    @usableFromInline struct Answers {
        /// The answers, in catalogue order.
        @usableFromInline let replies: [Reply]
        /// Each answer's key.
        @usableFromInline let keys: [EventKey]

        /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
        @inlinable init(replies: [Reply], keys: [EventKey]) {
            self.replies = replies
            self.keys = keys
        }
    }

    /// The moves possible in one world, in a fixed order: intents, answers to each request in
    /// flight (in issue order), timers, relaunches, withdrawals of the intents still open, time
    /// passing to each deadline ahead.
    @usableFromInline struct Menu {
        /// The world's time.
        @usableFromInline let now: Instant
        /// The model's intents (none while the request bounds are reached).
        @usableFromInline let intents: [Machine.Intent]
        /// The answers each request in flight can get.
        @usableFromInline let answers: [Answers]
        /// The requests in flight.
        @usableFromInline let exchanges: [RequestID]
        /// When each pending timer fires (never before now).
        @usableFromInline let timers: [Instant]
        /// What a relaunch finds in the vault: as it is, then (when it holds something) unreadable.
        @usableFromInline let relaunches: [StoredCredentials]
        /// The revocations the vault owes, which a relaunch reads back with the credentials.
        @usableFromInline let owed: [OwedRevocation]
        /// The open intents whose caller may stop waiting, oldest first.
        @usableFromInline let withdrawals: [IntentID]
        /// The deadlines time may pass to with no event (``Choice/wait(_:)``): the expiry of the
        /// session's access token, while it lies ahead; and, when no timer is pending and no token
        /// can expire, the end of each 429 window the server set (`deadlines(_:)`).
        ///
        /// A window's end is offered only then because offering it always let time stop at 30 s
        /// after every 429, out of step with every other deadline: app.subspace no longer closed
        /// within 5,000,000 states. Where a timer is pending, time reaches the window's end by it
        /// (a refresh retried at the window's end, a sign-in's or a code's own wake-up).
        ///
        /// Timers the reducer scheduled move time already, and fire in order; a wait models the app
        /// suspended past them (they fire, overdue, after it resumes), or a session whose expiry no
        /// timer marks. It costs app.everday 3 % more states at 2 in flight and 1 left over, 7 % at
        /// 3 and 2. Every other instant a state holds (a code's lifetime, a cooldown's end) is left to
        /// its timer: offering those too nearly doubled app.everday at 2 and 1 (7,373 to 14,036).
        @usableFromInline let waits: [Instant]
        /// The id an intent sent in this world gets.
        @usableFromInline let nextIntent: IntentID
        /// The environment's payload numbers.
        @usableFromInline let events: EventTable<Machine.Intent>

        /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
        @inlinable init(
            now: Instant, intents: [Machine.Intent], answers: [Answers], exchanges: [RequestID], timers: [Instant],
            relaunches: [StoredCredentials], owed: [OwedRevocation], withdrawals: [IntentID], waits: [Instant], nextIntent: IntentID,
            events: EventTable<Machine.Intent>
        ) {
            self.now = now
            self.intents = intents
            self.answers = answers
            self.exchanges = exchanges
            self.timers = timers
            self.relaunches = relaunches
            self.owed = owed
            self.withdrawals = withdrawals
            self.waits = waits
            self.nextIntent = nextIntent
            self.events = events
        }

        /// Every move, in order.
        @inlinable var moves: [Move<Machine>] {
            var moves: [Move<Machine>] = []
            moves.reserveCapacity(
                intents.count + answers.reduce(0) { $0 + $1.replies.count } + timers.count + relaunches.count + withdrawals.count
                    + waits.count)
            let intentKeys = events.keys(of: intents)
            for (index, intent) in intents.enumerated() {
                moves.append(Move(choice: .intent(index), event: .intent(intent, id: nextIntent, at: now), key: intentKeys[index]))
            }
            for (exchange, answers) in answers.enumerated() {
                for index in answers.replies.indices { moves.append(building(.reply(exchange: exchange, reply: index))) }
            }
            for index in timers.indices { moves.append(building(.timer(index))) }
            for index in relaunches.indices { moves.append(building(.relaunch(index))) }
            for index in withdrawals.indices { moves.append(building(.withdraw(index))) }
            for index in waits.indices { moves.append(building(.wait(index))) }
            return moves
        }

        /// The move `choice` names, if this menu has it.
        @inlinable func move(_ choice: Choice) -> Move<Machine>? {
            let offered =
                switch choice {
                case .intent(let index): intents.indices.contains(index)
                case .reply(let exchange, let reply): answers.indices.contains(exchange) && answers[exchange].replies.indices.contains(reply)
                case .timer(let index): timers.indices.contains(index)
                case .relaunch(let mode): relaunches.indices.contains(mode)
                case .withdraw(let index): withdrawals.indices.contains(index)
                case .wait(let index): waits.indices.contains(index)
                }
            return offered ? building(choice) : nil
        }

        /// The move for a choice this menu offers.
        @inlinable func building(_ choice: Choice) -> Move<Machine> {
            switch choice {
            case .intent(let index):
                // The list's keys: a lookup of a list met before, where the intent's own key hashed it.
                Move(choice: choice, event: .intent(intents[index], id: nextIntent, at: now), key: events.keys(of: intents)[index])
            case .reply(let exchange, let reply):
                Move(
                    choice: choice, event: .reply(exchanges[exchange], answers[exchange].replies[reply], at: now),
                    key: answers[exchange].keys[reply])
            case .timer(let index): Move(choice: choice, event: .tick(timers[index]), key: nil)
            case .relaunch(let mode):
                Move(
                    choice: choice, event: .launched(relaunches[mode], owed: owed, at: now),
                    key: events.key(.launched(relaunches[mode], owed: owed)))
            case .withdraw(let index): Move(choice: choice, event: .withdrawn(withdrawals[index], at: now), key: nil)
            // The tick names the instant; no reducer hears it (see ``Environment/apply(_:to:)``).
            case .wait(let index): Move(choice: choice, event: .tick(waits[index]), key: nil)
            }
        }
    }

    /// Applies `move`: the event reaches the reducer, its effects reach the environment.
    @inlinable func apply(_ move: Move<Machine>, to snapshot: Snapshot<Machine>) -> (
        world: World<Machine>, effects: [AuthEffect], answered: Exchange?
    ) {
        var world = snapshot.world
        var answered: Exchange?
        if case .wait = move.choice {
            world.now = max(world.now, move.event.instant)  // Time passes; nothing else happens.
            return (world, [], nil)
        }
        switch move.choice {
        case .relaunch(let mode):
            world.state = machine.initial
            world.network = []
            world.timers = []
            world.history.inFlightAtSignOut = []
            world.history.callSends = []
            world.history.openIntents = []  // The process ended: nobody waits any more.
            world.history.codes = []  // The client's memory of sent codes is gone; the server's own cooldown answers now.
            // The background sign-out ended with the process; what the vault owes is tried again.
            world.history.liveAfterLogout.removeAll { token in !world.owedRevocations.contains { $0.refreshToken == token } }
            world.history.rateLimits = []  // The client's memory of the server's waits is gone; the server answers 429 again.
            world.history.devicePolling = nil  // The device sign-in ended with the process.
            world.history.roundAttempts = []  // A new process starts each round's sends afresh.
            switch (mode, world.vault) {
            case (0, .unreadable(let credentials)): world.vault = .holds(credentials)
            case (1, .holds(let credentials)): world.vault = .unreadable(credentials)
            default: break
            }
        case .intent, .reply, .timer, .withdraw, .wait: break
        }
        world.now = max(world.now, move.event.instant)
        switch move.event {
        case .reply(let id, let reply, _):
            if let index = world.network.firstIndex(where: { $0.id == id }) {
                let exchange = world.network[index]
                answered = exchange
                // History holds what the client learned: answers to requests it still waited for.
                if snapshot.refers(to: id) {
                    record(reply, to: exchange, in: &world.history, at: world.now)
                    if replies.passwordChangeRevokesRefreshTokens, case .changePassword = exchange.request,
                        SourceRules.acknowledged(reply), let token = snapshot.sessionCredentials?.refreshToken,
                        !world.history.revokedRefreshTokens.contains(token)
                    {
                        world.history.revokedRefreshTokens.append(token)  // The server ended every session of the user.
                    }
                }
                if case .openRealtime = exchange.request, reply == .realtimeOpened {
                    world.network[index].opened = true
                } else {
                    world.network.remove(at: index)
                }
            }
        case .tick(let now):
            world.timers.removeAll { $0.at <= now }
        case .intent(_, let id, _):
            world.history.openIntents.append(id)
            world.nextIntent = max(world.nextIntent, id.rawValue + 1)
        case .withdrawn, .launched:
            break
        }
        let effects = machine.reduce(&world.state, move.event)
        var loggedOut: RefreshToken?
        if endsServerSessions, effects.contains(where: \.isLogout),
            let token = snapshot.sessionCredentials?.refreshToken, !world.history.liveAfterLogout.contains(token)
        {
            world.history.liveAfterLogout.append(token)  // A logout: this session's refresh token must end on the server.
            loggedOut = token
        }
        // Only where a round has more than one send, and while a logged-out session's token is about.
        if endsServerSessions, replies.revocationAttempts > 1,
            !world.history.liveAfterLogout.isEmpty || !world.history.roundAttempts.isEmpty
        {
            let listened = answered.flatMap { snapshot.refers(to: $0.id) ? $0 : nil }
            var reply: Reply?
            if case .reply(_, let answer, _) = move.event { reply = answer }
            countRoundAttempts(
                answered: listened, reply: reply, sent: effects.compactMap(\.sentRequest), inFlight: world.network, in: &world.history)
        }
        // Reported to the app as final, the kit asks no more of the client: for the token the answer
        // was about when the server refused the revocation (or at the logout itself, when the
        // server's 429 holds the request back), and for each owed revocation this step dropped from
        // the vault whose last round this step ended (the client's policy's rounds, each counted
        // in a step that ended one: ``Catalogue/owedRoundsCounted()``) or that a new session made
        // moot. A round that only failed to reach the server must leave its token owed.
        if let failure = effects.lazy.compactMap(\.unconfirmedServerSessionFailure).first {
            if !SourceRules.environmentFailed(failure), let token = answered?.request.refreshToken ?? loggedOut {
                world.history.liveAfterLogout.removeAll { $0 == token }
            }
            if let owed = effects.lazy.compactMap(\.persistedOwedRevocations).last {
                for entry in world.owedRevocations where !owed.contains(where: { $0.refreshToken == entry.refreshToken }) {
                    let ended = endsLastRound(of: entry, answered: answered, move.event, effects, in: world, from: snapshot.world)
                    guard ended || beginsSession(effects, move.event, from: snapshot) else { continue }
                    world.history.liveAfterLogout.removeAll { $0 == entry.refreshToken }
                }
            }
        }
        for effect in effects { perform(effect, in: &world) }
        if replies.revocationEndsEverySession, let answered, effects.contains(where: { $0.unconfirmedServerSessionFailure != nil }) {
            giveUpRoundBesideSession(answered, move.event, in: &world)
        }
        return (world, effects, answered)
    }

    /// Where the server's revocation ends every session of the user, a round of a server sign-out
    /// may end, reported, in a step that leaves a session held or an intent waiting (a sign-in may
    /// be under way): sending more would end that session too. The kit then asks no more for the
    /// token the answered request presented (or the one its renewal brought), once nothing in
    /// flight presents it and the vault does not owe it.
    @inlinable func giveUpRoundBesideSession(_ answered: Exchange, _ event: Machine.Event, in world: inout World<Machine>) {
        guard let token = answered.request.refreshToken else { return }
        var tokens = [token]
        if case .reply(_, .refreshed(let renewed), _) = event, let successor = renewed.refreshToken { tokens.append(successor) }
        let given = tokens.filter { token in
            world.history.liveAfterLogout.contains(token) && !world.owedRevocations.contains { $0.refreshToken == token }
                && !world.network.contains { $0.request.refreshToken == token }
        }
        guard !given.isEmpty, !world.history.openIntents.isEmpty || sessionHeld(in: world) else { return }
        world.history.liveAfterLogout.removeAll { given.contains($0) }
    }

    /// Whether the session in `world`'s state holds credentials.
    @inlinable func sessionHeld(in world: World<Machine>) -> Bool {
        let session: SessionLifecycle.Phase? =
            if let explorable = Machine.Phase.self as? any ExplorablePhase.Type {
                Snapshot<Machine>.first(SessionLifecycle.Phase.self, in: world.state.phase, as: explorable)
            } else {
                firstPhase(SessionLifecycle.Phase.self, in: world.state.phase)
            }
        return session?.credentials != nil
    }

    /// Whether a step ended the last round of `entry`, a revocation the vault owed: the server's
    /// part ended a round (``SourceRules/endsRound(of:answered:reply:sent:windows:at:attemptsLeft:)``:
    /// it answered the token's request, at the round's last send where the answer was a failure
    /// the client tries again, or its 429 window on the sign-out endpoints held the request back),
    /// and the rounds the vault counted before it, with this one, reach the client's policy's
    /// (``ReplyCatalogue/revocationRounds``). A debt dropped in any other step was given
    /// up untried or early, and its token stays live, except where a new session began that
    /// revoking it would end (``beginsSession(_:_:from:)``).
    @inlinable func endsLastRound(
        of entry: OwedRevocation, answered: Exchange?, _ event: Machine.Event, _ effects: [AuthEffect], in world: World<Machine>,
        from before: World<Machine>
    ) -> Bool {
        guard entry.rounds + 1 >= replies.revocationRounds else { return false }
        var reply: Reply?
        if case .reply(_, let answer, _) = event { reply = answer }
        return SourceRules.endsRound(
            of: entry.refreshToken, answered: answered, reply: reply, sent: effects.compactMap(\.sentRequest),
            windows: world.history.rateLimits, at: world.now, attemptsLeft: before.history.roundAttempts)
    }

    /// Counts the sends each round of a server sign-out has left (``History/roundAttempts``), where
    /// the client's policy gives a round more than one (``ReplyCatalogue/revocationAttempts``; the
    /// caller asks, so that other steps build nothing):
    /// each request in flight (`inFlight`, and those `sent`) that presents a logged-out session's
    /// refresh token has its round's count, the policy's sends at first; the retry of the request
    /// this step answered (`answered`, listened to, with `reply`) with a failure the client tries
    /// again (``SourceRules/retriedInRound(_:_:)``) has one send fewer than it had. A token with
    /// no such request in flight has no count: its round is over, or waits for the next.
    @inlinable func countRoundAttempts(
        answered: Exchange?, reply: Reply?, sent: [APIRequest], inFlight: [Exchange], in history: inout History
    ) {
        var retried: RoundAttempts?
        if let answered, let token = answered.request.refreshToken {
            if let reply, SourceRules.retriedInRound(answered.request, reply) {
                let counted = history.roundAttempts.first { $0.refreshToken == token && $0.revoking == answered.request.isRevocation }
                let left = (counted?.left ?? replies.revocationAttempts) - 1
                if left > 0 { retried = RoundAttempts(refreshToken: token, revoking: answered.request.isRevocation, left: left) }
            }
            history.roundAttempts.removeAll { $0.refreshToken == token }
        }
        for request in sent {
            guard let token = request.refreshToken, history.liveAfterLogout.contains(token) else { continue }
            history.roundAttempts.removeAll { $0.refreshToken == token }
            if let retried, retried.refreshToken == token, retried.revoking == request.isRevocation {
                history.roundAttempts.append(retried)
            } else {
                history.roundAttempts.append(
                    RoundAttempts(refreshToken: token, revoking: request.isRevocation, left: replies.revocationAttempts))
            }
        }
        // A request in flight the round took over (a refresh under way at the logout) counts as its first send.
        for exchange in inFlight {
            guard let token = exchange.request.refreshToken, history.liveAfterLogout.contains(token),
                !history.roundAttempts.contains(where: { $0.refreshToken == token })
            else { continue }
            history.roundAttempts.append(
                RoundAttempts(refreshToken: token, revoking: exchange.request.isRevocation, left: replies.revocationAttempts))
        }
        let live = history.liveAfterLogout
        history.roundAttempts.removeAll { attempts in
            !live.contains(attempts.refreshToken)
                || !(sent.contains { $0.refreshToken == attempts.refreshToken }
                    || inFlight.contains { $0.request.refreshToken == attempts.refreshToken })
        }
    }

    /// Whether a step begins a new session where the server's revocation ends every session of
    /// the user (``ReplyCatalogue/revocationEndsEverySession``): the client may then give up what
    /// it owes, reported, since revoking it would end the new session too. A session restored
    /// from the vault says `signedIn` as well (at the launch, or when the restore's request is
    /// answered), but it is no new session: the client keeps its debts idle beside it, for the
    /// next logout or launch with no session, and a drop there is not allowed.
    @inlinable func beginsSession(_ effects: [AuthEffect], _ event: Machine.Event, from before: Snapshot<Machine>) -> Bool {
        guard replies.revocationEndsEverySession, effects.contains(where: \.isSignIn), !event.isLaunch else { return false }
        if case .restoring? = before.session { return false }
        return true
    }

    /// Applies `move` and surveys the world it leads to. A move that changes nothing (a refused
    /// intent, a stale answer) leads back to the same snapshot without a new survey.
    @inlinable func step(_ move: Move<Machine>, from snapshot: Snapshot<Machine>) -> Transition<Machine> {
        var none = Successors()
        return step(move, from: snapshot, besides: &none, sharing: false)
    }

    /// ``step(_:from:)`` for one of several moves from `snapshot`: a move that makes the same world
    /// as an earlier one in `successors` leads to that move's snapshot, without a new survey.
    @inlinable func step(_ move: Move<Machine>, from snapshot: Snapshot<Machine>, besides successors: inout Successors) -> Transition<Machine> {
        step(move, from: snapshot, besides: &successors, sharing: Successors.shares(move.choice))
    }

    @inlinable func step(
        _ move: Move<Machine>, from snapshot: Snapshot<Machine>, besides successors: inout Successors, sharing shares: Bool
    ) -> Transition<Machine> {
        let (world, effects, answered) = apply(move, to: snapshot)
        if World.same(world, snapshot.world) {
            return Transition(before: snapshot, move: move, effects: effects, after: snapshot, answered: answered)
        }
        if shares, let known = successors.snapshot(of: world) {
            return Transition(before: snapshot, move: move, effects: effects, after: known, answered: answered)
        }
        let signedInBefore = snapshot.isSignedIn
        // Moved into the snapshot, not copied: a world's copy walks its state's nested enums.
        let after = Snapshot(consume world, horizon: timeHorizon, historyHorizon: historyHorizon, reduction: reduction) { world, facts in
            settleHistory(&world, facts, signedInBefore: signedInBefore)
        }
        if shares { successors.remember(after) }
        return Transition(before: snapshot, move: move, effects: effects, after: after, answered: answered)
    }

    /// The snapshots the moves from one world have led to so far. Sibling moves often make one
    /// world: a server error, a timeout and a network failure that the lifecycle handles alike
    /// (about 60 % of the surveys in app.anonymousWall, 40 % in app.hero365). Such a move shares
    /// the snapshot the first one made, and comparing worlds costs far less than surveying one.
    ///
    /// Why the shared snapshot is the one a survey would make: a snapshot is the survey of its
    /// world after ``settleHistory(_:_:signedInBefore:)``, which reads only that world and
    /// whether the world before was signed in — the same for siblings. A move's world equal to a
    /// sibling's world as its move made it settles the same way; equal to the sibling's settled
    /// world, it settles to that world again, because settling a settled world changes nothing.
    ///
    /// Only intents and answers take part: a timer or a relaunch almost never makes a sibling's
    /// world (in the app models, 0.2–1 % of timers and 0.03 % of relaunches did), and they come
    /// last in a menu, where the comparisons would be most.
    ///
    /// It pays: without it (bench --quick, best of 3) the explorer's app.subspace row falls from
    /// 13.4 k to 11.9 k states/s (−11.5 %) and app.everday's from 14.9 k to 13.3 k (−10.8 %).
    @usableFromInline struct Successors {
        @usableFromInline var snapshots: [Snapshot<Machine>] = []

        /// None remembered yet.
        @inlinable init() {}

        /// Whether a move of this kind looks for a sibling's world (and is remembered for later ones).
        @inlinable static func shares(_ choice: Choice) -> Bool {
            switch choice {
            case .intent, .reply: true
            case .timer, .relaunch, .withdraw, .wait: false
            }
        }

        /// Forgets every snapshot (for the next world's moves).
        @inlinable mutating func removeAll() { snapshots.empty() }

        /// The snapshot of a world a move made, when an earlier move made the same one.
        @inlinable func snapshot(of world: World<Machine>) -> Snapshot<Machine>? {
            snapshots.first { World.same($0.world, world) }
        }

        /// Remembers the snapshot a move made.
        @inlinable mutating func remember(_ snapshot: Snapshot<Machine>) { snapshots.append(snapshot) }
    }

    @inlinable func record(_ reply: Reply, to exchange: Exchange, in history: inout History, at now: Instant) {
        if let token = exchange.request.refreshToken, let index = history.liveAfterLogout.firstIndex(of: token) {
            // A logged-out session's token: dead once rotated (its successor then must end), revoked or refused.
            switch (exchange.request, reply) {
            case (.refresh, .refreshed(let tokens)):
                history.liveAfterLogout.remove(at: index)
                history.liveAfterLogout.append(tokens.refreshToken ?? token)
            case (.refresh, .failed(let failure)) where SourceRules.refreshRefused(failure):
                history.liveAfterLogout.remove(at: index)
            case (.revoke, .accepted), (.revoke, .user):
                history.liveAfterLogout.remove(at: index)
            default:
                break
            }
        }
        if case .failed(.rateLimited(let retryAfter?)) = reply, let endpoint = exchange.request.rateLimitedEndpoint {
            history.rateLimits.removeAll { $0.endpoint == endpoint }
            history.rateLimits.append(RateLimitWindow(endpoint: endpoint, until: now + retryAfter))
        }
        history.learnDevicePolling(reply, to: exchange.request, at: now)
        switch (exchange.request, reply) {
        case (.refresh(let old), .refreshed(let tokens)):
            if let new = tokens.refreshToken, new != old, !history.retiredRefreshTokens.contains(old) {
                history.retiredRefreshTokens.append(old)
            }
        case (_, .granted(let grant)):
            history.passwordStepDue = grant.requiresPasswordChange ? .change : grant.user.passwordSet == false ? .set : nil
        case (.setPassword, .accepted), (.setPassword, .user), (.changePassword, .accepted), (.changePassword, .user):
            history.passwordStepDue = nil
        case (_, .accepted), (_, .user):
            if let destination = exchange.request.codeSentTo {
                history.codes.removeAll { $0.destination == destination }
                history.codes.append(CodeIssue(destination: destination, issuedAt: now, verifications: 0))
            }
        default:
            break
        }
    }

    @inlinable func perform(_ effect: AuthEffect, in world: inout World<Machine>) {
        switch effect {
        case .send(let id, let request):
            world.network.append(Exchange(id: id, request: request, opened: false))
            if case .pollDeviceToken(let code) = request, world.history.devicePolling?.deviceCode == code {
                world.history.devicePolling?.since = world.now  // The next poll counts from this one.
            }
            if case .protected(let call, _) = request {
                if let index = world.history.callSends.firstIndex(where: { $0.call == call }) {
                    world.history.callSends[index].sends += 1
                } else {
                    world.history.callSends.append(CallSends(call: call, sends: 1))
                }
            }
            if let destination = request.codeVerifiedFor, let bound = maxCodeAttempts,
                let index = world.history.codes.firstIndex(where: { $0.destination == destination })
            {
                // Counted up to one past the bound: beyond that the count tells nothing more.
                world.history.codes[index].verifications = min(world.history.codes[index].verifications + 1, bound + 1)
            }
        case .cancel:
            break  // A cancelled request may still be answered; the answer must change nothing.
        case .persist(let credentials):
            world.vault = .holds(credentials)
        case .clearCredentials:
            world.vault = .empty
        case .schedule(let id, let at):
            world.timers.removeAll { $0.id == id }
            world.timers.append(PendingTimer(id: id, at: at))
            world.timers.sort { TimerID.allCases.firstIndex(of: $0.id)! < TimerID.allCases.firstIndex(of: $1.id)! }
        case .cancelTimer(let id):
            world.timers.removeAll { $0.id == id }
        case .emit:
            break
        case .finish(let intent, _):
            world.history.callSends.removeAll { $0.call == intent }
            world.history.openIntents.removeAll { $0 == intent }
        case .closeRealtime(let id):
            world.network.removeAll { $0.id == id }
        case .persistOwedRevocations(let owed):
            world.owedRevocations = owed
        }
    }

    /// Keeps history finite: remembers what was in flight at a sign-out, and forgets retired
    /// tokens that appear nowhere any more (they can never be sent again). Old instants need no
    /// care here: the survey writes every instant relative to now, "long ago" past the horizon.
    /// Settling a settled world changes nothing (``Successors`` relies on it): each rule sets a
    /// variable from parts of the world it leaves alone, or drops entries those parts no longer
    /// hold.
    @inlinable func settleHistory(_ world: inout World<Machine>, _ facts: Survey, signedInBefore: Bool) {
        let signedInAfter = facts.session?.credentials != nil
        if signedInBefore, !signedInAfter {
            world.history.inFlightAtSignOut = world.network.map(\.id)
        }
        if signedInBefore != signedInAfter, !world.history.codes.isEmpty {
            world.history.codes = []  // A session beginning or ending clears the code flows, as the lifecycles do.
        }
        if !signedInBefore, signedInAfter, !world.history.rateLimits.isEmpty {
            world.history.rateLimits = []  // A session beginning starts the limits over: a new grant, a new refresh token.
        }
        if let polling = world.history.devicePolling, signedInAfter || world.now >= polling.expiresAt {
            world.history.devicePolling = nil  // Signed in, or the codes expired: no poll for them may leave any more.
        }
        if !world.history.inFlightAtSignOut.isEmpty {
            world.history.inFlightAtSignOut.removeAll { id in
                guard let exchange = world.network.first(where: { $0.id == id }) else { return true }
                return facts.isLetGo(exchange)
            }
        }
        if !world.history.liveAfterLogout.isEmpty {
            // A logged-out session's background work counts as in flight at its sign-out, whether
            // it left with the logout or after it: nothing it brings back may write credentials.
            for exchange in world.network
            where world.history.endsLoggedOutSession(exchange.request) && !world.history.inFlightAtSignOut.contains(exchange.id) {
                world.history.inFlightAtSignOut.append(exchange.id)
            }
        }
        if !world.history.retiredRefreshTokens.isEmpty {
            world.history.retiredRefreshTokens.removeAll { !facts.liveRefreshTokens.contains($0.reveal()) }
        }
        if !world.history.revokedRefreshTokens.isEmpty {
            world.history.revokedRefreshTokens.removeAll { !facts.liveRefreshTokens.contains($0.reveal()) }
        }
        if !world.history.rateLimits.isEmpty {
            let now = world.now
            world.history.rateLimits.removeAll { $0.until <= now }
        }
    }
}

extension APIRequest {
    /// The access token the request carries, if any.
    @inlinable var accessToken: AccessToken? {
        switch self {
        case .setPassword(_, let bearer), .changePassword(_, _, let bearer), .currentUser(let bearer),
            .revoke(_, let bearer), .deleteAccount(let bearer), .protected(_, let bearer):
            bearer.token
        case .openRealtime(let token): token
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode,
            .signIn, .register, .requestPasswordReset, .resetPassword, .oauthURL, .signInNatively, .refresh, .exchangeCode, .requestDeviceCode,
            .pollDeviceToken:
            nil
        }
    }

    /// The refresh token the request presents, if any.
    @inlinable var refreshToken: RefreshToken? {
        switch self {
        case .refresh(let token), .revoke(let token, _): token
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode,
            .signIn, .register, .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL,
            .signInNatively, .currentUser, .deleteAccount, .protected, .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            nil
        }
    }

    /// For a request that sends a code: where, and for what (`email:a@b.c:register`).
    @inlinable var codeSentTo: String? {
        switch self {
        case .sendEmailCode(let email, let purpose): "email:\(email.rawValue):\(purpose.rawValue)"
        case .sendPhoneCode(let phone): "phone:\(phone.e164):login"
        case .requestPasswordReset(.email(let email)): "email:\(email.rawValue):reset_password"
        case .registerWithEmailCode, .signInWithEmailCode, .signInWithPhoneCode, .signIn, .register,
            .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL, .signInNatively, .refresh,
            .currentUser, .revoke, .deleteAccount, .protected, .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            nil
        }
    }

    /// For a request that submits a code: the code's destination key (as ``codeSentTo``).
    @inlinable var codeVerifiedFor: String? {
        switch self {
        case .registerWithEmailCode(let email, _): "email:\(email.rawValue):register"
        case .signInWithEmailCode(let email, _): "email:\(email.rawValue):login"
        case .signInWithPhoneCode(let phone, _): "phone:\(phone.e164):login"
        case .resetPassword(.emailCode(let email, _), _): "email:\(email.rawValue):reset_password"
        case .sendEmailCode, .sendPhoneCode, .signIn, .register, .requestPasswordReset, .resetPassword, .setPassword,
            .changePassword, .oauthURL, .signInNatively, .refresh, .currentUser, .revoke, .deleteAccount, .protected, .openRealtime,
            .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            nil
        }
    }

    /// Requests only a user's action may cause: sign-ins, registrations, codes, resets, password
    /// steps, an account deletion.
    @inlinable var needsUserAction: Bool {
        switch self {
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode,
            .signIn, .register, .requestPasswordReset, .resetPassword, .setPassword, .changePassword, .oauthURL,
            .signInNatively, .deleteAccount, .exchangeCode, .requestDeviceCode:
            true
        case .refresh, .currentUser, .revoke, .protected, .openRealtime, .pollDeviceToken:  // A device's polls follow its timer.
            false
        }
    }
}

extension AuthEffect {
    /// The failure, when this effect tells the app a server session could not be confirmed ended
    /// and nothing will try again.
    @inlinable var unconfirmedServerSessionFailure: AuthFailure? {
        if case .emit(.serverSessionNotConfirmed(let failure)) = self { return failure }
        return nil
    }

    /// Whether this effect tells the app a session began, or was restored or renewed at launch
    /// (`AuthOutcome.signedIn` is said for each).
    @inlinable var isSignIn: Bool {
        if case .emit(.signedIn) = self { return true }
        return false
    }

    /// Whether this effect tells the app the user logged out (`AuthOutcome.signedOut(.userRequested)`).
    @inlinable var isLogout: Bool {
        if case .emit(.signedOut(.userRequested)) = self { return true }
        return false
    }

    /// The request this effect sends, if it sends one.
    @inlinable var sentRequest: APIRequest? {
        if case .send(_, let request) = self { return request }
        return nil
    }

    /// The owed revocations this effect stores in the vault, if it stores them.
    @inlinable var persistedOwedRevocations: [OwedRevocation]? {
        if case .persistOwedRevocations(let owed) = self { return owed }
        return nil
    }
}
