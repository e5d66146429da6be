import AuthCore

/// A model built from parts: the usual way to describe a lifecycle (or your own composition) to
/// the explorer and the fuzzer.
public struct Model<Machine: Lifecycle>: LifecycleModel {
    /// See ``LifecycleModel/name``.
    public var name: String
    /// See ``LifecycleModel/machine``.
    public var machine: Machine
    /// See ``LifecycleModel/replies``.
    public var replies: ReplyCatalogue
    /// The intents to try in a world.
    public var menu: @Sendable (Snapshot<Machine>) -> [Machine.Intent]
    /// See ``LifecycleModel/relaunches``.
    public var relaunches: Bool
    /// See ``LifecycleModel/initialWorld``.
    public var initialWorld: World<Machine>
    /// See ``LifecycleModel/finalCases``.
    public var finalCases: [String]
    /// See ``LifecycleModel/unreachableByDesign``.
    public var unreachableByDesign: [String: String]
    /// See ``LifecycleModel/invariants``.
    public var invariants: [Invariant<Machine>]
    /// See ``LifecycleModel/codeRules``.
    public var codeRules: CodeRules?
    /// See ``LifecycleModel/timeHorizon``.
    public var timeHorizon: Interval
    /// See ``LifecycleModel/maxInFlight``.
    public var maxInFlight: Int
    /// See ``LifecycleModel/maxStale``.
    public var maxStale: Int
    /// See ``LifecycleModel/endsServerSessions``.
    public var endsServerSessions: Bool

    /// Creates a model.
    public init(
        name: String, machine: Machine, replies: ReplyCatalogue, relaunches: Bool = false, finalCases: [String] = [],
        unreachableByDesign: [String: String] = [:], codes: CodeRules? = nil, timeHorizon: Interval = .seconds(600),
        maxInFlight: Int = 4, maxStale: Int = 2, endsServerSessions: Bool = false,
        menu: @escaping @Sendable (Snapshot<Machine>) -> [Machine.Intent]
    ) {
        self.name = name
        self.machine = machine
        self.replies = replies
        self.menu = menu
        self.relaunches = relaunches
        self.initialWorld = World(state: machine.initial)
        self.finalCases = finalCases
        self.unreachableByDesign = unreachableByDesign
        self.invariants = Catalogue.all(codes: codes, serverSignOut: endsServerSessions)
        self.endsServerSessions = endsServerSessions
        self.codeRules = codes
        self.timeHorizon = timeHorizon
        self.maxInFlight = maxInFlight
        self.maxStale = maxStale
    }

    /// See ``LifecycleModel/intents(in:)``.
    public func intents(in snapshot: Snapshot<Machine>) -> [Machine.Intent] { menu(snapshot) }
}

/// Representative inputs: one valid and one invalid (or edge) value of each kind. Secrets are
/// distinctive so the leak check cannot confuse them with ordinary text.
public enum Inputs {
    /// A valid school email.
    public static let email = "student@harvard.edu"
    /// An email the validation refuses.
    public static let badEmail = "student@"
    /// A valid password (well over 8 characters).
    public static let password = PasswordInput("pw-valid-secret")
    /// A 7-character password: one short of the minimum.
    public static let shortPassword = PasswordInput("pw-shrt")
    /// A valid code.
    public static let code = CodeInput("246810")
    /// A code the validation refuses.
    public static let badCode = CodeInput("24x8")
    /// A phone number that normalises to E.164.
    public static let phone = "+1 (234) 567-8900"
    /// A phone number without a country code.
    public static let badPhone = "234-567-8900"
    /// A valid username.
    public static let username = "newkid"
    /// A reset token from an email.
    public static let resetToken = ResetToken("reset-token-9")
    /// An identity token from a provider's SDK, for native sign-in.
    public static let identityToken = IdentityToken("identity-token-7")
}
