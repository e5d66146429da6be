import AuthRuntime
import AuthSupport
import Foundation
import AuthVerification

/// The `authflow` command: verify, explore, fuzz and replay the documented lifecycles.
public enum Authflow {
    /// The usage text: every command in a line or two; `authflow <command> --help` says more.
    public static let usage = """
        authflow — verify AuthCore's auth lifecycles

        USAGE
          authflow verify [--json] [--quick] [--in-flight N] [--stale M] [--seed S] [--runs N] [--length L] [--keep-going] [--no-reduction]
                                                               check each model's contract, explore it to closure at 4 requests
                                                               in flight and 2 answers left over, fuzz it; check every contract
                                                               against Fixtures/; exit 1 on any violation, printed as found (a
                                                               model stops at its first; --keep-going: not); --quick: each model
                                                               at its own lower bounds; --in-flight/--stale: at those bounds
          authflow explore <model> [--depth N] [--in-flight N] [--stale M] [--keep-going] [--no-reduction] [--json]
                                                               exhaustive exploration of one model, at its bounds or others;
                                                               --no-reduction: the plain search, without the reduction
          authflow fuzz <model> [--seed S] [--runs N] [--length L] [--no-reuse] [--json]
                                                               seeded random walks, every invariant checked; prints its seed
          authflow replay <model> --seed S [--length L]        replay one fuzz walk from its seed, step by step
          authflow list                                        the models
          authflow fixtures [--write] [--check] [DIR]          the fixture index: print it, write DIR/INDEX.md, or exit 1 if stale
          authflow diagrams [--output DIR] [--format mermaid|dot|scxml|all] [--check]
                                                               generate StateDiagrams/ from the reducers; --check exits 1 naming
                                                               every file that differs from what the code generates
          authflow serve [--backend NAME|all] [--port 8080] [--deployed] [--deviate LIST] [--quiet]
                                                               run the reference backend for local app development, logging
                                                               each request (--quiet: not); --deployed answers as the deployed
                                                               servers do, not as their documents say; --deviate makes Everday
                                                               or the OpenID Connect provider (oidc) differ (see serve --help);
                                                               Ctrl-C stops it
          authflow demo                                        every backend's main lifecycle over HTTP through the real runner,
                                                               printing each state transition; exit 1 if one went otherwise
          authflow probe <backend> --base-url URL [--json] [--dry-run] [--code-command C] [--approve-command C]
                [--unapprove-command C] [--clock-command C] [--oauth-command C] [--phone P] [--email-domain D]
          authflow probe oidc --issuer URL --client-id ID [--redirect-uri URI] [--oauth-command C] [--json] [--dry-run]
                                                               check a live server against the backend's document (an OpenID Connect
                                                               provider against the standards) through the real client, a row per
                                                               lifecycle and edge request; exit 1 when a difference breaks the client;
                                                               loopback only unless --i-own-this-server; at most 100 requests, 10 a
                                                               second; every backend; oidc checks discovery and error bodies without
                                                               a login, the rest with --oauth-command signing in for it
          authflow bench [--quick] [--json] [--write] [--strict] [--wide] [--only SECTION,…] [--python PATH]
                                                               the performance figures, measured side by side in one run, each
                                                               target met or not; --strict: exit 1 when one is not met

        `authflow <command> --help` (or `authflow help <command>`) shows a command's options and an
        example. Seeds are decimal or 0x-hex; counts are whole numbers, and a value out of range
        is refused with exit 64.
        """

