import Testing
@testable import AuthCore

/// One input and what validation must make of it: the normalised value, or the exact error.
struct ValidationCase: Sendable, CustomTestStringConvertible {
    var input: String
    var expected: Result<String, ValidationError>
    var testDescription: String {
        let shown = input.count > 24 ? "\(input.count) characters" : "\"\(input)\""
        switch expected {
        case .success: return "\(shown) is accepted"
        case .failure(let error): return "\(shown) is refused: \(error)"
        }
    }

    static func accepts(_ input: String, as normalised: String? = nil) -> ValidationCase {
        ValidationCase(input: input, expected: .success(normalised ?? input))
    }

    static func refuses(_ input: String, _ error: ValidationError) -> ValidationCase {
        ValidationCase(input: input, expected: .failure(error))
    }
}

private func repeated(_ character: Character, _ count: Int) -> String { String(repeating: character, count: count) }

@Suite("Validation")
struct ValidationTests {
    @Test(
        "Email accepts local@domain.tld, trims, and refuses the rest with the exact error",
        arguments: [
            .accepts("ann@example.com"),
            .accepts("  ann@example.com \n", as: "ann@example.com"),
            .accepts("a.b+tag@sub.example.org"),
            .accepts(repeated("a", 64) + "@example.com"),
            .accepts(repeated("a", 64) + "@" + repeated("b", 63) + "." + repeated("c", 63) + "." + repeated("d", 57) + ".com"),
            .refuses(repeated("a", 64) + "@" + repeated("b", 63) + "." + repeated("c", 63) + "." + repeated("d", 58) + ".com", .emailTooLong),
            .refuses(repeated("a", 65) + "@example.com", .emailMalformed),
            .refuses("ann.example.com", .emailMalformed),
            .refuses("ann@example", .emailMalformed),
            .refuses("ann@@example.com", .emailMalformed),
            .refuses("@example.com", .emailMalformed),
            .refuses("ann@example.c", .emailMalformed),
            .refuses("ann@-example.com", .emailMalformed),
            .refuses("an n@example.com", .emailMalformed),
            .refuses("ann@exa_mple.com", .emailMalformed),
            .refuses("st\u{FC}dent@harvard.edu", .emailMalformed),
            .refuses("student@h\u{E4}rvard.edu", .emailMalformed),
            .refuses("", .emailMalformed),
        ] as [ValidationCase])
    func email(_ test: ValidationCase) {
        #expect(Email.validate(test.input).map(\.rawValue) == test.expected)
    }

    @Test(
        "Username accepts letters, digits and . _ - #, up to 64, trimmed",
        arguments: [
            .accepts("newkid"), .accepts("new.kid_1-#2"), .accepts(" newkid ", as: "newkid"), .accepts(repeated("k", 64)),
            .refuses("", .usernameEmpty), .refuses("   ", .usernameEmpty), .refuses(repeated("k", 65), .usernameTooLong),
            .refuses("new kid", .usernameInvalidCharacters), .refuses("ñandú", .usernameInvalidCharacters),
            .refuses("kid@home", .usernameInvalidCharacters), .refuses("n\u{EB}wkid", .usernameInvalidCharacters),
        ] as [ValidationCase])
    func username(_ test: ValidationCase) {
        #expect(Username.validate(test.input).map(\.rawValue) == test.expected)
    }

    @Test(
        "PersonName accepts 1 to 255 characters as the user sees them, trimmed of Unicode white space",
        arguments: [
            .accepts("Ann Example"), .accepts("  Ann  ", as: "Ann"), .accepts("Zoë O'Brien-Łukasz"), .accepts(repeated("n", 255)),
            .refuses("", .nameEmpty), .refuses(" \t", .nameEmpty), .refuses(repeated("n", 256), .nameTooLong),
            // 510 UTF-8 bytes, and 510 Unicode scalars: 255 characters all the same.
            .accepts(repeated("\u{E9}", 255)), .accepts(repeated("e\u{301}", 255)), .refuses(repeated("\u{E9}", 256), .nameTooLong),
            .refuses("\u{A0}\u{3000}", .nameEmpty), .accepts("\u{3000}Ann\u{A0}", as: "Ann"),
        ] as [ValidationCase])
    func personName(_ test: ValidationCase) {
        #expect(PersonName.validate(test.input).map(\.rawValue) == test.expected)
    }

