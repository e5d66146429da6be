// Hero365: sign up and in with a password, then sign in again with an SMS code; an authorized
// call each time; sign out.
//
//     swift run authflow serve                       # in another terminal
//     swift run Hero365Example http://127.0.0.1:8080/hero365/api/v1
//     (the code: GET http://127.0.0.1:8080/__dev/outbox?to=<phone>, typed at the prompt)
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        guard CommandLine.arguments.count >= 2, let baseURL = URL(string: CommandLine.arguments[1]), baseURL.scheme != nil else {
            FileHandle.standardError.write(Data("usage: Hero365Example <api-base-url>\n".utf8))
            exit(64)
        }
        do {
            let unique = UUID().uuidString.prefix(8).lowercased()
            let phone = "+1555" + String(Int.random(in: 1_000_000...9_999_999))
            try await run(baseURL: baseURL, email: "hero.\(unique)@example.com", phone: phone) { phone in
                print("Code sent to \(phone). Type it: ", terminator: "")
                return readLine() ?? ""
            }
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    static func run(baseURL: URL, email: String, phone: String, readCode: @Sendable (String) async -> String) async throws {
        let auth = Hero365Client(baseURL: baseURL, vault: MemoryVault())
        let registered = try await auth.signUp(identifier: email, password: "Passw0rd!123", fullName: "Hero User")
        print("Signed up: \(registered)")
        let user = try await auth.signIn(identifier: email, password: "Passw0rd!123")
        print("Signed in as \(user.email ?? user.id); the server says \(try await auth.fetchCurrentUser().email ?? "?")")
        await auth.signOut()

        let sent = try await auth.sendOTP(to: phone)
        print("Another code can be requested in \(sent.resendAvailableIn)")
        let byCode = try await auth.verifyOTP(code: await readCode(phone))
        print("Signed in by code as \(byCode.phone ?? byCode.id)")
        let me = try await auth.authorized(HTTPRequest(method: "GET", url: baseURL.appending(path: "users/me")))
        print("GET /users/me → \(me.status)")
        guard (200..<300).contains(me.status) else { throw AuthError.unexpected("the authorized call answered \(me.status)") }
        await auth.signOut()
        print("Signed out")
    }
}
