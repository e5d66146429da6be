import AuthCore
import AuthSupport
import Foundation

/// What `authflow probe` was asked to do, checked: a refused command line never sends a request.
struct ProbeSettings: Sendable {
    /// The backend probed, as `authflow` registers it.
    var shipped: ShippedBackend
    /// The backend probed.
    var backend: Backend { shipped.backend }
    /// The API's base URL, as the backend's client takes it (Everday's ends in `/api`); for
    /// OpenID Connect, the issuer (`--issuer`).
    var baseURL: URL
    var json: Bool
    var dryRun: Bool
    var codeCommand: String?
    var approveCommand: String?
    var clockCommand: String?
    var unapproveCommand: String?
    /// The domain of the addresses the probe's accounts get (Anonymous Wall: a school's), when given.
    var emailDomain: String?
    /// The operator's phone number, for Hero365's SMS code.
    var phone: String?
    var oauthCommand: String?
    /// OpenID Connect: the app's client id at the provider (`--client-id`).
    var clientID: String?
    /// OpenID Connect: the app's registered redirect URI (`--redirect-uri`), when given.
    var redirectURI: URL?
    /// Whether the operator said the server is theirs (`--i-own-this-server`): hosts not on this machine are allowed.
    var allowsRemote: Bool

    init(_ arguments: Arguments) throws(Authflow.CommandProblem) {
        let names = ShippedBackend.names
        // More than one is refused before the command starts (`maxArguments`).
        guard let name = arguments.positional.first else {
            throw Authflow.CommandProblem(description: "probe takes one backend: \(names)")
        }
        guard let shipped = ShippedBackend.named(name) else {
            throw Authflow.CommandProblem(description: "no backend '\(name)'; backends: \(names)")
        }
        let oidc = shipped.backend == .openIDConnect
        let option = oidc ? "issuer" : "base-url"
        for other in oidc ? ["base-url"] : ["issuer", "client-id", "redirect-uri"] where arguments.options[other] != nil {
            throw Authflow.CommandProblem(description: "--\(other) is not for \(shipped.backend.id); it takes --\(option)")
        }
        guard let text = arguments.options[option] else {
            throw Authflow.CommandProblem(
                description: oidc
                    ? "probe openIDConnect needs --issuer URL (the provider's issuer, e.g. http://127.0.0.1:8080/oidc) and --client-id ID"
                    : "probe needs --base-url URL (the API's base, e.g. http://127.0.0.1:8080/everday/api)")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw Authflow.CommandProblem(description: "--\(option) takes an http or https URL (scheme, host, port and path)")
        }
        guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
            // Never echoed: a URL with credentials in it must not reach the output.
            throw Authflow.CommandProblem(description: "--\(option) takes a scheme, host, port and path only (no credentials, query or fragment)")
        }
        if oidc {
            guard let id = arguments.options["client-id"], !id.isEmpty, id.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw Authflow.CommandProblem(description: "probe openIDConnect needs --client-id ID (the app's client id, no spaces)")
            }
            clientID = id
            if let redirect = arguments.options["redirect-uri"] {
                guard let uri = URL(string: redirect), uri.scheme != nil, uri.query == nil, uri.fragment == nil else {
                    throw Authflow.CommandProblem(description: "--redirect-uri takes the app's registered redirect URI (no query or fragment)")
                }
                redirectURI = uri
            }
        }
        allowsRemote = arguments.flags.contains("i-own-this-server")
        guard Self.isLoopback(host) || allowsRemote else {
            throw Authflow.CommandProblem(
                description: "\(host) is not on this machine: the probe creates accounts and sends edge requests; "
                    + "add --i-own-this-server if the server is yours to test")
        }
        var commands: [String: String] = [:]
        for option in ["code-command", "approve-command", "unapprove-command", "clock-command", "oauth-command"] {
            guard let command = arguments.options[option] else { continue }
            guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Authflow.CommandProblem(description: "--\(option) needs a command")
            }
            commands[option] = command
        }
        if let domain = arguments.options["email-domain"] {
            let allowed = domain.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
            guard allowed, domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix(".") else {
                throw Authflow.CommandProblem(description: "--email-domain takes a domain name (letters, digits, '.', '-'), not '\(domain)'")
            }
            emailDomain = domain
        }
        if let phone = arguments.options["phone"] {
            guard phone.hasPrefix("+"), phone.count >= 8, phone.count <= 16, phone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw Authflow.CommandProblem(description: "--phone takes a number in E.164 form (+ and 7 to 15 digits)")
            }
            self.phone = phone
        }
        self.shipped = shipped
        baseURL = url
        json = arguments.flags.contains("json")
        dryRun = arguments.flags.contains("dry-run")
        codeCommand = commands["code-command"]
        approveCommand = commands["approve-command"]
        unapproveCommand = commands["unapprove-command"]
        clockCommand = commands["clock-command"]
        oauthCommand = commands["oauth-command"]
    }

    /// `localhost`, `127.0.0.0/8` or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The steps a run takes.
    var plan: [ProbeStep] { shipped.plan }

    /// The hooks, present for each command given.
    var operatorHooks: ProbeOperator {
        .commands(code: codeCommand, approve: approveCommand, clock: clockCommand, oauth: oauthCommand, unapprove: unapproveCommand)
    }

    /// What `--dry-run` prints: each step, what it expects, and whether it would run.
    var planText: String {
        var given: Set<ProbeNeed> = []
        if codeCommand != nil { given.insert(.code) }
        if approveCommand != nil { given.insert(.approval) }
        if unapproveCommand != nil { given.insert(.withdrawal) }
        if clockCommand != nil { given.insert(.clock) }
        if oauthCommand != nil { given.insert(.oauth) }
        if phone != nil { given.insert(.phone) }
        let rows = plan.map { step -> [String] in
            let missing = step.needs.filter { !given.contains($0) }
            return [step.name, step.expected, missing.isEmpty ? "runs" : "skipped, needs: " + missing.map(\.rawValue).joined(separator: ", ")]
        }
        return [
            "authflow probe \(backend.id) — \(baseURL.absoluteString) (dry run: nothing sent)", "",
            Table.render(header: ["step", "expected", "in a run"], rows: rows), "",
            "\(plan.count) steps; at most \(RequestBudget.limit) requests, at most 10 a second; "
                + (backend == .openIDConnect
                    ? "it signs in with --oauth-command and creates no account" : "accounts named probe-<random>-…"),
        ].joined(separator: "\n")
    }
}

