// Anonymous Wall: register with an e-mailed code, set the password, sign out, sign in with it,
// change it (an authorized call), sign out.
//
//     swift run authflow serve                       # in another terminal
//     swift run AnonymousWallExample http://127.0.0.1:8080/anonymouswall/api/v1
//     (the code: GET http://127.0.0.1:8080/__dev/outbox?to=<email>, typed at the prompt)
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        guard CommandLine.arguments.count >= 2, let baseURL = URL(string: CommandLine.arguments[1]), baseURL.scheme != nil else {
            FileHandle.standardError.write(Data("usage: AnonymousWallExample <api-base-url>\n".utf8))
            exit(64)
        }
        do {
            try await run(baseURL: baseURL, email: "student.\(UUID().uuidString.prefix(8).lowercased())@harvard.edu") { email in
                print("Code sent to \(email). Type it: ", terminator: "")
                return readLine() ?? ""
            }
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    static func run(baseURL: URL, email: String, readCode: @Sendable (String) async -> String) async throws {
        let auth = AnonymousWallClient(baseURL: baseURL, vault: MemoryVault())
        try await auth.sendCode(to: email, for: .register)
        let registered = try await auth.register(code: await readCode(email))
        print("Registered: \(registered)")
        if case .passwordSetupRequired = registered {
            try await auth.setPassword("Passw0rd!123")
            print("Password set")
        }
        await auth.signOut()
        let signedIn = try await auth.signIn(email: email, password: "Passw0rd!123")
        print("Signed in: \(signedIn)")
        try await auth.changePassword(old: "Passw0rd!123", new: "N3wPassw0rd!456")
        print("Password changed")
        await auth.signOut()
        print("Signed out")
    }
}
