import AuthCore
import AuthVerification

/// Reducer speed: every lifecycle (and app) reduces a long, seeded, realistic event stream.
///
/// The stream is recorded first, from the model's own random walks (answers to the requests in
/// flight, timers, relaunches, user intents from the model's menu), as segments of consecutive
/// events with the state each starts from. Only the replay is timed: `reduce` on each event in
/// turn, nothing else in the loop (no allocation of the bench's own; what `reduce` allocates is
/// its cost).
enum ReducerBench {
    /// One reducer to time: its name and how to record its stream.
    struct Subject: Sendable {
        /// The model's name.
        let name: String
        /// Records about `events` events from `seed`.
        let prepare: @Sendable (_ events: Int, _ seed: UInt64) -> Prepared
        /// Keeps the transitions of every `stride`-th state the model's exploration at `bounds`
        /// (raised to them, as `authflow verify` raises its models) expands within its first
        /// `cap` states, each from the state before it (``TransitionSampler``); `nil` for a
        /// reducer that is no shipped model's.
        var explored: (@Sendable (_ bounds: (inFlight: Int, stale: Int), _ cap: Int, _ stride: Int) -> Prepared)? = nil
    }

    /// A recorded stream, ready to replay.
    struct Prepared {
        /// Events in the stream.
        let events: Int
        /// Segments (walks and relaunches cut the stream).
        let segments: Int
        /// The share of the transitions sampled that reach `reduce` (for an exploration's
        /// sample, all but time passing to a deadline: ``TransitionSampler/reducingShare``); 1 for
        /// a recorded stream, every event of which is replayed.
        var reducingShare = 1.0
        /// Replays the stream `passes` times; returns the seconds it took.
        let replay: (_ passes: Int) -> Double

        /// `reduce`'s time an event, in nanoseconds: `repetitions` samples, each replaying the
        /// stream `passes` times, as many as last `sampleSeconds` (calibrated on one replay).
        func nanosecondsPerEvent(repetitions: Int, sampleSeconds: Double) -> (nanoseconds: Spread, passes: Int) {
            let once = max(replay(1), 1e-7)
            let passes = max(1, Int((sampleSeconds / once).rounded(.up)))
            let nanoseconds = Spread((0..<repetitions).map { _ in 1e9 * max(replay(passes), 1e-9) / Double(events * passes) })
            return (nanoseconds, passes)
        }
    }

    /// The lifecycle models `Models.lifecycles` lists, then the apps and `Models.standards`, typed (the erased models
    /// cannot give their machines back). A model the registry gains later is reported as not
    /// timed until it is added here.
    static var subjects: [Subject] {
        [
            subject(Models.codeRegistration()), subject(Models.oneTimeCode(.email)), subject(Models.oneTimeCode(.phone)),
            subject(Models.passwordSignIn()), subject(Models.registration()), subject(Models.passwordReset(.emailCodeWithAutoLogin)),
            subject(Models.passwordReset(.emailedToken)), subject(Models.passwordReset(.emailLink)), subject(Models.oauth()),
            subject(Models.openIDSignIn()), subject(Models.deviceSignIn()),
            subject(Models.session(.anonymousWall)), subject(Models.session(.everday)), subject(Models.session(.subspace)),
            subject(Models.session(.hero365)), subject(Models.realtime()),
            subject(Models.anonymousWallApp()), subject(Models.vynqTalkApp()), subject(Models.everdayApp()),
            subject(Models.subspaceApp()), subject(Models.hero365App()), subject(Models.openIDConnectApp()),
        ]
    }

    /// The bare rotating-refresh session (`SessionLifecycle` under Everday's model policy): the
    /// events of `session.everday`'s walks that reach the session, replayed on it alone.
    static var session: Subject {
        Subject(name: "SessionLifecycle (rotating refresh)") { events, seed in
            let model = Models.session(.everday)
            let app = model.machine
            let segments = sessionSegments(record(model, events: events, seed: seed), app: app)
            return prepared(app.session, segments)
        }
    }

    static func subject<M: LifecycleModel>(_ model: M) -> Subject {
        Subject(
            name: model.name, prepare: { events, seed in prepared(model.machine, record(model, events: events, seed: seed)) },
            explored: { bounds, cap, stride in
                let raised = BoundedModel(model, inFlight: max(model.maxInFlight, bounds.inFlight), stale: max(model.maxStale, bounds.stale))
                let sampler = sample(raised, cap: cap, stride: stride)
                return prepared(model.machine, sampler.segments, reducingShare: sampler.reducingShare)
            })
    }

    static func prepared<Machine: Lifecycle>(_ machine: Machine, _ segments: [EventSegment<Machine>], reducingShare: Double = 1) -> Prepared {
        Prepared(events: segments.reduce(0) { $0 + $1.events.count }, segments: segments.count, reducingShare: reducingShare) { passes in
            replay(machine, segments, passes: passes)
        }
    }

