import AuthCore
import AuthVerification

/// A small model for every machine with one intent type: the real lifecycle and its mutants are
/// explored under exactly the same model.
protocol SmallModel: Sendable {
    /// What the user can do in the machines this model explores.
    associatedtype Intent: CaseListing
    /// The model's name (the original's, in reports).
    var name: String { get }
    /// The model around `machine`.
    func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == Intent
}

/// The models the mutants are explored under: the shipped lifecycles' configurations with fewer
/// answers, so that in a debug build a mutant explores a few events past its violation in well
/// under a second, and its original to closure in well under a minute. A ``Remembering``
/// mutant's signed-in case path is in parentheses, so the final cases name both forms.
enum SmallModels {
    /// A sign-in handing over to a session.
    typealias SignInSession = Handover<PasswordSignIn, SessionLifecycle>
    /// What the user can do in a ``SignInSession``.
    typealias SessionIntent = AppIntent<PasswordSignIn.Intent, SessionLifecycle.Intent>

    /// Everday's rotating session (username sign-in, refresh on launch, revoke at logout, a
    /// password change the server may demand) with a retry backoff longer than the margin, so a
    /// retried refresh can outlive the token (60 s margin, 90 s backoff, 120 s lifetime). A
    /// server sign-out gets one send per round and two rounds, the fewest the policy allows: each
    /// more multiplies the states (Everday's three sends, with two rounds, take the model from
    /// 4,257 states to 14,504; with three rounds, to 82,254, two minutes of a debug build).
    static let rotating = rotating()

    /// ``rotating`` with its options: a password change the server ends every session at
    /// (`changesPassword`), `signOutAttempts` sends a round, `revocationRounds` rounds, and a
    /// revocation that ends every session of the user (`revocationEndsEverySession`, Hero365's).
    static func rotating(
        changesPassword: Bool = false, signOutAttempts: Int = 1, revocationRounds: Int = 2, revocationEndsEverySession: Bool = false
    ) -> SignInSession {
        SignInSession(
            entry: PasswordSignIn(identifiers: .username),
            session: SessionLifecycle(
                policy: SessionPolicy(
                    refresh: .rotating(margin: .seconds(60), retryLimit: 2, backoff: .seconds(90)), restore: .refresh,
                    revokesOnLogout: true, supportsPasswordChange: changesPassword, passwordChangeEndsSessions: changesPassword,
                    serverSignOutAttempts: signOutAttempts, revocationRounds: revocationRounds,
                    revocationEndsEverySession: revocationEndsEverySession)))
    }

    /// ``rotating`` with Everday's deployed password change: a change the server accepts ends
    /// every session of the user, so the session ends cleanly.
    static let changing = rotating(changesPassword: true)

    /// Hero365's rotating session, restored at launch by asking who the token belongs to, with
    /// Everday's account deletion.
    static let restoringByUser = SignInSession(
        entry: PasswordSignIn(identifiers: .email),
        session: SessionLifecycle(
            policy: SessionPolicy(
                refresh: .rotating(margin: .seconds(60), retryLimit: 2, backoff: .seconds(90)), restore: .fetchCurrentUser,
                supportsAccountDeletion: true)))

    /// ``rotating``, named for the owed-revocation mutants: its server sign-out gets one send a
    /// round, so a logout that cannot reach the server owes its revocation at once, and the next
    /// launch, logout or sign-in tries it again (two rounds in all).
    static let owing = rotating

    /// ``owing`` with two sends a round: a lost request is sent once more before the round fails.
    static let retrying = rotating(signOutAttempts: 2)

    /// ``retrying`` whose revocation ends every session of the user (Hero365's): a round under
    /// way when the user signs in again must send nothing more.
    static let endingEverySession = rotating(signOutAttempts: 2, revocationEndsEverySession: true)

    /// A session without refresh whose token expiry is known (Subspace's), with Anonymous Wall's
    /// password steps (a grant may say the password is not set yet).
    static let plain = SignInSession(
        entry: PasswordSignIn(identifiers: .email),
        session: SessionLifecycle(
            policy: SessionPolicy(refresh: .none, restore: .trustStored, supportsPasswordSetup: true, supportsPasswordChange: true)))

