import AuthCore

/// A lifecycle that knows its own model: what can be done to it, what its configuration implies of
/// the server's answers, and which of its cases that configuration makes unreachable. Every
/// AuthCore lifecycle conforms, and so do the combinators (`Handover`, `OneOf`,
/// `SessionWithRealtime`) when their parts do: ``Model/init(of:name:callers:maxInFlight:maxStale:unreachable:server:)``
/// then derives the whole model of a composition, with no menu written by hand.
///
/// A lifecycle of your own conforms by giving its menu (``intents(for:_:)``, and the facts of a
/// world it reads, ``menuFacts(in:_:)``, if it reads any); the other requirements have defaults.
public protocol VerifiableLifecycle: Lifecycle {
    /// What the menu reads of a world: worlds with the same facts are offered the same intents,
    /// built once. ``NoMenuFacts`` for a menu that is the same in every world.
    associatedtype MenuFacts: Hashable & Sendable = NoMenuFacts
    /// The facts of `snapshot` the menu reads (the pending attempt's name, whether a call can be
    /// offered): functions of the world's fingerprint only (see ``LifecycleModel/intents(in:)``).
    func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> MenuFacts
    /// The intents to try in a world with `facts`: every intent case, with valid input and one
    /// value of each class of invalid input the flow's configuration refuses (see ``Menus``).
    func intents(for facts: MenuFacts, _ options: MenuOptions) -> [Intent]
    /// What the lifecycle's configuration says of the server's answers, applied to `replies`
    /// before the app's own (``Model/init(of:name:callers:maxInFlight:maxStale:unreachable:server:)``'s
    /// `server`): a session's refresh policy decides whether grants carry a refresh token, an
    /// OpenID Connect flow's issuer and client which ID tokens are right.
    func shape(_ replies: inout ReplyCatalogue)
    /// The cases this lifecycle cannot reach when the server answers only with `replies`, each
    /// with its reason.
    func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase]
    /// The codes the flows send, as their menus drive them (none for a flow that sends none).
    var codesSent: [CodeSending] { get }
    /// Whether the lifecycle reads the vault at launch (a session does): relaunching is then a move.
    var readsVault: Bool { get }
    /// Whether logging out ends the session on the server (``LifecycleModel/endsServerSessions``).
    var endsServerSessions: Bool { get }
    /// The case paths where the lifecycle, explored alone, is done (``LifecycleModel/finalCases``).
    var finalCases: [String] { get }
    /// How far back the history must keep instants exact for the invariants on this lifecycle's
    /// requests (``LifecycleModel/historyHorizon``): a device sign-in's polling interval.
    var historyHorizon: Interval { get }
    /// The invariants this lifecycle's configuration adds to the catalogue's, for a model of
    /// `Root`: an OpenID Connect flow's ID tokens must be its provider's, for its client
    /// (``Catalogue/idTokenForThisClient(issuer:clientID:)``).
    func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>]
}

extension VerifiableLifecycle where MenuFacts == NoMenuFacts {
    /// None: the menu is the same in every world.
    public func menuFacts<Root: Lifecycle>(in snapshot: Snapshot<Root>, _ options: MenuOptions) -> NoMenuFacts { NoMenuFacts() }
}

extension VerifiableLifecycle {
    /// Nothing: the configuration says nothing of the answers.
    public func shape(_ replies: inout ReplyCatalogue) {}
    /// None.
    public func unreachableCases(answering replies: ReplyCatalogue) -> [UnreachableCase] { [] }
    /// None.
    public var codesSent: [CodeSending] { [] }
    /// No.
    public var readsVault: Bool { false }
    /// No.
    public var endsServerSessions: Bool { false }
    /// None.
    public var finalCases: [String] { [] }
    /// None beyond the code rules'.
    public var historyHorizon: Interval { .zero }
    /// None beyond the catalogue's.
    public func invariants<Root: Lifecycle>(of root: Root.Type) -> [Invariant<Root>] { [] }
}

/// The facts of a world a menu that never changes reads: none.
public struct NoMenuFacts: Hashable, Sendable {
    /// No facts.
    public init() {}
}

/// Two parts' menu facts, for a composition of two lifecycles.
public struct MenuFactsPair<First: Hashable & Sendable, Second: Hashable & Sendable>: Hashable, Sendable {
    /// The first part's.
    public var first: First
    /// The second part's.
    public var second: Second

    /// Both parts' facts.
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }
}

/// What a derived menu may vary besides the world.
public struct MenuOptions: Hashable, Sendable {
    /// How many protected calls a session's menu lets be pending at once (at least 1): it offers
    /// `call` while fewer are.
    public var callers: Int

    /// Options with up to `callers` calls pending.
    public init(callers: Int = 1) { self.callers = max(callers, 1) }
}

/// The codes a flow sends, for ``CodeRules``: the cooldown it keeps between two codes, and, when
/// the app submits the codes, how long each is good for and how often it may be tried.
public struct CodeSending: Hashable, Sendable {
    /// A new code only after this long.
    public var cooldown: Interval
    /// Whether the app submits the codes (a link is followed outside it).
    public var submitted: Bool
    /// How long a code is good for, when the flow knows (`nil`: it sets no lifetime).
    public var lifetime: Interval?
    /// Submissions per code the flow allows, when it bounds them.
    public var maxAttempts: Int?

