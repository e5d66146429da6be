import AuthCore
import AuthRuntime
import AuthSupport
import Foundation
import ReferenceBackend

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `authflow demo`: starts the reference server in-process and walks through each backend's main
/// lifecycle over HTTP with the real runner, contracts and `URLSessionTransport`, printing every
/// request (method, path, status) and every state transition and outcome as it happens. Only
/// descriptions are printed, and they are redacted: no password, code or token ever shows.
///
/// Time is simulated: one `ManualClock` drives both the runners and the server, so "half an hour
/// later" takes no time at all.
public enum Demo {
    /// Runs the demo, handing each line to `out` as it happens. Returns 0 when every step went as
    /// the seeds document, 1 otherwise (the failed steps are marked ✗).
    public static func run(out: @escaping @Sendable (String) -> Void) async -> Int32 {
        let clock = ManualClock(now: .seconds(0))
        var configuration = Configuration()
        configuration.clock = { clock.now.date }
        let server = ReferenceServer(backends: Backend.allCases.map(\.served), configuration: configuration)
        do {
            try server.start()
        } catch {
            out("✗ the reference server could not start: \(error)")
            return 1
        }
        defer { server.stop() }
        out("authflow demo — each backend's main lifecycle, over HTTP, through AuthRunner")
        out("Reference server in-process at \(server.rootURL.absoluteString); time is simulated and starts at t+0s.")
        out("Lines: ⇄ a request and its status · → the new state · ★ what the app is told. Secrets print as ‹…›.")

        var results: [Summary] = []
        for backend in Backend.allCases {
            let tour = Tour(backend: backend, server: server, clock: clock, out: out)
            out("")
            out("━━ \(backend) " + String(repeating: "━", count: max(3, 60 - backend.description.count)))
            switch backend {
            case .anonymousWall: await anonymousWall(tour)
            case .vynqTalk: await vynqTalk(tour)
            case .everday: await everday(tour)
            case .subspace: await subspace(tour)
            case .hero365: await hero365(tour)
            }
            results.append(tour.summary)
        }

        out("")
        out("Summary")
        let width = results.map(\.backend.description.count).max() ?? 0
        for result in results {
            let name = result.backend.description.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = result.failed.isEmpty ? "✓" : "✗"
            out("  \(mark) \(name)  \(result.steps) steps, \(result.requests) requests, \(result.transitions) transitions")
            result.failed.forEach { out("      ✗ \($0)") }
        }
        let failures = results.flatMap(\.failed).count
        out(failures == 0 ? "✓ every lifecycle ran as its seed documents" : "✗ \(failures) steps did not go as documented")
        return failures == 0 ? 0 : 1
    }

    // MARK: The tours

    /// Code registration, the first password, password sign-in and change, reset with auto-login.
    static func anonymousWall(_ tour: Tour) async {
        let email = "kid@school.edu"
        let app = await tour.start(Apps.anonymousWall())
        await app.step("Ask for a registration code for \(email)", .entry(.first(.submitEmail(email))), expect: .codeSent)
        await app.step(
            "Type the code from the email (read from the dev outbox)", .entry(.first(.submitCode(CodeInput(tour.code(to: email))))),
            expect: .passwordSetupRequired)
        await app.step("Set the first password", .session(.setPassword(PasswordInput("Passw0rd!123"))), expect: .passwordSet)
        await app.step("Log out", .session(.logout), expect: .signedOut(.userRequested))
        await app.step(
            "Sign in with the password", .entry(.second(.first(.submit(identifier: email, password: PasswordInput("Passw0rd!123"))))),
            expect: .signedIn(nil))
        await app.step(
            "Change the password", .session(.changePassword(old: PasswordInput("Passw0rd!123"), new: PasswordInput("N3wPassw0rd!"))),
            expect: .passwordChanged)
        await app.step("Log out", .session(.logout), expect: .signedOut(.userRequested))
        await app.step("Forgot the password: ask for a reset code", .entry(.second(.second(.second(.requestReset(email))))),
                       expect: .passwordResetRequested)
        await app.step(
            "Type the reset code and a new password: signed in at once (auto-login)",
            .entry(.second(.second(.second(.submitCode(CodeInput(tour.code(to: email)), newPassword: PasswordInput("R3setPassw0rd!")))))),
            expect: .signedIn(nil))
        await app.step("Log out", .session(.logout), expect: .signedOut(.userRequested))
        await app.stop()
    }

