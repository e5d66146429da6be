import AuthCore

/// Intent menus per lifecycle: every intent case, with valid input and, for each field the user
/// types, one value of each class of invalid input the value types refuse (the other fields
/// valid): a reducer that forgets to validate one field on one path sends it, and
/// `onlyValidInputSent` sees it.
///
/// The classes include non-ASCII text (see ``Inputs``): passwords too short in characters but
/// long enough in UTF-8 bytes, Unicode scalars or UTF-16 units, an email and a username with a
/// non-ASCII letter, a name of non-ASCII spaces. A reducer that counts a password in bytes,
/// scalars or UTF-16 units, takes any letter for a username's or an address's, or trims only ASCII
/// spaces sends one of them, and `onlyValidInputSent` sees it. Invalid input is refused
/// locally, so each adds transitions, not states. Valid input is sent, and each valid value adds
/// the states its requests reach: the menus offer one valid password per field, and it is not
/// ASCII (``Inputs/password``), so a reducer that refuses non-ASCII leaves cases unreached. A
/// valid password the value types accept by characters and a reducer refuses by another count
/// (``Inputs/longestEmojiPassword``, 1,024 characters and 4,096 bytes) is left to the tests:
/// beside the shorter valid one it would add states, and no invariant sees a valid input refused.
public enum Menus {
    /// Invalid emails: malformed, too long, not ASCII.
    static let badEmails = [Inputs.badEmail, Inputs.longEmail, Inputs.nonASCIIEmail]
    /// Invalid passwords: too short (in ASCII, in two-byte letters, with combining marks, in
    /// emoji), too long.
    static let badPasswords = [
        Inputs.shortPassword, Inputs.twoBytePassword, Inputs.combiningPassword, Inputs.emojiPassword, Inputs.longPassword,
    ]
    /// Invalid phone numbers: no country code, too few digits, letters.
    static let badPhones = [Inputs.badPhone, Inputs.shortPhone, Inputs.lettersPhone]
    /// Invalid usernames: blank, too long, characters outside the set (ASCII and not).
    static let badUsernames = [Inputs.blankUsername, Inputs.longUsername, Inputs.badUsername, Inputs.nonASCIIUsername]
    /// Invalid display names: blank (ASCII and non-ASCII spaces), too long.
    static let badNames = [Inputs.blankName, Inputs.nonASCIIBlankName, Inputs.longName]

    /// `CodeRegistration`.
    public static let codeRegistration: [CodeRegistration.Intent] =
        [.submitEmail(Inputs.email)] + badEmails.map { .submitEmail($0) }
        + [.requestNewCode, .submitCode(Inputs.code), .submitCode(Inputs.badCode), .startOver]

    /// `OneTimeCodeSignIn` on `channel`.
    public static func oneTimeCode(_ channel: OneTimeCodeSignIn.Channel) -> [OneTimeCodeSignIn.Intent] {
        let (valid, invalid) = channel == .email ? (Inputs.email, badEmails) : (Inputs.phone, badPhones)
        return [.submitDestination(valid)] + invalid.map { .submitDestination($0) }
            + [.requestNewCode, .submitCode(Inputs.code), .submitCode(Inputs.badCode), .startOver]
    }

    /// `PasswordSignIn` for `identifiers`.
    public static func passwordSignIn(_ identifiers: PasswordSignIn.IdentifierKind) -> [PasswordSignIn.Intent] {
        let (identifier, invalid) =
            switch identifiers {
            case .email: (Inputs.email, badEmails)
            case .emailOrPhone: (Inputs.email, badEmails + badPhones)
            case .username: (Inputs.username, badUsernames)
            }
        var menu: [PasswordSignIn.Intent] = [.submit(identifier: identifier, password: Inputs.password)]
        if identifiers == .emailOrPhone { menu.append(.submit(identifier: Inputs.phone, password: Inputs.password)) }
        menu += invalid.map { .submit(identifier: $0, password: Inputs.password) }
        menu += badPasswords.map { .submit(identifier: identifier, password: $0) }
        return menu + [.startOver]
    }

