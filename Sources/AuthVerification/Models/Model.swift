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
    /// See ``LifecycleModel/historyHorizon``: the code rules' longest cooldown or lifetime, or
    /// the `historyHorizon` the model was made with if longer.
    public var historyHorizon: Interval
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
        maxInFlight: Int = Models.fullBounds.inFlight, maxStale: Int = Models.fullBounds.stale, endsServerSessions: Bool = false,
        historyHorizon: Interval = .zero, menu: @escaping @Sendable (Snapshot<Machine>) -> [Machine.Intent]
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
        self.historyHorizon = max(historyHorizon, codes.map { max($0.cooldown, $0.lifetime ?? .zero) } ?? .zero)
        self.maxInFlight = maxInFlight
        self.maxStale = maxStale
    }

    /// See ``LifecycleModel/intents(in:)``.
    public func intents(in snapshot: Snapshot<Machine>) -> [Machine.Intent] { menu(snapshot) }
}

/// Representative inputs: a valid value of each kind, and one value of each class of invalid
/// input the value types refuse (every `ValidationError`). Secrets are distinctive so the leak
/// check cannot confuse them with ordinary text.
public enum Inputs {
    /// A valid school email.
    public static let email = "student@harvard.edu"
    /// A malformed email (no domain).
    public static let badEmail = "student@"
    /// An email of 256 characters, past RFC 5321's 254: its local part (60) and its labels (63
    /// each) within their own bounds.
    public static let longEmail =
        String(repeating: "s", count: 60) + "@" + String(repeating: "h", count: 63) + "."
        + String(repeating: "h", count: 63) + "." + String(repeating: "h", count: 63) + ".edu"
    /// A valid password (well over 8 characters).
    public static let password = PasswordInput("pw-valid-secret")
    /// A 7-character password: one short of the minimum.
    public static let shortPassword = PasswordInput("pw-shrt")
    /// A password of 1,028 characters: past the most AuthCore accepts (1,024).
    public static let longPassword = PasswordInput("pw-" + String(repeating: "long-", count: 205))
    /// A valid code.
    public static let code = CodeInput("246810")
    /// A code the validation refuses.
    public static let badCode = CodeInput("24x8")
    /// A phone number that normalises to E.164.
    public static let phone = "+1 (234) 567-8900"
    /// A phone number without a country code.
    public static let badPhone = "234-567-8900"
    /// A phone number of 7 digits: one short of E.164's 8.
    public static let shortPhone = "+1 234 567"
    /// A phone number with letters.
    public static let lettersPhone = "+1 234 CALL NOW"
    /// A valid username.
    public static let username = "newkid"
    /// A blank username.
    public static let blankUsername = "  "
    /// A username of 65 characters: one past the most accepted.
    public static let longUsername = String(repeating: "k", count: 65)
    /// A username with a space and a `!`.
    public static let badUsername = "new kid!"
    /// A valid display name.
    public static let name = "New Kid"
    /// A blank display name.
    public static let blankName = " "
    /// A display name of 256 characters: one past Subspace's 255.
    public static let longName = String(repeating: "N", count: 256)
    /// A blank reset token.
    public static let blankResetToken = ResetToken(" ")
    /// A blank identity token.
    public static let blankIdentityToken = IdentityToken(" ")
    /// A reset token from an email.
    public static let resetToken = ResetToken("reset-token-9")
    /// An identity token from a provider's SDK, for native sign-in.
    public static let identityToken = IdentityToken("identity-token-7")
}
