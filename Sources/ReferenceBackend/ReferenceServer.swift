import Foundation

/// A loopback HTTP/1.1 server speaking the five documented backend contracts and OpenID Connect
/// (a provider for one public client, see `ServedBackend.openIDConnect`), for tests and local development.
///
/// Mounted alone, a backend answers its documented paths at the root; mounted together, each
/// sits under its `ServedBackend.pathPrefix` (`/everday/api/auth/login`). Dev endpoints live under
/// `/__dev/` in both cases (see `DevEndpoints`). Codes and tokens meant for email or SMS go to
/// an outbox (`outbox(to:)`), never into API answers.
///
/// ```swift
/// let server = ReferenceServer(backends: [.everday])
/// let port = try server.start()
/// defer { server.stop() }
/// let base = server.baseURL(for: .everday) // http://127.0.0.1:<port>
/// ```
public final class ReferenceServer: Sendable {
    /// The mounted backends, in mount order.
    public let backends: [ServedBackend]
    /// The configuration the server was created with.
    public let configuration: Configuration

    private let clock: ServerClock
    private let outboxStore = Outbox()
    private let recorder = LedgerRecorder()
    private let faults = FaultBoard()
    private let sessions: SessionStore
    private let everday: Everday?
    private let hero365: Hero365?
    private let vynqTalk: VynqTalk?
    private let http: HTTPServer
    private let boundPort: Locked<UInt16?>

    /// Creates a stopped server mounting `backends` (duplicates ignored). `requestLog`, when given,
    /// hears of every request once it is answered (see ``RequestLogEntry``: no body, query or header).
    public init(
        backends: [ServedBackend] = ServedBackend.allCases, configuration: Configuration = Configuration(),
        requestLog: (@Sendable (RequestLogEntry) -> Void)? = nil
    ) {
        var unique: [ServedBackend] = []
        for backend in backends where !unique.contains(backend) { unique.append(backend) }
        self.backends = unique
        self.configuration = configuration
        let clock = ServerClock(configuration.clock)
        self.clock = clock
        let sessions = SessionStore(clock: clock, ledger: recorder) { backend in
            switch backend {
            case .anonymousWall: return configuration.anonymousWall.tokens
            case .vynqTalk: return configuration.vynqTalk.tokens
            case .everday: return configuration.everday.tokens
            case .subspace: return configuration.subspace.tokens
            case .hero365: return configuration.hero365.tokens
            case .openIDConnect: return configuration.openIDConnect.tokens
            }
        }
        self.sessions = sessions
        let services = Services(clock: clock, outbox: outboxStore, sessions: sessions, configuration: configuration)
        var everday: Everday?
        var vynqTalk: VynqTalk?
        var hero365: Hero365?
        var provider: OpenIDProvider?
        let port = Locked<UInt16?>(nil)
        boundPort = port
        let mounts = unique.map { backend -> Dispatcher.Mount in
            let contract: any Contract
            let prefix = unique.count == 1 ? "" : backend.pathPrefix
            switch backend {
            case .anonymousWall: contract = AnonymousWall(services: services)
            case .vynqTalk:
                let made = VynqTalk(services: services)
                vynqTalk = made
                contract = made
            case .everday:
                let made = Everday(services: services)
                everday = made
                contract = made
            case .subspace: contract = Subspace(services: services)
            case .hero365:
                let made = Hero365(services: services)
                hero365 = made
                contract = made
            case .openIDConnect:
                // The issuer is the provider's base URL, known once the server listens.
                let made = OpenIDProvider(services: services) { "http://127.0.0.1:\(port.withLock { $0 } ?? 0)\(prefix)" }
                provider = made
                contract = made
            }
            return Dispatcher.Mount(prefix: prefix, contract: contract)
        }
        self.everday = everday
        self.hero365 = hero365
        self.vynqTalk = vynqTalk
        let dispatcher = Dispatcher(
            mounts: mounts, faults: faults, ledger: recorder,
            dev: DevEndpoints(
                outbox: outboxStore, faults: faults, clock: clock, everday: everday, hero365: hero365, openIDProvider: provider)
        )
        let limits = HTTPServer.Limits(
            maxHeaderBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes,
            readTimeout: configuration.readTimeout, backlog: configuration.backlog
        )
        guard let requestLog else {
            http = HTTPServer(limits: limits, handler: dispatcher.handle)
            return
        }
        http = HTTPServer(limits: limits) { request, connection in
            let started = DispatchTime.now().uptimeNanoseconds
            let reply = dispatcher.handle(request, connection)
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            requestLog(RequestLogEntry(request: request, reply: reply, seconds: elapsed))
            return reply
        }
    }

    deinit {
        http.stop()
    }

    /// Binds 127.0.0.1:`port` (0 picks a free port), starts serving and returns the bound port.
    @discardableResult
    public func start(port: UInt16 = 0) throws(ReferenceServerError) -> UInt16 {
        let bound = try http.start(port: port)
        boundPort.withLock { $0 = bound }
        return bound
    }

    /// Closes the listening socket and every connection and waits for all server threads to end.
    /// Calling it on a stopped server does nothing.
    public func stop() {
        http.stop()
    }

