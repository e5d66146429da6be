import AuthCore
import Foundation

/// How credentials are written to a file or a Keychain item: a versioned JSON document.
///
/// AuthCore's types are not `Codable` (AuthCore imports nothing), so this record is the one place
/// that reveals the tokens for storage. It never prints them.
struct CredentialsRecord: Codable, Sendable, CustomStringConvertible, CustomReflectable {
    struct User: Codable, Sendable {
        var id: String
        var email: String?
        var phone: String?
        var name: String?
        var passwordSet: Bool?
        /// Absent in records written before it existed: read as `false`.
        var passwordChangeRequired: Bool?
    }

    /// The format version; a record of another version is unreadable, not "no session".
    static let currentVersion = 1

    var version: Int
    var accessToken: String
    var refreshToken: String?
    /// Milliseconds since the Unix epoch.
    var expiresAt: Int64?
    var user: User

    init(_ credentials: Credentials) {
        version = Self.currentVersion
        accessToken = credentials.accessToken.reveal()
        refreshToken = credentials.refreshToken?.reveal()
        expiresAt = credentials.expiresAt?.milliseconds
        user = User(
            id: credentials.user.id, email: credentials.user.email, phone: credentials.user.phone,
            name: credentials.user.name, passwordSet: credentials.user.passwordSet,
            passwordChangeRequired: credentials.user.passwordChangeRequired ? true : nil)
    }

    /// The credentials this record holds.
    var credentials: Credentials {
        Credentials(
            accessToken: AccessToken(accessToken), refreshToken: refreshToken.map(RefreshToken.init),
            expiresAt: expiresAt.map(Instant.init(milliseconds:)),
            user: UserProfile(
                id: user.id, email: user.email, phone: user.phone, name: user.name, passwordSet: user.passwordSet,
                passwordChangeRequired: user.passwordChangeRequired ?? false))
    }

    /// The stored form of `credentials`.
    static func encode(_ credentials: Credentials) throws(VaultError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(CredentialsRecord(credentials))
        } catch {
            throw .corrupt  // Unreachable for plain strings and numbers; never a crash.
        }
    }

    /// The credentials in `data`, or ``VaultError/corrupt`` when `data` is not a record this
    /// runtime wrote.
    static func decode(_ data: Data) throws(VaultError) -> Credentials {
        guard let record = try? JSONDecoder().decode(CredentialsRecord.self, from: data),
            record.version == currentVersion, !record.accessToken.isEmpty, !record.user.id.isEmpty
        else { throw .corrupt }
        return record.credentials
    }

    /// Redacted: `record(v1, user(<id>))`.
    var description: String { "record(v\(version), user(\(user.id)))" }
    /// No children, so `dump` shows no token.
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
