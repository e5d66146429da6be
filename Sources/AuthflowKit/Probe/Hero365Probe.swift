import AuthCore
import AuthRuntime
import Foundation

/// The probe of a Hero365 server: e-mail sign-up and sign-in, `/users/me`, the session kept across
/// a relaunch, the refresh once the access token expired and the consumed token after it, an SMS
/// code sign-in, an OAuth sign-in, password recovery and the sign-out, through the real
/// `Hero365Client`; then the edge requests.
struct Hero365Probe {
    // MARK: The plan

    static let signUp = ProbeStep("sign up by e-mail", "200 {message}; client: verification required")
    static let duplicate = ProbeStep("sign up with the same e-mail again", "400; client: the refusal")
    static let verification = ProbeStep("verify the e-mail address", "verified", needs: [.approval])
    static let wrongPassword = ProbeStep("sign in with a wrong password", "401; client: the refusal")
    static let signIn = ProbeStep("sign in", "200 {access_token, refresh_token, user}; client: signed in")
    static let currentUser = ProbeStep("the current user (/users/me), with the session's bearer", "200 {email, id, …}; client: the user")
    static let noBearer = ProbeStep("/users/me with no bearer", "401")
    static let malformedBearer = ProbeStep("/users/me with a malformed bearer", "401")
    static let relaunch = ProbeStep("relaunch: restore the stored session", "client: signed in")
    static let expiredBearer = ProbeStep("/users/me with an expired bearer", "401", needs: [.clock])
    static let refresh = ProbeStep(
        "the current user once the access token expired", "200 from /auth/refresh {access_token, refresh_token}, then 200; client: the user",
        needs: [.clock])
    static let consumedRefresh = ProbeStep("refresh with the consumed refresh token", "401 (refused)", needs: [.clock])
    static let signOut = ProbeStep(
        "sign out", "client: signed out at once, then every refresh token of the user revoked (deployed /revoke-tokens/{user_id})")
    static let otp = ProbeStep(
        "sign in with an SMS code", "200 from /auth/otp/send, then 200 {access_token, …}; client: signed in", needs: [.phone, .code])
    static let oauth = ProbeStep("sign in with OAuth (google)", "200 {url}; the callback signs in; client: signed in", needs: [.oauth])
    static let recovery = ProbeStep("ask for password recovery", "200; client: recovery sent")
    static let malformedBody = ProbeStep("sign-in with a body that is not JSON", "400 or 422")
    static let unknownField = ProbeStep("sign-in with an unknown field", "200 (the field ignored)")
    static let missingField = ProbeStep("sign-in without password", "401, 400 or 422")
    static let shortestPassword = ProbeStep("sign up with the shortest password the client accepts", "200 {message}; client: verification required")

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        signUp, duplicate, verification, wrongPassword, signIn, currentUser, noBearer, malformedBearer, relaunch, expiredBearer, refresh,
        consumedRefresh, signOut, otp, oauth, recovery, malformedBody, unknownField, missingField, shortestPassword,
    ]

    // MARK: A run

    /// The API's base URL (`…/api/v1`).
    let baseURL: URL
    /// The operator's hooks.
    let hooks: ProbeOperator
    /// The prefix of every account the run creates.
    let prefix: String
    /// The operator's phone number for the SMS code, if given.
    var phone: String?
    /// Makes up the accounts' passwords (a test plants a marker in them).
    var makePassword: @Sendable () -> String = ProbeSecrets.password

    /// Runs the plan against the server and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: "hero365", baseURL: baseURL, hooks: hooks, prefix: prefix) { run in
            await steps(run: run, clock: ShiftedClock(), email: "\(prefix)user@example.invalid", password: makePassword())
        }
    }

    /// The steps in order, one block per row as `plan` lists them.
    private func steps(run: ProbeRun, clock: ShiftedClock, email: String, password: String) async {
        func client(_ name: String) -> Hero365Client {
            Hero365Client(baseURL: baseURL, vault: run.vault(name), transport: run.transport, clock: clock)
        }
        let me = baseURL.appendingPathComponent("users/me")
        let tokens = ["access_token", "refresh_token", "user"]

        let first = client("first")
        var mark = run.transport.mark
        let registered = await outcome { try await first.signUp(identifier: email, password: password, fullName: "Probe User") }
        run.record(
            Self.signUp, since: mark, client: registered.brief,
            verdict: registered.isSuccess ? run.statusVerdict(since: mark, expected: [200, 201]) : .breaks,
            note: registered.isSuccess ? run.statusNote(since: mark, expected: [200, 201]) : "the client could not sign up: \(registered.brief)")

        let elsewhere = client("elsewhere")
        mark = run.transport.mark
        let again = await outcome { try await elsewhere.signUp(identifier: email, password: password, fullName: "Probe User") }
        if !registered.isSuccess {
            run.skip(Self.duplicate, "needs: the sign-up (it failed)")
        } else if again.isSuccess {
            run.record(
                Self.duplicate, since: mark, client: again.brief, verdict: .copes, note: "the server accepted a second sign-up with the same e-mail")
        } else {
            run.record(
                Self.duplicate, since: mark, client: again.brief, verdict: run.statusVerdict(since: mark, expected: [400, 409, 422]),
                note: run.statusNote(since: mark, expected: [400, 409, 422]))
        }
        await elsewhere.stop()

        if let verify = hooks.approve, registered.isSuccess {
            let verified = await verify(email)
            if verified {
                run.rows.append(ProbeRow(Self.verification, observed: "verified by --approve-command", verdict: .conforms))
            } else {
                run.skip(Self.verification, "--approve-command failed (exit status not 0)")
            }
        } else {
            run.skip(
                Self.verification,
                registered.isSuccess
                    ? "needs: --approve-command (a server that lets unverified accounts sign in needs none)" : "needs: the sign-up (it failed)")
        }

        mark = run.transport.mark
        let wrong = await outcome { try await first.signIn(identifier: email, password: password + "-wrong") }
        if wrong.isSuccess {
            await first.signOut()
            run.record(Self.wrongPassword, since: mark, client: "signedIn", verdict: .breaks, note: "a wrong password signed in")
        } else {
            run.record(
                Self.wrongPassword, since: mark, client: wrong.brief, verdict: run.statusVerdict(since: mark, expected: [400, 401]),
                note: run.statusNote(since: mark, expected: [400, 401]))
        }

        mark = run.transport.mark
        let signedIn = await outcome { try await first.signIn(identifier: email, password: password) }
        run.record(
            Self.signIn, since: mark, client: signedIn.isSuccess ? "signedIn" : signedIn.brief,
            verdict: signedIn.isSuccess ? run.statusVerdict(since: mark, expected: [200], keys: tokens) : .breaks,
            note: signedIn.isSuccess
                ? run.statusNote(since: mark, expected: [200], keys: tokens)
                : "the client could not sign in: \(signedIn.brief)\(hooks.approve == nil ? " (an unverified account? see --approve-command)" : "")")
        let notSignedIn = "needs: a session (sign-in failed)"

        if signedIn.isSuccess {
            mark = run.transport.mark
            let user = await outcome { try await first.fetchCurrentUser() }
            run.record(
                Self.currentUser, since: mark, client: user.isSuccess ? "the user" : user.brief,
                verdict: user.isSuccess ? run.statusVerdict(since: mark, expected: [200], keys: ["id"]) : .breaks,
                note: user.isSuccess ? run.statusNote(since: mark, expected: [200], keys: ["id"]) : "the client could not read the user")
        } else {
            run.skip(Self.currentUser, notSignedIn)
        }
        await run.edge(Self.noBearer, HTTPRequest(method: "GET", url: me), expected: 401)
        await run.edge(Self.malformedBearer, HTTPRequest(method: "GET", url: me, headers: ["Authorization": "Bearer not-a-token"]), expected: 401)

        if signedIn.isSuccess {
            await first.stop()
            let relaunched = client("first")
            mark = run.transport.mark
            let state = await settledState(of: relaunched)
            run.record(
                Self.relaunch, since: mark, client: state.brief, verdict: state.isSignedIn ? .conforms : .breaks,
                note: state.isSignedIn ? "" : "the stored session was not restored")
            let stored = run.credentials("first")
            if let advance = hooks.advanceClock, let access = stored?.accessToken.reveal(), let consumed = stored?.refreshToken?.reveal() {
                let left = stored?.expiresAt.map { Int(($0 - clock.now).milliseconds / 1000) } ?? 3600
                let seconds = max(60, left + 60)
                if await advance(seconds) {
                    clock.advance(seconds: seconds)
                    await run.edge(
                        Self.expiredBearer, HTTPRequest(method: "GET", url: me, headers: ["Authorization": "Bearer \(access)"]), expected: 401,
                        detail: "the clock moved \(seconds) s ahead")
                    mark = run.transport.mark
                    let user = await outcome { try await relaunched.fetchCurrentUser() }
                    let refreshed = run.transport.exchanges(since: mark).contains { $0.path == "/auth/refresh" && $0.status == 200 }
                    run.record(
                        Self.refresh, since: mark, client: user.isSuccess ? "the user" : user.brief,
                        verdict: user.isSuccess && refreshed ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                        note: user.isSuccess && refreshed
                            ? run.statusNote(since: mark, expected: [200]) : "the expired session was not refreshed: \(user.brief)")
                    let reuse = await run.send(
                        HTTPRequest(
                            method: "POST", url: baseURL.appendingPathComponent("auth/refresh"), headers: ["Content-Type": "application/json"],
                            body: ProbeRun.json(["refresh_token": consumed])))
                    run.recordRefusal(
                        Self.consumedRefresh, exchange: reuse,
                        ifAccepted: "a consumed refresh token still refreshes: a copied one is as good as the live one")
                } else {
                    for step in [Self.expiredBearer, Self.refresh, Self.consumedRefresh] {
                        run.skip(step, "--clock-command failed (exit status not 0)")
                    }
                }
            } else {
                let why = hooks.advanceClock == nil ? "needs: --clock-command" : "needs: stored tokens"
                for step in [Self.expiredBearer, Self.refresh, Self.consumedRefresh] { run.skip(step, why) }
            }
            mark = run.transport.mark
            let ended = await relaunched.signOutAndEndServerSession()
            let after = await relaunched.authState
            run.record(
                Self.signOut, since: mark, client: "\(ended.map(ProbeRun.brief) ?? "no server sign-out"), \(after.brief)",
                verdict: after.isSignedIn ? .breaks : .conforms,
                note: after.isSignedIn ? "still signed in" : ended == .ended ? "" : "the server session was not confirmed ended")
            await relaunched.stop()
        } else {
            for step in [Self.relaunch, Self.expiredBearer, Self.refresh, Self.consumedRefresh, Self.signOut] { run.skip(step, notSignedIn) }
        }

        if let phone, let code = hooks.code {
            let texted = client("phone")
            mark = run.transport.mark
            let sent = await outcome { try await texted.sendOTP(to: phone) }
            let otp = sent.isSuccess ? await code(phone) : nil
            if let otp {
                let user = await outcome { try await texted.verifyOTP(code: otp) }
                _ = await settledState(of: texted)  // An OTP grant may be exchanged at once: its refresh belongs to this row.
                run.record(
                    Self.otp, since: mark, client: user.isSuccess ? "signedIn" : user.brief,
                    verdict: user.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                    note: user.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not sign in with the code: \(user.brief)")
            } else {
                run.skip(Self.otp, sent.isSuccess ? "--code-command gave no code" : "the code was not sent: \(sent.brief)")
            }
            await texted.signOutAndEndServerSession()
            await texted.stop()
        } else {
            run.skip(Self.otp, phone == nil ? "needs: --phone (the operator's) and --code-command" : "needs: --code-command")
        }

        if let follow = hooks.oauth {
            let browser = client("oauth")
            mark = run.transport.mark
            let url = await outcome { try await browser.oauthURL(for: .google) }
            let callback = await url.value.asyncMap { await follow($0.absoluteString) } ?? nil
            if let callback, let callbackURL = URL(string: callback) {
                let user = await outcome { try await browser.completeOAuth(callback: callbackURL) }
                _ = await settledState(of: browser)
                run.record(
                    Self.oauth, since: mark, client: user.isSuccess ? "signedIn" : user.brief,
                    verdict: user.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                    note: user.isSuccess
                        ? run.statusNote(since: mark, expected: [200]) : "the client could not sign in with the callback: \(user.brief)")
            } else {
                run.skip(Self.oauth, url.isSuccess ? "--oauth-command gave no callback URL" : "no authorization URL: \(url.brief)")
            }
            await browser.signOutAndEndServerSession()
            await browser.stop()
        } else {
            run.skip(Self.oauth, "needs: --oauth-command")
        }

        let other = client("other")
        mark = run.transport.mark
        let recovery = await outcome { try await other.recoverPassword(email: email) }
        run.record(
            Self.recovery, since: mark, client: recovery.isSuccess ? "recovery sent" : recovery.brief,
            verdict: recovery.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
            note: recovery.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not ask for recovery: \(recovery.brief)")

        let signin = baseURL.appendingPathComponent("auth/signin")
        func post(_ body: Data) -> HTTPRequest {
            HTTPRequest(method: "POST", url: signin, headers: ["Content-Type": "application/json"], body: body)
        }
        let malformed = await run.send(post(Data("{\"email\": ".utf8)))
        run.record(
            Self.malformedBody, exchange: malformed, verdict: [400, 422].contains(malformed.status ?? 0) ? .conforms : .copes,
            note: [400, 422].contains(malformed.status ?? 0) ? "" : "answered \(malformed.status.map(String.init) ?? "nothing")")
        await run.edge(
            Self.unknownField, post(ProbeRun.json(["email": email, "password": password, "probeUnknownField": "probe"])), expected: 200,
            refusedIsCoping: "an unknown field is refused")
        let missing = await run.send(post(ProbeRun.json(["email": email])))
        run.record(
            Self.missingField, exchange: missing, verdict: [400, 401, 422].contains(missing.status ?? 0) ? .conforms : .copes,
            note: [400, 401, 422].contains(missing.status ?? 0) ? "" : "answered \(missing.status.map(String.init) ?? "nothing")")

        mark = run.transport.mark
        let short = await outcome {
            try await other.signUp(identifier: "\(prefix)short@example.invalid", password: ProbeSecrets.shortestPassword(), fullName: "Probe Short")
        }
        if short.isSuccess {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: run.statusVerdict(since: mark, expected: [200, 201]),
                note: run.statusNote(since: mark, expected: [200, 201]))
        } else if [400, 422].contains(run.transport.exchanges(since: mark).last?.status ?? 0) {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .copes,
                note: "the server's password rule is stricter than the client's: the user sees the server's refusal")
        } else {
            run.record(
                Self.shortestPassword, since: mark, client: short.brief, verdict: .breaks, note: "the client could not sign up: \(short.brief)")
        }
        await other.stop()
        await first.stop()
    }
}

extension Optional {
    /// `transform` of the value, awaited, or `nil`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async -> T) async -> T? {
        guard let self else { return nil }
        return await transform(self)
    }
}
