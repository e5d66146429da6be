import Foundation

/// Hero365, as its API document describes it (summarised in `Fixtures/hero365/README.md`), FastAPI
/// over Supabase: email and phone sign-up/sign-in, phone OTP with
/// expiry, resend cooldown and attempt limit, OAuth URL plus a dev callback, rotating refresh
/// with reuse detection, password recovery, `/users/me`, sign-out (which ends nothing), and the
/// deployed server's `/revoke-tokens/{user_id}` (which ends every session of the user). snake_case
/// bodies, errors `{"detail": …}`.
///
/// A resend inside the cooldown is refused as the document describes a failed send: 400
/// `Failed to send OTP: [reason]` (Send OTP answers only 200, 400 and 503), the reason in
/// Supabase's words. Where the document is silent: every OTP failure (wrong, expired, burned after
/// too many attempts) is 401 `Invalid OTP`.
///
/// With `deployed` set it answers as the server people run does: password recovery reads
/// `?email=` (a body alone is 422 in the `{"error": {"type", "message", "details"}}` envelope) and
/// refresh answers Supabase's `expires_in: 3600` and `token_type` beside the access token, whose
/// own `exp` is its real lifetime; OTP verify answers a token the protected routes refuse (401)
/// until `/auth/refresh` exchanges the refresh token beside it. `GET /auth/oauth/{provider}`
/// answers no URL but `{"message", "endpoints"}` (google and apple only), and native sign-in is
/// served: `POST /auth/apple/signin` and `/auth/google/signin` with the provider's `id_token`.
struct Hero365: Contract {
    static let providers = ["google", "apple", "github"]
    /// The providers the deployed server signs in natively.
    static let nativeProviders = ["google", "apple"]
    /// The `iss` of each provider's identity tokens.
    static let issuers = ["apple": "https://appleid.apple.com", "google": "https://accounts.google.com"]

    private struct User {
        var id: String
        var email: String?
        var phone: String?
        var password: String?
        var fullName: String?
    }

    private struct OTP {
        var code: String
        var sentAt: Date
        var expiresAt: Date
        var failedAttempts = 0
    }

    private struct State {
        var users: [String: User] = [:]
        var otps: [String: OTP] = [:]
        var oauthStates: [String: String] = [:]
        /// Users signed in natively, by `provider:sub` of their identity token.
        var providerUsers: [String: String] = [:]

        func user(email: String) -> User? { users.values.first { $0.email == email } }
        func user(phone: String) -> User? { users.values.first { $0.phone == phone } }
    }

    let backend = ServedBackend.hero365
    private let services: Services
    private let state = Locked(State())

    init(services: Services) {
        self.services = services
    }

    private var settings: Configuration.Hero365 { services.configuration.hero365 }

    /// The id of the account with `identifier`, an email address or a phone number.
    func userID(_ identifier: String) -> String? {
        state.withLock { ($0.user(email: identifier.lowercased()) ?? $0.user(phone: identifier))?.id }
    }

    var routes: [Route] {
        [
            Route("POST", "/api/v1/auth/signup", signup),
            Route("POST", "/api/v1/auth/signin", signin),
            Route("POST", "/api/v1/auth/signup/phone", signupWithPhone),
            Route("POST", "/api/v1/auth/signin/phone", signinWithPhone),
            Route("POST", "/api/v1/auth/otp/send", sendOTP),
            Route("POST", "/api/v1/auth/otp/verify", verifyOTP),
            Route("GET", "/api/v1/auth/oauth/{provider}", oauthURL),
            Route("POST", "/api/v1/auth/apple/signin", { (request) throws(Rejection) in try nativeSignIn(request, provider: "apple") }),
            Route("POST", "/api/v1/auth/google/signin", { (request) throws(Rejection) in try nativeSignIn(request, provider: "google") }),
            Route("POST", "/api/v1/auth/refresh", refresh),
            Route("POST", "/api/v1/auth/password-recovery", passwordRecovery),
            Route("GET", "/api/v1/users/me", me),
            Route("POST", "/api/v1/auth/signout", signout),
            Route("POST", "/api/v1/revoke-tokens/{user_id}", revokeTokens),
        ]
    }

    func errorResponse(_ rejection: Rejection) -> ServerResponse {
        .json(rejection.status, ["detail": .string(rejection.message)], headers: rejection.headers)
    }