    @Test(
        "Password accepts 8 to 1024 characters exactly as typed, never trimmed or truncated, counted as the user sees them",
        arguments: [
            .refuses("", .passwordTooShort(minimum: 8)),
            .refuses("1234567", .passwordTooShort(minimum: 8)),
            .refuses("  pass ", .passwordTooShort(minimum: 8)),
            .accepts("12345678"),
            .accepts("       a"),
            .accepts("  padded secret  "),
            .accepts(repeated("p", 64)),
            .accepts(repeated("p", 1024)),
            .accepts(" " + repeated("p", 1022) + " "),
            .refuses(repeated("p", 1025), .passwordTooLong(maximum: 1024)),
            // Characters as the user sees them, whatever their bytes, scalars or UTF-16 units: 7 two-byte
            // letters (14 bytes), 7 letters with combining marks (14 scalars), 4 emoji with a skin tone
            // (8 scalars, 16 UTF-16 units), 1,024 four-byte emoji (4,096 bytes).
            .refuses(repeated("\u{E9}", 7), .passwordTooShort(minimum: 8)),
            .refuses(repeated("e\u{301}", 7), .passwordTooShort(minimum: 8)),
            .refuses(repeated("\u{1F44D}\u{1F3FD}", 4), .passwordTooShort(minimum: 8)),
            .accepts("pw-va\u{308}l\u{1F44D}\u{1F3FD}d"), .accepts(repeated("\u{E9}", 8)), .accepts(repeated("\u{1F44D}\u{1F3FD}", 8)),
            .accepts(repeated("\u{1F600}", 1024)), .accepts(repeated("e\u{301}", 1024)),
            .refuses(repeated("\u{1F600}", 1025), .passwordTooLong(maximum: 1024)),
        ] as [ValidationCase])
    func password(_ test: ValidationCase) {
        #expect(Password.validate(PasswordInput(test.input)).map { $0.secret.reveal() } == test.expected)
    }

    @Test(
        "PhoneNumber accepts E.164 with a country code, normalised; refuses numbers without +, wrong lengths, letters",
        arguments: [
            .accepts("+1 (234) 567-8900", as: "+12345678900"),
            .accepts("+1234567890"),
            .accepts("+44 20 7946 0958", as: "+442079460958"),
            .accepts(" +1.234.567.8900 ", as: "+12345678900"),
            .accepts("+12345678"),
            .accepts("+123456789012345"),
            .refuses("234-567-8900", .phoneMissingCountryCode),
            .refuses("1234567890", .phoneMissingCountryCode),
            .refuses("+0123456789", .phoneMissingCountryCode),
            .refuses("+1234567", .phoneWrongLength),
            .refuses("+1234567890123456", .phoneWrongLength),
            .refuses("+", .phoneWrongLength),
            .refuses("+1 234 ABC 8900", .phoneInvalidCharacters),
            .refuses("phone", .phoneInvalidCharacters),
            .refuses("+1/234/567/8900", .phoneInvalidCharacters),
        ] as [ValidationCase])
    func phoneNumber(_ test: ValidationCase) {
        #expect(PhoneNumber.validate(test.input).map(\.e164) == test.expected)
    }

    /// The rule as Hero365's API document states it, character by character: what the byte-wise
    /// validator must answer for every input.
    private static func phoneByCharacters(_ input: String) -> Result<String, ValidationError> {
        let trimmed = input.trimmedForInput
        let separators: [Character] = [" ", "(", ")", "-", "."]
        guard trimmed.first == "+" else {
            return !trimmed.isEmpty && trimmed.allSatisfy({ $0.isASCIIDigit || separators.contains($0) })
                ? .failure(.phoneMissingCountryCode) : .failure(.phoneInvalidCharacters)
        }
        var digits = ""
        for character in trimmed.dropFirst() {
            if character.isASCIIDigit {
                digits.append(character)
            } else if !separators.contains(character) {
                return .failure(.phoneInvalidCharacters)
            }
        }
        guard digits.first != "0" else { return .failure(.phoneMissingCountryCode) }
        guard (8...15).contains(digits.count) else { return .failure(.phoneWrongLength) }
        return .success("+" + digits)
    }

    @Test(
        "PhoneNumber reads bytes and answers as the character-by-character rule, combining marks and CRLF included",
        arguments: [
            "+1\u{0301}234567890", "+\u{0301}1234567890", "+12345678\r\n90", "\r\n+1234567890", "+١٢٣٤٥٦٧٨٩", "+1234５67890",
            "+0", "+00000000", "0", "()", "+1/234/567/8900", " ( ) ", "+ ( 1 ) 2-3.4 5678", "+123456789012345\u{0301}", "+🙂12345678",
            "+1234567\u{00A0}8", "\u{00A0}+12345678", "-1234567890", "+-", "", "+1234567890\u{200D}",
        ])
    func phoneNumberMatchesCharacterRule(_ input: String) {
        #expect(PhoneNumber.validate(input).map(\.e164) == Self.phoneByCharacters(input))
    }

    @Test(
        "VerificationCode is exactly six ASCII digits; surrounding whitespace is tolerated",
        arguments: [
            .accepts("123456"), .accepts("000000"), .accepts(" 987654\n", as: "987654"), .accepts("\t123456 ", as: "123456"),
            .refuses("12345", .codeNotSixDigits), .refuses("1234567", .codeNotSixDigits), .refuses("12a456", .codeNotSixDigits),
            .refuses("12 456", .codeNotSixDigits), .refuses("", .codeNotSixDigits), .refuses("１２３４５６", .codeNotSixDigits),
            .refuses("-12345", .codeNotSixDigits),
        ] as [ValidationCase])
    func verificationCode(_ test: ValidationCase) {
        #expect(VerificationCode.validate(CodeInput(test.input)).map { $0.secret.reveal() } == test.expected)
    }