    /// Runs the command line `words` (without the program name), writing to `out` and `err`.
    /// Returns the exit status: 0 when clean, 1 when a check found a violation, 64 for a command
    /// line it refuses.
    ///
    /// `models` are the models `verify`, `explore`, `fuzz`, `replay` and `list` work on: every
    /// shipped model unless a caller (a test, an app checking its own compositions) names others.
    /// `fixtures` is the fixture library `verify` checks every shipped contract against
    /// (``ContractConformance``): `Fixtures/` in the current directory, the package's root.
    public static func run(
        _ words: [String], models: [AnyModel] = Models.all, fixtures: URL = URL(fileURLWithPath: "Fixtures", isDirectory: true),
        out: (String) -> Void, err: (String) -> Void
    ) -> Int32 {
        let arguments: Arguments
        do {
            arguments = try Arguments.parse(words, valued: valued, flags: flags)
        } catch {
            err("authflow: \(error)")
            return 64
        }
        guard let name = arguments.command, name != "help" else {
            if let topic = arguments.positional.first {
                guard let command = command(named: topic) else {
                    err("authflow: no command '\(topic)' (see --help)")
                    return 64
                }
                out(command.help)
                return 0
            }
            out(usage)
            return arguments.command == nil && !arguments.flags.contains("help") ? 64 : 0
        }
        guard let command = command(named: name) else {
            err("authflow: unknown command '\(name)' (see --help)")
            return 64
        }
        if arguments.flags.contains("help") {
            out(command.help)
            return 0
        }
        if let problem = refusal(of: arguments, by: command) {
            err("authflow: \(problem)")
            return 64
        }
        do {
            switch name {
            case "verify": return try verify(arguments, models: models, fixtures: fixtures, out: out, err: err)
            case "explore": return try explore(arguments, models: models, out: out, err: err)
            case "fuzz": return try fuzz(arguments, models: models, out: out, err: err)
            case "replay": return try replay(arguments, models: models, out: out, err: err)
            case "fixtures": return FixtureIndex.run(arguments, out: out, err: err)
            case "list":
                models.forEach { out($0.name) }
                return 0
            case "diagrams": return try diagrams(arguments, out: out, err: err)
            case "serve": return try serve(arguments, out: out, err: err)
            case "demo": return demo(out: out)
            case "probe": return try probe(arguments, out: out, err: err)
            case "bench":
                return try bench(arguments, out: out, err: err)
            default:
                err("authflow: unknown command '\(name)' (see --help)")
                return 64
            }
        } catch let problem as Arguments.Problem {
            err("authflow: \(problem)")
            return 64
        } catch let problem as CommandProblem {
            err("authflow: \(problem)")
            return 64
        } catch {
            err("authflow: \(error)")
            return 70
        }
    }

    /// A command's own refusal.
    struct CommandProblem: Error, CustomStringConvertible {
        var description: String
    }

    static func model(_ arguments: Arguments, in models: [AnyModel]) throws -> AnyModel {
        guard let name = arguments.positional.first else {
            throw CommandProblem(description: "name a model: \(models.map(\.name).joined(separator: ", "))")
        }
        guard let model = models.first(where: { $0.name == name }) else {
            throw CommandProblem(description: "no model '\(name)'; models: \(models.map(\.name).joined(separator: ", "))")
        }
        return model
    }

