import Foundation

/// Access tokens, refresh-token families and their revocation, for every backend.
///
/// A *session* is one sign-in: its access tokens and its chain (family) of refresh tokens.
/// Rotation consumes the presented refresh token and issues the next one in the family;
/// presenting a consumed token again is *reuse*, which revokes the whole family, its access
/// tokens included.
final class SessionStore: Sendable {
    /// Who an accepted token belongs to.
    struct Grant: Sendable, Hashable {
        /// The backend's user identifier.
        var subject: String
        /// The session (refresh-token family) the token belongs to.
        var sessionID: String
    }

    /// The verdict on a presented access token.
    enum AccessCheck: Sendable, Hashable {
        /// Accepted.
        case valid(Grant)
        /// Issued by this server but past its lifetime.
        case expired
        /// Unknown, for another backend, or its session was revoked.
        case invalid
    }

    /// The verdict on a presented refresh token.
    enum Rotation: Sendable, Hashable {
        /// The token was consumed; `refreshToken` is the next one in its family.
        case rotated(Grant, refreshToken: String)
        /// The token had already been consumed: the family is now revoked.
        case reuseDetected
        /// The token's family was revoked earlier (logout, reuse, password reset).
        case revoked
        /// The token is past its lifetime.
        case expired
        /// The token was never issued by this backend.
        case unknown
    }

    /// A fresh sign-in's tokens.
    struct Issued: Sendable {
        var accessToken: String
        var refreshToken: String?
        var grant: Grant
    }

    private struct AccessRecord {
        var backend: ServedBackend
        var grant: Grant
        var expiresAt: Date
    }

    private struct RefreshRecord {
        var backend: ServedBackend
        var grant: Grant
        var expiresAt: Date
        var consumed = false
    }

    private struct Session {
        var backend: ServedBackend
        var subject: String
        var claims: [String: JSONValue]
        var revoked = false
    }

    private struct State {
        var nextSession = 1
        var sessions: [String: Session] = [:]
        var access: [String: AccessRecord] = [:]
        var refresh: [String: RefreshRecord] = [:]
    }

    private let state = Locked(State())
    private let clock: ServerClock
    private let ledger: LedgerRecorder
    private let policies: @Sendable (ServedBackend) -> Configuration.TokenPolicy

    init(clock: ServerClock, ledger: LedgerRecorder, policies: @escaping @Sendable (ServedBackend) -> Configuration.TokenPolicy) {
        self.clock = clock
        self.ledger = ledger
        self.policies = policies
    }

    /// Opens a session for `subject` and issues its first access token, plus a refresh token when
    /// `refreshLifetime` is given. `claims` are added to every access token's payload.
    func open(_ backend: ServedBackend, subject: String, claims: [String: JSONValue], refreshLifetime: TimeInterval?) -> Issued {
        let now = clock.now
        return state.withLock { state in
            let sessionID = "\(backend.rawValue)-session-\(state.nextSession)"
            state.nextSession += 1
            state.sessions[sessionID] = Session(backend: backend, subject: subject, claims: claims)
            let grant = Grant(subject: subject, sessionID: sessionID)
            let access = mintAccess(&state, backend: backend, grant: grant, claims: claims, now: now)
            let refresh = refreshLifetime.map {
                mintRefresh(&state, backend: backend, grant: grant, expiresAt: now.addingTimeInterval($0))
            }
            return Issued(accessToken: access, refreshToken: refresh, grant: grant)
        }
    }

    /// Judges an access token presented to `backend`.
    func checkAccess(_ token: String, for backend: ServedBackend) -> AccessCheck {
        let now = clock.now
        return state.withLock { state in
            guard let record = state.access[token], record.backend == backend,
                state.sessions[record.grant.sessionID]?.revoked == false
            else { return .invalid }
            return record.expiresAt > now ? .valid(record.grant) : .expired
        }
    }

