import Foundation

/// VynqTalk, as its API document describes it (summarised in `Fixtures/vynqTalk/README.md`), a
/// Vapor server: `POST /auth/signup`, `POST /auth/login`, protected
/// `GET /users`, `GET /users/me` (the bearer's own user) and `GET /users/search?query=`. Every API answer is the `{"success","data","message"}`
/// envelope (Requirement 4.1), the app's own refusals included: bad credentials (401) and a taken
/// email (409) are `success: false` with their HTTP status and the message to show (4.2). Framework
/// errors (input validation, an undecodable body, the token middleware, unknown routes) use Vapor's
/// default `{"error": true, "reason": …}` with the HTTP status.
/// `Fault.successFalse` makes any endpoint answer HTTP 200 with `success: false`.
///
/// `GET /ws?token=<accessToken>` upgrades to a WebSocket when the token is valid (401 in Vapor's
/// body otherwise). The server greets with `{"type":"connected","userId":…}`, answers every text
/// message with `{"type":"echo","data":<text>}`, and closes with 1008 once the token has expired
/// or been revoked; `ReferenceServer.disconnectWebSockets()` closes every socket with 1001 so
/// clients can practise reconnecting.
///
/// A suspended account (`ReferenceServer.suspendVynqTalkUser(email:)`) is 403 "Your account is
/// suspended." on every protected call. With `deployed` set, a refused login is HTTP 200 with
/// `{"success": false, "message": "Incorrect Password."}`, and `/ws` answers as the server people run
/// does: it always switches protocols, then closes at once (1001, no message) when the token is
/// missing, invalid or expired, and for a suspended user sends `online_users` and `user_suspended`
/// (the `{"success","data","message"}` envelope, the event in `message`) before closing.
struct VynqTalk: Contract {
    private struct User {
        var id: String
        var name: String
        var email: String
        var password: String
        var createdAt: Date
    }

    let backend = ServedBackend.vynqTalk
    private let services: Services
    private let users = Locked<[String: User]>([:])
    private let sockets = Locked<[ObjectIdentifier: WebSocket]>([:])
    /// The ids of suspended users.
    private let suspended = Locked<Set<String>>([])

    init(services: Services) {
        self.services = services
    }

    var routes: [Route] {
        [
            Route("POST", "/auth/signup", signup),
            Route("POST", "/auth/login", login),
            Route("GET", "/users", list),
            Route("GET", "/users/me", me),
            Route("GET", "/users/search", search),
            Route("GET", "/ws", webSocket),
        ]
    }

    /// Closes every open WebSocket with 1001 (going away).
    func disconnectWebSockets() {
        for socket in sockets.withLock({ Array($0.values) }) {
            socket.close(code: 1001, reason: "Server going away")
        }
    }

