/// What an email code is for (Anonymous Wall `purpose`).
public enum CodePurpose: String, Hashable, Sendable, CaseIterable {
    /// `register`.
    case register
    /// `login`.
    case login
    /// `reset_password`.
    case resetPassword = "reset_password"
}

/// How a user names their account when signing in with a password.
public enum SignInIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// By email (Anonymous Wall, Subspace, VynqTalk, Hero365).
    case email(Email)
    /// By username (Everday).
    case username(Username)
    /// By phone (Hero365 `/auth/signin/phone`).
    case phone(PhoneNumber)

    /// The identifier (not a secret).
    public var description: String {
        switch self {
        case .email(let email): "email(\(email))"
        case .username(let username): "username(\(username))"
        case .phone(let phone): "phone(\(phone))"
        }
    }
}

/// A validated registration form. Which fields are required depends on the backend's form.
public struct RegistrationDetails: Hashable, Sendable, CustomStringConvertible {
    /// How the account is named.
    public var identifier: SignInIdentifier
    /// The chosen password.
    public var password: Password
    /// A display name (Subspace and VynqTalk require one; Hero365 `full_name` is optional).
    public var name: PersonName?
    /// A contact email in addition to a username (Everday `Email`).
    public var email: Email?
    /// A Discord handle (Everday `DiscordHandle`, optional), trimmed and non-empty.
    public var discordHandle: String?

    /// Creates registration details.
    public init(
        identifier: SignInIdentifier, password: Password, name: PersonName? = nil, email: Email? = nil, discordHandle: String? = nil
    ) {
        self.identifier = identifier
        self.password = password
        self.name = name
        self.email = email
        self.discordHandle = discordHandle
    }

    /// `registration(email(…), password: ‹password›)`: how the account is named, and the password
    /// only as its kind. The display name, the contact email and the Discord handle are left out.
    public var description: String { "registration(\(identifier), password: \(password))" }
}

/// Whom a password reset is for.
public enum ResetIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// An email (Anonymous Wall `/password/reset-request`, Hero365 `/password-recovery`).
    case email(Email)
    /// A username or an email, as typed (Everday `/auth/forgot` `Identifier`).
    case usernameOrEmail(String)

    /// The identifier (not a secret).
    public var description: String {
        switch self {
        case .email(let email): "email(\(email))"
        case .usernameOrEmail(let identifier): "identifier(\(identifier))"
        }
    }
}

/// The proof that completes a reset.
public enum ResetCompletion: Hashable, Sendable, CustomStringConvertible {
    /// An emailed code for this address (Anonymous Wall `/password/reset`).
    case emailCode(Email, VerificationCode)
    /// An emailed token (Everday `/auth/reset-password`).
    case token(ResetProof)

    /// `emailCode(<email>, ‹code›)` or `token(‹reset token›)`: the address, and the code or token
    /// only as its kind.
    public var description: String {
        switch self {
        case .emailCode(let email, let code): "emailCode(\(email), \(code))"
        case .token(let token): "token(\(token))"
        }
    }
}

/// An OAuth provider Hero365 documents for `/oauth/{provider}`.
public enum OAuthProvider: String, Hashable, Sendable, CaseIterable {
    /// `google`.
    case google
    /// `apple`.
    case apple
    /// `github`.
    case github
}

/// Native sign-in: what a provider's SDK gave the app, sent to the server instead of a browser
/// round trip (Hero365's deployed `POST /auth/apple/signin` and `/auth/google/signin`, Subspace's
/// deployed `POST /auth/apple` and `/auth/google`).
///
/// Apple gives the user's name and email only at the *first* authorization of the app: they are
/// carried here so the server can keep them, and are `nil` on every later sign-in.
public struct NativeSignIn: Hashable, Sendable, CustomStringConvertible {
    /// The provider that issued the token.
    public var provider: OAuthProvider
    /// The provider's identity token (`id_token`); a secret.
    public var identityToken: IdentityToken
    /// Apple's stable user identifier (`ASAuthorizationAppleIDCredential.user`), which Hero365's
    /// Apple endpoint requires beside the token; `nil` for Google.
    public var userIdentifier: String?
    /// Apple's one-time `authorizationCode` (Subspace's `authorizationCode`), when the app has it;
    /// a secret.
    public var authorizationCode: AuthorizationCode?
    /// The given name the user shared (Apple's `fullName.givenName`, first authorization only).
    public var givenName: String?
    /// The family name the user shared (Apple's `fullName.familyName`, first authorization only).
    public var familyName: String?
    /// The email the user shared (Apple's `email`, first authorization only; possibly a private
    /// relay address), as the SDK gave it.
    public var email: String?

