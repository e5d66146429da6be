import Foundation

/// Everything a test may want to change about the reference server; every field has a working default.
public struct Configuration: Sendable {
    /// How access tokens are minted for one backend.
    public struct TokenPolicy: Sendable {
        /// How long an access token is accepted.
        public var accessTokenLifetime: TimeInterval
        /// Whether the token's payload carries `exp`; `false` lets clients test "expiry unknown".
        /// The server still enforces `accessTokenLifetime` either way.
        public var includesExpiryClaim: Bool
        /// The claim the expiry is written under: `exp`, or VynqTalk's deployed `expiration`.
        public var expiryClaim = "exp"

        /// Creates a policy.
        public init(accessTokenLifetime: TimeInterval, includesExpiryClaim: Bool = true) {
            self.accessTokenLifetime = accessTokenLifetime
            self.includesExpiryClaim = includesExpiryClaim
        }
    }

    /// How Anonymous Wall renders `createdAt`.
    public enum DateStyle: Sendable, Hashable {
        /// `2026-01-30T15:17:41-08:00[America/Los_Angeles]`, as Anonymous Wall's API document shows (Java `ZonedDateTime`).
        case zonedWithRegion(timeZoneIdentifier: String)
        /// Plain ISO 8601 in UTC, `2026-01-30T23:17:41Z`.
        case iso8601
    }

    /// Anonymous Wall settings.
    public struct AnonymousWall: Sendable {
        /// Access-token policy (default 1 hour).
        public var tokens = TokenPolicy(accessTokenLifetime: 3600)
        /// Email domain suffixes accepted as school addresses; others get 403.
        public var schoolEmailSuffixes: [String] = [".edu"]
        /// How long an emailed verification code stays valid.
        public var codeLifetime: TimeInterval = 600
        /// Whether a code login for an unknown email creates the account (with `passwordSet: false`).
        public var codeLoginCreatesAccount = true
        /// How `createdAt` is rendered.
        public var dateStyle = DateStyle.zonedWithRegion(timeZoneIdentifier: "America/Los_Angeles")
        /// Answer as the deployed server does: users without `passwordSet` (the token's
        /// `passwordSet` claim carries it), 400 for a wrong password, 409 with an empty body.
        /// Off by default.
        public var deployed = false
        /// Creates the defaults.
        public init() {}
    }

    /// VynqTalk settings.
    public struct VynqTalk: Sendable {
        /// Access-token policy (default 1 hour).
        public var tokens = TokenPolicy(accessTokenLifetime: 3600)
        /// Answer as the deployed server does: `/ws` always accepts the upgrade, then closes at
        /// once for a missing, invalid or expired token, and after `user_suspended` for a suspended
        /// user (the document's server refuses the handshake with 401 or 403); a refused login is
        /// HTTP 200 with `{"success": false, "message": "Incorrect Password."}` and no `data` (the
        /// document's server answers 401 in the envelope). Off by default.
        public var deployed = false
        /// Creates the defaults.
        public init() {}
    }

    /// An account that exists before any request, e.g. Everday's parent. Printing it hides the password.
    public struct SeedAccount: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The sign-in name.
        public var username: String
        /// The password.
        public var password: String
        /// Given name.
        public var firstName: String
        /// Family name.
        public var lastName: String
        /// Email address.
        public var email: String

        /// Creates a seed account.
        public init(username: String, password: String, firstName: String, lastName: String, email: String) {
            self.username = username
            self.password = password
            self.firstName = firstName
            self.lastName = lastName
            self.email = email
        }

        /// Every field but the password.
        public var description: String {
            "SeedAccount(username: \(username), password: <redacted>, firstName: \(firstName), lastName: \(lastName), email: \(email))"
        }

