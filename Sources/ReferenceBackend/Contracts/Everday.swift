import Foundation

/// Everday, as its API document describes it (summarised in `Fixtures/everday/README.md`):
/// approval-gated registration, rotating refresh with reuse detection,
/// logout, forgot/reset by token. Paths under `/api`, PascalCase bodies, errors `{"detail": …}`.
/// What the deployed server adds or answers otherwise is served too: change-password and account
/// deletion always, the rest under `Configuration.Everday.Deviations` (registration's 201, the
/// 12-character minimum, the lockout after five failed logins).
struct Everday: Contract {
    static let pendingApproval = "Account pending approval. A parent must approve this account before sign in."

    private struct User {
        var id: Int
        var username: String
        var password: String
        var firstName: String?
        var lastName: String?
        var email: String?
        var discordHandle: String?
        var role: String
        var isApproved: Bool
        var approvedAt: Date?
        var approvedByUserId: Int?
        var requirePasswordChange = false
    }

    private struct ResetToken {
        var userID: Int
        var expiresAt: Date
    }

    /// Failed logins of one account, for the deployed server's lockout.
    private struct Failures {
        var count = 0
        var lockedUntil: Date?
    }

    private struct State {
        var nextID = 1
        var users: [Int: User] = [:]
        var resetTokens: [String: ResetToken] = [:]
        var failures: [Int: Failures] = [:]

        func user(named name: String) -> User? {
            users.values.first { $0.username.lowercased() == name.lowercased() }
        }
    }

    let backend = ServedBackend.everday
    private let services: Services
    private let state: Locked<State>

    init(services: Services) {
        self.services = services
        let parent = services.configuration.everday.parent
        var initial = State()
        initial.users[1] = User(
            id: 1, username: parent.username, password: parent.password, firstName: parent.firstName,
            lastName: parent.lastName, email: parent.email, discordHandle: nil, role: "Parent",
            isApproved: true, approvedAt: nil, approvedByUserId: nil
        )
        initial.nextID = 2
        state = Locked(initial)
    }

