import Testing
@testable import AuthCore

/// Distinctive secrets planted in every value that can carry one.
enum Planted {
    static let markers = [
        "MARKER-PW-1", "MARKER-PW-2", "MARKER-AT-1", "MARKER-RT-1", "987654", "MARKER-RESET", "MARKER-ID-TOKEN", "MARKER-AUTH-CODE",
        "MARKER-CODE-VERIFIER", "MARKER-DEVICE-CODE", "MARKER-USER-CODE",
    ]

    static let passwordInput = PasswordInput("MARKER-PW-1")
    static let newPasswordInput = PasswordInput("MARKER-PW-2")
    static let codeInput = CodeInput(" 987654 ")
    static let access = AccessToken("MARKER-AT-1")
    static let refresh = RefreshToken("MARKER-RT-1")
    static let resetToken = ResetToken("MARKER-RESET")
    static let identityToken = IdentityToken("MARKER-ID-TOKEN")
    static let authorizationCode = AuthorizationCode("MARKER-AUTH-CODE")
    static let verifier = CodeVerifier("MARKER-CODE-VERIFIER")
    static let attempt = AuthorizationAttempt(state: "state-1", nonce: "nonce-1", verifier: verifier)
    static let deviceCode = DeviceCode("MARKER-DEVICE-CODE")
    /// The user code is shown to the user, but printed nowhere: whoever reads it can approve someone else's sign-in onto this device.
    static let prompt = UserCodePrompt(
        userCode: "MARKER-USER-CODE", verificationURI: "https://id.example/device",
        verificationURIComplete: "https://id.example/device?user_code=MARKER-USER-CODE")
    static let deviceAuthorization = DeviceAuthorization(deviceCode: deviceCode, prompt: prompt, lifetime: .seconds(600), interval: .seconds(5))
    static let devicePoll = DevicePoll(deviceCode: deviceCode, prompt: prompt, expiresAt: Samples.at(600), interval: .seconds(5))

    static let password = valid(Password.validate(passwordInput))
    static let newPassword = valid(Password.validate(newPasswordInput))
    static let code = valid(VerificationCode.validate(codeInput))
    static let proof = valid(ResetProof.validate(resetToken))
    static let user = UserProfile(id: Samples.userID, email: Samples.emailText, passwordSet: false)
    static let grant = Grant(accessToken: access, refreshToken: refresh, expiry: .after(.seconds(1800)), user: user, requiresPasswordChange: true)
    static let credentials = Credentials(grant, receivedAt: Samples.t0)
    static let tokens = TokenRefresh(accessToken: access, refreshToken: refresh, expiry: .at(Samples.at(1800)))
    static let bearer = Bearer(token: access, userID: Samples.userID)
    static let details = RegistrationDetails(identifier: .email(Samples.email), password: password, name: Samples.name, email: Samples.email)
    static let form = RegistrationInput(name: Samples.nameText, email: Samples.emailText, password: passwordInput)
    static let call = PendingCall(id: Samples.call1, stage: .sent(Samples.r(2), with: access), replayed: true)
    static let session = SessionLifecycle.Active(
        credentials: credentials, calls: [call], passwordChange: Samples.r(3), refresh: .refreshing(Samples.r(4), attempt: 1))
    static let sessionPhase = SessionLifecycle.Phase.active(session)
    static let challenge = CodeChallenge(destination: .email(Samples.email), expiresAt: Samples.at(300), resendAt: Samples.at(30), attemptsLeft: 2)
}

/// One value that holds a planted secret.
struct SecretCarrier: Sendable, CustomTestStringConvertible {
    var name: String
    var value: any Sendable
    var testDescription: String { name }

    init(_ name: String, _ value: any Sendable) {
        self.name = name
        self.value = value
    }