    /// Finishes the OAuth flow started with `state`: the callback URL carrying `access_token` and
    /// `refresh_token` in its fragment, or `error=access_denied` when `cancelled`; `nil` for an unknown state.
    func completeOAuth(state oauthState: String, cancelled: Bool) -> String? {
        guard let provider = state.withLock({ $0.oauthStates.removeValue(forKey: oauthState) }) else { return nil }
        let callback = settings.oauthCallbackURL
        if cancelled {
            return "\(callback)#error=access_denied&error_description=User%20cancelled&state=\(oauthState)"
        }
        let email = "\(provider).user@example.com"
        let user = state.withLock { state -> User in
            if let existing = state.user(email: email) { return existing }
            let user = User(id: Secrets.uuid(), email: email, phone: nil, password: nil, fullName: nil)
            state.users[user.id] = user
            return user
        }
        let issued = open(user)
        let lifetime = Int(settings.tokens.accessTokenLifetime)
        return "\(callback)#access_token=\(issued.accessToken)&refresh_token=\(issued.refreshToken ?? "")"
            + "&token_type=bearer&expires_in=\(lifetime)&provider=\(provider)&state=\(oauthState)"
    }

    // MARK: Handlers

    private func signup(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = try body.require("email", "Email is required").lowercased()
        guard Validation.isEmail(email) else { throw Rejection(400, "Invalid email address") }
        let password = try strongPassword(body)
        try state.withLock { state throws(Rejection) in
            guard state.user(email: email) == nil else { throw Rejection(400, "User already registered") }
            let user = User(id: Secrets.uuid(), email: email, phone: nil, password: password, fullName: body.string("full_name"))
            state.users[user.id] = user
        }
        services.send(backend, to: email, kind: .verification, code: nil)
        return .json(200, ["message": "User created successfully. Please check your email for verification."])
    }

    private func signin(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let email = body.string("email")?.lowercased() ?? ""
        let password = body.fields["password"]?.string ?? ""
        guard let user = state.withLock({ $0.user(email: email) }), user.password == password else {
            throw Rejection(401, "Invalid credentials")
        }
        return signedIn(user)
    }

    private func signupWithPhone(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let phone = try Hero365.normalizedPhone(body.string("phone"))
        let password = try strongPassword(body)
        try state.withLock { state throws(Rejection) in
            guard state.user(phone: phone) == nil else { throw Rejection(400, "User already registered") }
            let user = User(id: Secrets.uuid(), email: nil, phone: phone, password: password, fullName: body.string("full_name"))
            state.users[user.id] = user
        }
        return .json(200, ["message": "User created successfully. Please verify your phone number."])
    }

    private func signinWithPhone(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let phone = (try? Hero365.normalizedPhone(body.string("phone"))) ?? ""
        let password = body.fields["password"]?.string ?? ""
        guard let user = state.withLock({ $0.user(phone: phone) }), user.password == password else {
            throw Rejection(401, "Invalid credentials")
        }
        return signedIn(user)
    }

    private func sendOTP(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let phone = try Hero365.normalizedPhone(body.string("phone"))
        let now = services.clock.now
        let settings = self.settings
        let code = Secrets.sixDigitCode()
        try state.withLock { state throws(Rejection) in
            if let previous = state.otps[phone] {
                let wait = previous.sentAt.addingTimeInterval(settings.otpResendCooldown).timeIntervalSince(now)
                if wait > 0 {
                    let seconds = max(1, Int(wait.rounded(.up)))
                    throw Rejection(400, "Failed to send OTP: For security purposes, you can only request this after \(seconds) seconds.")
                }
            }
            state.otps[phone] = OTP(code: code, sentAt: now, expiresAt: now.addingTimeInterval(settings.otpLifetime))
        }
        services.send(backend, to: phone, kind: .otp, code: code)
        return .json(200, ["message": "OTP sent successfully to your phone number."])
    }

    private func verifyOTP(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let phone = try Hero365.normalizedPhone(body.string("phone"))
        let token = try body.require("token", "OTP token is required")
        let now = services.clock.now
        let maxAttempts = settings.otpMaxAttempts
        let user = try state.withLock { state throws(Rejection) -> User in
            guard var otp = state.otps[phone], otp.expiresAt > now else { throw Rejection(401, "Invalid OTP") }
            guard otp.code == token else {
                otp.failedAttempts += 1
                state.otps[phone] = otp.failedAttempts >= maxAttempts ? nil : otp
                throw Rejection(401, "Invalid OTP")
            }
            state.otps[phone] = nil
            if let existing = state.user(phone: phone) { return existing }
            let user = User(id: Secrets.uuid(), email: nil, phone: phone, password: nil, fullName: nil)
            state.users[user.id] = user
            return user
        }
        guard settings.deployed else { return signedIn(user) }
        // Deployed: the raw Supabase access token, which `get_current_user` refuses until refresh exchanges it.
        let issued = open(user)
        var profile: [String: JSONValue] = ["id": .string(user.id), "user_metadata": [:]]
        if let phone = user.phone { profile["phone"] = .string(phone) }
        let supabaseToken = JWT.make(claims: [
            "sub": .string(user.id), "role": "authenticated", "iat": .int(Int(now.timeIntervalSince1970)),
            "exp": .int(Int(now.timeIntervalSince1970) + 3600), "phone": .string(phone),
        ])
        return .json(200, ["access_token": .string(supabaseToken), "refresh_token": issued.refreshToken.json, "user": .object(profile)])
    }

