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
        self.invariants = Catalogue.all(
            codes: codes, serverSignOut: endsServerSessions, revocationEndsEverySession: replies.revocationEndsEverySession)
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
/// input the value types refuse (every `ValidationError`, and the non-ASCII text a reducer that
/// counts or reads something other than characters would take for valid). Secrets are
/// distinctive so the leak check cannot confuse them with ordinary text.
///
/// Lengths are counted in characters as the user sees them (Swift `Character`s): `"é"`, `"e"`
/// with a combining acute and `"👍🏽"` are one character each, though they are 2, 3 and 8 UTF-8
/// bytes and 1, 2 and 2 Unicode scalars. A character is never fewer scalars, UTF-16 units or bytes,
/// so a text long enough in characters is long enough in each; the non-ASCII classes are too
/// short in characters and long enough in the units a broken reducer might count instead.
public enum Inputs {
    /// A valid school email.
    public static let email = "student@harvard.edu"
    /// A malformed email (no domain).
    public static let badEmail = "student@"
    /// An email with a non-ASCII letter in its local part: RFC 5321 addresses are ASCII (RFC
    /// 6531's internationalised ones need an SMTPUTF8 server, which no backend documents).
    public static let nonASCIIEmail = "st\u{FC}dent@harvard.edu"
    /// An email of 256 characters, past RFC 5321's 254: its local part (60) and its labels (63
    /// each) within their own bounds.
    public static let longEmail =
        String(repeating: "s", count: 60) + "@" + String(repeating: "h", count: 63) + "."
        + String(repeating: "h", count: 63) + "." + String(repeating: "h", count: 63) + ".edu"
    /// A valid password of exactly 8 characters, not ASCII: `"pw-väl👍🏽d"`, the `ä` written as `a`
    /// and a combining diaeresis (10 Unicode scalars, 17 UTF-8 bytes). Every valid password the
    /// menus offer is like it, so a reducer that refuses non-ASCII passwords, or counts one past
    /// the minimum, leaves the flow's later cases unreached, which the explorer reports.
    public static let password = PasswordInput("pw-va\u{308}l\u{1F44D}\u{1F3FD}d")
    /// A valid new password for a change: 13 characters, not ASCII.
    public static let newPassword = PasswordInput("pw-n\u{E9}w-s\u{E9}cret")
    /// A 7-character password: one short of the minimum.
    public static let shortPassword = PasswordInput("pw-shrt")
    /// A password of 7 two-byte letters (`"üüüüüüü"`, precomposed): 7 characters, 7 Unicode
    /// scalars, 14 UTF-8 bytes. Too short; a reducer counting bytes takes it.
    public static let twoBytePassword = PasswordInput(String(repeating: "\u{FC}", count: 7))
    /// A password of 7 letters written with combining marks (`"e"` and U+0301 COMBINING ACUTE
    /// ACCENT, seven times): 7 characters, 14 Unicode scalars and UTF-16 units, 21 UTF-8 bytes.
    /// Too short; a reducer counting scalars, UTF-16 units or bytes takes it. (Not `"é"`
    /// precomposed beside it: Swift compares strings by canonical equivalence, so the two would
    /// be one intent to every `Set` and dictionary.)
    public static let combiningPassword = PasswordInput(String(repeating: "e\u{301}", count: 7))
    /// A password of 4 emoji (`"👍🏽"`, a thumbs up with a skin tone, four times): 4 characters,
    /// 8 Unicode scalars, 16 UTF-16 units, 32 UTF-8 bytes. Too short; a reducer counting
    /// scalars, UTF-16 units or bytes takes it.
    public static let emojiPassword = PasswordInput(String(repeating: "\u{1F44D}\u{1F3FD}", count: 4))
    /// A password of 1,024 four-byte emoji (`"😀"`): the longest accepted, in characters, though
    /// 4,096 UTF-8 bytes. Valid; not in the menus (see ``Menus``), kept for tests.
    public static let longestEmojiPassword = PasswordInput(String(repeating: "\u{1F600}", count: 1_024))
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
    /// A username with a non-ASCII letter (`"nëwkid"`): usernames are ASCII letters, digits and
    /// `.`, `_`, `-`, `#`; a reducer that asks `Character.isLetter` takes it.
    public static let nonASCIIUsername = "n\u{EB}wkid"
    /// A valid display name.
    public static let name = "New Kid"
    /// A blank display name.
    public static let blankName = " "
    /// A display name of nothing but non-ASCII spaces (a no-break space and an ideographic
    /// space): blank, though a reducer that trims only ASCII whitespace takes it.
    public static let nonASCIIBlankName = "\u{A0}\u{3000}"
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
