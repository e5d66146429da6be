import AuthCore
import AuthRuntime
import Foundation

/// The probe of an Everday server: every lifecycle its document describes (approval-gated
/// registration, sign-in, rotating refresh on launch, sign-out, forgot and reset) through the real
/// `EverdayClient`, then the edge requests a client depends on, sent as raw requests where the
/// client cannot express them. It also covers what the deployed server adds: the password change
/// (a wrong current password, the change, the refresh token it revoked), the pending-approval
/// refresh (with the operator's withdrawal of the approval) and the lockout after failed logins,
/// tried on an account of its own so the main one is never locked.
struct EverdayProbe {
    // MARK: The plan

    static let register = ProbeStep("register a new account", "200 {Status: PendingApproval}; client: pending approval")
    static let duplicate = ProbeStep("register the same username again", "409; client: the refusal")
    static let pendingSignIn = ProbeStep("sign in before approval", "403 pending approval; client: pending approval")
    static let approval = ProbeStep("a parent approves the account", "approved", needs: [.approval])
    static let wrongPassword = ProbeStep("sign in with a wrong password", "401; client: the refusal", needs: [.approval])
    static let signIn = ProbeStep(
        "sign in", "200 {AccessToken, ExpiresIn, RefreshToken, Username, …}; client: signed in, tokens stored", needs: [.approval])
    static let protectedCall = ProbeStep(
        "a protected call with the session's bearer", "not 401 (403: a kid is no parent); client: the answer", needs: [.approval])
    static let noBearer = ProbeStep("a protected call with no bearer", "401")
    static let malformedBearer = ProbeStep("a protected call with a malformed bearer", "401")
    static let launchRefresh = ProbeStep(
        "relaunch: refresh the stored session", "200 with a new RefreshToken; client: signed in, the successor stored", needs: [.approval])
    static let consumedRefresh = ProbeStep("refresh with the consumed refresh token", "401 (refused)", needs: [.approval])
    static let familyRevoked = ProbeStep(
        "refresh with its successor, after that reuse", "401 (the reuse revoked the family)", needs: [.approval])
    static let signOut = ProbeStep("sign out", "200; client: signed out, server session ended", needs: [.approval])
    static let refreshAfterSignOut = ProbeStep("refresh with the signed-out refresh token", "401 (revoked at logout)", needs: [.approval])
    static let expiredBearer = ProbeStep("a protected call with an expired bearer", "401", needs: [.approval, .clock])
    static let expiredSignOut = ProbeStep(
        "sign out with an expired access token", "client: server session ended (refreshing first)", needs: [.approval, .clock])
    static let malformedBody = ProbeStep("login with a body that is not JSON", "400")
    static let unknownField = ProbeStep("login with an unknown field", "200 (the field ignored)", needs: [.approval])
    static let missingField = ProbeStep("login without Password", "400")
    static let shortestPassword = ProbeStep(
        "register with the shortest password the client accepts", "200 {Status: PendingApproval}; client: pending approval")
    static let wrongCurrentPassword = ProbeStep(
        "change the password with a wrong current password", "401 Invalid credentials; client: incorrect password, still signed in",
        needs: [.approval])
    static let changePassword = ProbeStep(
        "change the password", "200 {status: ok}; client: the session ended, signed in again with the new password", needs: [.approval])
    static let refreshAfterChange = ProbeStep(
        "refresh with the refresh token from before the change", "401 (the change revoked every refresh token)", needs: [.approval])
    static let pendingRefresh = ProbeStep(
        "relaunch after the approval was withdrawn: refresh", "403 pending approval; client: signed out, the vault cleared",
        needs: [.approval, .withdrawal])
    static let lockout = ProbeStep(
        "five wrong passwords on a new account, then the right one",
        "401 five times, then 200 (the document locks nothing; a lockout's 403 is read as forbidden, with its message)", needs: [.approval])
    static let forgot = ProbeStep("ask for a password reset", "200; client: reset sent")
    static let reset = ProbeStep("reset the password with the e-mailed token", "200; client: done", needs: [.code])
    static let signInAfterReset = ProbeStep("sign in with the new password", "200; client: signed in", needs: [.approval, .code])