    @Test(
        "ResetProof is any non-empty token, trimmed",
        arguments: [
            .accepts("reset-token-1"), .accepts("  tok \n", as: "tok"), .accepts(repeated("t", 2048)),
            .refuses("", .resetTokenEmpty), .refuses("   \n", .resetTokenEmpty),
        ] as [ValidationCase])
    func resetProof(_ test: ValidationCase) {
        #expect(ResetProof.validate(ResetToken(test.input)).map { $0.secret.reveal() } == test.expected)
    }

    @Test("validation error messages never repeat the input")
    func messagesDoNotRepeatInput() {
        let typed = "MARKER typed!input"
        for result in [
            Email.validate(typed).map { _ in () }, Username.validate(typed).map { _ in () },
            PhoneNumber.validate(typed).map { _ in () }, VerificationCode.validate(CodeInput(typed)).map { _ in () },
        ] {
            guard case .failure(let error) = result else {
                Issue.record("\(typed) was accepted")
                continue
            }
            #expect(!error.description.contains("MARKER"))
        }
    }
}

@Suite("Character classes read off ASCII values")
struct ASCIIClassTests {
    /// Every ASCII character, `"\r\n"`, and characters outside ASCII that are letters, digits or
    /// whitespace in Unicode's sense.
    static let characters: [Character] =
        (0...127).map { Character(Unicode.Scalar(UInt8($0))) } + ["\r\n", "é", "Ж", "٣", "\u{00A0}", "\u{2003}", "\u{0085}", "e\u{0301}", "🙂"]

    @Test("digit, letter and whitespace agree with isASCII plus the Unicode properties, character by character", arguments: characters)
    func agreesWithUnicodeProperties(character: Character) {
        #expect(character.isASCIIDigit == (character.isASCII && character.isNumber))
        #expect(character.isASCIILetter == (character.isASCII && character.isLetter))
        #expect(character.isASCIILetterOrDigit == (character.isASCII && (character.isLetter || character.isNumber)))
        #expect(character.isASCIIWhitespace == (character.isASCII && character.isWhitespace))
    }

    @Test(
        "trimming takes its shortcut only where the full trim would change nothing",
        arguments: [
            "a", "student@harvard.edu", " a", "a ", "\ta\n", "\r\na\r\n", "a\u{00A0}", "\u{2003}a", "é", "a\u{0301}", "!x~", "", " ", "\u{0085}x",
        ])
    func trimmingAgreesWithTheFullTrim(input: String) {
        var full = Substring(input)
        while let first = full.first, first.isWhitespace { full.removeFirst() }
        while let last = full.last, last.isWhitespace { full.removeLast() }
        #expect(input.trimmedForInput == String(full))
    }
}

@Suite("Email: the byte-wise path gives the character path's verdict")
struct EmailASCIIPathTests {
    static func verdict(_ result: Result<Email, ValidationError>) -> Email.Verdict {
        switch result {
        case .success: .valid
        case .failure(let error): .invalid(error)
        }
    }

    static let chosen = [
        "student@harvard.edu", "student@", "@harvard.edu", "a@b.co", "a@b.c", "a@b", "a@@b.co", "a@b..co", "a@-b.co", "a@b-.co", "a@b.c0",
        "a b@x.io", "a,b@x.io", "a;b@x.io", "a\"b@x.io", "a\tb@x.io", "a@b.co.", "a@.b.co", "a@b_c.co", "first.last+tag@sub.example.org",
        String(repeating: "l", count: 64) + "@x.io", String(repeating: "l", count: 65) + "@x.io",
        "a@" + String(repeating: "d", count: 248) + ".io", "a@" + String(repeating: "d", count: 249) + ".io", "",
    ]

    @Test("chosen addresses: a verdict on ASCII text, and the character path's", arguments: chosen)
    func chosenAddresses(address: String) {
        let fast = Email.asciiVerdict(address)
        #expect(fast != .notASCII)
        #expect(fast == Self.verdict(Email.validateCharacters(address)))
    }

    @Test("texts the byte-wise path leaves to the character path", arguments: ["é@x.io", "a@x.io\r\n", "a\r\nb@x.io", "a@x.ïo"])
    func leftToCharacters(address: String) {
        #expect(Email.asciiVerdict(address) == .notASCII)
    }

    @Test("20,000 seeded random ASCII texts built from the pieces that matter: the same verdict every time")
    func randomTexts() {
        let pieces = ["ab", "Z", "0", "@", "@", ".", ".", "-", " ", "\t", ",", ";", "\"", "_", "+", "co", "io"]
        var seed: UInt64 = 0x5EED_E3A1
        func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var disagreements: [String] = []
        var valid = 0
        for _ in 0..<20_000 {
            let length = Int(next() % 9)
            let text = (0..<length).map { _ in pieces[Int(next() % UInt64(pieces.count))] }.joined()
            let address = text.trimmedForInput
            let fast = Email.asciiVerdict(address)
            let slow = Self.verdict(Email.validateCharacters(address))
            if fast != slow { disagreements.append(text) }
            if slow == .valid { valid += 1 }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
        #expect(valid > 0, "the sample holds valid addresses too")
    }
}
