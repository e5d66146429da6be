import Foundation

/// How the log masks secrets: URL query items and fragments, header fields and JSON body fields
/// whose names say they hold a password, code or token (in any casing: `refreshToken`,
/// `RefreshToken`, `refresh_token`; PKCE's `code_verifier`), and any value that looks like a JWT or a bearer credential,
/// wherever it is.
///
/// Masking errs on the side of hiding: a harmless field named like a secret is masked too.
public enum LogRedaction {
    /// What a masked value is replaced with.
    public static let mask = "‹redacted›"

    /// Whether a field, header or query item called `name` holds a secret, whatever its casing
    /// or separators (`new_password`, `NewPassword`, `X-Refresh-Token`, `otp_code`…).
    public static func isSecretName(_ name: String) -> Bool {
        let key = String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
        if key == "tokentype" { return false }  // "bearer": a scheme, not a credential.
        // RFC 8628's page address with the user code in it: whoever reads it can approve a sign-in.
        if key == "verificationuricomplete" || key == "verificationurlcomplete" { return true }
        if secretFragments.contains(where: { key.contains($0) }) { return true }
        if key.hasPrefix("otp") || key.hasSuffix("otp") || key == "pin" { return true }
        return key.hasSuffix("code") && !publicCodes.contains(key)
    }

    /// Parts of a name that mark a secret.
    private static let secretFragments = [
        "password", "passwd", "passcode", "token", "secret", "apikey", "jwt", "cookie", "authorization",
        "credential", "session", "signature", "privatekey", "verifier",
    ]

    /// Names ending in `code` that hold no secret.
    private static let publicCodes: Set<String> = [
        "countrycode", "statuscode", "postalcode", "zipcode", "languagecode", "currencycode", "errorcode",
        "areacode", "dialcode", "regioncode", "localecode",
    ]

    /// Whether a value is a credential whatever its field's name: a JWT (`eyJ….….…`) or an
    /// HTTP credential (`Bearer …`, `Basic …`).
    public static func looksLikeCredential(_ value: String) -> Bool {
        let lowered = value.lowercased()
        if lowered.hasPrefix("bearer ") || lowered.hasPrefix("basic ") { return true }
        return value.split(whereSeparator: { !isBase64URL($0) }).contains { part in
            part.hasPrefix("eyJ") && part.split(separator: ".", omittingEmptySubsequences: false).count >= 3
        }
    }

    private static func isBase64URL(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_" || character == ".")
    }

    /// `url` as text with secret query items, fragment items and the user-info password masked.
    public static func url(_ url: URL) -> String {
        let text = url.absoluteString
        var rest = Substring(text)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        var result = maskUserInfo(String(rest))
        if let query { result += "?" + formEncoded(query) }
        if let fragment { result += "#" + formEncoded(fragment) }
        return result
    }

    /// `scheme://user:password@host` with the password masked.
    private static func maskUserInfo(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex(of: "/") ?? text.endIndex
        let authority = text[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<authority.index(after: colon)]) + mask + String(text[at...])
    }

    /// `a=1&password=x` with secret items (and credential-looking values) masked.
    private static func formEncoded(_ text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            let value = String(item[item.index(after: equals)...])
            let decodedName = name.removingPercentEncoding ?? name
            let decodedValue = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
            return isSecretName(decodedName) || looksLikeCredential(decodedValue) ? name + "=" + mask : String(item)
        }.joined(separator: "&")
    }

    /// `headers` with credential-carrying fields masked (`Authorization`, `Cookie`, `Set-Cookie`,
    /// any field named like a token, and any value that looks like a credential).
    public static func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.map { field in
                (field.name, isSecretName(field.name) || looksLikeCredential(field.value) ? mask : field.value)
            })
    }

    /// A body as log text: JSON with secret fields masked at any depth (keys sorted), a form body
    /// with secret items masked, and anything else only by its size. `nil` for no body.
    public static func body(_ data: Data?) -> String? {
        guard let data, !data.isEmpty else { return nil }
        if let json = JSONValue.parse(data) { return masked(json).text }
        if let text = String(data: data, encoding: .utf8), isFormEncoded(text) {
            return formEncoded(Substring(text))
        }
        return "‹\(data.count) bytes›"
    }

    private static func isFormEncoded(_ text: String) -> Bool {
        !text.isEmpty && text.contains("=")
            && text.allSatisfy { $0.isASCII && !$0.isWhitespace && $0 != "{" && $0 != "<" && $0 != "\"" }
    }

    /// A parsed JSON value with every secret field masked, object keys sorted.
    private static func masked(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var masked = JSONObject()
            for key in object.keys.sorted() {
                guard let child = object[key] else { continue }
                masked[key] = isSecretName(key) && !child.isNull ? .string(mask) : Self.masked(child)
            }
            return .object(masked)
        case .array(let values):
            return .array(values.map(masked))
        case .string(let string):
            return looksLikeCredential(string) ? .string(mask) : value
        case .null, .bool, .number:
            return value
        }
    }
}