    /// Every step, in the order a run takes them.
    static let plan: [ProbeStep] = [
        register, duplicate, pendingSignIn, approval, wrongPassword, signIn, protectedCall, noBearer, malformedBearer, launchRefresh,
        consumedRefresh, familyRevoked, signOut, refreshAfterSignOut, malformedBody, unknownField, missingField, shortestPassword,
        expiredBearer, expiredSignOut, wrongCurrentPassword, changePassword, refreshAfterChange, pendingRefresh, lockout, forgot, reset,
        signInAfterReset,
    ]

    // MARK: A run

    /// The API's base URL (`…/api`).
    let baseURL: URL
    /// The operator's hooks.
    let hooks: ProbeOperator
    /// The prefix of every account the run creates.
    let prefix: String
    /// Makes up the accounts' passwords (a test plants a marker in them).
    var makePassword: @Sendable () -> String = ProbeSecrets.password

    /// Runs the plan against the server and returns the findings.
    func run() async -> ProbeReport {
        await ProbeRun.report(backend: "everday", baseURL: baseURL, hooks: hooks, prefix: prefix) { run in
            let kid = prefix + "kid"
            let steps = EverdaySteps(
                baseURL: baseURL, hooks: hooks, run: run, clock: ShiftedClock(), prefix: prefix, kid: kid, email: "\(kid)@example.invalid",
                password: makePassword(), makePassword: makePassword)
            await steps.all()
        }
    }

    // MARK: Raw requests

    static func refresh(_ baseURL: URL, _ token: String) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: baseURL.appendingPathComponent("auth/refresh"), headers: ["Content-Type": "application/json"],
            body: ProbeRun.json(["RefreshToken": token]))
    }

    static func login(_ baseURL: URL, _ body: Data) -> HTTPRequest {
        HTTPRequest(method: "POST", url: baseURL.appendingPathComponent("auth/login"), headers: ["Content-Type": "application/json"], body: body)
    }
}

/// One run of ``EverdayProbe``'s plan: the account, the clients' folder and clock, and a phase per
/// group of rows, in the order `plan` lists them. A phase whose prerequisite failed (or needs an
/// absent operator hook) records its rows as skipped, with the reason.
private struct EverdaySteps {
    typealias Probe = EverdayProbe

    /// How far the account got: what the later phases need.
    struct Progress {
        /// Whether the operator can approve.
        let canApprove: Bool
        var registered = false
        var approved = false
        var signedIn = false

        /// Why a step needing an approved account is skipped.
        var unapproved: String {
            registered ? (canApprove ? "needs: the approval (it failed)" : "needs: --approve-command") : "needs: the registration (it failed)"
        }

        /// Why a step needing a session is skipped.
        var notSignedIn: String { approved ? "needs: a session (sign-in failed)" : unapproved }
    }

    let baseURL: URL
    let hooks: ProbeOperator
    let run: ProbeRun
    let clock: ShiftedClock
    let prefix: String
    let kid: String
    let email: String
    let password: String
    let makePassword: @Sendable () -> String

    /// A protected endpoint every account may call and none may use: approving no one, as a kid.
    var probeTarget: URL { baseURL.appendingPathComponent("settings/users/0/approve") }

    /// A client keeping its session in the run's vault named `name`.
    func client(_ name: String) -> EverdayClient {
        EverdayClient(baseURL: baseURL, vault: run.vault(name), transport: run.transport, clock: clock)
    }

    /// What the vault `name` holds now.
    func credentials(_ name: String) -> Credentials? { run.credentials(name) }

    /// Every phase, in order.
    func all() async {
        let first = client("first")
        var progress = Progress(canApprove: hooks.approve != nil)
        await registration(first, &progress)
        await signIn(first, &progress)
        await bearers(first, progress)
        await rotation(first, progress)
        await signOut(progress)
        await bodies(progress)
        await passwordRule()
        await expiry(progress)
        let current = await passwordChange(progress)
        await pendingRefresh(progress, password: current)
        await lockout(progress)
        await reset(progress)
        await first.stop()
    }

