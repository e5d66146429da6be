import AuthCore

/// A lifecycle phase the explorer can survey, name and project without reflection.
///
/// AuthCore's phases conform in this module. Conform your own phase to explore it at full speed:
/// `caseName` and `survey` are each one exhaustive `switch`. A phase that does not conform is
/// still explored, through `Mirror`.
public protocol ExplorablePhase: LifecyclePhase, Surveyable {
    /// The current case's name, one of `declaredCases`. A product of phases answers `""`.
    var caseName: StaticString { get }
    /// The case path: the case name followed by inner phases' paths (`signedIn.active.idle`), or for a
    /// product of phases `(active.idle + connected)`.
    var casePath: String { get }
    /// Appends this phase's case and every inner phase's case, with each phase type's declared cases.
    func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]])
    /// The phases directly inside this one (the active flow, the session, both halves of a product).
    var innerPhases: [any ExplorablePhase] { get }
    /// This phase if it is a `T`, else the first `T` among the inner phases (outermost first, in
    /// `innerPhases` order). A composition answers with one `switch` per level, which the
    /// compiler resolves for a concrete composition; menus and invariants ask at every step.
    func firstPhase<T>(_ type: T.Type) -> T?
}

extension ExplorablePhase {
    /// The case name: a leaf phase has no inner phases.
    @inlinable public var casePath: String { "\(caseName)" }

    /// None: a leaf phase.
    @inlinable public var innerPhases: [any ExplorablePhase] { [] }

    /// This phase if it is a `T`, else the first `T` in `innerPhases` (none for a leaf phase).
    /// A composition of your own that lists its `innerPhases` is searched without more code;
    /// AuthCore's compositions answer with a `switch` instead.
    @inlinable public func firstPhase<T>(_ type: T.Type) -> T? {
        if let match = self as? T { return match }
        for inner in innerPhases {
            if let found = inner.firstPhase(type) { return found }
        }
        return nil
    }

    /// This phase's case.
    @inlinable public func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]]) {
        let type = typeName(Self.self)
        cases.append(PhaseCase(type: type, name: "\(caseName)"))
        if declared[type] == nil { declared[type] = Self.declaredCases }
    }
}

extension LifecycleState: Surveyable where Phase: Surveyable {
    /// The phase and the code cooldowns; the request counter is symmetric and left out.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(phase)
        s.cooldowns(of: context)
    }
}

extension Survey {
    /// What a lifecycle's context keeps besides its counter: the intents waiting for answers, the
    /// code cooldowns still running (they outlive the flow that set them; one that has ended
    /// refuses nothing, kept or forgotten), the sessions still being ended on the server and the
    /// revocations owed. The request counter is symmetric and left out.
    @inlinable mutating func cooldowns(of context: FlowContext) {
        visit(unordered: context.waiters)  // Looked up by request or intent, never by position.
        func running(_ cooldown: CodeCooldown) -> Bool { exact || cooldown.resendAt.milliseconds > now }
        // One cooldown a target, looked up by its target, never by position (see `FlowContext`).
        visit(unordered: context.codeCooldowns.filter(running))
        visit(unordered: context.serverSignOuts)  // Looked up by the request each awaits.
        visit(unordered: context.owedRevocations)  // Looked up by the token.
        // The server's waits are surveyed as the cooldowns are: one that has ended holds nothing back.
        func holding(_ wait: ServerWait) -> Bool { exact || wait.until.milliseconds > now }
        let waits = context.serverWaits.filter(holding).sorted { $0.endpoint.rawValue < $1.endpoint.rawValue }
        number(waits.count)
        for wait in waits {
            plain(wait.endpoint.rawValue)
            visit(wait.until)
        }
    }
}

extension CodeCooldown: Surveyable {
    /// The target, then when another code may be requested.
    @inlinable public func survey(_ s: inout Survey) {
        s.plain(target)
        s.visit(resendAt)
    }
}

// MARK: Compositions

extension Either: Surveyable where First: Surveyable, Second: Surveyable {
    /// The active side and its phase.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .first(let inner):
            s.tag("first")
            s.visit(inner)
        case .second(let inner):
            s.tag("second")
            s.visit(inner)
        }
    }
}

extension Either: ExplorablePhase where First: ExplorablePhase, Second: ExplorablePhase {
    /// `first` or `second`.
    @inlinable public var caseName: StaticString {
        switch self {
        case .first: "first"
        case .second: "second"
        }
    }