    private func oauthURL(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        guard let provider = request.parameters["provider"]?.lowercased(), Hero365.providers.contains(provider) else {
            throw Rejection(400, "Unsupported OAuth provider")
        }
        if settings.deployed {
            // Deployed: no URL; the app signs in natively with the provider's SDK (google and apple only).
            guard Hero365.nativeProviders.contains(provider) else { throw Rejection(400, "Unsupported OAuth provider") }
            return .json(
                200,
                [
                    "message": .string(
                        "Use \(provider) SDK in your mobile app to get ID token, then call the appropriate sign-in endpoint"),
                    "endpoints": ["apple": "/auth/apple/signin", "google": "/auth/google/signin"],
                ])
        }
        let oauthState = Secrets.opaqueToken(byteCount: 16)
        state.withLock { $0.oauthStates[oauthState] = provider }
        let host = request.http.headers["Host"] ?? "127.0.0.1"
        let url = "http://\(host)/__dev/oauth/authorize?provider=\(provider)&state=\(oauthState)"
        return .json(200, ["url": .string(url), "provider": .string(provider)])
    }

    /// Deployed only: `POST /auth/{provider}/signin` with the provider's `id_token` (Apple also
    /// requires `user_identifier`, its user id, which must be the token's `sub`). The token is
    /// checked as Supabase would, here by its claims: a JWT whose `iss` is the provider's and whose
    /// `sub` names the user (``ReferenceServer/providerIdentityToken(provider:subject:email:)``
    /// mints one). The account is found by that `sub`, else by the token's (or the body's) `email`,
    /// else created with the body's `full_name` (Apple shares the name and email at the first
    /// authorization only); an account without a name takes the one shared. `is_new_user` says
    /// whether this sign-in created the account.
    private func nativeSignIn(_ request: ContractRequest, provider: String) throws(Rejection) -> ServerResponse {
        guard settings.deployed else { throw Rejection(404, "Not Found") }
        let body = try request.jsonObject()
        let title = provider == "apple" ? "Apple" : "Google"
        guard let token = body.fields["id_token"]?.string, !token.isEmpty else {
            return Self.validationFailed(field: "body.id_token", message: "Field required", type: "missing")
        }
        let identifier = body.string("user_identifier")
        if provider == "apple", identifier == nil {
            return Self.validationFailed(field: "body.user_identifier", message: "Field required", type: "missing")
        }
        guard let claims = JWT.claims(of: token), claims["iss"]?.string == Hero365.issuers[provider],
            let subject = claims["sub"]?.string, !subject.isEmpty, identifier == nil || identifier == subject
        else {
            throw Rejection(400, "\(title) Sign-In failed: Failed to sign in with \(provider): Invalid ID token")
        }
        let email = (claims["email"]?.string ?? body.string("email"))?.lowercased()
        let name = body.string("full_name")
        let (user, isNew) = state.withLock { state -> (User, Bool) in
            let key = provider + ":" + subject
            let known = state.providerUsers[key].flatMap { state.users[$0] } ?? email.flatMap { state.user(email: $0) }
            if var known {
                state.providerUsers[key] = known.id
                // Apple shares the name once: an account that has none keeps it.
                if known.fullName == nil, let name {
                    known.fullName = name
                    state.users[known.id] = known
                }
                return (known, false)
            }
            let user = User(id: Secrets.uuid(), email: email, phone: nil, password: nil, fullName: name)
            state.users[user.id] = user
            state.providerUsers[key] = user.id
            return (user, true)
        }
        let issued = open(user)
        return .json(
            200,
            [
                "access_token": .string(issued.accessToken), "refresh_token": issued.refreshToken.json, "expires_in": 3600,
                "token_type": "bearer",
                "user": [
                    "id": .string(user.id), "email": user.email.json, "phone": user.phone.json, "full_name": user.fullName.json,
                    "is_active": true, "is_superuser": false, "supabase_id": .string(user.id), "last_login": .null,
                ],
                "is_new_user": .bool(isNew),
            ])
    }

    private func refresh(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let body = try request.jsonObject()
        let presented = try body.requireSecret("refresh_token", "refresh_token is required")
        switch services.sessions.rotate(presented, for: backend, refreshLifetime: settings.refreshTokenLifetime) {
        case let .rotated(grant, next):
            let access = services.sessions.issueAccessToken(for: grant, backend: backend)
            guard settings.deployed else { return .json(200, ["access_token": .string(access), "refresh_token": .string(next)]) }
            // Deployed: Supabase's session lifetime beside the business token, whatever that token's own `exp` says.
            return .json(
                200,
                [
                    "access_token": .string(access), "refresh_token": .string(next), "expires_in": 3600, "token_type": "bearer",
                ])
        case .reuseDetected, .revoked, .expired, .unknown:
            throw Rejection(401, "Invalid refresh token")
        }
    }