    /// The session lifecycle alone, without a sign-in in front: it can only be signed out, which
    /// is enough for a logout to have to clear the vault.
    static let bareSession = SessionLifecycle(policy: SessionPolicy(refresh: .none, restore: .trustStored))

    /// Hero365's phone code sign-in, as shipped: 30 s cooldown, 300 s lifetime, 3 attempts.
    static let oneTimeCode = OneTimeCodeSignIn(channel: .phone, resendCooldown: .seconds(30), codeLifetime: .seconds(300), maxAttempts: 3)

    /// Everday's password sign-in.
    static let passwordSignIn = PasswordSignIn(identifiers: .username)

    /// Anonymous Wall's code registration, as shipped.
    static let codeRegistration = CodeRegistration(resendCooldown: .seconds(60))

    /// A password reset in `style`, as shipped.
    static func passwordReset(_ style: PasswordReset.Style) -> PasswordReset { PasswordReset(style: style, resendCooldown: .seconds(60)) }

    /// Cases the small session models leave out on purpose.
    static let sessionUnreachable = [
        "PasswordSignIn.Phase.rateLimited": "no 429 in the small models", "SessionLifecycle.Phase.restoring": "no relaunch",
    ]

    /// Cases ``rotating``'s model leaves out.
    static let rotatingUnreachable = sessionUnreachable.merging([
        "PasswordSignIn.Phase.pendingApproval": "no pending approval in this model",
        "SessionLifecycle.Phase.passwordSetupRequired": "Everday never asks to set a password",
    ]) { $1 }

    /// Cases ``plain``'s model leaves out.
    static let plainUnreachable = sessionUnreachable.merging([
        "SessionLifecycle.Refresh.refreshing": "no refresh token", "SessionLifecycle.Refresh.backingOff": "idem",
        "SessionLifecycle.Refresh.offline": "idem", "SessionLifecycle.Phase.passwordChangeRequired": "never demanded",
    ]) { $1 }

