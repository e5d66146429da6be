import AuthCore

// AuthCore's values that hold request ids, server-issued tokens or instants. Values that hold
// none (emails, names, identifiers) are surveyed as plain data; user-typed secrets (passwords,
// codes) are surveyed with `secret` so the leak checks know them.

extension RequestID: Surveyable {
    /// Renamed by first appearance.
    @inlinable public func survey(_ s: inout Survey) { s.request(self) }
}

extension IntentID: Surveyable {
    /// Renamed by first appearance.
    @inlinable public func survey(_ s: inout Survey) { s.intent(self) }
}

extension Instant: Surveyable {
    /// Relative to now.
    @inlinable public func survey(_ s: inout Survey) { s.instant(self) }
}

extension Secret: Surveyable {
    /// Renamed when server-issued; plain otherwise.
    @inlinable public func survey(_ s: inout Survey) { s.secret(self) }
}

extension Optional: Surveyable where Wrapped: Surveyable {
    /// `none`, or the value.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .none: s.tag("none")
        case .some(let value):
            s.tag("some")
            s.visit(value)
        }
    }
}

extension Array: Surveyable where Element: Surveyable {
    /// The count, then every element in order.
    @inlinable public func survey(_ s: inout Survey) {
        s.number(count)
        for element in self { s.visit(element) }
    }
}

extension Password: Surveyable {
    /// The secret.
    @inlinable public func survey(_ s: inout Survey) { s.visit(secret) }
}

extension VerificationCode: Surveyable {
    /// The secret.
    @inlinable public func survey(_ s: inout Survey) { s.visit(secret) }
}

extension ResetProof: Surveyable {
    /// The secret.
    @inlinable public func survey(_ s: inout Survey) { s.visit(secret) }
}

extension TokenExpiry: Surveyable {
    /// The case and its instant or interval.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .after(let interval):
            s.tag("after")
            s.plain(interval)
        case .at(let instant):
            s.tag("at")
            s.visit(instant)
        case .unknown:
            s.tag("unknown")
        }
    }
}

extension Grant: Surveyable {
    /// Tokens, expiry, user, password flag, ID token claims.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(accessToken)
        s.visit(refreshToken)
        s.visit(expiry)
        s.visit(user)
        s.plain(requiresPasswordChange)
        s.visit(idToken)
    }
}

extension IDTokenClaims: Surveyable {
    /// Every claim; the instants relative to now.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(issuer)
        s.plain(subject)
        s.plain(audiences)
        s.plain(authorizedParty)
        s.visit(expiresAt)
        s.visit(issuedAt)
        s.plain(nonce)
    }
}

extension Credentials: Surveyable {
    /// Tokens, expiry, granted lifetime, user.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(accessToken)
        s.visit(refreshToken)
        s.visit(expiresAt)
        s.plain(lifetime)
        s.visit(user)
    }
}

extension UserProfile: Surveyable {
    /// Every field, as plain data.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(id)
        s.plain(email)
        s.plain(phone)
        s.plain(name)
        s.number(passwordSet.map { $0 ? 1 : 0 } ?? -1)
        // Whether the sign-in created the account shares a number with the password-change flag.
        s.number((passwordChangeRequired ? 1 : 0) + (isNewUser.map { $0 ? 2 : 4 } ?? 0))
        s.plain(role?.rawValue)
        if attributes.isEmpty { s.number(0) } else { s.plain(attributes) }
    }
}

extension TokenRefresh: Surveyable {
    /// Tokens, expiry and the user the answer describes.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(accessToken)
        s.visit(refreshToken)
        s.visit(expiry)
        s.visit(user)
    }
}

extension Bearer: Surveyable {
    /// Token and user id.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(token)
        s.plain(userID)
    }
}

extension RegistrationDetails: Surveyable {
    /// Every field; the password as a secret.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(identifier)
        s.visit(password)
        s.plain(name)
        s.plain(email)
        s.plain(discordHandle)
    }
}

extension ResetCompletion: Surveyable {
    /// The proof.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .emailCode(let email, let code):
            s.tag("emailCode")
            s.plain(email)
            s.visit(code)
        case .token(let proof):
            s.tag("token")
            s.visit(proof)
        }
    }
}