    /// Registration, a duplicate, a sign-in before approval, and the operator's approval.
    private func registration(_ first: EverdayClient, _ progress: inout Progress) async {
        var mark = run.transport.mark
        let registered = await outcome { try await first.register(username: kid, password: password, email: email) }
        progress.registered = registered.map { if case .pendingApproval = $0 { true } else { false } }.value == true
        run.record(
            Probe.register, since: mark, client: registered.brief,
            verdict: progress.registered ? run.statusVerdict(since: mark, expected: [200], keys: ["Status"]) : .breaks,
            note: progress.registered ? run.statusNote(since: mark, expected: [200]) : "the client could not register: \(registered.brief)")

        // A fresh client, as a second device would be: the first is waiting for the approval.
        let elsewhere = client("elsewhere")
        mark = run.transport.mark
        let again = await outcome { try await elsewhere.register(username: kid, password: password, email: email) }
        await elsewhere.stop()
        if !progress.registered {
            run.skip(Probe.duplicate, "needs: the registration (it failed)")
        } else if case .success = again {
            run.record(
                Probe.duplicate, since: mark, client: again.brief, verdict: .copes,
                note: "the server accepted a second registration of the same username")
        } else {
            run.record(
                Probe.duplicate, since: mark, client: again.brief, verdict: run.statusVerdict(since: mark, expected: [409]),
                note: run.statusNote(since: mark, expected: [409]))
        }

        mark = run.transport.mark
        let early = await outcome { try await first.signIn(username: kid, password: password) }
        if !progress.registered {
            run.skip(Probe.pendingSignIn, "needs: the registration (it failed)")
        } else if case .success(.pendingApproval) = early {
            run.record(
                Probe.pendingSignIn, since: mark, client: early.brief, verdict: run.statusVerdict(since: mark, expected: [403]),
                note: run.statusNote(since: mark, expected: [403]))
        } else if case .success = early {
            await first.signOutAndEndServerSession()
            run.record(
                Probe.pendingSignIn, since: mark, client: early.brief, verdict: .copes, note: "the server let an progress.unapproved account sign in")
        } else {
            run.record(
                Probe.pendingSignIn, since: mark, client: early.brief, verdict: .breaks,
                note: "the client did not recognise the pending approval: \(early.brief)")
        }

        if !progress.registered {
            run.skip(Probe.approval, "needs: the registration (it failed)")
        } else if let approve = hooks.approve {
            progress.approved = await approve(kid)
            if progress.approved {
                run.rows.append(ProbeRow(Probe.approval, observed: "approved by --approve-command", verdict: .conforms))
            } else {
                run.skip(Probe.approval, "--approve-command failed (exit status not 0)")
            }
        } else {
            run.skip(Probe.approval, "needs: --approve-command")
        }
    }

    /// A wrong password, then the sign-in.
    private func signIn(_ first: EverdayClient, _ progress: inout Progress) async {
        if progress.approved {
            var mark = run.transport.mark
            let wrong = await outcome { try await first.signIn(username: kid, password: password + "-wrong") }
            if case .success = wrong {
                await first.signOutAndEndServerSession()
                run.record(Probe.wrongPassword, since: mark, client: wrong.brief, verdict: .breaks, note: "a wrong password signed in")
            } else {
                run.record(
                    Probe.wrongPassword, since: mark, client: wrong.brief, verdict: run.statusVerdict(since: mark, expected: [401]),
                    note: run.statusNote(since: mark, expected: [401]))
            }

            mark = run.transport.mark
            let result = await outcome { try await first.signIn(username: kid, password: password) }
            if case .success(.signedIn) = result {
                progress.signedIn = true
                run.record(
                    Probe.signIn, since: mark, client: result.brief,
                    verdict: run.statusVerdict(since: mark, expected: [200], keys: ["AccessToken", "RefreshToken", "ExpiresIn"]),
                    note: run.statusNote(since: mark, expected: [200], keys: ["AccessToken", "RefreshToken", "ExpiresIn"]))
            } else {
                run.record(
                    Probe.signIn, since: mark, client: result.brief, verdict: .breaks,
                    note: "the client could not sign in with the server's answer: \(result.brief)")
            }
        } else {
            run.skip(Probe.wrongPassword, progress.unapproved)
            run.skip(Probe.signIn, progress.unapproved)
        }
    }

