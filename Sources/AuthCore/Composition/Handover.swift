/// The signed-in half of a composed app: a lifecycle that a grant starts and that says when it
/// has signed out again.
public protocol SessionRole: Lifecycle {
    /// The phase with nobody signed in.
    var signedOutPhase: Phase { get }
    /// Whether `phase` is signed out.
    func isSignedOut(_ phase: Phase) -> Bool
    /// Starts a session from a grant received at `now`.
    func begin(_ grant: Grant, at now: Instant, _ requests: inout FlowContext) -> (Phase, [AuthEffect])
}

extension SessionLifecycle: SessionRole {
    /// `.signedOut`.
    public var signedOutPhase: Phase { .signedOut }
    /// Whether `phase` is `.signedOut`.
    public func isSignedOut(_ phase: Phase) -> Bool { phase == .signedOut }
}

/// Intents for a composed app: for the signed-out flows or for the session.
public enum AppIntent<Entry: Hashable & Sendable, SessionIntent: Hashable & Sendable>: Hashable, Sendable {
    /// For the signed-out flows.
    case entry(Entry)
    /// For the session (calls, logout, password steps).
    case session(SessionIntent)
}

extension AppIntent: EitherShaped {
    /// `first` applied to a `.entry` value, `second` to a `.session` one.
    @inlinable
    func either<Result>(_ first: (Entry) -> Result, _ second: (SessionIntent) -> Result) -> Result {
        switch self {
        case .entry(let value): first(value)
        case .session(let value): second(value)
        }
    }

    /// Equal when the same case holds equal values (see `EitherShaped`).
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool { sameCaseAndValue(lhs, rhs) }

    /// The case, then its value (see `EitherShaped`).
    @inlinable
    public func hash(into hasher: inout Hasher) { hashCaseAndValue(into: &hasher) }
}

extension AppIntent: CustomStringConvertible {
    /// The side, then the intent as it describes itself: `session(logout)` rather than the
    /// default's module-qualified `AuthCore.SessionLifecycle.Intent.logout` inside it.
    public var description: String {
        switch self {
        case .entry(let value): "entry(\(value))"
        case .session(let value): "session(\(value))"
        }
    }
}

/// Where a composed app is: in the signed-out flows, or in the session.
public enum AppPhase<EntryPhase: Hashable & Sendable, SessionPhase: Hashable & Sendable>: Hashable, Sendable {
    /// Signed out, somewhere in the sign-in/registration/reset flows.
    case signedOut(EntryPhase)
    /// Signed in (or restoring, refreshing…): the session decides.
    case signedIn(SessionPhase)
}

extension AppPhase: EitherShaped {
    /// `first` applied to a `.signedOut` value, `second` to a `.signedIn` one.
    @inlinable
    func either<Result>(_ first: (EntryPhase) -> Result, _ second: (SessionPhase) -> Result) -> Result {
        switch self {
        case .signedOut(let value): first(value)
        case .signedIn(let value): second(value)
        }
    }

    /// Equal when the same case holds equal values (see `EitherShaped`).
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool { sameCaseAndValue(lhs, rhs) }

    /// The case, then its value (see `EitherShaped`).
    @inlinable
    public func hash(into hasher: inout Hasher) { hashCaseAndValue(into: &hasher) }
}

/// The app combinator: signed-out flows hand a grant over to the session; when the session signs
/// out, the flows start again from the beginning. One request counter runs through both, so an
/// answer for either side is never mistaken for the other's. The code cooldowns the flows keep
/// in the context last while the user is signed out: a session beginning or ending clears them
/// with the rest of the code and OTP context (Everday's API document, Logout).
public struct Handover<Entry: EntryFlow, SessionSide: SessionRole>: Lifecycle {
    /// The signed-out flows.
    public var entry: Entry
    /// The session.
    public var session: SessionSide

    /// Composes `entry` and `session`.
    public init(entry: Entry, session: SessionSide) {
        self.entry = entry
        self.session = session
    }

    /// Where the app is.
    public typealias Phase = AppPhase<Entry.Phase, SessionSide.Phase>
    /// What the user can do.
    public typealias Intent = AppIntent<Entry.Intent, SessionSide.Intent>

    /// `intent` routed to the entry flows that take it, or else to the session.
    @inlinable
    public func route<Leaf: Sendable>(_ intent: Leaf) -> Intent? {
        if let own = intent as? Intent { return own }
        if let inner = entry.route(intent) { return .entry(inner) }
        return session.route(intent).map(AppIntent.session)
    }

    /// Signed out with the entry flow of `Leaf`'s phase type at `phase`, or else signed in with
    /// the session (or a part of it) at `phase`.
    @inlinable
    public func embed<Leaf: Sendable>(_ phase: Leaf) -> Phase? {
        if let own = phase as? Phase { return own }
        if let inner = entry.embed(phase) { return .signedOut(inner) }
        return session.embed(phase).map(AppPhase.signedIn)
    }

    /// Signed out, at the entry flows' beginning.
    @inlinable
    public var initialPhase: Phase { .signedOut(entry.initialPhase) }

    /// The entry flows' timers and the session's.
    public var timers: [TimerID] { TimerID.union(entry.timers, session.timers) }

