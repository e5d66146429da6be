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

/// The reference backend running for local app development (`authflow serve`): started, described,
/// stopped. The command waits for an interrupt in between; tests start and stop it directly.
public final class DevServer: Sendable {
    /// The server.
    public let server: ReferenceServer
    /// The backends it serves.
    public let backends: [Backend]
    /// The bound port.
    public let port: UInt16

    /// Starts the reference server mounting `backends` (those `authflow` registers) on
    /// 127.0.0.1:`port` (0 picks a free port), answering as the deployed servers do when
    /// `deployed` is set, as their documents say otherwise. `requestLog`, when given, hears of each request answered: method, path, status
    /// and time, never a body, header or query (see `RequestLogEntry`).
    ///
    /// `deviations` makes Everday answer otherwise than its document says, `openIDConnectDeviations`
    /// the OpenID Connect provider otherwise than the standards say, to try `authflow probe` on.
    public init(
        backends: [Backend], port: UInt16, deployed: Bool = false, deviations: Configuration.Everday.Deviations = .init(),
        openIDConnectDeviations: Configuration.OpenIDConnect.Deviations = .init(), requestLog: (@Sendable (RequestLogEntry) -> Void)? = nil
    ) throws(ReferenceServerError) {
        var configuration = Configuration()
        if deployed { configuration.answerAsDeployed() }
        configuration.everday.deviations = deviations
        configuration.openIDConnect.deviations = openIDConnectDeviations
        let served = backends.compactMap(ShippedBackend.of)
        server = ReferenceServer(backends: served.map(\.served), configuration: configuration, requestLog: requestLog)
        self.backends = served.map(\.backend)
        self.port = try server.start(port: port)
    }

    /// Stops the server; every connection is closed and every server thread has ended on return.
    public func stop() { server.stop() }

    /// What `authflow serve` prints: each backend's URLs, the outbox, the faults and the clock.
    public var banner: [String] {
        let root = server.rootURL.absoluteString
        let form = server.configuration.subspace.deployed ? " (answering as the deployed servers do)" : ""
        var lines = ["Reference backend listening on \(root)\(form) — Ctrl-C to stop", ""]
        let width = backends.map(\.description.count).max() ?? 0
        for shipped in backends.compactMap(ShippedBackend.of) {
            let backend = shipped.backend
            let base = server.baseURL(for: shipped.served)
            let padded = backend.description.padding(toLength: width, withPad: " ", startingAt: 0)
            var line = "  \(padded)  \(base.absoluteString)"
            line += "   API: \(shipped.apiURL(on: server).absoluteString)"
            if backend == .vynqTalk {
                line += "   WebSocket: ws://127.0.0.1:\(port)\(base.path)/ws?token=<accessToken>"
            }
            lines.append(line)
        }
        let example =
            backends.contains(.everday)
            ? server.baseURL(for: .everday).path + "/api/auth/refresh"
            : (backends.first.flatMap(ShippedBackend.of).map { server.baseURL(for: $0.served).path } ?? "") + "/…"
        lines += [
            "",
            "  Outbox (codes, OTPs, reset tokens):  GET    \(root)/__dev/outbox?to=<email-or-phone>",
            "  Faults:                              POST   \(root)/__dev/faults   {\"fault\": \"dropAfterCommit\", \"path\": \"\(example)\", \"times\": 1}",
            "                                       DELETE \(root)/__dev/faults",
            "  Clock:                               POST   \(root)/__dev/clock    {\"advanceBy\": <seconds>}",
        ]
        if backends.contains(.everday) {
            let parent = server.configuration.everday.parent
            lines.append("  Everday's parent account (approves registrations): \(parent.username) / \(parent.password)")
            lines.append("  Everday approval (as the parent):    POST   \(root)/__dev/everday/approve   {\"username\": \"…\"}")
        }
        if backends.contains(.hero365) {
            lines.append(
                "  Hero365 OAuth: open the URL /auth/oauth/{provider} returns; it redirects to \(server.configuration.hero365.oauthCallbackURL)#…")
        }
        if backends.contains(.openIDConnect) {
            let settings = server.configuration.openIDConnect
            lines.append(
                "  OpenID Connect: issuer \(server.baseURL(for: .openIDConnect).absoluteString), public client \(settings.clientID), "
                    + "redirect URI \(settings.redirectURIs.joined(separator: ", ")); /authorize signs in \(settings.user.preferredUsername) "
                    + "(or login_hint) without a page")
            lines.append(
                "  OpenID Connect browser (no redirect): GET    \(root)/__dev/oidc/authorize?<the authorization URL's query>  → {\"redirectURL\": …}")
        }
        return lines
    }

    /// The backends `--backend` names: `all`, or one name in any casing (`everday`, `anonymousWall`, `anonymous-wall`).
    public static func backends(named name: String) -> [Backend]? {
        if name.lowercased().filter({ $0.isLetter || $0.isNumber }) == "all" { return ShippedBackend.all.map(\.backend) }
        return ShippedBackend.named(name).map { [$0.backend] }
    }

    /// The names `--deviate` takes, each a way Everday may answer otherwise than its document says,
    /// or (`oidc-…`) the OpenID Connect provider otherwise than the standards say.
    public static let deviationNames = [
        "keep-session-at-logout", "accept-consumed-refresh", "register-201", "rename-token-keys", "strict-password", "lockout",
        "oidc-no-pkce", "oidc-reusable-codes", "oidc-no-rotation", "oidc-accept-consumed-refresh", "oidc-keep-revoked",
        "oidc-errors-without-code",
    ]

    /// What `--deviate` switched on, per backend.
    struct Deviations {
        var everday = Configuration.Everday.Deviations()
        var openIDConnect = Configuration.OpenIDConnect.Deviations()
    }

