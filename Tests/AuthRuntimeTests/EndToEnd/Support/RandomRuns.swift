import AuthCore
@testable import AuthRuntime
import AuthSupport
import AuthVerification
import Foundation
import ReferenceBackend
import Testing

/// A misbehaviour a randomized run asks the server for.
enum FaultKind: Hashable, Sendable, CustomStringConvertible {
    case latency(milliseconds: Int)
    case dropBeforeCommit
    case dropAfterCommit
    case serverError(Int)
    case rateLimited(retryAfter: Int)
    case malformedJSON
    case truncatedBody
    case wrongContentType
    /// 8 bytes every 1.5 s: past the runs' 1 s client timeout.
    case slowTrickle

    var fault: Fault {
        switch self {
        case .latency(let milliseconds): .latency(Double(milliseconds) / 1000)
        case .dropBeforeCommit: .dropBeforeCommit
        case .dropAfterCommit: .dropAfterCommit
        case .serverError(let status): .serverError(status: status)
        case .rateLimited(let retryAfter): .rateLimited(retryAfter: retryAfter)
        case .malformedJSON: .malformedJSON
        case .truncatedBody: .truncatedBody
        case .wrongContentType: .wrongContentType
        case .slowTrickle: .slowTrickle(interval: 1.5)
        }
    }

    /// The server commits the change, then the answer never reaches the client whole: for a
    /// refresh, the rotated pair is lost and the client can only present the consumed token again.
    var losesCommittedAnswer: Bool {
        switch self {
        case .dropAfterCommit, .truncatedBody, .slowTrickle: true
        case .latency, .dropBeforeCommit, .serverError, .rateLimited, .malformedJSON, .wrongContentType: false
        }
    }

    var description: String {
        switch self {
        case .latency(let milliseconds): "latency(\(milliseconds)ms)"
        case .dropBeforeCommit: "dropBeforeCommit"
        case .dropAfterCommit: "dropAfterCommit"
        case .serverError(let status): "serverError(\(status))"
        case .rateLimited(let retryAfter): "rateLimited(retryAfter: \(retryAfter))"
        case .malformedJSON: "malformedJSON"
        case .truncatedBody: "truncatedBody"
        case .wrongContentType: "wrongContentType"
        case .slowTrickle: "slowTrickle"
        }
    }
}

/// Which requests a fault hits.
enum FaultTarget: String, Hashable, Sendable, CaseIterable {
    case refresh, signIn, protected, logout, any
}

/// When a randomized run logs out, in the situations that once left the server session alive.
enum LogoutMoment: String, Hashable, Sendable {
    /// Whatever the session is doing.
    case now
    /// After the refresh fell due while the server was unreachable (the session offline) and the
    /// access token expired meanwhile; the server is back for the logout.
    case afterExpiry
    /// While a (slow) proactive refresh is in flight.
    case duringRefresh
    /// While the network drops the next requests (one or two), whatever they are.
    case offline
}

/// One step of a randomized run.
enum RandomAction: Hashable, Sendable, CustomStringConvertible {
    /// Sign in with the current password.
    case signIn
    /// Sign in with a wrong password.
    case wrongSignIn
    /// Start this many protected calls at once, without waiting for them.
    case calls(Int)
    case logout(LogoutMoment)
    /// Kill the app once it is idle, and launch it again over the same vault.
    case relaunch
    /// Move both clocks forward, running the runner's wake-ups on the way.
    case advance(seconds: Int64)
    /// Make the server misbehave on the next `times` requests to `target`.
    case fault(FaultKind, FaultTarget, times: Int)
    /// Everday: forgot + reset by the emailed token (the server revokes every session).
    case resetPassword
    /// Hero365: sign in with a texted code.
    case codeSignIn

