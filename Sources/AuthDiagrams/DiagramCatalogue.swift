import AuthCore
import AuthVerification

/// What `StateDiagrams/` holds: one diagram per lifecycle model of the verification kit
/// (`Models.lifecycles`), one composition per backend (from `Models.apps`), and how far each is
/// explored.
///
/// The catalogue says nothing about edges: every edge comes from exploration. It says which
/// backends use a lifecycle model and which of their declared lifecycles (`Backend.lifecycles`)
/// it draws, which a test checks against AuthCore's declarations in both directions.
public struct DiagramCatalogue: Sendable {
    /// One lifecycle diagram.
    public struct LifecycleEntry: Sendable {
        /// The model explored.
        public var model: AnyModel
        /// The backends whose app composes this lifecycle in this configuration.
        public var backends: [Backend]
        /// The backends' declared lifecycles this diagram draws.
        public var draws: [LifecycleName]
        /// How the model's case paths relate to an app's, for marking documented flows.
        public var subject: Subject
        /// Exploration limits; `ExplorationLimits()` explores to closure.
        public var limits: ExplorationLimits

        /// Creates an entry.
        public init(model: AnyModel, backends: [Backend], draws: [LifecycleName], subject: Subject, limits: ExplorationLimits = ExplorationLimits()) {
            self.model = model
            self.backends = backends
            self.draws = draws
            self.subject = subject
            self.limits = limits
        }

        /// The model's name, which is also the diagram's file name.
        public var name: String { model.name }
    }

    /// How a lifecycle model's case paths relate to an app's.
    public enum Subject: Hashable, Sendable {
        /// The model explores one signed-out flow alone; in an app it sits in the entry position
        /// whose phase type is this one (`String(reflecting:)`), and its final case is the handover.
        case entry(phaseType: String)
        /// The model explores a session behind a sign-in (`signedOut.…` / `signedIn.…`), as the apps
        /// do; the sign-in's phase type is this one.
        case session(entryPhaseType: String)
    }

    /// One backend's composition diagram.
    public struct CompositionEntry: Sendable {
        /// The backend.
        public var backend: Backend
        /// Its app model (`app.<backend>`).
        public var model: AnyModel
        /// The app's entry flows by position (`first`, `second.first`, …), from the app machine.
        public var entries: [EntryPosition]
        /// Exploration limits.
        public var limits: ExplorationLimits

        /// Creates an entry.
        public init(backend: Backend, model: AnyModel, entries: [EntryPosition], limits: ExplorationLimits) {
            self.backend = backend
            self.model = model
            self.entries = entries
            self.limits = limits
        }

        /// The diagram's file name: the app model's name.
        public var name: String { model.name }
    }

    /// The lifecycle diagrams, in `Models.lifecycles` order.
    public var lifecycles: [LifecycleEntry]
    /// The composition diagrams, in `Backend` order.
    public var compositions: [CompositionEntry]

    /// Creates a catalogue.
    public init(lifecycles: [LifecycleEntry], compositions: [CompositionEntry]) {
        self.lifecycles = lifecycles
        self.compositions = compositions
    }

    /// Exploration limits for the composition diagrams. A composition diagram projects a whole
    /// app's state graph onto its lifecycles' cases to show how they hand over to one another;
    /// the app models reach hundreds of thousands of states (each lifecycle's own races included),
    /// so the drawing explores a breadth-first prefix of 8,000 states (at `Models.fullBounds`), and its
    /// diagram says "bounded" — while `authflow verify` explores every app model to closure. Every
    /// lifecycle diagram is explored to closure.
    public static let bounds: [String: ExplorationLimits] = [
        "app.anonymousWall": ExplorationLimits(maxStates: 8_000),
        "app.vynqTalk": ExplorationLimits(maxStates: 8_000),
        "app.everday": ExplorationLimits(maxStates: 8_000),
        "app.subspace": ExplorationLimits(maxStates: 8_000),
        "app.hero365": ExplorationLimits(maxStates: 8_000),
    ]

