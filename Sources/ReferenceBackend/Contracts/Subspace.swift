import Foundation

/// Subspace, as its API document describes it (summarised in `Fixtures/subspace/README.md`):
/// register returns a token at once, login, `/auth/me`, `/health`,
/// 24 h JWT (claims `user_id`, `email`, `exp`, `iat`), no refresh, a per-client rate limit
/// answered with 429 and `Retry-After`. camelCase bodies, errors `{"error": …}`.
///
/// "email already exists" has no documented status; this server answers 409.
///
/// With `deployed` set it answers as the server people run does: register and login answer
/// `{"accessToken", "refreshToken", "user"}` (dates with fractional seconds), `POST /auth/refresh`
/// with `{"refreshToken"}` rotates (a consumed, revoked or expired token is 401), errors are
/// `{"error": "<status text>", "message": "<detail>"}` with the deployed wording, and the bearer
/// check and the rate limit answer plain text (the limit without `Retry-After`). It also signs in
/// natively, which the document does not describe: `POST /auth/apple` and `POST /auth/google` with
/// `{"userId", "identityToken", "authorizationCode"?, "email"?, "fullName"?: {"givenName",
/// "familyName"}}`, answered as login is.
struct Subspace: Contract {
    /// The `iss` of each provider's identity tokens.
    static let issuers = ["apple": "https://appleid.apple.com", "google": "https://accounts.google.com"]

    private struct User {
        var id: String
        var name: String
        var email: String
        var password: String
        var createdAt: Date
    }

    private struct Window {
        var start: Date
        var count: Int
    }

    private struct State {
        var users: [String: User] = [:]
        var windows: [String: Window] = [:]
        /// Users signed in natively, by `provider:sub` of their identity token.
        var providerUsers: [String: String] = [:]
    }

    let backend = ServedBackend.subspace
    private let services: Services
    private let state: Locked<State>

    init(services: Services) {
        self.services = services
        var initial = State()
        let now = services.clock.now
        for email in ["admin@subspace.dev", "test@subspace.dev"] {
            let name = email == "admin@subspace.dev" ? "Admin" : "Test User"
            initial.users[email] = User(id: Secrets.uuid(), name: name, email: email, password: "admin123", createdAt: now)
        }
        state = Locked(initial)
    }

    var routes: [Route] {
        [
            Route("GET", "/health", health),
            Route("POST", "/api/v1/auth/register", register),
            Route("POST", "/api/v1/auth/login", login),
            Route("GET", "/api/v1/auth/me", me),
            Route("POST", "/api/v1/auth/refresh", refresh),
            Route("POST", "/api/v1/auth/apple", { (request) throws(Rejection) in try nativeSignIn(request, provider: "apple") }),
            Route("POST", "/api/v1/auth/google", { (request) throws(Rejection) in try nativeSignIn(request, provider: "google") }),
        ]
    }