extension APIRequest: Surveyable {
    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .sendEmailCode(let email, let purpose):
            s.tag("sendEmailCode")
            s.plain(email)
            s.plain(purpose)
        case .registerWithEmailCode(let email, let code):
            s.tag("registerWithEmailCode")
            s.plain(email)
            s.visit(code)
        case .signInWithEmailCode(let email, let code):
            s.tag("signInWithEmailCode")
            s.plain(email)
            s.visit(code)
        case .sendPhoneCode(let phone):
            s.tag("sendPhoneCode")
            s.plain(phone)
        case .signInWithPhoneCode(let phone, let code):
            s.tag("signInWithPhoneCode")
            s.plain(phone)
            s.visit(code)
        case .signIn(let identifier, let password):
            s.tag("signIn")
            s.plain(identifier)
            s.visit(password)
        case .register(let details):
            s.tag("register")
            s.visit(details)
        case .requestPasswordReset(let identifier):
            s.tag("requestPasswordReset")
            s.plain(identifier)
        case .resetPassword(let completion, let password):
            s.tag("resetPassword")
            s.visit(completion)
            s.visit(password)
        case .setPassword(let password, let bearer):
            s.tag("setPassword")
            s.visit(password)
            s.visit(bearer)
        case .changePassword(let old, let new, let bearer):
            s.tag("changePassword")
            s.visit(old)
            s.visit(new)
            s.visit(bearer)
        case .oauthURL(let provider):
            s.tag("oauthURL")
            s.plain(provider)
        case .refresh(let token):
            s.tag("refresh")
            s.visit(token)
        case .currentUser(let bearer):
            s.tag("currentUser")
            s.visit(bearer)
        case .revoke(let token, let bearer):
            s.tag("revoke")
            s.visit(token)
            s.visit(bearer)
        case .deleteAccount(let bearer):
            s.tag("deleteAccount")
            s.visit(bearer)
        case .protected(let call, let bearer):
            s.tag("protected")
            s.visit(call)
            s.visit(bearer)
        case .openRealtime(let token):
            s.tag("openRealtime")
            s.visit(token)
        case .signInNatively(let details):
            s.tag("signInNatively")
            s.plain(details.provider)
            s.visit(details.identityToken)
            s.plain(details.userIdentifier ?? "")
            s.visit(details.authorizationCode)
            s.plain(details.givenName)
            s.plain(details.familyName)
            s.plain(details.email)
        case .exchangeCode(let exchange):
            s.tag("exchangeCode")
            s.visit(exchange.code)
            s.visit(exchange.verifier)
        case .requestDeviceCode:
            s.tag("requestDeviceCode")
        case .pollDeviceToken(let code):
            s.tag("pollDeviceToken")
            s.visit(code)
        }
    }
}

extension PendingCall: Surveyable {
    /// The call, its stage and whether it was replayed.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(id)
        switch stage {
        case .sent(let request, let token):
            s.tag("sent")
            s.visit(request)
            s.visit(token)
        case .waitingForToken:
            s.tag("waitingForToken")
        }
        s.plain(replayed)
    }
}

extension CodeChallenge: Surveyable {
    /// Destination, deadlines, attempts.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(destination)
        s.visit(expiresAt)
        s.visit(resendAt)
        s.number(attemptsLeft)
    }
}

extension Waiter: Surveyable {
    /// The request, then the intent waiting for its answer. The endpoint is left out: it is the
    /// request's, which the world's network holds.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(request)
        s.visit(intent)
    }
}

extension ServerSignOut: Surveyable {
    /// The session's tokens, the request awaited, attempts, whether it refreshed and the round.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(refreshToken)
        s.visit(bearer)
        switch stage {
        case .refreshing(let request):
            s.tag("refreshing")
            s.visit(request)
        case .revoking(let request):
            s.tag("revoking")
            s.visit(request)
        }
        s.number(attempts)
        s.number(refreshed ? 1 : 0)
        s.number(round)
    }
}
