/// Who is signed in, as the server described them. No secrets live here.
public struct UserProfile: Hashable, Sendable, CustomStringConvertible {
    /// The server's user id (Anonymous Wall's `X-User-Id`).
    public var id: String
    /// The email, when the server sent one.
    public var email: String?
    /// The phone, when the server sent one.
    public var phone: String?
    /// The display name or username, when the server sent one.
    public var name: String?
    /// Anonymous Wall's `passwordSet`: `false` means signed in with the password not yet set;
    /// `nil` (field absent) means the server did not say, which is *not* the same as `false`.
    public var passwordSet: Bool?
    /// Everday's `RequirePasswordChange`, kept with the profile so that it is persisted with the
    /// credentials: relaunching the app must not skip the change the server demanded.
    public var passwordChangeRequired: Bool
    /// The user's role, as the server spells it, when it sent one: Everday's `Role` (`.parent`,
    /// `.kid`), VynqTalk's `role`. An app routes its screens on it (`user.role == .parent`).
    public var role: UserRole?
    /// The server's other user fields, by the server's key (Hero365's `onboarding_completed`,
    /// VynqTalk's `status`, Everday's `DiscordHandle`…): what the contract read into no field
    /// above, passwords and tokens never kept. Empty when the server sent none.
    public var attributes: [String: UserAttribute]
    /// Whether the sign-in that described this user created the account, when its answer said
    /// (Hero365's native sign-in `is_new_user`): an app shows its onboarding on `true`. Only that
    /// answer says it: a profile stored in the vault, fetched again or renewed by a refresh says
    /// `nil`, which is not `false`.
    public var isNewUser: Bool?

    /// Creates a profile.
    public init(
        id: String, email: String? = nil, phone: String? = nil, name: String? = nil, passwordSet: Bool? = nil,
        passwordChangeRequired: Bool = false, role: UserRole? = nil, attributes: [String: UserAttribute] = [:], isNewUser: Bool? = nil
    ) {
        self.id = id
        self.email = email
        self.phone = phone
        self.name = name
        self.passwordSet = passwordSet
        self.passwordChangeRequired = passwordChangeRequired
        self.role = role
        self.attributes = attributes
        self.isNewUser = isNewUser
    }

    /// `user(<id>)`: nothing else, the attributes may hold personal data.
    public var description: String { "user(\(id))" }
}

/// When an access token stops working.
public enum TokenExpiry: Hashable, Sendable, CustomStringConvertible {
    /// The server said how long it lives (Everday `ExpiresIn`): the reducer computes the deadline
    /// from the answer's arrival time.
    case after(Interval)
    /// The token's JWT `exp` claim, read by the runtime (no signature check on the client).
    case at(Instant)
    /// Neither: rely on a 401 to learn it expired, never sign out by guesswork.
    case unknown

    /// The absolute deadline for a token received at `receivedAt`, if known.
    public func deadline(receivedAt: Instant) -> Instant? {
        switch self {
        case .after(let interval): receivedAt + interval
        case .at(let instant): instant
        case .unknown: nil
        }
    }

    /// The case and its value.
    public var description: String {
        switch self {
        case .after(let interval): "after(\(interval))"
        case .at(let instant): "at(\(instant))"
        case .unknown: "unknown"
        }
    }
}

/// A successful sign-in answer: what any login, registration with session, code verification,
/// OAuth callback or reset with auto-login gives back.
public struct Grant: Hashable, Sendable, CustomStringConvertible {
    /// The bearer token.
    public var accessToken: AccessToken
    /// The refresh token, for backends that rotate (Everday, Hero365).
    public var refreshToken: RefreshToken?
    /// When the access token expires.
    public var expiry: TokenExpiry
    /// The user.
    public var user: UserProfile
    /// Everday's `RequirePasswordChange`.
    public var requiresPasswordChange: Bool
    /// The claims of the ID token that came with the grant (OpenID Connect's token endpoint), for
    /// the sign-in flow to check before it accepts the grant; `nil` where none came. The session
    /// does not keep them.
    public var idToken: IDTokenClaims?

    /// Creates a grant.
    public init(
        accessToken: AccessToken, refreshToken: RefreshToken? = nil, expiry: TokenExpiry = .unknown,
        user: UserProfile, requiresPasswordChange: Bool = false, idToken: IDTokenClaims? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiry = expiry
        self.user = user
        self.requiresPasswordChange = requiresPasswordChange
        self.idToken = idToken
    }

    /// `grant(user(u1), access: ‹access token›, refresh: ‹refresh token›, expiry: …)`: the user by
    /// id, the tokens only as their kind (`none` without a refresh token) and the expiry. The
    /// user's email and name and whether a password change is required are left out.
    public var description: String {
        "grant(\(user), access: \(accessToken), refresh: \(refreshToken.map(\.description) ?? "none"), expiry: \(expiry))"
    }
}

/// What the vault holds for a signed-in user.
public struct Credentials: Hashable, Sendable, CustomStringConvertible {
    /// The bearer token.
    public var accessToken: AccessToken
    /// The refresh token, when the backend issues one.
    public var refreshToken: RefreshToken?
    /// When the access token expires, when known.
    public var expiresAt: Instant?
    /// How long the server let the access token live, from when the client received it to
    /// ``expiresAt``, when both are known (credentials stored by a version that did not record
    /// it have none). The refresh margin never exceeds half of it.
    public var lifetime: Interval?
    /// The signed-in user (non-secret profile data).
    public var user: UserProfile

    /// Creates credentials.
    public init(
        accessToken: AccessToken, refreshToken: RefreshToken? = nil, expiresAt: Instant? = nil, lifetime: Interval? = nil,
        user: UserProfile
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.lifetime = lifetime
        self.user = user
    }

    /// Credentials from a grant received at `receivedAt`.
    public init(_ grant: Grant, receivedAt: Instant) {
        let expiresAt = grant.expiry.deadline(receivedAt: receivedAt)
        self.init(
            accessToken: grant.accessToken, refreshToken: grant.refreshToken, expiresAt: expiresAt,
            lifetime: expiresAt.map { $0 - receivedAt }, user: grant.user)
    }

    /// `credentials(user(u1), access: ‹access token›, refresh: ‹refresh token›, expires: …)`: the
    /// user by id, the tokens only as their kind (`none` without a refresh token) and when the
    /// access token expires (`unknown` when not known). The user's email and name and the token's
    /// lifetime are left out.
    public var description: String {
        "credentials(\(user), access: \(accessToken), refresh: \(refreshToken.map(\.description) ?? "none"), expires: \(expiresAt.map(\.description) ?? "unknown"))"
    }
}

/// What the app found in its vault at launch.
///
/// Cases with large payloads are `indirect`: copying the value is then one reference count, not
/// a retain of every string inside it (reducers, the explorer and the fuzzer copy these values
/// on every step). Matching and equality are unchanged.
public enum StoredCredentials: Hashable, Sendable, CustomStringConvertible {
    /// Nothing stored.
    case none
    /// Stored credentials.
    indirect case stored(Credentials)
    /// The vault could not be read (locked device, corrupt file): *not* "no session" — nothing
    /// is deleted and the user is not signed out by it.
    case unreadable

    /// The case, redacted.
    public var description: String {
        switch self {
        case .none: "none"
        case .stored(let credentials): "stored(\(credentials))"
        case .unreadable: "unreadable"
        }
    }
}
