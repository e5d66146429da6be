import Foundation

/// Anonymous Wall, as its API document describes it (summarised in `Fixtures/anonymousWall/README.md`):
/// email codes per purpose, registration that signs in before a
/// password exists, login by code or password, set/change password (bearer + `X-User-Id`),
/// reset by code with auto-login. camelCase bodies, errors `{"error": …}`.
///
/// Choices where the document is loose: errors are `{"error": "<message>"}`; a wrong old password
/// on change is 400 (not 401, which clients treat as "session expired"); a mismatched
/// `X-User-Id` is 403; setting a password twice is 400; a code login for an unknown email creates
/// the account (`passwordSet: false`) unless `codeLoginCreatesAccount` is off, then it is 401.
///
/// With `deployed` set it answers as the server people run does: users without `passwordSet`
/// (the access token's `passwordSet` claim says it), a wrong email or password on
/// `/login/password` as 400 (and 400 "Password not set for this account" for a code-only account),
/// and 409 with an empty body.
struct AnonymousWall: Contract {
    private enum Purpose: String {
        case register
        case login
        case resetPassword = "reset_password"
    }

    private struct User {
        var id: String
        var email: String
        var password: String?
        var createdAt: Date
    }

    private struct PendingCode {
        var code: String
        var expiresAt: Date
    }

    private struct CodeKey: Hashable {
        var email: String
        var purpose: String
    }

    private struct State {
        var users: [String: User] = [:]
        var codes: [CodeKey: PendingCode] = [:]
    }

    let backend = ServedBackend.anonymousWall
    private let services: Services
    private let state = Locked(State())

    init(services: Services) {
        self.services = services
    }

    private var settings: Configuration.AnonymousWall { services.configuration.anonymousWall }

