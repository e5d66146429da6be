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
/// lifecycle over HTTP with the backends' clients (``AnonymousWallClient``, ``EverdayClient``, …),
/// printing each call an app makes, every request it causes (method, path, status), what the call
/// returned and where the user is afterwards. Only descriptions are printed, and they are
/// redacted: no password, code or token ever shows.
///
/// Time is simulated: one `ManualClock` drives both the clients and the server, so "half an hour
/// later" takes no time at all.
public enum Demo {
    /// Runs the demo, handing each line to `out` as it happens. Returns 0 when every step went as
    /// their API documents describe, 1 otherwise (the failed steps are marked ✗).
    public static func run(out: @escaping @Sendable (String) -> Void) async -> Int32 {
        let clock = ManualClock(now: .seconds(0))
        var configuration = Configuration()
        configuration.clock = { clock.now.date }
        let server = ReferenceServer(backends: ShippedBackend.all.map(\.served), configuration: configuration)
        do {
            try server.start()
        } catch {
            out("✗ the reference server could not start: \(error)")
            return 1
        }
        defer { server.stop() }
        out("authflow demo — each backend's main lifecycle, over HTTP, through its client")
        out("Reference server in-process at \(server.rootURL.absoluteString); time is simulated and starts at t+0s.")
        out("Lines: ▸ what the app calls · ⇄ a request and its status · ★ what the call returned · → where the user is. Secrets print as ‹…›.")

        var results: [Summary] = []
        for shipped in ShippedBackend.all {
            let backend = shipped.backend
            let tour = Tour(shipped, server: server, clock: clock, out: out)
            out("")
            out("━━ \(backend) " + String(repeating: "━", count: max(3, 60 - backend.description.count)))
            await shipped.tour(tour)
            results.append(tour.summary)
        }

        out("")
        out("Summary")
        let width = results.map(\.backend.description.count).max() ?? 0
        for result in results {
            let name = result.backend.description.padding(toLength: width, withPad: " ", startingAt: 0)
            let mark = result.failed.isEmpty ? "✓" : "✗"
            out("  \(mark) \(name)  \(result.steps) steps, \(result.requests) requests")
            result.failed.forEach { out("      ✗ \($0)") }
        }
        let failures = results.flatMap(\.failed).count
        out(failures == 0 ? "✓ every lifecycle ran as its API document describes" : "✗ \(failures) steps did not go as documented")
        return failures == 0 ? 0 : 1
    }

    // MARK: The tours

    /// Code registration, the first password, password sign-in and change, reset with auto-login.
    static func anonymousWall(_ tour: Tour) async {
        let email = "kid@school.edu"
        let auth = AnonymousWallClient(
            baseURL: tour.baseURL, vault: MemoryVault(), transport: tour.transport, clock: tour.clock, logger: tour.narration())
        await tour.step("Ask for a registration code for \(email)", "sendCode(to:for: .register)", on: auth) {
            try await auth.sendCode(to: email, for: .register)
        }
        await tour.step("Type the code from the email (read from the dev outbox)", "register(code:)", on: auth, expect: { $0.isPasswordSetup }) {
            try await auth.register(code: tour.code(to: email))
        }
        await tour.step("Set the first password", "setPassword(_:)", on: auth) { try await auth.setPassword("Passw0rd!123") }
        await tour.signOut(auth)
        await tour.step("Sign in with the password", "signIn(email:password:)", on: auth, expect: { $0.isSignedIn }) {
            try await auth.signIn(email: email, password: "Passw0rd!123")
        }
        await tour.step("Change the password", "changePassword(old:new:)", on: auth) {
            try await auth.changePassword(old: "Passw0rd!123", new: "N3wPassw0rd!")
        }
        await tour.signOut(auth)
        await tour.step("Forgot the password: ask for a reset code", "requestPasswordReset(email:)", on: auth) {
            try await auth.requestPasswordReset(email: email)
        }
        await tour.step(
            "Type the reset code and a new password: signed in at once (auto-login)", "resetPassword(code:newPassword:)", on: auth,
            expect: { $0.isSignedIn }
        ) {
            try await auth.resetPassword(code: tour.code(to: email), newPassword: "R3setPassw0rd!")
        }
        await tour.signOut(auth)
        await auth.stop()
    }