    /// Sign-up in the envelope, the realtime connection, a protected call, expiry, sign-in, logout.
    static func vynqTalk(_ tour: Tour) async {
        let app = await tour.start(Apps.vynqTalk(), realtime: URLSessionRealtimeConnector(timeout: 5)) { state in
            guard case .signedIn(let phase) = state.phase, case .connected(_, let id) = phase.connection else { return nil }
            return id
        }
        await app.step(
            "Sign up: the {success, data, message} answer signs in, and the app opens the realtime connection (ws://…/ws?token=)",
            .entry(.first(.submit(RegistrationInput(name: "Alice", email: "alice@example.com", password: PasswordInput("Passw0rd!123"))))),
            expect: .signedIn(nil))
        await app.call("A protected call: GET /users with the bearer token", path: "/users", expectStatus: 200)
        await app.advance(
            "An hour later the token has expired", by: .seconds(3600), expect: .signedOut(.tokenExpired))
        await app.step(
            "Sign in again", .entry(.second(.submit(identifier: "alice@example.com", password: PasswordInput("Passw0rd!123")))),
            expect: .signedIn(nil))
        await app.step("Log out: the realtime connection closes with the session", .session(.session(.logout)),
                       expect: .signedOut(.userRequested))
        await app.stop()
    }

    /// The approval gate (the parent approves over HTTP), sign-in, rotating refresh, revoking logout.
    static func everday(_ tour: Tour) async {
        let kid = await tour.start(Apps.everday())
        await kid.step(
            "Register \"newkid\": the account waits for a parent's approval",
            .entry(.first(.submit(RegistrationInput(name: "New Kid", email: "newkid@example.com", username: "newkid", password: PasswordInput("Passw0rd!123"))))),
            expect: .pendingApproval(nil))
        await kid.step(
            "Sign in before approval: 403, pending approval (not an error screen)",
            .entry(.second(.first(.submit(identifier: "newkid", password: PasswordInput("Passw0rd!123"))))), expect: .pendingApproval(nil))
        let parent = await tour.start(Apps.everday(), role: "parent")
        await parent.step(
            "On the parent's device: sign in as the parent",
            .entry(.second(.first(.submit(identifier: "parent", password: PasswordInput(tour.server.configuration.everday.parent.password))))),
            expect: .signedIn(nil))
        let id = tour.server.everdayUserID(username: "newkid") ?? 0
        await parent.call("The parent approves: PUT /settings/users/\(id)/approve", path: "/settings/users/\(id)/approve", method: "PUT",
                          expectStatus: 200)
        await parent.stop()
        await kid.step(
            "Sign in after approval: access and refresh tokens",
            .entry(.second(.first(.submit(identifier: "newkid", password: PasswordInput("Passw0rd!123"))))), expect: .signedIn(nil))
        await kid.advance("29 minutes later the access token nears expiry: the refresh rotates the pair",
                          by: .seconds(1740), expect: .tokenRefreshed)
        await kid.step("Log out: the refresh token is revoked on the server (best effort), the vault cleared", .session(.logout),
                       expect: .signedOut(.userRequested))
        await kid.stop()
    }

    /// Registration with a token at once, a protected call, restore with `/auth/me` on relaunch.
    static func subspace(_ tour: Tour) async {
        let vault = MemoryVault()
        let app = await tour.start(Apps.subspace(), vault: vault)
        await app.step(
            "Register: a 24-hour token at once",
            .entry(.first(.submit(RegistrationInput(name: "Ada", email: "ada@example.com", password: PasswordInput("Passw0rd!123"))))),
            expect: .signedIn(nil))
        await app.call("A protected call: GET /auth/me", path: "/auth/me", expectStatus: 200)
        await app.stop()
        let relaunched = await tour.start(Apps.subspace(), vault: vault, launched: false)
        await relaunched.launch("The app is relaunched: the stored token is checked with /auth/me", expect: .signedIn(nil))
        await relaunched.step("Log out", .session(.logout), expect: .signedOut(.userRequested))
        await relaunched.stop()
    }

    /// Phone OTP from the outbox, a protected call, the refresh read from the token's `exp`.
    static func hero365(_ tour: Tour) async {
        let phone = "+15551234567"
        let app = await tour.start(Apps.hero365())
        await app.step("Ask for a one-time code by SMS", .entry(.second(.second(.first(.submitDestination(phone))))), expect: .codeSent)
        await app.step(
            "Type the code from the SMS (read from the dev outbox): signed in",
            .entry(.second(.second(.first(.submitCode(CodeInput(tour.code(to: phone))))))), expect: .signedIn(nil))
        await app.call("A protected call: GET /users/me", path: "/users/me", expectStatus: 200)
        await app.advance("Eight days later the token nears expiry (read from its exp claim): refreshed",
                          by: .seconds(8 * 24 * 3600 - 60), expect: .tokenRefreshed)
        await app.call("The protected call again, with the new token", path: "/users/me", expectStatus: 200)
        await app.step("Log out", .session(.logout), expect: .signedOut(.userRequested))
        await app.stop()
    }
}