    /// A protected call with the session's bearer, then the bearers the client never sends.
    private func bearers(_ first: EverdayClient, _ progress: Progress) async {
        if progress.signedIn {
            let mark = run.transport.mark
            let answer = await outcome { try await first.authorized(HTTPRequest(method: "PUT", url: probeTarget)) }
            let status = (try? answer.get())?.status
            run.record(
                Probe.protectedCall, since: mark, client: status.map { "answered \($0)" } ?? answer.brief,
                verdict: status.map { $0 == 401 ? .breaks : [403, 404].contains($0) ? .conforms : .copes } ?? .breaks,
                note: status.map { $0 == 401 ? "the session's own bearer was refused" : [403, 404].contains($0) ? "" : "answered \($0)" }
                    ?? "the client got no answer: \(answer.brief)")
        } else {
            run.skip(Probe.protectedCall, progress.notSignedIn)
        }
        await run.edge(Probe.noBearer, HTTPRequest(method: "PUT", url: probeTarget), expected: 401)
        await run.edge(
            Probe.malformedBearer, HTTPRequest(method: "PUT", url: probeTarget, headers: ["Authorization": "Bearer not-a-token"]), expected: 401)

    }

    /// A relaunch refreshes; the consumed token and the reuse.
    private func rotation(_ first: EverdayClient, _ progress: Progress) async {
        if progress.signedIn {
            let consumed = credentials("first")?.refreshToken?.reveal()
            await first.stop()
            let relaunched = client("first")
            let mark = run.transport.mark
            let state = await settledState(of: relaunched)
            let successor = credentials("first")?.refreshToken?.reveal()
            let refreshed = run.transport.exchanges(since: mark).contains { $0.path == "/auth/refresh" }
            if !state.isSignedIn || successor == nil || !refreshed {
                run.record(
                    Probe.launchRefresh, since: mark, client: "\(state.brief)", verdict: .breaks,
                    note: refreshed ? "the stored session did not survive the refresh" : "the client did not refresh at launch")
            } else if successor == consumed {
                run.record(Probe.launchRefresh, since: mark, client: state.brief, verdict: .copes, note: "the refresh token was not rotated")
            } else {
                run.record(
                    Probe.launchRefresh, since: mark, client: state.brief,
                    verdict: run.statusVerdict(since: mark, expected: [200], keys: ["RefreshToken"]),
                    note: run.statusNote(since: mark, expected: [200], keys: ["RefreshToken"]))
            }
            await relaunched.stop()
            if let consumed, let successor, consumed != successor {
                let reuse = await run.send(Probe.refresh(baseURL, consumed))
                run.record(
                    Probe.consumedRefresh, exchange: reuse,
                    verdict: reuse.status == 401 ? .conforms : reuse.status.map { (200..<300).contains($0) } == true ? .breaks : .copes,
                    note: reuse.status == 401
                        ? ""
                        : reuse.status.map { (200..<300).contains($0) } == true
                            ? "a consumed refresh token still refreshes: a copied one is as good as the live one"
                            : "answered \(reuse.status.map(String.init) ?? "nothing")")
                let after = await run.send(Probe.refresh(baseURL, successor))
                run.record(
                    Probe.familyRevoked, exchange: after, verdict: after.status == 401 ? .conforms : .copes,
                    note: after.status == 401 ? "" : "the reuse did not revoke its successor (the client never reuses a token)")
            } else {
                run.skip(Probe.consumedRefresh, "needs: a rotated refresh token")
                run.skip(Probe.familyRevoked, "needs: a rotated refresh token")
            }
        } else {
            for step in [Probe.launchRefresh, Probe.consumedRefresh, Probe.familyRevoked] { run.skip(step, progress.notSignedIn) }
        }

    }

