import AuthCore
import Foundation

/// Everday, as its API document describes it (summarised in `Fixtures/everday/README.md`, with
/// where the deployed server differs): every endpoint relative to `/api`; approval-gated
/// registration (`Status: PendingApproval`), username sign-in answering access and refresh tokens
/// with `ExpiresIn`, rotating refresh, logout revoking the refresh token (with the bearer), forgot
/// and reset by token. PascalCase bodies; errors `{"detail": …}`; a 403 whose detail says
/// "Account pending approval…" is `AuthFailure.pendingApproval(_:)`, any other 403 is
/// `AuthFailure.forbidden(_:)`.
///
/// The registration form has one display name; it is sent as `FirstName` (its first word) and
/// `LastName` (the rest), the document's `RegisterRequest` fields. Optional fields the user left out
/// are omitted, as Swift's `Encodable` does for `nil`.
///
/// The document shows `RequirePasswordChange` but no endpoint to act on it; the deployed server
/// changes a password at `POST /auth/change-password` (Bearer; `{"CurrentPassword",
/// "NewPassword"}`; 200 `{"status":"ok"}`), and answers a wrong current password 401 `Invalid
/// credentials` — read as `AuthFailure.incorrectPassword(_:)`, told apart from the 401 it gives an
/// expired bearer by that detail. Its success revokes every refresh token of the user. The
/// deployed server also deletes the signed-in account at `DELETE /auth/account` (Bearer; 200 with
/// a summary of what it removed; 404, 409 or 500 otherwise).
///
/// The login and refresh answers carry the user's `Role` (`Parent`, `Kid`), read into
/// `UserProfile.role`; a refresh answer's user replaces the stored one, so a changed role is seen.
public struct EverdayContract: BackendContract {
    /// The path prefix in front of every documented endpoint.
    public static let documentedPrefix = "/api"
    /// `https://everday-dev.batserver.au/api`.
    public static let development = EverdayContract(baseURL: URL(string: "https://everday-dev.batserver.au/api")!)
    /// `https://everday.batserver.au/api`.
    public static let production = EverdayContract(baseURL: URL(string: "https://everday.batserver.au/api")!)

    /// Always `Backend.everday`.
    public let backend = Backend.everday
    /// Where the API lives, `/api` included (the document's "Base URL").
    public let baseURL: URL

    private var build: RequestBuilder { RequestBuilder(baseURL: baseURL) }
    private static let messageKeys = ["detail", "Detail", "Message", "message", "error"]

    /// A contract for the API at `baseURL`, which already ends in `/api` as the document writes it.
    public init(baseURL: URL) { self.baseURL = baseURL }

    /// A contract for the server at `server`, whose documented paths start with `/api`.
    public init(server: URL) { self.init(baseURL: RequestBuilder(baseURL: server).url(Self.documentedPrefix)) }

    /// The documented request for `request`.
    public func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest {
        switch request {
        case .register(let details):
            guard case .username(let username) = details.identifier else { throw .unsupported("registration without a username") }
            var body: JSONObject = ["Username": .string(username.rawValue), "Password": .string(details.password.secret.reveal())]
            if let name = details.name {
                let words = name.rawValue.split(separator: " ", maxSplits: 1)
                if let first = words.first { body["FirstName"] = .string(String(first)) }
                if words.count > 1 { body["LastName"] = .string(String(words[1]).trimmingCharacters(in: .whitespaces)) }
            }
            if let email = details.email { body["Email"] = .string(email.rawValue) }
            if let handle = details.discordHandle { body["DiscordHandle"] = .string(handle) }
            return build.json("POST", "/auth/register", body)
        case .signIn(.username(let username), let password):
            return build.json("POST", "/auth/login", ["Username": .string(username.rawValue), "Password": .string(password.secret.reveal())])
        case .refresh(let token):
            return build.json("POST", "/auth/refresh", ["RefreshToken": .string(token.reveal())])
        case .revoke(let token, let bearer):
            return build.json("POST", "/auth/logout", ["RefreshToken": .string(token.reveal())], headers: [RequestBuilder.bearer(bearer.token)])
        case .requestPasswordReset(let identifier):
            let typed: String =
                switch identifier {
                case .email(let email): email.rawValue
                case .usernameOrEmail(let text): text
                }
            return build.json("POST", "/auth/forgot", ["Identifier": .string(typed)])
        case .resetPassword(.token(let proof), let newPassword):
            return build.json(
                "POST", "/auth/reset-password", ["Token": .string(proof.secret.reveal()), "NewPassword": .string(newPassword.secret.reveal())])
        case .signIn(.email, _), .signIn(.phone, _): throw .unsupported("sign-in other than by username")
        case .resetPassword(.emailCode, _): throw .unsupported("password reset by emailed code")
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode: throw .unsupported("email codes")
        case .sendPhoneCode, .signInWithPhoneCode: throw .unsupported("phone codes")
        case .deleteAccount(let bearer):
            return build.bodiless("DELETE", "/auth/account", headers: [RequestBuilder.bearer(bearer.token)])
        case .changePassword(let old, let new, let bearer):
            return build.json(
                "POST", "/auth/change-password",
                ["CurrentPassword": .string(old.secret.reveal()), "NewPassword": .string(new.secret.reveal())],
                headers: [RequestBuilder.bearer(bearer.token)])
        case .setPassword: throw .unsupported("setting a first password")
        case .oauthURL: throw .unsupported("OAuth sign-in")
        case .currentUser: throw .unsupported("a current-user endpoint")
        case .protected: throw .unsupported("protected calls through encode (use authorize)")
        case .openRealtime: throw .unsupported("a realtime connection")
        case .signInNatively: throw .unsupported("native sign-in with an identity token")
        case .exchangeCode: throw .unsupported("an authorization code exchange")
        case .requestDeviceCode, .pollDeviceToken: throw .unsupported("the device authorization grant")
        }
    }

