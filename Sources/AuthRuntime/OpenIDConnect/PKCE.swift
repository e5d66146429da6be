import AuthCore
import Foundation

/// Proof Key for Code Exchange (RFC 7636) and the random values of an authorization attempt, made
/// here in the runtime so that the reducers stay deterministic.
public enum PKCE {
    /// The S256 code challenge of `verifier` (RFC 7636 §4.2):
    /// `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`, without padding.
    public static func challenge(for verifier: CodeVerifier) -> String {
        base64URL(SHA256.digest(Array(verifier.reveal().utf8)))
    }

    /// A fresh attempt: a code verifier of 32 random octets (43 characters, RFC 7636 §4.1's
    /// recommendation), and a `state` and a `nonce` of 16 random octets each, base64url-encoded,
    /// all from `generator`.
    public static func attempt(using generator: inout some RandomNumberGenerator) -> AuthorizationAttempt {
        AuthorizationAttempt(
            state: random(16, &generator), nonce: random(16, &generator), verifier: CodeVerifier(random(32, &generator)))
    }

    /// A fresh attempt from the system's cryptographically secure generator.
    public static func attempt() -> AuthorizationAttempt {
        var generator = SystemRandomNumberGenerator()
        return attempt(using: &generator)
    }

    /// `count` random octets, base64url-encoded without padding.
    private static func random(_ count: Int, _ generator: inout some RandomNumberGenerator) -> String {
        base64URL((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Base64url (RFC 4648 §5) without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