    /// Sign-out, then the signed-out refresh token.
    private func signOut(_ progress: Progress) async {
        if progress.signedIn {
            let second = client("second")
            let mark = run.transport.mark
            let session = await outcome { try await second.signIn(username: kid, password: password) }
            let token = credentials("second")?.refreshToken?.reveal()
            let ended = await second.signOutAndEndServerSession()
            let state = await second.authState
            let kept = ended == .ended && !state.isSignedIn
            run.record(
                Probe.signOut, since: mark, client: "\(session.brief), then \(ended.map(ProbeRun.brief) ?? "no server sign-out"), \(state.brief)",
                verdict: kept ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                note: kept ? run.statusNote(since: mark, expected: [200]) : "the server session was not ended")
            if let token {
                let after = await run.send(Probe.refresh(baseURL, token))
                run.recordRefusal(
                    Probe.refreshAfterSignOut, exchange: after, ifAccepted: "the refresh token outlived the sign-out the client reported as ended")
            } else {
                run.skip(Probe.refreshAfterSignOut, "needs: a stored refresh token")
            }
            await second.stop()
        } else {
            run.skip(Probe.signOut, progress.notSignedIn)
            run.skip(Probe.refreshAfterSignOut, progress.notSignedIn)
        }

    }

    /// Bodies the client never sends.
    private func bodies(_ progress: Progress) async {
        await run.edge(Probe.malformedBody, Probe.login(baseURL, Data("{\"Username\": ".utf8)), expected: 400)
        if progress.approved {
            let body = ["Username": kid, "Password": password, "ProbeUnknownField": "probe"]
            await run.edge(
                Probe.unknownField, Probe.login(baseURL, ProbeRun.json(body)), expected: 200, refusedIsCoping: "an unknown field is refused")
        } else {
            run.skip(Probe.unknownField, progress.unapproved)
        }
        await run.edge(Probe.missingField, Probe.login(baseURL, ProbeRun.json(["Username": kid])), expected: 400)

    }

    /// The shortest password the client accepts, on a second account.
    private func passwordRule() async {
        let shortest = ProbeSecrets.shortestPassword()
        let other = client("other")
        let mark = run.transport.mark
        let short = await outcome { () async throws(AuthError) in
            try await other.register(username: prefix + "short", password: shortest, email: "\(prefix)short@example.invalid")
        }
        if case .success(.pendingApproval) = short {
            run.record(
                Probe.shortestPassword, since: mark, client: short.brief, verdict: run.statusVerdict(since: mark, expected: [200], keys: ["Status"]),
                note: run.statusNote(since: mark, expected: [200], keys: ["Status"]))
        } else if run.transport.exchanges(since: mark).last?.status == 400 {
            run.record(
                Probe.shortestPassword, since: mark, client: short.brief, verdict: .copes,
                note: "the server's password rule is stricter than the client's: the user sees the server's refusal")
        } else {
            run.record(
                Probe.shortestPassword, since: mark, client: short.brief, verdict: .breaks, note: "the client could not register: \(short.brief)")
        }
        await other.stop()

    }

