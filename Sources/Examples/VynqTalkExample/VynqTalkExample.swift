// VynqTalk: sign up (signed in at once), an authorized call, sign out, sign in again.
//
//     swift run authflow serve                       # in another terminal
//     swift run VynqTalkExample http://127.0.0.1:8080/vynqtalk
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        guard CommandLine.arguments.count >= 2, let baseURL = URL(string: CommandLine.arguments[1]), baseURL.scheme != nil else {
            FileHandle.standardError.write(Data("usage: VynqTalkExample <api-base-url>\n".utf8))
            exit(64)
        }
        do {
            try await run(baseURL: baseURL, email: "alice.\(UUID().uuidString.prefix(8).lowercased())@example.com")
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    static func run(baseURL: URL, email: String, realtime: (any RealtimeConnector)? = URLSessionRealtimeConnector()) async throws {
        let auth = VynqTalkClient(baseURL: baseURL, vault: MemoryVault(), realtime: realtime)
        let user = try await auth.signUp(name: "Alice", email: email, password: "Passw0rd!123")
        print("Signed up and in as \(user.email ?? user.id)")
        let users = try await auth.authorized(HTTPRequest(method: "GET", url: baseURL.appending(path: "users")))
        print("GET /users → \(users.status)")
        guard (200..<300).contains(users.status) else { throw AuthError.unexpected("the authorized call answered \(users.status)") }
        await auth.signOut()
        _ = try await auth.signIn(email: email, password: "Passw0rd!123")
        print("Signed in again")
        await auth.signOut()
        print("Signed out")
    }
}