    /// Sign-up in the envelope, the realtime connection, a protected call, expiry, sign-in, logout.
    static func vynqTalk(_ tour: Tour) async {
        let auth = VynqTalkClient(
            baseURL: tour.baseURL, vault: MemoryVault(), transport: tour.transport, realtime: URLSessionRealtimeConnector(timeout: 5),
            clock: tour.clock, logger: tour.narration())
        await tour.step(
            "Sign up: the {success, data, message} answer signs in, and the realtime connection opens (ws://…/ws?token=)",
            "signUp(name:email:password:)", on: auth
        ) {
            try await auth.signUp(name: "Alice", email: "alice@example.com", password: "Passw0rd!123")
        }
        await tour.call("A protected call: GET /users with the bearer token", path: "/users", on: auth, expectStatus: 200)
        await tour.advance("An hour later the token has expired: signed out", by: .seconds(3600), on: auth) { $0 == .signedOut }
        await tour.step("Sign in again", "signIn(email:password:)", on: auth) {
            try await auth.signIn(email: "alice@example.com", password: "Passw0rd!123")
        }
        await tour.signOut(auth, "Sign out: the realtime connection closes with the session")
        await auth.stop()
    }

    /// The approval gate (the parent approves over HTTP), sign-in, rotating refresh, revoking logout.
    static func everday(_ tour: Tour) async {
        let kid = EverdayClient(baseURL: tour.baseURL, vault: MemoryVault(), transport: tour.transport, clock: tour.clock, logger: tour.narration())
        await tour.step("Register \"newkid\": the account waits for a parent's approval", "register(username:password:…)", on: kid) {
            try await kid.register(username: "newkid", password: "Passw0rd!123", email: "newkid@example.com", displayName: "New Kid")
        }
        await tour.step(
            "Sign in before approval: 403, pending approval (not an error screen)", "signIn(username:password:)", on: kid,
            expect: { if case .pendingApproval = $0 { true } else { false } }
        ) {
            try await kid.signIn(username: "newkid", password: "Passw0rd!123")
        }
        let parent = EverdayClient(
            baseURL: tour.baseURL, vault: MemoryVault(), transport: tour.transport, clock: tour.clock, logger: tour.narration(role: "parent"))
        let parentPassword = tour.server.configuration.everday.parent.password
        await tour.step("On the parent's device: sign in as the parent", "signIn(username:password:)", on: parent, expect: { $0.isSignedIn }) {
            try await parent.signIn(username: "parent", password: parentPassword)
        }
        let id = tour.server.everdayUserID(username: "newkid") ?? 0
        await tour.call(
            "The parent approves: PUT /settings/users/\(id)/approve", path: "/settings/users/\(id)/approve", method: "PUT", on: parent,
            expectStatus: 200)
        await parent.stop()
        await tour.step("Sign in after approval: access and refresh tokens", "signIn(username:password:)", on: kid, expect: { $0.isSignedIn }) {
            try await kid.signIn(username: "newkid", password: "Passw0rd!123")
        }
        let before = await kid.authState
        await tour.advance("29 minutes later the access token nears expiry: the refresh rotates the pair", by: .seconds(1740), on: kid) {
            $0.isSignedIn && $0 != before
        }
        await tour.signOut(kid, "Sign out: the refresh token is revoked on the server, the vault cleared")
        await kid.stop()
    }

    /// Registration with a token at once, a protected call, restore with `/auth/me` on relaunch.
    static func subspace(_ tour: Tour) async {
        let vault = MemoryVault()
        let auth = SubspaceClient(baseURL: tour.baseURL, vault: vault, transport: tour.transport, clock: tour.clock, logger: tour.narration())
        await tour.step("Register: a 24-hour token at once", "register(name:email:password:)", on: auth) {
            try await auth.register(name: "Ada", email: "ada@example.com", password: "Passw0rd!123")
        }
        await tour.step("Who is signed in, as the server says: GET /auth/me", "fetchCurrentUser()", on: auth) { try await auth.fetchCurrentUser() }
        await auth.stop()
        let relaunched = SubspaceClient(
            baseURL: tour.baseURL, vault: vault, transport: tour.transport, clock: tour.clock, logger: tour.narration())
        await tour.launch("The app is relaunched: the stored token is checked with /auth/me", on: relaunched) { $0.isSignedIn }
        await tour.signOut(relaunched)
        await relaunched.stop()
    }

    /// Phone OTP from the outbox, a protected call, the refresh read from the token's `exp`.
    static func hero365(_ tour: Tour) async {
        let phone = "+15551234567"
        let auth = Hero365Client(baseURL: tour.baseURL, vault: MemoryVault(), transport: tour.transport, clock: tour.clock, logger: tour.narration())
        await tour.step("Ask for a one-time code by SMS", "sendOTP(to:)", on: auth) { try await auth.sendOTP(to: phone) }
        await tour.step("Type the code from the SMS (read from the dev outbox): signed in", "verifyOTP(code:)", on: auth) {
            try await auth.verifyOTP(code: tour.code(to: phone))
        }
        await tour.call("A protected call: GET /users/me", path: "/users/me", on: auth, expectStatus: 200)
        let before = await auth.authState
        await tour.advance("Eight days later the token nears expiry (read from its exp claim): refreshed", by: .seconds(8 * 24 * 3600 - 60), on: auth)
        {
            $0.isSignedIn && $0 != before
        }
        await tour.call("The protected call again, with the new token", path: "/users/me", on: auth, expectStatus: 200)
        await tour.signOut(auth)
        await auth.stop()
    }
}