    /// Expiry, with the operator's clock.
    private func expiry(_ progress: Progress) async {
        if progress.signedIn, let advance = hooks.advanceClock {
            let third = client("third")
            var mark = run.transport.mark
            let session = await outcome { try await third.signIn(username: kid, password: password) }
            let credentials = credentials("third")
            let left = credentials?.expiresAt.map { Int(($0 - clock.now).milliseconds / 1000) } ?? 1800
            let seconds = max(60, left + 60)
            if case .success = session, let bearer = credentials?.accessToken.reveal(), await advance(seconds) {
                clock.advance(seconds: seconds)
                await run.edge(
                    Probe.expiredBearer, HTTPRequest(method: "PUT", url: probeTarget, headers: ["Authorization": "Bearer \(bearer)"]), expected: 401,
                    detail: "the clock moved \(seconds) s ahead")
                mark = run.transport.mark
                let ended = await third.signOutAndEndServerSession()
                run.record(
                    Probe.expiredSignOut, since: mark, client: ended.map(ProbeRun.brief) ?? "no server sign-out",
                    verdict: ended == .ended ? .conforms : .breaks,
                    note: ended == .ended ? "" : "with its access token expired, the sign-out did not end the server session")
            } else {
                let why = session.isSuccess ? "--clock-command failed (exit status not 0)" : "needs: a session (sign-in failed)"
                run.skip(Probe.expiredBearer, why)
                run.skip(Probe.expiredSignOut, why)
            }
            await third.stop()
        } else {
            let why = progress.signedIn ? "needs: --clock-command" : progress.notSignedIn
            run.skip(Probe.expiredBearer, why)
            run.skip(Probe.expiredSignOut, why)
        }

    }

    /// The deployed server's password change, on the main account: a wrong current password,
    /// the change, then the refresh token held before it. Returns the account's password after.
    private func passwordChange(_ progress: Progress) async -> String {
        let steps = [Probe.wrongCurrentPassword, Probe.changePassword, Probe.refreshAfterChange]
        guard progress.signedIn else {
            for step in steps { run.skip(step, progress.notSignedIn) }
            return password
        }
        let fifth = client("fifth")
        let after = await passwordChange(fifth, steps)
        await fifth.stop()
        return after
    }

    private func passwordChange(_ fifth: EverdayClient, _ steps: [ProbeStep]) async -> String {
        var mark = run.transport.mark
        let session = await outcome { try await fifth.signIn(username: kid, password: password) }
        guard case .success(.signedIn) = session, let before = credentials("fifth")?.refreshToken?.reveal() else {
            for step in steps { run.skip(step, "needs: a session (sign-in failed: \(session.brief))") }
            return password
        }
        let newPassword = makePassword()
        mark = run.transport.mark
        let wrong = await outcome { try await fifth.changePassword(old: password + "-wrong", new: newPassword) }
        let changeStatus = run.transport.exchanges(since: mark).first { $0.path.hasSuffix("/auth/change-password") }?.status
        if changeStatus == 404 || changeStatus == 405 {
            run.record(
                Probe.wrongCurrentPassword, since: mark, client: wrong.brief, verdict: .copes,
                note: "the server has no change-password (the document has none): the client reports the refusal")
            run.skip(Probe.changePassword, "needs: a change-password endpoint")
            run.skip(Probe.refreshAfterChange, "needs: a change-password endpoint")
            await fifth.signOutAndEndServerSession()
            return password
        }
        let kept = await fifth.authState.isSignedIn
        if case .failure(.server(.incorrectPassword)) = wrong, kept {
            run.record(
                Probe.wrongCurrentPassword, since: mark, client: "\(wrong.brief), still signed in",
                verdict: run.statusVerdict(since: mark, expected: [401]), note: run.statusNote(since: mark, expected: [401]))
        } else {
            run.record(
                Probe.wrongCurrentPassword, since: mark, client: "\(wrong.brief), \(kept ? "still signed in" : "signed out")", verdict: .breaks,
                note: wrong.isSuccess
                    ? "a wrong current password changed the password" : "the client did not read a wrong current password, keeping the session")
            if wrong.isSuccess { return newPassword }
        }

        mark = run.transport.mark
        let changed = await outcome { try await fifth.changePassword(old: password, new: newPassword) }
        let changedStatus = run.transport.exchanges(since: mark).first { $0.path.hasSuffix("/auth/change-password") }?.status
        guard changedStatus.map({ (200..<300).contains($0) }) == true else {
            run.record(
                Probe.changePassword, since: mark, client: changed.brief, verdict: .breaks,
                note: "the change was refused: answered \(changedStatus.map(String.init) ?? "nothing")")
            run.skip(Probe.refreshAfterChange, "needs: the change (it failed)")
            await fifth.signOutAndEndServerSession()
            return password
        }
        if case .success(.signedIn) = changed {
            run.record(
                Probe.changePassword, since: mark, client: "\(changed.brief) again",
                verdict: run.statusVerdict(since: mark, expected: [200]), note: run.statusNote(since: mark, expected: [200]))
        } else {
            run.record(
                Probe.changePassword, since: mark, client: changed.brief, verdict: .breaks,
                note: "the password changed, but the client did not sign in again with the new one: \(changed.brief)")
        }
        let after = await run.send(Probe.refresh(baseURL, before))
        run.recordRefusal(
            Probe.refreshAfterChange, exchange: after,
            ifAccepted: "a refresh token from before the change still refreshes: the client told the user every session ended")
        return newPassword
    }