    /// A flow's codes.
    public init(cooldown: Interval, submitted: Bool, lifetime: Interval? = nil, maxAttempts: Int? = nil) {
        self.cooldown = cooldown
        self.submitted = submitted
        self.lifetime = lifetime
        self.maxAttempts = maxAttempts
    }

    /// The rules every flow's codes keep: the shortest cooldown, and a lifetime and an attempt
    /// bound only when every flow whose codes the app submits has one (the longest). `nil`
    /// when no flow sends codes.
    public static func rules(_ flows: [CodeSending]) -> CodeRules? {
        guard let cooldown = flows.map(\.cooldown).min() else { return nil }
        let submitted = flows.filter(\.submitted)
        let lifetimes = submitted.compactMap(\.lifetime)
        let attempts = submitted.compactMap(\.maxAttempts)
        return CodeRules(
            cooldown: cooldown, lifetime: !submitted.isEmpty && lifetimes.count == submitted.count ? lifetimes.max() : nil,
            maxAttempts: !submitted.isEmpty && attempts.count == submitted.count ? attempts.max() : nil)
    }
}

/// The names of a phase type's cases, typed: ``UnreachableCase`` names a case with one, so a
/// misspelt case does not compile.
public protocol PhaseCaseName: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// The phase type whose cases these are.
    associatedtype Phase: LifecyclePhase
}

/// A phase case a composition cannot reach by design, and why.
public struct UnreachableCase: Hashable, Sendable, CustomStringConvertible {
    /// `Type.case`, as ``LifecycleModel/unreachableByDesign`` keys it
    /// (`PasswordSignIn.Phase.pendingApproval`).
    public let key: String
    /// Why the composition cannot reach it.
    public let reason: String

    /// `name`'s case, unreachable because of `reason`:
    /// `UnreachableCase(PasswordSignIn.Phase.Case.pendingApproval, "no approval gate")`.
    public init<Name: PhaseCaseName>(_ name: Name, _ reason: String) {
        self.key = "\(typeName(Name.Phase.self)).\(name.rawValue)"
        self.reason = reason
    }

    /// `key: reason`.
    public var description: String { "\(key): \(reason)" }
}

extension Model where Machine: VerifiableLifecycle {
    /// The model of `machine` derived from its configuration: its menu (every intent class of
    /// every flow it composes, and the session's), the answers the server gives (the catalogue's
    /// defaults, shaped by the composition: grants carry a refresh token when the session
    /// refreshes…, then by `server`), the cases its configuration and those answers make
    /// unreachable (and `unreachable`), the code rules of the flows that send codes, relaunches
    /// when a session reads the vault, and the invariants that follow.
    ///
    /// ```swift
    /// let report = Explorer.explore(Model(of: myApp, name: "myApp"))
    /// ```
    ///
    /// - Parameters:
    ///   - machine: the composition (or a single lifecycle).
    ///   - name: the model's name in reports.
    ///   - callers: how many protected calls may be pending at once.
    ///   - maxInFlight: see ``LifecycleModel/maxInFlight``.
    ///   - maxStale: see ``LifecycleModel/maxStale``.
    ///   - unreachable: cases the app cannot reach for a reason the configuration does not say.
    ///   - server: what the app's server answers, beyond what the composition implies (its
    ///     registration outcomes, the failures to explore…).
    public init(
        of machine: Machine, name: String, callers: Int = 1, maxInFlight: Int = Models.fullBounds.inFlight,
        maxStale: Int = Models.fullBounds.stale, unreachable: [UnreachableCase] = [],
        server: (inout ReplyCatalogue) -> Void = { _ in }
    ) {
        var replies = ReplyCatalogue()
        machine.shape(&replies)
        server(&replies)
        var byDesign: [String: String] = [:]
        for unreachable in machine.unreachableCases(answering: replies) + unreachable { byDesign[unreachable.key] = unreachable.reason }
        let options = MenuOptions(callers: callers)
        let menus = Memo<Machine.MenuFacts, [Machine.Intent]>()
        self.init(
            name: name, machine: machine, replies: replies, relaunches: machine.readsVault, finalCases: machine.finalCases,
            unreachableByDesign: byDesign, codes: CodeSending.rules(machine.codesSent),
            // AuthCore's lifecycles keep deadlines only, never a past instant they add to.
            timeHorizon: .zero, maxInFlight: maxInFlight, maxStale: maxStale, endsServerSessions: machine.endsServerSessions,
            historyHorizon: machine.historyHorizon
        ) { snapshot in
            // Built once per facts and shared by every world with them.
            menus.value(machine.menuFacts(in: snapshot, options)) { machine.intents(for: $0, options) }
        }
        for invariant in machine.invariants(of: Machine.self) where !invariants.contains(where: { $0.name == invariant.name }) {
            invariants.append(invariant)
        }
    }
}
