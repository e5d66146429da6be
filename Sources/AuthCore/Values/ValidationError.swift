/// Why a piece of user input was refused before any request was sent.
///
/// Messages never repeat the input: a mistyped password must not end up in an error string.
public enum ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The email is not of the form `local@domain.tld`.
    case emailMalformed
    /// The email is longer than 254 characters (RFC 5321).
    case emailTooLong
    /// The username is empty.
    case usernameEmpty
    /// The username is longer than ``Username/maximumLength``.
    case usernameTooLong
    /// The username has characters other than letters, digits, `.`, `_`, `-`, `#`.
    case usernameInvalidCharacters
    /// The password is shorter than ``Password/minimumLength`` (NIST SP 800-63B §5.1.1.2; 8
    /// wherever a backend's API document sets a rule).
    case passwordTooShort(minimum: Int)
    /// The password is longer than ``Password/maximumLength``.
    case passwordTooLong(maximum: Int)
    /// The phone number does not start with `+` and a country code (E.164).
    case phoneMissingCountryCode
    /// The phone number has fewer than 8 or more than 15 digits (E.164).
    case phoneWrongLength
    /// The phone number has characters other than digits, spaces, `(`, `)`, `-`, `.`.
    case phoneInvalidCharacters
    /// The code is not exactly six digits.
    case codeNotSixDigits
    /// A required name is empty.
    case nameEmpty
    /// A name is longer than 255 characters (Subspace).
    case nameTooLong
    /// A reset token is empty.
    case resetTokenEmpty
    /// The OAuth provider is not one the backend supports.
    case unsupportedProvider
    /// The provider's identity token is empty (its SDK gave none back).
    case identityTokenEmpty

    /// A message the UI can show as is.
    public var description: String {
        switch self {
        case .emailMalformed: "Enter a valid email address."
        case .emailTooLong: "That email address is too long."
        case .usernameEmpty: "Enter a username."
        case .usernameTooLong: "That username is too long."
        case .usernameInvalidCharacters: "Usernames may use letters, digits, '.', '_', '-' and '#'."
        case .passwordTooShort(let minimum): "Passwords need at least \(minimum) characters."
        case .passwordTooLong(let maximum): "Passwords may have at most \(maximum) characters."
        case .phoneMissingCountryCode: "Enter the phone number with its country code, e.g. +1 234 567 8900."
        case .phoneWrongLength: "Phone numbers have 8 to 15 digits after the +."
        case .phoneInvalidCharacters: "Phone numbers may only contain digits, spaces and ( ) - ."
        case .codeNotSixDigits: "Enter the 6-digit code."
        case .nameEmpty: "Enter your name."
        case .nameTooLong: "That name is too long."
        case .resetTokenEmpty: "Paste the reset token from the email."
        case .unsupportedProvider: "That sign-in provider is not supported."
        case .identityTokenEmpty: "The sign-in provider gave no identity token. Please try again."
        }
    }
}

/// A value that is only ever made by validating raw input.
public protocol ValidatedValue: Hashable, Sendable {
    /// The raw input type (`String`, or a ``Secret`` for passwords and codes).
    associatedtype Input
    /// Validates `input`, normalising where the backends' API documents allow it, or says why it is
    /// refused.
    static func validate(_ input: Input) -> Result<Self, ValidationError>
}

extension ValidatedValue {
    /// Validates `input`, throwing a typed ``ValidationError``.
    public init(_ input: Input) throws(ValidationError) {
        self = try Self.validate(input).get()
    }
}

// ASCII classes read off `asciiValue`, the same answers as `isASCII && isNumber` (or `isLetter`,
// `isWhitespace`) without a Unicode property lookup per character (`"\r\n"` is one ASCII
// character whose value is a line feed).
extension Character {
    var isASCIIDigit: Bool { asciiValue.map { (0x30...0x39).contains($0) } ?? false }
    var isASCIILetter: Bool { asciiValue.map { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) } ?? false }
    var isASCIILetterOrDigit: Bool { isASCIIDigit || isASCIILetter }
    var isASCIIWhitespace: Bool { asciiValue.map { $0 == 0x20 || (0x09...0x0D).contains($0) } ?? false }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (names and addresses only,
    /// never passwords).
    var trimmedForInput: String {
        // Nothing to trim when both ends are printable ASCII other than a space (a character
        // whose last byte is one of those is not whitespace either): no Unicode lookup.
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) { return self }
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