    /// Records the events of random walks (400 events each, seeds from `seed`) until about `events`.
    ///
    /// Never specialized: the recording is not timed, and the engine is inlinable, so a copy of
    /// the fuzzer compiled for each of the 19 models cost the release build 30 s and 5.6 MB.
    @_semantics("optimize.sil.specialize.generic.never")
    static func record<M: LifecycleModel>(_ model: M, events: Int, seed: UInt64) -> [EventSegment<M.Machine>] {
        let recorder = EventRecorder<M.Machine>(initial: model.machine.initial)
        let recording = ObservingModel(base: model) { recorder.record($0) }
        let length = 400
        var round: UInt64 = 0
        while recorder.events < events, round < 64 {
            let missing = events - recorder.events
            // Every step afresh, on one thread: the recorder is a step invariant with a side
            // effect, and must see each event of each walk in order.
            let configuration = FuzzConfiguration(
                seed: seed &+ round &* 0x9E37_79B9, runs: max(1, (missing + length - 1) / length), length: length,
                reusesCheckedTransitions: false, threads: 1)
            _ = Fuzzer.fuzz(recording, configuration)
            round += 1
        }
        return recorder.segments
    }

    /// The transitions of every `stride`-th state `model`'s exploration expands within its first
    /// `cap` states, on one thread, with none of the model's invariants checked (they are not what
    /// is timed), each kept as a one-event segment from the state before it (``TransitionSampler``).
    ///
    /// Never specialized, as ``record(_:events:seed:)`` is not: the sampling is not timed.
    @_semantics("optimize.sil.specialize.generic.never")
    static func sample<M: LifecycleModel>(_ model: M, cap: Int, stride: Int) -> TransitionSampler<M.Machine> {
        let sampler = TransitionSampler<M.Machine>(initial: model.machine.initial, stride: stride)
        _ = Explorer.explore(ObservingModel(base: model) { sampler.record($0) }, limits: ExplorationLimits(maxStates: cap, threads: 1))
        return sampler
    }

    /// `passes` replays of every segment through `reduce`; the seconds it took.
    @inline(never)
    static func replay<Machine: Lifecycle>(_ machine: Machine, _ segments: [EventSegment<Machine>], passes: Int) -> Double {
        let clock = ContinuousClock()
        var effects = 0
        let started = clock.now
        for _ in 0..<passes {
            for segment in segments {
                var state = segment.start
                // Borrowed in place: `for event in events` would copy each event out of the
                // array (retaining its strings), a cost of the loop, not of `reduce`.
                segment.events.withUnsafeBufferPointer { events in
                    for index in events.indices {
                        effects &+= machine.reduce(&state, events[index]).count
                    }
                }
            }
        }
        let elapsed = clock.now - started
        keep(effects)
        return elapsed.seconds
    }

    /// The part of `session.everday`'s stream that reaches the session, with the session state
    /// before each event, cut into segments wherever the bare session's own replay would not
    /// arrive at the state the app's session was in (a sign-in hands a fresh session over).
    static func sessionSegments(
        _ segments: [EventSegment<BenchModels.SessionApp>], app: BenchModels.SessionApp
    ) -> [EventSegment<SessionLifecycle>] {
        let session = app.session
        var out: [EventSegment<SessionLifecycle>] = []
        var expected: SessionLifecycle.State?
        for segment in segments {
            var state = segment.start
            for event in segment.events {
                let before = state
                _ = app.reduce(&state, event)
                let routed: (SessionLifecycle.Phase, SessionLifecycle.Event)?
                switch (before.phase, event) {
                case (.signedIn, .intent(.entry, _, _)), (.signedOut, .intent(.entry, _, _)), (.signedOut, .reply), (.signedOut, .tick),
                    (.signedOut, .withdrawn):
                    routed = nil  // The sign-in door's, or refused without reaching the session.
                case (.signedIn(let inner), .intent(.session(let intent), let id, let at)): routed = (inner, .intent(intent, id: id, at: at))
                case (.signedIn(let inner), .withdrawn(let id, let at)): routed = (inner, .withdrawn(id, at: at))
                case (.signedIn(let inner), .reply(let id, let reply, let at)): routed = (inner, .reply(id, reply, at: at))
                case (.signedIn(let inner), .tick(let now)): routed = (inner, .tick(now))
                case (.signedIn(let inner), .launched(let stored, let owed, let at)): routed = (inner, .launched(stored, owed: owed, at: at))
                case (.signedOut, .intent(.session(let intent), let id, let at)):
                    routed = (session.signedOutPhase, .intent(intent, id: id, at: at))
                case (.signedOut, .launched(let stored, let owed, let at)): routed = (session.signedOutPhase, .launched(stored, owed: owed, at: at))
                }
                guard let (phase, sessionEvent) = routed else { continue }
                let start = LifecycleState(phase: phase, context: before.context)
                if expected != start || out.isEmpty { out.append(EventSegment(start: start, events: [])) }
                out[out.count - 1].events.append(sessionEvent)
                var next = start
                _ = session.reduce(&next, sessionEvent)
                expected = next
            }
        }
        return out
    }
}

/// Keeps a value alive past the optimizer, so the timed loop cannot be removed.
@inline(never)
func keep(_ value: Int) {
    if value == Int.min { print("", terminator: "") }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
