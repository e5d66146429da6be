import Foundation

/// Subspace (seed 003): register returns a token at once, login, `/auth/me`, `/health`,
/// 24 h JWT (claims `user_id`, `email`, `exp`, `iat`), no refresh, a per-client rate limit
/// answered with 429 and `Retry-After`. camelCase bodies, errors `{"error": …}`.
///
/// "email already exists" has no documented status; this server answers 409.
struct Subspace: Contract {
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
        ]
    }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        .json(rejection.status, ["error": .string(rejection.message)], headers: rejection.headers)
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
            throw Rejection(400, "invalid email format")
        }
        guard let password = body.fields["password"]?.string, password.count >= 8 else {
            throw Rejection(400, "password must be at least 8 characters")
        }
        let now = services.clock.now
        let user = try state.withLock { state throws(Rejection) -> User in
            guard state.users[email] == nil else { throw Rejection(409, "email already exists") }
            let user = User(id: Secrets.uuid(), name: name, email: email, password: password, createdAt: now)
            state.users[email] = user
            return user
        }
        return .json(201, ["token": .string(token(for: user)), "user": json(user)])
    }

    private func login(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = body.string("email")?.lowercased() ?? ""
        let password = body.fields["password"]?.string ?? ""
        guard let user = state.withLock({ $0.users[email] }), user.password == password else {
            throw Rejection(401, "invalid credentials")
        }
        return .json(200, ["token": .string(token(for: user)), "user": json(user)])
    }

    private func me(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try services.authorize(
            request, for: backend, missing: "missing authorization header", invalid: "invalid token",
            expired: "token has expired"
        )
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
        let stamp = JSONValue.string(Validation.iso8601(user.createdAt))
        return ["id": .string(user.id), "name": .string(user.name), "email": .string(user.email),
                "createdAt": stamp, "updatedAt": stamp]
    }
}