extension SignInResult {
    /// Whether a usable session began.
    var isSignedIn: Bool { if case .signedIn = self { true } else { false } }
    /// Whether the first password must be set.
    var isPasswordSetup: Bool { if case .passwordSetupRequired = self { true } else { false } }
}

/// What one backend's tour did.
struct Summary: Sendable {
    /// The backend toured.
    var backend: Backend
    /// Steps taken.
    var steps = 0
    /// Requests that went over HTTP (realtime handshakes included).
    var requests = 0
    /// The steps that did not go as documented, with why.
    var failed: [String] = []
}

extension Demo {
    /// OpenID Connect: discovery, sign-in in the browser by code with PKCE, rotation, revocation at sign-out.
    static func openIDConnect(_ tour: Tour) async {
        let settings = tour.server.configuration.openIDConnect
        let redirectURI = URL(string: settings.redirectURIs.first ?? "") ?? tour.baseURL
        let auth: OpenIDConnectClient
        do {
            auth = try await OpenIDConnectClient.discover(
                issuer: tour.baseURL, clientID: settings.clientID, redirectURI: redirectURI, vault: MemoryVault(), transport: tour.transport,
                clock: tour.clock, logger: tour.narration())
        } catch {
            tour.fail("Discovery", "\(error)")
            return
        }
        let root = tour.server.rootURL
        await tour.step(
            "Sign in in the browser: the provider redirects back with a code, exchanged once with the PKCE verifier", "signIn(browser:)",
            on: auth
        ) {
            try await auth.signIn { url, _ in try await Demo.referenceBrowser(url, root: root) }
        }
        let before = await auth.authState
        await tour.advance("59 minutes later the access token nears expiry: the refresh rotates the pair", by: .seconds(3540), on: auth) {
            $0.isSignedIn && $0 != before
        }
        await tour.signOut(auth, "Sign out: the refresh token is revoked at the provider (RFC 7009), the vault cleared")
        await auth.stop()
    }

    /// The user's browser at the reference provider: where its authorization endpoint sends the
    /// browser for `url`, as `/__dev/oidc/authorize` answers it.
    static func referenceBrowser(_ url: URL, root: URL) async throws -> URL {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let dev = URL(string: root.absoluteString + "/__dev/oidc/authorize?" + query) else { throw AuthError.cancelled }
        let response = try await URLSessionTransport(timeout: 10).send(HTTPRequest(method: "GET", url: dev))
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let text = object["redirectURL"] as? String, let redirect = URL(string: text)
        else { throw AuthError.cancelled }
        return redirect
    }
}

/// One backend's tour: its API on the shared server, the shared clock, and the tally.
final class Tour: Sendable {
    /// The backend toured.
    let backend: Backend
    /// The shared in-process server.
    let server: ReferenceServer
    /// The simulated time both the clients and the server read.
    let clock: ManualClock
    /// The backend's API base URL on the server.
    let baseURL: URL
    /// Where lines go.
    let out: @Sendable (String) -> Void
    private let tally: Locked<Summary>

    init(_ shipped: ShippedBackend, server: ReferenceServer, clock: ManualClock, out: @escaping @Sendable (String) -> Void) {
        let backend = shipped.backend
        self.backend = backend
        self.server = server
        self.clock = clock
        self.out = out
        baseURL = shipped.apiURL(on: server)
        tally = Locked(Summary(backend: backend))
    }

    /// The transport every client of the tour uses.
    var transport: URLSessionTransport { URLSessionTransport(timeout: 10) }

    /// What the tour did so far.
    var summary: Summary { tally.withLock { $0 } }

    /// The latest code or token the server "sent" to `recipient`.
    func code(to recipient: String) -> String { server.outbox(to: recipient).last?.code ?? "" }

    /// A logger that prints each request of one client (on one device, `role`).
    func narration(role: String? = nil) -> Narration { Narration(tour: self, indent: role.map { "    [\($0)] " } ?? "    ") }

    /// Counts a request.
    func countRequest() { tally.withLock { $0.requests += 1 } }