    /// Reads the answer to `request`.
    public func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
        let body = ResponseBody(response)
        guard Self.isSuccess(response.status) else {
            let failure = AnswerReading.failure(response, body: body, keys: Self.messageKeys, request: request, receivedAt: receivedAt)
            if case .changePassword = request, case .unauthorized(let message?) = failure, Self.saysInvalidCredentials(message) {
                return .failed(.incorrectPassword(message))  // The current password, not the bearer.
            }
            return .failed(failure)
        }
        switch request {
        case .register:
            guard let object = body.object else { return .failed(.malformed) }
            if AnswerReading.string(object["Status"])?.lowercased() == "pendingapproval" {
                return .pendingApproval(AnswerReading.string(object["Message"]))
            }
            if object["AccessToken"] != nil { return tokens(object).map(Reply.granted) ?? .failed(.malformed) }
            return .failed(.malformed)
        case .signIn:
            return body.object.flatMap(tokens).map(Reply.granted) ?? .failed(.malformed)
        case .refresh:
            guard let object = body.object, let access = AnswerReading.string(object["AccessToken"]) else { return .failed(.malformed) }
            return .refreshed(
                TokenRefresh(
                    accessToken: AccessToken(access), refreshToken: AnswerReading.string(object["RefreshToken"]).map(RefreshToken.init),
                    expiry: AnswerReading.expiry(expiresIn: object["ExpiresIn"], accessToken: access), user: Self.user(object)))
        case .revoke, .requestPasswordReset, .resetPassword, .changePassword, .deleteAccount:
            // No body to read for these (change-password answers `{"status":"ok"}`, account deletion
            // a count of what it removed): any success is done, with its `Message` if it has one.
            return AnswerReading.acknowledgement(body, keys: Self.messageKeys, request: request)
        case .sendEmailCode, .registerWithEmailCode, .signInWithEmailCode, .sendPhoneCode, .signInWithPhoneCode, .setPassword,
            .oauthURL, .signInNatively, .currentUser, .protected, .openRealtime, .exchangeCode, .requestDeviceCode, .pollDeviceToken:
            return .failed(.malformed)  // Never encoded for this backend.
        }
    }

    /// 2xx is `.accepted(nil)`; anything else by the status taxonomy, pending approval told apart
    /// from forbidden by the `detail`.
    public func classifyProtected(_ response: HTTPResponse, receivedAt: Instant) -> Reply {
        AnswerReading.protected(response, keys: Self.messageKeys, receivedAt: receivedAt)
    }

    // MARK: Reading

    /// The keys of the token answer that are not the user's own fields, or that the profile's
    /// typed fields hold.
    private static let tokenAnswerKeys: Set<String> = [
        "AccessToken", "RefreshToken", "TokenType", "ExpiresIn", "Username", "RequirePasswordChange", "Role", "FirstName",
        "LastName", "Email",
    ]

    /// The user a token answer (login or refresh) describes: named by `Username` (the only
    /// identifier the answer carries), shown by `FirstName LastName` when given, with its `Role`
    /// (`Parent`, `Kid`: the token has no role claim, so this is the only place the app learns it)
    /// and the answer's other members (`DiscordHandle`…) as attributes. `nil` without `Username`.
    private static func user(_ object: JSONObject) -> UserProfile? {
        guard let username = AnswerReading.string(object["Username"]) else { return nil }
        let fullName = [object["FirstName"], object["LastName"]].compactMap(AnswerReading.string).joined(separator: " ")
        return UserProfile(
            id: username, email: AnswerReading.string(object["Email"]), name: fullName.isEmpty ? username : fullName,
            role: AnswerReading.role(object["Role"]), attributes: AnswerReading.attributes(object, except: tokenAnswerKeys))
    }

    /// Whether a 401's detail is the deployed server's wrong-password answer, exactly `Invalid
    /// credentials`, as opposed to what its token check says of a bearer (`Token expired`,
    /// `Invalid token`, `Authentication required`) or the document's catch-all
    /// `invalid credentials/token`, which could be either.
    private static func saysInvalidCredentials(_ message: String) -> Bool {
        var text = message.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text == "invalid credentials"
    }

    /// The document's `TokenResponse`, whose user is ``user(_:)``.
    private func tokens(_ object: JSONObject) -> Grant? {
        guard let access = AnswerReading.string(object["AccessToken"]), let user = Self.user(object) else { return nil }
        return Grant(
            accessToken: AccessToken(access), refreshToken: AnswerReading.string(object["RefreshToken"]).map(RefreshToken.init),
            expiry: AnswerReading.expiry(expiresIn: object["ExpiresIn"], accessToken: access), user: user,
            requiresPasswordChange: AnswerReading.bool(object["RequirePasswordChange"]) ?? false)
    }
}