/// What one backend's tour did.
struct Summary: Sendable {
    /// The backend toured.
    var backend: Backend
    /// Steps taken.
    var steps = 0
    /// Requests that went over HTTP (realtime handshakes included).
    var requests = 0
    /// Transitions that changed where the user is.
    var transitions = 0
    /// The steps that did not go as documented, with why.
    var failed: [String] = []
}

/// One backend's tour: its contract on the shared server, the shared clock, and the tally.
final class Tour: Sendable {
    /// The backend toured.
    let backend: Backend
    /// The shared in-process server.
    let server: ReferenceServer
    /// The simulated time both the runners and the server read.
    let clock: ManualClock
    /// The backend's contract at its mount on the server.
    let contract: any BackendContract
    /// Where lines go.
    let out: @Sendable (String) -> Void
    private let tally: Locked<Summary>

    init(backend: Backend, server: ReferenceServer, clock: ManualClock, out: @escaping @Sendable (String) -> Void) {
        self.backend = backend
        self.server = server
        self.clock = clock
        self.out = out
        contract = BackendContracts.contract(for: backend, server: server.baseURL(for: backend.served))
        tally = Locked(Summary(backend: backend))
    }

    /// What the tour did so far.
    var summary: Summary { tally.withLock { $0 } }

    /// Updates the tally.
    func record(_ change: (inout Summary) -> Void) { tally.withLock(change) }

    /// The latest code or token the server "sent" to `recipient`.
    func code(to recipient: String) -> String { server.outbox(to: recipient).last?.code ?? "" }

    /// A started runner for `app`, narrated.
    /// A runner for `app`, narrated; launched at once unless `launched` is false (then the
    /// tour's `launch` step launches it).
    func start<App: AuthorizedCalls>(
        _ app: App, vault: MemoryVault = MemoryVault(), realtime: (any RealtimeConnector)? = nil, role: String? = nil,
        launched: Bool = true, openConnection: @escaping @Sendable (App.State) -> RequestID? = { _ in nil }
    ) async -> Walkthrough<App> {
        let walkthrough = await Walkthrough(app, tour: self, vault: vault, realtime: realtime, role: role, openConnection: openConnection)
        if launched { await walkthrough.launchQuietly() }
        return walkthrough
    }
}

/// A runner over a narrated machine: each step says what the user does, then every request,
/// transition and outcome prints as it happens, and the step is checked against the outcome the
/// seed documents.
final class Walkthrough<App: AuthorizedCalls>: Sendable {
    /// The real runner, over the narrated lifecycle.
    let runner: AuthRunner<Narrated<App>>
    /// The tour this walkthrough belongs to.
    let tour: Tour
    /// Where requests, transitions and outcomes are printed.
    let narration: Narration
    private let openConnection: @Sendable (App.State) -> RequestID?

    init(
        _ app: App, tour: Tour, vault: MemoryVault, realtime: (any RealtimeConnector)?, role: String?,
        openConnection: @escaping @Sendable (App.State) -> RequestID?
    ) async {
        let narration = Narration(out: tour.out, indent: role.map { "    [\($0)] " } ?? "    ", tour: tour)
        self.narration = narration
        self.tour = tour
        self.openConnection = openConnection
        runner = AuthRunner(
            machine: Narrated(app, narration: narration), contract: tour.contract, transport: URLSessionTransport(timeout: 10),
            vault: vault, clock: tour.clock, realtime: realtime, logger: narration)
        let issues = await runner.issues()
        let out = tour.out
        Task {
            var seen: Set<String> = []
            for await issue in issues where seen.insert("\(issue)").inserted { out("    ⚠ \(issue)") }
        }
    }

    /// Launches the runner (it reads its vault) without a step of its own.
    func launchQuietly() async {
        await runner.start()
        await settle()
    }

    /// The user does `intent`; the step succeeds when `expected` is emitted.
    func step(_ title: String, _ intent: App.Intent, expect expected: Expected) async {
        begin(title)
        await runner.send(intent)
        await settle()
        check(title, expected)
    }

    /// The app launches and reads its vault.
    func launch(_ title: String, expect expected: Expected) async {
        begin(title)
        await runner.start()
        await settle()
        check(title, expected)
    }

    /// Time passes on the shared clock.
    func advance(_ title: String, by interval: Interval, expect expected: Expected) async {
        begin(title)
        await tour.clock.advance(by: interval)
        await settle()
        check(title, expected)
    }

