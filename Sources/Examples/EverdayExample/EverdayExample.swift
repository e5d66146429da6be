// Everday: a kid registers (pending a parent's approval); the parent signs in, makes an
// authorized call and signs out.
//
//     swift run authflow serve                       # in another terminal; it prints the parent's account
//     swift run EverdayExample http://127.0.0.1:8080/everday/api <parent-username> <parent-password>
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        let usage = "EverdayExample <api-base-url> <parent-username> <parent-password>"
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let baseURL = URL(string: arguments[1]), baseURL.scheme != nil else {
            FileHandle.standardError.write(Data("usage: \(usage)\n".utf8))
            exit(64)
        }
        do {
            try await run(baseURL: baseURL, kid: "kid\(UUID().uuidString.prefix(8).lowercased())", parent: arguments[2], parentPassword: arguments[3])
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    static func run(baseURL: URL, kid: String, parent: String, parentPassword: String) async throws {
        let auth = EverdayClient(baseURL: baseURL, vault: MemoryVault())
        let registered = try await auth.register(username: kid, password: "Passw0rd!123", displayName: "New Kid")
        print("Registered \(kid): \(registered)")
        let signedIn = try await auth.signIn(username: parent, password: parentPassword)
        guard case .signedIn(let user) = signedIn else {
            print("The parent cannot sign in yet: \(signedIn)")
            return
        }
        print("Signed in as \(user.name ?? user.id)")
        // Everday's one documented protected endpoint approves an account by its numeric id (which
        // the parent's admin screens list); 1 is the parent's own account on the reference backend.
        let approval = try await auth.authorized(HTTPRequest(method: "PUT", url: baseURL.appending(path: "settings/users/1/approve")))
        print("PUT /settings/users/1/approve → \(approval.status)")
        guard (200..<300).contains(approval.status) else { throw AuthError.unexpected("the authorized call answered \(approval.status)") }
        let server = await auth.signOutAndEndServerSession()  // A command-line tool waits for the revoke before exiting.
        print("Signed out; server session: \(server.map { "\($0)" } ?? "not revoked by this backend")")
    }
}