    /// `first.<inner path>`.
    @inlinable public var casePath: String {
        switch self {
        case .first(let inner): "first." + inner.casePath
        case .second(let inner): "second." + inner.casePath
        }
    }

    /// The active side's phase.
    @inlinable public var innerPhases: [any ExplorablePhase] {
        switch self {
        case .first(let inner): [inner]
        case .second(let inner): [inner]
        }
    }

    /// This nest, or the first `T` on the active side.
    @inlinable public func firstPhase<T>(_ type: T.Type) -> T? {
        if let match = self as? T { return match }
        switch self {
        case .first(let inner): return inner.firstPhase(type)
        case .second(let inner): return inner.firstPhase(type)
        }
    }

    /// This case and the active side's.
    @inlinable public func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]]) {
        let type = typeName(Self.self)
        cases.append(PhaseCase(type: type, name: "\(caseName)"))
        if declared[type] == nil { declared[type] = Self.declaredCases }
        switch self {
        case .first(let inner): inner.reachedCases(into: &cases, declared: &declared)
        case .second(let inner): inner.reachedCases(into: &cases, declared: &declared)
        }
    }
}

extension AppPhase: Surveyable where EntryPhase: Surveyable, SessionPhase: Surveyable {
    /// Signed out or in, and the inner phase.
    @inlinable public func survey(_ s: inout Survey) {
        switch self {
        case .signedOut(let inner):
            s.tag("signedOut")
            s.visit(inner)
        case .signedIn(let inner):
            s.tag("signedIn")
            s.visit(inner)
        }
    }
}

extension AppPhase: ExplorablePhase where EntryPhase: ExplorablePhase, SessionPhase: ExplorablePhase {
    /// `signedOut` or `signedIn`.
    @inlinable public var caseName: StaticString {
        switch self {
        case .signedOut: "signedOut"
        case .signedIn: "signedIn"
        }
    }

    /// `signedIn.<inner path>`.
    @inlinable public var casePath: String {
        switch self {
        case .signedOut(let inner): "signedOut." + inner.casePath
        case .signedIn(let inner): "signedIn." + inner.casePath
        }
    }

    /// The entry flows' or the session's phase.
    @inlinable public var innerPhases: [any ExplorablePhase] {
        switch self {
        case .signedOut(let inner): [inner]
        case .signedIn(let inner): [inner]
        }
    }

    /// This phase, or the first `T` in the entry flows' or the session's phase.
    @inlinable public func firstPhase<T>(_ type: T.Type) -> T? {
        if let match = self as? T { return match }
        switch self {
        case .signedOut(let inner): return inner.firstPhase(type)
        case .signedIn(let inner): return inner.firstPhase(type)
        }
    }

    /// This case and the inner phase's.
    @inlinable public func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]]) {
        let type = typeName(Self.self)
        cases.append(PhaseCase(type: type, name: "\(caseName)"))
        if declared[type] == nil { declared[type] = Self.declaredCases }
        switch self {
        case .signedOut(let inner): inner.reachedCases(into: &cases, declared: &declared)
        case .signedIn(let inner): inner.reachedCases(into: &cases, declared: &declared)
        }
    }
}

extension SessionWithRealtime.Phase: ExplorablePhase {
    /// A product has no case of its own.
    @inlinable public var caseName: StaticString { "" }
    /// `(<session path> + <connection path>)`.
    @inlinable public var casePath: String { "(" + session.casePath + " + " + connection.casePath + ")" }
    /// Both halves.
    @inlinable public var innerPhases: [any ExplorablePhase] { [session, connection] }
    /// This product, or the first `T` in the session's half, then the connection's.
    @inlinable public func firstPhase<T>(_ type: T.Type) -> T? { self as? T ?? session.firstPhase(type) ?? connection.firstPhase(type) }
    /// Both halves' cases.
    @inlinable public func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]]) {
        session.reachedCases(into: &cases, declared: &declared)
        connection.reachedCases(into: &cases, declared: &declared)
    }
    /// Both halves.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(session)
        s.visit(connection)
    }
}

// MARK: Lifecycles

extension CodeRegistration.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .enteringEmail: "enteringEmail"
        case .sendingCode: "sendingCode"
        case .awaitingCode: "awaitingCode"
        case .resendingCode: "resendingCode"
        case .registering: "registering"
        case .registered: "registered"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .enteringEmail: break
        case .sendingCode(let email, let id), .resendingCode(let email, let id):
            s.plain(email)
            s.visit(id)
        case .awaitingCode(let email, let resendAt):
            s.plain(email)
            s.visit(resendAt)
        case .registering(let email, let id, let resendAt):
            s.plain(email)
            s.visit(id)
            s.visit(resendAt)
        case .registered(let grant):
            s.visit(grant)
        }
    }
}