    static func verify(_ arguments: Arguments, models: [AnyModel], fixtures: URL, out: (String) -> Void, err: (String) -> Void) throws
        -> Int32
    {
        let configuration = FuzzConfiguration(
            seed: try arguments.seed("seed", default: FuzzConfiguration().seed), runs: try arguments.integer("runs", default: 30),
            length: try arguments.integer("length", default: 300))
        let own = models
        let least = verifyBounds(arguments)
        let models = try models.map { try bounded($0, by: arguments, atLeast: least) }
        let clock = ContinuousClock()
        let started = clock.now
        let rows: [VerifyRow] = withoutActuallyEscaping(err) { err in
            let progress = SharedLines(err)
            // The models run side by side, one per core: each explores on one thread.
            let limits = ExplorationLimits(
                keepGoing: arguments.flags.contains("keep-going"), reduction: reduction(arguments), threads: models.count > 1 ? 1 : Cores.online)
            return Parallel.map(models, schedule: Models.largestFirst(own, runAt: models)) { model in
                progress("verifying \(model.name)…")
                // The search merges worlds with one fingerprint, trusting that they offer the same
                // moves: shown on the model's first 1,000 worlds before it is trusted (6 s of CPU
                // time for the 22 shipped models, 13 s for 2,000 worlds).
                let contract = model.checkContract()
                let exploration = model.explore(limits: limits, found: { progress("  ✗ \(model.name): \($0.summary)") })
                let fuzzing = model.fuzz(configuration)
                var row = VerifyRow(exploration: exploration, fuzzing: fuzzing, contractBreak: contract.finding)
                if limits.reduction == .plain {
                    // The plain search is the reduction's oracle: the reduced search must agree with it.
                    var reduced = limits
                    reduced.reduction = .symmetric
                    row.reductionDisagreements = ReductionCheck.disagreements(plain: exploration, reduced: model.explore(limits: reduced))
                }
                progress("  \(model.name): \(exploration.states) states, \(row.passed ? "✓" : "✗")")
                return row
            }
        }
        let contracts = ContractRows(fixturesAt: fixtures)
        let total = clock.now - started
        if arguments.flags.contains("json") {
            out(JSON.array(rows.map(\.json) + contracts.json))
        } else {
            out(
                Table.render(
                    header: ["model", "bounds", "states", "transitions", "depth", "invariants", "fuzz events", "seconds", "result"],
                    rows: rows.map(\.cells)))
            out(
                "bounds: requests in flight / answers left over, each model explored to closure within them; "
                    + "fuzz walks go up to \(Fuzzer.walkBounds.inFlight)/\(Fuzzer.walkBounds.stale); "
                    + (reduction(arguments) == .symmetric
                        ? "worlds alike up to the order and ids of calls and requests, or up to whether a code was sent exactly its "
                            + "longest cooldown or lifetime ago or earlier, are one state (--no-reduction: the plain search)"
                        : "the plain search (no reduction), and the reduced search checked against it: the same verdict for every "
                            + "invariant, the same findings, the same drawn graph and cases, no more states"))
            for row in rows {
                row.exploration.violations.forEach { out("\n\(row.exploration.model): \($0)") }
                row.exploration.findings.forEach { out("\n\(row.exploration.model): \($0)") }
                if let finding = row.contractBreak { out("\n\(row.exploration.model) model contract: \(finding)") }
                if let failure = row.fuzzing?.failure { out("\n\(row.exploration.model) fuzz: \(failure)") }
                row.reductionDisagreements.forEach { out("\n\(row.exploration.model): the reduction disagrees with the plain search: \($0)") }
            }
            contracts.lines.forEach(out)
            out(
                "\n\(rows.count) models, \(rows.map(\.exploration.states).reduce(0, +)) states; \(contracts.summary); in \(total.formatted)")
        }
        let verdict: Int32 = rows.allSatisfy(\.passed) && contracts.passed ? 0 : 1
        guard arguments.flags.contains("diagrams") else { return verdict }
        return max(verdict, drawnDiagramsMissNothing(of: rows.map(\.exploration), out: out, err: err))
    }

    /// `--no-reduction`: the plain search, worlds told apart by the order of every list and by a
    /// code sent exactly the history's horizon ago rather than earlier.
    static func reduction(_ arguments: Arguments) -> Reduction { arguments.flags.contains("no-reduction") ? .plain : .symmetric }

    /// `model` at the bounds `--in-flight` and `--stale` name, each defaulting to the model's own.
    static func bounded(_ model: AnyModel, by arguments: Arguments) throws -> AnyModel {
        try bounded(model, by: arguments, atLeast: (inFlight: 1, stale: 1))
    }

    /// `model` at the bounds `--in-flight` and `--stale` name; each one not named is the model's
    /// own, raised to `least`'s.
    static func bounded(_ model: AnyModel, by arguments: Arguments, atLeast least: (inFlight: Int, stale: Int)) throws -> AnyModel {
        let raised = model.raised(toAtLeast: least)
        let inFlight = try arguments.integer("in-flight", default: raised.inFlight)
        let stale = try arguments.integer("stale", default: raised.stale)
        return inFlight == model.inFlight && stale == model.stale ? model : model.bounded(inFlight: inFlight, stale: stale)
    }

    /// The bounds `verify` explores every model at, at least, unless told otherwise: full depth,
    /// 4 requests in flight and 2 answers left over (``Models/fullBounds``), where the races that
    /// client libraries' issue trackers record live: a refresh, a replayed call and a logout
    /// overlapping; the answers of two abandoned generations (supabase-swift #1371). `--quick`
    /// keeps each model's own bounds, lower for the largest (see ``Models``): what the tests and
    /// the diagrams explore, in seconds.
    static func verifyBounds(_ arguments: Arguments) -> (inFlight: Int, stale: Int) {
        arguments.flags.contains("quick") ? (inFlight: 1, stale: 1) : Models.fullBounds
    }