    private func passwordRecovery(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let email: String
        if settings.deployed {
            // `password_recovery(email: EmailStr)`: FastAPI reads a bare scalar from the query; a body is ignored.
            guard let queried = request.http.query["email"], !queried.isEmpty else {
                return Self.validationFailed(field: "query.email", message: "Field required", type: "missing")
            }
            guard Validation.isEmail(queried) else {
                return Self.validationFailed(field: "query.email", message: "value is not a valid email address", type: "value_error")
            }
            email = queried.lowercased()
        } else {
            let body = try request.jsonObject()
            email = try body.require("email", "Email is required").lowercased()
        }
        if state.withLock({ $0.user(email: email) }) != nil {
            services.send(backend, to: email, kind: .passwordRecovery, code: Secrets.opaqueToken())
        }
        return .json(200, ["message": "Password recovery email sent"])
    }

    private func me(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try services.authorize(
            request, for: backend, missing: "Not authenticated", invalid: "Could not validate credentials",
            expired: "Token has expired"
        )
        guard let user = state.withLock({ $0.users[grant.subject] }) else {
            throw Rejection(401, "Could not validate credentials")
        }
        return .json(
            200,
            [
                "id": .string(user.id), "email": user.email.json, "phone": user.phone.json,
                "full_name": user.fullName.json, "is_active": true, "is_superuser": false,
            ])
    }

    private func signout(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        .json(200, ["message": "Sign out should be handled by the frontend Supabase client"])
    }

    /// The deployed server's `POST /revoke-tokens/{user_id}` (not in the document; served in both
    /// forms, as the client sends it to either): Supabase's global sign-out. Bearer; the user
    /// themself or an admin (this server has no admins, so only the user), 403 otherwise; every
    /// refresh token of the user is revoked, on every device. 200 `{"message"}`.
    private func revokeTokens(_ request: ContractRequest) throws(Rejection) -> ServerResponse {
        let grant = try services.authorize(
            request, for: backend, missing: "Not authenticated", invalid: "Could not validate credentials",
            expired: "Token has expired"
        )
        guard let userID = request.parameters["user_id"], userID == grant.subject else {
            throw Rejection(403, "Not authorized to revoke tokens for this user")
        }
        services.sessions.revokeAllSessions(of: userID, for: backend)
        return .json(200, ["message": "All tokens revoked for user"])
    }

    // MARK: Helpers

    /// The deployed server's request-validation answer (its custom handler, not FastAPI's default).
    private static func validationFailed(field: String, message: String, type: String) -> ServerResponse {
        .json(
            422,
            [
                "error": [
                    "type": "validation_error", "message": "Request validation failed",
                    "details": [["field": .string(field), "message": .string(message), "type": .string(type), "input": .null]],
                ]
            ])
    }

    private func strongPassword(_ body: JSONBody) throws(Rejection) -> String {
        let password = try body.requireSecret("password", "Password is required")
        guard password.count >= 6 else { throw Rejection(400, "Password should be at least 6 characters") }
        return password
    }

    /// `+` and 8 to 15 digits once spaces, dashes and parentheses are removed; otherwise 400.
    private static func normalizedPhone(_ raw: String?) throws(Rejection) -> String {
        let compact = (raw ?? "").filter { !" -().".contains($0) }
        let digits = compact.dropFirst()
        guard compact.hasPrefix("+"), (8...15).contains(digits.count), digits.allSatisfy(\.isASCII),
            digits.allSatisfy(\.isNumber)
        else {
            throw Rejection(400, "Invalid phone number")
        }
        return compact
    }

    private func open(_ user: User) -> SessionStore.Issued {
        var claims: [String: JSONValue] = ["role": "authenticated", "aud": "authenticated"]
        if let email = user.email { claims["email"] = .string(email) }
        if let phone = user.phone { claims["phone"] = .string(phone) }
        return services.sessions.open(backend, subject: user.id, claims: claims, refreshLifetime: settings.refreshTokenLifetime)
    }

    private func signedIn(_ user: User) -> ServerResponse {
        let issued = open(user)
        var profile: [String: JSONValue] = ["id": .string(user.id)]
        if let email = user.email { profile["email"] = .string(email) }
        if let phone = user.phone { profile["phone"] = .string(phone) }
        var metadata: [String: JSONValue] = [:]
        if let name = user.fullName { metadata["full_name"] = .string(name) }
        profile["user_metadata"] = .object(metadata)
        return .json(
            200,
            [
                "access_token": .string(issued.accessToken),
                "refresh_token": issued.refreshToken.json,
                "user": .object(profile),
            ])
    }
}
