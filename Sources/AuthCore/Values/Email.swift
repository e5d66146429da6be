/// An email address accepted by client-side validation (Anonymous Wall's `ValidationUtils`,
/// Subspace's "valid email format, max 255 characters").
///
/// Surrounding whitespace is trimmed; the address is otherwise kept as typed.
public struct Email: ValidatedValue, CustomStringConvertible {
    /// The address, trimmed.
    public let rawValue: String

    /// Validates `input`: ASCII (RFC 5321; `"stüdent@harvard.edu"` is refused), one `@`, a
    /// non-empty local part of at most 64 characters, a domain of dot-separated labels of letters,
    /// digits and hyphens with at least one dot, 254 characters in all.
    public static func validate(_ input: String) -> Result<Email, ValidationError> {
        let address = input.trimmedForInput
        switch asciiVerdict(address) {
        case .valid: return .success(Email(rawValue: address))
        case .invalid(let error): return .failure(error)
        case .notASCII: return validateCharacters(address)
        }
    }

    /// What ``asciiVerdict(_:)`` found.
    enum Verdict: Equatable {
        /// The address passes.
        case valid
        /// The address fails with this error.
        case invalid(ValidationError)
        /// The text is not plain ASCII: ask ``validateCharacters(_:)``.
        case notASCII
    }

    /// The verdict of ``validateCharacters(_:)``, read byte by byte without splitting, for text
    /// that is ASCII without a carriage return (there every byte is one character); `.notASCII`
    /// for any other text. Addresses are validated on every sign-in attempt, and the explorer
    /// submits one at hundreds of thousands of states.
    static func asciiVerdict(_ address: String) -> Verdict {
        var address = address
        return address.withUTF8 { bytes -> Verdict in
            guard bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) else { return .notASCII }
            guard bytes.count <= 254 else { return .invalid(.emailTooLong) }
            guard let at = bytes.firstIndex(of: 0x40), !bytes[(at + 1)...].contains(0x40) else { return .invalid(.emailMalformed) }
            let local = bytes[..<at]
            guard !local.isEmpty, local.count <= 64,
                local.allSatisfy({ !($0 == 0x20 || (0x09...0x0D).contains($0)) && $0 != 0x2C && $0 != 0x3B && $0 != 0x22 })
            else { return .invalid(.emailMalformed) }
            func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
            let domain = bytes[(at + 1)...]
            var labels = 0
            var start = domain.startIndex
            var index = domain.startIndex
            while true {
                guard index == domain.endIndex || domain[index] == 0x2E else {
                    index += 1
                    continue
                }
                let label = domain[start..<index]
                guard let first = label.first, let last = label.last, first != 0x2D, last != 0x2D,
                    label.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
                else { return .invalid(.emailMalformed) }
                labels += 1
                if index == domain.endIndex {
                    return labels >= 2 && label.count >= 2 && label.allSatisfy(isLetter) ? .valid : .invalid(.emailMalformed)
                }
                index += 1
                start = index
            }
        }
    }

    /// The validation itself, character by character.
    static func validateCharacters(_ address: String) -> Result<Email, ValidationError> {
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
