import AuthCore
import AuthRuntime
import Foundation

/// What a step may need that only the operator has.
enum ProbeNeed: String, Sendable, Hashable {
    /// A code or token sent by e-mail or SMS.
    case code = "--code-command"
    /// A parent's (or an administrator's) approval.
    case approval = "--approve-command"
    /// A parent's approval withdrawn, so the account is pending again.
    case withdrawal = "--unapprove-command"
    /// Time passing on the server (an access token's lifetime).
    case clock = "--clock-command"
    /// An OAuth provider's callback, after the user consented in a browser.
    case oauth = "--oauth-command"
    /// The operator's own phone, to receive an SMS code.
    case phone = "--phone"
}

/// One step of a probe's plan: what it does and what the document and the client expect.
struct ProbeStep: Sendable, Hashable {
    /// What the step does.
    var name: String
    /// What the document and the client expect.
    var expected: String
    /// The operator's hooks it needs, directly or through an earlier step.
    var needs: [ProbeNeed]

    init(_ name: String, _ expected: String, needs: [ProbeNeed] = []) {
        self.name = name
        self.expected = expected
        self.needs = needs
    }
}

extension ProbeRow {
    /// A row for `step` without exchanges.
    init(_ step: ProbeStep, observed: String, verdict: ProbeVerdict, note: String = "") {
        self.init(step: step.name, expected: step.expected, observed: observed, verdict: verdict, note: note, exchanges: [])
    }
}

/// One run's transport and the rows it has recorded so far. Used by one task at a time.
final class ProbeRun {
    let transport: ProbeTransport
    let hooks: ProbeOperator
    /// Where the run's clients keep their vaults, a folder each.
    let folder: URL
    var rows: [ProbeRow] = []

    init(transport: ProbeTransport, hooks: ProbeOperator, folder: URL) {
        self.transport = transport
        self.hooks = hooks
        self.folder = folder
    }

    /// Runs `steps` against `baseURL` with a fresh request budget and a temporary folder for the
    /// clients' vaults (removed afterwards), and reports what they recorded.
    static func report(
        backend: String, baseURL: URL, hooks: ProbeOperator, prefix: String, _ steps: (ProbeRun) async -> Void
    ) async -> ProbeReport {
        let budget = RequestBudget()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = ProbeRun(transport: ProbeTransport(baseURL: baseURL, budget: budget), hooks: hooks, folder: folder)
        await steps(run)
        return ProbeReport(backend: backend, baseURL: baseURL.absoluteString, accountPrefix: prefix, rows: run.rows, requests: await budget.sent)
    }

    /// The file vault named `name`: a client on it keeps its session there; a relaunch is a new
    /// client on the same vault.
    func vault(_ name: String) -> FileVault { FileVault(directory: folder.appendingPathComponent(name)) }

    /// What the vault named `name` holds now.
    func credentials(_ name: String) -> Credentials? { try? vault(name).load() }

    /// Records `step` with the exchanges sent since `mark` and what the client made of them.
    func record(_ step: ProbeStep, since mark: Int, client: String, verdict: ProbeVerdict, note: String = "") {
        let exchanges = transport.exchanges(since: mark)
        let sent = exchanges.map(\.description).joined(separator: "; ")
        let observed = (sent.isEmpty ? "nothing sent" : sent) + " — client: " + client
        rows.append(ProbeRow(step: step.name, expected: step.expected, observed: observed, verdict: verdict, note: note, exchanges: exchanges))
    }

    /// Records `step`, one raw exchange.
    func record(_ step: ProbeStep, exchange: ProbeExchange, verdict: ProbeVerdict, note: String = "") {
        rows.append(
            ProbeRow(step: step.name, expected: step.expected, observed: exchange.description, verdict: verdict, note: note, exchanges: [exchange]))
    }

    /// Records `step`, one raw exchange presenting a token the server must refuse: 401 conforms, a
    /// success breaks (`ifAccepted` says what that means), anything else copes.
    func recordRefusal(_ step: ProbeStep, exchange: ProbeExchange, ifAccepted: String) {
        let accepted = exchange.status.map { (200..<300).contains($0) } == true
        record(
            step, exchange: exchange, verdict: exchange.status == 401 ? .conforms : accepted ? .breaks : .copes,
            note: exchange.status == 401 ? "" : accepted ? ifAccepted : "answered \(exchange.status.map(String.init) ?? "nothing")")
    }

    /// Records `step` as skipped, saying why.
    func skip(_ step: ProbeStep, _ why: String) {
        rows.append(ProbeRow(step, observed: "not sent", verdict: .skipped, note: why))
    }