    /// Which backends use each lifecycle model, and which declared lifecycles it draws.
    static let usage: [String: (backends: [Backend], draws: [LifecycleName], subject: Subject)] = [
        "codeRegistration": ([.anonymousWall], [.codeRegistration], .entry(phaseType: phaseType(CodeRegistration.Phase.self))),
        "oneTimeCodeSignIn.email": ([.anonymousWall], [.oneTimeCodeSignIn], .entry(phaseType: phaseType(OneTimeCodeSignIn.Phase.self))),
        "oneTimeCodeSignIn.phone": ([.hero365], [.oneTimeCodeSignIn], .entry(phaseType: phaseType(OneTimeCodeSignIn.Phase.self))),
        "passwordSignIn": (Backend.documented, [.passwordSignIn], .entry(phaseType: phaseType(PasswordSignIn.Phase.self))),
        "registration": ([.vynqTalk, .everday, .subspace, .hero365], [.registration], .entry(phaseType: phaseType(Registration.Phase.self))),
        "passwordReset.autoLogin": ([.anonymousWall], [.passwordReset], .entry(phaseType: phaseType(PasswordReset.Phase.self))),
        "passwordReset.token": ([.everday], [.passwordReset], .entry(phaseType: phaseType(PasswordReset.Phase.self))),
        "passwordReset.link": ([.hero365], [.passwordReset], .entry(phaseType: phaseType(PasswordReset.Phase.self))),
        "oauthSignIn": ([.subspace, .hero365], [.oauthSignIn], .entry(phaseType: phaseType(OAuthSignIn.Phase.self))),
        "openIDSignIn": ([.openIDConnect], [.openIDSignIn], .entry(phaseType: phaseType(OpenIDSignIn.Phase.self))),
        "deviceSignIn": ([.openIDConnect], [.deviceSignIn], .entry(phaseType: phaseType(DeviceSignIn.Phase.self))),
        "session.anonymousWall": (
            [.anonymousWall], [.session, .logout, .passwordSetup, .changePassword], .session(entryPhaseType: phaseType(PasswordSignIn.Phase.self))
        ),
        "session.everday": (
            [.everday], [.session, .rotatingRefresh, .logout, .passwordChangeRequired, .changePassword],
            .session(entryPhaseType: phaseType(PasswordSignIn.Phase.self))
        ),
        "session.subspace": ([.subspace], [.session, .rotatingRefresh, .logout], .session(entryPhaseType: phaseType(PasswordSignIn.Phase.self))),
        "session.hero365": ([.hero365], [.session, .rotatingRefresh, .logout], .session(entryPhaseType: phaseType(PasswordSignIn.Phase.self))),
        "realtimeConnection": (
            [.vynqTalk], [.session, .logout, .realtimeConnection], .session(entryPhaseType: phaseType(PasswordSignIn.Phase.self))
        ),
    ]

    /// A phase type's name as ``Subject`` records it.
    public static func phaseType(_ type: Any.Type) -> String { String(reflecting: type) }

    /// Every model of `Models.lifecycles` at its own bounds (those `authflow verify --quick`
    /// checks it at), and of `Models.apps` at `Models.fullBounds` (4 requests in flight, 2 answers left
    /// over) within ``bounds``.
    ///
    /// A lifecycle diagram is the projection of its model's whole state graph onto the phase's
    /// cases, so raising the bounds can only add edges (a stale refresh answer arriving after
    /// sign-out, an answer withdrawn when a flow is left). CI checks that it adds none:
    /// `authflow verify --diagrams` compares every drawn lifecycle with
    /// its exploration at `Models.fullBounds` and fails on any node or edge the drawing lacks
    /// (`authflow diagrams --check --full-bounds` does the same on its own). Drawn there directly, Everday's
    /// session alone took minutes in a debug build (`swift test`).
    public static var standard: DiagramCatalogue { catalogue(lifecyclesAtFullBounds: false) }

    /// ``standard`` with every lifecycle explored at `Models.fullBounds` (the check's reference).
    public static var atFullBounds: DiagramCatalogue { catalogue(lifecyclesAtFullBounds: true) }

    private static func catalogue(lifecyclesAtFullBounds: Bool) -> DiagramCatalogue {
        let full = Models.fullBounds
        let lifecycles = Models.lifecycles.map { shipped in
            let model = lifecyclesAtFullBounds ? shipped.bounded(inFlight: full.inFlight, stale: full.stale) : shipped
            let known = usage[model.name]
            return LifecycleEntry(
                model: model, backends: known?.backends ?? [], draws: known?.draws ?? [],
                subject: known?.subject ?? .entry(phaseType: ""), limits: bounds[model.name] ?? ExplorationLimits())
        }
        let compositions = apps.compactMap { backend, machine -> CompositionEntry? in
            guard let shipped = Models.apps.first(where: { $0.name == "app.\(backend.id)" }) else { return nil }
            return CompositionEntry(
                backend: backend, model: shipped.bounded(inFlight: full.inFlight, stale: full.stale),
                entries: EntryPosition.of(machine),
                limits: bounds[shipped.name] ?? ExplorationLimits())
        }
        return DiagramCatalogue(lifecycles: lifecycles, compositions: compositions)
    }

    /// The documented backends' app machines, as AuthCore composes them, in `Backend.documented`
    /// order: one line per backend. Its composition is drawn from its app model, `app.<id>`.
    static let apps: [(backend: Backend, machine: any Lifecycle)] = [
        (.anonymousWall, Apps.anonymousWall()),
        (.vynqTalk, Apps.vynqTalk()),
        (.everday, Apps.everday()),
        (.subspace, Apps.subspace()),
        (.hero365, Apps.hero365()),
    ]

    /// The backends with a composition diagram, in order.
    public static var backends: [Backend] { apps.map(\.backend) }

    /// The backend's app machine, as AuthCore composes it; `nil` for a backend the catalogue does
    /// not draw.
    public static func appMachine(_ backend: Backend) -> (any Lifecycle)? {
        apps.first { $0.backend == backend }?.machine
    }
}
