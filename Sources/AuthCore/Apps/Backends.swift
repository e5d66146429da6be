/// The server an app signs in with: the value a contract names its backend by.
///
/// A backend of your own is one line, `Backend("My API")`; its ``name`` is what logs and
/// descriptions show (`AuthRunner(My API)`). The five backends AuthCore documents, each described
/// by its own API document (summarised in `Fixtures/<backend>/README.md`), are ``anonymousWall``,
/// ``vynqTalk``, ``everday``, ``subspace`` and ``hero365``, listed in ``documented``.
///
/// Two backends are the same backend when their ``id``s are equal.
public struct Backend: Hashable, Sendable, CustomStringConvertible {
    /// A short key that stays the same across releases: the documented backends' are `everday`,
    /// `hero365`, …, which name their fixtures folder, their models (`app.everday`) and their
    /// argument on the command line.
    public let id: String
    /// The backend's name as its document writes it, shown in descriptions and logs.
    public let name: String
    /// The lifecycles the backend's document describes, which its app machine composes (empty
    /// when the backend does not declare them).
    public let lifecycles: [LifecycleName]

    /// A backend named `name`, which is its ``id`` too: `Backend("My API")`.
    public init(_ name: String) {
        self.init(id: name, name: name)
    }

    /// A backend with a key of its own (`id`), its display `name`, and the `lifecycles` its
    /// document describes.
    public init(id: String, name: String, lifecycles: [LifecycleName] = []) {
        self.id = id
        self.name = name
        self.lifecycles = lifecycles
    }

    /// The backend's name as its document writes it.
    public var description: String { name }

    /// Whether `lhs` and `rhs` are the same backend: their ``id``s are equal.
    public static func == (lhs: Backend, rhs: Backend) -> Bool { lhs.id == rhs.id }

    /// Hashes the ``id``, the backend's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

extension Backend {
    /// The five backends AuthCore documents and ships a client for, in the order the package lists
    /// them everywhere (the command line, the models, the diagrams, the fixtures). Each module that
    /// knows something of every documented backend keeps one registration per backend, and a
    /// test checks that its registrations are exactly these.
    public static let documented: [Backend] = [.anonymousWall, .vynqTalk, .everday, .subspace, .hero365]