    /// Creates native sign-in details.
    public init(
        provider: OAuthProvider, identityToken: IdentityToken, userIdentifier: String? = nil, authorizationCode: AuthorizationCode? = nil,
        givenName: String? = nil, familyName: String? = nil, email: String? = nil
    ) {
        self.provider = provider
        self.identityToken = identityToken
        self.userIdentifier = userIdentifier
        self.authorizationCode = authorizationCode
        self.givenName = givenName
        self.familyName = familyName
        self.email = email
    }

    /// The shared name as one string, given name first (Hero365's `full_name`); `nil` when the
    /// user shared none.
    public var fullName: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `apple, ‹identity token›` (and `‹authorization code›` when there is one): the secrets
    /// redacted; the user identifier, the name and the email left out.
    public var description: String {
        "\(provider.rawValue), \(identityToken)" + (authorizationCode.map { ", \($0)" } ?? "")
    }
}

extension OAuthProvider: CustomStringConvertible {
    /// The provider's name, `google`, without the module-qualified type a payload would print.
    public var description: String { rawValue }
}

/// The token and user a protected request is sent with (`Authorization: Bearer`, and
/// Anonymous Wall's `X-User-Id`).
public struct Bearer: Hashable, Sendable, CustomStringConvertible {
    /// The access token.
    public var token: AccessToken
    /// The user id, for backends that want it in a header.
    public var userID: String

    /// Creates a bearer.
    public init(token: AccessToken, userID: String) {
        self.token = token
        self.userID = userID
    }

    /// `bearer(‹access token›, user: u1)`: the token only as its kind, and the user's id.
    public var description: String { "bearer(\(token), user: \(userID))" }
}

/// A request the reducer asks the runner to send, independent of any backend. A backend
/// contract maps each case to the HTTP its API documents, or declares it unsupported.
public enum APIRequest: Hashable, Sendable, CustomStringConvertible {
    /// Email a code (Anonymous Wall `/auth/email/send-code`).
    case sendEmailCode(Email, CodePurpose)
    /// Register with an emailed code (Anonymous Wall `/auth/register/email`).
    case registerWithEmailCode(Email, VerificationCode)
    /// Sign in with an emailed code (Anonymous Wall `/auth/login/email`).
    case signInWithEmailCode(Email, VerificationCode)
    /// Text a one-time code (Hero365 `/auth/otp/send`).
    case sendPhoneCode(PhoneNumber)
    /// Sign in with a texted code (Hero365 `/auth/otp/verify`).
    case signInWithPhoneCode(PhoneNumber, VerificationCode)
    /// Sign in with a password.
    case signIn(SignInIdentifier, Password)
    /// Create an account.
    case register(RegistrationDetails)
    /// Start a password reset.
    case requestPasswordReset(ResetIdentifier)
    /// Complete a password reset.
    case resetPassword(ResetCompletion, newPassword: Password)
    /// Set the first password (Anonymous Wall `/auth/password/set`).
    case setPassword(Password, Bearer)
    /// Change the password (Anonymous Wall `/auth/password/change`).
    case changePassword(old: Password, new: Password, Bearer)
    /// Fetch the provider's authorization URL (Hero365 `/auth/oauth/{provider}`).
    case oauthURL(OAuthProvider)
    /// Sign in with a provider's identity token (Hero365's deployed `/auth/{provider}/signin`).
    case signInNatively(NativeSignIn)
    /// Exchange an authorization code and its PKCE verifier for tokens (OpenID Connect's token
    /// endpoint, `grant_type=authorization_code`; RFC 6749 §4.1.3, RFC 7636 §4.5).
    case exchangeCode(CodeExchange)
    /// Ask the device authorization endpoint for a device code and a user code (RFC 8628 §3.1);
    /// the contract adds the `client_id` and the scopes.
    case requestDeviceCode
    /// Poll the token endpoint with the device code (`grant_type=urn:ietf:params:oauth:grant-type:device_code`,
    /// RFC 8628 §3.4); the contract adds the `client_id`.
    case pollDeviceToken(DeviceCode)
    /// Exchange a refresh token for a new pair (Everday, Hero365 `/auth/refresh`).
    case refresh(RefreshToken)
    /// Fetch the signed-in user (Subspace `/auth/me`, Hero365 `/users/me`).
    case currentUser(Bearer)
    /// Revoke the refresh token (Everday `/auth/logout`). Best effort: its answer changes nothing.
    case revoke(RefreshToken, Bearer)
    /// Delete the signed-in user's account and what it owns (Everday's deployed `DELETE
    /// /auth/account`); the server ends every session of the account with it.
    case deleteAccount(Bearer)
    /// One of the app's own protected calls, sent with this bearer.
    case protected(IntentID, Bearer)
    /// Open the realtime connection (VynqTalk `ws://…/ws?token=`).
    case openRealtime(AccessToken)

