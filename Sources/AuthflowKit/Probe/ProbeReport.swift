import AuthSupport
/// How one step of a probe came out, judged from the client's side.
enum ProbeVerdict: String, Sendable, CaseIterable {
    /// The server did what its document says, and the client did what it promises.
    case conforms = "conforms"
    /// The server did otherwise than its document says, but the client still does what it promises.
    case copes = "differs, client copes"
    /// The server did otherwise, and a promise of the client no longer holds.
    case breaks = "breaks the client"
    /// The step did not run: it needs something only the operator has, or an earlier step failed.
    case skipped = "skipped"
}

/// One request the probe sent and what came back: method, path (below the base URL, no query),
/// status and the answer's top-level keys. Never a body, header, token, password or code.
struct ProbeExchange: Sendable, Hashable, CustomStringConvertible {
    /// `POST`.
    var method: String
    /// `/auth/login`, relative to the base URL.
    var path: String
    /// The status, or `nil` when no answer came (the transport error is in `failure`).
    var status: Int?
    /// The top-level keys of a JSON object answer, sorted; empty for anything else.
    var keys: [String]
    /// Why no answer came (`network`, `timeout`), when none did.
    var failure: String?

    /// `POST /auth/login → 401 {detail}`.
    var description: String {
        let answer = status.map { "\($0)" } ?? "no answer (\(failure ?? "network"))"
        let shown = keys.isEmpty ? "" : " {\(keys.joined(separator: ", "))}"
        return "\(method) \(path) → \(answer)\(shown)"
    }
}

/// One row of the probe's table.
struct ProbeRow: Sendable, Hashable {
    /// What the step does (`sign in with a wrong password`).
    var step: String
    /// What the document and the client expect.
    var expected: String
    /// What the server did: the exchanges, and what the client made of them.
    var observed: String
    /// The verdict.
    var verdict: ProbeVerdict
    /// Why the verdict, when it is not plain conformance (`needs: --approve-command`).
    var note: String
    /// The exchanges the step sent.
    var exchanges: [ProbeExchange]
}

/// The probe's findings: rendered as a table or JSON, and the exit status they call for.
struct ProbeReport: Sendable {
    /// The backend probed.
    var backend: String
    /// The base URL probed.
    var baseURL: String
    /// The prefix of every account the run created; empty when it creates none.
    var accountPrefix: String
    /// The rows, in the order the steps ran.
    var rows: [ProbeRow]
    /// Requests sent in all.
    var requests: Int

    /// 1 when a difference breaks the client, else 0.
    var status: Int32 { rows.contains { $0.verdict == .breaks } ? 1 : 0 }

    /// How many rows have each verdict.
    func count(_ verdict: ProbeVerdict) -> Int { rows.filter { $0.verdict == verdict }.count }

    /// The closing line: the count of each verdict.
    var summary: String {
        "\(count(.conforms)) conform, \(count(.copes)) differ but the client copes, \(count(.breaks)) break the client, "
            + "\(count(.skipped)) skipped; \(requests) requests; "
            + (accountPrefix.isEmpty ? "no account created" : "accounts \(accountPrefix)…")
    }

    /// The table, then each note, then the summary.
    var text: String {
        var lines = ["authflow probe \(backend) — \(baseURL)", ""]
        lines.append(
            Table.render(
                header: ["step", "expected", "observed", "verdict"],
                rows: rows.map { [$0.step, $0.expected, $0.observed, $0.verdict.rawValue] }))
        let notes = rows.filter { !$0.note.isEmpty }
        if !notes.isEmpty {
            lines.append("")
            lines += notes.map { "\($0.step): \($0.verdict.rawValue) — \($0.note)" }
        }
        if requests >= RequestBudget.limit {
            lines += ["", "The run spent its budget of \(RequestBudget.limit) requests: rows after that are incomplete."]
        }
        lines += ["", summary]
        return lines.joined(separator: "\n")
    }

    /// One JSON object: the backend, the rows with their exchanges, the counts.
    var json: String {
        func exchange(_ exchange: ProbeExchange) -> String {
            JSON.object([
                ("method", JSON.string(exchange.method)), ("path", JSON.string(exchange.path)),
                ("status", exchange.status.map { "\($0)" } ?? "null"), ("keys", JSON.array(exchange.keys.map(JSON.string))),
                ("failure", exchange.failure.map(JSON.string) ?? "null"),
            ])
        }
        let rows = rows.map { row in
            JSON.object([
                ("step", JSON.string(row.step)), ("expected", JSON.string(row.expected)), ("observed", JSON.string(row.observed)),
                ("verdict", JSON.string(row.verdict.rawValue)), ("note", JSON.string(row.note)),
                ("exchanges", JSON.array(row.exchanges.map(exchange))),
            ])
        }
        return JSON.object([
            ("backend", JSON.string(backend)), ("baseURL", JSON.string(baseURL)), ("accountPrefix", JSON.string(accountPrefix)),
            ("requests", "\(requests)"), ("rows", JSON.array(rows)),
            ("conforms", "\(count(.conforms))"), ("copes", "\(count(.copes))"), ("breaks", "\(count(.breaks))"),
            ("skipped", "\(count(.skipped))"), ("exitStatus", "\(status)"),
        ])
    }
}