    /// Anonymous Wall: email codes, password set after registration, reset with auto-login.
    public static let anonymousWall = Backend(
        id: "anonymousWall", name: "Anonymous Wall",
        lifecycles: [
            .codeRegistration, .oneTimeCodeSignIn, .passwordSignIn, .passwordReset, .session, .logout, .passwordSetup, .changePassword,
        ])
    /// VynqTalk (Vapor): signup/login, `{success,data,message}`, 401/403 auto-logout, WebSocket.
    public static let vynqTalk = Backend(
        id: "vynqTalk", name: "VynqTalk", lifecycles: [.registration, .passwordSignIn, .session, .logout, .realtimeConnection])
    /// Everday: approval-gated registration, rotating refresh, reset by token.
    public static let everday = Backend(
        id: "everday", name: "Everday",
        lifecycles: [
            .registration, .passwordSignIn, .passwordReset, .session, .rotatingRefresh, .logout, .passwordChangeRequired, .changePassword,
        ])
    /// Subspace: register → token, login, `/auth/me`, 24 h JWT, 429; rotating refresh when the
    /// (deployed) server grants a refresh token, and its deployed native sign-in with Apple and Google.
    public static let subspace = Backend(
        id: "subspace", name: "Subspace", lifecycles: [.registration, .passwordSignIn, .oauthSignIn, .session, .rotatingRefresh, .logout])
    /// Hero365: email/phone sign-up and sign-in, phone OTP, OAuth, rotating refresh, recovery.
    public static let hero365 = Backend(
        id: "hero365", name: "Hero365",
        lifecycles: [
            .registration, .passwordSignIn, .oneTimeCodeSignIn, .oauthSignIn, .passwordReset, .session, .rotatingRefresh, .logout,
        ])
}

/// The documented lifecycles, by name.
public enum LifecycleName: String, Hashable, Sendable, CaseIterable {
    /// ``CodeRegistration``.
    case codeRegistration
    /// ``OneTimeCodeSignIn``.
    case oneTimeCodeSignIn
    /// ``PasswordSignIn``.
    case passwordSignIn
    /// ``Registration``.
    case registration
    /// ``SessionLifecycle``.
    case session
    /// ``SessionLifecycle`` with ``RefreshPolicy/rotating(margin:retryLimit:backoff:)`` (or
    /// ``RefreshPolicy/rotatingWhenGranted(margin:retryLimit:backoff:)``).
    case rotatingRefresh
    /// ``SessionLifecycle``'s `logout`.
    case logout
    /// ``PasswordReset``.
    case passwordReset
    /// ``SessionLifecycle``'s `setPassword` in `passwordSetupRequired`.
    case passwordSetup
    /// ``SessionLifecycle``'s `changePassword`.
    case changePassword
    /// ``SessionLifecycle``'s `passwordChangeRequired`.
    case passwordChangeRequired
    /// ``OAuthSignIn``.
    case oauthSignIn
    /// ``RealtimeConnection``.
    case realtimeConnection
    /// ``OpenIDSignIn``.
    case openIDSignIn
    /// ``DeviceSignIn``.
    case deviceSignIn
}

/// Anonymous Wall's app: code registration, password sign-in, code sign-in and reset with
/// auto-login, handing over to a session without refresh that may demand a first password.
public typealias AnonymousWallApp = Handover<
    OneOf<CodeRegistration, OneOf<PasswordSignIn, OneOf<OneTimeCodeSignIn, PasswordReset>>>, SessionLifecycle
>
/// VynqTalk's app: signup or login, then a session without refresh plus the realtime connection.
public typealias VynqTalkApp = Handover<OneOf<Registration, PasswordSignIn>, SessionWithRealtime>
/// Everday's app: approval-gated registration, username sign-in, reset by token; rotating refresh.
public typealias EverdayApp = Handover<OneOf<Registration, OneOf<PasswordSignIn, PasswordReset>>, SessionLifecycle>
/// Subspace's app: registration with a session at once, sign-in by password or natively (Apple,
/// Google); a 24 h token restored with `/auth/me`, refreshed (rotating) when the server granted a
/// refresh token.
public typealias SubspaceApp = Handover<OneOf<Registration, OneOf<PasswordSignIn, OAuthSignIn>>, SessionLifecycle>
/// Hero365's app: email/phone sign-up and sign-in, phone OTP, OAuth, recovery; rotating refresh.
public typealias Hero365App = Handover<
    OneOf<Registration, OneOf<PasswordSignIn, OneOf<OneTimeCodeSignIn, OneOf<OAuthSignIn, PasswordReset>>>>, SessionLifecycle
>

/// The app of a server of one's own that signs in with a password and keeps a session: the
/// smallest composition there is.
public typealias PasswordSessionApp = Handover<PasswordSignIn, SessionLifecycle>

/// The per-backend app machines, configured as each backend's API document describes it.
public enum Apps {
    /// Password sign-in handing over to a session kept as `policy` says, for a server of one's own
    /// (its contract says how each request goes over HTTP).
    public static func passwordSession(identifiers: PasswordSignIn.IdentifierKind, policy: SessionPolicy) -> PasswordSessionApp {
        Handover(entry: PasswordSignIn(identifiers: identifiers), session: SessionLifecycle(policy: policy))
    }

    /// Anonymous Wall, as its API document describes it (`Fixtures/anonymousWall/README.md`).
    public static func anonymousWall(codeCooldown: Interval = .seconds(60)) -> AnonymousWallApp {
        Handover(
            entry: OneOf(
                CodeRegistration(resendCooldown: codeCooldown),
                OneOf(
                    PasswordSignIn(identifiers: .email),
                    OneOf(
                        OneTimeCodeSignIn(channel: .email, resendCooldown: codeCooldown),
                        PasswordReset(style: .emailCodeWithAutoLogin, resendCooldown: codeCooldown)))),
            session: SessionLifecycle(
                policy: SessionPolicy(
                    refresh: .none, restore: .trustStored, supportsPasswordSetup: true, supportsPasswordChange: true)))
    }

