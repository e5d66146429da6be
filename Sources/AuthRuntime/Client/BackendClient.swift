import AuthCore
import Foundation

/// What a sign-in (or a step that signs in) gave.
public enum SignInResult: Hashable, Sendable, CustomStringConvertible {
    /// Signed in: the session is usable.
    case signedIn(UserProfile)
    /// Signed in, but the first password must be set (``AnonymousWallClient/setPassword(_:)``) before anything else.
    case passwordSetupRequired(UserProfile)
    /// Signed in, but the server demands a new password before anything else (Everday).
    case passwordChangeRequired(UserProfile)
    /// The account exists but awaits a parent's approval (Everday), with the server's message.
    case pendingApproval(message: String?)

    /// The signed-in user, if a session began.
    public var user: UserProfile? {
        switch self {
        case .signedIn(let user), .passwordSetupRequired(let user), .passwordChangeRequired(let user): user
        case .pendingApproval: nil
        }
    }

    /// The case and the user's id.
    public var description: String {
        switch self {
        case .signedIn(let user): "signedIn(\(user))"
        case .passwordSetupRequired(let user): "passwordSetupRequired(\(user))"
        case .passwordChangeRequired(let user): "passwordChangeRequired(\(user))"
        case .pendingApproval: "pendingApproval"
        }
    }
}

/// What ending the server session after a logout came to.
public enum ServerSignOutResult: Hashable, Sendable {
    /// The server confirmed the session's refresh token is dead (revoked, or refused).
    case ended
    /// The server could not be reached (network, timeout, 5xx, 429): the refresh token is kept in
    /// the vault only to be revoked, and the revocation is tried again at the next launch and the
    /// next sign-in (`OwedRevocation`). The user is signed out meanwhile.
    case owed(AuthError)
    /// It could not be confirmed and nothing will try again: the server refused the revocation, or
    /// every round of an owed one failed. The refresh token may live until it expires.
    case notConfirmed(AuthError)

    /// The report an outcome carries, if it is a background sign-out's end.
    init?(_ outcome: AuthOutcome) {
        switch outcome {
        case .serverSessionEnded: self = .ended
        case .serverSessionEndOwed(let failure): self = .owed(.server(failure))
        case .serverSessionNotConfirmed(let failure): self = .notConfirmed(.server(failure))
        case .signedIn, .signedOut, .tokenRefreshed, .refreshRetryScheduled, .offline, .passwordSetupRequired, .passwordChangeRequired,
            .realtimeConnected, .realtimeDisconnected, .vaultUnreadable, .failed:
            return nil
        }
    }
}

/// What a registration gave.
public enum RegistrationResult: Hashable, Sendable, CustomStringConvertible {
    /// Registered and signed in at once.
    case signedIn(UserProfile)
    /// Registered; a parent must approve the account before it can sign in (Everday).
    case pendingApproval(message: String?)
    /// Registered; the email or phone must be verified before signing in (Hero365).
    case verificationRequired(message: String?)

    /// The case.
    public var description: String {
        switch self {
        case .signedIn(let user): "signedIn(\(user))"
        case .pendingApproval: "pendingApproval"
        case .verificationRequired: "verificationRequired"
        }
    }
}

/// A code (or reset link) was sent.
public struct CodeSent: Hashable, Sendable, CustomStringConvertible {
    /// How long until another may be requested.
    public let resendAvailableIn: Duration
    /// How long the code works, when the backend says.
    public let expiresIn: Duration?

    /// Creates the value.
    public init(resendAvailableIn: Duration, expiresIn: Duration?) {
        self.resendAvailableIn = resendAvailableIn
        self.expiresIn = expiresIn
    }

    /// `codeSent(resend in 30 s)`.
    public var description: String { "codeSent(resend in \(AuthError.spoken(resendAvailableIn)))" }
}

/// A backend's app-facing client: the operations its document describes, each one `async throws`
/// call, on top of an ``AuthRunner`` running the backend's app machine with the backend's
/// contract (paired by construction: a client cannot run one backend's lifecycles against
/// another's API).
///
/// Every client also offers what every session needs: ``signOut()``, protected requests
/// (``authorized(_:)`` and ``authorized(_:decoding:)``), the current user and an auth-state
/// stream that begins with the current state. The first use of any of them reads the vault and
/// restores a stored session.
public protocol BackendClient: AnyObject, Sendable {
    /// The backend's app machine.
    associatedtype App: AuthStateReporting
    /// The runner underneath, for what the client does not wrap (outcomes, issues, the raw state).
    var runner: AuthRunner<App> { get }
}

