import AuthCore

/// Every user flow the backends' API documents write out step by step (each summarised in
/// `Fixtures/<backend>/README.md`), as event sequences driven through the backends' app machines
/// (`Apps`).
///
/// Each flow cites the section of its backend's document, uses the document's own example values,
/// names each request the document names (an `.answer` fails the flow when the reducer never sent
/// that request), and ends in the state and with the effects the document describes.
/// `AuthDiagramsTests` runs every flow; the diagram index marks the edges they take.
public enum DocumentedFlows: Sendable {
    /// When every flow starts.
    public static let start = Instant.seconds(1_000_000)

    /// Every documented flow, by backend in `Backend` order.
    public static var all: [DocumentedFlow] { anonymousWall + vynqTalk + everday + subspace + hero365 }

    // MARK: Anonymous Wall

    /// Anonymous Wall's "User Flows": registration, login with password, login with code, forgot
    /// password, change password.
    public static var anonymousWall: [DocumentedFlow] {
        typealias Step = FlowStep
        func register(_ intent: CodeRegistration.Intent) -> Step { .user(AnyIntent(intent)) }
        func signIn(_ intent: PasswordSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func codeSignIn(_ intent: OneTimeCodeSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func reset(_ intent: PasswordReset.Intent) -> Step { .user(AnyIntent(intent)) }
        func session(_ intent: SessionLifecycle.Intent) -> Step { .user(AnyIntent(intent)) }

        let student = "student@harvard.edu"
        let registered = UserProfile(id: "uuid", email: student, passwordSet: false)
        let passwordSet = UserProfile(id: "uuid", email: student, passwordSet: true)
        let registrationToken = "jwt-token-here"
        let mit = "student@mit.edu"
        let mitUser = UserProfile(id: "uuid", email: mit)
        let nyu = "student@nyu.edu"
        let nyuUser = UserProfile(id: "uuid", email: nyu)
        let signInToken = "eyJhbGc.sign-in"
        let resetToken = "eyJhbGc.after-reset"
        let signInWithPassword: [Step] = [
            signIn(.submit(identifier: mit, password: PasswordInput("mySecurePassword123"))),
            .answer(.signIn, .granted(Grant(accessToken: AccessToken(signInToken), user: mitUser))),
        ]

        return [
            DocumentedFlow(
                "anonymousWall.registration", backend: .anonymousWall, section: "User Flows › Registration Flow",
                app: Apps.anonymousWall(),
                steps: [
                    register(.submitEmail(student)),  // 1–2. "Get Code" → send-code (purpose: register)
                    .answer(.sendEmailCode, .accepted("Verification code sent to email")),
                    register(.submitCode(CodeInput("123456"))),  // 3–4. "Register" → register/email
                    .answer(.registerWithEmailCode, .granted(Grant(accessToken: AccessToken(registrationToken), user: registered))),
                    // 5–6. Logged in with needsPasswordSetup: SetPasswordView.
                    session(.setPassword(PasswordInput("secure_password"))),  // 7. → password/set
                    .answer(.setPassword, .user(passwordSet)),
                ],
                endsIn: "signedIn.active.idle",  // 8. WallView
                expecting: [
                    .sent(.sendEmailCode(valid(Email.validate(student)), .register)),
                    .sent(.registerWithEmailCode(valid(Email.validate(student)), valid(VerificationCode.validate(CodeInput("123456"))))),
                    .emitted(.passwordSetupRequired),
                    .sent(
                        .setPassword(
                            valid(Password.validate(PasswordInput("secure_password"))), Bearer(token: AccessToken(registrationToken), userID: "uuid"))
                    ),
                    .completed(.passwordSet), .vaultHolds(access: registrationToken, refresh: nil),
                ]),
            DocumentedFlow(
                "anonymousWall.sessionPersistence", backend: .anonymousWall,
                section: "Session Persistence (token in the Keychain, needsPasswordSetup kept)", app: Apps.anonymousWall(),
                steps: [
                    register(.submitEmail(student)), .answer(.sendEmailCode, .accepted(nil)), register(.submitCode(CodeInput("123456"))),
                    .answer(.registerWithEmailCode, .granted(Grant(accessToken: AccessToken(registrationToken), user: registered))),
                    .relaunch,  // The app is closed before the password is set, then opened again.
                ],
                endsIn: "signedIn.passwordSetupRequired",
                expecting: [.vaultHolds(access: registrationToken, refresh: nil), .emitted(.passwordSetupRequired)]),
            DocumentedFlow(
                "anonymousWall.loginWithPassword", backend: .anonymousWall,
                section: "User Flows › Login Flow (with Password)", app: Apps.anonymousWall(),
                steps: signInWithPassword,  // 1–3. Password tab, email and password, "Login" → login/password
                endsIn: "signedIn.active.idle",  // 4. WallView
                expecting: [
                    .sent(.signIn(.email(valid(Email.validate(mit))), valid(Password.validate(PasswordInput("mySecurePassword123"))))),
                    .emitted(.signedIn(mitUser)), .vaultHolds(access: signInToken, refresh: nil),
                ]),
            DocumentedFlow(
                "anonymousWall.loginWithCode", backend: .anonymousWall,
                section: "User Flows › Login Flow (with Verification Code)", app: Apps.anonymousWall(),
                steps: [
                    codeSignIn(.submitDestination(nyu)),  // 2. "Get Code" → send-code (purpose: login)
                    .answer(.sendEmailCode, .accepted(nil)),
                    codeSignIn(.submitCode(CodeInput("034883"))),  // 3–4. "Login" → login/email
                    .answer(.signInWithEmailCode, .granted(Grant(accessToken: AccessToken(signInToken), user: nyuUser))),
                ],
                endsIn: "signedIn.active.idle",  // 5. WallView
                expecting: [
                    .sent(.sendEmailCode(valid(Email.validate(nyu)), .login)),
                    .sent(.signInWithEmailCode(valid(Email.validate(nyu)), valid(VerificationCode.validate(CodeInput("034883"))))),
                    .completedAs("codeSent"), .vaultHolds(access: signInToken, refresh: nil),
                ]),
            DocumentedFlow(
                "anonymousWall.forgotPassword", backend: .anonymousWall, section: "User Flows › Forgot Password Flow",
                app: Apps.anonymousWall(),
                steps: [
                    reset(.requestReset(mit)),  // 3. "Send Code" → password/reset-request
                    .answer(.requestPasswordReset, .accepted("Password reset code sent to email")),
                    reset(.submitCode(CodeInput("364752"), newPassword: PasswordInput("myNewPassword789"))),  // 4–5. → password/reset
                    .answer(.resetPassword, .granted(Grant(accessToken: AccessToken(resetToken), user: mitUser))),
                ],
                endsIn: "signedIn.active.idle",  // 6. "User is logged in with new password"
                expecting: [
                    .sent(.requestPasswordReset(.email(valid(Email.validate(mit))))),
                    .sent(
                        .resetPassword(
                            .emailCode(valid(Email.validate(mit)), valid(VerificationCode.validate(CodeInput("364752")))),
                            newPassword: valid(Password.validate(PasswordInput("myNewPassword789"))))),
                    .completedAs("passwordResetRequested"), .emitted(.signedIn(mitUser)), .vaultHolds(access: resetToken, refresh: nil),
                ]),
            DocumentedFlow(
                "anonymousWall.changePassword", backend: .anonymousWall, section: "User Flows › Change Password Flow",
                app: Apps.anonymousWall(),
                steps: signInWithPassword + [  // 1. A logged-in user
                    // 3–4. → password/change
                    session(.changePassword(old: PasswordInput("mySecurePassword123"), new: PasswordInput("myNewPassword456"))),
                    .answer(.changePassword, .user(mitUser)),
                ],
                endsIn: "signedIn.active.idle",  // 5. "Password is updated"; still signed in
                expecting: [
                    .sent(
                        .changePassword(
                            old: valid(Password.validate(PasswordInput("mySecurePassword123"))),
                            new: valid(Password.validate(PasswordInput("myNewPassword456"))), Bearer(token: AccessToken(signInToken), userID: "uuid"))
                    ),
                    .completed(.passwordChanged), .vaultHolds(access: signInToken, refresh: nil),
                ]),
        ]
    }

    // MARK: VynqTalk

    /// VynqTalk's Requirement 5 (signup, login, automatic logout on 401/403) with Requirement 9's
    /// WebSocket authenticated by the token.
    public static var vynqTalk: [DocumentedFlow] {
        typealias Step = FlowStep
        func signUp(_ intent: Registration.Intent) -> Step { .user(AnyIntent(intent)) }
        func logIn(_ intent: PasswordSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func session(_ intent: SessionLifecycle.Intent) -> Step { .user(AnyIntent(intent)) }

        let email = "ann@example.com"
        let user = UserProfile(id: "7f1c2e9a-0b7d-4c55-9d1e-2a6f3b8c4d10", email: email, name: "Ann Example")
        let token = "vynq-jwt-1"
        let grant = Grant(accessToken: AccessToken(token), user: user)
        let logInSteps: [Step] = [
            logIn(.submit(identifier: email, password: PasswordInput("correct horse battery"))),  // 5.2 POST /auth/login
            .answer(.signIn, .granted(grant)),  // 5.3 accessToken and user
            .answerRealtime(.realtimeOpened),  // 9.1–9.2 ws://…/ws?token=<auth_token>
        ]
        func autoLogout(_ id: String, status: String, failure: AuthFailure) -> DocumentedFlow {
            DocumentedFlow(
                id, backend: .vynqTalk, section: "Requirement 5 › Acceptance Criteria 5 (\(status) → automatic logout)",
                app: Apps.vynqTalk(),
                steps: logInSteps + [
                    session(.call),  // 5.4 a request with the stored token
                    .answerCall(.failed(failure)),  // 5.5 "WHEN the token expires (401/403)"
                ],
                endsIn: "signedOut.first.editing",  // "THEN the System SHALL log the user out automatically"
                expecting: [.vaultCleared, .emitted(.signedOut(.tokenRejected)), .emitted(.realtimeDisconnected)])
        }

        return [
            DocumentedFlow(
                "vynqTalk.signup", backend: .vynqTalk, section: "Requirement 5 › Acceptance Criteria 1, 3, 4 (signup)",
                app: Apps.vynqTalk(),
                steps: [
                    // 5.1 POST /auth/signup
                    signUp(.submit(RegistrationInput(name: "Ann Example", email: email, password: PasswordInput("correct horse battery")))),
                    .answer(.register, .granted(grant)),  // 5.3
                    .answerRealtime(.realtimeOpened),  // 9.1
                    .wait(.seconds(10)),  // It stayed open: established.
                ],
                endsIn: "signedIn.(active.idle + connected)",
                expecting: [
                    .sent(
                        .register(
                            RegistrationDetails(
                                identifier: .email(valid(Email.validate(email))),
                                password: valid(Password.validate(PasswordInput("correct horse battery"))),
                                name: valid(PersonName.validate("Ann Example"))))),
                    .vaultHolds(access: token, refresh: nil),  // 5.4 stored securely
                    .sent(.openRealtime(AccessToken(token))), .emitted(.realtimeConnected),
                ]),
            DocumentedFlow(
                "vynqTalk.login", backend: .vynqTalk, section: "Requirement 5 › Acceptance Criteria 2–4 (login)",
                app: Apps.vynqTalk(), steps: logInSteps + [.wait(.seconds(10))], endsIn: "signedIn.(active.idle + connected)",
                expecting: [
                    .sent(.signIn(.email(valid(Email.validate(email))), valid(Password.validate(PasswordInput("correct horse battery"))))),
                    .vaultHolds(access: token, refresh: nil), .sent(.openRealtime(AccessToken(token))),
                ]),
            DocumentedFlow(
                "vynqTalk.reconnect", backend: .vynqTalk,
                section: "Requirement 9 › Acceptance Criteria 4 (reconnect with a valid token)",
                app: Apps.vynqTalk(),
                steps: logInSteps + [
                    .wait(.seconds(10)),  // Established: a drop now starts the backoff over.
                    .answerRealtime(.realtimeClosed),  // "WHEN disconnected"…
                    .wait(.seconds(1)),  // …"THEN attempt to reconnect with a valid token"
                    .answerRealtime(.realtimeOpened),
                    .wait(.seconds(10)),
                ],
                endsIn: "signedIn.(active.idle + connected)",
                expecting: [.sent(.openRealtime(AccessToken(token))), .vaultHolds(access: token, refresh: nil)]),
            autoLogout("vynqTalk.autoLogout401", status: "401", failure: .unauthorized("Unauthorized")),
            autoLogout("vynqTalk.autoLogout403", status: "403", failure: .forbidden("Forbidden")),
        ]
    }

    // MARK: Everday

    /// Everday's Auth Lifecycle steps 1–6, launch restore (iOS Storage Guidance), and password reset.
    public static var everday: [DocumentedFlow] {
        typealias Step = FlowStep
        func register(_ intent: Registration.Intent) -> Step { .user(AnyIntent(intent)) }
        func logIn(_ intent: PasswordSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func reset(_ intent: PasswordReset.Intent) -> Step { .user(AnyIntent(intent)) }
        func session(_ intent: SessionLifecycle.Intent) -> Step { .user(AnyIntent(intent)) }

        let password = PasswordInput("Passw0rd!123")
        let user = UserProfile(id: "kid-1", email: "newkid@example.com", name: "newkid")
        let pending = "Account pending approval. A parent must approve this account before sign in."
        let lifetime = Interval.seconds(1800)  // ExpiresIn
        let grant = Grant(accessToken: AccessToken("jwt-1"), refreshToken: RefreshToken("opaque-1"), expiry: .after(lifetime), user: user)
        let logInSteps: [Step] = [
            logIn(.submit(identifier: "newkid", password: password)),  // 3. POST /auth/login
            .answer(.signIn, .granted(grant)),
        ]
        let refreshDue = Interval.seconds(1800 - 60)  // Apps.everday() refreshes a minute before expiry.
        let stored = Credentials(accessToken: AccessToken("jwt-1"), refreshToken: RefreshToken("opaque-1"), expiresAt: start + lifetime, user: user)

        return [
            DocumentedFlow(
                "everday.register", backend: .everday, section: "Auth Lifecycle › 1 Register; Approval-Gated Registration",
                app: Apps.everday(),
                steps: [
                    register(.submit(RegistrationInput(name: "New Kid", email: "newkid@example.com", username: "newkid", password: password))),
                    .answer(.register, .pendingApproval("Account request submitted. A parent must approve this account before sign in.")),
                ],
                endsIn: "signedOut.first.pendingApproval",
                expecting: [
                    .sent(
                        .register(
                            RegistrationDetails(
                                identifier: .username(valid(Username.validate("newkid"))), password: valid(Password.validate(password)),
                                name: valid(PersonName.validate("New Kid")), email: valid(Email.validate("newkid@example.com"))))),
                    .completed(.pendingApproval("Account request submitted. A parent must approve this account before sign in.")),
                    .vaultUntouched,
                ]),
            DocumentedFlow(
                "everday.pendingApproval", backend: .everday,
                section: "Auth Lifecycle › 2 Parent approval; Approval-Gated Registration › Notes (403 until approved)", app: Apps.everday(),
                steps: [
                    logIn(.submit(identifier: "newkid", password: password)),
                    .answer(.signIn, .failed(.pendingApproval(pending))),  // "Until approved, login … return 403"
                ],
                endsIn: "signedOut.second.first.pendingApproval",
                expecting: [.completed(.pendingApproval(pending)), .vaultUntouched]),
            DocumentedFlow(
                "everday.login", backend: .everday, section: "Auth Lifecycle › 3 Login; 4 Use bearer token; iOS Storage Guidance",
                app: Apps.everday(),
                steps: logInSteps + [
                    session(.call),  // 4. Bearer token on a protected endpoint
                    .answerCall(.accepted(nil)),
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.signIn(.username(valid(Username.validate("newkid"))), valid(Password.validate(password)))),
                    .vaultHolds(access: "jwt-1", refresh: "opaque-1"),  // Store AccessToken and RefreshToken in Keychain.
                    .sentCall(with: Bearer(token: AccessToken("jwt-1"), userID: "kid-1")),
                ]),
            DocumentedFlow(
                "everday.requirePasswordChange", backend: .everday,
                section: "Login › RequirePasswordChange (changed at the deployed server's /auth/change-password, which ends every session)",
                app: Apps.everday(),
                steps: [
                    logIn(.submit(identifier: "newkid", password: password)),
                    .answer(
                        .signIn,
                        .granted(
                            Grant(
                                accessToken: AccessToken("jwt-1"), refreshToken: RefreshToken("opaque-1"), expiry: .after(lifetime), user: user,
                                requiresPasswordChange: true))),
                    session(.call),  // Refused until the password is changed.
                    session(.changePassword(old: password, new: PasswordInput("N3w-Passw0rd!"))),
                    .answer(.changePassword, .accepted(nil)),  // 200 {"status":"ok"}: every refresh token of the user revoked.
                ],
                endsIn: "signedOut.first.editing",
                expecting: [
                    .emitted(.passwordChangeRequired), .noCallSent, .completed(.passwordChanged), .emitted(.signedOut(.passwordChanged)),
                    .vaultCleared,
                ]),
            DocumentedFlow(
                "everday.rotatingRefresh", backend: .everday,
                section: "Auth Lifecycle › 5 Refresh token rotation; Refresh (Rotating)",
                app: Apps.everday(),
                steps: logInSteps + [
                    .wait(refreshDue),  // The access token nears expiry: refresh with opaque-1.
                    .answer(
                        .refresh,
                        .refreshed(TokenRefresh(accessToken: AccessToken("jwt-2"), refreshToken: RefreshToken("opaque-2"), expiry: .after(lifetime)))),
                    .wait(refreshDue),  // The next refresh sends the newly returned token.
                    .answer(
                        .refresh,
                        .refreshed(TokenRefresh(accessToken: AccessToken("jwt-3"), refreshToken: RefreshToken("opaque-3"), expiry: .after(lifetime)))),
                    session(.call),
                    .answerCall(.accepted(nil)),
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.refresh(RefreshToken("opaque-1"))), .sent(.refresh(RefreshToken("opaque-2"))), .emitted(.tokenRefreshed),
                    .vaultHolds(access: "jwt-3", refresh: "opaque-3"),  // "Store the newly returned refresh token immediately."
                    .sentCall(with: Bearer(token: AccessToken("jwt-3"), userID: "kid-1")),
                ]),
            DocumentedFlow(
                "everday.logout", backend: .everday, section: "Auth Lifecycle › 6 Logout; Logout",
                app: Apps.everday(),
                steps: logInSteps + [
                    session(.logout),  // POST /auth/logout revokes the refresh token…
                    .answer(.revoke, .failed(.server(status: 500, nil))),  // …"clear local auth state regardless of API error"
                ],
                endsIn: "signedOut.first.editing",
                expecting: [
                    .sent(.revoke(RefreshToken("opaque-1"), Bearer(token: AccessToken("jwt-1"), userID: "kid-1"))), .vaultCleared,
                    .emitted(.signedOut(.userRequested)),
                ]),
            DocumentedFlow(
                "everday.launchRestore", backend: .everday,
                section: "iOS Storage Guidance › On app launch (refresh token exists → /auth/refresh)", app: Apps.everday(), stored: .stored(stored),
                steps: [
                    .relaunch,
                    .answer(
                        .refresh,
                        .refreshed(TokenRefresh(accessToken: AccessToken("jwt-2"), refreshToken: RefreshToken("opaque-2"), expiry: .after(lifetime)))),
                ],
                endsIn: "signedIn.active.idle",
                expecting: [.sent(.refresh(RefreshToken("opaque-1"))), .vaultHolds(access: "jwt-2", refresh: "opaque-2"), .emitted(.signedIn(user))]),
            DocumentedFlow(
                "everday.launchRestoreRefused", backend: .everday,
                section: "iOS Storage Guidance › On app launch (refresh fails 401/403 → clear auth, show login)", app: Apps.everday(),
                stored: .stored(stored),
                steps: [.relaunch, .answer(.refresh, .failed(.unauthorized(nil)))],
                endsIn: "signedOut.first.editing",
                expecting: [.sent(.refresh(RefreshToken("opaque-1"))), .vaultCleared, .emitted(.signedOut(.sessionExpired))]),
            DocumentedFlow(
                "everday.passwordReset", backend: .everday, section: "Password Reset (forgot, then reset-password with the token)",
                app: Apps.everday(),
                steps: [
                    reset(.requestReset("newkid")),  // POST /auth/forgot
                    .answer(.requestPasswordReset, .accepted(nil)),
                    reset(.submitToken(ResetToken("emailed-token"), newPassword: PasswordInput("N3w-Passw0rd!"))),  // POST /auth/reset-password
                    .answer(.resetPassword, .accepted(nil)),
                ],
                endsIn: "signedOut.second.second.completed",  // The user then signs in with the new password.
                expecting: [
                    .sent(.requestPasswordReset(.usernameOrEmail("newkid"))),
                    .sent(
                        .resetPassword(
                            .token(valid(ResetProof.validate(ResetToken("emailed-token")))),
                            newPassword: valid(Password.validate(PasswordInput("N3w-Passw0rd!"))))),
                    .completed(.passwordResetCompleted), .vaultUntouched,
                ]),
        ]
    }

    // MARK: Subspace

    /// Subspace's Authentication Flow (register → login → me), token expiration and the 429 wait.
    public static var subspace: [DocumentedFlow] {
        typealias Step = FlowStep
        func register(_ intent: Registration.Intent) -> Step { .user(AnyIntent(intent)) }
        func logIn(_ intent: PasswordSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func session(_ intent: SessionLifecycle.Intent) -> Step { .user(AnyIntent(intent)) }

        let email = "john@example.com"
        let password = PasswordInput("password123")
        let user = UserProfile(id: "550e8400-e29b-41d4-a716-446655440000", email: email, name: "John Doe")
        let day = Interval.seconds(86_400)  // "Expiration: 24 hours"
        let registered = Grant(accessToken: AccessToken("eyJ.register"), expiry: .after(day), user: user)
        let loggedIn = Grant(accessToken: AccessToken("eyJ.login"), expiry: .after(day), user: user)
        let logInSteps: [Step] = [logIn(.submit(identifier: email, password: password)), .answer(.signIn, .granted(loggedIn))]

        return [
            DocumentedFlow(
                "subspace.registerLoginMe", backend: .subspace,
                section: "Authentication Flow › Steps 1–5 (register → login → me)",
                app: Apps.subspace(),
                steps: [
                    register(.submit(RegistrationInput(name: "John Doe", email: email, password: password))),  // 1. POST /auth/register
                    .answer(.register, .granted(registered)),  // 201: token and user at once
                    session(.logout),
                    logIn(.submit(identifier: email, password: password)),  // 2. POST /auth/login
                    .answer(.signIn, .granted(loggedIn)),  // 3. store the JWT
                    .relaunch,  // The app starts again with the stored token…
                    .answer(.currentUser, .user(user)),  // 5. …GET /auth/me with the bearer (4)
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(
                        .register(
                            RegistrationDetails(
                                identifier: .email(valid(Email.validate(email))), password: valid(Password.validate(password)),
                                name: valid(PersonName.validate("John Doe"))))),
                    .sent(.signIn(.email(valid(Email.validate(email))), valid(Password.validate(password)))),
                    .sent(.currentUser(Bearer(token: AccessToken("eyJ.login"), userID: user.id))),
                    .vaultHolds(access: "eyJ.login", refresh: nil),
                ]),
            DocumentedFlow(
                "subspace.tokenExpired", backend: .subspace, section: "Error Handling › Handling Token Expiration (401 → logout)",
                app: Apps.subspace(),
                steps: logInSteps + [session(.call), .answerCall(.failed(.unauthorized("token has expired")))],
                endsIn: "signedOut.first.editing",  // "Token expired, logout user … Navigate to login screen"
                expecting: [.vaultCleared, .emitted(.signedOut(.tokenRejected))]),
            DocumentedFlow(
                "subspace.tokenLifetime", backend: .subspace,
                section: "Authentication Flow › Step 3 (24-hour expiration); Best Practices › 5. Token Refresh (re-authenticate)",
                app: Apps.subspace(),
                steps: logInSteps + [.wait(day)],
                endsIn: "signedOut.first.editing",
                expecting: [.vaultCleared, .emitted(.signedOut(.tokenExpired))]),
            DocumentedFlow(
                "subspace.rateLimited", backend: .subspace,
                section: "Troubleshooting › 429 Too Many Requests (wait 1 minute before retrying)", app: Apps.subspace(),
                steps: [
                    logIn(.submit(identifier: email, password: password)),
                    .answer(.signIn, .failed(.rateLimited(retryAfter: nil))),
                    .wait(.seconds(60)),  // "Wait 1 minute before retrying"
                ] + logInSteps,
                endsIn: "signedIn.active.idle",
                expecting: [.completed(.failed(.rateLimited(retryAfter: nil))), .vaultHolds(access: "eyJ.login", refresh: nil)]),
        ]
    }

    // MARK: Hero365

    /// Hero365's Authentication Flows 1–4, the Token Refresh Strategy, sign-up and recovery.
    public static var hero365: [DocumentedFlow] {
        typealias Step = FlowStep
        func signUp(_ intent: Registration.Intent) -> Step { .user(AnyIntent(intent)) }
        func signIn(_ intent: PasswordSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func otp(_ intent: OneTimeCodeSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func oauth(_ intent: OAuthSignIn.Intent) -> Step { .user(AnyIntent(intent)) }
        func recover(_ intent: PasswordReset.Intent) -> Step { .user(AnyIntent(intent)) }
        func session(_ intent: SessionLifecycle.Intent) -> Step { .user(AnyIntent(intent)) }

        let email = "user@example.com"
        let phone = "+1234567890"
        let password = PasswordInput("SecurePassword123!")
        let emailUser = UserProfile(id: "user-uuid-here", email: email, name: "John Doe")
        let phoneUser = UserProfile(id: "user-uuid-here", phone: phone, name: "John Doe")
        let hour = Interval.seconds(3600)
        func grant(_ user: UserProfile) -> Grant {
            Grant(accessToken: AccessToken("h-access-1"), refreshToken: RefreshToken("h-refresh-1"), expiry: .after(hour), user: user)
        }
        let signedIn: [Step] = [signIn(.submit(identifier: email, password: password)), .answer(.signIn, .granted(grant(emailUser)))]
        let authorizeURL = "https://your-project.supabase.co/auth/v1/authorize?provider=google"
        let expired: [Step] =
            signedIn + [
                .suspend(.seconds(3600 + 1)),  // 1. Before a request the access token is found expired…
                session(.call),  // 2. …so the refresh token is sent first.
            ]

        return [
            DocumentedFlow(
                "hero365.emailPassword", backend: .hero365, section: "Authentication Flows › 1. Email/Password Flow",
                app: Apps.hero365(),
                steps: signedIn + [session(.call), .answerCall(.accepted(nil))],  // 1–4, then 6.
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.signIn(.email(valid(Email.validate(email))), valid(Password.validate(password)))),
                    .vaultHolds(access: "h-access-1", refresh: "h-refresh-1"),  // 5. stores tokens (Keychain)
                    .sentCall(with: Bearer(token: AccessToken("h-access-1"), userID: "user-uuid-here")),
                ]),
            DocumentedFlow(
                "hero365.phonePassword", backend: .hero365, section: "Authentication Flows › 2. Phone/Password Flow",
                app: Apps.hero365(),
                steps: [signIn(.submit(identifier: phone, password: password)), .answer(.signIn, .granted(grant(phoneUser)))],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.signIn(.phone(valid(PhoneNumber.validate(phone))), valid(Password.validate(password)))),  // /auth/signin/phone
                    .vaultHolds(access: "h-access-1", refresh: "h-refresh-1"),
                ]),
            DocumentedFlow(
                "hero365.phoneOTP", backend: .hero365, section: "Authentication Flows › 3. Phone/OTP Flow",
                app: Apps.hero365(),
                steps: [
                    otp(.submitDestination(phone)),  // 1–2. POST /auth/otp/send
                    .answer(.sendPhoneCode, .accepted("OTP sent successfully to your phone number.")),  // 3–4. SMS with a 6-digit code
                    otp(.submitCode(CodeInput("123456"))),  // 5–6. POST /auth/otp/verify with phone and token
                    .answer(.signInWithPhoneCode, .granted(grant(phoneUser))),  // 7–8.
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.sendPhoneCode(valid(PhoneNumber.validate(phone)))), .completedAs("codeSent"),
                    .sent(.signInWithPhoneCode(valid(PhoneNumber.validate(phone)), valid(VerificationCode.validate(CodeInput("123456"))))),
                    .vaultHolds(access: "h-access-1", refresh: "h-refresh-1"),
                ]),
            DocumentedFlow(
                "hero365.oauth", backend: .hero365, section: "Authentication Flows › 4. OAuth Flow (Google/Apple)",
                app: Apps.hero365(),
                steps: [
                    oauth(.begin(provider: "google", attempt: "attempt-1")),  // 1. GET /auth/oauth/google
                    .answer(.oauthURL, .authorizationURL(authorizeURL)),  // 2. open it in a browser
                    oauth(.callback(.tokens(attempt: "attempt-1", grant(emailUser)))),  // 3–7. tokens from the callback URL
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.oauthURL(.google)), .completed(.authorizationURL(authorizeURL)),
                    .vaultHolds(access: "h-access-1", refresh: "h-refresh-1"),
                ]),
            DocumentedFlow(
                "hero365.refresh", backend: .hero365, section: "Token Management › Token Refresh Strategy 1–4",
                app: Apps.hero365(),
                steps: expired + [
                    .answer(
                        .refresh,
                        .refreshed(
                            TokenRefresh(accessToken: AccessToken("h-access-2"), refreshToken: RefreshToken("h-refresh-2"), expiry: .after(hour)))),
                    .answerCall(.accepted(nil)),  // 4. the original request, retried with the new token
                ],
                endsIn: "signedIn.active.idle",
                expecting: [
                    .sent(.refresh(RefreshToken("h-refresh-1"))),
                    .vaultHolds(access: "h-access-2", refresh: "h-refresh-2"),  // 3. stored tokens updated
                    .sentCall(with: Bearer(token: AccessToken("h-access-2"), userID: "user-uuid-here")),
                ]),
            DocumentedFlow(
                "hero365.refreshRefused", backend: .hero365,
                section: "Token Management › Token Refresh Strategy 5 (refresh fails 401)",
                app: Apps.hero365(),
                steps: expired + [.answer(.refresh, .failed(.unauthorized("Invalid refresh token")))],
                endsIn: "signedOut.first.editing",  // "clear tokens and redirect to login"
                expecting: [.sent(.refresh(RefreshToken("h-refresh-1"))), .vaultCleared, .emitted(.signedOut(.sessionExpired))]),
            DocumentedFlow(
                "hero365.signOut", backend: .hero365,
                section: "API Endpoints › 5. Sign Out (cleared locally); deployed server › POST /revoke-tokens/{user_id}",
                app: Apps.hero365(),
                // Signed out locally at once; then every refresh token of the user is revoked
                // (Supabase's global sign-out: every device), in the background.
                steps: signedIn + [session(.logout), .answer(.revoke, .accepted(nil))],
                endsIn: "signedOut.first.editing",
                expecting: [
                    .vaultCleared, .emitted(.signedOut(.userRequested)),
                    .sent(.revoke(RefreshToken("h-refresh-1"), Bearer(token: AccessToken("h-access-1"), userID: "user-uuid-here"))),
                    .emitted(.serverSessionEnded),
                ]),
            DocumentedFlow(
                "hero365.signUpEmail", backend: .hero365, section: "API Endpoints › 1. Sign Up with Email",
                app: Apps.hero365(),
                steps: [
                    signUp(.submit(RegistrationInput(name: "John Doe", email: email, password: password))),
                    .answer(.register, .verificationRequired("User created successfully. Please check your email for verification.")),
                ],
                endsIn: "signedOut.first.awaitingVerification",
                expecting: [
                    .sent(
                        .register(
                            RegistrationDetails(
                                identifier: .email(valid(Email.validate(email))), password: valid(Password.validate(password)),
                                name: valid(PersonName.validate("John Doe"))))),
                    .completed(.verificationRequired("User created successfully. Please check your email for verification.")), .vaultUntouched,
                ]),
            DocumentedFlow(
                "hero365.signUpPhone", backend: .hero365, section: "API Endpoints › 2. Sign Up with Phone",
                app: Apps.hero365(),
                steps: [
                    signUp(.submit(RegistrationInput(phone: phone, password: password))),
                    .answer(.register, .verificationRequired("User created successfully. Please verify your phone number.")),
                ],
                endsIn: "signedOut.first.awaitingVerification",
                expecting: [
                    .sent(
                        .register(
                            RegistrationDetails(identifier: .phone(valid(PhoneNumber.validate(phone))), password: valid(Password.validate(password))))
                    ),
                    .vaultUntouched,
                ]),
            DocumentedFlow(
                "hero365.passwordRecovery", backend: .hero365, section: "API Endpoints › 5. Password Recovery",
                app: Apps.hero365(),
                steps: [recover(.requestReset(email)), .answer(.requestPasswordReset, .accepted("Password recovery email sent"))],
                endsIn: "signedOut.second.second.second.second.linkSent",
                expecting: [
                    .sent(.requestPasswordReset(.email(valid(Email.validate(email))))), .completedAs("passwordResetRequested"), .vaultUntouched,
                ]),
        ]
    }

    /// The value of a documented example that must pass validation; a documented example that
    /// does not is a mistake in this file.
    static func valid<Value>(_ result: Result<Value, ValidationError>) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let error): preconditionFailure("a documented example fails validation: \(error)")
        }
    }
}