    static let all: [SecretCarrier] = {
        typealias P = Planted
        let requests: [(String, APIRequest)] = [
            ("registerWithEmailCode", .registerWithEmailCode(Samples.email, P.code)),
            ("signInWithEmailCode", .signInWithEmailCode(Samples.email, P.code)),
            ("signInWithPhoneCode", .signInWithPhoneCode(Samples.phone, P.code)),
            ("signIn", .signIn(.email(Samples.email), P.password)),
            ("register", .register(P.details)),
            ("resetPassword(emailCode)", .resetPassword(.emailCode(Samples.email, P.code), newPassword: P.newPassword)),
            ("resetPassword(token)", .resetPassword(.token(P.proof), newPassword: P.newPassword)),
            ("setPassword", .setPassword(P.password, P.bearer)),
            ("changePassword", .changePassword(old: P.password, new: P.newPassword, P.bearer)),
            ("refresh", .refresh(P.refresh)),
            ("currentUser", .currentUser(P.bearer)),
            ("revoke", .revoke(P.refresh, P.bearer)),
            ("protected", .protected(Samples.call1, P.bearer)),
            ("openRealtime", .openRealtime(P.access)),
            ("exchangeCode", .exchangeCode(CodeExchange(code: P.authorizationCode, verifier: P.verifier))),
            ("pollDeviceToken", .pollDeviceToken(P.deviceCode)),
            ("signInNatively", .signInNatively(NativeSignIn(provider: .apple, identityToken: P.identityToken, userIdentifier: "001234.apple"))),
            (
                "signInNatively with Apple's first authorization",
                .signInNatively(
                    NativeSignIn(
                        provider: .apple, identityToken: P.identityToken, userIdentifier: "001234.apple", authorizationCode: P.authorizationCode,
                        givenName: "Ada", familyName: "Lovelace", email: "ada@privaterelay.appleid.com"))
            ),
        ]
        var carriers: [SecretCarrier] = [
            SecretCarrier("Secret<Password>", P.passwordInput),
            SecretCarrier("Secret<Code>", P.codeInput),
            SecretCarrier("Secret<AccessToken>", P.access),
            SecretCarrier("Secret<RefreshToken>", P.refresh),
            SecretCarrier("Secret<ResetToken>", P.resetToken),
            SecretCarrier("Secret<IdentityToken>", P.identityToken),
            SecretCarrier("Secret<AuthorizationCode>", P.authorizationCode),
            SecretCarrier("Optional<Secret>", Optional(P.refresh)),
            SecretCarrier("[Secret]", [P.access]),
            SecretCarrier("Password", P.password),
            SecretCarrier("VerificationCode", P.code),
            SecretCarrier("ResetProof", P.proof),
            SecretCarrier("Grant", P.grant),
            SecretCarrier("Credentials", P.credentials),
            SecretCarrier("StoredCredentials", StoredCredentials.stored(P.credentials)),
            SecretCarrier("TokenRefresh", P.tokens),
            SecretCarrier("Bearer", P.bearer),
            SecretCarrier("RegistrationDetails", P.details),
            SecretCarrier("RegistrationInput", P.form),
            SecretCarrier("ResetCompletion", ResetCompletion.emailCode(Samples.email, P.code)),
            SecretCarrier("Reply.granted", Reply.granted(P.grant)),
            SecretCarrier("Reply.refreshed", Reply.refreshed(P.tokens)),
            SecretCarrier("AuthEffect.send", AuthEffect.send(Samples.r(1), .changePassword(old: P.password, new: P.newPassword, P.bearer))),
            SecretCarrier("AuthEffect.persist", AuthEffect.persist(P.credentials)),
            SecretCarrier("AuthEvent.reply", AuthEvent<SessionLifecycle.Intent>.reply(Samples.r(1), .granted(P.grant), at: Samples.t0)),
            SecretCarrier("AuthEvent.launched", AuthEvent<SessionLifecycle.Intent>.launched(.stored(P.credentials), at: Samples.t0)),
            SecretCarrier(
                "AuthEvent.intent",
                AuthEvent<PasswordSignIn.Intent>.intent(.submit(identifier: Samples.emailText, password: P.passwordInput), at: Samples.t0)),
            SecretCarrier("OAuthCallback", OAuthCallback.tokens(attempt: "attempt-1", P.grant)),
            SecretCarrier("PendingCall", P.call),
            SecretCarrier("Session", P.session),
            // Phases
            SecretCarrier("CodeRegistration.Phase", CodeRegistration.Phase.registered(P.grant)),
            SecretCarrier("OneTimeCodeSignIn.Phase", OneTimeCodeSignIn.Phase.signedIn(P.grant)),
            SecretCarrier("PasswordSignIn.Phase", PasswordSignIn.Phase.signedIn(P.grant)),
            SecretCarrier("Registration.Phase", Registration.Phase.registered(P.grant)),
            SecretCarrier("PasswordReset.Phase", PasswordReset.Phase.signedIn(P.grant)),
            SecretCarrier("OAuthSignIn.Phase", OAuthSignIn.Phase.signedIn(P.grant)),
            SecretCarrier("OpenIDSignIn.Phase.awaitingCallback", OpenIDSignIn.Phase.awaitingCallback(P.attempt)),
            SecretCarrier("OpenIDSignIn.Phase.signedIn", OpenIDSignIn.Phase.signedIn(P.grant)),
            SecretCarrier(
                "DeviceSignIn.Phase.waitingToPoll", DeviceSignIn.Phase.waitingToPoll(P.devicePoll, at: Samples.at(5), next: Samples.r(2))),
            SecretCarrier("DeviceSignIn.Phase.polling", DeviceSignIn.Phase.polling(P.devicePoll, Samples.r(2))),
            SecretCarrier("DeviceSignIn.Phase.signedIn", DeviceSignIn.Phase.signedIn(P.grant)),
            SecretCarrier("Reply.device(codeIssued)", Reply.device(.codeIssued(P.deviceAuthorization))),
            SecretCarrier("DeviceAuthorization", P.deviceAuthorization),
            SecretCarrier("UserCodePrompt", P.prompt),
            SecretCarrier("DevicePoll", P.devicePoll),
            SecretCarrier("SessionLifecycle.Phase.active (refreshing)", P.sessionPhase),
            SecretCarrier(
                "SessionLifecycle.Phase.restoring",
                SessionLifecycle.Phase.restoring(SessionLifecycle.Restoring(credentials: P.credentials, request: Samples.r(1), asking: .currentUser))),
            SecretCarrier(
                "SessionLifecycle.Phase.passwordSetupRequired",
                SessionLifecycle.Phase.passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: P.credentials))),
            SecretCarrier(
                "RealtimeConnection.Phase", RealtimeConnection.Phase.waitingToReconnect(P.access, retryAt: Samples.at(1), attempt: 2, flaps: 0)),
            // Intents
            SecretCarrier("CodeRegistration.Intent", CodeRegistration.Intent.submitCode(P.codeInput)),
            SecretCarrier("OneTimeCodeSignIn.Intent", OneTimeCodeSignIn.Intent.submitCode(P.codeInput)),
            SecretCarrier("PasswordSignIn.Intent", PasswordSignIn.Intent.submit(identifier: Samples.emailText, password: P.passwordInput)),
            SecretCarrier("Registration.Intent", Registration.Intent.submit(P.form)),
            SecretCarrier("PasswordReset.Intent.submitCode", PasswordReset.Intent.submitCode(P.codeInput, newPassword: P.newPasswordInput)),
            SecretCarrier("PasswordReset.Intent.submitToken", PasswordReset.Intent.submitToken(P.resetToken, newPassword: P.newPasswordInput)),
            SecretCarrier("OAuthSignIn.Intent", OAuthSignIn.Intent.callback(.tokens(attempt: "attempt-1", P.grant))),
            SecretCarrier("OpenIDSignIn.Intent.begin", OpenIDSignIn.Intent.begin(P.attempt)),
            SecretCarrier(
                "OpenIDSignIn.Intent.callback",
                OpenIDSignIn.Intent.callback(.code(P.authorizationCode, state: "state-1", issuer: "https://id.example"))),
            SecretCarrier("CodeVerifier", P.verifier),
            SecretCarrier("SessionLifecycle.Intent.setPassword", SessionLifecycle.Intent.setPassword(P.passwordInput)),
            SecretCarrier(
                "SessionLifecycle.Intent.changePassword", SessionLifecycle.Intent.changePassword(old: P.passwordInput, new: P.newPasswordInput)),
            SecretCarrier("RealtimeConnection.Intent", RealtimeConnection.Intent.connect(P.access)),
            SecretCarrier(
                "OAuthSignIn.Intent.signInNatively",
                OAuthSignIn.Intent.signInNatively(
                    provider: "apple", identityToken: P.identityToken, userIdentifier: "001234.apple", authorizationCode: P.authorizationCode,
                    givenName: "Ada", familyName: "Lovelace", email: "ada@privaterelay.appleid.com")),
            SecretCarrier(
                "Hero365App native sign-in event",
                AuthEvent<Hero365App.Intent>.intent(
                    Apps.hero365().intent(OAuthSignIn.Intent.signInNatively(provider: "google", identityToken: P.identityToken, userIdentifier: nil)),
                    at: Samples.t0)),
            // States and composed apps
            SecretCarrier("LifecycleState", LifecycleState(phase: P.sessionPhase, context: FlowContext(next: 5))),
            SecretCarrier(
                "AnonymousWallApp.Phase",
                AnonymousWallApp.Phase.signedIn(
                    .passwordSetupRequired(SessionLifecycle.PasswordStep(credentials: P.credentials, pending: Samples.r(2))))),
            SecretCarrier(
                "AnonymousWallApp event",
                AuthEvent<AnonymousWallApp.Intent>.intent(
                    Apps.anonymousWall().intent(PasswordReset.Intent.submitCode(P.codeInput, newPassword: P.newPasswordInput)), at: Samples.t0)),
            SecretCarrier(
                "VynqTalkApp.Phase",
                VynqTalkApp.Phase.signedIn(SessionWithRealtime.Phase(session: .active(P.session), connection: .connected(P.access, Samples.r(9))))),
            SecretCarrier("EverdayApp state", LifecycleState<EverdayApp.Phase>(phase: .signedIn(P.sessionPhase))),
            SecretCarrier("SubspaceApp.Phase", Apps.subspace().at(PasswordSignIn.Phase.signedIn(P.grant))),
            SecretCarrier("Hero365App.Phase", Apps.hero365().at(OAuthSignIn.Phase.signedIn(P.grant))),
            SecretCarrier("Hero365App OTP challenge", Apps.hero365().at(OneTimeCodeSignIn.Phase.verifying(P.challenge, Samples.r(1)))),
        ]
        carriers += requests.map { SecretCarrier("APIRequest.\($0.0)", $0.1) }
        return carriers
    }()
}