    /// The pending-approval refresh: a signed-in account whose approval the operator withdraws,
    /// relaunched. The approval is given back afterwards, for the steps that follow.
    private func pendingRefresh(_ progress: Progress, password: String) async {
        guard progress.signedIn else { return run.skip(Probe.pendingRefresh, progress.notSignedIn) }
        guard let withdraw = hooks.withdrawApproval, let approve = hooks.approve else {
            return run.skip(Probe.pendingRefresh, "needs: --unapprove-command")
        }
        let sixth = client("sixth")
        let session = await outcome { try await sixth.signIn(username: kid, password: password) }
        await sixth.stop()
        guard case .success(.signedIn) = session else {
            return run.skip(Probe.pendingRefresh, "needs: a session (sign-in failed: \(session.brief))")
        }
        guard await withdraw(kid) else {
            let again = client("sixth")
            _ = await settledState(of: again)
            await again.signOutAndEndServerSession()
            await again.stop()
            return run.skip(Probe.pendingRefresh, "--unapprove-command failed (exit status not 0)")
        }
        let relaunched = client("sixth")
        let mark = run.transport.mark
        let state = await settledState(of: relaunched)
        await relaunched.stop()
        let restored = await approve(kid)
        let status = run.transport.exchanges(since: mark).first { $0.path == "/auth/refresh" }?.status
        let cleared = credentials("sixth") == nil
        let note = restored ? "" : "; the approval could not be given back (--approve-command failed)"
        if status == 403, !state.isSignedIn, cleared {
            run.record(
                Probe.pendingRefresh, since: mark, client: "\(state.brief), vault cleared", verdict: restored ? .conforms : .copes,
                note: note.isEmpty ? "" : String(note.dropFirst(2)))
        } else if status.map({ (200..<300).contains($0) }) == true {
            run.record(
                Probe.pendingRefresh, since: mark, client: state.brief, verdict: .copes,
                note: "the server renewed the session of an account pending approval (the document says 403)" + note)
        } else {
            run.record(
                Probe.pendingRefresh, since: mark, client: "\(state.brief)\(cleared ? ", vault cleared" : "")",
                verdict: state.isSignedIn || !cleared ? .breaks : .copes,
                note: (state.isSignedIn || !cleared
                    ? "a refused refresh at launch left the session in place"
                    : "answered \(status.map(String.init) ?? "nothing") where the document says 403") + note)
        }
    }

    /// The lockout, on an account of its own: five wrong passwords, then the right one. The
    /// document locks nothing; a server that locks answers 403 (`Account locked. Try again
    /// later.`), which the client must read as a refusal with the server's message, not as
    /// pending approval, and not as a session.
    private func lockout(_ progress: Progress) async {
        guard let approve = hooks.approve else { return run.skip(Probe.lockout, "needs: --approve-command") }
        guard progress.registered else { return run.skip(Probe.lockout, "needs: the registration (it failed)") }
        let name = prefix + "lock"
        let locked = client("lock")
        var mark = run.transport.mark
        let registered = await outcome { () async throws(AuthError) in
            try await locked.register(username: name, password: password, email: "\(name)@example.invalid")
        }
        guard case .success(.pendingApproval) = registered, await approve(name) else {
            await locked.stop()
            return run.record(
                Probe.lockout, since: mark, client: registered.brief, verdict: .breaks,
                note: "the account for the lockout could not be registered and approved")
        }
        mark = run.transport.mark
        await lockout(locked, name, since: mark)
        await locked.stop()
    }