    /// The owner of a refresh token issued by `backend`, consumed or not.
    func owner(ofRefreshToken token: String, for backend: ServedBackend) -> String? {
        state.withLock { state in
            state.refresh[token].flatMap { $0.backend == backend ? $0.grant.subject : nil }
        }
    }

    /// Consumes a refresh token and issues the next of its family, detecting reuse (unless
    /// `acceptingConsumed`, a deviation from the documents: a consumed token then rotates again).
    func rotate(_ token: String, for backend: ServedBackend, refreshLifetime: TimeInterval, acceptingConsumed: Bool = false) -> Rotation {
        ledger.record { $0.refreshTokensPresented.append(token) }
        let now = clock.now
        let (rotation, reusedFamily) = state.withLock { state -> (Rotation, String?) in
            guard let record = state.refresh[token], record.backend == backend else { return (.unknown, nil) }
            let sessionID = record.grant.sessionID
            if state.sessions[sessionID]?.revoked ?? true { return (.revoked, nil) }
            if record.consumed && !acceptingConsumed {
                state.sessions[sessionID]?.revoked = true
                return (.reuseDetected, sessionID)
            }
            if record.expiresAt <= now { return (.expired, nil) }
            state.refresh[token]?.consumed = true
            let next = mintRefresh(&state, backend: backend, grant: record.grant, expiresAt: now.addingTimeInterval(refreshLifetime))
            return (.rotated(record.grant, refreshToken: next), nil)
        }
        if let reusedFamily {
            ledger.record {
                $0.reuseDetections.append(reusedFamily)
                $0.familiesRevoked.append(reusedFamily)
            }
        }
        return rotation
    }

    /// What the server knows of a token it issued, for introspection (RFC 7662).
    struct Record: Sendable, Hashable {
        /// Whether it is an access token (else a refresh token).
        var isAccessToken: Bool
        /// Who it belongs to.
        var grant: Grant
        /// When it stops being accepted.
        var expiresAt: Date
        /// Where it stands now.
        var status: TokenStatus
        /// The claims its session was opened with.
        var claims: [String: JSONValue]
    }

    /// The record of `token`, an access or refresh token `backend` issued; `nil` when it did not issue it.
    func record(of token: String, for backend: ServedBackend) -> Record? {
        let now = clock.now
        return state.withLock { state in
            if let access = state.access[token], access.backend == backend {
                let session = state.sessions[access.grant.sessionID]
                let status: TokenStatus = session?.revoked ?? true ? .revoked : access.expiresAt > now ? .live : .expired
                return Record(
                    isAccessToken: true, grant: access.grant, expiresAt: access.expiresAt, status: status, claims: session?.claims ?? [:])
            }
            if let refresh = state.refresh[token], refresh.backend == backend {
                let session = state.sessions[refresh.grant.sessionID]
                let status: TokenStatus =
                    session?.revoked ?? true ? .revoked : refresh.consumed ? .consumed : refresh.expiresAt > now ? .live : .expired
                return Record(
                    isAccessToken: false, grant: refresh.grant, expiresAt: refresh.expiresAt, status: status, claims: session?.claims ?? [:])
            }
            return nil
        }
    }

    /// Revokes the session `sessionID` of `backend`; `becauseOfReuse` records it among the
    /// families revoked by reuse detection (an authorization code replayed), else among those
    /// revoked on purpose. Returns whether it was open.
    @discardableResult
    func revoke(session sessionID: String, for backend: ServedBackend, becauseOfReuse: Bool = false) -> Bool {
        let revoked = state.withLock { state -> Bool in
            guard state.sessions[sessionID]?.backend == backend, state.sessions[sessionID]?.revoked == false else { return false }
            state.sessions[sessionID]?.revoked = true
            return true
        }
        if revoked {
            ledger.record { ledger in
                if becauseOfReuse {
                    ledger.reuseDetections.append(sessionID)
                    ledger.familiesRevoked.append(sessionID)
                } else {
                    ledger.sessionsRevoked.append(sessionID)
                }
            }
        }
        return revoked
    }

