import AuthCore
@testable import AuthRuntime
import AuthTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Token vaults", .timeLimit(.minutes(15)))
struct VaultTests {
    static let full = Credentials(
        accessToken: AccessToken("access-1"), refreshToken: RefreshToken("refresh-1"), expiresAt: .seconds(1_700_003_600),
        lifetime: .seconds(3600),
        user: UserProfile(id: "user-1", email: "kid@example.com", phone: "+61400000000", name: "New Kid", passwordSet: false))
    static let minimal = Credentials(accessToken: AccessToken("access-2"), user: UserProfile(id: "user-2"))
    /// A user with a role and the server's other fields, every kind of attribute among them.
    static let withRole = Credentials(
        accessToken: AccessToken("access-3"), refreshToken: RefreshToken("refresh-3"),
        user: UserProfile(
            id: "parent", name: "Pat Parent", role: .parent,
            attributes: [
                "DiscordHandle": .string("pat#1"), "onboarding_completed_at": .null, "online": .bool(true), "messageCount": .number(3),
                "completed_steps": .array([.string("profile")]), "user_metadata": .object(["full_name": .string("Pat Parent")]),
            ]))

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return status.st_mode & 0o777
    }

    @Test("the memory vault stores, replaces and clears", arguments: [full, minimal, withRole])
    func memory(credentials: Credentials) throws {
        let vault = MemoryVault()
        #expect(try vault.load() == nil)
        try vault.save(credentials)
        #expect(try vault.load() == credentials)
        try vault.clear()
        #expect(try vault.load() == nil)
    }

    @Test("the file vault round-trips every field, the role and attributes among them", arguments: [full, minimal, withRole])
    func fileRoundTrip(credentials: Credentials) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vault = FileVault(directory: directory.url.appendingPathComponent("vault"))
        #expect(try vault.load() == nil)
        try vault.save(credentials)
        #expect(try vault.load() == credentials)
        try vault.save(Self.minimal)
        #expect(try vault.load() == Self.minimal)
    }

    @Test("the file vault creates its directory 0700 and writes its file 0600, whatever the umask")
    func filePermissions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vaultDirectory = directory.url.appendingPathComponent("nested/vault")
        let previous = umask(0)
        defer { umask(previous) }
        try FileVault(directory: vaultDirectory).save(Self.full)
        #expect(mode(vaultDirectory.path(percentEncoded: false)) == 0o700)
        #expect(mode(vaultDirectory.appendingPathComponent("credentials.json").path(percentEncoded: false)) == 0o600)
    }

    @Test("clear deletes the file, and clearing an empty vault succeeds")
    func fileClear() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vault = FileVault(directory: directory.url)
        try vault.clear()
        try vault.save(Self.full)
        try vault.clear()
        #expect(try vault.load() == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("credentials.json").path(percentEncoded: false)))
    }

    @Test(
        "owed revocations live in their own file beside the credentials, 0600: saved, read back, kept when the credentials are cleared, deleted when none is owed"
    )
    func owedRevocations() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let previous = umask(0)
        defer { umask(previous) }
        let vault = FileVault(directory: directory.url.appendingPathComponent("vault"))
        #expect(try vault.loadOwedRevocations() == [])
        let owed = [
            OwedRevocation(refreshToken: RefreshToken("refresh-1"), rounds: 1), OwedRevocation(refreshToken: RefreshToken("refresh-9"), rounds: 2),
        ]
        try vault.save(Self.full)
        try vault.saveOwedRevocations(owed)
        let file = directory.url.appendingPathComponent("vault/credentials.json.owed")
        #expect(mode(file.path(percentEncoded: false)) == 0o600)
        try vault.clear()
        #expect(try vault.load() == nil)
        #expect(try vault.loadOwedRevocations() == owed, "a logout clears the credentials, not what it owes")
        let stored = try String(decoding: Data(contentsOf: file), as: UTF8.self)
        #expect(stored == #"{"owed":[{"refreshToken":"refresh-1","rounds":1},{"refreshToken":"refresh-9","rounds":2}],"version":1}"#)
        #expect(!stored.contains("access"), "the refresh token and the rounds, nothing else")
        try vault.saveOwedRevocations([])
        #expect(try vault.loadOwedRevocations() == [])
        #expect(!FileManager.default.fileExists(atPath: file.path(percentEncoded: false)))
    }

    @Test(
        "an owed-revocations file that is not a record this runtime wrote is corrupt",
        arguments: [
            "", "{", "[]", #"{"version":2,"owed":[]}"#, #"{"version":1,"owed":[{"refreshToken":"","rounds":1}]}"#,
            #"{"version":1,"owed":[{"refreshToken":"r","rounds":-1}]}"#, #"{"version":1}"#,
        ])
    func owedCorrupt(contents: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(contents.utf8).write(to: directory.url.appendingPathComponent("credentials.json.owed"))
        #expect(throws: VaultError.corrupt) { try FileVault(directory: directory.url).loadOwedRevocations() }
    }

    @Test("the memory vault keeps owed revocations apart from the credentials")
    func memoryOwed() throws {
        let vault = MemoryVault(Self.full)
        let owed = [OwedRevocation(refreshToken: RefreshToken("refresh-1"), rounds: 1)]
        try vault.saveOwedRevocations(owed)
        try vault.clear()
        #expect(try vault.loadOwedRevocations() == owed)
        #expect(vault.description == "MemoryVault(empty)")
        vault.failing(load: .unavailable)
        #expect(throws: VaultError.unavailable) { try vault.loadOwedRevocations() }
    }

    @Test(
        "a file that is not a record this runtime wrote is corrupt, and is left as it was",
        arguments: [
            "", "{", "null", "[]", #"{"version":1}"#, #"{"version":2,"accessToken":"a","user":{"id":"u"}}"#,
            #"{"version":1,"accessToken":"","user":{"id":"u"}}"#, #"{"version":1,"accessToken":"a","user":{"id":"u"},"refreshT"#,
        ])
    func fileCorrupt(contents: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("credentials.json")
        try Data(contents.utf8).write(to: file)
        #expect(throws: VaultError.corrupt) { try FileVault(directory: directory.url).load() }
        #expect(try Data(contentsOf: file) == Data(contents.utf8))
    }

    @Test("the record is written as before JSONValue wrote it: keys sorted, absent members left out")
    func recordForm() {
        let full = String(decoding: CredentialsRecord.encode(Self.full), as: UTF8.self)
        #expect(
            full
                == #"{"accessToken":"access-1","expiresAt":1700003600000,"lifetime":3600000,"refreshToken":"refresh-1","user":{"email":"kid@example.com","id":"user-1","name":"New Kid","passwordSet":false,"phone":"+61400000000"},"version":1}"#
        )
        #expect(
            String(decoding: CredentialsRecord.encode(Self.minimal), as: UTF8.self)
                == #"{"accessToken":"access-2","user":{"id":"user-2"},"version":1}"#)
    }

    @Test("the role and attributes are stored under the user, keys sorted; a record without them writes neither")
    func recordFormWithRole() throws {
        #expect(
            String(decoding: CredentialsRecord.encode(Self.withRole), as: UTF8.self)
                == #"{"accessToken":"access-3","refreshToken":"refresh-3","user":{"attributes":{"DiscordHandle":"pat#1","completed_steps":["profile"],"messageCount":3,"onboarding_completed_at":null,"online":true,"user_metadata":{"full_name":"Pat Parent"}},"id":"parent","name":"Pat Parent","role":"Parent"},"version":1}"#
        )
        #expect(try CredentialsRecord.decode(CredentialsRecord.encode(Self.withRole)) == Self.withRole)
    }

    @Test("a record written before roles and attributes existed reads with no role and no attributes")
    func recordWrittenBeforeRoles() throws {
        let written =
            #"{"accessToken":"access-1","expiresAt":1700003600000,"lifetime":3600000,"refreshToken":"refresh-1","user":{"email":"kid@example.com","id":"user-1","name":"New Kid","passwordSet":false,"phone":"+61400000000"},"version":1}"#
        let credentials = try CredentialsRecord.decode(Data(written.utf8))
        #expect(credentials == Self.full)
        #expect(credentials.user.role == nil)
        #expect(credentials.user.attributes.isEmpty)
    }

    @Test("a record JSONEncoder wrote (slashes escaped, nulls for absent members) still reads")
    func recordWrittenByJSONEncoder() throws {
        let written =
            #"{"accessToken":"a\/b","expiresAt":1700003600000,"lifetime":3600000,"refreshToken":null,"user":{"id":"u","passwordChangeRequired":true},"version":1}"#
        let credentials = try CredentialsRecord.decode(Data(written.utf8))
        #expect(credentials.accessToken == AccessToken("a/b"))
        #expect(credentials.refreshToken == nil)
        #expect(credentials.expiresAt == .seconds(1_700_003_600))
        #expect(credentials.user.passwordChangeRequired)
    }

    @Test(
        "a member of the wrong type makes the record corrupt, as JSONDecoder found it",
        arguments: [
            #"{"version":"1","accessToken":"a","user":{"id":"u"}}"#, #"{"version":1.5,"accessToken":"a","user":{"id":"u"}}"#,
            #"{"version":1,"accessToken":1,"user":{"id":"u"}}"#, #"{"version":1,"accessToken":"a","user":{"id":1}}"#,
            #"{"version":1,"accessToken":"a","user":"u"}"#, #"{"version":1,"accessToken":"a","expiresAt":"soon","user":{"id":"u"}}"#,
            #"{"version":1,"accessToken":"a","expiresAt":1.5,"user":{"id":"u"}}"#,
            #"{"version":1,"accessToken":"a","user":{"id":"u","passwordSet":1}}"#, #"{"version":true,"accessToken":"a","user":{"id":"u"}}"#,
            #"{"version":1,"accessToken":"a","user":{"id":"u","role":1}}"#, #"{"version":1,"accessToken":"a","user":{"id":"u","attributes":[]}}"#,
        ])
    func recordWrongType(contents: String) {
        #expect(throws: VaultError.corrupt) { try CredentialsRecord.decode(Data(contents.utf8)) }
    }

    @Test("a file that cannot be read is a typed error, not an empty vault")
    func fileUnreadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory where the file should be: open succeeds, read fails (works as root too).
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("credentials.json"), withIntermediateDirectories: false)
        #expect(throws: VaultError.system(operation: "read", code: EISDIR)) { try FileVault(directory: directory.url).load() }
    }

    @Test("a file without read permission is accessDenied", .enabled(if: getuid() != 0, "root reads any file"))
    func filePermissionDenied() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vault = FileVault(directory: directory.url)
        try vault.save(Self.full)
        let file = directory.url.appendingPathComponent("credentials.json").path(percentEncoded: false)
        chmod(file, 0)
        #expect(throws: VaultError.accessDenied) { try vault.load() }
    }

    @Test("a crash between writing the new file and the rename leaves the old credentials intact; the next save cleans up")
    func fileCrashMidWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileVault(directory: directory.url).save(Self.full)
        let crashing = FileVault(directory: directory.url, fileName: "credentials.json", interruptBeforeRename: true)
        #expect(throws: VaultError.self) { try crashing.save(Self.minimal) }
        #expect(try FileVault(directory: directory.url).load() == Self.full)
        let leftovers = { try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".credentials.json.tmp-") } }
        #expect(try leftovers().count == 1)
        try FileVault(directory: directory.url).save(Self.minimal)
        #expect(try FileVault(directory: directory.url).load() == Self.minimal)
        #expect(try leftovers().isEmpty)
    }

    @Test("the stored record holds the tokens, and no description of the vault or record shows them")
    func recordRedaction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let vault = FileVault(directory: directory.url)
        try vault.save(Self.full)
        let text = try String(contentsOf: directory.url.appendingPathComponent("credentials.json"), encoding: .utf8)
        #expect(text.contains("access-1"))
        let record = CredentialsRecord(Self.full)
        var dumped = ""
        dump(record, to: &dumped)
        for shown in [vault.description, String(describing: record), String(reflecting: record), dumped, MemoryVault(Self.full).description] {
            #expect(!shown.contains("access-1"))
            #expect(!shown.contains("refresh-1"))
        }
    }
}
