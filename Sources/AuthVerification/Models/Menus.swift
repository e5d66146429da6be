import AuthCore

/// Intent menus per lifecycle: every intent case with valid, invalid and edge inputs.
public enum Menus {
    /// `CodeRegistration`.
    public static let codeRegistration: [CodeRegistration.Intent] = [
        .submitEmail(Inputs.email), .submitEmail(Inputs.badEmail), .requestNewCode, .submitCode(Inputs.code),
        .submitCode(Inputs.badCode), .startOver,
    ]

    /// `OneTimeCodeSignIn` on `channel`.
    public static func oneTimeCode(_ channel: OneTimeCodeSignIn.Channel) -> [OneTimeCodeSignIn.Intent] {
        let (valid, invalid) = channel == .email ? (Inputs.email, Inputs.badEmail) : (Inputs.phone, Inputs.badPhone)
        return [
            .submitDestination(valid), .submitDestination(invalid), .requestNewCode, .submitCode(Inputs.code),
            .submitCode(Inputs.badCode), .startOver,
        ]
    }

    /// `PasswordSignIn` for `identifiers`.
    public static func passwordSignIn(_ identifiers: PasswordSignIn.IdentifierKind) -> [PasswordSignIn.Intent] {
        let identifier =
            switch identifiers {
            case .email, .emailOrPhone: Inputs.email
            case .username: Inputs.username
            }
        var menu: [PasswordSignIn.Intent] = [
            .submit(identifier: identifier, password: Inputs.password),
            .submit(identifier: identifier, password: Inputs.shortPassword), .startOver,
        ]
        if identifiers == .emailOrPhone { menu.insert(.submit(identifier: Inputs.phone, password: Inputs.password), at: 1) }
        return menu
    }

    /// `Registration` for `forms`.
    public static func registration(_ forms: [Registration.Form]) -> [Registration.Intent] {
        var menu: [Registration.Intent] = forms.map { form in
            switch form {
            case .nameEmailPassword: .submit(RegistrationInput(name: "New Kid", email: Inputs.email, password: Inputs.password))
            case .emailPassword: .submit(RegistrationInput(email: Inputs.email, password: Inputs.password))
            case .phonePassword: .submit(RegistrationInput(phone: Inputs.phone, password: Inputs.password))
            case .usernamePassword: .submit(RegistrationInput(email: Inputs.email, username: Inputs.username, password: Inputs.password))
            }
        }
        menu.append(.submit(RegistrationInput(name: "New Kid", email: Inputs.email, username: Inputs.username, password: Inputs.shortPassword)))
        menu.append(.startOver)
        return menu
    }

    /// `PasswordReset` in `style`.
    public static func passwordReset(_ style: PasswordReset.Style) -> [PasswordReset.Intent] {
        let identifier = style == .emailedToken ? Inputs.username : Inputs.email
        return [
            .requestReset(identifier), .requestReset(Inputs.badEmail), .requestAgain,
            .submitCode(Inputs.code, newPassword: Inputs.password), .submitCode(Inputs.code, newPassword: Inputs.shortPassword),
            .submitToken(Inputs.resetToken, newPassword: Inputs.password), .startOver,
        ]
    }

    /// `OAuthSignIn`: a fresh attempt name, an unsupported provider, callbacks for the pending
    /// attempt and for another one, a cancelled callback, cancel, native sign-in with an identity
    /// token (and with a provider that has none).
    public static func oauth<Machine>(in snapshot: Snapshot<Machine>) -> [OAuthSignIn.Intent] {
        oauth(OAuthMenuKey(in: snapshot))
    }

    /// What ``oauth(in:)`` reads of a world: the pending attempt's name and the indices the
    /// callback's fresh tokens take.
    struct OAuthMenuKey: Hashable, Sendable {
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
            .signInNatively(provider: "apple", identityToken: IdentityToken(" "), userIdentifier: nil),
        ]
    }

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

    /// `intents` of one flow, each routed into `machine` by its type (`Lifecycle.route(_:)`):
    /// a model names the flows' own intents and never the composition's nesting.
    static func routed<Machine: Lifecycle, Leaf: Sendable>(_ intents: [Leaf], into machine: Machine) -> [Machine.Intent] {
        intents.map { intent in
            guard let routed = machine.route(intent) else {
                preconditionFailure("no flow of \(Machine.self) takes \(Leaf.self): the model's menu names a flow it does not compose")
            }
            return routed
        }
    }

    /// A menu that is the same in every world: one list, built once.
    static func fixed<Machine: Lifecycle>(_ intents: [Machine.Intent]) -> @Sendable (Snapshot<Machine>) -> [Machine.Intent] {
        { _ in intents }
    }

    /// ``session(in:callers:)``, with a call or without (while `callers` calls are pending).
    static func session(offeringCall: Bool) -> [SessionLifecycle.Intent] {
        var menu: [SessionLifecycle.Intent] = offeringCall ? [.call] : []
        menu += [
            .logout, .setPassword(Inputs.password), .setPassword(Inputs.shortPassword),
            .changePassword(old: Inputs.password, new: PasswordInput("pw-new-secret")), .credentialsRejected,
        ]
        return menu
    }
}