    var routes: [Route] {
        [
            Route("POST", "/api/auth/register", register),
            Route("POST", "/api/auth/login", login),
            Route("POST", "/api/auth/refresh", refresh),
            Route("POST", "/api/auth/logout", logout),
            Route("POST", "/api/auth/forgot", forgot),
            Route("POST", "/api/auth/reset-password", resetPassword),
            Route("POST", "/api/auth/change-password", changePassword),
            Route("DELETE", "/api/auth/account", deleteAccount),
            Route("PUT", "/api/settings/users/{user_id}/approve", approveOverHTTP),
        ]
    }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        .json(rejection.status, ["detail": .string(rejection.message)], headers: rejection.headers)
    }

    // MARK: Test API

    /// Approves a pending account as the seeded parent; returns whether the user exists.
    func approve(username: String) -> Bool {
        let now = services.clock.now
        return state.withLock { state in
            guard let user = state.user(named: username) else { return false }
            state.users[user.id]?.isApproved = true
            state.users[user.id]?.approvedAt = now
            state.users[user.id]?.approvedByUserId = 1
            return true
        }
    }

    /// Withdraws an account's approval, as a parent undoing it would: the account is pending again,
    /// so login and refresh answer the pending-approval 403. Returns whether the user exists.
    func withdrawApproval(username: String) -> Bool {
        state.withLock { state in
            guard let user = state.user(named: username) else { return false }
            state.users[user.id]?.isApproved = false
            state.users[user.id]?.approvedAt = nil
            state.users[user.id]?.approvedByUserId = nil
            return true
        }
    }

    /// Sets the flag login reports as `RequirePasswordChange`; returns whether the user exists.
    func setRequirePasswordChange(username: String, _ required: Bool) -> Bool {
        state.withLock { state in
            guard let user = state.user(named: username) else { return false }
            state.users[user.id]?.requirePasswordChange = required
            return true
        }
    }

    /// The numeric id the approve endpoint takes.
    func userID(username: String) -> Int? {
        state.withLock { $0.user(named: username)?.id }
    }

    // MARK: Handlers

    private func register(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        guard let username = body.string("Username"), let password = body.fields["Password"]?.string, !password.isEmpty else {
            throw Rejection(400, "Username and Password are required.")
        }
        if let minimum = deviations.minimumPasswordLength, password.count < minimum {
            throw Rejection(400, "Password must be at least \(minimum) characters long.")
        }
        if let email = body.string("Email"), !Validation.isEmail(email) {
            throw Rejection(400, "Email is not a valid email address.")
        }
        try state.withLock { state throws(Rejection) in
            guard state.user(named: username) == nil else { throw Rejection(409, "Username already exists.") }
            let user = User(
                id: state.nextID, username: username, password: password, firstName: body.string("FirstName"),
                lastName: body.string("LastName"), email: body.string("Email"), discordHandle: body.string("DiscordHandle"),
                role: "Kid", isApproved: false, approvedAt: nil, approvedByUserId: nil
            )
            state.users[user.id] = user
            state.nextID += 1
        }
        return .json(
            deviations.registrationStatus,
            [
                "Status": "PendingApproval",
                "Message": "Account request submitted. A parent must approve this account before sign in.",
            ])
    }

    private func login(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let username = try body.require("Username", "Username and Password are required.")
        let password = try body.requireSecret("Password", "Username and Password are required.")
        let user = try checkPassword(username, password)
        guard user.isApproved else { throw Rejection(403, Everday.pendingApproval) }
        let issued = services.sessions.open(
            backend, subject: String(user.id), claims: ["username": .string(user.username), "role": .string(user.role)],
            refreshLifetime: services.configuration.everday.refreshTokenLifetime
        )
        return tokenResponse(user, accessToken: issued.accessToken, refreshToken: issued.refreshToken ?? "")
    }

    /// The account `username` names, when `password` is its own. With the deployed lockout, an
    /// account that failed `lockoutAfterFailures` times in a row is refused 403 `Account locked.
    /// Try again later.` for `lockoutWindow`, whatever password is sent (the failure that locks it
    /// is still the 401); an unknown username counts nothing; a success forgets the failures.
    private func checkPassword(_ username: String, _ password: String) throws(Rejection) -> User {
        let lockout = deviations.lockoutAfterFailures.map { (failures: $0, window: deviations.lockoutWindow) }
        let now = services.clock.now
        return try state.withLock { state throws(Rejection) -> User in
            guard let user = state.user(named: username) else { throw Rejection(401, "Invalid username or password.") }
            guard let lockout else {
                guard user.password == password else { throw Rejection(401, "Invalid username or password.") }
                return user
            }
            var failures = state.failures[user.id] ?? Failures()
            if let until = failures.lockedUntil {
                guard now >= until else { throw Rejection(403, "Account locked. Try again later.") }
                failures = Failures()  // The window ended: the account starts over.
            }
            guard user.password == password else {
                failures.count += 1
                if failures.count >= lockout.failures { failures.lockedUntil = now.addingTimeInterval(lockout.window) }
                state.failures[user.id] = failures
                throw Rejection(401, "Invalid username or password.")
            }
            state.failures[user.id] = nil
            return user
        }
    }

    private func refresh(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let presented = try body.requireSecret("RefreshToken", "RefreshToken is required.")
        if let owner = services.sessions.owner(ofRefreshToken: presented, for: backend).flatMap(Int.init),
            state.withLock({ $0.users[owner]?.isApproved }) == false
        {
            throw Rejection(403, Everday.pendingApproval)
        }
        let rotation = services.sessions.rotate(
            presented, for: backend, refreshLifetime: services.configuration.everday.refreshTokenLifetime,
            acceptingConsumed: deviations.acceptsConsumedRefreshTokens)
        switch rotation {
        case let .rotated(grant, next):
            guard let user = state.withLock({ $0.users[Int(grant.subject) ?? 0] }) else {
                throw Rejection(401, "Invalid refresh token.")
            }
            let access = services.sessions.issueAccessToken(for: grant, backend: backend)
            return tokenResponse(user, accessToken: access, refreshToken: next)
        case .reuseDetected:
            throw Rejection(401, "Refresh token reuse detected. All sessions for this sign-in have been revoked.")
        case .revoked, .unknown:
            throw Rejection(401, "Invalid refresh token.")
        case .expired:
            throw Rejection(401, "Refresh token expired.")
        }
    }

    private func logout(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        _ = try authorize(request)
        let body = try request.jsonObject()
        let presented = try body.requireSecret("RefreshToken", "RefreshToken is required.")
        if !deviations.keepsSessionAtLogout {
            services.sessions.revokeSession(ofRefreshToken: presented, for: backend)
        }
        return .json(200, ["Message": "Logged out."])
    }

    private func forgot(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let identifier = try body.require("Identifier", "Identifier is required.").lowercased()
        let now = services.clock.now
        let lifetime = services.configuration.everday.resetTokenLifetime
        let delivery = state.withLock { state -> (String, String)? in
            guard
                let user = state.users.values.first(where: {
                    $0.username.lowercased() == identifier || $0.email?.lowercased() == identifier
                })
            else { return nil }
            let token = Secrets.opaqueToken()
            state.resetTokens[token] = ResetToken(userID: user.id, expiresAt: now.addingTimeInterval(lifetime))
            return (user.email ?? user.username, token)
        }
        if let (recipient, token) = delivery {
            services.send(backend, to: recipient, kind: .passwordResetToken, code: token)
        }
        return .json(200, ["Message": "If the account exists, password reset instructions have been sent."])
    }

    private func resetPassword(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let token = try body.requireSecret("Token", "Token and NewPassword are required.")
        let newPassword = try body.requireSecret("NewPassword", "Token and NewPassword are required.")
        let now = services.clock.now
        let userID = try state.withLock { state throws(Rejection) -> Int in
            guard let reset = state.resetTokens.removeValue(forKey: token), reset.expiresAt > now,
                state.users[reset.userID] != nil
            else {
                throw Rejection(400, "Invalid or expired reset token.")
            }
            state.users[reset.userID]?.password = newPassword
            state.users[reset.userID]?.requirePasswordChange = false
            return reset.userID
        }
        services.sessions.revokeAllSessions(of: String(userID), for: backend)
        return .json(200, ["Message": "Password has been reset."])
    }

    /// The deployed server's change-password (its document has none; served in both forms):
    /// Bearer, `{"CurrentPassword", "NewPassword"}`; 401 `Invalid credentials` for a wrong
    /// current password (an expired or unknown bearer gets the token check's own 401); 400 for a
    /// new password under the minimum; 200 `{"status":"ok"}`, revoking every refresh token of the
    /// user and lifting `RequirePasswordChange`.
    private func changePassword(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try authorize(request)
        let body = try request.jsonObject()
        let current = try body.requireSecret("CurrentPassword", "CurrentPassword and NewPassword are required.")
        let new = try body.requireSecret("NewPassword", "CurrentPassword and NewPassword are required.")
        let minimum = deviations.minimumPasswordLength ?? 8
        guard new.count >= minimum else { throw Rejection(400, "Password must be at least \(minimum) characters") }
        let userID = Int(grant.subject) ?? 0
        try state.withLock { state throws(Rejection) in
            guard let user = state.users[userID] else { throw Rejection(401, "Invalid or expired token.") }
            guard user.password == current else { throw Rejection(401, "Invalid credentials") }
            state.users[userID]?.password = new
            state.users[userID]?.requirePasswordChange = false
        }
        services.sessions.revokeAllSessions(of: grant.subject, for: backend)
        return .json(200, ["status": "ok"])
    }

    /// The deployed server's account deletion (served in both forms): Bearer; the account, its
    /// reset tokens and every refresh token go; 200 with a count of what was removed, as the
    /// deployed server answers; 404 when the bearer's account no longer exists.
    private func deleteAccount(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try authorize(request)
        let userID = Int(grant.subject) ?? 0
        let removed = try state.withLock { state throws(Rejection) -> Int in
            guard state.users.removeValue(forKey: userID) != nil else { throw Rejection(404, "User not found") }
            let tokens = state.resetTokens.filter { $0.value.userID == userID }.map(\.key)
            for token in tokens { state.resetTokens.removeValue(forKey: token) }
            return 1 + tokens.count
        }
        services.sessions.revokeAllSessions(of: grant.subject, for: backend)
        return .json(200, ["DeletedRows": .int(removed), "ReassignedRows": .int(0)])
    }

    private func approveOverHTTP(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try authorize(request)
        let now = services.clock.now
        let approved = try state.withLock { state throws(Rejection) -> User in
            guard state.users[Int(grant.subject) ?? 0]?.role == "Parent" else {
                throw Rejection(403, "Parent access required.")
            }
            guard let id = request.parameters["user_id"].flatMap(Int.init), var user = state.users[id] else {
                throw Rejection(404, "User not found.")
            }
            user.isApproved = true
            user.approvedAt = now
            user.approvedByUserId = Int(grant.subject)
            state.users[id] = user
            return user
        }
        return .json(
            200,
            [
                "Id": .int(approved.id),
                "Username": .string(approved.username),
                "IsApproved": true,
                "ApprovedAt": .string(Validation.iso8601(approved.approvedAt ?? now)),
                "ApprovedByUserId": approved.approvedByUserId.map(JSONValue.int) ?? .null,
            ])
    }

    private func authorize(_ request: ContractRequest) throws(Rejection) -> SessionStore.Grant {
        try services.authorize(
            request, for: backend, missing: "Not authenticated.", invalid: "Invalid or expired token.",
            expired: "Invalid or expired token."
        )
    }

    private var deviations: Configuration.Everday.Deviations { services.configuration.everday.deviations }

    private func tokenResponse(_ user: User, accessToken: String, refreshToken: String) -> ServerResponse {
        let fields: [String: JSONValue] = [
            "AccessToken": .string(accessToken),
            "RefreshToken": .string(refreshToken),
            "TokenType": "bearer",
            "ExpiresIn": .int(Int(services.configuration.everday.tokens.accessTokenLifetime)),
            "Username": .string(user.username),
            "RequirePasswordChange": .bool(user.requirePasswordChange),
            "Role": .string(user.role),
            "FirstName": user.firstName.json,
            "LastName": user.lastName.json,
            "Email": user.email.json,
            "DiscordHandle": user.discordHandle.json,
        ]
        let renamed = deviations.renamedTokenKeys
        return .json(200, .object(Dictionary(uniqueKeysWithValues: fields.map { (renamed[$0.key] ?? $0.key, $0.value) })))
    }
}