    /// The app calls `call` on `client`; the step succeeds when it returns and `expect` holds for its result.
    func step<Client: BackendClient, Result: Sendable>(
        _ title: String, _ call: String, on client: Client, expect: (Result) -> Bool = { _ in true },
        _ operation: () async throws -> Result
    ) async {
        begin(title, call)
        do {
            let result = try await operation()
            out("    ★ \(result)")
            if !expect(result) { fail(title, "returned \(result)") }
        } catch {
            out("    ★ \(error): \(error.localizedDescription)")
            fail(title, "\(error)")
        }
        await showState(of: client)
    }

    /// The app signs out.
    func signOut<Client: BackendClient>(_ client: Client, _ title: String = "Sign out") async {
        begin(title, "signOut()")
        await client.signOut()
        await settle(client)
        let state = await client.authState
        if state != .signedOut { fail(title, "still \(state)") }
        await showState(of: client)
    }

    /// One of the app's own protected requests.
    func call<Client: BackendClient>(
        _ title: String, path: String, method: String = "GET", on client: Client, expectStatus status: Int
    ) async {
        begin(title, "authorized(HTTPRequest(method: \"\(method)\", url: …\(path)))")
        guard let url = URL(string: baseURL.absoluteString + path) else {
            fail(title, "no URL for \(path)")
            return
        }
        do throws(AuthError) {
            let response = try await client.authorized(HTTPRequest(method: method, url: url))
            out("    ★ answered \(response.status)")
            if response.status != status { fail(title, "answered \(response.status), not \(status)") }
        } catch {
            out("    ★ \(error): \(error.localizedDescription)")
            fail(title, "\(error)")
        }
    }

    /// Time passes on the shared clock; the step succeeds when the state then satisfies `expect`.
    func advance<Client: BackendClient>(
        _ title: String, by interval: Interval, on client: Client, expect: (AuthState) -> Bool
    ) async {
        begin(title, "(time passes)")
        await clock.advance(by: interval)
        await settle(client)
        let state = await client.authState
        if !expect(state) { fail(title, "then \(state)") }
        await showState(of: client)
    }

    /// The app launches: the client restores what its vault holds.
    func launch<Client: BackendClient>(_ title: String, on client: Client, expect: (AuthState) -> Bool) async {
        begin(title, "start()")
        await client.start()
        await settle(client)
        let state = await client.authState
        if !expect(state) { fail(title, "then \(state)") }
        await showState(of: client)
    }

    private func begin(_ title: String, _ call: String) {
        tally.withLock { $0.steps += 1 }
        out("  ▸ \(title)")
        out("    \(call)")
    }

    private func showState<Client: BackendClient>(of client: Client) async {
        out("    → \(await client.authState)")
    }

    /// Marks the step `title` failed, saying why.
    func fail(_ title: String, _ reason: String) {
        out("    ✗ \(reason)")
        tally.withLock { $0.failed.append("\(title): \(reason)") }
    }

    /// Returns once no request is in flight (an open realtime connection aside).
    private func settle<Client: BackendClient>(_ client: Client) async {
        for _ in 0..<500 {
            let requests = await client.runner.inFlight.count
            if requests == 0 || (client is VynqTalkClient && requests <= 1) { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Prints each request a client sends, as it comes back (the log entry is already redacted).
final class Narration: HTTPLogger {
    /// The tour whose tally counts requests.
    let tour: Tour
    /// In front of every line (the device's role, when there are two).
    let indent: String

    init(tour: Tour, indent: String) {
        self.tour = tour
        self.indent = indent
    }

    /// A request went out and came back (or did not).
    func record(_ entry: HTTPLogEntry) {
        tour.countRequest()
        let afterScheme = entry.url.range(of: "://").map { entry.url[$0.upperBound...] } ?? Substring(entry.url)
        let path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? entry.url
        let answer = entry.status.map(String.init) ?? "no answer"
        tour.out("\(indent)⇄ \(entry.method) \(path) → \(answer)")
    }
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
            if atBoundary,
                let length = ["first(", "second(", "Optional("].map(Array.init).first(where: { characters[index...].starts(with: $0) })?.count
            {
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
    static func demo(out: (String) -> Void) -> Int32 {
        LineBridge.run(out: out) { sink in await Demo.run(out: sink) }
    }
}

/// Runs async work from a synchronous command, handing the lines it writes to `out` on the
/// calling thread as they come.
enum LineBridge {
    /// Runs `work` to its status, calling `out` with each line it writes.
    static func run(out: (String) -> Void, _ work: @escaping @Sendable (@escaping @Sendable (String) -> Void) async -> Int32) -> Int32 {
        // The bench's bridge, flushing after every line so each transition shows as it happens,
        // even when the output is piped.
        blocking(
            relaying: { line in
                out(line)
                fflush(nil)
            }, work)
    }
}
