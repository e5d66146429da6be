import AuthCore
import Foundation

/// Reads a JWT's payload on the client, **without checking its signature**: the client only wants
/// to know when its own token stops working (`exp`) and whom it names (`sub`, `email`, `phone`);
/// the server remains the judge of whether the token is genuine.
public enum JWTClaims {
    /// The payload of a JWT (`header.payload.signature`, base64url, padding optional), or `nil` for
    /// anything else: an opaque token, a token cut short as the API documents print it
    /// (`eyJhbGc...`), a payload that is not a JSON object.
    public static func payload(of token: String) -> JSONObject? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = base64URLDecoded(parts[1]) else { return nil }
        return JSONValue.parse(data)?.object
    }

    /// When the token expires by its standard `exp` claim (NumericDate, seconds since the epoch):
    /// `.at(instant)`; `.unknown` when the token is not a JWT, has no `exp`, or its `exp` is not a
    /// usable number. Never a crash, and never "already expired" by guesswork.
    public static func expiry(of token: String) -> TokenExpiry { expiry(of: token, claims: ["exp"]) }

    /// When the token expires by the first of `claims` it carries, read as `exp` is (seconds since
    /// the epoch, fractions allowed): VynqTalk's deployed tokens carry `expiration` and no `exp`,
    /// so its contract asks for `["exp", "expiration"]`. `.unknown` when none is usable.
    public static func expiry(of token: String, claims: [String]) -> TokenExpiry {
        guard let payload = payload(of: token), let exp = claims.lazy.compactMap({ payload[$0] }).first else { return .unknown }
        let seconds: Double
        switch exp {
        case .number(let value): seconds = value
        case .string(let text):
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)) else { return .unknown }
            seconds = value
        case .null, .bool, .array, .object: return .unknown
        }
        // NumericDate allows fractions; anything outside ±292 million years cannot be an Instant.
        guard seconds.isFinite, seconds > 0, seconds < 9.2e15 else { return .unknown }
        return .at(Instant(milliseconds: Int64((seconds * 1000).rounded())))
    }

    /// Base64url (RFC 4648 §5) with or without padding; `nil` for other characters.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        guard !text.isEmpty,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.replacingOccurrences(of: "=", with: "")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
