import Foundation

/// A server that is none of the five documented backends, with paths and JSON keys of its own:
/// what an app's own API might look like. `CustomServerExample` signs in against it and its test
/// starts it in process, on a free loopback port.
///
/// - `POST /session` `{"user", "pass"}` → 200 `{"jwt", "renew", "ttl"}`: a JWT-shaped access
///   token (its `exp` is `ttl` seconds on), a renew token and the token's lifetime in seconds;
///   401 `{"message": "wrong user or password"}`; 400 `{"message"}` for a body that is not that.
/// - `POST /session/renew` `{"renew"}` → 200 as above, the renew token rotated; a renew token
///   presented again after its rotation is refused (401) and ends the whole session.
/// - `DELETE /session` with `Authorization: Bearer <jwt>` → 204: the session ends.
/// - `GET /me` with the bearer → 200 `{"id", "name"}`; 401 `{"message": "token expired"}` or
///   `{"message": "not signed in"}`.
///
/// Tokens are recognised by looking them up, never by a signature.
public final class CustomSessionServer: Sendable {
    /// A user the server knows.
    public struct User: Sendable {
        /// The name the user signs in with (`user`).
        public var name: String
        /// The password (`pass`).
        public var password: String
        /// The name shown (`GET /me`'s `name`).
        public var displayName: String

        /// A user.
        public init(name: String, password: String, displayName: String) {
            self.name = name
            self.password = password
            self.displayName = displayName
        }
    }

    private struct Session {
        var user: String
        var access: String
        var accessExpires: Date
        var renew: String
        var consumed: Set<String> = []
        var ended = false
    }

    private struct State {
        var sessions: [Session] = []
        var requests: [String: Int] = [:]
    }

    /// The users it knows; `ada` / `lovelace-1815` unless given.
    public let users: [User]
    /// The access tokens' lifetime, in seconds.
    public let ttl: Int
    private let now: @Sendable () -> Date
    private let state = Locked(State())
    private let http = Locked<HTTPServer?>(nil)

    /// A server knowing `users`, granting access tokens for `ttl` seconds by the clock `now`.
    public init(
        users: [User] = [User(name: "ada", password: "lovelace-1815", displayName: "Ada Lovelace")], ttl: Int = 900,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.users = users
        self.ttl = ttl
        self.now = now
    }

    /// Starts serving on 127.0.0.1 at `port` (0: a free one); returns the server's root URL.
    public func start(port: UInt16 = 0) throws(ReferenceServerError) -> URL {
        let limits = HTTPServer.Limits(maxHeaderBytes: 16 * 1024, maxBodyBytes: 64 * 1024, readTimeout: 5, backlog: 64)
        let server = HTTPServer(limits: limits) { [self] request, _ in .respond(answer(request)) }
        let bound = try server.start(port: port)
        http.withLock { $0 = server }
        return URL(string: "http://127.0.0.1:\(bound)")!
    }

    /// Stops serving; every connection and thread has ended on return.
    public func stop() {
        let server = http.withLock { server -> HTTPServer? in
            defer { server = nil }
            return server
        }
        server?.stop()
    }

    /// How many `method` `path` requests it answered.
    public func requests(_ method: String, _ path: String) -> Int {
        state.withLock { $0.requests["\(method) \(path)"] ?? 0 }
    }

    /// Whether some session that has not ended holds `renew` as its current renew token.
    public func isLive(renew: String) -> Bool {
        state.withLock { state in state.sessions.contains { !$0.ended && $0.renew == renew } }
    }

    /// How many sessions are open (not ended).
    public var openSessions: Int { state.withLock { $0.sessions.filter { !$0.ended }.count } }

    // MARK: Answers

    private func answer(_ request: ServerRequest) -> ServerResponse {
        state.withLock { $0.requests["\(request.method) \(request.path)", default: 0] += 1 }
        let body = JSONValue.decode(request.body)?.object ?? [:]
        switch (request.method, request.path) {
        case ("POST", "/session"):
            guard let name = body["user"]?.string, let password = body["pass"]?.string else { return Self.message(400, "user and pass required") }
            guard users.contains(where: { $0.name == name && $0.password == password }) else {
                return Self.message(401, "wrong user or password")
            }
            let session = Session(user: name, access: "", accessExpires: now(), renew: "")
            return grant(session, index: nil)
        case ("POST", "/session/renew"):
            guard let renew = body["renew"]?.string else { return Self.message(400, "renew required") }
            let found = state.withLock { state -> (Int, Session, reused: Bool)? in
                guard let index = state.sessions.firstIndex(where: { $0.renew == renew || $0.consumed.contains(renew) }) else { return nil }
                if state.sessions[index].renew != renew { state.sessions[index].ended = true }  // Reuse ends the session.
                return (index, state.sessions[index], state.sessions[index].renew != renew)
            }
            guard let (index, session, reused) = found, !reused, !session.ended else { return Self.message(401, "session ended") }
            return grant(session, index: index)
        case ("DELETE", "/session"):
            guard let index = authorizedSession(request) else { return Self.message(401, "not signed in") }
            state.withLock { $0.sessions[index].ended = true }
            return ServerResponse(status: 204)
        case ("GET", "/me"):
            guard let index = authorizedSession(request) else { return Self.message(401, "not signed in") }
            let (user, expires) = state.withLock { ($0.sessions[index].user, $0.sessions[index].accessExpires) }
            guard expires > now() else { return Self.message(401, "token expired") }
            let shown = users.first { $0.name == user }?.displayName ?? user
            return .json(200, .object(["id": .string(user), "name": .string(shown)]))
        default:
            return Self.message(404, "no such endpoint")
        }
    }

    /// A fresh access token and renew token for `session` (new when `index` is `nil`), stored.
    private func grant(_ session: Session, index: Int?) -> ServerResponse {
        var session = session
        let expires = now().addingTimeInterval(TimeInterval(ttl))
        if !session.renew.isEmpty { session.consumed.insert(session.renew) }
        session.access = JWT.make(claims: ["sub": .string(session.user), "exp": .int(Int(expires.timeIntervalSince1970))])
        session.accessExpires = expires
        session.renew = Secrets.opaqueToken(byteCount: 24)
        let stored = session
        state.withLock { state in
            if let index { state.sessions[index] = stored } else { state.sessions.append(stored) }
        }
        return .json(200, .object(["jwt": .string(session.access), "renew": .string(session.renew), "ttl": .int(ttl)]))
    }

    /// The open session whose access token the request's bearer is.
    private func authorizedSession(_ request: ServerRequest) -> Int? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        return state.withLock { state in state.sessions.firstIndex { !$0.ended && $0.access == token } }
    }

    private static func message(_ status: Int, _ text: String) -> ServerResponse {
        .json(status, .object(["message": .string(text)]))
    }
}