    /// One of the app's own protected calls.
    func call(_ title: String, path: String, method: String = "GET", expectStatus status: Int) async {
        begin(title)
        guard let url = URL(string: tour.contract.baseURL.absoluteString + path) else {
            fail(title, "no URL for \(path)")
            return
        }
        do throws(AuthorizedCallError) {
            let response = try await runner.authorized(HTTPRequest(method: method, url: url))
            await settle()
            tour.out("    ★ answered \(response.status)")
            if response.status != status { fail(title, "answered \(response.status), not \(status)") }
        } catch {
            tour.out("    ★ \(error): \(error.userMessage)")
            fail(title, "\(error)")
        }
    }

    /// Stops the runner.
    func stop() async { await runner.stop() }

    private func begin(_ title: String) {
        narration.outcomes.withLock { $0.removeAll() }
        tour.record { $0.steps += 1 }
        tour.out("  ▸ \(title)")
    }

    private func check(_ title: String, _ expected: Expected) {
        let emitted = narration.outcomes.withLock { $0 }
        guard !emitted.contains(where: expected.matches) else { return }
        fail(title, "expected \(expected), got \(emitted.isEmpty ? "nothing" : emitted.map(\.description).joined(separator: ", "))")
    }

    private func fail(_ title: String, _ reason: String) {
        tour.out("    ✗ \(reason)")
        tour.record { $0.failed.append("\(title): \(reason)") }
    }

    /// Returns once no request is in flight (an open realtime connection aside).
    private func settle() async {
        let open = openConnection
        let changes = await runner.states()
        if await runner.isQuiet(open) { return }
        for await _ in changes {
            if await runner.isQuiet(open) { return }
        }
    }
}

extension AuthRunner {
    /// True when nothing is in flight but the connection `open` names for the current state.
    fileprivate func isQuiet<App: AuthorizedCalls>(_ open: (App.State) -> RequestID?) -> Bool where Machine == Narrated<App> {
        let allowed = open(state)
        return inFlight.allSatisfy { $0 == allowed }
    }
}

/// The outcome a step is expected to emit.
enum Expected: Sendable, CustomStringConvertible {
    /// The outcome of the same name.
    case codeSent, passwordSetupRequired, passwordSet, passwordChanged, passwordResetRequested, tokenRefreshed
    /// Any user.
    case signedIn(UserProfile?)
    case signedOut(SignOutReason)
    /// Any message.
    case pendingApproval(String?)

    /// Whether `outcome` is the one expected.
    func matches(_ outcome: AuthOutcome) -> Bool {
        switch (self, outcome) {
        case (.codeSent, .codeSent), (.passwordSetupRequired, .passwordSetupRequired), (.passwordSet, .passwordSet),
            (.passwordChanged, .passwordChanged), (.passwordResetRequested, .passwordResetRequested),
            (.tokenRefreshed, .tokenRefreshed), (.signedIn, .signedIn), (.pendingApproval, .pendingApproval):
            true
        case (.signedOut(let reason), .signedOut(let emitted)): reason == emitted
        default: false
        }
    }

    var description: String {
        switch self {
        case .codeSent: "codeSent"
        case .passwordSetupRequired: "passwordSetupRequired"
        case .passwordSet: "passwordSet"
        case .passwordChanged: "passwordChanged"
        case .passwordResetRequested: "passwordResetRequested"
        case .tokenRefreshed: "tokenRefreshed"
        case .signedIn: "signedIn"
        case .signedOut(let reason): "signedOut(\(reason))"
        case .pendingApproval: "pendingApproval"
        }
    }
}

/// Prints what happens, as it happens: requests from the runner's logger, transitions and
/// outcomes from the narrated machine.
final class Narration: HTTPLogger {
    /// Where lines go.
    let out: @Sendable (String) -> Void
    /// In front of every line (the device's role, when there are two).
    let indent: String
    /// The tour whose tally counts requests and transitions.
    let tour: Tour
    /// Outcomes since the step began.
    let outcomes = Locked<[AuthOutcome]>([])

    init(out: @escaping @Sendable (String) -> Void, indent: String, tour: Tour) {
        self.out = out
        self.indent = indent
        self.tour = tour
    }

    /// A request went out and came back (or did not).
    func record(_ entry: HTTPLogEntry) {
        tour.record { $0.requests += 1 }
        // The logged URL is already redacted; show it from its path on.
        let afterScheme = entry.url.range(of: "://").map { entry.url[$0.upperBound...] } ?? Substring(entry.url)
        let path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? entry.url
        let answer = entry.status.map(String.init) ?? "no answer"
        out("\(indent)⇄ \(entry.method) \(path) → \(answer)")
    }

