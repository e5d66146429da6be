@testable import AuthCore

/// Fixed sample values, so tables read as behaviour rather than literals.
enum Samples {
    // MARK: Time

    /// The moment every scenario starts.
    static let t0 = Instant.seconds(1_000_000)

    /// `seconds` after ``t0``.
    static func at(_ seconds: Int64) -> Instant { t0 + .seconds(seconds) }

    // MARK: Identifiers

    static let emailText = "ann@example.com"
    static let email = valid(Email.validate(emailText))
    static let otherEmailText = "bob@example.com"
    static let otherEmail = valid(Email.validate(otherEmailText))
    static let badEmailText = "ann.example.com"

    static let phoneText = "+1 (234) 567-8900"
    static let phone = valid(PhoneNumber.validate(phoneText))
    static let otherPhoneText = "+44 20 7946 0958"
    static let otherPhone = valid(PhoneNumber.validate(otherPhoneText))
    static let badPhoneText = "234-567-8900"

    static let usernameText = "newkid"
    static let username = valid(Username.validate(usernameText))

    static let nameText = "Ann Example"
    static let name = valid(PersonName.validate(nameText))

    // MARK: Typed secrets

    static let passwordInput = PasswordInput("correct horse")
    static let password = valid(Password.validate(passwordInput))
    static let newPasswordInput = PasswordInput("battery staple")
    static let newPassword = valid(Password.validate(newPasswordInput))
    static let shortPasswordInput = PasswordInput("1234567")

    static let codeInput = CodeInput("123456")
    static let code = valid(VerificationCode.validate(codeInput))
    static let badCodeInput = CodeInput("12a456")

    static let resetTokenInput = ResetToken("reset-token-1")
    static let resetProof = valid(ResetProof.validate(resetTokenInput))

    // MARK: Issued secrets

    static let access1 = AccessToken("access-1")
    static let access2 = AccessToken("access-2")
    static let access3 = AccessToken("access-3")
    static let refresh1 = RefreshToken("refresh-1")
    static let refresh2 = RefreshToken("refresh-2")

    // MARK: Users, grants, credentials

    static let userID = "u-1"
    static let user = UserProfile(id: userID, email: emailText)
    static let userPasswordUnset = UserProfile(id: userID, email: emailText, passwordSet: false)
    static let userPasswordSet = UserProfile(id: userID, email: emailText, passwordSet: true)

    /// A session token lifetime long enough that nothing is due soon.
    static let lifetime = Interval.seconds(1800)

    /// A grant without refresh or expiry (Anonymous Wall, VynqTalk).
    static let plainGrant = Grant(accessToken: access1, user: user)
    /// Anonymous Wall's answer after code registration: `passwordSet: false`.
    static let passwordUnsetGrant = Grant(accessToken: access1, user: userPasswordUnset)
    /// A rotating grant (Everday, Hero365).
    static let rotatingGrant = Grant(accessToken: access1, refreshToken: refresh1, expiry: .after(lifetime), user: user)
    /// Everday's `RequirePasswordChange: true`.
    static let passwordChangeGrant = Grant(
        accessToken: access1, refreshToken: refresh1, expiry: .after(lifetime), user: user, requiresPasswordChange: true)

    /// Credentials without refresh or expiry.
    static let plainCredentials = Credentials(accessToken: access1, user: user)
    /// Credentials with the password not yet set.
    static let passwordUnsetCredentials = Credentials(accessToken: access1, user: userPasswordUnset)
    /// Rotating credentials granted at `t0` for `lifetime`.
    static let rotatingCredentials = Credentials(
        accessToken: access1, refreshToken: refresh1, expiresAt: t0 + lifetime, lifetime: lifetime, user: user)
    /// Credentials without refresh granted at `t0` for `lifetime` (Subspace's 24 h JWT, shortened).
    static let expiringCredentials = Credentials(accessToken: access1, expiresAt: t0 + lifetime, lifetime: lifetime, user: user)

    static let bearer = Bearer(token: access1, userID: userID)
    static let bearer2 = Bearer(token: access2, userID: userID)

    /// The intent every table row sends (a row sends one).
    static let intent = IntentID(1)
    /// The intent a row's phase already waits for (the request it sent is in flight).
    static let pending = IntentID(9)
    static let call1 = IntentID(101)
    static let call2 = IntentID(102)

    /// A refresh answer carrying a rotated pair.
    static let rotated = TokenRefresh(accessToken: access2, refreshToken: refresh2, expiry: .after(lifetime))
    /// A refresh answer carrying no refresh token: keep the old one.
    static let accessOnly = TokenRefresh(accessToken: access2, refreshToken: nil, expiry: .after(lifetime))

    // MARK: Requests

    static func r(_ n: UInt64) -> RequestID { RequestID(n) }

    /// A request id nobody waits for.
    static let staleID = RequestID(99)
}

/// The value of a validation expected to succeed.
func valid<Value>(_ result: Result<Value, ValidationError>) -> Value {
    switch result {
    case .success(let value): return value
    case .failure(let error): preconditionFailure("sample failed validation: \(error)")
    }
}

extension Lifecycle {
    /// This composition's phase with the flow whose phase `leaf` is active there: tests start a
    /// composition inside a flow without spelling its nesting.
    func at<Leaf: Sendable>(_ leaf: Leaf) -> Phase {
        guard let phase = embed(leaf) else { preconditionFailure("no flow of \(Self.self) has phases of type \(Leaf.self)") }
        return phase
    }

    /// This composition's intent for a flow's `leaf` intent, routed by its type.
    func intent<Leaf: Sendable>(_ leaf: Leaf) -> Intent {
        guard let intent = route(leaf) else { preconditionFailure("no flow of \(Self.self) takes \(Leaf.self)") }
        return intent
    }
}
