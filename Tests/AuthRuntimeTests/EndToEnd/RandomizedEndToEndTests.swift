import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

/// Seeded sequences of user actions, clock jumps and injected faults against Everday, Hero365 (as
/// documented and as deployed) and Subspace (as deployed, where it rotates), through `AuthRunner`, the real contracts and `URLSessionTransport`. After every run:
/// (a) the server's ledger shows no refresh-token reuse and no family revoked because of the
///     client, except after an answer lost once the server had rotated, which is tolerated and counted;
/// (b) the client is not stuck: with faults cleared and its retries run, it is signed in with a
///     working token, or signed out with an empty vault;
/// (c) no sign-out the user did not ask for deleted a refresh token the server still accepted;
/// (d) no secret that crossed the wire shows up in the log, a description, an outcome, an issue
///     or an error message;
/// (e) after every logout — at once, after the access token expired while the server was
///     unreachable, during a refresh, while the network drops requests — once the background work
///     settles, Everday's server accepts no refresh token of the user (unless the app was told the
///     server session could not be confirmed, or an earlier rotation's answer was lost), and
///     Hero365's and Subspace's, whose documents offer no revocation, still accept the one held;
/// and, at every step: once quiet, the vault holds exactly the session's credentials; as each
/// request leaves, no refresh token is presented again after its successor arrived, none the vault
/// never held, and no access token is used before it was stored.
///
/// `AUTHCORE_E2E_RUNS` sets the runs per backend (default 25), `AUTHCORE_E2E_SEED` the base seed.
/// A failing run prints its seed and its actions, shrunk.
@Suite("End to end: randomized runs", .timeLimit(.minutes(15)))
struct RandomizedEndToEndTests {
    struct Run: Sendable, CustomTestStringConvertible {
        var backend: Backend
        var seed: UInt64
        /// The form the reference server answers in (Subspace rotates only in its deployed form).
        var form: ServerForm = .documented
        var testDescription: String { "\(backend)\(form == .deployed ? " (deployed)" : "") seed 0x\(String(seed, radix: 16))" }
        var lifetime: Int64 {
            switch backend {
            case .everday: 1800
            case .subspace: 24 * 3600
            default: 8 * 24 * 3600  // Anonymous Wall's, VynqTalk's and Hero365's.
            }
        }
    }

    /// Everday as documented; Hero365 as documented and as deployed; Subspace as deployed (its
    /// documented form grants no refresh token).
    static let runs: [Run] = [(Backend.everday, ServerForm.documented), (.hero365, .documented), (.hero365, .deployed), (.subspace, .deployed)]
        .flatMap { backend, form in
            (0..<UInt64(RandomRuns.runs)).map { index in
                Run(backend: backend, seed: RandomRuns.baseSeed &+ index &* 0x9E37_79B9, form: form)
            }
        }

    static let subspace = RandomBackend<SubspaceApp>(
        app: Apps.subspace(), lifetime: 24 * 3600,
        signIn: { SubspaceIntents.signIn("ada@example.com", $0) },
        paths: [.refresh: "/api/v1/auth/refresh", .signIn: "/api/v1/auth/login", .protected: "/api/v1/auth/me"],
        protectedRequest: { try Accounts.protectedRequest($0) },
        prepare: { _, client in
            await Accounts.subspace(client, email: "ada@example.com")
            return Accounts.password
        },
        special: { _, client, _, password in
            await client.send(SubspaceIntents.signIn("ada@example.com", password))  // No reset or code sign-in here.
            return password
        })