extension OneTimeCodeSignIn.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .enteringDestination: "enteringDestination"
        case .requestingCode: "requestingCode"
        case .awaitingCode: "awaitingCode"
        case .resendingCode: "resendingCode"
        case .verifying: "verifying"
        case .codeExpired: "codeExpired"
        case .attemptsExhausted: "attemptsExhausted"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .enteringDestination: break
        case .requestingCode(let destination, let id):
            s.plain(destination)
            s.visit(id)
        case .awaitingCode(let challenge), .codeExpired(let challenge), .attemptsExhausted(let challenge):
            s.visit(challenge)
        case .resendingCode(let challenge, let id), .verifying(let challenge, let id):
            s.visit(challenge)
            s.visit(id)
        case .signedIn(let grant):
            s.visit(grant)
        }
    }
}

extension PasswordSignIn.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .enteringCredentials: "enteringCredentials"
        case .signingIn: "signingIn"
        case .pendingApproval: "pendingApproval"
        case .rateLimited: "rateLimited"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .enteringCredentials: break
        case .signingIn(let identifier, let id):
            s.plain(identifier)
            s.visit(id)
        case .pendingApproval(let identifier):
            s.plain(identifier)
        case .rateLimited(let until):
            s.visit(until)
        case .signedIn(let grant):
            s.visit(grant)
        }
    }
}

extension Registration.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .editing: "editing"
        case .submitting: "submitting"
        case .awaitingVerification: "awaitingVerification"
        case .pendingApproval: "pendingApproval"
        case .registered: "registered"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .editing, .awaitingVerification, .pendingApproval: break
        case .submitting(let id): s.visit(id)
        case .registered(let grant): s.visit(grant)
        }
    }
}

extension PasswordReset.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .enteringIdentifier: "enteringIdentifier"
        case .requesting: "requesting"
        case .requestingAgain: "requestingAgain"
        case .awaitingProof: "awaitingProof"
        case .resetting: "resetting"
        case .linkSent: "linkSent"
        case .completed: "completed"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .enteringIdentifier, .linkSent, .completed: break
        case .requesting(let identifier, let id), .requestingAgain(let identifier, let id):
            s.plain(identifier)
            s.visit(id)
        case .awaitingProof(let identifier, let resendAt):
            s.plain(identifier)
            s.visit(resendAt)
        case .resetting(let identifier, let id, let resendAt):
            s.plain(identifier)
            s.visit(id)
            s.visit(resendAt)
        case .signedIn(let grant):
            s.visit(grant)
        }
    }
}

extension OAuthSignIn.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .choosingProvider: "choosingProvider"
        case .fetchingURL: "fetchingURL"
        case .awaitingCallback: "awaitingCallback"
        case .signingInNatively: "signingInNatively"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .choosingProvider: break
        case .fetchingURL(let provider, let attempt, let id):
            s.plain(provider)
            s.plain(attempt)
            s.visit(id)
        case .awaitingCallback(let provider, let attempt):
            s.plain(provider)
            s.plain(attempt)
        case .signingInNatively(let provider, let id):
            s.plain(provider)
            s.visit(id)
        case .signedIn(let grant):
            s.visit(grant)
        }
    }
}

extension OpenIDSignIn.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .idle: "idle"
        case .awaitingCallback: "awaitingCallback"
        case .exchangingCode: "exchangingCode"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload: the attempt's state and nonce as plain data, its verifier as a
    /// secret.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .idle: break
        case .awaitingCallback(let attempt):
            s.plain(attempt.state)
            s.plain(attempt.nonce)
            s.visit(attempt.verifier)
        case .exchangingCode(let nonce, let id):
            s.plain(nonce)
            s.visit(id)
        case .signedIn(let grant):
            s.visit(grant)
        }
    }
}

extension DeviceSignIn.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .idle: "idle"
        case .requestingCode: "requestingCode"
        case .waitingToPoll: "waitingToPoll"
        case .polling: "polling"
        case .signedIn: "signedIn"
        }
    }

    /// The case and its payload: the poll's device code as a secret, its prompt as plain data,
    /// its instants relative to now; a signed-in grant without its checked ID token.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .idle: break
        case .requestingCode(let id):
            s.visit(id)
        case .waitingToPoll(let poll, let at, let next):
            s.visit(poll)
            s.visit(at)
            s.visit(next)
        case .polling(let poll, let id):
            s.visit(poll)
            s.visit(id)
        case .signedIn(var grant):
            // The ID token was checked when the grant was taken and is read no more (the session
            // does not keep it); its instants, absolute and far ahead, would otherwise tell apart
            // sign-ins that differ only in when they happened.
            grant.idToken = nil
            s.visit(grant)
        }
    }
}

