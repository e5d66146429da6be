import AuthflowBench
import AuthSupport
/// What each `authflow` command takes: its synopsis, options, an example, and the values every
/// numeric option accepts. `authflow <command> --help` prints it; `Authflow.run` refuses an option
/// the command does not take, a numeric value out of its range, and an argument past those the
/// command reads, before the command starts.
public struct CommandSpec: Hashable, Sendable {
    /// The command's name (`fuzz`).
    public var name: String
    /// The command line, with its arguments (`authflow fuzz <model> [--seed S] …`).
    public var synopsis: String
    /// What the command does, in a sentence or two.
    public var summary: String
    /// The options and flags it takes (`--help` aside).
    public var options: [CommandOption]
    /// Command lines that show it in use (without `authflow`).
    public var examples: [String]
    /// The positional arguments a run needs, as a test gives them (a model's name for `fuzz`).
    public var requiredArguments: [String]
    /// The most positional arguments it takes (`fuzz <model>`: 1; `verify`: none). `Authflow.run`
    /// refuses more before the command starts: a word the command would not read (a model named
    /// to `verify`, which checks them all) must not be dropped in silence.
    public var maxArguments: Int

    /// Creates a command's description.
    public init(
        name: String, synopsis: String, summary: String, options: [CommandOption], examples: [String], requiredArguments: [String] = [],
        maxArguments: Int = 0
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.options = options
        self.examples = examples
        self.requiredArguments = requiredArguments
        self.maxArguments = maxArguments
    }

    /// The names of the options that take a value.
    public var valued: Set<String> { Set(options.filter { $0.placeholder != nil }.map(\.name)) }
    /// The names of the flags.
    public var flags: Set<String> { Set(options.filter { $0.placeholder == nil }.map(\.name)) }