    /// `Registration` for `forms`: each form filled in validly, then with each of its fields invalid
    /// in turn.
    public static func registration(_ forms: [Registration.Form]) -> [Registration.Intent] {
        var menu: [Registration.Intent] = []
        for form in forms {
            let valid =
                switch form {
                case .nameEmailPassword: RegistrationInput(name: Inputs.name, email: Inputs.email, password: Inputs.password)
                case .emailPassword: RegistrationInput(email: Inputs.email, password: Inputs.password)
                case .phonePassword: RegistrationInput(phone: Inputs.phone, password: Inputs.password)
                case .usernamePassword: RegistrationInput(email: Inputs.email, username: Inputs.username, password: Inputs.password)
                }
            func with(_ change: (inout RegistrationInput) -> Void) -> Registration.Intent {
                var input = valid
                change(&input)
                return .submit(input)
            }
            menu.append(.submit(valid))
            if !valid.name.isEmpty { menu += badNames.map { name in with { $0.name = name } } }
            if !valid.email.isEmpty { menu += badEmails.map { email in with { $0.email = email } } }
            if !valid.phone.isEmpty { menu += badPhones.map { phone in with { $0.phone = phone } } }
            if !valid.username.isEmpty { menu += badUsernames.map { username in with { $0.username = username } } }
            menu += badPasswords.map { password in with { $0.password = password } }
        }
        return menu + [.startOver]
    }

    /// `PasswordReset` in `style`.
    public static func passwordReset(_ style: PasswordReset.Style) -> [PasswordReset.Intent] {
        let (identifier, invalid) = style == .emailedToken ? (Inputs.username, badUsernames + badEmails) : (Inputs.email, badEmails)
        return [.requestReset(identifier)] + invalid.map { .requestReset($0) } + [.requestAgain]
            + [.submitCode(Inputs.code, newPassword: Inputs.password), .submitCode(Inputs.badCode, newPassword: Inputs.password)]
            + badPasswords.map { .submitCode(Inputs.code, newPassword: $0) }
            + [.submitToken(Inputs.resetToken, newPassword: Inputs.password), .submitToken(Inputs.blankResetToken, newPassword: Inputs.password)]
            + badPasswords.map { .submitToken(Inputs.resetToken, newPassword: $0) } + [.startOver]
    }

    /// `OAuthSignIn`: a fresh attempt name, an unsupported provider, callbacks for the pending
    /// attempt and for another one, a cancelled callback, cancel, native sign-in with an identity
    /// token (and with a provider that has none).
    public static func oauth<Machine>(in snapshot: Snapshot<Machine>) -> [OAuthSignIn.Intent] {
        oauth(OAuthMenuKey(in: snapshot))
    }

    /// What ``oauth(in:)`` reads of a world: the pending attempt's name and the indices the
    /// callback's fresh tokens take.
    public struct OAuthMenuKey: Hashable, Sendable {
        let pending: String
        let access: Int
        let refresh: Int

        init<Machine>(in snapshot: Snapshot<Machine>) {
            var pending = "n0"
            switch snapshot.phase(OAuthSignIn.Phase.self) {
            case .awaitingCallback(_, let attempt)?, .fetchingURL(_, let attempt, _)?: pending = attempt
            case .choosingProvider?, .signingInNatively?, .signedIn?, nil: break
            }
            self.pending = pending
            access = snapshot.symbols.access + 1
            refresh = max(access, snapshot.symbols.refresh + 1)
        }
    }