    /// Where a refresh token stands, without presenting it (presenting consumes it).
    func refreshStatus(_ token: String) -> TokenStatus {
        let now = clock.now
        return state.withLock { state in
            guard let record = state.refresh[token] else { return .unknown }
            if state.sessions[record.grant.sessionID]?.revoked ?? true { return .revoked }
            if record.consumed { return .consumed }
            return record.expiresAt > now ? .live : .expired
        }
    }

    /// How many refresh tokens of `subject` on `backend` would refresh now: unconsumed, unexpired,
    /// their session not revoked.
    func liveRefreshTokens(of subject: String, on backend: ServedBackend) -> Int {
        let now = clock.now
        return state.withLock { state in
            state.refresh.values.filter { record in
                record.backend == backend && record.grant.subject == subject && !record.consumed && record.expiresAt > now
                    && !(state.sessions[record.grant.sessionID]?.revoked ?? true)
            }.count
        }
    }

    /// Where an access token stands.
    func accessStatus(_ token: String) -> TokenStatus {
        let now = clock.now
        return state.withLock { state in
            guard let record = state.access[token] else { return .unknown }
            if state.sessions[record.grant.sessionID]?.revoked ?? true { return .revoked }
            return record.expiresAt > now ? .live : .expired
        }
    }

    /// Issues another access token in an open session.
    func issueAccessToken(for grant: Grant, backend: ServedBackend) -> String {
        let now = clock.now
        return state.withLock { state in
            let claims = state.sessions[grant.sessionID]?.claims ?? [:]
            return mintAccess(&state, backend: backend, grant: grant, claims: claims, now: now)
        }
    }

    /// Revokes the session a refresh token belongs to; returns whether one was open.
    @discardableResult
    func revokeSession(ofRefreshToken token: String, for backend: ServedBackend) -> Bool {
        let revoked = state.withLock { state -> String? in
            guard let record = state.refresh[token], record.backend == backend,
                state.sessions[record.grant.sessionID]?.revoked == false
            else { return nil }
            state.sessions[record.grant.sessionID]?.revoked = true
            return record.grant.sessionID
        }
        if let revoked { ledger.record { $0.sessionsRevoked.append(revoked) } }
        return revoked != nil
    }

    /// Revokes every open session of one user.
    func revokeAllSessions(of subject: String, for backend: ServedBackend) {
        let revoked = state.withLock { state -> [String] in
            let open = state.sessions.filter { $0.value.backend == backend && $0.value.subject == subject && !$0.value.revoked }
            for id in open.keys { state.sessions[id]?.revoked = true }
            return open.keys.sorted()
        }
        if !revoked.isEmpty { ledger.record { $0.sessionsRevoked.append(contentsOf: revoked) } }
    }

    private func mintAccess(_ state: inout State, backend: ServedBackend, grant: Grant, claims: [String: JSONValue], now: Date) -> String {
        let policy = policies(backend)
        let expiresAt = now.addingTimeInterval(policy.accessTokenLifetime)
        var payload = claims
        payload["sub"] = .string(grant.subject)
        payload["iat"] = .int(Int(now.timeIntervalSince1970))
        payload["jti"] = .string(Secrets.uuid())
        if policy.includesExpiryClaim {
            payload[policy.expiryClaim] = .int(Int(expiresAt.timeIntervalSince1970))
        }
        let token = JWT.make(claims: payload)
        state.access[token] = AccessRecord(backend: backend, grant: grant, expiresAt: expiresAt)
        return token
    }

    private func mintRefresh(_ state: inout State, backend: ServedBackend, grant: Grant, expiresAt: Date) -> String {
        let token = Secrets.opaqueToken()
        state.refresh[token] = RefreshRecord(backend: backend, grant: grant, expiresAt: expiresAt)
        return token
    }
}