    var description: String {
        switch self {
        case .signIn: "signIn"
        case .wrongSignIn: "wrongSignIn"
        case .calls(let count): "calls(\(count))"
        case .logout(let moment): moment == .now ? "logout" : "logout(\(moment.rawValue))"
        case .relaunch: "relaunch"
        case .advance(let seconds): "advance(\(seconds)s)"
        case .fault(let kind, let target, let times): "fault(\(kind) on \(target.rawValue) ×\(times))"
        case .resetPassword: "resetPassword"
        case .codeSignIn: "codeSignIn"
        }
    }
}

/// What one run found.
struct RunReport: Sendable {
    /// Broken properties, each a sentence.
    var failures: [String] = []
    /// Reuse detections the server made, tolerated because an answer was lost after commit.
    var toleratedReuse = 0
    /// Runs that ended signed in holding a refresh token consumed by a rotation whose answer was
    /// lost (the reuse that follows is unavoidable, and tolerated).
    var toleratedStale = 0
    /// Faults injected that lose a committed answer where a refresh could meet them.
    var lostAnswerFaults = 0
    /// How the run ended: signed in with a working token, or signed out.
    var endedSignedIn = false
    /// Refreshes the server saw.
    var refreshes = 0
    /// Logouts from a session holding a refresh token, and those whose server session was found
    /// ended (or, where the backend offers no revocation, left live as documented) once settled.
    var logouts = 0
    var serverSessionsAsExpected = 0
}

/// A vault that remembers every token it held and, at each clear, whether the server still
/// accepted the refresh token being deleted.
final class RecordingVault: TokenVault {
    struct Clear: Sendable {
        var refreshToken: String?
        var statusAtClear: TokenStatus?
    }

    private let base = MemoryVault()
    private let status: @Sendable (String) -> TokenStatus
    private let storage = Locked((accessTokens: Set<String>(), refreshTokens: Set<String>(), clears: [Clear]()))

    init(status: @escaping @Sendable (String) -> TokenStatus) { self.status = status }

    var credentials: Credentials? { base.credentials }
    var clears: [Clear] { storage.withLock { $0.clears } }
    func everHeld(access token: String) -> Bool { storage.withLock { $0.accessTokens.contains(token) } }
    func everHeld(refresh token: String) -> Bool { storage.withLock { $0.refreshTokens.contains(token) } }

    func load() throws(VaultError) -> Credentials? { try base.load() }

    func save(_ credentials: Credentials) throws(VaultError) {
        try base.save(credentials)
        storage.withLock {
            $0.accessTokens.insert(credentials.accessToken.reveal())
            if let refresh = credentials.refreshToken { $0.refreshTokens.insert(refresh.reveal()) }
        }
    }

    func loadOwedRevocations() throws(VaultError) -> [OwedRevocation] { try base.loadOwedRevocations() }

    func saveOwedRevocations(_ owed: [OwedRevocation]) throws(VaultError) { try base.saveOwedRevocations(owed) }

    func clear() throws(VaultError) {
        let refresh = base.credentials?.refreshToken?.reveal()
        let clear = Clear(refreshToken: refresh, statusAtClear: refresh.map(status))
        try base.clear()
        storage.withLock { $0.clears.append(clear) }
    }
}

/// A backend's moves for randomized runs.
struct RandomBackend<App: EndToEndApp>: Sendable {
    var app: App
    var lifetime: Int64
    var signIn: @Sendable (_ password: String) -> PasswordSignIn.Intent
    var paths: [FaultTarget: String]
    var protectedRequest: @Sendable (EndToEndStack) throws -> HTTPRequest
    /// Prepares the account; returns its first password.
    var prepare: @Sendable (EndToEndStack, Client<App>) async throws -> String
    /// Everday's reset, Hero365's code sign-in (Subspace: a fresh sign-in); returns the password now in force.
    var special: @Sendable (EndToEndStack, Client<App>, RandomAction, _ password: String) async throws -> String
    /// On a backend that revokes at logout, how many of the user's refresh tokens the server
    /// still accepts (after a logout that ended the server session: none); `nil` where the
    /// backend's document offers no revocation (the token stays live, as documented).
    var liveRefreshTokens: (@Sendable (EndToEndStack) -> Int)? = nil
}