    static func explore(_ arguments: Arguments, models: [AnyModel], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let model = try bounded(try model(arguments, in: models), by: arguments)
        let seconds = try arguments.integer("max-seconds", default: 0)
        let limits = ExplorationLimits(
            maxStates: try arguments.integer("max-states", default: ExplorationLimits().maxStates),
            maxDepth: try arguments.integer("depth", default: ExplorationLimits().maxDepth), keepGoing: arguments.flags.contains("keep-going"),
            reduction: reduction(arguments), maxDuration: seconds > 0 ? .seconds(seconds) : nil,
            threads: try arguments.integer("threads", default: Cores.online))
        let report = withoutActuallyEscaping(err) { err in
            // A progress line a second, once a run has taken more than a second.
            let progress = SharedLines(err)
            return model.explore(
                limits: limits, progress: ExplorationProgress.throttled(every: .seconds(1)) { progress("exploring \(model.name)… \($0)") },
                found: { progress("✗ found: \($0.summary)") })
        }
        if arguments.flags.contains("json") {
            out(VerifyRow(exploration: report, fuzzing: nil).json)
        } else {
            out(
                "\(report.model) (at most \(report.bounds.inFlight) in flight, \(report.bounds.stale) left over): \(report.states) states, \(report.transitions) transitions, depth \(report.depth), \(report.invariants) invariants, \(Int(report.statesPerSecond)) states/s\(report.stoppedAtViolation ? " (stopped after the first violation's level; --keep-going explores on)" : report.complete ? "" : " (bounded: not complete)")"
            )
            out("states per depth: \(report.levels.map(String.init).joined(separator: " "))")
            let busiest = report.statesPerCase.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(8)
            out("busiest cases: " + busiest.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            if !report.deepestTrace.isEmpty {
                out("a shortest trace to a deepest state:")
                report.deepestTrace.enumerated().forEach { out("  \($0.offset + 1). \($0.element)") }
            }
            report.violations.forEach { out("\($0)") }
            report.findings.forEach { out("\($0)") }
            out(report.passed ? "✓ \(report.verdict)" : report.verdict)
        }
        return report.passed || (!report.complete && report.violations.isEmpty) ? 0 : 1
    }

    static func fuzz(_ arguments: Arguments, models: [AnyModel], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let model = try model(arguments, in: models)
        let configuration = FuzzConfiguration(
            seed: try arguments.seed("seed", default: FuzzConfiguration().seed), runs: try arguments.integer("runs", default: 200),
            length: try arguments.integer("length", default: 400), reusesCheckedTransitions: !arguments.flags.contains("no-reuse"),
            threads: try arguments.integer("threads", default: 1))
        let report = model.fuzz(configuration)
        if arguments.flags.contains("json") {
            out(
                JSON.object([
                    ("model", JSON.string(report.model)), ("runs", "\(report.runs)"), ("events", "\(report.events)"),
                    ("freshEvents", "\(report.freshEvents)"), ("eventsPerSecond", "\(Int(report.eventsPerSecond))"),
                    ("failure", report.failure.map { JSON.failure($0) } ?? "null"),
                ]))
        } else {
            out(
                "\(report.model): \(report.runs) runs, \(report.events) checked events (\(report.freshEvents) stepped afresh, "
                    + "the rest along transitions checked before), \(Int(report.eventsPerSecond)) events/s")
            out(
                "seed 0x\(String(configuration.seed, radix: 16, uppercase: true)) (--seed reruns this session); its first walk step by step: "
                    + "authflow replay \(report.model) --seed \(configuration.seed(ofRun: 0)) --length \(configuration.length)")
            if let failure = report.failure {
                out("\(failure)")
                if failure.violation.invariant == Fuzzer.brokenContractName {
                    // `replay` steps afresh, and this walk does not fail stepped afresh.
                    out("no replay: the walk does not fail again when stepped afresh, as `authflow replay` steps it; mend the model (see above)")
                } else {
                    out("replay: authflow replay \(report.model) --seed \(failure.seed) --length \(configuration.length)")
                }
            } else {
                out("✓ no violation")
            }
        }
        return report.failure == nil ? 0 : 1
    }

    static func replay(_ arguments: Arguments, models: [AnyModel], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let model = try model(arguments, in: models)
        guard arguments.options["seed"] != nil else { throw CommandProblem(description: "replay needs --seed") }
        let seed = try arguments.seed("seed", default: 0)
        let length = try arguments.integer("length", default: FuzzConfiguration().length)
        let json = arguments.flags.contains("json")
        if !json {
            let walk = model.walk(seed: seed, length: length)
            out("\(model.name): the walk of seed \(seed), \(walk.steps.count) events (events redacted):")
            walk.steps.enumerated().forEach { out("  \($0.offset + 1). \($0.element)") }
        }
        guard let failure = model.replay(seed: seed, length: length) else {
            out("\(model.name): seed \(seed) runs \(length) events without a violation")
            return 0
        }
        out(json ? JSON.failure(failure) : "\(failure)")
        return 1
    }
}

/// The contracts part of `verify`: every shipped contract against the fixture library.
struct ContractRows {
    /// A report per contract, or why the library could not be read.
    var reports: Result<[ContractConformanceReport], ContractFixtures.Problem>

    init(fixturesAt root: URL) {
        do {
            reports = .success(try ContractConformance.checkShipped(fixturesAt: root))
        } catch let problem as ContractFixtures.Problem {
            reports = .failure(problem)
        } catch {
            reports = .failure(ContractFixtures.Problem("\(error)"))
        }
    }

    var passed: Bool { (try? reports.get())?.allSatisfy(\.passed) ?? false }

    /// The table and each problem, printed under the models'.
    var lines: [String] {
        switch reports {
        case .failure(let problem):
            return ["\n✗ contracts not checked: \(problem) (run verify from the package's root, where Fixtures/ is)"]
        case .success(let reports):
            let table = Table.render(
                header: ["contract", "requests", "answers", "damaged answers", "result"],
                rows: reports.map { ["\($0.backend.id)", "\($0.requests)", "\($0.responses)", "\($0.damagedBodies)", $0.passed ? "✓" : "✗"] })
            return [
                "\n" + table,
                "each fixture request encodes and each fixture answer decodes as its sidecar says; damaged answers never trap and read as malformed",
            ]
                + reports.flatMap { report in report.problems.map { "\n\(report.backend.id) contract: \($0)" } }
        }
    }

    /// `5 contracts, 152 fixtures`.
    var summary: String {
        guard case .success(let reports) = reports else { return "contracts not checked" }
        return "\(reports.count) contracts, \(reports.map { $0.requests + $0.responses }.reduce(0, +)) fixtures"
    }

    /// A row per contract for `verify --json`.
    var json: [String] {
        switch reports {
        case .failure(let problem):
            return [JSON.object([("contract", "null"), ("problems", JSON.array([JSON.string(problem.description)])), ("passed", "false")])]
        case .success(let reports):
            return reports.map { report in
                JSON.object([
                    ("contract", JSON.string(report.backend.id)), ("requests", "\(report.requests)"), ("responses", "\(report.responses)"),
                    ("damagedBodies", "\(report.damagedBodies)"), ("problems", JSON.array(report.problems.map(JSON.string))),
                    ("passed", "\(report.passed)"),
                ])
            }
        }
    }
}

struct VerifyRow {
    var exploration: ExplorationReport
    var fuzzing: FuzzReport?
    /// Where the model's menu breaks its contract (``ContractCheck``), when `verify` checked it.
    var contractBreak: Finding? = nil
    /// Under `--no-reduction`, where the reduced search disagrees with the plain one.
    var reductionDisagreements: [String] = []

    var passed: Bool { exploration.passed && fuzzing?.failure == nil && contractBreak == nil && reductionDisagreements.isEmpty }

    var cells: [String] {
        [
            exploration.model, "\(exploration.bounds.inFlight)/\(exploration.bounds.stale)", "\(exploration.states)",
            "\(exploration.transitions)", "\(exploration.depth)",
            "\(exploration.invariants)", fuzzing.map { "\($0.events)" } ?? "-",
            String(format2: exploration.seconds + (fuzzing?.seconds ?? 0)), passed ? "✓" : "✗",
        ]
    }

    var json: String {
        JSON.object([
            ("model", JSON.string(exploration.model)), ("inFlight", "\(exploration.bounds.inFlight)"),
            ("stale", "\(exploration.bounds.stale)"), ("states", "\(exploration.states)"),
            ("transitions", "\(exploration.transitions)"), ("depth", "\(exploration.depth)"),
            ("invariants", "\(exploration.invariants)"), ("complete", "\(exploration.complete)"),
            ("seconds", String(format2: exploration.seconds)), ("statesPerSecond", "\(Int(exploration.statesPerSecond))"),
            ("fuzzEvents", fuzzing.map { "\($0.events)" } ?? "0"),
            ("violations", JSON.array(exploration.violations.map { JSON.string($0.description) })),
            ("findings", JSON.array(exploration.findings.map { JSON.string($0.description) })),
            ("fuzzFailure", fuzzing?.failure.map { JSON.failure($0) } ?? "null"),
            ("modelContract", contractBreak.map { JSON.string($0.description) } ?? "null"),
            ("reductionDisagreements", JSON.array(reductionDisagreements.map(JSON.string))), ("passed", "\(passed)"),
        ])
    }
}

extension JSON {
    /// A fuzz failure: its seed, invariant, lengths and shrunk trace.
    static func failure(_ failure: FuzzFailure) -> String {
        object([
            ("seed", "\(failure.seed)"), ("invariant", string(failure.violation.invariant)),
            ("originalLength", "\(failure.originalLength)"), ("shrunkLength", "\(failure.violation.trace.count)"),
            ("trace", array(failure.violation.trace.map { string($0.description) })),
        ])
    }
}

/// A plain-text table with aligned columns.
enum Table {
    static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.leftAligned(to: $1) }.joined(separator: "  ")
        }
        return ([line(header), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")] + rows.map(line))
            .joined(separator: "\n")
    }
}

extension String {
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        self = "\(hundredths / 100).\(String(hundredths % 100).leftPadded(to: 2))"
    }
}