    /// The deviations a comma-separated list of ``deviationNames`` switches on, or `nil` naming the first unknown one.
    static func deviations(named list: String) -> Result<Deviations, Authflow.CommandProblem> {
        var all = Deviations()
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch name {
            case "keep-session-at-logout": all.everday.keepsSessionAtLogout = true
            case "accept-consumed-refresh": all.everday.acceptsConsumedRefreshTokens = true
            case "register-201": all.everday.registrationStatus = 201
            case "rename-token-keys": all.everday.renamedTokenKeys = ["AccessToken": "access_token", "RefreshToken": "refresh_token"]
            case "strict-password": all.everday.minimumPasswordLength = 12
            case "lockout": all.everday.lockoutAfterFailures = 5
            case "oidc-no-pkce": all.openIDConnect.ignoresCodeVerifier = true
            case "oidc-reusable-codes": all.openIDConnect.reusableCodes = true
            case "oidc-no-rotation": all.openIDConnect.keepsRefreshToken = true
            case "oidc-accept-consumed-refresh": all.openIDConnect.acceptsConsumedRefreshTokens = true
            case "oidc-keep-revoked": all.openIDConnect.keepsTokensAtRevocation = true
            case "oidc-errors-without-code": all.openIDConnect.errorsWithoutCode = true
            default:
                return .failure(
                    Authflow.CommandProblem(description: "--deviate takes \(deviationNames.joined(separator: ", ")), not '\(name)'"))
            }
        }
        return .success(all)
    }
}

extension Authflow {
    /// `authflow serve [--backend NAME|all] [--port 8080] [--deployed] [--deviate LIST] [--quiet]`: runs the reference backend until
    /// interrupted (SIGINT or SIGTERM), after printing its URLs. A test passes `whileRunning`,
    /// which runs in place of the wait (the server stops when it returns).
    static func serve(
        _ arguments: Arguments, out: (String) -> Void, err: (String) -> Void, whileRunning: ((DevServer) -> Void)? = nil
    ) throws -> Int32 {
        let name = arguments.options["backend"] ?? "all"
        guard let backends = DevServer.backends(named: name) else {
            throw CommandProblem(description: "--backend takes all or one of \(ShippedBackend.names), not '\(name)'")
        }
        let number = try arguments.integer("port", default: 8080)
        guard let port = UInt16(exactly: number) else { throw CommandProblem(description: "--port takes 0…65535, not \(number)") }
        let deviations = try DevServer.deviations(named: arguments.options["deviate"] ?? "").get()
        let interrupted = whileRunning == nil ? Interrupt() : nil  // Before starting: an early Ctrl-C is not lost.
        let quiet = arguments.flags.contains("quiet")
        let deployed = arguments.flags.contains("deployed")
        // The server's threads log through `out` only while this scope runs: the relay lets go of
        // `out` before it returns, however long the server's objects outlive the call (a
        // connection thread's object can be released a moment after the thread ended).
        return withoutActuallyEscaping(out) { out -> Int32 in
            let lines = DetachableLines(out)
            defer { lines.detach() }
            return serve(
                backends: backends, port: port, deployed: deployed, deviations: deviations, quiet: quiet, lines: lines, err: err,
                interrupted: interrupted,
                whileRunning: whileRunning)
        }
    }

    /// Serves `backends` on `port` until interrupted (or `whileRunning` returns), writing the
    /// banner, each request unless `quiet`, and `stopped` to `lines`.
    private static func serve(
        backends: [Backend], port: UInt16, deployed: Bool, deviations: DevServer.Deviations, quiet: Bool, lines: DetachableLines,
        err: (String) -> Void, interrupted: Interrupt?,
        whileRunning: ((DevServer) -> Void)?
    ) -> Int32 {
        var requestLog: (@Sendable (RequestLogEntry) -> Void)?
        if !quiet {
            requestLog = { entry in
                lines(Authflow.timestamp() + " " + entry.description)
                fflush(nil)
            }
        }
        let running: DevServer
        do {
            running = try DevServer(
                backends: backends, port: port, deployed: deployed, deviations: deviations.everday,
                openIDConnectDeviations: deviations.openIDConnect, requestLog: requestLog)
        } catch {
            err("authflow serve: cannot listen on 127.0.0.1:\(port): \(error)")
            return 69
        }
        running.banner.forEach { lines($0) }
        if !quiet { lines("\nEach request is logged: method, path (query left out), status, time; --quiet silences it.") }
        fflush(nil)  // Piped to a file or another program, the banner must show before the wait.
        if let whileRunning { whileRunning(running) } else { interrupted?.wait() }
        running.stop()
        lines("stopped")
        return 0
    }

    /// The wall-clock time of day in UTC, `HH:MM:SS`, for the request log.
    static func timestamp(_ date: Date = Date()) -> String {
        let seconds = Int(date.timeIntervalSince1970) % 86_400
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3_600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }
}

/// Lines written from several threads, one at a time, to a writer that can be let go: after
/// ``detach()``, lines are dropped and the writer is no longer referenced.
final class DetachableLines: Sendable {
    private let write: Locked<((String) -> Void)?>

    init(_ write: @escaping (String) -> Void) { self.write = Locked(write) }

    func callAsFunction(_ line: String) { write.withLock { $0?(line) } }

    /// Lets go of the writer; later lines are dropped.
    func detach() { write.withLock { $0 = nil } }
}

/// Waits for SIGINT or SIGTERM (installed when created, so a signal that arrives early is not lost).
private final class Interrupt {
    private let signalled = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init() {
        let signalled = signalled
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { signalled.signal() }
            source.resume()
            return source
        }
    }

    func wait() {
        signalled.wait()
        for source in sources { source.cancel() }
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
    }
}