    var routes: [Route] {
        [
            Route("POST", "/api/v1/auth/email/send-code", sendCode),
            Route("POST", "/api/v1/auth/register/email", register),
            Route("POST", "/api/v1/auth/login/email", loginWithCode),
            Route("POST", "/api/v1/auth/login/password", loginWithPassword),
            Route("POST", "/api/v1/auth/password/set", setPassword),
            Route("POST", "/api/v1/auth/password/change", changePassword),
            Route("POST", "/api/v1/auth/password/reset-request", resetRequest),
            Route("POST", "/api/v1/auth/password/reset", reset),
        ]
    }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        // Deployed: `HttpResponse.status(CONFLICT)` with no body.
        if settings.deployed, rejection.status == 409 { return ServerResponse(status: 409, headers: rejection.headers) }
        return .json(rejection.status, ["error": .string(rejection.message)], headers: rejection.headers)
    }

    // MARK: Handlers

    private func sendCode(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try schoolEmail(body)
        guard let purpose = body.string("purpose").flatMap(Purpose.init(rawValue:)) else {
            throw Rejection(400, "Purpose must be one of register, login, reset_password")
        }
        if purpose == .register, state.withLock({ $0.users[email] }) != nil {
            throw Rejection(409, "Email already registered")
        }
        issueCode(to: email, purpose: purpose)
        return .json(200, ["message": "Verification code sent to email"])
    }

    private func register(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try schoolEmail(body)
        let code = try body.require("code", "Verification code is required")
        let now = services.clock.now
        let user = try state.withLock { state throws(Rejection) -> User in
            guard state.users[email] == nil else { throw Rejection(409, "Email already registered") }
            try AnonymousWall.consume(code, for: email, purpose: .register, in: &state, now: now)
            let user = User(id: Secrets.uuid(), email: email, password: nil, createdAt: now)
            state.users[email] = user
            return user
        }
        return signedIn(user, status: 201)
    }

    private func loginWithCode(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try schoolEmail(body)
        let code = try body.require("code", "Verification code is required")
        let now = services.clock.now
        let createsAccount = settings.codeLoginCreatesAccount
        let user = try state.withLock { state throws(Rejection) -> User in
            if state.users[email] == nil && !createsAccount { throw Rejection(401, "Invalid email or verification code") }
            try AnonymousWall.consume(code, for: email, purpose: .login, in: &state, now: now)
            let user = state.users[email] ?? User(id: Secrets.uuid(), email: email, password: nil, createdAt: now)
            state.users[email] = user
            return user
        }
        return signedIn(user, status: 200)
    }

    private func loginWithPassword(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try body.require("email", "Email is required").lowercased()
        let password = try body.requireSecret("password", "Password is required")
        let user = state.withLock({ $0.users[email] })
        if settings.deployed, let user, user.password == nil { throw Rejection(400, "Password not set for this account") }
        guard let user, let stored = user.password, stored == password else {
            throw Rejection(settings.deployed ? 400 : 401, "Invalid email or password")  // Deployed: never 401.
        }
        return signedIn(user, status: 200)
    }

    private func setPassword(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let userID = try authorizedUser(request)
        let body = try request.jsonObject()
        let password = try body.requireSecret("password", "Password is required")
        try checkStrength(password)
        let user = try state.withLock { state throws(Rejection) -> User in
            guard var user = state.users.values.first(where: { $0.id == userID }) else {
                throw Rejection(401, "Unauthorized")
            }
            guard user.password == nil else { throw Rejection(400, "Password already set; use change password") }
            user.password = password
            state.users[user.email] = user
            return user
        }
        return .json(200, json(user))
    }

    private func changePassword(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let userID = try authorizedUser(request)
        let body = try request.jsonObject()
        let old = try body.requireSecret("oldPassword", "Old password is required")
        let new = try body.requireSecret("newPassword", "New password is required")
        try checkStrength(new)
        let user = try state.withLock { state throws(Rejection) -> User in
            guard var user = state.users.values.first(where: { $0.id == userID }) else {
                throw Rejection(401, "Unauthorized")
            }
            guard user.password == old else { throw Rejection(400, "Current password is incorrect") }
            user.password = new
            state.users[user.email] = user
            return user
        }
        return .json(200, json(user))
    }

    private func resetRequest(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try body.require("email", "Email is required").lowercased()
        guard Validation.isEmail(email) else { throw Rejection(400, "Invalid email format") }
        if state.withLock({ $0.users[email] }) != nil {
            issueCode(to: email, purpose: .resetPassword)
        }
        return .json(200, ["message": "Password reset code sent to email"])
    }

    private func reset(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try body.require("email", "Email is required").lowercased()
        let code = try body.require("code", "Verification code is required")
        let password = try body.requireSecret("newPassword", "New password is required")
        try checkStrength(password)
        let now = services.clock.now
        let user = try state.withLock { state throws(Rejection) -> User in
            guard var user = state.users[email] else { throw Rejection(400, "Invalid or expired verification code") }
            try AnonymousWall.consume(code, for: email, purpose: .resetPassword, in: &state, now: now)
            user.password = password
            state.users[email] = user
            return user
        }
        services.sessions.revokeAllSessions(of: user.id, for: backend)
        return signedIn(user, status: 200)
    }

    // MARK: Helpers

    /// The body's `email`, lowercased, checked for format (400) and school domain (403).
    private func schoolEmail(_ body: JSONBody) throws(Rejection) -> String {
        let email = try body.require("email", "Email is required").lowercased()
        guard Validation.isEmail(email) else { throw Rejection(400, "Invalid email format") }
        guard settings.schoolEmailSuffixes.contains(where: { email.hasSuffix($0.lowercased()) }) else {
            throw Rejection(403, "Only school email addresses are allowed")
        }
        return email
    }

    private func checkStrength(_ password: String) throws(Rejection) {
        guard password.count >= 8 else { throw Rejection(400, "Password must be at least 8 characters") }
    }

    /// The user id of a valid bearer token whose `X-User-Id` header names the same user.
    private func authorizedUser(_ request: ContractRequest) throws(Rejection) -> String {
        let grant = try services.authorize(
            request, for: backend, missing: "Unauthorized", invalid: "Invalid or expired token",
            expired: "Invalid or expired token"
        )
        guard let claimed = request.http.headers["X-User-Id"] else {
            throw Rejection(400, "X-User-Id header is required")
        }
        guard claimed == grant.subject else { throw Rejection(403, "User ID does not match token") }
        return grant.subject
    }

    private func issueCode(to email: String, purpose: Purpose) {
        let code = Secrets.sixDigitCode()
        let expiresAt = services.clock.now.addingTimeInterval(settings.codeLifetime)
        state.withLock { $0.codes[CodeKey(email: email, purpose: purpose.rawValue)] = PendingCode(code: code, expiresAt: expiresAt) }
        let kind: OutboxMessage.Kind
        switch purpose {
        case .register: kind = .registrationCode
        case .login: kind = .loginCode
        case .resetPassword: kind = .passwordResetCode
        }
        services.send(backend, to: email, kind: kind, code: code)
    }

    /// Uses up the pending code for `email` and `purpose`, or throws 400 when it is wrong or expired.
    private static func consume(_ code: String, for email: String, purpose: Purpose, in state: inout State, now: Date) throws(Rejection) {
        let key = CodeKey(email: email, purpose: purpose.rawValue)
        guard let pending = state.codes[key], pending.code == code, pending.expiresAt > now else {
            throw Rejection(400, "Invalid or expired verification code")
        }
        state.codes[key] = nil
    }

    private func signedIn(_ user: User, status: Int) -> ServerResponse {
        var claims: [String: JSONValue] = ["email": .string(user.email)]
        if settings.deployed { claims["passwordSet"] = .bool(user.password != nil) }  // A snapshot, as Micronaut's attribute.
        let issued = services.sessions.open(backend, subject: user.id, claims: claims, refreshLifetime: nil)
        return .json(status, ["user": json(user), "accessToken": .string(issued.accessToken)])
    }

    private func json(_ user: User) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(user.id),
            "email": .string(user.email),
            "isVerified": true,
            "createdAt": .string(format(user.createdAt)),
        ]
        // Deployed: `UserMapper` never fills `passwordSet`, and null fields are dropped.
        if !settings.deployed { fields["passwordSet"] = .bool(user.password != nil) }
        return .object(fields)
    }

    private func format(_ date: Date) -> String {
        switch settings.dateStyle {
        case .iso8601:
            return Validation.iso8601(date)
        case let .zonedWithRegion(identifier):
            let zone = TimeZone(identifier: identifier) ?? TimeZone(secondsFromGMT: 0)!
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXXXX"
            return formatter.string(from: date) + "[\(zone.identifier)]"
        }
    }
}
