import AuthCore
import Foundation

/// How credentials are written to a file or a Keychain item: a versioned JSON document, read and
/// written as a ``JSONValue`` like every other JSON the runtime handles (keys sorted, absent
/// members left out, as records written by earlier versions through `JSONEncoder` were).
///
/// AuthCore's types are not `Codable` (AuthCore imports nothing), so this record is the one place
/// that reveals the tokens for storage. It never prints them.
struct CredentialsRecord: Sendable, CustomStringConvertible, CustomReflectable {
    struct User: Sendable {
        var id: String
        var email: String?
        var phone: String?
        var name: String?
        var passwordSet: Bool?
        /// Absent in records written before it existed: read as `false`.
        var passwordChangeRequired: Bool?
        /// The server's spelling; absent in records written before it existed (no role known).
        var role: String?
        /// The server's other user fields; absent when there are none, and in records written
        /// before they existed.
        var attributes: JSONObject?
    }

    /// The format version; a record of another version is unreadable, not "no session".
    static let currentVersion = 1

    var version: Int
    var accessToken: String
    var refreshToken: String?
    /// Milliseconds since the Unix epoch.
    var expiresAt: Int64?
    /// The access token's granted lifetime in milliseconds; absent in records written before it existed.
    var lifetime: Int64?
    var user: User

    init(_ credentials: Credentials) {
        version = Self.currentVersion
        accessToken = credentials.accessToken.reveal()
        refreshToken = credentials.refreshToken?.reveal()
        expiresAt = credentials.expiresAt?.milliseconds
        lifetime = credentials.lifetime?.milliseconds
        user = User(
            id: credentials.user.id, email: credentials.user.email, phone: credentials.user.phone,
            name: credentials.user.name, passwordSet: credentials.user.passwordSet,
            passwordChangeRequired: credentials.user.passwordChangeRequired ? true : nil, role: credentials.user.role?.rawValue,
            attributes: credentials.user.attributes.isEmpty ? nil : Self.json(credentials.user.attributes))
    }

    /// The credentials this record holds.
    var credentials: Credentials {
        Credentials(
            accessToken: AccessToken(accessToken), refreshToken: refreshToken.map(RefreshToken.init),
            expiresAt: expiresAt.map(Instant.init(milliseconds:)), lifetime: lifetime.map(Interval.init(milliseconds:)),
            user: UserProfile(
                id: user.id, email: user.email, phone: user.phone, name: user.name, passwordSet: user.passwordSet,
                passwordChangeRequired: user.passwordChangeRequired ?? false, role: user.role.map { UserRole($0) },
                attributes: user.attributes.map { AnswerReading.attributes($0, except: []) } ?? [:]))
    }

    /// Attributes as a JSON object, keys sorted.
    private static func json(_ attributes: [String: UserAttribute]) -> JSONObject {
        JSONObject(attributes.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
    }

    private static func json(_ attribute: UserAttribute) -> JSONValue {
        switch attribute {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(json))
        case .object(let members): .object(json(members))
        }
    }

    /// The stored form of `credentials`.
    static func encode(_ credentials: Credentials) -> Data {
        CredentialsRecord(credentials).json.encoded
    }

    /// The credentials in `data`, or ``VaultError/corrupt`` when `data` is not a record this
    /// runtime wrote.
    static func decode(_ data: Data) throws(VaultError) -> Credentials {
        guard let json = JSONValue.parse(data), let record = try? CredentialsRecord(json: json),
            record.version == currentVersion, !record.accessToken.isEmpty, !record.user.id.isEmpty
        else { throw .corrupt }
        return record.credentials
    }

    /// The record as JSON, keys sorted, absent members left out.
    var json: JSONValue {
        var user: JSONObject = [:]
        user["attributes"] = self.user.attributes.map(JSONValue.object)
        user["email"] = self.user.email.map(JSONValue.string)
        user["id"] = .string(self.user.id)
        user["name"] = self.user.name.map(JSONValue.string)
        user["passwordChangeRequired"] = self.user.passwordChangeRequired.map(JSONValue.bool)
        user["passwordSet"] = self.user.passwordSet.map(JSONValue.bool)
        user["phone"] = self.user.phone.map(JSONValue.string)
        user["role"] = self.user.role.map(JSONValue.string)
        var record: JSONObject = [:]
        record["accessToken"] = .string(accessToken)
        record["expiresAt"] = expiresAt.map { .number(Double($0)) }
        record["lifetime"] = lifetime.map { .number(Double($0)) }
        record["refreshToken"] = refreshToken.map(JSONValue.string)
        record["user"] = .object(user)
        record["version"] = .number(Double(version))
        return .object(record)
    }

    /// The record `json` holds; a member of the wrong type is ``Unreadable`` (as `JSONDecoder`
    /// found it), an optional member may be absent or `null`.
    init(json: JSONValue) throws(Unreadable) {
        let user = try Self.required(json["user"]) { $0.object }
        version = try Self.required(json["version"]) { $0.number.flatMap { Int(exactly: $0) } }
        accessToken = try Self.required(json["accessToken"]) { $0.string }
        refreshToken = try Self.optional(json["refreshToken"]) { $0.string }
        expiresAt = try Self.optional(json["expiresAt"]) { $0.number.flatMap { Int64(exactly: $0) } }
        lifetime = try Self.optional(json["lifetime"]) { $0.number.flatMap { Int64(exactly: $0) } }
        self.user = User(
            id: try Self.required(user["id"]) { $0.string },
            email: try Self.optional(user["email"]) { $0.string },
            phone: try Self.optional(user["phone"]) { $0.string },
            name: try Self.optional(user["name"]) { $0.string },
            passwordSet: try Self.optional(user["passwordSet"]) { $0.bool },
            passwordChangeRequired: try Self.optional(user["passwordChangeRequired"]) { $0.bool },
            role: try Self.optional(user["role"]) { $0.string },
            attributes: try Self.optional(user["attributes"]) { $0.object })
    }

    /// A member missing or of the wrong type.
    struct Unreadable: Error {}

    private static func required<Value>(_ member: JSONValue?, _ read: (JSONValue) -> Value?) throws(Unreadable) -> Value {
        guard let member, let value = read(member) else { throw Unreadable() }
        return value
    }

    private static func optional<Value>(_ member: JSONValue?, _ read: (JSONValue) -> Value?) throws(Unreadable) -> Value? {
        guard let member, !member.isNull else { return nil }
        guard let value = read(member) else { throw Unreadable() }
        return value
    }

    /// Redacted: `record(v1, user(<id>))`.
    var description: String { "record(v\(version), user(\(user.id)))" }
    /// No children, so `dump` shows no token.
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
