// Subspace: register, sign in, one authorized call, sign out.
//
//     swift run authflow serve                       # in another terminal
//     swift run SubspaceExample http://127.0.0.1:8080/subspace/api/v1
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        guard CommandLine.arguments.count >= 2, let baseURL = URL(string: CommandLine.arguments[1]), baseURL.scheme != nil else {
            FileHandle.standardError.write(Data("usage: SubspaceExample <api-base-url>\n".utf8))
            exit(64)
        }
        let email = "ada.\(UUID().uuidString.prefix(8).lowercased())@example.com"
        do {
            try await register(baseURL: baseURL, email: email, password: "Passw0rd!123")
            try await run(
                baseURL: baseURL, directory: FileManager.default.temporaryDirectory.appending(path: "subspace-example-\(UUID())"), email: email,
                password: "Passw0rd!123")
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    /// Creates the account (registration signs in at once), then signs out.
    static func register(baseURL: URL, email: String, password: String) async throws {
        let auth = SubspaceClient(baseURL: baseURL, vault: MemoryVault())
        let user = try await auth.register(name: "Ada Lovelace", email: email, password: password)
        print("Registered \(user.email ?? user.id)")
        await auth.signOut()
    }

    /// What an app writes: the README's embedding example, verbatim between the markers.
    static func run(baseURL: URL, directory: URL, email: String, password: String) async throws {
        // README: embedding
        let auth = SubspaceClient(baseURL: baseURL, vault: FileVault(directory: directory))  // KeychainVault() on Apple platforms
        let user = try await auth.signIn(email: email, password: password)
        print("Signed in as \(user.email ?? user.id)")
        let me = try await auth.authorized(HTTPRequest(method: "GET", url: baseURL.appending(path: "auth/me")))
        print("GET /auth/me → \(me.status)")
        await auth.signOut()
        // README: end
        print("Signed out")
    }
}
