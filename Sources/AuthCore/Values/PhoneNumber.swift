/// A phone number in E.164 form: `+` then 8 to 15 digits (Hero365 "Phone Number Validation").
///
/// `+1 (234) 567-8900` is accepted and normalised to `+12345678900`; `234-567-8900` and
/// `1234567890` are refused for missing the `+` and country code, as the seed lists.
public struct PhoneNumber: ValidatedValue, CustomStringConvertible {
    /// The normalised number, e.g. `+12345678900`.
    public let e164: String

    /// Validates and normalises `input`: spaces, `(`, `)`, `-` and `.` are dropped.
    public static func validate(_ input: String) -> Result<PhoneNumber, ValidationError> {
        let trimmed = input.trimmedForInput
        guard trimmed.first == "+" else {
            return trimmed.allSatisfy({ $0.isASCIIDigit || " ()-.".contains($0) }) && !trimmed.isEmpty
                ? .failure(.phoneMissingCountryCode) : .failure(.phoneInvalidCharacters)
        }
        var digits = ""
        for character in trimmed.dropFirst() {
            if character.isASCIIDigit {
                digits.append(character)
            } else if !" ()-.".contains(character) {
                return .failure(.phoneInvalidCharacters)
            }
        }
        guard digits.first != "0" else { return .failure(.phoneMissingCountryCode) }
        guard (8...15).contains(digits.count) else { return .failure(.phoneWrongLength) }
        return .success(PhoneNumber(e164: "+" + digits))
    }

    /// The E.164 form. Phone numbers are identifiers, not secrets.
    public var description: String { e164 }

    internal init(e164: String) { self.e164 = e164 }
}