    static let everday = RandomBackend<EverdayApp>(
        app: Apps.everday(), lifetime: 1800,
        signIn: { EverdayIntents.signIn("parent", $0) },
        paths: [
            .refresh: "/api/auth/refresh", .signIn: "/api/auth/login", .protected: "/api/settings/users/1/approve",
            .logout: "/api/auth/logout",
        ],
        protectedRequest: { try Accounts.protectedRequest($0) },
        prepare: { _, _ in "ParentPassw0rd!" },
        special: { stack, _, _, password in
            // The parent resets the password on another device: the server revokes every session.
            let other = await stack.client(Apps.everday(), timeout: 1)
            defer { Task { _ = await other.stop() } }
            guard case .passwordResetRequested = await other.send(EverdayIntents.forgot("parent")),
                let token = stack.server.outbox(to: "parent@example.com").last?.code
            else { return password }
            let next = "Reset-\(stack.server.outbox(to: "parent@example.com").count)-Passw0rd!"
            guard await other.send(EverdayIntents.reset(token: token, newPassword: next)) == .passwordResetCompleted else {
                return password  // A fault hit it.
            }
            return next
        },
        liveRefreshTokens: { stack in
            stack.server.everdayUserID(username: "parent").map { stack.server.liveRefreshTokens(of: String($0), on: .everday) } ?? -1
        })

    static let hero365 = RandomBackend<Hero365App>(
        app: Apps.hero365(), lifetime: 8 * 24 * 3600,
        signIn: { Hero365Intents.signIn("hero@example.com", $0) },
        paths: [
            .refresh: "/api/v1/auth/refresh", .signIn: "/api/v1/auth/signin", .protected: "/api/v1/users/me",
            .logout: "/api/v1/revoke-tokens/",
        ],
        protectedRequest: { try Accounts.protectedRequest($0) },
        prepare: { _, client in
            await Accounts.hero365(client, email: "hero@example.com")
            return Accounts.password
        },
        special: { stack, client, _, password in
            let phone = "+15551234567"
            await client.send(Hero365Intents.sendCode(phone))
            if let code = stack.server.outbox(to: phone).last?.code { await client.send(Hero365Intents.verify(code)) }
            return password
        },
        liveRefreshTokens: { stack in
            // Logout revokes every refresh token of the user holding the session: the email account,
            // or the phone account a code sign-in opened.
            let users = ["hero@example.com", "+15551234567"].compactMap { stack.server.hero365UserID($0) }
            return users.reduce(0) { $0 + stack.server.liveRefreshTokens(of: $1, on: .hero365) }
        })

    @Test(
        "randomized runs end working or signed out, lose no credential the server still accepts, leak no secret, and never cause refresh-token reuse — except after a rotation whose answer was lost (drop after commit, truncated or trickled answer): that reuse is tolerated and counted",
        arguments: runs)
    func randomized(run: Run) async throws {
        let actions = RandomRuns.actions(seed: run.seed, lifetime: run.lifetime, backend: run.backend)
        let report: RunReport
        switch run.backend {
        case .everday: report = await RandomRuns.run(.everday, Self.everday, actions)
        case .subspace: report = await RandomRuns.run(.subspace, Self.subspace, actions, form: run.form)
        default: report = await RandomRuns.run(.hero365, Self.hero365, actions, form: run.form)
        }
        print(
            "[e2e random] \(run.testDescription): \(actions.count) actions, \(report.refreshes) refreshes, "
                + "\(report.lostAnswerFaults) lost-answer faults, \(report.toleratedReuse) tolerated reuse, "
                + "\(report.serverSessionsAsExpected) of \(report.logouts) logouts left the server session as the backend documents, "
                + (report.toleratedStale > 0 ? "holding a token consumed by a lost rotation, " : "")
                + "ended \(report.endedSignedIn ? "signed in" : "signed out")")
        guard !report.failures.isEmpty else { return }
        let shrunk: [RandomAction] =
            switch run.backend {
            case .everday: await RandomRuns.shrink(.everday, Self.everday, actions)
            case .subspace: await RandomRuns.shrink(.subspace, Self.subspace, actions, form: run.form)
            default: await RandomRuns.shrink(.hero365, Self.hero365, actions, form: run.form)
            }
        Issue.record(
            """
            \(run.testDescription) failed: \(report.failures.joined(separator: "; "))
            replay: AUTHCORE_E2E_SEED=0x\(String(run.seed, radix: 16)) AUTHCORE_E2E_RUNS=1 swift test --filter RandomizedEndToEnd
            actions (\(actions.count)): \(actions.map(\.description).joined(separator: ", "))
            shrunk (\(shrunk.count)): \(shrunk.map(\.description).joined(separator: ", "))
            """)
    }
}