    private var deployed: Bool { services.configuration.subspace.deployed }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        guard deployed else { return .json(rejection.status, ["error": .string(rejection.message)], headers: rejection.headers) }
        if rejection.status == 429 { return Self.plainText(429, "Rate limit exceeded. Please try again later.") }
        return .json(
            rejection.status, ["error": .string(ServerResponse.reason(for: rejection.status)), "message": .string(rejection.message)],
            headers: rejection.headers)
    }

    /// Go's `http.Error`: plain text with a trailing newline.
    private static func plainText(_ status: Int, _ message: String) -> ServerResponse {
        var headers = ServerHeaders()
        headers.set("Content-Type", "text/plain; charset=utf-8")
        headers.set("X-Content-Type-Options", "nosniff")
        return ServerResponse(status: status, headers: headers, body: Data((message + "\n").utf8))
    }

    /// The rate limit: `rateLimit` requests per client (IP address) per fixed window.
    func admit(_ request: ContractRequest) -> Rejection? {
        let settings = services.configuration.subspace
        let now = services.clock.now
        return state.withLock { state in
            var window = state.windows[request.remoteAddress] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(window.start) >= settings.rateLimitWindow {
                window = Window(start: now, count: 0)
            }
            window.count += 1
            state.windows[request.remoteAddress] = window
            guard window.count > settings.rateLimit else { return nil }
            let wait = settings.rateLimitWindow - now.timeIntervalSince(window.start)
            var headers = ServerHeaders()
            headers.set("Retry-After", String(max(1, Int(wait.rounded(.up)))))
            return Rejection(429, "rate limit exceeded", headers: headers)
        }
    }

    private func health(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        .json(200, ["status": "healthy", "timestamp": .string(Validation.iso8601(services.clock.now))])
    }

    private func register(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let name = try body.require("name", "name is required")
        guard name.count <= 255 else { throw Rejection(400, "name must be at most 255 characters") }
        guard let email = body.string("email")?.lowercased(), Validation.isEmail(email), email.count <= 255 else {
            throw Rejection(400, deployed ? "invalid email address" : "invalid email format")
        }
        guard let password = body.fields["password"]?.string, password.count >= 8 else {
            throw Rejection(400, "password must be at least 8 characters")
        }
        let now = services.clock.now
        let user = try state.withLock { state throws(Rejection) -> User in
            guard state.users[email] == nil else { throw Rejection(409, deployed ? "email already registered" : "email already exists") }
            let user = User(id: Secrets.uuid(), name: name, email: email, password: password, createdAt: now)
            state.users[email] = user
            return user
        }
        return signedIn(user, status: 201)
    }

    private func login(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = body.string("email")?.lowercased() ?? ""
        let password = body.fields["password"]?.string ?? ""
        // An account made by native sign-in has no password: no password signs in to it.
        guard let user = state.withLock({ $0.users[email] }), !user.password.isEmpty, user.password == password else {
            throw Rejection(401, deployed ? "invalid email or password" : "invalid credentials")
        }
        return signedIn(user, status: 200)
    }

    /// Deployed only: rotates the presented refresh token into a new pair.
    private func refresh(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        guard deployed else { throw Rejection(404, "not found") }
        let body = try request.jsonObject()
        guard let presented = body.fields["refreshToken"]?.string, !presented.isEmpty else {
            throw Rejection(400, "refresh token is required")
        }
        let settings = services.configuration.subspace
        switch services.sessions.rotate(presented, for: backend, refreshLifetime: settings.refreshTokenLifetime) {
        case let .rotated(grant, next):
            guard let user = state.withLock({ $0.users.values.first { $0.id == grant.subject } }) else {
                throw Rejection(404, "User not found")
            }
            let access = services.sessions.issueAccessToken(for: grant, backend: backend)
            return .json(200, ["accessToken": .string(access), "refreshToken": .string(next), "user": json(user)])
        case .reuseDetected, .revoked: throw Rejection(401, "refresh token has been revoked")
        case .expired: throw Rejection(401, "refresh token has expired")
        case .unknown: throw Rejection(401, "invalid refresh token")
        }
    }

    /// Deployed only: `POST /auth/{provider}` with the provider's `identityToken`, checked here by
    /// its claims (a JWT whose `iss` is the provider's and whose `sub` names the user, and is the
    /// `userId` when one is sent); `authorizationCode` is accepted and not exchanged (no provider is
    /// reachable). The account is found by that `sub`, else by the token's (or the body's) email,
    /// else created with the `fullName` and `email` the body shares; an account without a name
    /// takes one from the shared name. Answered as login is.
    private func nativeSignIn(_ request: ContractRequest, provider: String) throws(Rejection) -> ServerResponse {
        guard deployed else { throw Rejection(404, "not found") }
        let body = try request.jsonObject()
        guard let token = body.fields["identityToken"]?.string, !token.isEmpty else {
            throw Rejection(400, "identity token is required")
        }
        let userID = body.string("userId")
        guard let claims = JWT.claims(of: token), claims["iss"]?.string == Self.issuers[provider],
            let subject = claims["sub"]?.string, !subject.isEmpty, userID == nil || userID == subject
        else { throw Rejection(401, "invalid \(provider) identity token") }
        let shared = body.fields["fullName"]?.object
        let parts = ["givenName", "familyName"].compactMap { shared?[$0]?.string?.trimmingCharacters(in: .whitespacesAndNewlines) }
        let name = parts.filter { !$0.isEmpty }.joined(separator: " ")
        let email = (claims["email"]?.string ?? body.string("email"))?.lowercased()
        let now = services.clock.now
        let user = try state.withLock { state throws(Rejection) -> User in
            let key = provider + ":" + subject
            let linked = state.providerUsers[key]
            guard var known = state.users.values.first(where: { $0.id == linked }) ?? email.flatMap({ state.users[$0] }) else {
                // A new account needs an email: the token's, or the one the provider shared.
                guard let email, Validation.isEmail(email) else { throw Rejection(400, "invalid email address") }
                let user = User(id: Secrets.uuid(), name: name, email: email, password: "", createdAt: now)
                state.users[email] = user
                state.providerUsers[key] = user.id
                return user
            }
            state.providerUsers[key] = known.id
            if known.name.isEmpty, !name.isEmpty {
                known.name = name
                state.users[known.email] = known
            }
            return known
        }
        return signedIn(user, status: 200)
    }

    /// The documented `{"token", "user"}`, or the deployed `{"accessToken", "refreshToken", "user"}`.
    private func signedIn(_ user: User, status: Int) -> ServerResponse {
        guard deployed else { return .json(status, ["token": .string(token(for: user)), "user": json(user)]) }
        let issued = services.sessions.open(
            backend, subject: user.id, claims: ["user_id": .string(user.id), "email": .string(user.email)],
            refreshLifetime: services.configuration.subspace.refreshTokenLifetime)
        return .json(status, ["accessToken": .string(issued.accessToken), "refreshToken": .string(issued.refreshToken ?? ""), "user": json(user)])
    }

    private func me(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant: SessionStore.Grant
        do throws(Rejection) {
            grant = try services.authorize(
                request, for: backend, missing: deployed ? "Missing authorization header" : "missing authorization header",
                invalid: deployed ? "Invalid token" : "invalid token", expired: deployed ? "Token has expired" : "token has expired"
            )
        } catch {
            guard deployed else { throw error }
            return Self.plainText(error.status, error.message)  // The deployed auth middleware's `http.Error`.
        }
        guard let user = state.withLock({ $0.users.values.first { $0.id == grant.subject } }) else {
            throw Rejection(401, "invalid token")
        }
        return .json(200, json(user))
    }

    private func token(for user: User) -> String {
        services.sessions.open(
            backend, subject: user.id, claims: ["user_id": .string(user.id), "email": .string(user.email)],
            refreshLifetime: nil
        ).accessToken
    }

    private func json(_ user: User) -> JSONValue {
        // Deployed: Go's RFC 3339 with fractional seconds (`time.Time` read back from Postgres).
        let stamp = JSONValue.string(deployed ? Self.fractional(user.createdAt) : Validation.iso8601(user.createdAt))
        return [
            "id": .string(user.id), "name": .string(user.name), "email": .string(user.email),
            "createdAt": stamp, "updatedAt": stamp,
        ]
    }

    /// `2025-10-25T13:57:26.123456Z`.
    private static func fractional(_ date: Date) -> String {
        let whole = Validation.iso8601(date)
        let micros = Int((date.timeIntervalSince1970 * 1_000_000).rounded()) % 1_000_000
        guard whole.hasSuffix("Z") else { return whole }
        return String(whole.dropLast()) + "." + String(format: "%06d", max(0, micros)) + "Z"
    }
}
