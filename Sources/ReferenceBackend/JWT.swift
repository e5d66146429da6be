import Foundation

/// Mints JWT-shaped strings: `base64url(header).base64url(payload).signature`.
///
/// The signature is random bytes, not an HMAC: clients never verify it, and the server
/// recognizes its tokens by looking them up, not by checking signatures.
enum JWT {
    /// A token carrying `claims` as its payload.
    static func make(claims: [String: JSONValue]) -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        return [
            base64URL(header.encoded()),
            base64URL(JSONValue.object(claims).encoded()),
            Secrets.opaqueToken(byteCount: 32),
        ].joined(separator: ".")
    }

    /// A JWT signed with HS256 (HMAC-SHA256 under `key`, RFC 7518 §3.2): a real signature, unlike
    /// ``make(claims:)``'s, so whoever holds the key can check it (the OpenID Connect provider's ID tokens).
    static func signed(claims: [String: JSONValue], key: [UInt8]) -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        let signingInput = base64URL(header.encoded()) + "." + base64URL(JSONValue.object(claims).encoded())
        return signingInput + "." + base64URL(Data(SHA256.hmac(key: key, Array(signingInput.utf8))))
    }

    /// Whether `token` is an HS256 JWT whose signature is `key`'s.
    static func hasValidSignature(_ token: String, key: [UInt8]) -> Bool {
        guard let dot = token.lastIndex(of: "."), token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            return false
        }
        let signingInput = String(token[..<dot])
        return String(token[token.index(after: dot)...]) == base64URL(Data(SHA256.hmac(key: key, Array(signingInput.utf8))))
    }

    /// The payload of a JWT-shaped string, or `nil` when it is not one.
    static func claims(of token: String) -> [String: JSONValue]? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).flatMap(JSONValue.decode)?.object
    }

    /// Base64url without padding.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Random codes and tokens from the system's secure generator.
enum Secrets {
    /// A 6-digit numeric code, leading zeros kept.
    static func sixDigitCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = Int.random(in: 0..<1_000_000, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// An opaque base64url token of `byteCount` random bytes.
    static func opaqueToken(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return JWT.base64URL(Data(bytes))
    }

    /// `count` random bytes.
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// A random UUID string, lowercased as the API documents show.
    static func uuid() -> String {
        UUID().uuidString.lowercased()
    }
}
