import AuthCore
import AuthRuntime
import Foundation

/// The probe of a Subspace server: registration that signs in at once, sign-in, the session
/// restored at launch by `/auth/me`, a sign-out that is local (the document has no logout and no
/// refresh: a 24 h JWT), through the real `SubspaceClient`; then the edge requests. The rate limit
/// (100 requests a minute) is not probed: reaching it takes more requests than a run may send.
struct SubspaceProbe {
    // MARK: The plan

    static let register = ProbeStep("register a new account", "201 {token, user}; client: signed in")
    static let duplicate = ProbeStep("register the same email again", "409; client: the refusal")
    static let wrongPassword = ProbeStep("sign in with a wrong password", "401; client: the refusal")
    static let signIn = ProbeStep("sign in", "200 {token, user}; client: signed in, token stored")
    static let currentUser = ProbeStep("the current user (/auth/me), with the session's bearer", "200 {email, id, name, …}; client: the user")
    static let noBearer = ProbeStep("/auth/me with no bearer", "401")
    static let malformedBearer = ProbeStep("/auth/me with a malformed bearer", "401")
    static let launchRestore = ProbeStep("relaunch: restore the stored session", "200 from /auth/me; client: signed in")
    static let signOut = ProbeStep("sign out", "nothing sent (no logout endpoint); client: signed out")
    static let bearerAfterSignOut = ProbeStep(
        "/auth/me with the signed-out bearer", "200 (no logout endpoint: the token lives until it expires)")
    static let malformedBody = ProbeStep("login with a body that is not JSON", "400")
    static let unknownField = ProbeStep("login with an unknown field", "200 (the field ignored)")
    static let missingField = ProbeStep("login without password", "401 or 400")
    static let shortestPassword = ProbeStep("register with the shortest password the client accepts", "201 {token, user}; client: signed in")
    static let expiredBearer = ProbeStep("/auth/me with an expired bearer", "401", needs: [.clock])
    static let expiredRelaunch = ProbeStep("relaunch with an expired token", "client: signed out", needs: [.clock])

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        register, duplicate, wrongPassword, signIn, currentUser, noBearer, malformedBearer, launchRestore, signOut, bearerAfterSignOut,
        malformedBody, unknownField, missingField, shortestPassword, expiredBearer, expiredRelaunch,
    ]

    // MARK: A run

    /// The API's base URL (`…/api/v1`).
    let baseURL: URL
    /// The operator's hooks (only the clock is used).
    let hooks: ProbeOperator
    /// The prefix of every account the run creates.
    let prefix: String
    /// Makes up the accounts' passwords (a test plants a marker in them).
    var makePassword: @Sendable () -> String = ProbeSecrets.password

    /// Runs the plan against the server and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: "subspace", baseURL: baseURL, hooks: hooks, prefix: prefix) { run in
            await steps(run: run, clock: ShiftedClock(), email: "\(prefix)user@example.invalid", password: makePassword())
        }
    }

    /// The steps in order, one block per row as `plan` lists them.
    private func steps(run: ProbeRun, clock: ShiftedClock, email: String, password: String) async {
        func client(_ name: String) -> SubspaceClient {
            SubspaceClient(baseURL: baseURL, vault: run.vault(name), transport: run.transport, clock: clock)
        }
        let me = baseURL.appendingPathComponent("auth/me")

        let first = client("first")
        var mark = run.transport.mark
        let registered = await outcome { try await first.register(name: "Probe User", email: email, password: password) }
        run.record(
            Self.register, since: mark, client: registered.isSuccess ? "signedIn" : registered.brief,
            verdict: registered.isSuccess ? run.statusVerdict(since: mark, expected: [201], keys: ["token", "user"]) : .breaks,
            note: registered.isSuccess
                ? run.statusNote(since: mark, expected: [201], keys: ["token", "user"]) : "the client could not register: \(registered.brief)")
        await first.signOut()

        let elsewhere = client("elsewhere")
        mark = run.transport.mark
        let again = await outcome { try await elsewhere.register(name: "Probe User", email: email, password: password) }
        if !registered.isSuccess {
            run.skip(Self.duplicate, "needs: the registration (it failed)")
        } else if again.isSuccess {
            run.record(
                Self.duplicate, since: mark, client: "signedIn", verdict: .copes, note: "the server accepted a second registration of the same email")
        } else {
            run.record(
                Self.duplicate, since: mark, client: again.brief, verdict: run.statusVerdict(since: mark, expected: [409]),
                note: run.statusNote(since: mark, expected: [409]))
        }
        await elsewhere.stop()

        mark = run.transport.mark
        let wrong = await outcome { try await first.signIn(email: email, password: password + "-wrong") }
        if wrong.isSuccess {
            await first.signOut()
            run.record(Self.wrongPassword, since: mark, client: "signedIn", verdict: .breaks, note: "a wrong password signed in")
        } else {
            run.record(
                Self.wrongPassword, since: mark, client: wrong.brief, verdict: run.statusVerdict(since: mark, expected: [401]),
                note: run.statusNote(since: mark, expected: [401]))
        }

        mark = run.transport.mark
        let signedIn = await outcome { try await first.signIn(email: email, password: password) }.isSuccess
        run.record(
            Self.signIn, since: mark, client: signedIn ? "signedIn" : "failed",
            verdict: signedIn ? run.statusVerdict(since: mark, expected: [200], keys: ["token", "user"]) : .breaks,
            note: signedIn
                ? run.statusNote(since: mark, expected: [200], keys: ["token", "user"]) : "the client could not sign in with the server's answer")
        let notSignedIn = "needs: a session (sign-in failed)"

        if signedIn {
            mark = run.transport.mark
            let user = await outcome { try await first.fetchCurrentUser() }
            run.record(
                Self.currentUser, since: mark, client: user.isSuccess ? "the user" : user.brief,
                verdict: user.isSuccess ? run.statusVerdict(since: mark, expected: [200], keys: ["email", "id"]) : .breaks,
                note: user.isSuccess ? run.statusNote(since: mark, expected: [200], keys: ["email", "id"]) : "the client could not read the user")
        } else {
            run.skip(Self.currentUser, notSignedIn)
        }
        await run.edge(Self.noBearer, HTTPRequest(method: "GET", url: me), expected: 401)
        await run.edge(Self.malformedBearer, HTTPRequest(method: "GET", url: me, headers: ["Authorization": "Bearer not-a-token"]), expected: 401)

        if signedIn {
            await first.stop()
            let relaunched = client("first")
            mark = run.transport.mark
            let state = await settledState(of: relaunched)
            run.record(
                Self.launchRestore, since: mark, client: state.brief,
                verdict: state.isSignedIn ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                note: state.isSignedIn ? run.statusNote(since: mark, expected: [200]) : "the stored session was not restored")
            let token = run.credentials("first")?.accessToken.reveal()
            mark = run.transport.mark
            let ended = await relaunched.signOutAndEndServerSession()
            let after = await relaunched.authState
            run.record(
                Self.signOut, since: mark, client: "\(ended.map(ProbeRun.brief) ?? "no server sign-out"), \(after.brief)",
                verdict: after.isSignedIn ? .breaks : .conforms, note: after.isSignedIn ? "still signed in" : "")
            if let token {
                let exchange = await run.send(HTTPRequest(method: "GET", url: me, headers: ["Authorization": "Bearer \(token)"]))
                run.record(
                    Self.bearerAfterSignOut, exchange: exchange, verdict: exchange.status == 200 ? .conforms : .copes,
                    note: exchange.status == 200
                        ? "" : "the server ends sessions the document does not say it can end (the client forgot the token anyway)")
            } else {
                run.skip(Self.bearerAfterSignOut, "needs: a stored token")
            }
            await relaunched.stop()
        } else {
            for step in [Self.launchRestore, Self.signOut, Self.bearerAfterSignOut] { run.skip(step, notSignedIn) }
        }

        await run.edge(Self.malformedBody, Self.login(baseURL, Data("{\"email\": ".utf8)), expected: 400)
        await run.edge(
            Self.unknownField, Self.login(baseURL, ProbeRun.json(["email": email, "password": password, "probeUnknownField": "probe"])),
            expected: 200,
            refusedIsCoping: "an unknown field is refused")
        let missing = await run.send(Self.login(baseURL, ProbeRun.json(["email": email])))
        run.record(
            Self.missingField, exchange: missing, verdict: [400, 401].contains(missing.status ?? 0) ? .conforms : .copes,
            note: [400, 401].contains(missing.status ?? 0) ? "" : "answered \(missing.status.map(String.init) ?? "nothing")")

        let other = client("other")
        mark = run.transport.mark
        let short = await outcome {
            try await other.register(name: "Probe Short", email: "\(prefix)short@example.invalid", password: ProbeSecrets.shortestPassword())
        }
        if short.isSuccess {
            run.record(
                Self.shortestPassword, since: mark, client: "signedIn", verdict: run.statusVerdict(since: mark, expected: [201], keys: ["token"]),
                note: run.statusNote(since: mark, expected: [201], keys: ["token"]))
        } else if run.transport.exchanges(since: mark).last?.status == 400 {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .copes,
                note: "the server's password rule is stricter than the client's: the user sees the server's refusal")
        } else {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .breaks, note: "the client could not register: \(short.brief)")
        }
        await other.signOut()
        await other.stop()

        if signedIn, let advance = hooks.advanceClock {
            let third = client("third")
            let session = await outcome { try await third.signIn(email: email, password: password) }
            let credentials = run.credentials("third")
            let left = credentials?.expiresAt.map { Int(($0 - clock.now).milliseconds / 1000) } ?? 24 * 3600
            let seconds = max(60, left + 60)
            await third.stop()
            if session.isSuccess, let token = credentials?.accessToken.reveal(), await advance(seconds) {
                clock.advance(seconds: seconds)
                await run.edge(
                    Self.expiredBearer, HTTPRequest(method: "GET", url: me, headers: ["Authorization": "Bearer \(token)"]), expected: 401,
                    detail: "the clock moved \(seconds) s ahead")
                let relaunched = client("third")
                mark = run.transport.mark
                let state = await settledState(of: relaunched)
                let answered = run.transport.exchanges(since: mark).filter { (200..<300).contains($0.status ?? 0) }.map(\.path)
                let verdict: ProbeVerdict
                let note: String
                if !state.isSignedIn {
                    (verdict, note) = (.conforms, "")
                } else if answered.contains("/auth/refresh") {
                    (verdict, note) = (.copes, "the server refreshed the session at /auth/refresh, an endpoint the document does not mention")
                } else if answered.contains("/auth/me") {
                    (verdict, note) = (.copes, "the server accepted the expired token at /auth/me")
                } else {
                    (verdict, note) = (.breaks, "the client restored an expired session without asking the server")
                }
                run.record(Self.expiredRelaunch, since: mark, client: state.brief, verdict: verdict, note: note)
                await relaunched.stop()
            } else {
                let why = session.isSuccess ? "--clock-command failed (exit status not 0)" : notSignedIn
                run.skip(Self.expiredBearer, why)
                run.skip(Self.expiredRelaunch, why)
            }
        } else {
            let why = signedIn ? "needs: --clock-command" : notSignedIn
            run.skip(Self.expiredBearer, why)
            run.skip(Self.expiredRelaunch, why)
        }
        await first.stop()
    }

    static func login(_ baseURL: URL, _ body: Data) -> HTTPRequest {
        HTTPRequest(method: "POST", url: baseURL.appendingPathComponent("auth/login"), headers: ["Content-Type": "application/json"], body: body)
    }
}