    /// The server endpoint the request goes to, as far as the server's rate limits go; `nil` for
    /// the app's own protected calls and the realtime connection.
    public var endpoint: ServerEndpoint? {
        switch self {
        case .sendEmailCode: .sendEmailCode
        case .registerWithEmailCode: .registerWithEmailCode
        case .signInWithEmailCode: .signInWithEmailCode
        case .sendPhoneCode: .sendPhoneCode
        case .signInWithPhoneCode: .signInWithPhoneCode
        case .signIn: .signIn
        case .register: .register
        case .requestPasswordReset: .requestPasswordReset
        case .resetPassword: .resetPassword
        case .setPassword: .setPassword
        case .changePassword: .changePassword
        case .oauthURL: .oauthURL
        case .signInNatively: .signInNatively
        case .exchangeCode: .exchangeCode
        case .requestDeviceCode: .requestDeviceCode
        case .pollDeviceToken: .pollDeviceToken
        case .refresh: .refresh
        case .currentUser: .currentUser
        case .revoke: .revoke
        case .deleteAccount: .deleteAccount
        case .protected, .openRealtime: nil
        }
    }

    /// The case with its non-secret arguments: emails, phone numbers, usernames, code purposes,
    /// providers and ids as they are; passwords, codes and tokens only as their kind (`‹password›`,
    /// `‹refresh token›`); a registration and a native sign-in as they print themselves (no name or
    /// user identifier).
    public var description: String {
        switch self {
        case .sendEmailCode(let email, let purpose): "sendEmailCode(\(email), \(purpose.rawValue))"
        case .registerWithEmailCode(let email, let code): "registerWithEmailCode(\(email), \(code))"
        case .signInWithEmailCode(let email, let code): "signInWithEmailCode(\(email), \(code))"
        case .sendPhoneCode(let phone): "sendPhoneCode(\(phone))"
        case .signInWithPhoneCode(let phone, let code): "signInWithPhoneCode(\(phone), \(code))"
        case .signIn(let identifier, let password): "signIn(\(identifier), \(password))"
        case .register(let details): "register(\(details))"
        case .requestPasswordReset(let identifier): "requestPasswordReset(\(identifier))"
        case .resetPassword(let completion, let password): "resetPassword(\(completion), \(password))"
        case .setPassword(let password, let bearer): "setPassword(\(password), \(bearer))"
        case .changePassword(let old, let new, let bearer): "changePassword(\(old), \(new), \(bearer))"
        case .oauthURL(let provider): "oauthURL(\(provider.rawValue))"
        case .signInNatively(let details): "signInNatively(\(details))"
        case .exchangeCode(let exchange): "exchangeCode(\(exchange))"
        case .requestDeviceCode: "requestDeviceCode"
        case .pollDeviceToken(let code): "pollDeviceToken(\(code))"
        case .refresh(let token): "refresh(\(token))"
        case .currentUser(let bearer): "currentUser(\(bearer))"
        case .revoke(let token, let bearer): "revoke(\(token), \(bearer))"
        case .deleteAccount(let bearer): "deleteAccount(\(bearer))"
        case .protected(let call, let bearer): "protected(\(call), \(bearer))"
        case .openRealtime(let token): "openRealtime(\(token))"
        }
    }
}

/// A server endpoint AuthCore calls, named by what it does (the backends' paths differ).
public enum ServerEndpoint: String, Hashable, Sendable, CaseIterable {
    /// Send an email code.
    case sendEmailCode
    /// Register with an email code.
    case registerWithEmailCode
    /// Sign in with an email code.
    case signInWithEmailCode
    /// Send an SMS code.
    case sendPhoneCode
    /// Sign in with an SMS code.
    case signInWithPhoneCode
    /// Sign in with a password.
    case signIn
    /// Register.
    case register
    /// Ask for a password reset.
    case requestPasswordReset
    /// Complete a password reset.
    case resetPassword
    /// Set the first password.
    case setPassword
    /// Change the password.
    case changePassword
    /// Ask for an OAuth provider's URL.
    case oauthURL
    /// Sign in with a provider's identity token.
    case signInNatively
    /// Exchange an authorization code for tokens.
    case exchangeCode
    /// Ask for a device code.
    case requestDeviceCode
    /// Poll for the tokens of a device sign-in.
    case pollDeviceToken
    /// Refresh the tokens.
    case refresh
    /// Ask who the token belongs to.
    case currentUser
    /// Revoke a refresh token (sign out on the server).
    case revoke
    /// Delete the account.
    case deleteAccount
}
