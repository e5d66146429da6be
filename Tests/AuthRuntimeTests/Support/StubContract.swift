import AuthCore
import AuthRuntime
import Foundation

/// A test-only contract: every abstract request becomes `POST <base>/<kind>` with a JSON body in
/// the chosen key casing (secrets revealed, as a real contract must), and answers are read from
/// a small JSON shape in the same casing, optionally wrapped in VynqTalk's `data` envelope.
/// The real contracts live in `Sources/AuthRuntime/Contracts/`; this one only serves the runner's tests.
struct StubContract: BackendContract {
    var backend: Backend = .everday
    var baseURL: URL = URL(string: "http://stub.test/api") ?? URL(fileURLWithPath: "/")
    var casing: KeyCasing = .camel
    /// Request kinds this contract refuses to encode.
    var unsupported: Set<String> = []
    /// Whether the backend has a realtime connection.
    var hasRealtime = true

    /// The case name of a request, used as its path.
    static func kind(_ request: APIRequest) -> String {
        String(String(describing: request).prefix { $0 != "(" })
    }

    func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        let kind = Self.kind(request)
        if unsupported.contains(kind) { throw .unsupported(kind) }
        var fields: [String: String] = [:]
        var bearer: Bearer?
        switch request {
        case .sendEmailCode(let email, let purpose):
            fields = ["email": email.rawValue, "purpose": purpose.rawValue]
        case .registerWithEmailCode(let email, let code), .signInWithEmailCode(let email, let code):
            fields = ["email": email.rawValue, "code": code.secret.reveal()]
        case .sendPhoneCode(let phone):
            fields = ["phone": phone.e164]
        case .signInWithPhoneCode(let phone, let code):
            fields = ["phone": phone.e164, "otp": code.secret.reveal()]
        case .signIn(let identifier, let password):
            fields = ["identifier": identifier.description, "password": password.secret.reveal()]
        case .register(let details):
            fields = ["identifier": details.identifier.description, "password": details.password.secret.reveal()]
        case .requestPasswordReset(let identifier):
            fields = ["identifier": identifier.description]
        case .resetPassword(.emailCode(let email, let code), let password):
            fields = ["email": email.rawValue, "code": code.secret.reveal(), "newPassword": password.secret.reveal()]
        case .resetPassword(.token(let token), let password):
            fields = ["resetToken": token.secret.reveal(), "newPassword": password.secret.reveal()]
        case .setPassword(let password, let owner):
            fields = ["password": password.secret.reveal()]
            bearer = owner
        case .changePassword(let old, let new, let owner):
            fields = ["oldPassword": old.secret.reveal(), "newPassword": new.secret.reveal()]
            bearer = owner
        case .oauthURL(let provider):
            fields = ["provider": provider.rawValue]
        case .signInNatively(let details):
            fields = ["provider": details.provider.rawValue, "identityToken": details.identityToken.reveal()]
            if let code = details.authorizationCode { fields["authorizationCode"] = code.reveal() }
        case .refresh(let token):
            fields = ["refreshToken": token.reveal()]
        case .exchangeCode(let exchange):
            fields = ["code": exchange.code.reveal(), "codeVerifier": exchange.verifier.reveal()]
        case .requestDeviceCode:
            break
        case .pollDeviceToken(let code):
            fields = ["deviceCode": code.reveal()]
        case .currentUser(let owner):
            bearer = owner
        case .revoke(let token, let owner):
            fields = ["refreshToken": token.reveal()]
            bearer = owner
        case .deleteAccount(let owner):
            bearer = owner
        case .protected, .openRealtime:
            throw .unsupported(kind)
        }
        var body: [String: String] = [:]
        for (key, value) in fields { body[casing.key(key)] = value }
        var http = HTTPRequest(
            method: "POST", url: baseURL.appendingPathComponent(kind), headers: ["Content-Type": "application/json"],
            body: try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
        if let bearer { http = authorize(http, with: bearer) }
        return http
    }

    func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        guard (200..<300).contains(response.status) else { return classifyProtected(response, receivedAt: receivedAt) }
        guard let json = try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]) else {
            return .failed(.malformed)
        }
        let object = ((json as? [String: Any])?["data"] as? [String: Any]) ?? (json as? [String: Any]) ?? [:]
        func string(_ key: String) -> String? { object[casing.key(key)] as? String }
        let expiry: TokenExpiry = (object[casing.key("expiresIn")] as? Int).map { .after(.seconds(Int64($0))) } ?? .unknown
        let user = UserProfile(id: string("userId") ?? "user-1")
        switch request {
        case .refresh:
            guard let access = string("accessToken") else { return .failed(.malformed) }
            return .refreshed(
                TokenRefresh(
                    accessToken: AccessToken(access), refreshToken: string("refreshToken").map(RefreshToken.init), expiry: expiry))
        case .currentUser:
            return .user(user)
        case .oauthURL:
            return string("url").map(Reply.authorizationURL) ?? .failed(.malformed)
        case .signIn, .register, .registerWithEmailCode, .signInWithEmailCode, .signInWithPhoneCode, .resetPassword, .signInNatively,
            .exchangeCode, .pollDeviceToken:
            guard let access = string("accessToken") else { return .accepted(string("message")) }
            return .granted(
                Grant(
                    accessToken: AccessToken(access), refreshToken: string("refreshToken").map(RefreshToken.init), expiry: expiry,
                    user: user))
        case .sendEmailCode, .sendPhoneCode, .requestPasswordReset, .setPassword, .changePassword, .revoke, .deleteAccount, .protected,
            .openRealtime, .requestDeviceCode:
            return .accepted(string("message"))
        }
    }

    func authorize(_ request: HTTPRequest, with bearer: Bearer) -> HTTPRequest {
        var request = request
        request.headers["Authorization"] = "Bearer \(bearer.token.reveal())"
        request.headers["X-User-Id"] = bearer.userID
        return request
    }

    func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        switch response.status {
        case 200..<300: .accepted(nil)
        case 400: .failed(.badRequest(nil))
        case 401: .failed(.unauthorized(nil))
        case 403: .failed(.forbidden(nil))
        case 404: .failed(.notFound(nil))
        case 409: .failed(.conflict(nil))
        case 429: .failed(.rateLimited(retryAfter: nil))
        default: .failed(.server(status: response.status, nil))
        }
    }

    func realtimeURL(token: AccessToken) -> URL? {
        guard hasRealtime else { return nil }
        return URL(string: "ws://stub.test/ws?token=\(token.reveal())")
    }
}
