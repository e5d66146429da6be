// Any OpenID Connect provider: discovery, sign-in by authorization code with PKCE in a browser,
// one call with the access token (the provider's userinfo), sign out with the refresh token
// revoked. The app is registered at the provider as a public client with a redirect URI.
//
//     swift run OpenIDConnectExample https://id.example.com my-client-id com.example.app:/callback
//
// It prints the page to open; sign in there and paste the address the browser is sent back to.
import AuthRuntime
import Foundation

@main
struct Example {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let issuer = URL(string: arguments[1]), issuer.scheme != nil, let redirectURI = URL(string: arguments[3])
        else {
            FileHandle.standardError.write(Data("usage: OpenIDConnectExample <issuer-url> <client-id> <redirect-uri>\n".utf8))
            exit(64)
        }
        do {
            try await run(issuer: issuer, clientID: arguments[2], redirectURI: redirectURI, vault: MemoryVault(), browser: pasteRedirect)
        } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    /// A browser for a terminal: the user opens `url` and pastes the redirect.
    static func pasteRedirect(_ url: URL, _ callbackURLScheme: String?) async throws -> URL {
        print("Open \(url.absoluteString)\nthen paste the address you are sent back to:")
        guard let line = readLine(), let redirect = URL(string: line.trimmingCharacters(in: .whitespaces)) else { throw CancellationError() }
        return redirect
    }

    /// What an app writes: the README's "Any OpenID Connect server" example, verbatim between the markers.
    static func run(
        issuer: URL, clientID: String, redirectURI: URL, vault: any TokenVault,
        browser: (_ url: URL, _ callbackURLScheme: String?) async throws -> URL
    ) async throws {
        // README: openid
        let auth = try await OpenIDConnectClient.discover(issuer: issuer, clientID: clientID, redirectURI: redirectURI, vault: vault)
        let user = try await auth.signIn(browser: browser)  // on Apple platforms: WebAuthenticationSession's authenticate(using:callbackURLScheme:)
        print("Signed in as \(user.email ?? user.id)")
        if let userinfo = auth.contract.provider.userinfoEndpoint {
            print("GET userinfo → \(try await auth.authorized(HTTPRequest(method: "GET", url: userinfo)).status)")
        }
        print("Signed out; server session: \(await auth.signOutAndEndServerSession().map { "\($0)" } ?? "none")")
        // README: end
    }
}