extension BackendClient {
    /// Reads the vault and restores a stored session (once; every operation does it first).
    public func start() async { await runner.start() }

    /// Where the user is now.
    public var authState: AuthState {
        get async {
            await runner.start()
            return await runner.authState ?? .signedOut
        }
    }

    /// The signed-in user, if any.
    public var currentUser: UserProfile? { get async { await authState.user } }

    /// Whether a session can make protected requests now.
    public var isSignedIn: Bool { get async { await authState.isSignedIn } }

    /// The auth state now, then each change once (signed in, refreshed, offline, signed out…),
    /// until the client stops. A refresh shows as the same session with a later expiry.
    public var authStateChanges: AsyncStream<AuthState> {
        get async {
            await runner.start()
            return await runner.authStates()
        }
    }

    /// Signs out: the vault is cleared and the user signed out at once, whatever the network does.
    /// Where the backend revokes, the server session is then ended in the background (refreshing
    /// first when the access token has expired, revoking a refresh's successor, retrying a failure
    /// a few times), and ``serverSignOutReports()`` tells how that ended;
    /// ``signOutAndEndServerSession()`` waits for it instead.
    public func signOut() async {
        await runner.start()
        _ = await runner.perform(SessionLifecycle.Intent.logout)
    }

    /// How each background sign-out ended, from now on: ``ServerSignOutResult/ended`` when the
    /// server confirmed the session's refresh token is dead; ``ServerSignOutResult/owed(_:)`` when
    /// the server could not be reached (offline, a server error after the retries): the vault
    /// keeps the refresh token, only to revoke it at the next launch, logout or sign-in, and a
    /// later ``ServerSignOutResult/ended`` or ``ServerSignOutResult/notConfirmed(_:)`` tells how
    /// that went; ``ServerSignOutResult/notConfirmed(_:)`` when the server refused the revocation
    /// or every round failed: the refresh token may then live on the server until it expires, and
    /// the app may tell the user (to sign out again later, or end the sessions from another device).
    ///
    /// One report per ``signOut()`` that had a server session to end, on backends that end server
    /// sessions (Everday, Hero365); none elsewhere. Subscribe before signing out: the stream
    /// holds what is reported after it was made, until the client stops.
    ///
    /// ```swift
    /// let reports = await auth.serverSignOutReports()
    /// await auth.signOut()  // Signed out here at once.
    /// for await report in reports {
    ///     if case .notConfirmed(let error) = report { log(error.errorDescription ?? "") }
    /// }
    /// ```
    public func serverSignOutReports() async -> AsyncStream<ServerSignOutResult> {
        let outcomes = await runner.outcomes()  // Subscribed now: nothing reported from here on is missed.
        let (reports, continuation) = AsyncStream.makeStream(of: ServerSignOutResult.self)
        let relay = Task {
            for await outcome in outcomes {
                if let report = ServerSignOutResult(outcome) { continuation.yield(report) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return reports
    }

    /// Signs out at once, like ``signOut()``, then waits for every server session being ended in
    /// the background — for a command-line tool or a test that must not exit before the revoke
    /// went out. Returns what the server confirmed for the session this call signed out, even when
    /// an owed revocation tried again beside it settles later: `nil` where the backend documents
    /// no revocation.
    @discardableResult
    public func signOutAndEndServerSession() async -> ServerSignOutResult? {
        await runner.start()
        await runner.forgetServerSignOutReport()
        _ = await runner.perform(SessionLifecycle.Intent.logout)
        return await runner.sessionSignOutSettled().flatMap(ServerSignOutResult.init)
    }

    /// Sends one of the app's own requests with the session's bearer, refreshing first (once, for
    /// every caller) when the token is due and replaying once after a 401. Any answer with a
    /// status is returned, error statuses included.
    ///
    /// - Throws: ``AuthError`` when there is no answer: nobody signed in, the session ended, the
    ///   network failed, the task was cancelled.
    public func authorized(_ request: HTTPRequest) async throws(AuthError) -> HTTPResponse {
        await runner.start()
        return try await runner.authorized(request)
    }

    /// ``authorized(_:)`` for a JSON answer: a 2xx body decoded as `T`; another status throws the
    /// server's refusal (``AuthError/server(_:)``), an unreadable body `AuthFailure.malformed`.
    public func authorized<T: Decodable>(_ request: HTTPRequest, decoding type: T.Type = T.self) async throws(AuthError) -> T {
        let response = try await authorized(request)
        guard (200..<300).contains(response.status) else {
            switch runner.contract.classifyProtected(response, receivedAt: runner.clock.now) {
            case .failed(let failure): throw .server(failure)
            case .granted, .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired,
                .device, .realtimeOpened, .realtimeClosed:
                throw .server(.server(status: response.status, nil))
            }
        }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw .server(.malformed)
        }
    }

    /// Stops the client: every request, wake-up and stream ends; waiting calls are cancelled.
    public func stop() async { await runner.stop() }

    // MARK: For the backends' operations

    /// Performs a flow's intent and returns what became of it, with the app's state right after.
    func perform<Leaf: Sendable>(_ intent: Leaf) async -> (Completion, AuthState) {
        await runner.start()
        guard let routed = runner.machine.route(intent) else { return (.rejected(.unsupported), await authState) }
        let finished = await runner.submit(routed, call: nil)
        return (finished.completion, runner.machine.authState(finished.state.phase))
    }

    /// A step that signs in: what it gave, or the error.
    func signingIn<Leaf: Sendable>(_ intent: Leaf) async throws(AuthError) -> SignInResult {
        let (completion, state) = await perform(intent)
        switch completion {
        case .signedIn(let user):
            switch state {
            case .passwordSetupRequired(let current): return .passwordSetupRequired(current)
            case .passwordChangeRequired(let current): return .passwordChangeRequired(current)
            case .signedIn(let session), .offline(let session): return .signedIn(session.user)
            case .signedOut, .pendingApproval, .restoring: return .signedIn(user)
            }
        case .pendingApproval(let message): return .pendingApproval(message: message)
        default: throw AuthError(completion, at: runner.clock.now)
        }
    }

    /// A step that signs in and may demand nothing else on this backend: the user.
    func signedInUser<Leaf: Sendable>(_ intent: Leaf) async throws(AuthError) -> UserProfile {
        let result = try await signingIn(intent)
        guard let user = result.user else { throw .unexpected("\(result)") }
        return user
    }

    /// Native sign-in with what `provider`'s SDK gave the app: the user, with `isNewUser` when the
    /// server said whether the sign-in created the account.
    func signedInNatively(
        _ provider: OAuthProvider, identityToken: String, userIdentifier: String?, authorizationCode: String? = nil,
        fullName: PersonNameComponents? = nil, email: String? = nil
    ) async throws(AuthError) -> UserProfile {
        try await signedInUser(
            OAuthSignIn.Intent.signInNatively(
                provider: provider.rawValue, identityToken: IdentityToken(identityToken), userIdentifier: userIdentifier,
                authorizationCode: authorizationCode.map(AuthorizationCode.init), givenName: fullName?.givenName,
                familyName: fullName?.familyName, email: email))
    }

    /// A registration: what it gave, or the error.
    func registering<Leaf: Sendable>(_ intent: Leaf) async throws(AuthError) -> RegistrationResult {
        let (completion, _) = await perform(intent)
        switch completion {
        case .signedIn(let user): return .signedIn(user)
        case .pendingApproval(let message): return .pendingApproval(message: message)
        case .verificationRequired(let message): return .verificationRequired(message: message)
        default: throw AuthError(completion, at: runner.clock.now)
        }
    }

    /// A step that sends a code or a reset link: when another may be requested, or the error.
    func sendingCode<Leaf: Sendable>(_ intent: Leaf) async throws(AuthError) -> CodeSent {
        let (completion, _) = await perform(intent)
        let now = runner.clock.now
        func left(_ until: Instant) -> Duration { .milliseconds(max(0, (until - now).milliseconds)) }
        switch completion {
        case .codeSent(let resendAt, let expiresAt): return CodeSent(resendAvailableIn: left(resendAt), expiresIn: expiresAt.map(left))
        case .passwordResetRequested(let resendAt): return CodeSent(resendAvailableIn: left(resendAt), expiresIn: nil)
        default: throw AuthError(completion, at: now)
        }
    }

    /// A step whose success carries nothing: `expected`, or the error.
    func completing<Leaf: Sendable>(_ intent: Leaf, expecting expected: Completion) async throws(AuthError) {
        let (completion, _) = await perform(intent)
        guard completion == expected else { throw AuthError(completion, at: runner.clock.now) }
    }
}