    private func lockout(_ locked: EverdayClient, _ name: String, since mark: Int) async {
        var wrong: [Result<SignInResult, AuthError>] = []
        for _ in 0..<5 { wrong.append(await outcome { try await locked.signIn(username: name, password: password + "-wrong") }) }
        let right = await outcome { try await locked.signIn(username: name, password: password) }
        let failures = wrong.filter { if case .failure(.server(.unauthorized)) = $0 { true } else { false } }.count
        let observed = "\(failures) of 5 refused as wrong credentials, then \(right.brief)"
        switch right {
        case .success(.signedIn):
            await locked.signOutAndEndServerSession()
            let fine = failures == 5
            run.record(
                Probe.lockout, since: mark, client: observed, verdict: fine ? run.statusVerdict(since: mark, expected: [200, 401]) : .breaks,
                note: fine ? run.statusNote(since: mark, expected: [200, 401]) : "a wrong password was not refused as wrong credentials")
        case .failure(.server(.forbidden(let message))) where !(message ?? "").isEmpty:
            run.record(
                Probe.lockout, since: mark, client: "\(observed), the server's message shown", verdict: .copes,
                note: "the server locks an account after failed logins (403; the document has no lockout): the user sees its message")
        case .success, .failure:
            run.record(
                Probe.lockout, since: mark, client: observed, verdict: .breaks,
                note: "the client did not read the answer after five failures as a refusal with the server's message")
        }
    }

    /// Forgot and reset, with the operator's code.
    private func reset(_ progress: Progress) async {
        let fourth = client("fourth")
        var mark = run.transport.mark
        let sent = await outcome { try await fourth.forgotPassword(identifier: email) }
        run.record(
            Probe.forgot, since: mark, client: sent.isSuccess ? "reset sent" : sent.brief,
            verdict: sent.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
            note: sent.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not ask for a reset: \(sent.brief)")
        if !sent.isSuccess {
            run.skip(Probe.reset, "needs: a reset sent (it failed)")
            run.skip(Probe.signInAfterReset, "needs: a reset sent (it failed)")
        } else if let code = hooks.code {
            if let token = await code(email) {
                let newPassword = makePassword()
                mark = run.transport.mark
                let done = await outcome { try await fourth.resetPassword(token: token, newPassword: newPassword) }
                run.record(
                    Probe.reset, since: mark, client: done.isSuccess ? "done" : done.brief,
                    verdict: done.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                    note: done.isSuccess ? run.statusNote(since: mark, expected: [200]) : "the client could not reset: \(done.brief)")
                if done.isSuccess && progress.approved {
                    mark = run.transport.mark
                    let again = await outcome { try await fourth.signIn(username: kid, password: newPassword) }
                    let ended = again.isSuccess ? await fourth.signOutAndEndServerSession() : nil
                    run.record(
                        Probe.signInAfterReset, since: mark, client: again.brief,
                        verdict: again.isSuccess ? run.statusVerdict(since: mark, expected: [200]) : .breaks,
                        note: again.isSuccess
                            ? (ended == .ended ? "" : "the sign-out after it was not confirmed") : "the new password did not sign in")
                } else {
                    run.skip(Probe.signInAfterReset, done.isSuccess ? progress.unapproved : "needs: the reset (it failed)")
                }
            } else {
                run.skip(Probe.reset, "--code-command gave no token (exit status not 0, or nothing printed)")
                run.skip(Probe.signInAfterReset, "needs: the reset")
            }
        } else {
            run.skip(Probe.reset, "needs: --code-command")
            run.skip(Probe.signInAfterReset, "needs: --code-command")
        }
        await fourth.stop()
    }
}
