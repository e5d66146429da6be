// A server that is none of the five documented backends, with paths and JSON keys of its own:
// `POST /session` `{"user","pass"}` answers `{"jwt","renew","ttl"}`, `POST /session/renew`
// rotates the renew token, `DELETE /session` ends the session, `GET /me` is the app's own call.
// The contract below and the app code are all it takes, using AuthCore's public API only.
//
//     swift run CustomServerExample http://127.0.0.1:8080 ada lovelace-1815
import AuthCore
import AuthRuntime
import Foundation

// README: own server
/// The server's API in AuthCore's terms: each request it offers, and each answer read.
struct SessionAPI: BackendContract {
    let backend = Backend("Session API")
    let baseURL: URL

    func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        let build = RequestBuilder(baseURL: baseURL)
        switch request {
        case .signIn(let user, let password):
            return build.json("POST", "/session", ["user": .string(user.text), "pass": .string(password.secret.reveal())])
        case .refresh(let renew): return build.json("POST", "/session/renew", ["renew": .string(renew.reveal())])
        case .revoke(_, let bearer): return build.bodiless("DELETE", "/session", headers: [RequestBuilder.bearer(bearer.token)])
        default: throw .unsupported("\(request)")
        }
    }

    func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        guard response.isSuccess else { return .failed(response.failure(messageKeys: ["message"], request: request, receivedAt: receivedAt)) }
        if case .revoke = request { return .accepted(nil) }
        guard let answer = ResponseBody(response).object, let jwt = answer.string("jwt"), let renew = answer.string("renew"),
            let user = JWTClaims.payload(of: jwt)?.string("sub")
        else { return .failed(.malformed) }
        let (access, expiry) = (AccessToken(jwt), TokenExpiry(expiresIn: answer["ttl"], accessToken: jwt))
        if case .refresh = request { return .refreshed(TokenRefresh(accessToken: access, refreshToken: RefreshToken(renew), expiry: expiry)) }
        return .granted(Grant(accessToken: access, refreshToken: RefreshToken(renew), expiry: expiry, user: UserProfile(id: user)))
    }
}
// README: end

@main
struct Example {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let server = URL(string: arguments[1]), server.scheme != nil else {
            FileHandle.standardError.write(Data("usage: CustomServerExample <server-url> <user> <password>\n".utf8))
            exit(64)
        }
        do { try await run(server: server, user: arguments[2], password: arguments[3]) } catch {
            print("Failed: \(error.localizedDescription)")
            exit(1)
        }
    }

    static func run(server: URL, user: String, password: String) async throws {
        // README: own client
        let auth = AuthClient(
            contract: SessionAPI(baseURL: server), signIn: .username,
            session: SessionPolicy(
                refresh: .rotating(margin: .seconds(60), retryLimit: 3, backoff: .seconds(2)), restore: .refresh, revokesOnLogout: true),
            vault: MemoryVault())
        // README: end
        print("Signed in as \(try await auth.signIn(user, password: password).user?.id ?? user)")
        let me = try await auth.authorized(HTTPRequest(method: "GET", url: server.appending(path: "me")))
        print("GET /me → \(me.status) \(String(decoding: me.body, as: UTF8.self))")
        print("Signed out; server session: \(await auth.signOutAndEndServerSession().map { "\($0)" } ?? "none")")
    }
}