    /// `.conforms` when every exchange since `mark` answered one of `expected` and the last one
    /// carries `keys`, else `.copes` (the caller has checked the client kept its promise).
    func statusVerdict(since mark: Int, expected: Set<Int>, keys: [String] = []) -> ProbeVerdict {
        statusNote(since: mark, expected: expected, keys: keys).isEmpty ? .conforms : .copes
    }

    /// What differs from `expected` and `keys` in the exchanges since `mark`; empty when nothing does.
    func statusNote(since mark: Int, expected: Set<Int>, keys: [String] = []) -> String {
        let exchanges = transport.exchanges(since: mark)
        var differences: [String] = []
        for exchange in exchanges where !expected.contains(exchange.status ?? -1) {
            differences.append(
                "\(exchange.method) \(exchange.path) answered \(exchange.status.map(String.init) ?? "nothing") where the document says "
                    + expected.sorted().map(String.init).joined(separator: " or "))
        }
        let missing = keys.filter { !(exchanges.last?.keys.contains($0) ?? false) }
        if !missing.isEmpty { differences.append("the answer lacks \(missing.joined(separator: ", "))") }
        return differences.joined(separator: "; ")
    }

    /// Sends a raw request (one the client cannot express) and returns what came back.
    func send(_ request: HTTPRequest) async -> ProbeExchange {
        let mark = transport.mark
        _ = try? await transport.send(request)
        return transport.exchanges(since: mark).last
            ?? ProbeExchange(method: request.method, path: request.url.path, status: nil, keys: [], failure: "not sent")
    }

    /// Sends a raw edge request and records it: `expected` conforms, any other answer is a
    /// difference the client copes with (it never sends such a request), noted.
    func edge(_ step: ProbeStep, _ request: HTTPRequest, expected: Int, refusedIsCoping: String? = nil, detail: String = "") async {
        let exchange = await send(request)
        var note = ""
        if exchange.status != expected {
            note = "answered \(exchange.status.map(String.init) ?? "nothing (\(exchange.failure ?? "network"))") where the document says \(expected)"
            if let refusedIsCoping, (400..<500).contains(exchange.status ?? 0) { note = "\(refusedIsCoping): \(note)" }
        }
        if !detail.isEmpty { note = note.isEmpty ? detail : "\(note) (\(detail))" }
        record(step, exchange: exchange, verdict: exchange.status == expected ? .conforms : .copes, note: note)
    }

    /// A JSON object of strings, for a raw request's body.
    static func json(_ object: [String: String]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// A value's case name with at most one level of payload names, never a payload's text:
    /// `server(conflict("Username…"))` → `server(conflict)`.
    static func brief(_ text: String) -> String {
        let parts = text.split(separator: "(", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count > 1 else { return text }
        let inner = parts[1].prefix { $0.isLetter || $0.isNumber }
        return inner.isEmpty ? String(parts[0]) : "\(parts[0])(\(inner))"
    }

    /// `server session ended`, or why it was not confirmed.
    static func brief(_ result: ServerSignOutResult) -> String {
        switch result {
        case .ended: "server session ended"
        case .owed(let error): "server session not reached, its revocation owed: \(brief(error.description))"
        case .notConfirmed(let error): "server session not confirmed ended: \(brief(error.description))"
        }
    }
}

/// Runs `body`, keeping its error.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, AuthError> {
    do {
        return .success(try await body())
    } catch let error as AuthError {
        return .failure(error)
    } catch {
        return .failure(.unexpected("\(type(of: error))"))
    }
}

extension Result {
    /// Whether it is a success.
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// The success, if any.
    var value: Success? { try? get() }

    /// The success's case name, or the error's, as the probe prints them (see `ProbeRun.brief`).
    var brief: String {
        switch self {
        case .success(let value): String(describing: value).prefix { $0 != "(" }.description
        case .failure(let error): ProbeRun.brief(String(describing: error))
        }
    }
}

extension AuthState {
    /// The case name.
    var brief: String { String(describing: self).prefix { $0 != "(" }.description }
}

/// The passwords the probe makes up: random, never printed.
enum ProbeSecrets {
    /// A long password any reasonable rule accepts.
    static func password() -> String { "Pr0be!" + hex(16) }

    /// The shortest password the client accepts (`Password.minimumLength` characters).
    static func shortestPassword() -> String { "Pb0!" + hex(max(0, Password.minimumLength - 4)) }

    /// A unique account prefix: `probe-` and eight random hex digits, then `-`.
    static func accountPrefix() -> String { "probe-\(hex(8))-" }

    private static func hex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in "0123456789abcdef".randomElement(using: &generator) ?? "0" })
    }
}
