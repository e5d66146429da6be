import Testing

/// How a backend spells its JSON keys.
enum KeyCasing: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case camel, pascal, snake

    /// `accessToken` in this casing: `accessToken`, `AccessToken` or `access_token`.
    func key(_ camel: String) -> String {
        switch self {
        case .camel: camel
        case .pascal: camel.prefix(1).uppercased() + camel.dropFirst()
        case .snake:
            camel.reduce(into: "") { result, character in
                if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
            }
        }
    }

    var testDescription: String { rawValue }
}