extension Duration {
    var formatted: String {
        let (seconds, attoseconds) = components
        return String(format2: Double(seconds) + Double(attoseconds) / 1e18) + " s"
    }
}

/// The reduction's soundness check: the plain search is the oracle the reduced search (``Reduction/symmetric``) is held to.
enum ReductionCheck {
    /// Where `reduced` disagrees with `plain`, the same model at the same bounds: both must close,
    /// with the same verdict for every invariant, the same structural findings, the same projected
    /// graph (the state diagram) and cases reached, and no more states or depth with the reduction.
    static func disagreements(plain: ExplorationReport, reduced: ExplorationReport) -> [String] {
        var found: [String] = []
        if !plain.complete || !reduced.complete {
            found.append("not both closed (\(plain.states) states plain, \(reduced.states) reduced)")
        }
        let (plainBroken, reducedBroken) = (Set(plain.violations.map(\.invariant)), Set(reduced.violations.map(\.invariant)))
        if plainBroken != reducedBroken {
            let differing = plainBroken.symmetricDifference(reducedBroken).sorted()
            found.append("invariants broken in one search only: \(differing.joined(separator: "; "))")
        }
        if plain.findings.map(\.kind) != reduced.findings.map(\.kind) {
            found.append("findings \(plain.findings.map(\.kind.rawValue)) plain, \(reduced.findings.map(\.kind.rawValue)) reduced")
        }
        if Set(plain.edges) != Set(reduced.edges) {
            found.append("the drawn graph differs (\(Set(plain.edges).symmetricDifference(reduced.edges).count) edges in one only)")
        }
        if Set(plain.statesPerCase.keys) != Set(reduced.statesPerCase.keys) {
            let differing = Set(plain.statesPerCase.keys).symmetricDifference(reduced.statesPerCase.keys).sorted()
            found.append("cases reached in one search only: \(differing.joined(separator: ", "))")
        }
        if reduced.states > plain.states { found.append("more states with the reduction (\(reduced.states) > \(plain.states))") }
        if reduced.depth > plain.depth { found.append("deeper with the reduction (\(reduced.depth) > \(plain.depth))") }
        return found
    }
}