    /// ``oauth(in:)`` for the facts it reads.
    static func oauth(_ key: OAuthMenuKey) -> [OAuthSignIn.Intent] {
        let fresh = key.pending == "n1" ? "n2" : "n1"
        let grant = Grant(
            accessToken: AccessToken(Symbols.name("at", key.access)), refreshToken: RefreshToken(Symbols.name("rt", key.refresh)),
            user: ReplyCatalogue.user(passwordSet: nil))
        return [
            .begin(provider: "google", attempt: fresh), .begin(provider: "myspace", attempt: fresh),
            .callback(.tokens(attempt: key.pending, grant)), .callback(.tokens(attempt: key.pending == "n1" ? "n2" : "n1", grant)),
            .callback(.failure(attempt: key.pending, "access_denied")), .cancel,
            .signInNatively(provider: "apple", identityToken: Inputs.identityToken, userIdentifier: nil),
            .signInNatively(provider: "github", identityToken: Inputs.identityToken, userIdentifier: nil),
            .signInNatively(provider: "apple", identityToken: Inputs.blankIdentityToken, userIdentifier: nil),
        ]
    }

    /// `OAuthSignIn` with native providers only (Subspace's deployed `/auth/apple`, `/auth/google`):
    /// native sign-in with a valid token, with a provider it cannot sign in natively and with a
    /// blank token, and the browser intents such a flow refuses (a provider it has no URL for, a
    /// callback for no attempt) and `cancel`. No world fact changes it.
    public static let nativeSignIn: [OAuthSignIn.Intent] = [
        .signInNatively(provider: "apple", identityToken: Inputs.identityToken, userIdentifier: nil),
        .signInNatively(provider: "github", identityToken: Inputs.identityToken, userIdentifier: nil),
        .signInNatively(provider: "apple", identityToken: Inputs.blankIdentityToken, userIdentifier: nil),
        .begin(provider: "google", attempt: "n1"), .callback(.failure(attempt: "n1", "access_denied")), .cancel,
    ]

    /// `SessionLifecycle`: up to `callers` concurrent protected calls, logout, password steps.
    public static func session<Machine>(in snapshot: Snapshot<Machine>, callers: Int = 2) -> [SessionLifecycle.Intent] {
        session(offeringCall: canCall(in: snapshot, callers: callers))
    }

    /// All ``session(in:callers:)`` reads of a world: whether fewer than `callers` calls are pending.
    static func canCall<Machine>(in snapshot: Snapshot<Machine>, callers: Int) -> Bool {
        (snapshot.session?.pendingCalls.count ?? 0) < max(callers, 1)
    }

    /// An app's menu: its `entries`, the session's intents (for `callers`) wrapped by `session`, then
    /// `more`. Only the session's intents depend on the world, through whether they offer a call
    /// (``canCall(in:callers:)``), so each whole menu is built once for each and shared by every
    /// world: no list of thirty intents is copied and freed at each world.
    static func app<Machine: Lifecycle>(
        _ entries: [Machine.Intent], then more: [Machine.Intent] = [], callers: Int = 1,
        session wrap: @escaping @Sendable (SessionLifecycle.Intent) -> Machine.Intent
    ) -> @Sendable (Snapshot<Machine>) -> [Machine.Intent] {
        let withCall = entries + session(offeringCall: true).map(wrap) + more
        let withoutCall = entries + session(offeringCall: false).map(wrap) + more
        return { snapshot in canCall(in: snapshot, callers: callers) ? withCall : withoutCall }
    }

    /// ``session(in:callers:)``, with a call or without (while `callers` calls are pending).
    static func session(offeringCall: Bool) -> [SessionLifecycle.Intent] {
        var menu: [SessionLifecycle.Intent] = offeringCall ? [.call] : []
        let new = Inputs.newPassword
        menu += [.logout, .setPassword(Inputs.password)] + badPasswords.map { .setPassword($0) }
        menu += [.changePassword(old: Inputs.password, new: new)] + badPasswords.map { .changePassword(old: $0, new: new) }
        menu += badPasswords.map { .changePassword(old: Inputs.password, new: $0) } + [.credentialsRejected, .deleteAccount]
        return menu
    }
}
