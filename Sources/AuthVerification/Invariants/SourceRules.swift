import AuthCore

/// The rules the invariants judge by, written from their sources in the kit's own terms.
///
/// An oracle that asks the product to classify what it checks is wrong whenever the product is:
/// a session that treated Everday's "403 pending approval" refresh answer as transient passed
/// `authflow verify` while the invariant asked `AuthFailure.isTransient` whether the answer was
/// definitive. So no invariant calls the product's classification (`isTransient`, the value types'
/// validation); these rules restate each from its source, and a test keeps the catalogue to them.
public enum SourceRules {
    // MARK: Answers

    /// The least time between two device polls the provider asked for (RFC 8628 §3.2): its
    /// `interval`, "if no value is provided, clients MUST use 5 as the default".
    @inlinable public static func deviceInterval(_ sent: Interval?) -> Interval { sent ?? .seconds(5) }

    /// What a `slow_down` adds to the interval "for this and all subsequent requests" (RFC 8628
    /// §3.5).
    public static let slowDownIncrement = Interval.seconds(5)

    /// Whether a refresh answered with `failure` was refused: the server judged the refresh token
    /// (or the account) and will not renew it, so the session must end.
    ///
    /// RFC 6749 §5.2: a refused grant is 400 (`invalid_grant`, `invalid_request`) or 401
    /// (`invalid_client`); Everday's API (refresh section) answers 401 for an invalid, expired or
    /// revoked refresh token and 403 for an account pending approval or disabled. Nothing else
    /// judges the token: no answer (network, timeout), 5xx and unreadable answers are the server
    /// failing, 429 asks to wait, 404 and 409 name no refresh rule.
    public static func refreshRefused(_ failure: AuthFailure) -> Bool {
        switch failure {
        case .badRequest, .unauthorized, .forbidden, .pendingApproval, .incorrectPassword: true
        case .network, .timeout, .server, .rateLimited, .malformed, .notFound, .conflict: false
        }
    }

    /// Whether `reply` acknowledges a request asking the server to act — a password changed, an
    /// account deleted.
    ///
    /// Anonymous Wall answers a change with the user (`200` with the profile), Everday's deployed
    /// server with `200 {"status":"ok"}` and a deletion with a count of what it removed; any
    /// failure, or an answer of another kind, changed nothing the client can know of.
    public static func acknowledged(_ reply: Reply) -> Bool {
        switch reply {
        case .accepted, .user: true
        case .granted, .refreshed, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
            .realtimeOpened, .realtimeClosed, .failed:
            false
        }
    }

    /// Whether `failure` refuses the access token presented and says nothing of the refresh token:
    /// RFC 6750 §3.1, an invalid, expired or revoked bearer is 401. A server's own hiccup, or a
    /// clock ahead of the client's, reads the same; only the refresh endpoint can say the session
    /// is over.
    public static func accessTokenRefused(_ failure: AuthFailure) -> Bool {
        switch failure {
        case .unauthorized: true
        case .badRequest, .incorrectPassword, .forbidden, .pendingApproval, .network, .timeout, .server, .rateLimited, .malformed,
            .notFound, .conflict:
            false
        }
    }

    /// Whether a password step answered `failure` refused the password the user typed and nothing
    /// else: Everday's change-password answers a wrong current password 401 `Invalid credentials`
    /// and an expired bearer 401 with another detail; only the first leaves the session's token
    /// judged sound by the server.
    public static func typedPasswordRefused(_ failure: AuthFailure) -> Bool {
        switch failure {
        case .incorrectPassword: true
        case .badRequest, .unauthorized, .forbidden, .pendingApproval, .network, .timeout, .server, .rateLimited, .malformed, .notFound,
            .conflict:
            false
        }
    }

    /// Whether `failure` is the environment failing — no answer, or an answer that may be
    /// otherwise later (RFC 9110 §15.6 5xx, §15.5.5 404 "may be temporary", §15.5.10 409 until the
    /// conflict is resolved; RFC 6585 §4 429; an answer that cannot be read) — rather than the
    /// server refusing the request's credentials or input: the moves a livelock may consist of.
    public static func environmentFailed(_ failure: AuthFailure) -> Bool {
        switch failure {
        case .network, .timeout, .server, .rateLimited, .malformed, .notFound, .conflict: true
        case .badRequest, .unauthorized, .forbidden, .pendingApproval, .incorrectPassword: false
        }
    }

    // MARK: Server sign-out

    /// Whether a step ended a round of the server sign-out of `token` (RFC 7009 §2: the client
    /// asks, the server answers), judged from what the server did, never from the client's own
    /// count:
    /// - the step answered a request that presented the token (`answered`, with `reply`), and
    ///   sent nothing that presents it or the successor a renewal answered: no retry, no
    ///   revocation after the renewal, so the round is over. Where the answer is a failure the
    ///   client tries again within the round (``retriedInRound(_:_:)``), only where the request
    ///   was the round's last send: `attemptsLeft`, the history's ``History/roundAttempts``
    ///   before the step, gives the token no more sends than that one; or
    /// - a window the server set on the sign-out endpoints (`APIRequest.signOutEndpoints`) is open
    ///   at `now` among `windows`, and nothing that presents the token leaves: the client holds
    ///   the round's request (or its next send) back and answers it with the server's 429 itself
    ///   (RFC 6585 §4).
    ///
    /// A round that only lost its requests to a relaunch did not end: the server answered none.
    /// Without the 429 window, a session answered a 429 with a 300-second wait breaks "no server
    /// session outlives a logout": its rounds end in the wait. Without the sends left, a client
    /// whose policy gives a round two sends and that gives up after one lost request passes.
    @inlinable public static func endsRound(
        of token: RefreshToken, answered: Exchange?, reply: Reply?, sent: [APIRequest], windows: [RateLimitWindow], at now: Instant,
        attemptsLeft: [RoundAttempts]
    ) -> Bool {
        var successor: RefreshToken?
        if case .refreshed(let tokens)? = reply { successor = tokens.refreshToken }
        if sent.contains(where: { $0.refreshToken == token || ($0.refreshToken != nil && $0.refreshToken == successor) }) { return false }
        if let answered, answered.request.refreshToken == token {
            guard let reply, retriedInRound(answered.request, reply) else { return true }
            if !attemptsLeft.contains(where: { $0.refreshToken == token && $0.left > 1 }) { return true }
            // Sends are left: only the server's 429 window, holding the next one back, ends the round.
        }
        return windows.contains { window in window.until > now && APIRequest.signOutEndpoints.contains(window.endpoint) }
    }