        /// Same as `description`.
        public var debugDescription: String { description }
    }

    /// Everday settings.
    public struct Everday: Sendable {
        /// Access-token policy; `ExpiresIn` reports its lifetime (default 1800 s).
        public var tokens = TokenPolicy(accessTokenLifetime: 1800)
        /// How long a refresh token is accepted.
        public var refreshTokenLifetime: TimeInterval = 14 * 24 * 3600
        /// How long a password-reset token is accepted.
        public var resetTokenLifetime: TimeInterval = 3600
        /// The approved Parent account that can approve registrations.
        public var parent = SeedAccount(
            username: "parent", password: "ParentPassw0rd!", firstName: "Pat", lastName: "Parent",
            email: "parent@example.com"
        )
        /// Ways to answer otherwise than the document says (all off by default), so a check of a
        /// live server (`authflow probe`) can be shown to notice each one.
        public var deviations = Deviations()
        /// Creates the defaults.
        public init() {}

        /// Everday answering otherwise than its document says, one switch per difference.
        public struct Deviations: Sendable {
            /// Logout answers 200 but leaves the presented refresh token alive.
            public var keepsSessionAtLogout = false
            /// A consumed refresh token is rotated again, instead of being refused with its family revoked.
            public var acceptsConsumedRefreshTokens = false
            /// The status of a successful registration (the document's answer is a plain 200).
            public var registrationStatus = 200
            /// Top-level keys of the token answer (login, refresh) renamed, e.g. `["AccessToken": "access_token"]`.
            public var renamedTokenKeys: [String: String] = [:]
            /// Registration refuses a password shorter than this with 400; `nil` (the document) sets no rule.
            public var minimumPasswordLength: Int?
            /// The deployed server's lockout: after this many failed logins in a row an account is
            /// refused with 403 `Account locked. Try again later.`, whatever password is sent, for
            /// ``lockoutWindow``; `nil` (the document) locks nothing.
            public var lockoutAfterFailures: Int?
            /// How long a lockout lasts, by the server's clock (15 minutes). The deployed server's own
            /// window is not published; the failures are forgotten when it ends, and at any successful login.
            public var lockoutWindow: TimeInterval = 15 * 60
            /// Creates the documented behaviour.
            public init() {}
        }
    }

    /// Subspace settings.
    public struct Subspace: Sendable {
        /// Access-token policy (default 24 hours, as documented).
        public var tokens = TokenPolicy(accessTokenLifetime: 24 * 3600)
        /// Answer as the deployed server does rather than as its document says: register and login
        /// answer `{"accessToken", "refreshToken", "user"}`, `POST /api/v1/auth/refresh` rotates,
        /// errors are `{"error": "<status text>", "message": "<detail>"}` (plain text from the
        /// bearer check and the rate limit, which sends no `Retry-After`). Off by default.
        public var deployed = false
        /// How long a refresh token is accepted in deployed mode (7 days).
        public var refreshTokenLifetime: TimeInterval = 7 * 24 * 3600
        /// Requests allowed per client per window before 429 (documented: 100 per minute).
        public var rateLimit = 100
        /// The rate-limit window.
        public var rateLimitWindow: TimeInterval = 60
        /// Creates the defaults.
        public init() {}
    }

    /// Hero365 settings.
    public struct Hero365: Sendable {
        /// Access-token policy (default 8 days, as documented).
        public var tokens = TokenPolicy(accessTokenLifetime: 8 * 24 * 3600)
        /// How long a refresh token is accepted.
        public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
        /// How long an OTP stays valid.
        public var otpLifetime: TimeInterval = 300
        /// How long after sending an OTP another may be requested for the same phone.
        public var otpResendCooldown: TimeInterval = 30
        /// Wrong guesses after which an OTP is burned.
        public var otpMaxAttempts = 5
        /// Where the OAuth dev helper sends the browser back to, tokens in the fragment.
        public var oauthCallbackURL = "hero365://auth/callback"
        /// Answer as the deployed server does: password recovery reads `?email=` (a body alone is
        /// 422 in the `{"error": {…}}` envelope), refresh adds `expires_in: 3600` whatever the
        /// token's lifetime, OTP verify answers a token protected routes refuse until a refresh
        /// exchanges it. Off by default.
        public var deployed = false
        /// Creates the defaults.
        public init() {}
    }

    /// The OpenID Connect provider's settings: one public client, one test user, its token
    /// lifetimes and the ways it may be told to answer otherwise than the standards say.
    public struct OpenIDConnect: Sendable {
        /// The user the authorization endpoint signs in, as its claims show it.
        public struct User: Sendable, Hashable {
            /// `sub`.
            public var subject: String
            /// `name`.
            public var name: String
            /// `email`.
            public var email: String
            /// `preferred_username`.
            public var preferredUsername: String

            /// Creates a user.
            public init(subject: String, name: String, email: String, preferredUsername: String) {
                self.subject = subject
                self.name = name
                self.email = email
                self.preferredUsername = preferredUsername
            }
        }

        /// Access-token policy (default 1 hour); `expires_in` reports its lifetime.
        public var tokens = TokenPolicy(accessTokenLifetime: 3600)
        /// How long a refresh token is accepted.
        public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
        /// How long an authorization code may wait for its exchange.
        public var codeLifetime: TimeInterval = 60
        /// How long an ID token is valid (`exp - iat`).
        public var idTokenLifetime: TimeInterval = 600
        /// The one registered client: public (no secret), as a native app is (RFC 8252).
        public var clientID = "app-1"
        /// The client's registered redirect URIs, compared exactly.
        public var redirectURIs = ["com.example.app:/oauth2redirect"]
        /// Where the end-session endpoint may send the browser back to, compared exactly.
        public var postLogoutRedirectURIs = ["com.example.app:/signedout"]
        /// The user signed in when the authorization request has no `login_hint`; with one, a user
        /// of that name is signed in (`sub` the hint, `email` `<hint>@example.com`).
        public var user = User(subject: "user-1", name: "Jane Doe", email: "jane@example.com", preferredUsername: "jane")
        /// The key of the ID tokens' HS256 signature (random per configuration).
        public var idTokenSigningKey = Secrets.bytes(32)
        /// Ways to answer otherwise than the standards say (all off by default), so a check of a
        /// live provider (`authflow probe openIDConnect`) can be shown to notice each one.
        public var deviations = Deviations()
        /// Creates the defaults.
        public init() {}

        /// The provider answering otherwise than the standards say, one switch per difference.
        public struct Deviations: Sendable {
            /// The token endpoint exchanges a code whatever `code_verifier` comes with it, or none (RFC 7636 §4.6 not enforced).
            public var ignoresCodeVerifier = false
            /// A code may be exchanged again, each time for new tokens (RFC 6749 §4.1.2 not kept).
            public var reusableCodes = false
            /// A refresh answers a new access token and the same refresh token (no rotation).
            public var keepsRefreshToken = false
            /// A consumed refresh token is rotated again, instead of being refused with its family revoked.
            public var acceptsConsumedRefreshTokens = false
            /// Revocation answers 200 but leaves the token alive.
            public var keepsTokensAtRevocation = false
            /// Errors are `{"message": …}` without RFC 6749 §5.2's `error` code.
            public var errorsWithoutCode = false
            /// Creates the standard behaviour.
            public init() {}
        }
    }

    /// The server's clock; tests inject one (or use `ReferenceServer.advanceClock(by:)`) to expire things without sleeping.
    public var clock: @Sendable () -> Date = { Date() }
    /// How long a connection may sit idle or mid-request before the server closes it.
    public var readTimeout: TimeInterval = 5
    /// Largest accepted request head (request line plus headers); larger gets 431.
    public var maxHeaderBytes = 16 * 1024
    /// Largest accepted request body; larger gets 413.
    public var maxBodyBytes = 1024 * 1024
    /// The listen backlog.
    public var backlog: Int32 = 1024
    /// Anonymous Wall settings.
    public var anonymousWall = AnonymousWall()
    /// VynqTalk settings.
    public var vynqTalk = VynqTalk()
    /// Everday settings.
    public var everday = Everday()
    /// Subspace settings.
    public var subspace = Subspace()
    /// Hero365 settings.
    public var hero365 = Hero365()
    /// The OpenID Connect provider's settings.
    public var openIDConnect = OpenIDConnect()

    /// Creates the defaults.
    public init() {}

    /// Every backend that has a deployed form answers with it (`authflow serve --deployed`): the
    /// documented form stays the default.
    public mutating func answerAsDeployed() {
        everday.deviations.registrationStatus = 201  // FastAPI's `status_code=201` on register.
        everday.deviations.minimumPasswordLength = 12  // Its `AUTH_PASSWORD_MIN_LENGTH`.
        everday.deviations.lockoutAfterFailures = 5  // "Account locked. Try again later." after five failures.
        subspace.deployed = true
        hero365.deployed = true
        anonymousWall.deployed = true
        vynqTalk.deployed = true
        vynqTalk.tokens.expiryClaim = "expiration"  // jwt-kit's `SessionPayload`: no `exp`.
    }
}