extension DevicePoll: Surveyable {
    /// The device code, the prompt, the expiry and the interval.
    @inlinable public func survey(_ s: inout Survey) {
        s.visit(deviceCode)
        s.plain(prompt.userCode)
        s.plain(prompt.verificationURI)
        s.plain(prompt.verificationURIComplete)
        s.visit(expiresAt)
        s.number(Int(interval.milliseconds))
    }
}

extension SessionLifecycle.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .signedOut: "signedOut"
        case .restoring: "restoring"
        case .active: "active"
        case .passwordSetupRequired: "passwordSetupRequired"
        case .passwordChangeRequired: "passwordChangeRequired"
        }
    }

    /// The case name, and for an active session where its refresh is (`active.refreshing`).
    @inlinable public var casePath: String {
        switch self {
        case .active(let active): "active." + active.refresh.casePath
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired: "\(caseName)"
        }
    }

    /// An active session's refresh.
    @inlinable public var innerPhases: [any ExplorablePhase] {
        switch self {
        case .active(let active): [active.refresh]
        case .signedOut, .restoring, .passwordSetupRequired, .passwordChangeRequired: []
        }
    }

    /// This case and, when active, its refresh's.
    @inlinable public func reachedCases(into cases: inout [PhaseCase], declared: inout [String: [String]]) {
        let type = typeName(Self.self)
        cases.append(PhaseCase(type: type, name: "\(caseName)"))
        if declared[type] == nil { declared[type] = Self.declaredCases }
        if case .active(let active) = self { active.refresh.reachedCases(into: &cases, declared: &declared) }
    }

    /// The case and its payload; remembered as the world's session.
    @inlinable public func survey(_ s: inout Survey) {
        s.noteSession(self)
        s.tag(caseName)
        switch self {
        case .signedOut: break
        case .restoring(let restoring):
            s.visit(restoring.credentials)
            s.visit(restoring.waiting)
            s.visit(restoring.request)
            s.plain(restoring.endpoint.rawValue)
        case .active(let active):
            s.visit(active.credentials)
            s.visit(unordered: active.calls)  // Each call is handled alike, wherever it stands.
            s.visit(active.passwordChange)
            s.visit(active.accountDeletion)
            s.visit(active.refresh)
        case .passwordSetupRequired(let step), .passwordChangeRequired(let step):
            s.visit(step.credentials)
            s.visit(step.pending)
        }
    }
}

extension SessionLifecycle.Refresh: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .idle: "idle"
        case .refreshing: "refreshing"
        case .backingOff: "backingOff"
        case .offline: "offline"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .idle, .offline: break
        case .refreshing(let id, let attempt):
            s.visit(id)
            s.number(attempt)
        case .backingOff(let retryAt, let attempt):
            s.visit(retryAt)
            s.number(attempt)
        }
    }
}

extension RealtimeConnection.Phase: ExplorablePhase {
    /// The case's name.
    @inlinable public var caseName: StaticString {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .settling: "settling"
        case .connected: "connected"
        case .checkingToken: "checkingToken"
        case .waitingToReconnect: "waitingToReconnect"
        case .rejected: "rejected"
        case .gaveUp: "gaveUp"
        }
    }

    /// The case and its payload.
    @inlinable public func survey(_ s: inout Survey) {
        s.tag(caseName)
        switch self {
        case .idle, .rejected: break
        case .connecting(let token, let id, let attempt, let flaps):
            s.visit(token)
            s.visit(id)
            s.number(attempt)
            s.number(flaps)
        case .settling(let token, let id, let stableAt, let attempt, let flaps):
            s.visit(token)
            s.visit(id)
            s.visit(stableAt)
            s.number(attempt)
            s.number(flaps)
        case .connected(let token, let id):
            s.visit(token)
            s.visit(id)
        case .checkingToken(let token, let id, let attempt):
            s.visit(token)
            s.visit(id)
            s.number(attempt)
        case .waitingToReconnect(let token, let retryAt, let attempt, let flaps):
            s.visit(token)
            s.visit(retryAt)
            s.number(attempt)
            s.number(flaps)
        case .gaveUp(let token):
            s.visit(token)
        }
    }
}
