/// A password that passed validation: at least 8 characters (the rule of every backend's API
/// document that sets one; NIST SP 800-63B §5.1.1.2), at most 1,024, never trimmed or truncated.
///
/// Characters are counted as the user sees them (`Character`s): `"é"`, an `"e"` followed by a
/// combining accent and `"👍🏽"` are one each, though the last is two Unicode code points and 8
/// UTF-8 bytes. NIST counts code points; a character is one or more, so every password accepted
/// has at least 8 code points, UTF-16 units and bytes too, whatever a server counts.
///
/// The value lives in a ``Secret``, so it never appears in a description.
public struct Password: ValidatedValue, CustomStringConvertible {
    /// The fewest characters accepted.
    public static let minimumLength = 8
    /// The most characters accepted (well above NIST's "at least 64").
    public static let maximumLength = 1024
    /// The password, redacted when printed.
    public let secret: PasswordInput

    /// Validates `input` exactly as typed: spaces count, nothing is trimmed or cut.
    public static func validate(_ input: PasswordInput) -> Result<Password, ValidationError> {
        let length = input.reveal().count
        guard length >= minimumLength else { return .failure(.passwordTooShort(minimum: minimumLength)) }
        guard length <= maximumLength else { return .failure(.passwordTooLong(maximum: maximumLength)) }
        return .success(Password(secret: input))
    }

    /// `‹password›`.
    public var description: String { secret.description }

    internal init(secret: PasswordInput) { self.secret = secret }
}

/// A one-time code: exactly six ASCII digits (Anonymous Wall's email codes, Hero365's SMS OTP).
public struct VerificationCode: ValidatedValue, CustomStringConvertible {
    /// The code, redacted when printed.
    public let secret: CodeInput

    /// Validates `input`: surrounding whitespace is ignored (codes are pasted), then exactly six digits.
    public static func validate(_ input: CodeInput) -> Result<VerificationCode, ValidationError> {
        let digits = input.reveal().trimmedForInput
        guard digits.count == 6, digits.allSatisfy(\.isASCIIDigit) else { return .failure(.codeNotSixDigits) }
        return .success(VerificationCode(secret: CodeInput(digits)))
    }

    /// `‹code›`.
    public var description: String { secret.description }

    internal init(secret: CodeInput) { self.secret = secret }
}

/// A password-reset token pasted from an email (Everday): any non-empty text, trimmed.
public struct ResetProof: ValidatedValue, CustomStringConvertible {
    /// The token, redacted when printed.
    public let secret: ResetToken

    /// Validates `input`.
    public static func validate(_ input: ResetToken) -> Result<ResetProof, ValidationError> {
        let token = input.reveal().trimmedForInput
        guard !token.isEmpty else { return .failure(.resetTokenEmpty) }
        return .success(ResetProof(secret: ResetToken(token)))
    }

    /// `‹reset token›`.
    public var description: String { secret.description }

    internal init(secret: ResetToken) { self.secret = secret }
}
