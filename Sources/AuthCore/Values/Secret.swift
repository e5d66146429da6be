/// What a secret is, for its redacted description (`‹password›`, `‹refresh token›`).
public protocol SecretKind: Sendable {
    /// The words shown instead of the value.
    static var label: String { get }
    /// True for values the server issues (tokens), which the verification kit renames
    /// symbolically; false for what the user types (passwords, codes).
    static var isIssuedByServer: Bool { get }
}

/// A string that must never be shown: a password, a code, an access or refresh token.
///
/// `description`, `debugDescription`, string interpolation, `dump` and `Mirror` all show only
/// the kind (`‹access token›`), so no `print`, log line or error message can leak the value.
/// Reading the value takes an explicit call to ``reveal()``, which is easy to search for.
public struct Secret<Kind: SecretKind>: Hashable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable, AnySecret
{
    private let storage: String

    /// Wraps `value`; nothing about it is ever printed.
    public init(_ value: String) { self.storage = value }

    /// The value itself, for the transport layer that must put it on the wire.
    public func reveal() -> String { storage }

    /// The redacted form, e.g. `‹password›`.
    public var description: String { "‹\(Kind.label)›" }
    /// The redacted form, e.g. `‹password›`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` shows only the redacted form.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// See ``AnySecret``.
    public var secretLabel: String { Kind.label }
    /// See ``AnySecret``.
    public var isIssuedByServer: Bool { Kind.isIssuedByServer }
    /// See ``AnySecret``.
    public func revealedForVerification() -> String { storage }
    /// See ``AnySecret``.
    public func renamed(_ value: String) -> Self { Secret(value) }
}

/// Type-erased access to a ``Secret``, used by the verification kit to name symbolic tokens.
public protocol AnySecret: Sendable {
    /// The kind's label, e.g. `refresh token`.
    var secretLabel: String { get }
    /// Whether the server issued this value.
    var isIssuedByServer: Bool { get }
    /// The value, for symmetry reduction and secret-leak checks only.
    func revealedForVerification() -> String
    /// The same kind of secret holding `value`.
    func renamed(_ value: String) -> Self
}

/// Kinds of secret.
public enum SecretKinds {
    /// A password as typed or validated.
    public enum Password: SecretKind {
        /// `password`.
        public static let label = "password"
        /// Typed by the user.
        public static let isIssuedByServer = false
    }
    /// A one-time code (email code, SMS OTP).
    public enum Code: SecretKind {
        /// `code`.
        public static let label = "code"
        /// Typed by the user.
        public static let isIssuedByServer = false
    }
    /// A bearer access token.
    public enum AccessToken: SecretKind {
        /// `access token`.
        public static let label = "access token"
        /// Issued by the server.
        public static let isIssuedByServer = true
    }
    /// A refresh token.
    public enum RefreshToken: SecretKind {
        /// `refresh token`.
        public static let label = "refresh token"
        /// Issued by the server.
        public static let isIssuedByServer = true
    }
    /// A password-reset token delivered out of band (Everday).
    public enum ResetToken: SecretKind {
        /// `reset token`.
        public static let label = "reset token"
        /// Pasted by the user from an email.
        public static let isIssuedByServer = false
    }
    /// An identity token from a provider's SDK (Sign in with Apple, Google Sign-In), for native sign-in.
    public enum IdentityToken: SecretKind {
        /// `identity token`.
        public static let label = "identity token"
        /// Issued by the provider to the app, not by the auth server.
        public static let isIssuedByServer = false
    }
    /// A provider's one-time authorization code from its SDK (Sign in with Apple's
    /// `authorizationCode`), for native sign-in on servers that exchange it themselves.
    public enum AuthorizationCode: SecretKind {
        /// `authorization code`.
        public static let label = "authorization code"
        /// Issued by the provider to the app, not by the auth server.
        public static let isIssuedByServer = false
    }
}

/// A bearer access token.
public typealias AccessToken = Secret<SecretKinds.AccessToken>
/// A refresh token.
public typealias RefreshToken = Secret<SecretKinds.RefreshToken>
/// A password-reset token (Everday `/auth/reset-password`).
public typealias ResetToken = Secret<SecretKinds.ResetToken>
/// A provider's identity token (a JWT from Sign in with Apple or Google Sign-In).
public typealias IdentityToken = Secret<SecretKinds.IdentityToken>
/// A provider's one-time authorization code (Sign in with Apple's `authorizationCode`).
public typealias AuthorizationCode = Secret<SecretKinds.AuthorizationCode>
/// A password exactly as the user typed it, not yet validated.
public typealias PasswordInput = Secret<SecretKinds.Password>
/// A code exactly as the user typed it, not yet validated.
public typealias CodeInput = Secret<SecretKinds.Code>