    /// The machine moved to `phase` and asked for `effects`.
    func transition(_ phase: String, changed: Bool, _ effects: [AuthEffect]) {
        if changed {
            tour.record { $0.transitions += 1 }
            out("\(indent)→ \(DemoText.readable(phase))")
        }
        for effect in effects {
            guard case .emit(let outcome) = effect else { continue }
            outcomes.withLock { $0.append(outcome) }
            out("\(indent)★ \(outcome)")
        }
    }
}

/// A lifecycle that tells a ``Narration`` about every transition, synchronously, as the runner
/// reduces it: the lifecycle itself is unchanged.
struct Narrated<Inner: AuthorizedCalls>: AuthorizedCalls {
    /// The inner lifecycle's phase.
    typealias Phase = Inner.Phase
    /// The inner lifecycle's intents.
    typealias Intent = Inner.Intent

    /// The lifecycle narrated.
    let inner: Inner
    /// Who is told.
    let narration: Narration

    init(_ inner: Inner, narration: Narration) {
        self.inner = inner
        self.narration = narration
    }

    /// The inner lifecycle's.
    var initialPhase: Inner.Phase { inner.initialPhase }

    /// The inner lifecycle's step, told to the narration.
    func step(_ phase: inout Inner.Phase, _ event: AuthEvent<Inner.Intent>, _ requests: inout FlowContext) -> [AuthEffect] {
        let before = phase
        let effects = inner.step(&phase, event, &requests)
        narration.transition("\(phase)", changed: phase != before, effects)
        return effects
    }

    /// The inner lifecycle's.
    func callIntent(for call: CallID) -> Inner.Intent { inner.callIntent(for: call) }
}

/// Descriptions made readable for a newcomer: the generic type paths Swift prints for nested
/// flows (`AuthCore.Either<…>.first(AuthCore.PasswordSignIn.Phase.signingIn(…))`) and the
/// `first`/`second` wrappers that only say which flow is active are dropped, leaving where the
/// user is: `signingIn(…)`.
enum DemoText {
    /// `description` without type paths and flow wrappers.
    static func readable(_ description: String) -> String {
        removingWrappers(removingTypePaths(description))
    }

    /// Drops `AuthCore.Type<…>.Nested.` before a case name.
    static func removingTypePaths(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var index = 0
        let prefix = Array("AuthCore.")
        while index < characters.count {
            guard characters[index...].starts(with: prefix) else {
                result.append(characters[index])
                index += 1
                continue
            }
            var depth = 0
            var cursor = index
            var end: Int?
            while cursor < characters.count {
                let character = characters[cursor]
                if character == "<" { depth += 1 }
                if character == ">" { depth -= 1 }
                if depth == 0, character == ".", cursor + 1 < characters.count, characters[cursor + 1].isLowercase {
                    end = cursor + 1
                    break
                }
                if depth == 0, character == "(" || character == " " || character == "," { break }
                cursor += 1
            }
            guard let end else {
                result.append(characters[index])
                index += 1
                continue
            }
            index = end
        }
        return result
    }

    /// Drops `first(…)`, `second(…)` and `Optional(…)` around their content.
    static func removingWrappers(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var skipping: [Bool] = []
        var index = 0
        while index < characters.count {
            let atBoundary = index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber)
            if atBoundary, let length = ["first(", "second(", "Optional("].map(Array.init).first(where: { characters[index...].starts(with: $0) })?.count {
                skipping.append(true)
                index += length
                continue
            }
            let character = characters[index]
            if character == "(" { skipping.append(false) }
            if character == ")", let skip = skipping.popLast(), skip {
                index += 1
                continue
            }
            result.append(character)
            index += 1
        }
        return result
    }
}

extension Authflow {
    /// `authflow demo`.
    static func demo(_ arguments: Arguments, out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard arguments.positional.isEmpty else {
            throw CommandProblem(description: "demo takes no arguments: \(arguments.positional.joined(separator: " "))")
        }
        return LineBridge.run(out: out) { sink in await Demo.run(out: sink) }
    }
}

/// Runs async work from a synchronous command, handing the lines it writes to `out` on the
/// calling thread as they come.
enum LineBridge {
    /// Runs `work` to its status, calling `out` with each line it writes.
    static func run(out: (String) -> Void, _ work: @escaping @Sendable (@escaping @Sendable (String) -> Void) async -> Int32) -> Int32 {
        // The bench's bridge, flushing after every line so each transition shows as it happens,
        // even when the output is piped.
        blocking(relaying: { line in
            out(line)
            fflush(nil)
        }, work)
    }
}