/// `authflow probe`: runs the plan for a backend and reports.
enum Probe {
    /// Runs the probe `settings` describe with `hooks`, writing the table (or JSON) to `out`;
    /// returns the exit status (0 conforms or copes, 1 a difference breaks the client).
    static func run(_ settings: ProbeSettings, hooks: ProbeOperator, out: @Sendable (String) -> Void) async -> Int32 {
        let report = await settings.shipped.probe(settings, hooks)
        out(settings.json ? report.json : report.text)
        return report.status
    }
}

extension Authflow {
    /// `authflow probe <backend> --base-url URL [--json] [--dry-run] [--code-command C] [--approve-command C]
    /// [--unapprove-command C] [--clock-command C] [--oauth-command C] [--phone P] [--email-domain D] [--i-own-this-server]`,
    /// or `authflow probe openIDConnect --issuer URL --client-id ID [--redirect-uri URI] [--oauth-command C] …`.
    static func probe(_ arguments: Arguments, out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let settings = try ProbeSettings(arguments)
        if settings.dryRun {
            out(settings.planText)
            return 0
        }
        return LineBridge.run(out: out) { sink in await Probe.run(settings, hooks: settings.operatorHooks, out: sink) }
    }

    /// `authflow probe`'s description.
    static let probeSpec = CommandSpec(
        name: "probe",
        synopsis:
            "authflow probe <backend> --base-url URL [--json] [--dry-run] [--code-command C] [--approve-command C] "
            + "[--unapprove-command C] [--clock-command C] [--oauth-command C] [--phone P] [--email-domain D] [--i-own-this-server]\n"
            + "       authflow probe openIDConnect --issuer URL --client-id ID [--redirect-uri URI] [--oauth-command C] [--json] [--dry-run] "
            + "[--i-own-this-server]",
        summary:
            "check a live server against its backend's document through the real client: each lifecycle and edge request a row, "
            + "judged conforms, differs but the client copes, or breaks the client (exit 1). Covers every backend. It creates "
            + "accounts named probe-<random>-…, sends at most \(RequestBudget.limit) requests at most 10 a second, and refuses a "
            + "server not on this machine unless --i-own-this-server; it never prints a token, password or code. "
            + "openIDConnect (oidc) checks any provider: without a login, discovery (issuer exact, S256, endpoints, https off "
            + "loopback), RFC 6749 §5.2 error bodies and RFC 7009's answer to an unknown token; with --oauth-command signing in "
            + "for it (the probe cannot log a human in), PKCE enforcement, one-time codes, rotation, reuse detection and "
            + "revocation, each a row",
        options: [
            .value(
                "base-url", "URL",
                "the API's base URL, as the client takes it (everday: …/api, subspace, anonymousWall and hero365: …/api/v1, vynqTalk: the server's root); required"
            ),
            .flag("json", "one JSON object: every row with its exchanges (method, path, status, keys), the counts"),
            .flag("dry-run", "print the plan, and which steps would be skipped, without sending anything"),
            .value("code-command", "C", "a shell command printing the latest code or reset token sent to {to}; without it, those steps are skipped"),
            .value(
                "approve-command", "C",
                "a shell command approving the pending account {username} (exit 0); without it, steps after approval are skipped"),
            .value(
                "unapprove-command", "C",
                "a shell command withdrawing the approval of {username} (exit 0), for everday's pending-approval refresh; without it, that step is skipped"
            ),
            .value("clock-command", "C", "a shell command moving the server's clock {seconds} ahead (exit 0); without it, expiry steps are skipped"),
            .value(
                "oauth-command", "C",
                "a shell command following the OAuth URL {url} and printing the callback URL it lands on (hero365; openIDConnect: the "
                    + "authorization URL, signed in as a test user, printing the redirect URL with its code as the provider wrote it; "
                    + "against authflow serve: curl -s -o /dev/null -D - {url} | sed -n 's/^[Ll]ocation: *//p' | tr -d '\\r')"),
            .value("issuer", "URL", "openIDConnect: the provider's issuer, exactly as its discovery document names it; required"),
            .value("client-id", "ID", "openIDConnect: the app's client id (a public client) at the provider; required"),
            .value(
                "redirect-uri", "URI",
                "openIDConnect: a redirect URI registered for the client (default com.example.app:/oauth2redirect, the reference provider's)"),
            .value("phone", "P", "your phone, in E.164 form, for hero365's SMS code (read with --code-command); without it, that step is skipped"),
            .value("email-domain", "D", "the domain of the accounts' addresses, for anonymousWall (a school's; default example.edu)"),
            .flag("i-own-this-server", "allow a base URL that is not on this machine (localhost, 127.0.0.0/8, ::1)"),
        ],
        examples: [
            "probe everday --base-url http://127.0.0.1:8080/everday/api --dry-run",
            "probe subspace --base-url http://127.0.0.1:8080/subspace/api/v1",
            "probe oidc --issuer http://127.0.0.1:8080/oidc --client-id app-1 "
                + "--oauth-command \"curl -s -o /dev/null -D - {url} | sed -n 's/^[Ll]ocation: *//p' | tr -d '\\r'\"",
            "probe everday --base-url http://127.0.0.1:8080/everday/api "
                + "--approve-command 'curl -sf -X POST http://127.0.0.1:8080/__dev/everday/approve -d \"{\\\"username\\\":\\\"{username}\\\"}\"' "
                + "--clock-command 'curl -sf -X POST http://127.0.0.1:8080/__dev/clock -d \"{\\\"advanceBy\\\":{seconds}}\"'",
        ],
        requiredArguments: ["everday", "--base-url", "http://127.0.0.1:9/everday/api", "--dry-run"], maxArguments: 1)
}
