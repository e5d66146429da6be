/// A phone number in E.164 form: `+` then 8 to 15 digits (Hero365 "Phone Number Validation").
///
/// `+1 (234) 567-8900` is accepted and normalised to `+12345678900`; `234-567-8900` and
/// `1234567890` are refused for missing the `+` and country code, as Hero365's API document lists.
public struct PhoneNumber: ValidatedValue, CustomStringConvertible {
    /// The normalised number, e.g. `+12345678900`.
    public let e164: String

    /// Validates and normalises `input`: spaces, `(`, `)`, `-` and `.` are dropped.
    public static func validate(_ input: String) -> Result<PhoneNumber, ValidationError> {
        // Byte by byte: every accepted character is one ASCII byte, and a character of several
        // scalars (a digit and a combining mark, say) holds a byte no rule accepts, as before.
        let trimmed = input.trimmedForInput.utf8
        guard trimmed.first == UInt8(ascii: "+") else {
            return !trimmed.isEmpty && trimmed.allSatisfy({ isDigit($0) || isSeparator($0) })
                ? .failure(.phoneMissingCountryCode) : .failure(.phoneInvalidCharacters)
        }
        var digits: [UInt8] = [UInt8(ascii: "+")]
        for byte in trimmed.dropFirst() {
            if isDigit(byte) {
                digits.append(byte)
            } else if !isSeparator(byte) {
                return .failure(.phoneInvalidCharacters)
            }
        }
        guard digits.count < 2 || digits[1] != UInt8(ascii: "0") else { return .failure(.phoneMissingCountryCode) }
        guard (8...15).contains(digits.count - 1) else { return .failure(.phoneWrongLength) }
        return .success(PhoneNumber(e164: String(decoding: digits, as: UTF8.self)))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Space, `(`, `)`, `-` and `.`: dropped from a number.
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x28 || byte == 0x29 || byte == 0x2D || byte == 0x2E
    }

    /// The E.164 form. Phone numbers are identifiers, not secrets.
    public var description: String { e164 }

    internal init(e164: String) { self.e164 = e164 }
}