    /// Suspends the account registered with `email`, as VynqTalk's admin does; `false` when there is none.
    func suspend(email: String) -> Bool {
        guard let user = users.withLock({ $0[email.lowercased()] }) else { return false }
        suspended.withLock { _ = $0.insert(user.id) }
        return true
    }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        .json(rejection.status, ["error": true, "reason": .string(rejection.message)], headers: rejection.headers)
    }

    private func signup(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let name = try body.require("name", "Name, email and password are required")
        let email = try body.require("email", "Name, email and password are required").lowercased()
        let password = try body.requireSecret("password", "Name, email and password are required")
        guard Validation.isEmail(email) else { throw Rejection(400, "Invalid email address") }
        guard password.count >= 8 else { throw Rejection(400, "Password must be at least 8 characters") }
        let now = services.clock.now
        let created = users.withLock { users -> User? in
            guard users[email] == nil else { return nil }
            let user = User(id: Secrets.uuid(), name: name, email: email, password: password, createdAt: now)
            users[email] = user
            return user
        }
        guard let user = created else { return refused(409, "A user with this email already exists") }
        return signedIn(user, message: "User created successfully")
    }

    private func login(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = body.string("email")?.lowercased() ?? ""
        let password = body.fields["password"]?.string ?? ""
        guard let user = users.withLock({ $0[email] }), user.password == password else {
            // The deployed server answers a refused login 200, `success: false`, no `data`; an
            // unknown email the same way here (it was seen answering a wrong password only).
            guard !services.configuration.vynqTalk.deployed else {
                return .json(200, ["success": false, "message": "Incorrect Password."])
            }
            return refused(401, "Invalid email or password")
        }
        return signedIn(user, message: "Login successful")
    }

    /// The app's own refusal: the envelope with `success: false`, under `status`.
    private func refused(_ status: Int, _ message: String) -> ServerResponse {
        .json(status, ["success": false, "data": nil, "message": .string(message)])
    }

    private func list(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        try authorize(request)
        let all = users.withLock { $0.values.sorted { $0.createdAt < $1.createdAt } }
        return .json(200, ["success": true, "data": .array(all.map(json)), "message": nil])
    }

    /// `GET /users/me`: the bearer's own user in the envelope; 401 without a valid token, 403 suspended.
    private func me(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let subject = try authorize(request)
        guard let user = users.withLock({ $0.values.first { $0.id == subject } }) else { throw Rejection(404, "User not found") }
        return .json(200, ["success": true, "data": json(user), "message": nil])
    }

    private func search(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        try authorize(request)
        let query = (request.http.query["query"] ?? "").lowercased()
        let found = users.withLock { users in
            users.values.filter { query.isEmpty || $0.name.lowercased().contains(query) || $0.email.contains(query) }
                .sorted { $0.createdAt < $1.createdAt }
        }
        return .json(200, ["success": true, "data": .array(found.map(json)), "message": nil])
    }

    private func webSocket(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let token = request.http.query["token"] ?? ""
        let grant: SessionStore.Grant? =
            if !token.isEmpty, case let .valid(grant) = services.sessions.checkAccess(token, for: backend) { grant } else { nil }
        let isSuspended = grant.map { grant in suspended.withLock { $0.contains(grant.subject) } } ?? false
        let deployed = services.configuration.vynqTalk.deployed
        if !deployed {
            guard grant != nil else { throw Rejection(401, "Unauthorized") }
            guard !isSuspended else { throw Rejection(403, "Your account is suspended.") }
        }
        guard request.http.headers["Upgrade"]?.lowercased() == "websocket",
            let key = request.http.headers["Sec-WebSocket-Key"]
        else {
            throw Rejection(426, "Expected a WebSocket upgrade request")
        }
        let sessions = services.sessions
        let backend = backend
        let sockets = sockets
        return .switchingToWebSocket(key: key) { socket in
            guard let grant else {
                socket.close(code: 1001)  // Deployed: upgraded before the token was read, then closed at once, no message.
                return
            }
            if isSuspended {
                // Deployed: registered (every connection hears `online_users`), told, then closed.
                let online: JSONValue = ["success": true, "data": ["userIds": [.string(grant.subject)]], "message": "online_users"]
                let told: JSONValue = [
                    "success": true, "data": ["userId": .string(grant.subject), "suspended": true], "message": "user_suspended",
                ]
                socket.send(text: String(decoding: online.encoded(), as: UTF8.self))
                socket.send(text: String(decoding: told.encoded(), as: UTF8.self))
                socket.close(code: 1001)
                return
            }
            sockets.withLock { $0[ObjectIdentifier(socket)] = socket }
            defer { _ = sockets.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) } }
            let greeting: JSONValue = ["type": "connected", "userId": .string(grant.subject)]
            socket.send(text: String(decoding: greeting.encoded(), as: UTF8.self))
            while let message = socket.receive() {
                guard case .valid = sessions.checkAccess(token, for: backend) else {
                    socket.close(code: 1008, reason: "Token expired")
                    return
                }
                let data: JSONValue
                switch message {
                case let .text(text): data = .string(text)
                case let .binary(bytes): data = .string(bytes.base64EncodedString())
                }
                let echo: JSONValue = ["type": "echo", "data": data]
                socket.send(text: String(decoding: echo.encoded(), as: UTF8.self))
            }
        }
    }

    /// The bearer's user id, once its token is valid and its user not suspended.
    @discardableResult
    private func authorize(_ request: ContractRequest) throws(Rejection) -> String {
        let grant = try services.authorize(request, for: backend, missing: "Unauthorized", invalid: "Unauthorized", expired: "Token expired")
        guard !suspended.withLock({ $0.contains(grant.subject) }) else { throw Rejection(403, "Your account is suspended.") }
        return grant.subject
    }

    private func signedIn(_ user: User, message: String) -> ServerResponse {
        let issued = services.sessions.open(backend, subject: user.id, claims: ["email": .string(user.email)], refreshLifetime: nil)
        return .json(
            200,
            [
                "success": true,
                "data": ["accessToken": .string(issued.accessToken), "user": json(user)],
                "message": .string(message),
            ])
    }

    private func json(_ user: User) -> JSONValue {
        [
            "id": .string(user.id), "name": .string(user.name), "email": .string(user.email),
            "createdAt": .string(Validation.iso8601(user.createdAt)),
        ]
    }
}