/// Generates, runs, checks and shrinks randomized end-to-end runs.
enum RandomRuns {
    /// Runs per backend: `AUTHCORE_E2E_RUNS`, or a count that keeps the suite short.
    static var runs: Int { ProcessInfo.processInfo.environment["AUTHCORE_E2E_RUNS"].flatMap(Int.init) ?? 25 }
    /// The fixed base seed (`AUTHCORE_E2E_SEED` overrides it, to replay a printed failure).
    static var baseSeed: UInt64 {
        ProcessInfo.processInfo.environment["AUTHCORE_E2E_SEED"].flatMap {
            UInt64($0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0, radix: $0.hasPrefix("0x") ? 16 : 10)
        }
            ?? 0xE2E0_0006
    }

    /// The actions of run `seed` for a backend whose tokens live `lifetime` seconds.
    static func actions(seed: UInt64, lifetime: Int64, backend: Backend) -> [RandomAction] {
        var random = SplitMix64(seed: seed)
        let length = Int.random(in: 12...24, using: &random)
        var actions: [RandomAction] = [.signIn]
        while actions.count < length {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<12: actions.append(.signIn)
            case 12..<15: actions.append(.wrongSignIn)
            case 15..<38: actions.append(.calls(Int.random(in: 1...4, using: &random)))
            case 38..<42: actions.append(.logout(.now))
            case 42..<44: actions.append(.logout(.afterExpiry))
            case 44..<46: actions.append(.logout(.duringRefresh))
            case 46..<47: actions.append(.logout(.offline))
            case 47..<52: actions.append(.relaunch)
            case 52..<70:
                let seconds: Int64 =
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<3: Int64.random(in: 1...59, using: &random)
                    case 3..<6: lifetime - Int64.random(in: 30...70, using: &random)  // Around the refresh margin.
                    case 6..<8: lifetime + Int64.random(in: 1...600, using: &random)  // Past expiry.
                    case 8: 24 * 3600
                    default: 15 * 24 * 3600  // Past Everday's refresh-token lifetime too.
                    }
                actions.append(.advance(seconds: seconds))
            case 70..<95:
                let kinds: [FaultKind] = [
                    .latency(milliseconds: Int.random(in: 50...300, using: &random)), .dropBeforeCommit, .dropAfterCommit,
                    .serverError(500), .serverError(503), .rateLimited(retryAfter: Int.random(in: 1...5, using: &random)),
                    .malformedJSON, .truncatedBody, .wrongContentType, .latency(milliseconds: 100), .dropAfterCommit,
                ]
                var kind = kinds[Int.random(in: 0..<kinds.count, using: &random)]
                if Int.random(in: 0..<12, using: &random) == 0 { kind = .slowTrickle }  // Costs a second: rare.
                let targets: [FaultTarget] =
                    [.refresh, .refresh, .refresh, .protected, .protected, .signIn, .any]
                    + (backend == .everday ? [.logout] : [])
                let target = targets[Int.random(in: 0..<targets.count, using: &random)]
                actions.append(.fault(kind, target, times: Int.random(in: 1...2, using: &random)))
            default:
                actions.append(backend == .everday ? .resetPassword : .codeSignIn)
            }
        }
        return actions
    }

    /// Runs `actions` against a fresh server and checks the run's properties.
    static func run<App: EndToEndApp>(
        _ backend: Backend, _ moves: RandomBackend<App>, _ actions: [RandomAction], form: ServerForm = .documented
    ) async -> RunReport {
        do {
            return try await EndToEndStack.with(backend, configure: form.configure(then: EndToEndStack.shortReadTimeout)) { stack in
                try await execute(stack, moves, actions)
            }
        } catch {
            return RunReport(failures: ["the run could not be set up: \(error)"])
        }
    }

    private static func execute<App: EndToEndApp>(
        _ stack: EndToEndStack, _ moves: RandomBackend<App>, _ actions: [RandomAction]
    ) async throws -> RunReport {
        var report = RunReport()
        let violations = Locked<[String]>([])
        let server = stack.server
        let vault = RecordingVault { server.refreshTokenStatus($0) }
        let refreshPath = moves.paths[.refresh] ?? "/refresh"

        // Step invariants, checked as each request leaves.
        stack.wire.onSend { request in
            if request.url.path.hasSuffix(refreshPath), let token = Self.presentedRefreshToken(request) {
                if !vault.everHeld(refresh: token) {
                    violations.withLock { $0.append("a refresh token was presented that the vault never held") }
                }
                if Self.successorReceived(for: token, in: stack.wire) {
                    violations.withLock { $0.append("a refresh token was presented again after its successor had arrived") }
                }
            }
            if let bearer = request.headers["Authorization"], bearer.hasPrefix("Bearer "), case let token = String(bearer.dropFirst(7)),
                !vault.everHeld(access: token)
            {
                // One exception, by design: after a logout, the pair a background refresh renews is
                // never stored, and its access token only revokes that pair.
                let revokesWithRenewedPair =
                    moves.paths[.logout].map { request.url.path.contains($0) } == true && Self.accessTokenRefreshed(token, in: stack.wire)
                if !revokesWithRenewedPair {
                    violations.withLock { $0.append("an access token was used before it was stored (\(request.url.path))") }
                }
            }
        }

        let makeClient = { await stack.client(moves.app, vault: vault, timeout: 1) }
        var client = await makeClient()
        var password = try await moves.prepare(stack, client)
        var clients: [Client<App>] = []
        var texts: [String] = []
        var calls: [Task<Result<HTTPResponse, AuthError>, Never>] = []
        let request = try moves.protectedRequest(stack)

        for action in actions {
            switch action {
            case .signIn:
                await client.send(moves.signIn(password))
            case .wrongSignIn:
                await client.send(moves.signIn("Wrong-\(password)"))
            case .calls(let count):
                for _ in 0..<count {
                    let current = client
                    calls.append(Task { await current.call(request) })
                }
            case .logout(let moment):
                try await logout(at: moment, stack, moves, client, &report, violations)
            case .relaunch:
                await client.settle()
                texts += await client.stop()
                clients.append(client)
                client = await makeClient()
                await client.settle()
            case .advance(let seconds):
                await client.advance(stack.clock, by: .seconds(seconds))
            case .fault(let kind, let target, let times):
                server.inject(kind.fault, path: target == .any ? nil : moves.paths[target], times: times)
                if kind.losesCommittedAnswer && (target == .refresh || target == .any) { report.lostAnswerFaults += 1 }
            case .resetPassword, .codeSignIn:
                password = try await moves.special(stack, client, action, password)
            }
            // At every quiet step the vault holds exactly what the session holds (nothing when signed out).
            if case .calls = action { continue }
            await client.settle()
            let held = await client.credentials
            if vault.credentials != held {
                violations.withLock {
                    $0.append(
                        "after \(action) the vault held \(vault.credentials.map { "\($0)" } ?? "nothing") while the session held \(held.map { "\($0)" } ?? "nothing")"
                    )
                }
            }
        }

        // Settle: no more faults; let every retry the client scheduled happen; every call ends.
        server.clearFaults()
        for _ in 0..<40 {
            await client.settle()
            switch await client.session {
            case .active(let session)?:
                switch session.refresh {
                case .backingOff(let retryAt, _):
                    await client.advance(stack.clock, by: Interval(milliseconds: max(0, (retryAt - stack.clock.now).milliseconds)))
                    continue
                case .refreshing:
                    continue
                case .idle, .offline:
                    break
                }
            case .restoring?:
                continue
            case .passwordSetupRequired?, .passwordChangeRequired?, .signedOut?, nil:
                break
            }
            break
        }
        for call in calls { _ = await call.value }

        // (b) Not stuck: signed in with a working token, or signed out with an empty vault.
        if await client.session != nil {
            var probe = await client.call(request)
            if case .failure(.server(let failure)) = probe, failure == .network || failure == .timeout {
                // One transient failure is no proof of a stuck client (a keep-alive connection the
                // server closed just then): try once more, as an app would.
                probe = await client.call(request)
            }
            switch probe {
            case .success(let response) where response.status == 200:
                report.endedSignedIn = true
            case .failure(.sessionEnded):
                break  // The server had ended the session (reuse, reset, expiry): checked below.
            case .success(let response):
                report.failures.append("stuck: signed in, but a call with faults cleared was answered \(response.status)")
            case .failure(let error):
                report.failures.append("stuck: signed in, but a call with faults cleared failed: \(error)")
            }
        }
        let final = await client.credentials
        if report.endedSignedIn {
            if vault.credentials != final { report.failures.append("signed in, but the vault does not hold the session's credentials") }
            if let refresh = final?.refreshToken?.reveal(), case let status = server.refreshTokenStatus(refresh), status != .live {
                if report.lostAnswerFaults > 0 && status == .consumed {
                    // The rotation's answer was lost: the client still holds the consumed token and
                    // cannot know; its next refresh is the tolerated reuse.
                    report.toleratedStale += 1
                } else {
                    report.failures.append("signed in with a refresh token the server no longer accepts (\(status))")
                }
            }
        } else {
            if await client.session != nil { report.failures.append("stuck: neither working nor signed out: \(await client.phase)") }
            if vault.credentials != nil { report.failures.append("signed out, but the vault still holds credentials") }
        }

        texts += await client.stop()
        clients.append(client)

        // (c) No credential lost while the server still accepted it: every sign-out the user did
        // not ask for deleted a refresh token the server had already stopped accepting.
        var signOuts: [SignOutReason] = []
        for each in clients {
            for outcome in each.outcomes.elements { if case .signedOut(let reason) = outcome { signOuts.append(reason) } }
        }
        let clears = vault.clears
        if clears.count != signOuts.count {
            report.failures.append("\(clears.count) vault clears but \(signOuts.count) sign-outs")
        }
        for (clear, reason) in zip(clears, signOuts) where reason != .userRequested && clear.statusAtClear == .live {
            report.failures.append("signed out (\(reason)) and deleted a refresh token the server still accepted")
        }

        // (a) No reuse, no family revoked because of the client, unless an answer was lost after commit.
        let ledger = server.ledger
        report.refreshes = ledger.refreshTokensPresented.count
        if ledger.familiesRevoked != ledger.reuseDetections {
            report.failures.append("families revoked \(ledger.familiesRevoked.count) ≠ reuse detections \(ledger.reuseDetections.count)")
        }
        if !ledger.reuseDetections.isEmpty {
            if report.lostAnswerFaults == 0 {
                report.failures.append("the server detected refresh-token reuse \(ledger.reuseDetections.count)× without any lost answer")
            } else if ledger.reuseDetections.count > report.lostAnswerFaults {
                report.failures.append("\(ledger.reuseDetections.count) reuse detections for \(report.lostAnswerFaults) lost answers")
            } else {
                report.toleratedReuse = ledger.reuseDetections.count
            }
        }

        // (d) No secret in the log, descriptions, outcomes, issues or errors.
        for call in calls {
            if case .failure(let error) = await call.value { texts += [error.description, (error.errorDescription ?? "")] }
        }
        let leaks = Leaks.find(stack.wire.secrets().union([password]), in: texts + stack.log.lines)
        if !leaks.isEmpty { report.failures.append("\(leaks.count) secrets leaked, e.g. \(leaks[0])") }

        report.failures += Array(Set(violations.withLock { $0 })).sorted()
        return report
    }

    /// Logs out at `moment` and, once the background work has settled, checks what the server
    /// holds: on a backend that revokes, no refresh token of the user is live — unless the app was
    /// told the server session could not be confirmed, or a rotation's answer was lost earlier (its
    /// successor never reached the client, which cannot revoke what it never received); elsewhere
    /// the refresh token held is still live, as the document says.
    private static func logout<App: EndToEndApp>(
        at moment: LogoutMoment, _ stack: EndToEndStack, _ moves: RandomBackend<App>, _ client: Client<App>, _ report: inout RunReport,
        _ violations: Locked<[String]>
    ) async throws {
        switch moment {
        case .now:
            break
        case .afterExpiry:
            stack.server.inject(.dropBeforeCommit, path: moves.paths[.refresh], times: 8)
            await client.advance(stack.clock, by: .seconds(moves.lifetime + 30))
            stack.server.clearFaults()
        case .duringRefresh:
            stack.server.inject(.latency(0.2), path: moves.paths[.refresh], times: 1)
            await stack.clock.advance(by: .seconds(max(1, moves.lifetime - 59)))  // Inside the margin: the refresh leaves.
        case .offline:
            stack.server.inject(.dropBeforeCommit, path: nil, times: 2)
        }
        let held = await client.credentials?.refreshToken?.reveal()
        let wasLive = held.map { stack.server.refreshTokenStatus($0) == .live } ?? false
        let told = client.outcomes.elements.count
        await client.logout()
        await client.settle()
        if moment == .offline { stack.server.clearFaults() }
        guard held != nil else { return }
        report.logouts += 1
        let notConfirmed = client.outcomes.elements.dropFirst(told).contains {
            switch $0 {
            case .serverSessionNotConfirmed, .serverSessionEndOwed: return true  // Told; an owed one is tried again later.
            default: return false
            }
        }
        if let live = moves.liveRefreshTokens?(stack) {
            if live == 0 || notConfirmed || report.lostAnswerFaults > 0 {
                report.serverSessionsAsExpected += live == 0 ? 1 : 0
            } else {
                violations.withLock {
                    $0.append("logout (\(moment.rawValue)) left \(live) refresh token(s) of the user live, and the app was not told")
                }
            }
        } else if let held, wasLive {
            if stack.server.refreshTokenStatus(held) == .live {
                report.serverSessionsAsExpected += 1
            } else {
                violations.withLock { $0.append("logout (\(moment.rawValue)) on a backend without revocation ended the server session") }
            }
        }
    }

    /// The refresh token a refresh request presents (any casing).
    static func presentedRefreshToken(_ request: HTTPRequest) -> String? {
        guard let body = request.body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return (object["RefreshToken"] ?? object["refresh_token"] ?? object["refreshToken"]) as? String
    }

    /// Whether a refresh was answered 200 with `token` as its access token.
    static func accessTokenRefreshed(_ token: String, in wire: WireTap) -> Bool {
        wire.exchanges.contains { exchange in
            guard presentedRefreshToken(exchange.request) != nil, case .success(let response) = exchange.answer, response.status == 200,
                let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            else { return false }
            return (object["AccessToken"] ?? object["access_token"] ?? object["accessToken"]) as? String == token
        }
    }

    /// Whether a refresh presenting `token` was answered 200 with a readable successor.
    static func successorReceived(for token: String, in wire: WireTap) -> Bool {
        wire.exchanges.contains { exchange in
            guard presentedRefreshToken(exchange.request) == token, case .success(let response) = exchange.answer,
                response.status == 200, let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            else { return false }
            return (object["RefreshToken"] ?? object["refresh_token"]) is String
        }
    }

    /// Removes chunks of `actions` while the run still fails (simple delta shrinking; a run is
    /// not perfectly repeatable, so the result is the smallest list seen failing).
    static func shrink<App: EndToEndApp>(
        _ backend: Backend, _ moves: RandomBackend<App>, _ actions: [RandomAction], form: ServerForm = .documented, budget: Int = 40
    ) async -> [RandomAction] {
        var current = actions
        var budget = budget
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && budget > 0 {
            var index = 1  // The first sign-in stays.
            var removedAny = false
            while index < current.count && budget > 0 {
                let candidate = Array(current[..<index]) + Array(current[min(current.count, index + chunk)...])
                budget -= 1
                if !(await run(backend, moves, candidate, form: form).failures.isEmpty) {
                    current = candidate
                    removedAny = true
                } else {
                    index += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return current
    }
}
