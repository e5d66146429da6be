/// A username (Everday `Username`).
///
/// Trimmed; 1 to 64 characters of ASCII letters and digits, `.`, `_`, `-` and `#` (`"nëwkid"` is
/// refused).
public struct Username: ValidatedValue, CustomStringConvertible {
    /// The longest accepted username.
    public static let maximumLength = 64
    /// The username, trimmed.
    public let rawValue: String

    /// Validates `input`.
    public static func validate(_ input: String) -> Result<Username, ValidationError> {
        let name = input.trimmedForInput
        guard !name.isEmpty else { return .failure(.usernameEmpty) }
        guard name.count <= maximumLength else { return .failure(.usernameTooLong) }
        guard name.allSatisfy({ $0.isASCIILetterOrDigit || "._-#".contains($0) }) else {
            return .failure(.usernameInvalidCharacters)
        }
        return .success(Username(rawValue: name))
    }

    /// The username. Usernames are identifiers, not secrets.
    public var description: String { rawValue }

    internal init(rawValue: String) { self.rawValue = rawValue }
}

/// A person's display name (Subspace `name`, VynqTalk `name`, Hero365 `full_name`, Everday names).
///
/// Trimmed of white space, Unicode's included (a name of no-break spaces is empty); 1 to 255
/// characters as the user sees them (`Character`s), any script.
public struct PersonName: ValidatedValue, CustomStringConvertible {
    /// The name, trimmed.
    public let rawValue: String

    /// Validates `input`.
    public static func validate(_ input: String) -> Result<PersonName, ValidationError> {
        let name = input.trimmedForInput
        guard !name.isEmpty else { return .failure(.nameEmpty) }
        guard name.count <= 255 else { return .failure(.nameTooLong) }
        return .success(PersonName(rawValue: name))
    }

    /// The name.
    public var description: String { rawValue }

    internal init(rawValue: String) { self.rawValue = rawValue }
}