    /// What `authflow <command> --help` prints: the synopsis, the options and the examples.
    public var help: String {
        let width = options.map(\.shown.count).max() ?? 0
        var lines = ["authflow \(name) — \(summary)", "", "USAGE", "  \(synopsis)"]
        if !options.isEmpty {
            lines += ["", "OPTIONS"]
            lines += options.map { "  \($0.shown.leftAligned(to: width))  \($0.help)" }
            lines.append("  \("--help".leftAligned(to: width))  this text")
        }
        lines += ["", examples.count == 1 ? "EXAMPLE" : "EXAMPLES"] + examples.map { "  authflow \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The first numeric option of `arguments` whose value this command refuses, with the reason.
    func check(_ arguments: Arguments) -> Arguments.Problem? {
        for option in options {
            guard let rule = option.numeric, let value = arguments.options[option.name] else { continue }
            if let problem = rule.check(value, option: option.name) { return problem }
        }
        return nil
    }
}

/// One option or flag of a command.
public struct CommandOption: Hashable, Sendable {
    /// The name without dashes (`runs`).
    public var name: String
    /// The value's placeholder (`N`), or `nil` for a flag.
    public var placeholder: String?
    /// What it does.
    public var help: String
    /// The values a numeric option accepts; `nil` for a flag or a non-numeric option.
    public var numeric: NumericRule?

    /// A flag (`--json`).
    public static func flag(_ name: String, _ help: String) -> CommandOption {
        CommandOption(name: name, placeholder: nil, help: help, numeric: nil)
    }

    /// An option with a value (`--output DIR`).
    public static func value(_ name: String, _ placeholder: String, _ help: String, numeric: NumericRule? = nil) -> CommandOption {
        CommandOption(name: name, placeholder: placeholder, help: help, numeric: numeric)
    }

    /// `--runs N`, as help prints it.
    var shown: String { "--\(name)" + (placeholder.map { " \($0)" } ?? "") }
}

/// The values a numeric option accepts.
public enum NumericRule: Hashable, Sendable {
    /// A whole number within the range.
    case count(ClosedRange<Int>)
    /// A seed: any unsigned 64-bit number, in decimal or `0x` hex.
    case seed

    /// The refusal of `value` for `--option`, or `nil` when it is accepted.
    func check(_ value: String, option: String) -> Arguments.Problem? {
        switch self {
        case .seed:
            let parsed = value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
            return parsed == nil ? .notANumber(option: option, value: value) : nil
        case .count(let range):
            guard let number = Int(value) else {
                // A run of digits too long for Int is a number out of range, not a word.
                let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
                return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
                    ? .outOfRange(option: option, value: value, range: range) : .notANumber(option: option, value: value)
            }
            return range.contains(number) ? nil : .outOfRange(option: option, value: value, range: range)
        }
    }
}

extension Authflow {
    /// What `--no-reduction` does.
    static let noReduction =
        "the plain search: worlds that hold the requests in flight, the pending calls and the history's id lists in another order, "
        + "or hold a code sent exactly the longest code cooldown or lifetime ago rather than earlier, are not merged (default: they are one state)"

    /// `--in-flight` and `--stale`, as `verify` and `explore` take them; `whose` says whose
    /// bounds apply without them.
    static func bounds(defaultingTo whose: String) -> [CommandOption] {
        [
            .value(
                "in-flight", "N", "at most N requests in flight, 1…\(Limits.inFlight.upperBound) (default: \(whose))",
                numeric: .count(Limits.inFlight)),
            .value(
                "stale", "M",
                "at most M answers left over from abandoned work, \(Limits.stale.lowerBound)…\(Limits.stale.upperBound) (default: \(whose))",
                numeric: .count(Limits.stale)),
        ]
    }

    /// Every command, in the order the usage lists them.
    public static let commands: [CommandSpec] = [
        CommandSpec(
            name: "verify",
            synopsis:
                "authflow verify [--json] [--quick] [--in-flight N] [--stale M] [--seed S] [--runs N] [--length L] [--keep-going] [--no-reduction] [--diagrams]",
            summary:
                "check each model's contract (its menu reads only a world's facts), explore it to closure at 4 requests in flight and 2 answers left over and fuzz it, and check every shipped backend contract against Fixtures/; exit 1 on any violation (printed as soon as it is found)",
            options: [
                .flag("json", "one JSON array, a row per model, then one per contract"),
                .flag(
                    "quick",
                    "each model at its own bounds, lower than 4/2 for the largest (what the tests and the diagrams explore): seconds, not minutes, and shallower"
                ),
            ]
                + bounds(defaultingTo: "4/2, or the model's own where higher; with --quick, the model's own") + [
                    .flag(
                        "keep-going",
                        "explore a model on after its first violation, to closure: every invariant's shortest violation (default: stop at the end of that breadth-first level)"
                    ),
                    .flag("no-reduction", Self.noReduction),
                    .value("seed", "S", "the fuzzing seed (decimal or 0x-hex; default 0xA17C0DE5)", numeric: .seed),
                    .value("runs", "N", "fuzz walks per model, 1…\(Limits.runs.upperBound) (default 30)", numeric: .count(Limits.runs)),
                    .value("length", "L", "events per walk, 1…\(Limits.length.upperBound) (default 300)", numeric: .count(Limits.length)),
                    .flag(
                        "diagrams",
                        "also check that no drawn lifecycle diagram (StateDiagrams/) lacks a state or an edge these explorations found"),
                ],
            examples: ["verify", "verify --quick", "verify --runs 100 --json", "verify --diagrams", "verify --quick --no-reduction"]),
        CommandSpec(
            name: "explore",
            synopsis:
                "authflow explore <model> [--depth N] [--max-states N] [--max-seconds S] [--in-flight N] [--stale M] [--threads T] [--keep-going] [--no-reduction] [--json]",
            summary: "explore one model exhaustively, breadth-first, checking every invariant; progress on standard error",
            options: bounds(defaultingTo: "the model's own, as verify --quick prints it") + [
                .value("depth", "N", "stop N events from launch, 1…\(Limits.depth.upperBound) (default 1000)", numeric: .count(Limits.depth)),
                .value(
                    "max-states", "N", "stop after N distinct states, 1…\(Limits.states.upperBound) (default 5000000): \"not closed\" then",
                    numeric: .count(Limits.states)),
                .value(
                    "max-seconds", "S", "stop after S seconds, 1…\(Limits.seconds.upperBound) (default: none): \"not closed\" then",
                    numeric: .count(Limits.seconds)),
                .value(
                    "threads", "T",
                    "step each breadth-first level on T threads, 1…\(Limits.threads.upperBound) (default: one per core); the report does not depend on it",
                    numeric: .count(Limits.threads)),
                .flag("keep-going", "explore on after the first violation (default: stop at the end of its breadth-first level)"),
                .flag("no-reduction", Self.noReduction),
                .flag("json", "one JSON object with the report's figures"),
            ],
            examples: [
                "explore session.everday", "explore app.subspace --depth 12 --json", "explore app.everday --in-flight 3 --stale 2",
                "explore app.hero365 --in-flight 4 --stale 2 --max-seconds 30",
            ],
            requiredArguments: ["passwordSignIn"], maxArguments: 1),
        CommandSpec(
            name: "fuzz", synopsis: "authflow fuzz <model> [--seed S] [--runs N] [--length L] [--threads T] [--no-reuse] [--json]",
            summary: "seeded random walks over one model, every invariant checked at each event; prints the seed it used",
            options: [
                .value("seed", "S", "the session's seed, decimal or 0x-hex (default 0xA17C0DE5); walk n uses a seed derived from it", numeric: .seed),
                .value("runs", "N", "how many walks, 1…\(Limits.runs.upperBound) (default 200)", numeric: .count(Limits.runs)),
                .value("length", "L", "events per walk, 1…\(Limits.length.upperBound) (default 400)", numeric: .count(Limits.length)),
                .value(
                    "threads", "T",
                    "walk on T threads, 1…\(Limits.threads.upperBound) (default 1); the walks and what they find do not depend on it; pays with --no-reuse",
                    numeric: .count(Limits.threads)),
                .flag("no-reuse", "step and check every event afresh instead of following transitions checked before (the same walks)"),
                .flag("json", "one JSON object: runs, events, the failure if any"),
            ],
            examples: ["fuzz app.subspace", "fuzz session.everday --seed 0x2a --runs 500 --length 200"], requiredArguments: ["passwordSignIn"],
            maxArguments: 1),
        CommandSpec(
            name: "replay", synopsis: "authflow replay <model> --seed S [--length L] [--json]",
            summary: "replay one fuzz walk from its seed, printing each step (events redacted) and the failure, shrunk, if it breaks one",
            options: [
                .value("seed", "S", "the walk's seed, as fuzz printed it (decimal or 0x-hex); required", numeric: .seed),
                .value("length", "L", "events in the walk, 1…\(Limits.length.upperBound) (default 400)", numeric: .count(Limits.length)),
                .flag("json", "the failure as one JSON object (steps not printed)"),
            ],
            examples: ["replay app.subspace --seed 42 --length 400"], requiredArguments: ["passwordSignIn", "--seed", "1"], maxArguments: 1),
        CommandSpec(name: "list", synopsis: "authflow list", summary: "the models, one a line", options: [], examples: ["list"]),
        CommandSpec(
            name: "fixtures", synopsis: "authflow fixtures [--write] [--check] [DIR]",
            summary: "the fixture index: print it, write DIR/INDEX.md (DIR: Fixtures), or exit 1 if it is stale",
            options: [.flag("write", "write DIR/INDEX.md"), .flag("check", "exit 1 when DIR/INDEX.md differs from what the fixtures give")],
            examples: ["fixtures --check"], maxArguments: 1),
        CommandSpec(
            name: "diagrams", synopsis: "authflow diagrams [--output DIR] [--format mermaid|dot|scxml|all] [--check [--full-bounds]]",
            summary: "generate StateDiagrams/ from the reducers (.mmd, .dot, .scxml, README.md; .svg where Graphviz's dot is on the PATH)",
            options: [
                .value("output", "DIR", "where to write (default StateDiagrams)"),
                .value("format", "F", "mermaid, dot, scxml or all, comma-separated (default all)"),
                .flag("check", "write nothing; exit 1 naming every file that differs from what the code generates (.svg not compared)"),
                .flag(
                    "full-bounds",
                    "with --check: explore every lifecycle at 4 in flight / 2 left over too, and exit 1 if a diagram (drawn at verify's default bounds) lacks a state or an edge found there"
                ),
            ],
            examples: ["diagrams", "diagrams --check", "diagrams --check --full-bounds"]),
        CommandSpec(
            name: "serve", synopsis: "authflow serve [--backend NAME|all] [--port 8080] [--deployed] [--deviate LIST] [--quiet]",
            summary: "run the reference backend for local app development, logging each request; Ctrl-C stops it",
            options: [
                .value(
                    "backend", "NAME",
                    "all, or one of anonymousWall, vynqTalk, everday, subspace, hero365, openIDConnect (oidc: an OpenID Connect provider) (default all)"
                ),
                .value("port", "P", "the port on 127.0.0.1, 0…65535 (0 picks a free one; default 8080)", numeric: .count(0...65_535)),
                .flag("deployed", "answer as the deployed servers do, not as their documents say"),
                .flag("quiet", "do not log requests (method, path, status, time; bodies, queries and tokens are never logged)"),
                .value(
                    "deviate", "LIST",
                    "Everday answers otherwise than its document, or (oidc-…) the OpenID Connect provider otherwise than the standards, "
                        + "to try `authflow probe` on: " + DevServer.deviationNames.joined(separator: ", ") + " (comma-separated)"),
            ],
            examples: [
                "serve --backend everday --port 8080", "serve --backend subspace --deployed",
                "serve --port 8080 --deviate keep-session-at-logout,register-201", "serve --backend oidc --deviate oidc-no-pkce",
            ]),
        CommandSpec(
            name: "demo", synopsis: "authflow demo",
            summary:
                "every backend's main lifecycle (and OpenID Connect sign-in) over HTTP through the real runner, printing each state transition; exit 1 if one went otherwise",
            options: [], examples: ["demo"]),
        probeSpec,
        CommandSpec(
            name: "bench", synopsis: "authflow bench [--quick] [--json] [--write] [--strict] [--wide] [--only SECTION,…] [--python PATH]",
            summary: "the performance figures, measured side by side in one run, each target met or not",
            options: [
                .flag("quick", "the larger explorations capped: half an hour to an hour on a 2-core machine, most of it the closure table"),
                .flag("json", "every figure, its samples and details as JSON"),
                .flag(
                    "write",
                    "also write BENCHMARKS.md in the current directory; with --only composition, put this build's rows of that section in the file beside the other build's"
                ),
                .flag("strict", "exit 1 when a printed target is not met (default: exit 0 whatever the figures)"),
                .flag("wide", "one line a figure with its details in a last column, instead of details under each section"),
                .value(
                    "only", "SECTIONS",
                    "measure only these, comma-separated: \(BenchSection.allCases.map(\.rawValue).joined(separator: ",")) (with --write, composition alone)"
                ),
                .value(
                    "python", "PATH",
                    "the Python 3 with Hypothesis whose RuleBasedStateMachine the fuzzer's rows stepping every event afresh are judged against (default: python3)"
                ),
            ],
            examples: ["bench --quick", "bench --quick --only reducer,fuzzer --strict", "bench --quick --only composition --write"]),
    ]

    /// The bounds of the counts the commands take: wide enough for any real run, narrow enough
    /// that no value makes a command run for days or allocate without bound.
    public enum Limits {
        /// `--runs`.
        public static let runs = 1...1_000_000
        /// `--length`.
        public static let length = 1...1_000_000
        /// `--depth` (the explorer keeps depths in 16 bits).
        public static let depth = 1...65_000
        /// `--max-states`.
        public static let states = 1...100_000_000
        /// `--max-seconds`: a day at most.
        public static let seconds = 1...86_400
        /// `--threads`.
        public static let threads = 1...64
        /// `--in-flight`: past a handful the space of most models outgrows memory.
        public static let inFlight = 1...8
        /// `--stale`: at 0 the user could never act (the user acts only while fewer answers are
        /// left over than the bound).
        public static let stale = 1...8
    }

    /// The description of the command named `name`.
    public static func command(named name: String) -> CommandSpec? { commands.first { $0.name == name } }

    /// The options and flags any command takes (the union of every command's).
    static var valued: Set<String> { commands.reduce(into: []) { $0.formUnion($1.valued) } }
    static var flags: Set<String> { commands.reduce(into: ["help"]) { $0.formUnion($1.flags) } }

    /// Whether `command` takes every option and flag `arguments` holds, no more positional
    /// arguments than it reads, and accepts every numeric value: the refusal, or `nil`.
    static func refusal(of arguments: Arguments, by command: CommandSpec) -> Arguments.Problem? {
        let stray =
            Set(arguments.options.keys).subtracting(command.valued).sorted()
            + arguments.flags.subtracting(command.flags).subtracting(["help"]).sorted()
        if let first = stray.first { return .notTaken(command: command.name, option: first) }
        if arguments.positional.count > command.maxArguments {
            return .extraArgument(command: command.name, argument: arguments.positional[command.maxArguments], takes: command.maxArguments)
        }
        return command.check(arguments)
    }
}