    /// The reducer (inlinable, see ``OneOf/step(_:_:_:)``).
    @inlinable
    public func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch (phase, event) {
        case (.signedOut(var inner), .intent(.entry(let intent), let id, let now)):
            let effects = entry.step(&inner, .intent(intent, id: id, at: now), &requests)
            return settle(&phase, entryPhase: inner, at: now, effects, &requests)
        case (.signedOut(var inner), .withdrawn(let intent, let now)):
            let effects = entry.step(&inner, .withdrawn(intent, at: now), &requests)
            return settle(&phase, entryPhase: inner, at: now, effects, &requests)
        case (.signedOut, .reply(let id, _, _)) where requests.serverSignOut(awaiting: id) != nil:
            // A signed-out session still being ended on the server: the session's business.
            guard let sessionEvent = sessionEvent(event) else { return [] }
            var inner = session.signedOutPhase
            return session.step(&inner, sessionEvent, &requests)
        case (.signedOut(var inner), .reply(let id, let reply, let now)):
            let effects = entry.step(&inner, .reply(id, reply, at: now), &requests)
            return settle(&phase, entryPhase: inner, at: now, effects, &requests)
        case (.signedOut(var inner), .tick(let now)):
            let effects = entry.step(&inner, .tick(now), &requests)
            return settle(&phase, entryPhase: inner, at: now, effects, &requests)
        case (.signedOut, .intent(.session, _, _)), (.signedOut, .launched):
            // The session decides what its intents and the vault mean while signed out
            // (a call is refused, stored credentials start a restore).
            guard let sessionEvent = sessionEvent(event) else { return [] }
            var inner = session.signedOutPhase
            let effects = session.step(&inner, sessionEvent, &requests)
            if !session.isSignedOut(inner) {
                // A restored session ends the code flows; their waiting intent, if any, is superseded.
                requests.forgetAllCooldowns()
                requests.forgetAllServerWaits()
                phase = .signedIn(inner)
                return requests.finishAll(.superseded) + effects
            }
            return effects
        case (.signedIn, .intent(.entry, let id, _)):
            return [.finish(id, .rejected(.alreadySignedIn))]
        case (.signedIn(var inner), .intent(.session, _, _)), (.signedIn(var inner), .withdrawn), (.signedIn(var inner), .reply),
            (.signedIn(var inner), .tick), (.signedIn(var inner), .launched):
            guard let sessionEvent = sessionEvent(event) else { return [] }
            let effects = session.step(&inner, sessionEvent, &requests)
            if session.isSignedOut(inner) {
                requests.forgetAllCooldowns()  // Signing out clears any code or OTP context (Everday's API document, Logout).
                phase = .signedOut(entry.initialPhase)
            } else {
                phase = .signedIn(inner)
            }
            return effects
        }
    }

    /// The event as the session sees it; `nil` for entry intents, which never reach the session.
    @inlinable
    func sessionEvent(_ event: Event) -> SessionSide.Event? {
        switch event {
        case .intent(.session(let intent), let id, let at): .intent(intent, id: id, at: at)
        case .intent(.entry, _, _): nil
        case .withdrawn(let intent, let at): .withdrawn(intent, at: at)
        case .reply(let id, let reply, let at): .reply(id, reply, at: at)
        case .tick(let now): .tick(now)
        case .launched(let stored, let owed, let at): .launched(stored, owed: owed, at: at)
        }
    }

    /// Stores the entry phase, or hands its grant to the session. The entry flow's answer to the
    /// intent that signed in comes last, once the session has begun.
    @inlinable
    func settle(_ phase: inout Phase, entryPhase: Entry.Phase, at now: Instant, _ effects: [AuthEffect], _ requests: inout FlowContext)
        -> [AuthEffect]
    {
        guard let grant = entry.handover(entryPhase) else {
            phase = .signedOut(entryPhase)
            return effects
        }
        requests.forgetAllCooldowns()  // A sign-in ends every code flow, and their cooldowns with them.
        requests.forgetAllServerWaits()  // And starts the server's limits over.
        let superseded = requests.finishAll(.superseded)  // None expected: the flow that signed in answered its own.
        let (sessionPhase, begun) = session.begin(grant, at: now, &requests)
        phase = .signedIn(sessionPhase)
        let finished = effects.filter(\.isFinish)
        return effects.filter { !$0.isFinish } + begun + superseded + finished
    }
}

extension AuthEffect {
    /// Whether this effect finishes an intent.
    @inlinable
    public var isFinish: Bool {
        if case .finish = self { return true }
        return false
    }
}

extension AppIntent: CaseListing where Entry: CaseListing, SessionIntent: CaseListing {
    /// `entry` and `session`.
    public static var declaredCases: [String] { ["entry", "session"] }
}

extension AppPhase: CaseListing where EntryPhase: LifecyclePhase, SessionPhase: LifecyclePhase {
    /// `signedOut` and `signedIn`.
    public static var declaredCases: [String] { ["signedOut", "signedIn"] }
}

extension AppPhase: LifecyclePhase where EntryPhase: LifecyclePhase, SessionPhase: LifecyclePhase {}

extension AppPhase: CustomStringConvertible {
    /// The side, then the phase as it describes itself: `signedIn(restoring(…))` rather than the
    /// default's module-qualified `signedIn(AuthCore.SessionLifecycle.Phase.restoring(…))`.
    public var description: String {
        switch self {
        case .signedOut(let value): "signedOut(\(value))"
        case .signedIn(let value): "signedIn(\(value))"
        }
    }
}
