import AuthCore
import Foundation

/// How owed revocations (`OwedRevocation`) are written to a file or a Keychain item: a
/// versioned JSON document, `{"owed": [{"refreshToken": …, "rounds": …}], "version": 1}`. It keeps
/// the refresh tokens to revoke and the rounds already failed, nothing else of the session.
///
/// The one place besides `CredentialsRecord` that reveals a token for storage; it never prints one.
enum OwedRevocationsRecord {
    /// The format version; a record of another version is unreadable.
    static let currentVersion = 1

    /// The stored form of `owed`.
    static func encode(_ owed: [OwedRevocation]) -> Data {
        let entries: [JSONValue] = owed.map { entry in
            .object(["refreshToken": .string(entry.refreshToken.reveal()), "rounds": .number(Double(entry.rounds))])
        }
        return JSONValue.object(["owed": .array(entries), "version": .number(Double(currentVersion))]).encoded
    }

    /// The owed revocations in `data`, or ``VaultError/corrupt`` when `data` is not a record this
    /// runtime wrote.
    static func decode(_ data: Data) throws(VaultError) -> [OwedRevocation] {
        guard let json = JSONValue.parse(data), json["version"]?.number == Double(currentVersion), let entries = json["owed"]?.array
        else { throw .corrupt }
        var owed: [OwedRevocation] = []
        for entry in entries {
            guard let token = entry["refreshToken"]?.string, !token.isEmpty, let rounds = entry["rounds"]?.number.flatMap({ Int(exactly: $0) }),
                rounds >= 0
            else { throw .corrupt }
            owed.append(OwedRevocation(refreshToken: RefreshToken(token), rounds: rounds))
        }
        return owed
    }
}