    /// Whether `reply`, answering a server sign-out's `request` (the renewal of a logged-out pair,
    /// or its revocation), leaves the round to another send of the same request: the environment
    /// failing (``environmentFailed(_:)``) or an answer of another kind, which cannot be read as
    /// either. Not the server's 429, which asks not to be called again so soon (RFC 6585 §4) and
    /// ends the round at once; not a refused renewal (``refreshRefused(_:)``), which shows the
    /// token dead; not a renewal, which moves the round on to revoking its successor; and not a
    /// revocation's acknowledgement (RFC 7009 §2.2: 200 whether or not the token was valid) or
    /// refusal, which settle it. Any other request is no sign-out's: `false`.
    public static func retriedInRound(_ request: APIRequest, _ reply: Reply) -> Bool {
        if case .failed(let failure) = reply {
            if case .rateLimited = failure { return false }
            switch request {
            case .refresh, .revoke: return environmentFailed(failure)
            default: return false
            }
        }
        switch (request, reply) {
        case (.refresh, .refreshed): return false
        case (.refresh, _): return true
        case (.revoke, .accepted), (.revoke, .user), (.revoke, .pendingApproval), (.revoke, .verificationRequired): return false
        case (.revoke, _): return true
        default: return false
        }
    }

    // MARK: Input

    /// NIST SP 800-63B §5.1.1.2, and the password rule of every API document that sets one: at
    /// least 8 characters, counted as typed; and at most 1,024, the bound AuthCore documents (NIST
    /// asks that at least 64 be allowed; a bound keeps a server from hashing megabytes).
    ///
    /// Characters are those the user sees (Swift `Character`s, extended grapheme clusters), as
    /// AuthCore's `Password` counts them. NIST counts "each Unicode code point" as one character
    /// and the API documents name no unit; a character is one code point or more, so a password
    /// of 8 characters has 8 code points, UTF-16 units and UTF-8 bytes or more, and meets the
    /// minimum however a server counts, even one that normalises to NFC first. The price is
    /// that 4 emoji with a skin tone (8 code points) are too short here though NIST would take
    /// them. The maximum is AuthCore's own, in the same characters.
    public static func isPassword(_ text: String) -> Bool { (8...1_024).contains(text.count) }

    /// The backends' one-time codes (Anonymous Wall, Hero365 OTP, Everday's email code): six digits.
    public static func isCode(_ text: String) -> Bool {
        text.utf8.count == 6 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// RFC 5321 §4.1.2 and §4.5.3.1, as far as a client can judge an address: ASCII, one `@`, a
    /// local part of 1 to 64 characters, a domain of non-empty dot-separated labels whose last is
    /// at least two letters, 254 characters at most, no spaces.
    ///
    /// RFC 5321's grammar is ASCII (its `atext` and `Let-dig`) and counts octets: an address with
    /// `ü` needs RFC 6531's SMTPUTF8, which none of the backends documents, so it is refused here,
    /// and in ASCII an octet is a character.
    public static func isEmail(_ text: String) -> Bool {
        guard text.utf8.count <= 254, text.utf8.allSatisfy({ $0 < 0x80 }), !text.contains(where: \.isWhitespace) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].count) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let last = labels.last else { return false }
        return last.count >= 2 && last.allSatisfy { $0.isASCII && $0.isLetter }
    }

    /// ITU-T E.164, as Hero365's "Phone Number Validation" asks: `+`, a country code that does not
    /// start with 0, 8 to 15 digits in all.
    public static func isPhone(_ text: String) -> Bool {
        let digits = text.utf8.dropFirst()
        return text.utf8.first == UInt8(ascii: "+") && (8...15).contains(digits.count)
            && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } && digits.first != UInt8(ascii: "0")
    }

    /// Everday's usernames, which its API leaves unconstrained, as AuthCore documents them: 1 to 64
    /// characters, each an ASCII letter or digit, `.`, `_`, `-` or `#` (so `ë` is refused, and
    /// the length is the same in characters, scalars and bytes).
    public static func isUsername(_ text: String) -> Bool {
        (1...64).contains(text.count) && text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "._-#".contains($0) }
    }

    /// Subspace's "Name: Required, max 255 characters": 1 to 255 characters, not all blank.
    ///
    /// Blank is Unicode's white space (`Character.isWhitespace`: a no-break space and an
    /// ideographic space are blank too); characters are those the user sees, as for passwords.
    /// Subspace names no unit: a server counting code points or bytes could refuse a name of 255
    /// characters with accents that AuthCore sends, and would answer so; the rule is not
    /// narrowed to a guess.
    public static func isName(_ text: String) -> Bool { text.count <= 255 && text.contains { !$0.isWhitespace } }

    /// Everday's reset identifier, "username-or-email": an email when it has an `@`, else a username.
    public static func isUsernameOrEmail(_ text: String) -> Bool { text.contains("@") ? isEmail(text) : isUsername(text) }
}