    /// The port of the latest `start`, or `nil` before the first one.
    public var port: UInt16? {
        boundPort.withLock { $0 }
    }

    /// The URL the backend's documented paths are appended to, e.g. `http://127.0.0.1:5123/everday`
    /// (no prefix when it is mounted alone). For Everday, the document's base URL is this plus `/api`;
    /// for OpenID Connect, this is the issuer.
    public func baseURL(for backend: ServedBackend) -> URL {
        let prefix = backends.count == 1 ? "" : backend.pathPrefix
        return URL(string: "http://127.0.0.1:\(port ?? 0)\(prefix)")!
    }

    /// The server root, where `/__dev/` lives.
    public var rootURL: URL {
        URL(string: "http://127.0.0.1:\(port ?? 0)")!
    }

    /// A snapshot of what the server has seen so far.
    public var ledger: Ledger {
        recorder.snapshot
    }

    /// Messages sent to an email address or phone number, oldest first.
    public func outbox(to recipient: String) -> [OutboxMessage] {
        outboxStore.messages(to: recipient)
    }

    /// Applies `fault` to requests whose path (with or without the backend prefix, or the
    /// endpoint's template) equals `path`, or to every contract request when `path` is `nil`;
    /// for the next `times` matching requests, or always when `times` is `nil`.
    /// When several faults match, the one injected first applies.
    public func inject(_ fault: Fault, path: String? = nil, times: Int? = nil) {
        faults.inject(fault, path: path, times: times)
    }

    /// Removes every injected fault.
    public func clearFaults() {
        faults.clear()
    }

    /// The current time by the server's clock.
    public var now: Date {
        clock.now
    }

    /// Moves the server's clock forward, to expire tokens, codes and OTPs without sleeping.
    public func advanceClock(by interval: TimeInterval) {
        clock.advance(by: interval)
    }

    /// Where a refresh token the server issued stands now, without presenting it (presenting one
    /// to a refresh endpoint consumes it): tests compare what a client kept with what the server
    /// still accepts.
    public func refreshTokenStatus(_ token: String) -> TokenStatus {
        sessions.refreshStatus(token)
    }

    /// How many refresh tokens issued to `subject` (the user's id as the backend keys its
    /// sessions: Everday's username, Hero365's user id) would still refresh now: after a logout
    /// that ended the server session, none.
    public func liveRefreshTokens(of subject: String, on backend: ServedBackend) -> Int {
        sessions.liveRefreshTokens(of: subject, on: backend)
    }

    /// Where an access token the server issued stands now.
    public func accessTokenStatus(_ token: String) -> TokenStatus {
        sessions.accessStatus(token)
    }

    /// Approves a pending Everday account as the seeded parent; returns whether the user exists.
    @discardableResult
    public func approve(username: String) -> Bool {
        everday?.approve(username: username) ?? false
    }

    /// Withdraws an Everday account's approval: it is pending again, and its login and refresh
    /// answer the pending-approval 403 until a parent approves it again. Returns whether the user exists.
    @discardableResult
    public func withdrawApproval(username: String) -> Bool {
        everday?.withdrawApproval(username: username) ?? false
    }

    /// Sets whether Everday's login reports `RequirePasswordChange` for a user; returns whether the user exists.
    @discardableResult
    public func setRequirePasswordChange(username: String, _ required: Bool) -> Bool {
        everday?.setRequirePasswordChange(username: username, required) ?? false
    }

    /// An identity token as a provider's SDK hands one to an app (Sign in with Apple, Google
    /// Sign-In), for Hero365's and Subspace's deployed native sign-in: a JWT whose `iss` is the provider's
    /// (`https://appleid.apple.com`, `https://accounts.google.com`), `sub` is `subject` (Apple's
    /// user identifier) and `email`, when given, the user's. Its signature is random: this server,
    /// like Supabase, trusts the token by its issuer here, since no provider is reachable.
    public static func providerIdentityToken(provider: String, subject: String, email: String? = nil) -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(Hero365.issuers[provider] ?? provider), "sub": .string(subject), "aud": "hero365",
        ]
        if let email { claims["email"] = .string(email) }
        return JWT.make(claims: claims)
    }

    /// Suspends the VynqTalk account registered with `email`, as its admin does: protected calls
    /// answer 403 "Your account is suspended."; `/ws` refuses the handshake with 403, or (deployed)
    /// opens, sends `user_suspended` and closes at once. Returns whether the account exists.
    @discardableResult
    public func suspendVynqTalkUser(email: String) -> Bool {
        vynqTalk?.suspend(email: email) ?? false
    }

    /// Closes every open VynqTalk WebSocket with code 1001, so clients can practise reconnecting.
    public func disconnectWebSockets() {
        vynqTalk?.disconnectWebSockets()
    }

    /// The numeric Everday user id `PUT /api/settings/users/{user_id}/approve` takes.
    public func everdayUserID(username: String) -> Int? {
        everday?.userID(username: username)
    }

    /// The Hero365 user id (Supabase's: the tokens' `sub`, `/revoke-tokens/{user_id}`'s path) of
    /// the account with `identifier`, an email address or a phone number.
    public func hero365UserID(_ identifier: String) -> String? {
        hero365?.userID(identifier)
    }
}