    /// VynqTalk, as its API document describes it (`Fixtures/vynqTalk/README.md`).
    public static func vynqTalk(connection: RealtimeConnection = RealtimeConnection()) -> VynqTalkApp {
        Handover(
            entry: OneOf(Registration(forms: [.nameEmailPassword]), PasswordSignIn(identifiers: .email)),
            session: SessionWithRealtime(
                // Stored credentials are checked at launch (`GET /users/me`), as a flapping connection
                // is: 401 or 403 ends the session, a user confirms it, no answer keeps it offline.
                session: SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .fetchCurrentUser, forbiddenEndsSession: true)),
                connection: connection))
    }

    /// Everday, as its API document describes it (`Fixtures/everday/README.md`), with what its
    /// deployed server adds: the password change and, unless `accountDeletion` is `false`, the
    /// account deletion.
    public static func everday(
        refresh: RefreshPolicy = .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)), serverSignOutAttempts: Int = 3,
        accountDeletion: Bool = true
    ) -> EverdayApp {
        Handover(
            entry: OneOf(
                Registration(forms: [.usernamePassword]),
                OneOf(PasswordSignIn(identifiers: .username), PasswordReset(style: .emailedToken))),
            session: SessionLifecycle(
                // Everday's document shows `RequirePasswordChange` but no endpoint to act on it; its
                // deployed server changes a password at `/auth/change-password` and revokes every
                // refresh token of the user when it does, so a change ends the session cleanly.
                policy: SessionPolicy(
                    refresh: refresh, restore: .refresh, revokesOnLogout: true, supportsPasswordChange: true,
                    passwordChangeEndsSessions: true, supportsAccountDeletion: accountDeletion, serverSignOutAttempts: serverSignOutAttempts)))
    }

    /// Subspace, as its API document and its deployed server describe it
    /// (`Fixtures/subspace/README.md`): the document's grant carries no refresh token
    /// and the session ends with its 24 h token; the deployed server's carries one and
    /// `/auth/refresh` rotates it, so the session refreshes as the other rotating backends do.
    /// `refresh` decides per session by what was granted (``RefreshPolicy/rotatingWhenGranted(margin:retryLimit:backoff:)``).
    /// The deployed server also signs in natively with Apple and Google (`/auth/apple`,
    /// `/auth/google`): an ``OAuthSignIn`` with no browser provider, only native ones.
    public static func subspace(
        refresh: RefreshPolicy = .rotatingWhenGranted(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2))
    ) -> SubspaceApp {
        Handover(
            entry: OneOf(
                Registration(forms: [.nameEmailPassword]),
                OneOf(PasswordSignIn(identifiers: .email), OAuthSignIn(providers: [], nativeProviders: [.apple, .google]))),
            session: SessionLifecycle(policy: SessionPolicy(refresh: refresh, restore: .fetchCurrentUser)))
    }

    /// Hero365, as its API document describes it (`Fixtures/hero365/README.md`), logout ending the
    /// server session at its deployed server's `/revoke-tokens/{user_id}`.
    public static func hero365(
        otp: OneTimeCodeSignIn = OneTimeCodeSignIn(channel: .phone),
        refresh: RefreshPolicy = .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2))
    ) -> Hero365App {
        Handover(
            entry: OneOf(
                Registration(forms: [.emailPassword, .phonePassword]),
                OneOf(
                    PasswordSignIn(identifiers: .emailOrPhone),
                    OneOf(otp, OneOf(OAuthSignIn(), PasswordReset(style: .emailLink))))),
            // The document's `/auth/signout` ends nothing on the server; its deployed server's
            // `/revoke-tokens/{user_id}` (Supabase's global sign-out) revokes every refresh token of
            // the user, so logout ends the server session, on every device, in the background. An owed
            // revocation waits for a launch with no session: it would end a new session of the user too.
            session: SessionLifecycle(
                policy: SessionPolicy(refresh: refresh, restore: .fetchCurrentUser, revokesOnLogout: true, revocationEndsEverySession: true)))
    }
}
