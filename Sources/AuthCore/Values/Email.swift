/// An email address accepted by client-side validation (Anonymous Wall's `ValidationUtils`,
/// Subspace's "valid email format, max 255 characters").
///
/// Surrounding whitespace is trimmed; the address is otherwise kept as typed.
public struct Email: ValidatedValue, CustomStringConvertible {
    /// The address, trimmed.
    public let rawValue: String

    /// Validates `input`: one `@`, a non-empty local part of at most 64 characters, a domain of
    /// dot-separated labels of letters, digits and hyphens with at least one dot, 254 characters in all.
    public static func validate(_ input: String) -> Result<Email, ValidationError> {
        let address = input.trimmedForInput
        guard address.count <= 254 else { return .failure(.emailTooLong) }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
            !local.isEmpty, local.count <= 64,
            local.allSatisfy({ $0.isASCII && !$0.isASCIIWhitespace && $0 != "," && $0 != ";" && $0 != "\"" })
        else { return .failure(.emailMalformed) }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2,
            labels.allSatisfy({ label in
                !label.isEmpty && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCIILetterOrDigit || $0 == "-" }
            }),
            let tld = labels.last, tld.count >= 2, tld.allSatisfy(\.isASCIILetter)  // Every label is ASCII by now.
        else { return .failure(.emailMalformed) }
        return .success(Email(rawValue: address))
    }

    /// The domain after the `@` (Anonymous Wall's school-domain rule is the server's to judge).
    public var domain: Substring { rawValue[rawValue.index(after: rawValue.firstIndex(of: "@")!)...] }

    /// The address. Emails are identifiers, not secrets.
    public var description: String { rawValue }

    internal init(rawValue: String) { self.rawValue = rawValue }
}
