import AuthCore
import AuthRuntime
import Foundation

/// The probe of a VynqTalk server: sign-up and sign-in answering the `{success, data, message}`
/// envelope, a protected call, the session kept across a relaunch, the local sign-out, and the
/// automatic logout when a protected call is answered 401, through the real `VynqTalkClient`
/// (its WebSocket included); then the edge requests. The WebSocket's own traffic is not counted
/// against the request budget: it is one connection per session.
struct VynqTalkProbe {
    // MARK: The plan

    static let signUp = ProbeStep("sign up", "200 {data, message, success: true}; client: signed in")
    static let duplicate = ProbeStep("sign up with the same email again", "409 {success: false}; client: the refusal")
    static let wrongPassword = ProbeStep("sign in with a wrong password", "401 {success: false}; client: the refusal")
    static let signIn = ProbeStep("sign in", "200 {data, message, success: true}; client: signed in, token stored")
    static let protectedCall = ProbeStep("a protected call (/users) with the session's bearer", "200 {data, success: true}; client: the answer")
    static let noBearer = ProbeStep("/users with no bearer", "401")
    static let malformedBearer = ProbeStep("/users with a malformed bearer", "401")
    static let webSocketWithoutToken = ProbeStep("/ws with no token", "401")
    static let relaunch = ProbeStep("relaunch: restore the stored session", "200 (GET /users/me); client: signed in")
    static let signOut = ProbeStep("sign out", "nothing sent (no logout endpoint); client: signed out")
    static let malformedBody = ProbeStep("login with a body that is not JSON", "400")
    static let unknownField = ProbeStep("login with an unknown field", "200 (the field ignored)")
    static let missingField = ProbeStep("login without password", "400 or 401")
    static let shortestPassword = ProbeStep("sign up with the shortest password the client accepts", "200 {success: true}; client: signed in")
    static let expiredBearer = ProbeStep("/users with an expired bearer", "401", needs: [.clock])
    static let automaticLogout = ProbeStep(
        "a protected call after the token expired", "401; client: signed out (the document's automatic logout)", needs: [.clock])

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        signUp, duplicate, wrongPassword, signIn, protectedCall, noBearer, malformedBearer, webSocketWithoutToken, relaunch, signOut,
        malformedBody, unknownField, missingField, shortestPassword, expiredBearer, automaticLogout,
    ]

    // MARK: A run

    /// The API's base URL (the document's paths are at its root).
    let baseURL: URL
    /// The operator's hooks (only the clock is used).
    let hooks: ProbeOperator
    /// The prefix of every account the run creates.
    let prefix: String
    /// Makes up the accounts' passwords (a test plants a marker in them).
    var makePassword: @Sendable () -> String = ProbeSecrets.password

    /// Runs the plan against the server and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: "vynqTalk", baseURL: baseURL, hooks: hooks, prefix: prefix) { run in
            await steps(run: run, clock: ShiftedClock(), email: "\(prefix)user@example.invalid", password: makePassword())
        }
    }

    /// The steps in order, one block per row as `plan` lists them.
    private func steps(run: ProbeRun, clock: ShiftedClock, email: String, password: String) async {
        func client(_ name: String) -> VynqTalkClient {
            VynqTalkClient(baseURL: baseURL, vault: run.vault(name), transport: run.transport, clock: clock)
        }
        let users = baseURL.appendingPathComponent("users")
        let envelope = ["data", "success"]

        let first = client("first")
        var mark = run.transport.mark
        let registered = await outcome { try await first.signUp(name: "Probe User", email: email, password: password) }
        run.record(
            Self.signUp, since: mark, client: registered.isSuccess ? "signedIn" : registered.brief,
            verdict: registered.isSuccess ? run.statusVerdict(since: mark, expected: [200, 201], keys: envelope) : .breaks,
            note: registered.isSuccess
                ? run.statusNote(since: mark, expected: [200, 201], keys: envelope) : "the client could not sign up: \(registered.brief)")
        await first.signOut()

        let elsewhere = client("elsewhere")
        mark = run.transport.mark
        let again = await outcome { try await elsewhere.signUp(name: "Probe User", email: email, password: password) }
        if !registered.isSuccess {
            run.skip(Self.duplicate, "needs: the sign-up (it failed)")
        } else if again.isSuccess {
            await elsewhere.signOut()
            run.record(
                Self.duplicate, since: mark, client: "signedIn", verdict: .copes, note: "the server accepted a second sign-up with the same email")
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
            verdict: signedIn ? run.statusVerdict(since: mark, expected: [200], keys: envelope) : .breaks,
            note: signedIn ? run.statusNote(since: mark, expected: [200], keys: envelope) : "the client could not sign in with the server's answer")
        let notSignedIn = "needs: a session (sign-in failed)"

        if signedIn {
            mark = run.transport.mark
            let answer = await outcome { try await first.authorized(HTTPRequest(method: "GET", url: users)) }
            let status = answer.value?.status
            run.record(
                Self.protectedCall, since: mark, client: status.map { "answered \($0)" } ?? answer.brief,
                verdict: status == 200 ? run.statusVerdict(since: mark, expected: [200], keys: envelope) : .breaks,
                note: status == 200
                    ? run.statusNote(since: mark, expected: [200], keys: envelope) : "the session's own bearer did not get an answer: \(answer.brief)"
            )
        } else {
            run.skip(Self.protectedCall, notSignedIn)
        }
        await run.edge(Self.noBearer, HTTPRequest(method: "GET", url: users), expected: 401)
        await run.edge(Self.malformedBearer, HTTPRequest(method: "GET", url: users, headers: ["Authorization": "Bearer not-a-token"]), expected: 401)
        await run.edge(Self.webSocketWithoutToken, HTTPRequest(method: "GET", url: baseURL.appendingPathComponent("ws")), expected: 401)

        if signedIn {
            await first.stop()
            let relaunched = client("first")
            mark = run.transport.mark
            let state = await settledState(of: relaunched, realtime: true)
            run.record(
                Self.relaunch, since: mark, client: state.brief,
                verdict: state.isSignedIn ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                note: state.isSignedIn ? run.statusNote(since: mark, expected: [200]) : "the stored session was not restored")
            mark = run.transport.mark
            let ended = await relaunched.signOutAndEndServerSession()
            let after = await relaunched.authState
            run.record(
                Self.signOut, since: mark, client: "\(ended.map(ProbeRun.brief) ?? "no server sign-out"), \(after.brief)",
                verdict: after.isSignedIn ? .breaks : .conforms, note: after.isSignedIn ? "still signed in" : "")
            await relaunched.stop()
        } else {
            run.skip(Self.relaunch, notSignedIn)
            run.skip(Self.signOut, notSignedIn)
        }

        await run.edge(Self.malformedBody, Self.login(baseURL, Data("{\"email\": ".utf8)), expected: 400)
        await run.edge(
            Self.unknownField, Self.login(baseURL, ProbeRun.json(["email": email, "password": password, "probeUnknownField": "probe"])),
            expected: 200, refusedIsCoping: "an unknown field is refused")
        let missing = await run.send(Self.login(baseURL, ProbeRun.json(["email": email])))
        run.record(
            Self.missingField, exchange: missing, verdict: [400, 401].contains(missing.status ?? 0) ? .conforms : .copes,
            note: [400, 401].contains(missing.status ?? 0) ? "" : "answered \(missing.status.map(String.init) ?? "nothing")")

        let other = client("other")
        mark = run.transport.mark
        let short = await outcome {
            try await other.signUp(name: "Probe Short", email: "\(prefix)short@example.invalid", password: ProbeSecrets.shortestPassword())
        }
        if short.isSuccess {
            run.record(
                Self.shortestPassword, since: mark, client: "signedIn",
                verdict: run.statusVerdict(since: mark, expected: [200, 201], keys: envelope),
                note: run.statusNote(since: mark, expected: [200, 201], keys: envelope))
        } else if run.transport.exchanges(since: mark).last?.status == 400 {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .copes,
                note: "the server's password rule is stricter than the client's: the user sees the server's refusal")
        } else {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .breaks, note: "the client could not sign up: \(short.brief)")
        }
        await other.signOut()
        await other.stop()

        if signedIn, let advance = hooks.advanceClock {
            let third = client("third")
            let session = await outcome { try await third.signIn(email: email, password: password) }
            let credentials = run.credentials("third")
            let left = credentials?.expiresAt.map { Int(($0 - clock.now).milliseconds / 1000) } ?? 3600
            let seconds = max(60, left + 60)
            if session.isSuccess, let token = credentials?.accessToken.reveal(), await advance(seconds) {
                await run.edge(
                    Self.expiredBearer, HTTPRequest(method: "GET", url: users, headers: ["Authorization": "Bearer \(token)"]), expected: 401,
                    detail: "the server's clock moved \(seconds) s ahead")
                // The client's clock is left behind on purpose: the client still believes its token
                // good, so the server's 401 is what must sign it out.
                mark = run.transport.mark
                let answer = await outcome { try await third.authorized(HTTPRequest(method: "GET", url: users)) }
                let state = await third.authState
                run.record(
                    Self.automaticLogout, since: mark,
                    client: "\(answer.isSuccess ? "answered \(answer.value?.status ?? 0)" : answer.brief), \(state.brief)",
                    verdict: state.isSignedIn ? (answer.value?.status == 200 ? .copes : .breaks) : .conforms,
                    note: state.isSignedIn
                        ? (answer.value?.status == 200 ? "the server accepted the expired token" : "the client stayed signed in after the 401") : "")
                clock.advance(seconds: seconds)
            } else {
                let why = session.isSuccess ? "--clock-command failed (exit status not 0)" : notSignedIn
                run.skip(Self.expiredBearer, why)
                run.skip(Self.automaticLogout, why)
            }
            await third.signOut()
            await third.stop()
        } else {
            let why = signedIn ? "needs: --clock-command" : notSignedIn
            run.skip(Self.expiredBearer, why)
            run.skip(Self.automaticLogout, why)
        }
        await first.stop()
    }

    static func login(_ baseURL: URL, _ body: Data) -> HTTPRequest {
        HTTPRequest(method: "POST", url: baseURL.appendingPathComponent("auth/login"), headers: ["Content-Type": "application/json"], body: body)
    }
}

/// The client's state once the launch's requests have been answered (or after ten seconds); an
/// open realtime connection, when `realtime`, is not waited for (the launch check is).
func settledState<Client: BackendClient>(of client: Client, realtime: Bool = false) async -> AuthState {
    await client.start()
    for _ in 0..<1_000 {
        if await client.runner.inFlight.count <= (realtime ? 1 : 0), await client.authState != .restoring { break }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await client.authState
}