@Suite("Secret redaction")
struct SecretRedactionTests {
    @Test("no planted secret appears in description, debugDescription, interpolation or dump", arguments: SecretCarrier.all)
    func redacted(_ carrier: SecretCarrier) {
        var dumped = ""
        dump(carrier.value, to: &dumped)
        let renderings = [
            ("String(describing:)", String(describing: carrier.value)),
            ("String(reflecting:)", String(reflecting: carrier.value)),
            ("interpolation", "\(carrier.value)"),
            ("dump", dumped),
        ]
        for (how, text) in renderings {
            for marker in Planted.markers {
                #expect(!text.contains(marker), "\(how) of \(carrier.name) shows \(marker)")
            }
        }
    }

    @Test("the planted secrets are really inside the values, so the redaction test can fail")
    func plantedSecretsAreReal() {
        #expect(Planted.password.secret.reveal() == "MARKER-PW-1")
        #expect(Planted.code.secret.reveal() == "987654")
        #expect(Planted.proof.secret.reveal() == "MARKER-RESET")
        #expect(Planted.credentials.accessToken.reveal() == "MARKER-AT-1")
        #expect(Planted.credentials.refreshToken?.reveal() == "MARKER-RT-1")
        // A plain string holding the same text would show it: the check itself is sound.
        #expect(String(describing: ["MARKER-AT-1"]).contains("MARKER-AT-1"))
    }
}