    /// ``rotating``'s model: grants with a refresh token, with or without a demanded password
    /// change; one definitive and one transient failure; one caller.
    struct RotatingSession: SmallModel {
        typealias Intent = SessionIntent
        /// What a refresh (or restore) may fail with.
        var failures: [AuthFailure] = [.unauthorized(nil), .network]
        var name: String { failures == [.unauthorized(nil), .network] ? "session.rotating" : "session.rotating with \(failures)" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var replies = ReplyCatalogue(
                grants: [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)],
                accessLifetime: Models.tokenLifetime)
            replies.failures = failures
            replies.callFailures = [.unauthorized(nil)]
            return Model(
                name: name, machine: machine, replies: replies, unreachableByDesign: rotatingUnreachable, timeHorizon: .zero,
                endsServerSessions: true
            ) { snapshot in
                [.entry(.submit(identifier: Inputs.username, password: Inputs.password)), .entry(.startOver)]
                    + Menus.session(in: snapshot, callers: 1).map { .session($0) }
            }
        }
    }

    /// ``owing``'s model: ``RotatingSession``'s, with relaunches (what the vault owes outlives the
    /// process) and the password-change grant left out.
    struct OwingSession: SmallModel {
        typealias Intent = SessionIntent
        var name: String { "session.owing" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var replies = ReplyCatalogue(grants: [.init(withRefreshToken: true)], accessLifetime: Models.tokenLifetime)
            replies.failures = [.unauthorized(nil), .network]
            replies.callFailures = [.unauthorized(nil)]
            let unreachable = rotatingUnreachable.filter { $0.key != "SessionLifecycle.Phase.restoring" }.merging([
                "SessionLifecycle.Phase.passwordChangeRequired": "never demanded"
            ]) { $1 }
            return Model(
                name: name, machine: machine, replies: replies, relaunches: true, unreachableByDesign: unreachable, timeHorizon: .zero,
                maxInFlight: 2, maxStale: 1, endsServerSessions: true
            ) { snapshot in
                [.entry(.submit(identifier: Inputs.username, password: Inputs.password))]
                    + Menus.session(in: snapshot, callers: 1).map { .session($0) }
            }
        }
    }

    /// ``endingEverySession``'s model: ``OwingSession``'s without relaunches, told the server's
    /// revocation ends every session of the user and a round has two sends, with 2 answers left
    /// over, so the user can sign in again while the logout's revoke is under way.
    struct EndingEverySession: SmallModel {
        typealias Intent = SessionIntent
        var name: String { "session.endingEverySession" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var replies = ReplyCatalogue(grants: [.init(withRefreshToken: true)], accessLifetime: Models.tokenLifetime)
            replies.failures = [.unauthorized(nil), .network]
            replies.callFailures = [.unauthorized(nil)]
            replies.revocationEndsEverySession = true
            replies.revocationAttempts = 2
            let unreachable = rotatingUnreachable.merging(["SessionLifecycle.Phase.passwordChangeRequired": "never demanded"]) { $1 }
            return Model(
                name: name, machine: machine, replies: replies, unreachableByDesign: unreachable, timeHorizon: .zero, maxInFlight: 2,
                maxStale: 2, endsServerSessions: true
            ) { snapshot in
                [.entry(.submit(identifier: Inputs.username, password: Inputs.password))]
                    + Menus.session(in: snapshot, callers: 1).map { .session($0) }
            }
        }
    }

    /// ``changing``'s model: ``RotatingSession``'s, plus Everday's change-password answers (a
    /// wrong current password; every refresh token revoked when a change is accepted).
    struct ChangingSession: SmallModel {
        typealias Intent = SessionIntent
        var name: String { "session.changing" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var model = RotatingSession()(name, machine)
            model.replies.passwordStepFailures = [.incorrectPassword(nil)]
            model.replies.passwordChangeRevokesRefreshTokens = true
            model.replies.passwordStepAnswersUser = false
            return model
        }
    }

    /// ``restoringByUser``'s model: grants with a refresh token, relaunches (the launch check),
    /// one refusal and one transient failure.
    struct RestoringSession: SmallModel {
        typealias Intent = SessionIntent
        var name: String { "session.restoringByUser" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var replies = ReplyCatalogue(grants: [.init(withRefreshToken: true)], accessLifetime: Models.tokenLifetime)
            replies.failures = [.unauthorized(nil), .network]
            replies.callFailures = [.unauthorized(nil)]
            let unreachable = sessionUnreachable.filter { $0.key != "SessionLifecycle.Phase.restoring" }.merging([
                "PasswordSignIn.Phase.pendingApproval": "no pending approval in this model",
                "SessionLifecycle.Phase.passwordSetupRequired": "never demanded", "SessionLifecycle.Phase.passwordChangeRequired": "never demanded",
            ]) { $1 }
            return Model(
                name: name, machine: machine, replies: replies, relaunches: true, unreachableByDesign: unreachable, timeHorizon: .zero,
                maxInFlight: 2, maxStale: 1
            ) { snapshot in
                [.entry(.submit(identifier: Inputs.email, password: Inputs.password))] + Menus.session(in: snapshot, callers: 1).map { .session($0) }
            }
        }
    }

    /// ``plain``'s model: grants with the password unset or not said; a definitive failure,
    /// Everday's pending approval, a transient failure; one caller.
    struct PlainSession: SmallModel {
        typealias Intent = SessionIntent
        var name: String { "session.plain" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionIntent {
            var replies = ReplyCatalogue(grants: [.init(passwordSet: false), .init(passwordSet: nil)], accessLifetime: Models.tokenLifetime)
            replies.failures = [.unauthorized(nil), .pendingApproval(nil), .network]
            replies.callFailures = [.unauthorized(nil)]
            return Model(name: name, machine: machine, replies: replies, unreachableByDesign: plainUnreachable, timeHorizon: .zero) { snapshot in
                [.entry(.submit(identifier: Inputs.email, password: Inputs.password)), .entry(.startOver)]
                    + Menus.session(in: snapshot, callers: 1).map { .session($0) }
            }
        }
    }

    /// ``bareSession``'s model.
    struct BareSession: SmallModel {
        typealias Intent = SessionLifecycle.Intent
        var name: String { "session.bare" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == SessionLifecycle.Intent {
            let signedInCases = SessionLifecycle.Phase.declaredCases.filter { $0 != "signedOut" }
            return Model(
                name: name, machine: machine, replies: ReplyCatalogue(), finalCases: ["signedOut"],
                unreachableByDesign: Dictionary(uniqueKeysWithValues: signedInCases.map { ("SessionLifecycle.Phase.\($0)", "nothing signs in") }),
                timeHorizon: .zero
            ) { Menus.session(in: $0, callers: 1) }
        }
    }

    /// The shipped `passwordSignIn` model, or one with another `menu`.
    struct PasswordSignInModel: SmallModel {
        typealias Intent = PasswordSignIn.Intent
        var menu = Menus.passwordSignIn(.username)
        var name: String { menu == Menus.passwordSignIn(.username) ? "passwordSignIn" : "passwordSignIn with \(menu.count) intents" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == PasswordSignIn.Intent {
            Model(
                name: name, machine: machine,
                replies: ReplyCatalogue(grants: [.init(withRefreshToken: true), .init(requiresPasswordChange: true, withRefreshToken: true)]),
                finalCases: ["signedIn", "(signedIn)"], timeHorizon: .zero
            ) { [menu] _ in menu }
        }
    }

    /// The shipped `oneTimeCodeSignIn.phone` model.
    struct OneTimeCodeModel: SmallModel {
        typealias Intent = OneTimeCodeSignIn.Intent
        var name: String { "oneTimeCodeSignIn.phone" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == OneTimeCodeSignIn.Intent {
            let code = SmallModels.oneTimeCode
            let codes = CodeRules(cooldown: code.resendCooldown, lifetime: code.codeLifetime, maxAttempts: code.maxAttempts)
            return Model(
                name: name, machine: machine, replies: ReplyCatalogue(grants: [.init(withRefreshToken: true)]),
                finalCases: ["signedIn", "(signedIn)"], codes: codes, timeHorizon: .seconds(300)
            ) { _ in Menus.oneTimeCode(.phone) }
        }
    }

    /// The shipped `codeRegistration` model.
    struct CodeRegistrationModel: SmallModel {
        typealias Intent = CodeRegistration.Intent
        var name: String { "codeRegistration" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == CodeRegistration.Intent {
            Model(
                name: name, machine: machine, replies: ReplyCatalogue(grants: [.init(passwordSet: false)]), finalCases: ["registered"],
                codes: CodeRules(cooldown: SmallModels.codeRegistration.resendCooldown), timeHorizon: SmallModels.codeRegistration.resendCooldown
            ) { _ in
                Menus.codeRegistration
            }
        }
    }

    /// The shipped `passwordReset.*` model for `style`, with `extra` intents.
    struct PasswordResetModel: SmallModel {
        typealias Intent = PasswordReset.Intent
        var style: PasswordReset.Style
        var extra: [PasswordReset.Intent] = []
        var name: String { "passwordReset.\(style)\(extra.isEmpty ? "" : " + \(extra.count) edge inputs")" }
        /// The cases `style` cannot reach, as in the shipped models.
        var unreachable: [String: String] {
            switch style {
            case .emailCodeWithAutoLogin:
                ["PasswordReset.Phase.linkSent": "links are Hero365's", "PasswordReset.Phase.completed": "this reset signs in"]
            case .emailedToken:
                ["PasswordReset.Phase.linkSent": "links are Hero365's", "PasswordReset.Phase.signedIn": "Everday's reset does not sign in"]
            case .emailLink: [:]
            }
        }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == PasswordReset.Intent {
            Model(
                name: name, machine: machine, replies: ReplyCatalogue(grants: [.init(passwordSet: true), .init(passwordSet: nil)]),
                finalCases: ["signedIn"], unreachableByDesign: unreachable, codes: CodeRules(cooldown: .seconds(60)),
                timeHorizon: .seconds(60)
            ) { [style, extra] _ in
                Menus.passwordReset(style) + extra
            }
        }
    }
}

extension SmallModel where Self == SmallModels.RotatingSession {
    /// See ``SmallModels/RotatingSession``.
    static var rotatingSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.OwingSession {
    /// See ``SmallModels/OwingSession``.
    static var owingSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.EndingEverySession {
    /// See ``SmallModels/EndingEverySession``.
    static var endingEverySession: Self { Self() }
}

extension SmallModel where Self == SmallModels.ChangingSession {
    /// See ``SmallModels/ChangingSession``.
    static var changingSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.RestoringSession {
    /// See ``SmallModels/RestoringSession``.
    static var restoringSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.PlainSession {
    /// See ``SmallModels/PlainSession``.
    static var plainSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.BareSession {
    /// See ``SmallModels/BareSession``.
    static var bareSession: Self { Self() }
}

extension SmallModel where Self == SmallModels.PasswordSignInModel {
    /// See ``SmallModels/PasswordSignInModel``.
    static var passwordSignIn: Self { Self() }
}

extension SmallModel where Self == SmallModels.OneTimeCodeModel {
    /// See ``SmallModels/OneTimeCodeModel``.
    static var oneTimeCode: Self { Self() }
}

extension SmallModel where Self == SmallModels.CodeRegistrationModel {
    /// See ``SmallModels/CodeRegistrationModel``.
    static var codeRegistration: Self { Self() }
}

extension SmallModel where Self == SmallModels.PasswordResetModel {
    /// See ``SmallModels/PasswordResetModel``.
    static func passwordReset(_ style: PasswordReset.Style, extra: [PasswordReset.Intent] = []) -> Self { Self(style: style, extra: extra) }
}

extension SmallModels {
    /// The shipped `openIDSignIn` model.
    struct OpenIDSignInModel: SmallModel {
        typealias Intent = OpenIDSignIn.Intent
        var name: String { "openIDSignIn" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == OpenIDSignIn.Intent {
            var model = Model(
                name: name, machine: machine, replies: OpenIDModel.replies, finalCases: ["signedIn", "(signedIn)"], timeHorizon: .zero
            ) {
                OpenIDModel.intents(in: $0)
            }
            // What the shipped model adds from the flow's configuration (its provider and client).
            model.invariants.append(Catalogue.idTokenForThisClient(issuer: OpenIDModel.issuer, clientID: OpenIDModel.clientID))
            return model
        }
    }
}

extension SmallModel where Self == SmallModels.OpenIDSignInModel {
    /// See ``SmallModels/OpenIDSignInModel``.
    static var openIDSignIn: Self { Self() }
}

extension SmallModels {
    /// The shipped `deviceSignIn` model.
    struct DeviceSignInModel: SmallModel {
        typealias Intent = DeviceSignIn.Intent
        var name: String { "deviceSignIn" }
        func callAsFunction<M: Lifecycle>(_ name: String, _ machine: M) -> Model<M> where M.Intent == DeviceSignIn.Intent {
            var model = Model(
                name: name, machine: machine, replies: OpenIDModel.replies, finalCases: ["signedIn", "(signedIn)"], timeHorizon: .zero,
                historyHorizon: OpenIDModel.devicePollingHorizon
            ) { _ in OpenIDModel.deviceIntents }
            model.invariants.append(Catalogue.idTokenForThisClient(issuer: OpenIDModel.issuer, clientID: OpenIDModel.clientID))
            return model
        }
    }
}

extension SmallModel where Self == SmallModels.DeviceSignInModel {
    /// See ``SmallModels/DeviceSignInModel``.
    static var deviceSignIn: Self { Self() }
}
