import AuthCore
import AuthRuntime
import Foundation

/// The probe of an Anonymous Wall server: a code sent by e-mail, registration with it (signed in,
/// the password still to set), setting and changing the password, sign-in by password and by code,
/// the local sign-out, and the reset by code that signs in, through the real `AnonymousWallClient`;
/// then the edge requests. Every code comes from `--code-command`; without it, only the steps
/// that need no account run. Accounts use a school address (`--email-domain`, default `example.edu`).
struct AnonymousWallProbe {
    // MARK: The plan

    static let sendCode = ProbeStep("send a registration code", "200 {message}; client: code sent")
    static let register = ProbeStep("register with the e-mailed code", "201 {accessToken, user}; client: password setup required", needs: [.code])
    static let setPassword = ProbeStep("set the first password", "200 {…user}; client: signed in", needs: [.code])
    static let duplicate = ProbeStep("send a registration code to the registered email", "409; client: the refusal", needs: [.code])
    static let wrongPassword = ProbeStep("sign in with a wrong password", "401; client: the refusal", needs: [.code])
    static let signIn = ProbeStep("sign in with the password", "200 {accessToken, user}; client: signed in", needs: [.code])
    static let changePassword = ProbeStep("change the password (a protected call)", "200; client: done", needs: [.code])
    static let noBearer = ProbeStep("change the password with no bearer", "401")
    static let malformedBearer = ProbeStep("change the password with a malformed bearer", "401")
    static let codeSignIn = ProbeStep("sign in with an e-mailed code", "200 {accessToken, user}; client: signed in", needs: [.code])
    static let signOut = ProbeStep("sign out", "nothing sent (no logout endpoint); client: signed out", needs: [.code])
    static let malformedBody = ProbeStep("password login with a body that is not JSON", "400")
    static let unknownField = ProbeStep("password login with an unknown field", "200 (the field ignored)", needs: [.code])
    static let missingField = ProbeStep("password login without password", "400 or 401")
    static let reset = ProbeStep("reset the password with an e-mailed code", "200 {accessToken, user}; client: signed in at once", needs: [.code])
    static let expiredBearer = ProbeStep("change the password with an expired bearer", "401", needs: [.code, .clock])

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        sendCode, register, setPassword, duplicate, wrongPassword, signIn, changePassword, noBearer, malformedBearer, codeSignIn, signOut,
        malformedBody, unknownField, missingField, reset, expiredBearer,
    ]

    // MARK: A run

    /// The API's base URL (`…/api/v1`).
    let baseURL: URL
    /// The operator's hooks (codes and the clock).
    let hooks: ProbeOperator
    /// The prefix of every account the run creates.
    let prefix: String
    /// The domain of the accounts' addresses (a school's, for this backend).
    var emailDomain = "example.edu"
    /// Makes up the accounts' passwords (a test plants a marker in them).
    var makePassword: @Sendable () -> String = ProbeSecrets.password

    /// Runs the plan against the server and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: "anonymousWall", baseURL: baseURL, hooks: hooks, prefix: prefix) { run in
            await steps(run: run, clock: ShiftedClock(), email: "\(prefix)user@\(emailDomain)")
        }
    }

    /// The steps in order, one block per row as `plan` lists them.
    private func steps(run: ProbeRun, clock: ShiftedClock, email: String) async {
        func client(_ name: String) -> AnonymousWallClient {
            AnonymousWallClient(baseURL: baseURL, vault: run.vault(name), transport: run.transport, clock: clock)
        }
        let change = baseURL.appendingPathComponent("auth/password/change")
        let account = ["accessToken", "user"]
        var password = makePassword()

        let first = client("first")
        var mark = run.transport.mark
        let sent = await outcome { try await first.sendCode(to: email, for: .register) }
        run.record(
            Self.sendCode, since: mark, client: sent.isSuccess ? "code sent" : sent.brief,
            verdict: sent.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
            note: sent.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not ask for a code: \(sent.brief)")

        // Registration needs the code; everything with an account follows from it.
        var registered = false
        var why = hooks.code == nil ? "needs: --code-command" : "needs: a code sent (it failed)"
        if sent.isSuccess, let code = await hooks.code?(email) {
            mark = run.transport.mark
            let result = await outcome { try await first.register(code: code) }
            if case .success(.passwordSetupRequired) = result {
                run.record(
                    Self.register, since: mark, client: result.brief, verdict: run.statusVerdict(since: mark, expected: [201], keys: account),
                    note: run.statusNote(since: mark, expected: [201], keys: account))
            } else {
                run.record(
                    Self.register, since: mark, client: result.brief, verdict: result.isSuccess ? .copes : .breaks,
                    note: result.isSuccess ? "signed in without a password to set" : "the client could not register: \(result.brief)")
            }
            if result.isSuccess {
                mark = run.transport.mark
                let set = await outcome { try await first.setPassword(password) }
                registered = set.isSuccess
                run.record(
                    Self.setPassword, since: mark, client: set.isSuccess ? "password set" : set.brief,
                    verdict: set.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                    note: set.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not set the password: \(set.brief)")
            } else {
                run.skip(Self.setPassword, "needs: the registration (it failed)")
            }
            why = "needs: the registration (it failed)"
        } else {
            if sent.isSuccess && hooks.code != nil { why = "--code-command gave no code (exit status not 0, or nothing printed)" }
            run.skip(Self.register, why)
            run.skip(Self.setPassword, why)
        }
        await first.signOut()

        if registered {
            let elsewhere = client("elsewhere")
            mark = run.transport.mark
            let again = await outcome { try await elsewhere.sendCode(to: email, for: .register) }
            run.record(
                Self.duplicate, since: mark, client: again.isSuccess ? "code sent" : again.brief,
                verdict: again.isSuccess ? .copes : run.statusVerdict(since: mark, expected: [409]),
                note: again.isSuccess ? "the server sends a registration code for a registered email" : run.statusNote(since: mark, expected: [409]))
            await elsewhere.stop()

            mark = run.transport.mark
            let wrong = await outcome { try await first.signIn(email: email, password: password + "-wrong") }
            if wrong.isSuccess {
                await first.signOut()
                run.record(Self.wrongPassword, since: mark, client: wrong.brief, verdict: .breaks, note: "a wrong password signed in")
            } else {
                run.record(
                    Self.wrongPassword, since: mark, client: wrong.brief, verdict: run.statusVerdict(since: mark, expected: [401]),
                    note: run.statusNote(since: mark, expected: [401]))
            }

            mark = run.transport.mark
            let signedIn = await outcome { try await first.signIn(email: email, password: password) }
            let isSignedIn = signedIn.value.map { if case .signedIn = $0 { true } else { false } } == true
            run.record(
                Self.signIn, since: mark, client: signedIn.brief,
                verdict: isSignedIn ? run.statusVerdict(since: mark, expected: [200], keys: account) : .breaks,
                note: isSignedIn ? run.statusNote(since: mark, expected: [200], keys: account) : "the client could not sign in: \(signedIn.brief)")

            if isSignedIn {
                let newPassword = makePassword()
                mark = run.transport.mark
                let changed = await outcome { try await first.changePassword(old: password, new: newPassword) }
                if changed.isSuccess { password = newPassword }
                run.record(
                    Self.changePassword, since: mark, client: changed.isSuccess ? "done" : changed.brief,
                    verdict: changed.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                    note: changed.isSuccess
                        ? run.statusNote(since: mark, expected: [200]) : "the client could not change the password: \(changed.brief)")
            } else {
                run.skip(Self.changePassword, "needs: a session (sign-in failed)")
            }
        } else {
            for step in [Self.duplicate, Self.wrongPassword, Self.signIn, Self.changePassword] { run.skip(step, why) }
        }
        let changeBody = ProbeRun.json(["oldPassword": "probe-old-password", "newPassword": "probe-new-password"])
        await run.edge(Self.noBearer, Self.post(change, changeBody), expected: 401)
        await run.edge(
            Self.malformedBearer, Self.post(change, changeBody, headers: ["Authorization": "Bearer not-a-token", "X-User-Id": "0"]), expected: 401)

        if registered, let code = hooks.code {
            let second = client("second")
            mark = run.transport.mark
            let sentLogin = await outcome { try await second.sendCode(to: email, for: .login) }
            let loginCode = sentLogin.isSuccess ? await code(email) : nil
            let result = await outcome { try await second.signIn(code: loginCode ?? "") }
            let isSignedIn = result.value.map { if case .signedIn = $0 { true } else { false } } == true
            if loginCode == nil {
                run.skip(Self.codeSignIn, sentLogin.isSuccess ? "--code-command gave no code" : "the code was not sent: \(sentLogin.brief)")
            } else {
                run.record(
                    Self.codeSignIn, since: mark, client: result.brief,
                    verdict: isSignedIn ? run.statusVerdict(since: mark, expected: [200], keys: account) : .breaks,
                    note: isSignedIn
                        ? run.statusNote(since: mark, expected: [200], keys: account) : "the client could not sign in by code: \(result.brief)")
            }
            mark = run.transport.mark
            let ended = await second.signOutAndEndServerSession()
            let after = await second.authState
            run.record(
                Self.signOut, since: mark, client: "\(ended.map(ProbeRun.brief) ?? "no server sign-out"), \(after.brief)",
                verdict: after.isSignedIn ? .breaks : .conforms, note: after.isSignedIn ? "still signed in" : "")
            await second.stop()
        } else {
            run.skip(Self.codeSignIn, why)
            run.skip(Self.signOut, why)
        }

        let login = baseURL.appendingPathComponent("auth/login/password")
        await run.edge(Self.malformedBody, Self.post(login, Data("{\"email\": ".utf8)), expected: 400)
        if registered {
            await run.edge(
                Self.unknownField, Self.post(login, ProbeRun.json(["email": email, "password": password, "probeUnknownField": "probe"])),
                expected: 200, refusedIsCoping: "an unknown field is refused")
        } else {
            run.skip(Self.unknownField, why)
        }
        let missing = await run.send(Self.post(login, ProbeRun.json(["email": email])))
        run.record(
            Self.missingField, exchange: missing, verdict: [400, 401].contains(missing.status ?? 0) ? .conforms : .copes,
            note: [400, 401].contains(missing.status ?? 0) ? "" : "answered \(missing.status.map(String.init) ?? "nothing")")

        if registered, let code = hooks.code {
            let third = client("third")
            mark = run.transport.mark
            let requested = await outcome { try await third.requestPasswordReset(email: email) }
            let resetCode = requested.isSuccess ? await code(email) : nil
            let newPassword = makePassword()
            if let resetCode {
                let result = await outcome { try await third.resetPassword(code: resetCode, newPassword: newPassword) }
                let isSignedIn = result.value.map { if case .signedIn = $0 { true } else { false } } == true
                run.record(
                    Self.reset, since: mark, client: result.brief,
                    verdict: isSignedIn ? run.statusVerdict(since: mark, expected: [200], keys: account) : .breaks,
                    note: isSignedIn ? run.statusNote(since: mark, expected: [200], keys: account) : "the reset did not sign in: \(result.brief)")
            } else {
                run.skip(Self.reset, requested.isSuccess ? "--code-command gave no code" : "the code was not sent: \(requested.brief)")
            }
            let stored = run.credentials("third")
            if let advance = hooks.advanceClock, let token = stored?.accessToken.reveal() {
                let left = stored?.expiresAt.map { Int(($0 - clock.now).milliseconds / 1000) } ?? 3600
                let seconds = max(60, left + 60)
                if await advance(seconds) {
                    clock.advance(seconds: seconds)
                    let headers = ["Authorization": "Bearer \(token)", "X-User-Id": stored?.user.id ?? ""]
                    await run.edge(
                        Self.expiredBearer, Self.post(change, changeBody, headers: headers), expected: 401,
                        detail: "the clock moved \(seconds) s ahead")
                } else {
                    run.skip(Self.expiredBearer, "--clock-command failed (exit status not 0)")
                }
            } else {
                run.skip(Self.expiredBearer, hooks.advanceClock == nil ? "needs: --clock-command" : "needs: a session (the reset did not sign in)")
            }
            await third.signOut()
            await third.stop()
        } else {
            run.skip(Self.reset, why)
            run.skip(Self.expiredBearer, why)
        }
        await first.stop()
    }

    static func post(_ url: URL, _ body: Data, headers: [String: String] = [:]) -> HTTPRequest {
        var fields = [("Content-Type", "application/json")]
        fields += headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return HTTPRequest(method: "POST", url: url, headers: HTTPHeaders(fields), body: body)
    }
}
